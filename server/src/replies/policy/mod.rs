//! The small-model policy: the guards that keep a small model's habits out
//! of a reply, in one place.
//!
//! A 0.5B model calls tools, but it also
//! - answers "I'll remind you" without setting anything (one **nudge**;
//!   see `forgotten`);
//! - says one long sentence over and over to its token limit (the turn
//!   **ends** the second time; see `echoing`);
//! - repeats a write it already made, or a read with the same arguments
//!   (a **repeat** is not redone; see `repeats`);
//! - goes on after the job is done, calling writes that were not asked
//!   for and asking "anything else?" (once every write the request asked
//!   for is made, a turn of only refused, unasked or repeated calls
//!   **ends** the tool loop with the reserved answer);
//! - writes dozens of calls in one turn (a **call cap** per turn);
//! - asks again and again, or asks "anything else?" once the reminder is
//!   set (a **question cap**; see `questions`);
//! - writes nothing readable after its tools ran (a **fallback** answer
//!   Imprint writes from what was done or found).
//!
//! Here: what the policy keeps of a reply, the end, the call cap, and the
//! fallback.

mod echoing;
mod forgotten;
mod questions;
mod repeats;

pub(super) use echoing::says_it_again;
pub(super) use questions::ModelQuestion;
pub(super) use repeats::same_call;

use app::protocol::ToolStatus;
use chrono::{DateTime, Local};
use serde_json::Value;

use super::own_answer;
use crate::meaning::route::Routed;
use crate::models::note::Note;
use crate::models::{ChatMessage, ToolCallRequest};
use crate::tools::{self, WritesAsked};

/// Calls run per model turn; more are dropped with a note (a small model
/// may write dozens in one turn).
pub(super) const MAX_CALLS_PER_TURN: usize = 4;

/// What the policy keeps of one reply (stored with a waiting reply).
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct SmallModelPolicy {
    /// The writes made so far (tool, arguments, result): a small model
    /// repeats a call it already made, and must not store it twice.
    writes: Vec<(String, Value, String)>,
    /// The reads made so far (tool, arguments, result): none runs twice.
    reads: Vec<(String, Value, String)>,
    /// The model was reminded once to make the reminder it was asked for.
    nudged: bool,
    /// Imprint made the reminder call itself (once, after the nudge).
    reminded_for_the_model: bool,
    /// The last read that found something (for a model that then says
    /// nothing).
    found: Option<String>,
    /// The model's questions put to the user in this reply (a small model
    /// asks the same again after the answer).
    #[serde(default)]
    questions: Vec<String>,
    /// What Imprint's first search found when it settled what the request
    /// is about, as one thing (then the model's question is not asked):
    /// the answer over the model's own searches, which a small model words
    /// more broadly ("phone" finds Anna's number too for "What's Marta's
    /// phone number?").
    #[serde(default)]
    settled_by: Option<String>,
    /// The words that settling search looked for: a later search is news
    /// only when it finds new memories about them.
    #[serde(default)]
    settled_topic: Vec<String>,
    /// Imprint stored what the user asked to save (once).
    #[serde(default)]
    stored_for_the_model: bool,
    /// The request's kind as judged once, by its nearest labelled examples
    /// or the model between two kinds: kept with a waiting reply, so that
    /// after a restart it goes on as it began.
    #[serde(default)]
    judged: Option<Routed>,
}

impl SmallModelPolicy {
    /// Keeps the first [`MAX_CALLS_PER_TURN`] calls of a turn; the note
    /// for the model when more were dropped.
    pub fn cap_calls(calls: &mut Vec<ToolCallRequest>) -> Option<ChatMessage> {
        let extra_calls = calls.len().saturating_sub(MAX_CALLS_PER_TURN);
        calls.truncate(MAX_CALLS_PER_TURN);
        // The turn is no longer read past the first call too many, so
        // how many more it wrote is not known.
        (extra_calls > 0).then(|| {
            Note::CallsDropped {
                kept: MAX_CALLS_PER_TURN,
            }
            .message()
        })
    }

    /// What Imprint found itself before the model started: the answer for
    /// a model that then finds nothing and says nothing. `settles`: it is
    /// one thing (one project's memories, and the request named at most
    /// one project), so a question about it is not asked.
    pub fn found_first(&mut self, found: String, settles: bool) {
        if settles {
            self.settled_by = Some(found.clone());
        }
        self.found.get_or_insert(found);
    }

    /// The request's kind as judged (see [`Self::judged`]), once.
    pub fn judge(&mut self, kind: Routed) {
        self.judged.get_or_insert(kind);
    }

    pub fn judged(&self) -> Option<Routed> {
        self.judged
    }

    /// The writes the judged kind asks for.
    pub fn judged_writes(&self) -> WritesAsked {
        WritesAsked {
            save: self.judged == Some(Routed::Save),
            remind: self.judged == Some(Routed::Remind),
        }
    }

    /// The words of the request Imprint's settling first search looked
    /// for (see [`Self::settled_topic`]).
    pub fn settle_topic(&mut self, topic: Vec<String>) {
        self.settled_topic = topic;
    }

