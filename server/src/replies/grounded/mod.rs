//! Grounding a reply in the user's words (see [`crate::grounding`]): a
//! tool call runs only with the arguments the user gave, and a missing
//! detail becomes Imprint's own question before the call runs (`run`).
//! Before the model starts, Imprint settles what the request leaves open:
//! "the project" among several, a thing left unnamed ("the meeting",
//! looked up in the user's memories), and a reminder's time (`settling`),
//! and searches the memories first for what the request is about
//! (`first_search`).
//!
//! Here: what the reply knows so far of what the user means (the details
//! settled, the project meant, the conversation a reference points back
//! at) and the user's projects.

mod first_search;
mod run;
mod settling;

use super::stream::Run;
use crate::grounding::{self, NeedKind, Resolved};
use crate::models::{note, ChatMessage};

impl Run {
    /// What the user said, in their own words, a reference of the request
    /// means ("Tom" for "him").
    pub(in crate::replies) fn meant(&self) -> Option<&str> {
        self.settled
            .iter()
            .find_map(|(kind, resolved)| match resolved {
                Some(Resolved::Meant(words)) if *kind == NeedKind::Reference => {
                    Some(words.as_str())
                }
                _ => None,
            })
    }

    /// The label of the thing the user chose from Imprint's options for
    /// a reference ("remind me about it" → "Billing meeting (12 Nov)").
    pub(in crate::replies) fn chosen_label(&self) -> Option<&str> {
        self.settled
            .iter()
            .find_map(|(kind, resolved)| match resolved {
                Some(Resolved::Memory { label, .. }) if *kind == NeedKind::Reference => {
                    Some(label.as_str())
                }
                _ => None,
            })
    }

    /// Imprint asked what a reference means, and no answer said.
    pub(in crate::replies) fn reference_unknown(&self) -> bool {
        self.settled
            .iter()
            .any(|(kind, resolved)| *kind == NeedKind::Reference && resolved.is_none())
    }

    /// Imprint asked for a detail in this reply, and it never came.
    pub(in crate::replies) fn details_asked(&self) -> bool {
        self.settled.iter().any(|(_, r)| r.is_none())
    }

    /// The conversation before this request, as words: what a pronoun or
    /// "the meeting" may point back at (Imprint's own notes left out).
    fn earlier_words(&self) -> String {
        let before_request = self.messages.len().saturating_sub(1);
        self.messages[..before_request]
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
        grounding::named_project(grounding::plan::asked_part(&self.request), projects).or_else(
            || {
                self.settled.iter().find_map(|(_, r)| match r {
                    Some(Resolved::Project(p)) => Some(p.clone()),
                    _ => None,
                })
            },
        )
    }

    /// The user's projects, most recently used first.
    pub(in crate::replies) async fn recent_projects(&self) -> Vec<String> {
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
