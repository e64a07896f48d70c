//! Imprint's own first search of the user's memories, before the model
//! starts: what a request about the user's own things is about (or what
//! the user said a reference means), handed to the model with the
//! request. When it finds one thing, it settles what the request is about
//! for the small-model policy.

use crate::grounding::{self, reference};
use crate::replies::run::Run;
use crate::replies::stream::cut_result;
use crate::store::MemoryQuery;
use crate::tools::{self, SEARCH};

/// Memories Imprint's own first search hands the model at most.
const LOOK_FIRST_LIMIT: usize = 5;

impl Run {
    /// A request about the user's own things that says what it is about
    /// ("What's Marta's phone number?", "my notes from the Website
    /// project"): Imprint searches the memories first and hands the model
    /// what it found with the request. A small model otherwise answers from
    /// nothing, or loops search → list_projects → ask_user for a minute.
    /// When nothing is found nothing is said: a general question ("What is
    /// the capital of Japan?") is the model's own. A write's words are what
    /// to write, not what to look up.
    pub(super) async fn look_first(&mut self) -> Option<String> {
        let request = self.talk.request().to_string();
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
    pub(super) async fn look_up(&mut self, words: &str) -> Option<String> {
        if !self.talk.offers(SEARCH)
            || grounding::asks_to_save(self.talk.request())
            || grounding::asks_for_reminder(self.talk.request())
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
        let hits = match self.reply.store.search_memories(query).await {
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
                grounding::named_project(self.talk.request(), std::slice::from_ref(p)).is_some()
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
}