    /// What the settling first search looked for; empty when none settled
    /// the request by its words (a reference chosen, a project named).
    pub fn settled_topic(&self) -> &[String] {
        &self.settled_topic
    }

    /// Imprint's first search found what the request is about, as one
    /// thing (see [`Self::found_first`]).
    pub fn first_search_settled(&self) -> bool {
        self.settled_by.is_some()
    }

    /// The memories Imprint's lookup settled the request by (one match,
    /// or the one the user chose), as search lines.
    pub fn settled_memories(&self) -> Option<&str> {
        self.settled_by.as_deref()
    }

    /// True once the job is done: every write the request asked for was
    /// made, and the reply did something (a write, or a read).
    pub fn job_done(&self, request: &str) -> bool {
        let asked = crate::grounding::writes_asked(request).or(self.judged_writes());
        let made = |tool: &str| self.writes.iter().any(|(name, _, _)| name == tool);
        (!asked.save || made(tools::STORE))
            && (!asked.remind || made(tools::REMIND))
            && !(self.writes.is_empty() && self.reads.is_empty())
    }

    /// The answer for a model that wrote nothing readable after its tools
    /// ran: what its writes did ("Done: reminder set for Tuesday 09:00 to
    /// call Anna."), else what the last search found, else that its reads
    /// found nothing.
    pub fn fallback(&self, now: DateTime<Local>) -> Option<String> {
        own_answer::from_writes(&self.writes(), now)
            .or_else(|| {
                self.settled_by
                    .as_deref()
                    .or(self.found.as_deref())
                    .map(own_answer::from_found)
            })
            .or_else(|| {
                self.reads
                    .last()
                    .map(|(name, args, _)| own_answer::nothing_found(name, args))
            })
    }

    /// The writes made so far: tool and arguments.
    pub fn writes(&self) -> Vec<(String, Value)> {
        self.writes
            .iter()
            .map(|(name, args, _)| (name.clone(), args.clone()))
            .collect()
    }

    fn reminder_set(&self) -> bool {
        self.writes.iter().any(|(name, _, _)| name == tools::REMIND)
    }
}

/// True for a turn whose calls all did nothing: refused, not asked, or
/// repeats (an empty turn is no such turn).
pub(super) fn did_nothing(statuses: &[ToolStatus]) -> bool {
    !statuses.is_empty()
        && statuses.iter().all(|s| {
            matches!(
                s,
                ToolStatus::Refused | ToolStatus::NotAsked | ToolStatus::Repeated
            )
        })
}

/// A call's plain result, for the policy's tests.
#[cfg(test)]
fn done(text: &str) -> crate::tools::ToolOutput {
    crate::tools::ToolOutput {
        text: text.into(),
        ..crate::tools::ToolOutput::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolOutput;
    use serde_json::json;

    #[test]
    fn what_a_search_found_is_the_fallback_over_the_project_list() {
        let found = |text: &str| ToolOutput {
            text: text.into(),
            facts: vec![text.into()],
            ..ToolOutput::default()
        };
        let now = Local::now();
        let mut policy = SmallModelPolicy::default();
        policy.record(
            tools::LIST_PROJECTS,
            &json!({}),
            &found("Projects: Billing"),
        );
        assert!(policy.fallback(now).unwrap().contains("Projects: Billing"));
        policy.record(
            tools::SEARCH,
            &json!({"query": "tea"}),
            &found("[1] green tea"),
        );
        policy.record(
            tools::LIST_PROJECTS,
            &json!({"x": 1}),
            &found("Projects: Home"),
        );
        let answer = policy.fallback(now).unwrap();
        assert!(answer.contains("[1] green tea"), "{answer}");
    }

    #[test]
    fn what_imprints_settling_search_found_is_the_fallback_over_the_models_broader_search() {
        let marta = "[17] (no project, 2026-08-02) Marta's phone number is 0176 333 444";
        let anna = "[16] (no project, 2026-08-01) Anna's phone number is 0176 111 222";
        let broader = ToolOutput {
            text: format!("2 memories found:\n{marta}\n{anna}"),
            facts: vec!["memory:17".into(), "memory:16".into()],
            ..ToolOutput::default()
        };
        for settles in [true, false] {
            let mut policy = SmallModelPolicy::default();
            policy.found_first(format!("1 memory found:\n{marta}"), settles);
            policy.record(tools::SEARCH, &json!({"query": "phone"}), &broader);
            let answer = policy.fallback(Local::now()).unwrap();
            assert!(answer.contains("Marta's phone number"), "{answer}");
            // Not settled: the model's own search (after the user said
            // which, say) is the newer word.
            assert_eq!(answer.contains("Anna's"), !settles, "{answer}");
        }
    }

    #[test]
    fn a_turn_that_did_nothing() {
        use ToolStatus::*;
        assert!(did_nothing(&[Refused, NotAsked, Repeated]));
        assert!(!did_nothing(&[Refused, Done]));
        assert!(!did_nothing(&[Failed]));
        assert!(!did_nothing(&[]));
    }
}
