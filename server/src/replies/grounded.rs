//! Grounded runs: a tool call runs only with the arguments the user gave
//! (see [`crate::grounding`]). A missing detail becomes Imprint's own
//! question before the call runs. Before the model starts, Imprint
//! settles what the request leaves open: "the project" among several, a
//! thing left unnamed ("the meeting", looked up in the user's memories),
//! and a reminder's time.

use app::protocol::ToolStatus;
use serde_json::Value;

use super::stream::{cut_result, Interrupt, Run};
use crate::grounding::reference::{self, Lookup};
use crate::grounding::{self, NeedKind, Resolved, Verdict};
use crate::models::{ChatMessage, ToolCallRequest};
use crate::store::MemoryQuery;
use crate::tools::run::MemoryLine;
use crate::tools::{self, ToolOutput, ASK_USER, LIST_PROJECTS, REMIND, SEARCH, STORE};

/// Memories Imprint's own first search hands the model at most.
const LOOK_FIRST_LIMIT: usize = 5;

impl Run {
    /// Settles what the request leaves open before the model starts, in
    /// the order a person would ask: which project, which thing, when.
    /// The model reads what came of each with the request. Each step asks
    /// at most once (a restored reply re-enters here and finds its earlier
    /// answers settled), and the notes are added only once all are
    /// settled, so a stored state never holds them twice.
    pub(super) async fn settle(&mut self) -> Result<(), Interrupt> {
        let mut notes = Vec::new();
        notes.extend(self.settle_the_project().await?);
        let reference = self.settle_the_reference().await?;
        let referred = reference.is_some();
        notes.extend(reference);
        notes.extend(self.settle_the_time().await?);
        // Planned turns search as their plan says (see `planned`).
        if !referred && !self.env.planned {
            notes.extend(self.look_first().await);
        }
        if let Some(ChatMessage::User(text)) = self.messages.last_mut() {
            for note in notes {
                text.push_str(&format!("\n\n({note})"));
            }
        }
        Ok(())
    }

    /// "The project" among several, unnamed: Imprint asks which.
    async fn settle_the_project(&mut self) -> Result<Option<String>, Interrupt> {
        if !tools::is_offered(&self.tools, ASK_USER) || !tools::is_offered(&self.tools, SEARCH) {
            return Ok(None);
        }
        if !grounding::refers_to_a_project(&self.request) {
            return Ok(None);
        }
        let projects = self.recent_projects().await;
        let Some(need) = grounding::unnamed_project(&self.request, &projects) else {
            return Ok(None);
        };
        let Some(Resolved::Project(project)) = self.ask_for(&need).await? else {
            return Ok(None);
        };
        let note = if std::mem::take(&mut self.imprint_chose) {
            format!("the user left it to you, and Imprint took the project {project}; say so")
        } else {
            format!("the user means the project {project}")
        };
        Ok(Some(format!("Imprint asked which project; {note}.")))
    }

