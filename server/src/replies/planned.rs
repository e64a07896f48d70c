//! Planned turns (`IMPRINT_CHAT_TURNS=planned`, the local model's
//! default): Imprint plans the request's steps (see [`crate::plan`]) and
//! runs the tools each kind needs; the model only fills in what words
//! are for, each time under a JSON schema the model server enforces (the
//! memory that answers and a sentence from it), or writes a general answer
//! with no tools at all. A small model then cannot loop on tools, say
//! Imprint's notes back or write markup, and what the reply says about the
//! user's things is checked against the memories found
//! ([`crate::plan::claims`]).

use std::sync::Arc;

use serde_json::{json, Value};

use super::own_answer;
use super::stream::{Interrupt, Run};
use crate::models::{ChatMessage, ModelError, StepRequest, ToolCallRequest};
use crate::plan::{self, claims, Kind, Topic};
use crate::store::MemoryQuery;
use crate::tools::run::{memory_line, MemoryLine};
use crate::tools::{self, LIST_PROJECTS, REMIND, STORE};

/// Memories the answer step reads at most.
const READ_LIMIT: usize = 5;

/// What the model is told in a general answer: it knows nothing of the
/// user's life.
const GENERAL_PROMPT: &str = "You are a helpful assistant. Answer the question briefly and correctly, in the user's language, in one or two plain sentences, without code or formulas.";

impl Run {
    /// Runs the reply as planned: the kind of request decides the steps.
    pub(super) async fn planned(&mut self) -> Result<(), Interrupt> {
        let plan = plan::classify(&self.request);
        tracing::info!(reply = %self.reply.id, kind = ?plan.kind, reason = %plan.reason, "planned");
        if self.settling {
            // A read or a write settles its project, thing or time; so
            // does an act Imprint cannot do ("Move that to Friday": which
            // one?), to say what the memories hold about it.
            if matches!(
                plan.kind,
                Kind::Save | Kind::Remind | Kind::Question | Kind::CannotDo { .. }
            ) {
                self.settle().await?;
            }
            self.settling = false;
        }
        match plan.kind {
            Kind::Save => self.planned_write(STORE).await,
            Kind::Remind => self.planned_write(REMIND).await,
            Kind::CannotDo { verb } => self.cannot_do(&verb).await,
            Kind::Projects => self.list_projects().await,
            Kind::SmallTalk => self.general(false).await,
            Kind::Question => self.question().await,
        }
    }

    /// Says `text` as (part of) the answer, as a model's text is said.
    fn say(&mut self, text: &str) {
        self.push_text(text.to_string());
    }

    /// A save or a reminder: Imprint makes the call from the user's words
    /// (its grounding asks for a missing project or time), then says what
    /// was done.
    async fn planned_write(&mut self, tool: &str) -> Result<(), Interrupt> {
        if !self.has_pending_calls() {
            if !tools::is_offered(&self.tools, tool) {
                self.say("I can't change anything from here: this conversation only reads your memories. Use Chat to save or set reminders.");
                return Ok(());
            }
            let details_asked = self.settled.iter().any(|(_, r)| r.is_none());
            let call = if tool == REMIND {
                self.policy
                    .reminder_at_the_end(&self.tools, &self.request, details_asked)
            } else if details_asked {
                None
            } else {
                return self.save_the_users_words().await;
            };
            let Some(call) = call else {
                self.say(&self.nothing_written(tool));
                return Ok(());
            };
            self.call_for_the_model(String::new(), call);
        }
        self.finish_write(tool).await
    }

    /// A save: what the user said to keep, in their words. A detail named
    /// and not given ("Save the allotment gate code") is asked for first.
    async fn save_the_users_words(&mut self) -> Result<(), Interrupt> {
        let projects = self.recent_projects().await;
        let mut arguments = json!({});
        if let Some(project) = self.project_meant(&projects) {
            arguments["project"] = json!(project);
        }
        let mut row = None;
        let content = match crate::grounding::what_to_save(&self.request) {
            Some(content) => Some(content),
            None => match crate::grounding::content_to_save(&self.request) {
                Some(named)
                    if tools::is_offered(&self.tools, tools::ASK_USER)
                        && plan::names_a_detail_without_it(&self.request, &named) =>
                {
                    let label = named.trim_end_matches(['.', '!', '?']).to_string();
                    let question = format!("What is the {}?", lower_first(&label));
                    let reason = "Your request names it, but does not say it".to_string();
                    let (answer, asked) = self.ask_open(question, reason).await?;
                    row = Some(asked);
                    answer.map(|answer| format!("{label}: {}", answer.trim()))
                }
                other => other,
            },
        };
        match content {
            Some(content) => {
                arguments["content"] = json!(content);
                let call = ToolCallRequest {
                    id: "imprint_store".into(),
                    name: STORE.into(),
                    arguments,
                };
                // The call is in the reply's state before the question's
                // row is stored: a restart now saves, not asks again.
                self.call_for_the_model(String::new(), call);
                if let Some(row) = row {
                    self.append_step(vec![row]).await?;
                }
            }
            None => {
                if let Some(row) = row {
                    self.append_step(vec![row]).await?;
                }
                self.say(&self.nothing_written(STORE));
                return Ok(());
            }
        }
        self.finish_write(STORE).await
    }

