//! Settling, before the model starts, what the request leaves open, in the
//! order a person would ask: which project, which thing ("the meeting",
//! looked up in the user's memories), when. The model reads what came of
//! each as a note with the request.

use crate::grounding::plan::{self, Topic};
use crate::grounding::reference::{self, Lookup};
use crate::grounding::{self, Need, Resolved};
use crate::replies::run::{Interrupt, Run};
use crate::store::MemoryQuery;
use crate::tools::run::MemoryLine;
use crate::tools::{ASK_USER, SEARCH};

impl Run {
    /// Settles what the request leaves open before the model starts, in
    /// the order a person would ask: which project, which thing, when.
    /// The model reads what came of each with the request. Each step asks
    /// at most once (a restored reply re-enters here and finds its earlier
    /// answers settled), and the notes are added only once all are
    /// settled, so a stored state never holds them twice.
    pub(in crate::replies) async fn settle(&mut self) -> Result<(), Interrupt> {
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
        self.talk.note_on_request(notes);
        Ok(())
    }

    /// "The project" among several, unnamed: Imprint asks which.
    async fn settle_the_project(&mut self) -> Result<Option<String>, Interrupt> {
        if !self.talk.offers(ASK_USER) || !self.talk.offers(SEARCH) {
            return Ok(None);
        }
        if !grounding::refers_to_a_project(self.talk.request()) {
            return Ok(None);
        }
        let projects = self.recent_projects().await;
        let Some(need) = grounding::unnamed_project(self.talk.request(), &projects) else {
            return Ok(None);
        };
        let Some(Resolved::Project(project)) = self.ask_for(&need).await? else {
            return Ok(None);
        };
        let note = if self.questions.take_imprint_chose() {
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
        if !self.talk.offers(ASK_USER) || !self.talk.offers(SEARCH) {
            return Ok(None);
        }
        let projects = self.recent_projects().await;
        // "ok what's his number then" after a question about the landlord:
        // the question before says whom.
        if let Some(before) = self.previous_request() {
            let topic = Topic::of(self.talk.request(), &projects);
            if topic
                .following(self.talk.request(), &Topic::of(&before, &projects))
                .is_some()
            {
                return Ok(None);
            }
        }
        // A long message is asked about in its question ("…sorry for the
        // rant — when is the boiler due?"), not in the story before it.
        let asked = plan::asked_part(self.talk.request());
        let earlier = self.earlier_words();
        let Some(found) = reference::find(asked, &earlier, &projects) else {
            return self.settle_a_namesake().await;
        };
        // "biltong's meds - what's he on": what the question points back
        // at is named in the story before it.
        if asked.len() < self.talk.request().len()
            && reference::find(self.talk.request(), &earlier, &projects).is_none()
        {
            return Ok(None);
        }
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
            match self.reply.store.search_memories(query).await {
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
        self.ask_what_is_meant(phrase, &need).await.map(Some)
    }

    /// Imprint asks what `phrase` means, with the memories found as the
    /// options (none found: an open question). The note says what the
    /// user chose or said, or that nothing came.
    pub(super) async fn ask_what_is_meant(
        &mut self,
        phrase: &str,
        need: &Need,
    ) -> Result<String, Interrupt> {
        let several = !need.options().is_empty();
        let note = match self.ask_for(need).await? {
            Some(Resolved::Memory {
                label, memories, ..
            }) => {
                self.settled_by(&memories);
                let who = if self.questions.take_imprint_chose() {
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
        Ok(note)
    }

    /// Imprint's lookup settled what the request is about (one match, or
    /// the one the user chose): those memories are the answer, and the
    /// model finding them again is no news (a small model otherwise goes
    /// on searching and listing projects for a minute).
    pub(in crate::replies) fn settled_by(&mut self, memories: &[String]) {
        self.research.learn(
            memories
                .iter()
                .filter_map(|line| MemoryLine::read(line).map(|m| m.fact())),
        );
        self.policy.found_first(memories.join("\n"), true);
    }
}