    /// A thing the user left unnamed ("the meeting", "the account", "it"
    /// in a new chat): Imprint looks it up in their memories. One match is
    /// handed to the model; several become a question with the
    /// candidates as options; none, an open question saying so.
    async fn settle_the_reference(&mut self) -> Result<Option<String>, Interrupt> {
        if !tools::is_offered(&self.tools, ASK_USER) || !tools::is_offered(&self.tools, SEARCH) {
            return Ok(None);
        }
        let projects = self.recent_projects().await;
        let Some(found) = reference::find(&self.request, &self.earlier_words(), &projects) else {
            return Ok(None);
        };
        // Within the project the request names, or the one just settled.
        let project = self.project_meant(&projects);
        let hits = if found.search.is_empty() {
            Vec::new()
        } else {
            let query = MemoryQuery {
                query: found.search.join(" "),
                project,
                limit: Some(reference::SEARCH_LIMIT),
                ..MemoryQuery::default()
            };
            match self.store.search_memories(query).await {
                Ok(hits) => hits,
                Err(error) => {
                    tracing::warn!(%error, "could not look up a reference");
                    return Ok(None);
                }
            }
        };
        let phrase = &found.phrase;
        let need = match found.need(&hits) {
            Lookup::One(candidate) => {
                // Search settled what it means (as the first search does).
                self.settled_by(&candidate.memories);
                return Ok(Some(format!(
                    "Imprint looked up “{phrase}” in the user's memories and found one match; it is what the user means. {} Answer from it.",
                    candidate.memories.join(" ")
                )));
            }
            Lookup::Ask(need) => need,
        };
        let several = !need.options().is_empty();
        let note = match self.ask_for(&need).await? {
            Some(Resolved::Memory { label, memories }) => {
                self.settled_by(&memories);
                let who = if std::mem::take(&mut self.imprint_chose) {
                    "the user left it to you, and Imprint took"
                } else {
                    "the user chose"
                };
                format!(
                    "Imprint asked what “{phrase}” means; {who} {label}; say so. Its memories: {} Answer from them.",
                    memories.join(" ")
                )
            }
            Some(Resolved::Meant(words)) => match self.look_up(&words).await {
                // "Anna": what the memories hold about her, not a guess.
                Some(found) => format!(
                    "Imprint asked what “{phrase}” means; the user said: {words}. Imprint searched the user's memories for it. {found} Answer from these when they answer the request."
                ),
                None => format!(
                    "Imprint asked what “{phrase}” means; the user said: {words}. Work with that."
                ),
            },
            _ if several => format!(
                "Imprint asked what “{phrase}” means, and the user did not say. Say which you assumed, or ask the user to name it."
            ),
            _ => format!(
                "Imprint found nothing in the user's memories for “{phrase}”, and the user did not say what it is. Do not guess: say so, and do not write anything about it."
            ),
        };
        Ok(Some(note))
    }

    /// Imprint's lookup settled what the request is about (one match, or
    /// the one the user chose): those memories are the answer, and the
    /// model finding them again is no news (a small model otherwise goes
    /// on searching and listing projects for a minute).
    fn settled_by(&mut self, memories: &[String]) {
        self.research.learn(
            memories
                .iter()
                .filter_map(|line| MemoryLine::read(line).map(|m| m.fact())),
        );
        self.policy.found_first(memories.join("\n"), true);
    }

    /// A request about the user's own things that says what it is about
    /// ("What's Marta's phone number?", "my notes from the Website
    /// project"): Imprint searches the memories first and hands the model
    /// what it found with the request. A small model otherwise answers from
    /// nothing, or loops search → list_projects → ask_user for a minute.
    /// When nothing is found nothing is said: a general question ("What is
    /// the capital of Japan?") is the model's own. A write's words are what
    /// to write, not what to look up.
    async fn look_first(&mut self) -> Option<String> {
        let request = self.request.clone();
        let found = self.look_up(&request).await?;
        // A note, not a call: the model's own calls still run (its search
        // for the same too).
        Some(format!(
            "Imprint searched the user's memories first. {found} Answer from these when they answer the request."
        ))
    }