    /// Runs the write made and says what was done.
    async fn finish_write(&mut self, tool: &str) -> Result<(), Interrupt> {
        self.run_pending_calls().await?;
        // "Done: …" from what was written (see `drive`); nothing written
        // is said plainly.
        if own_answer::from_writes(&self.policy.writes(), self.env.clock.now()).is_none() {
            self.say(&self.nothing_written(tool));
        }
        Ok(())
    }

    fn nothing_written(&self, tool: &str) -> String {
        let details_asked = self.settled.iter().any(|(_, r)| r.is_none());
        match (tool, details_asked) {
            (REMIND, true) => "I set no reminder, since I don't know when. Tell me when, and I'll set it.".into(),
            (REMIND, false) => "I set no reminder: I couldn't tell what to remind you of. Say it like “Remind me tomorrow at 9 to call the bank.”".into(),
            (_, true) => "I saved nothing, since I couldn't tell where it goes. Tell me again with the project's name.".into(),
            _ => "What should I save? Say it like “Save: the wifi password is on the router.”".into(),
        }
    }

    /// An act Imprint has no tool for: said in a sentence, with what the
    /// memories hold about it.
    async fn cannot_do(&mut self, verb: &str) -> Result<(), Interrupt> {
        let projects = self.recent_projects().await;
        // The memory the user chose when Imprint asked what "that" is, or
        // what their own words for it find, or the request's.
        let chosen = self.chosen_memories();
        let mut found = chosen;
        if let Some(meant) = self
            .meant()
            .map(str::to_string)
            .filter(|_| found.is_empty())
        {
            found = self.search(&Topic::of(&meant, &projects), None).await;
        }
        if found.is_empty() {
            let topic = Topic::of(&self.request, &projects);
            found = self.search(&topic, None).await;
        }
        let mut text = format!(
            "I can't {verb} anything for you: I can keep your memories, look them up and set reminders."
        );
        if !found.is_empty() {
            text.push_str("\n\n");
            text.push_str(&own_answer::from_found(&found.join("\n")));
        }
        self.say(&text);
        Ok(())
    }

    /// The project list, read by the tool (its line shows on the page).
    async fn list_projects(&mut self) -> Result<(), Interrupt> {
        let call = ToolCallRequest {
            id: "imprint_list_projects".into(),
            name: LIST_PROJECTS.into(),
            arguments: json!({}),
        };
        self.call_for_the_model(String::new(), call);
        self.run_pending_calls().await?;
        // What it found is said by `drive`'s fallback.
        Ok(())
    }

