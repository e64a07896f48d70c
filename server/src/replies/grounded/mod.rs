//! Grounding a reply in the user's words (see [`crate::grounding`]): a
//! tool call runs only with the arguments the user gave, and a missing
//! detail becomes Imprint's own question before the call runs (`run`).
//! Before the model starts, Imprint settles what the request leaves open:
//! "the project" among several, a thing left unnamed ("the meeting",
//! looked up in the user's memories), and a reminder's time (`settling`;
//! one set against an event the memories date, `timing`),
//! and searches the memories first for what the request is about
//! (`first_search`).
//!
//! Here: what the reply knows so far of what the user means (the project
//! meant, the conversation a reference points back at) and the user's
//! projects; the details settled are the part's own state (`settled`).

mod first_search;
mod namesake;
mod run;
pub(super) mod settled;
mod settling;
mod timing;

use super::run::Run;
use crate::grounding;
use crate::models::{note, ChatMessage};

impl Run {
    /// The conversation before this request, as words: what a pronoun or
    /// "the meeting" may point back at (Imprint's own notes left out).
    fn earlier_words(&self) -> String {
        let before_request = self.talk.messages().len().saturating_sub(1);
        self.talk.messages()[..before_request]
            .iter()
            .filter_map(|m| match m {
                ChatMessage::User(text) if !note::is_note(text) => Some(text.as_str()),
                ChatMessage::Assistant { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The project the request names, or the one Imprint's question
    /// settled.
    pub(in crate::replies) fn project_meant(&self, projects: &[String]) -> Option<String> {
        // A long message's project is the one its question names, not one
        // named in the story before it.
        grounding::named_project(grounding::plan::asked_part(self.talk.request()), projects)
            .or_else(|| self.settling.project())
    }

    /// The user's projects, most recently used first.
    pub(in crate::replies) async fn recent_projects(&self) -> Vec<String> {
        match self.reply.store.list_projects().await {
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