    /// Searches the memories for what `words` are about (the request, or
    /// the user's answer to what a reference means), for the model to read:
    /// the memories about them, those holding most of their words first.
    /// `None` when the search is not Imprint's to make (no search offered,
    /// a write asked for) or found nothing about them.
    async fn look_up(&mut self, words: &str) -> Option<String> {
        if !tools::is_offered(&self.tools, SEARCH)
            || grounding::asks_to_save(&self.request)
            || grounding::asks_for_reminder(&self.request)
        {
            return None;
        }
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects);
        let topic = reference::topic(words, &projects);
        if topic.is_empty() && project.is_none() {
            return None;
        }
        // A project named and nothing more: its newest memories.
        let query = MemoryQuery {
            query: topic.join(" "),
            project: project.clone(),
            limit: Some(reference::SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        let hits = match self.store.search_memories(query).await {
            Ok(hits) => hits,
            Err(error) => {
                tracing::warn!(%error, "could not search the memories first");
                return None;
            }
        };
        // Only memories about the request: "phone" alone is not what
        // "how do I read a phone bill?" asks about.
        let mut hits: Vec<_> = hits
            .into_iter()
            .filter(|hit| topic.is_empty() || reference::is_about(hit, &topic))
            .collect();
        // Those holding the most of its words: Marta's number, not Anna's,
        // for "What's Marta's phone number?".
        let best = hits
            .iter()
            .map(|hit| reference::words_held(hit, &topic))
            .max()
            .unwrap_or(0);
        hits.retain(|hit| reference::words_held(hit, &topic) == best);
        hits.truncate(LOOK_FIRST_LIMIT);
        if hits.is_empty() {
            return None;
        }
        let output = tools::run::found_memories(
            format!("{}:", tools::run::memories_found(hits.len())),
            &hits,
        );
        // One thing found: one project's memories (or none's), for words
        // naming at most one project ("the Website or the Thesis notes"
        // leaves the choice open).
        let named = projects
            .iter()
            .filter(|p| {
                grounding::named_project(&self.request, std::slice::from_ref(p)).is_some()
                    || grounding::named_project(words, std::slice::from_ref(p)).is_some()
            })
            .count();
        let first_project = &hits[0].project;
        let settles = named <= 1 && hits.iter().all(|hit| hit.project == *first_project);
        if settles {
            // What it settled is no news when the model finds it again,
            // nor is what the model finds that is not about it.
            self.research.learn(output.facts.iter().cloned());
            self.policy.settle_topic(topic.clone());
        }
        let found = cut_result(&output.text);
        self.policy.found_first(output.text, settles);
        Some(found)
    }

    /// A reminder asked for with no time in the user's words: Imprint asks
    /// when before the model starts (the model's `remind` call then runs
    /// at the answer; see [`grounding::check`]).
    async fn settle_the_time(&mut self) -> Result<Option<String>, Interrupt> {
        if !tools::is_offered(&self.tools, ASK_USER) || !tools::is_offered(&self.tools, REMIND) {
            return Ok(None);
        }
        // What to remind of never came: when is no question.
        if self.reference_unknown() {
            return Ok(None);
        }
        // A planned reply asks when only for a reminder: "remind me what
        // my national insurance number is" is a question.
        if self.env.planned
            && crate::plan::classify(&self.request).kind != crate::plan::Kind::Remind
        {
            return Ok(None);
        }
        let words = grounding::UserWords {
            request: &self.request,
            answers: &self.answers,
        };
        let Some(need) = grounding::unstated_time(&words, self.env.clock.now()) else {
            return Ok(None);
        };
        let note = match self.ask_for(&need).await? {
            Some(time) => {
                // Left for the `remind` call to take, so its result says
                // who chose too.
                let who = if self.imprint_chose {
                    "the user left it to you, and Imprint took"
                } else {
                    "the user said"
                };
                format!(
                    "Imprint asked when to remind; {who} {}; say so. Call remind with that time.",
                    time.describe()
                )
            }
            None => "Imprint asked when to remind, and the user did not say: set no reminder, and tell the user they can tell you when.".to_string(),
        };
        Ok(Some(note))
    }

    /// What the user said, in their own words, a reference of the request
    /// means ("Tom" for "him").
    pub(super) fn meant(&self) -> Option<&str> {
        self.settled
            .iter()
            .find_map(|(kind, resolved)| match resolved {
                Some(Resolved::Meant(words)) if *kind == NeedKind::Reference => {
                    Some(words.as_str())
                }
                _ => None,
            })
    }

    /// Imprint asked what a reference means, and no answer said.
    pub(super) fn reference_unknown(&self) -> bool {
        self.settled
            .iter()
            .any(|(kind, resolved)| *kind == NeedKind::Reference && resolved.is_none())
    }

    /// The conversation before this request, as words: what a pronoun or
    /// "the meeting" may point back at (Imprint's own notes left out).
    fn earlier_words(&self) -> String {
        let before_request = self.messages.len().saturating_sub(1);
        self.messages[..before_request]
            .iter()
            .filter_map(|m| match m {
                ChatMessage::User(text) if !text.starts_with("(Imprint") => Some(text.as_str()),
                ChatMessage::Assistant { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Runs a call whose grounded arguments (see [`grounding`]) the user
    /// gave; when one is missing, Imprint asks the user itself first.
    /// Returns the output, the arguments it ran with and the content to
    /// store.
    pub(super) async fn grounded_run(
        &mut self,
        call: &ToolCallRequest,
    ) -> Result<(ToolOutput, Value, String), Interrupt> {
        if !tools::is_offered(&self.tools, &call.name) {
            let output = if matches!(call.name.as_str(), STORE | REMIND) && !self.read_only {
                // Left out of the offer because the user did not ask for it.
                ToolOutput {
                    text: format!(
                        "Not done: the user did not ask for it, so `{}` is not offered. Do not call it again; answer the user.",
                        call.name
                    ),
                    status: ToolStatus::Refused,
                    ..ToolOutput::default()
                }
            } else {
                ToolOutput {
                    text: format!("Error: the tool `{}` is not available here", call.name),
                    error: true,
                    ..ToolOutput::default()
                }
            };
            let content = cut_result(&output.text);
            return Ok((output, call.arguments.clone(), content));
        }
        if matches!(call.name.as_str(), STORE | REMIND) && self.reference_unknown() {
            // "Remind me about it" and nobody said what "it" is: a write
            // about it would be a guess.
            let output = ToolOutput {
                text: "Not done: the user did not say what they meant, so nothing was written. Do not call it again; tell the user, and that they can say what they mean.".into(),
                status: ToolStatus::Refused,
                ..ToolOutput::default()
            };
            let content = output.text.clone();
            return Ok((output, call.arguments.clone(), content));
        }
        let projects = if matches!(call.name.as_str(), SEARCH | STORE | LIST_PROJECTS) {
            self.recent_projects().await
        } else {
            Vec::new()
        };
        let words = grounding::UserWords {
            request: &self.request,
            answers: &self.answers,
        };
        let verdict = grounding::check(
            &call.name,
            &call.arguments,
            &words,
            &projects,
            self.env.clock.now(),
        );
        let (args, chosen) = match verdict {
            Verdict::Run(args) => (args, None),
            Verdict::Refuse(reason) => {
                let output = ToolOutput {
                    text: format!("Not done: {reason}. Do not call it again; answer the user."),
                    status: ToolStatus::Refused,
                    ..ToolOutput::default()
                };
                let content = output.text.clone();
                return Ok((output, call.arguments.clone(), content));
            }
            Verdict::Ask(need) => match self.ask_for(&need).await? {
                Some(resolved) => (resolved.apply(&call.arguments), Some(resolved)),
                None => return Ok(self.without_answer(call, &need).await),
            },
        };
        // A reminder's `repeat` ("daily", "weekdays", "weekly") comes from
        // the user's words only (a model's guess is dropped), and its `at`
        // moves to the first time it fires; the `remind` tool stores it.
        // A search's date filters likewise, or it searches all.
        let words = grounding::UserWords {
            request: &self.request,
            answers: &self.answers,
        };
        let args = match call.name.as_str() {
            REMIND => grounding::recurring(
                &grounding::reminder_text_from_user(&args, &words, self.meant()),
                &words,
                self.env.clock.now(),
            ),
            SEARCH => grounding::dates_from_user(&args, &words, self.env.clock.now()),
            STORE => grounding::memory_content_from_user(&args, &words),
            _ => args,
        };
        if let Some(output) = self
            .policy
            .repeated_write(&call.name, &args, self.env.clock.now())
            .or_else(|| self.policy.repeated_read(&call.name, &args))
        {
            let content = output.text.clone();
            return Ok((output, args, content));
        }
        let mut output = self.run_tool(&call.name, &args).await;
        self.policy.record(&call.name, &args, &output);
        if let Some(resolved) = chosen {
            output.text = if std::mem::take(&mut self.imprint_chose) {
                format!(
                    "The user left the choice to Imprint, which chose {}; say what was chosen. {}",
                    resolved.describe(),
                    output.text
                )
            } else {
                format!("The user chose {}. {}", resolved.describe(), output.text)
            };
            output.wrote = true;
        }
        let content = cut_result(&output.text);
        Ok((output, args, content))
    }

    /// The project the request names, or the one Imprint's question
    /// settled.
    pub(super) fn project_meant(&self, projects: &[String]) -> Option<String> {
        grounding::named_project(&self.request, projects).or_else(|| {
            self.settled.iter().find_map(|(_, r)| match r {
                Some(Resolved::Project(p)) => Some(p.clone()),
                _ => None,
            })
        })
    }

    /// The user's projects, most recently used first.
    pub(super) async fn recent_projects(&self) -> Vec<String> {
        match self.store.list_projects().await {
            Ok(mut projects) => {
                projects.sort_by(|a, b| b.last_at.cmp(&a.last_at));
                projects.into_iter().map(|p| p.name).collect()
            }
            Err(error) => {
                tracing::warn!(%error, "could not list projects for grounding");
                Vec::new()
            }
        }
    }
}