    /// A question: answered from the memories about it, or said to have
    /// none when it is about the user's own things, or else the model's
    /// general knowledge.
    async fn question(&mut self) -> Result<(), Interrupt> {
        if self.reference_unknown() {
            self.say("I couldn't tell what you meant, so I looked nothing up. Tell me its name, and I'll look again.");
            return Ok(());
        }
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects);
        // What the user said a reference means ("Anna" for "her") is what
        // to look up.
        let words = match self.meant() {
            Some(meant) => format!("{} {meant}", self.request),
            None => self.request.clone(),
        };
        let topic = Topic::of(&words, &projects);
        // The memory the user chose from Imprint's options, or the one
        // match its lookup found, is what the request is about.
        let chosen = self.chosen_memories();
        let personal = plan::is_personal(&self.request) || project.is_some() || !chosen.is_empty();
        let (found, chosen) = if chosen.is_empty() {
            let mut found = self.search(&topic, project.clone()).await;
            // A general question ("the boiling point of water") is not
            // answered by a memory that shares one of its words ("Water:
            // Severnside account"): most of what it names must be held.
            if !personal {
                found.retain(|line| {
                    MemoryLine::read(line)
                        .is_some_and(|m| 2 * topic.score(m.content) > topic.runs.len())
                });
            }
            (found, false)
        } else {
            (chosen, true)
        };
        if found.is_empty() {
            if personal {
                self.say(&nothing_found(&topic, &self.request));
                return Ok(());
            }
            return self.general(true).await;
        }
        if topic.is_empty() && !chosen {
            // A project named and nothing asked of it ("my notes from the
            // Website project"): its newest memories are the answer.
            self.say(&own_answer::from_found(&found.join("\n")));
            return Ok(());
        }
        self.answer_from(&found, &topic, personal, chosen).await
    }

    /// The memories Imprint's lookup settled the request by: the one the
    /// user chose from its options, or the one match it found.
    fn chosen_memories(&self) -> Vec<String> {
        self.policy
            .settled_memories()
            .map(|text| {
                text.lines()
                    .filter(|l| MemoryLine::read(l).is_some())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The memories about `topic` (all of its naming words), within
    /// `project`; a project alone gives its newest memories.
    async fn search(&mut self, topic: &Topic, project: Option<String>) -> Vec<String> {
        if topic.is_empty() && project.is_none() {
            return Vec::new();
        }
        let query = MemoryQuery {
            query: topic.words().join(" "),
            project,
            limit: Some(crate::grounding::reference::SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        let hits = match self.store.search_memories(query).await {
            Ok(hits) => hits,
            Err(error) => {
                tracing::warn!(%error, "could not search the memories");
                return Vec::new();
            }
        };
        if topic.is_empty() {
            return hits.iter().take(READ_LIMIT).map(memory_line).collect();
        }
        // The memories that hold the most of what the request names
        // (the office wifi over the home one for "wifi pw at the office").
        let best = hits.iter().map(|hit| topic.score(&hit.content)).max();
        hits.iter()
            .filter(|hit| best.is_some_and(|best| best > 0 && topic.score(&hit.content) == best))
            .take(READ_LIMIT)
            .map(memory_line)
            .collect()
    }

    /// The answer from `found`: the model picks the memory that answers and
    /// words a sentence from it under a schema; a pick that names nothing
    /// asked about, or a sentence that claims what the memory does not
    /// hold, is replaced by the memory itself.
    async fn answer_from(
        &mut self,
        found: &[String],
        topic: &Topic,
        personal: bool,
        chosen: bool,
    ) -> Result<(), Interrupt> {
        let memories: Vec<MemoryLine<'_>> =
            found.iter().filter_map(|l| MemoryLine::read(l)).collect();
        let pick = match self.pick(&memories).await {
            Ok(pick) => pick,
            Err(PickError::Stopped) => return Err(self.interrupted()),
            Err(PickError::Model(error)) => {
                // The memories are the answer without the model's words.
                tracing::warn!(%error, "the answer step failed; answering from the memories");
                self.say(&own_answer::from_found(&found.join("\n")));
                return Ok(());
            }
        };
        let picked = pick
            .memory
            .checked_sub(1)
            .and_then(|i| memories.get(i))
            .filter(|m| chosen || topic.is_empty() || topic.named_in(m.content))
            // "When's Tom's birthday?" is not answered by when Tom likes
            // his calls.
            .filter(|m| chosen || topic.asked_in(m.content));
        let Some(memory) = picked else {
            if !personal {
                return self.general(true).await;
            }
            let closest: Vec<&String> = found
                .iter()
                .filter(|line| MemoryLine::read(line).is_some_and(|m| topic.asked_in(m.content)))
                .collect();
            let text = if closest.is_empty() {
                nothing_found(topic, &self.request)
            } else {
                let lines: Vec<&str> = closest.iter().map(|l| l.as_str()).collect();
                format!(
                    "I found nothing in your memories that answers that. {}",
                    own_answer::from_found(&lines.join("\n")).replacen(
                        "Here is what I found in your memories:",
                        "The closest:",
                        1
                    )
                )
            };
            self.say(text.trim_end());
            return Ok(());
        };
        let mut backing = vec![memory.content, self.request.as_str()];
        backing.extend(self.answers.iter().map(String::as_str));
        let invented = claims::unbacked(&pick.answer, &backing);
        let answer = pick.answer.trim();
        // "Jan Kowalski" for the plumber's number names him, but does not
        // say it.
        let says_it = (!topic.wants_digits() || answer.chars().any(|c| c.is_ascii_digit()))
            // "you" for the wifi password says nothing the question did not.
            && claims::tells_something(answer, memory.content, &self.request);
        let content = memory.content.trim();
        let source = own_answer::kept(memory);
        let own = answer.is_empty() || !invented.is_empty() || !says_it;
        if !invented.is_empty() {
            tracing::info!(reply = %self.reply.id, ?invented, "the answer named what no memory holds; Imprint answers from the memory");
        }
        let text = if own || content.contains(answer.trim_end_matches('.')) {
            format!("From your memories: {content} ({source})")
        } else {
            format!("{answer}\n\n*From your memory “{content}” ({source}).*")
        };
        self.say(&text);
        Ok(())
    }

    /// The constrained step: which memory answers, and a sentence from it.
    async fn pick(&mut self, memories: &[MemoryLine<'_>]) -> Result<Pick, PickError> {
        self.ensure_slot().await.map_err(|_| PickError::Stopped)?;
        let listed: Vec<String> = memories
            .iter()
            .enumerate()
            .map(|(i, m)| format!("{}. {}", i + 1, m.content.trim()))
            .collect();
        let system = format!(
            "You answer the user's question from their saved memories, and from nothing else.\n\nMemories:\n{}\n\nReply in JSON. \"memory\": the number of the memory that answers the question, or 0 if none of them does. \"answer\": one short sentence that answers the question with that memory's own words, numbers and names, speaking to the user as \"you\".",
            listed.join("\n")
        );
        let choices: Vec<Value> = (0..=memories.len()).map(|i| json!(i)).collect();
        let schema = json!({
            "type": "object",
            "properties": {
                "memory": {"type": "integer", "enum": choices},
                "answer": {"type": "string", "maxLength": 300},
            },
            "required": ["memory", "answer"],
            "additionalProperties": false,
        });
        let step = StepRequest {
            messages: vec![
                ChatMessage::System(system),
                ChatMessage::User(self.request.clone()),
            ],
            schema,
            max_tokens: 160,
            slot: self.slot_index(),
        };
        let stop = self.reply.stop_token().child_token();
        let value = self.env.model.constrained(step, stop).await.map_err(|e| {
            if self.reply.stop_token().is_cancelled() {
                PickError::Stopped
            } else {
                PickError::Model(e)
            }
        })?;
        Ok(Pick {
            memory: value.get("memory").and_then(Value::as_u64).unwrap_or(0) as usize,
            answer: value
                .get("answer")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
    }

    /// The model's own answer, with no tools: general knowledge (marked so
    /// when `marked`), or a reply to small talk.
    async fn general(&mut self, marked: bool) -> Result<(), Interrupt> {
        // A sum or a unit conversion is worked out, not guessed.
        if let Some(worked_out) = plan::compute::answer(&self.request).filter(|_| marked) {
            tracing::info!(reply = %self.reply.id, "worked out by Imprint");
            self.say(&worked_out);
            return Ok(());
        }
        let mut messages = vec![ChatMessage::System(GENERAL_PROMPT.into())];
        // The conversation's words, without tools and Imprint's notes.
        let before = self.messages.len().saturating_sub(1);
        for message in &self.messages[..before] {
            match message {
                ChatMessage::User(text) if !text.starts_with("(Imprint") => {
                    messages.push(ChatMessage::User(text.clone()))
                }
                ChatMessage::Assistant { content, .. } if !content.trim().is_empty() => messages
                    .push(ChatMessage::Assistant {
                        content: content.clone(),
                        tool_calls: Vec::new(),
                    }),
                _ => {}
            }
        }
        messages.push(ChatMessage::User(self.request.clone()));
        let turn = self.turn_on(messages, Arc::new(Vec::new()), false).await?;
        if marked && !turn.text.trim().is_empty() {
            self.say("\n\n*General knowledge, from the model, not from your memories.*");
        }
        Ok(())
    }
}

/// "Allotment gate code" → "allotment gate code"; a name stays.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.clone().next()) {
        (Some(first), Some(second)) if second.is_lowercase() => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

/// What the answer step chose.
struct Pick {
    /// 1-based; 0 for none.
    memory: usize,
    answer: String,
}

enum PickError {
    Stopped,
    Model(ModelError),
}

/// "I found nothing about the plumber in your memories." and what to do.
fn nothing_found(topic: &Topic, request: &str) -> String {
    if topic.is_empty() {
        return "I found nothing about that in your memories. Tell me, and I'll save it.".into();
    }
    let what = match topic.detail() {
        // A secret is not asked for in passing.
        Some("pin" | "password" | "pw" | "passcode") => String::new(),
        Some("phone" | "mobile" | "cell" | "telephone") => {
            "Tell me the number, and I'll save it.".into()
        }
        Some("policy") => "Tell me the policy number, and I'll save it.".into(),
        Some(detail) => format!("Tell me the {detail}, and I'll save it."),
        None => "Tell me, and I'll save it.".into(),
    };
    format!(
        "I found nothing about “{}” in your memories. {what}",
        topic.phrase(request)
    )
    .trim_end()
    .to_string()
}
