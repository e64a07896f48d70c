//! A reply's resumable state: what it stores before its question is shown
//! (and after each step until its next model request), so that after a
//! restart or a crash the same reply waits again and goes on from there.
//!
//! The state is the reply's loop as it stood at the start of the step
//! that asked: the messages sent to the model so far, the turn's calls
//! still to run (the asking one first), research time left, iterations,
//! the offered tools, what the small-model guards and grounding know, and
//! the question itself. Resuming re-enters that step; everything a step
//! does before it asks only reads, so re-entering it is safe, and what a
//! question settled is recorded here so it is not asked twice.

use app::protocol::{Question, ToolStatus};
use serde::{Deserialize, Serialize};

use crate::grounding::{NeedKind, Resolved};
use crate::models::{ChatMessage, ToolCallRequest};
use crate::research::SavedResearch;
use crate::tools::Offer;

/// Bumped when the shape changes; a state of another version is not
/// resumed (its reply is kept, marked interrupted).
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub version: u32,
    pub read_only: bool,
    pub can_answer: bool,
    /// Spoken aloud by Echo (absent from states written before it: no).
    #[serde(default)]
    pub spoken: bool,
    /// Every message sent to the model so far (the system prompt first).
    pub messages: Vec<ChatMessage>,
    pub research: SavedResearch,
    /// The user's message this reply answers, and the answers given so far.
    pub request: String,
    pub answers: Vec<String>,
    /// The small-model guards' memory (writes made, repeats, nudges).
    pub policy: serde_json::Value,
    pub asked: usize,
    /// The details Imprint asked for, and what came of each.
    pub settled: Vec<(NeedKind, Option<Resolved>)>,
    pub turns: u32,
    /// Everything the user has been shown so far.
    pub text: String,
    pub step: Step,
    /// Imprint's own question being asked again (its answer could not be
    /// read): which attempt, and the text it asks with.
    pub asking: Option<Asking>,
    /// The question the step waits on; `None` once it was answered (the
    /// reply is then between its answer and its next model request).
    pub question: Option<Question>,
}

impl Checkpoint {
    /// Written by this build's shape (an older one is not resumed).
    pub fn is_current(&self) -> bool {
        self.version == VERSION
    }

    pub fn offer(&self) -> Offer {
        Offer {
            read_only: self.read_only,
            can_answer: self.can_answer,
            spoken: self.spoken,
        }
    }
}

/// Where in its loop the reply stood.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Step {
    /// Before the first model turn: Imprint settling which project, which
    /// thing a reference means, or when to remind.
    Settle,
    /// Running a turn's calls.
    Calls(PendingCalls),
}

/// A model turn's calls still to run, and the turn's bookkeeping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingCalls {
    /// The calls not finished yet, in order; the first is running.
    pub calls: Vec<ToolCallRequest>,
    /// How many calls the turn ran in all.
    pub in_turn: usize,
    /// What became of each finished call of the turn (a turn that did
    /// nothing once the job is done ends the loop).
    pub statuses: Vec<ToolStatus>,
    /// Whether a finished call of the turn made progress.
    pub progress: bool,
    /// The note for calls past the per-turn cap, added after the calls.
    pub cap_note: Option<ChatMessage>,
    /// Unreadable calls the turn wrote.
    pub malformed: usize,
    /// The call is Imprint's own (the reminder a nudged model never set),
    /// not a model turn's.
    pub by_imprint: bool,
}

/// Imprint's own question in progress across attempts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asking {
    pub kind: NeedKind,
    pub attempt: usize,
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::protocol::QuestionOrigin;
    use serde_json::json;

    #[test]
    fn a_checkpoint_reads_back_as_it_was_written() {
        let call = ToolCallRequest {
            id: "t1_call_1".into(),
            name: "ask_user".into(),
            arguments: json!({"question": "Which project?"}),
        };
        let saved = Checkpoint {
            version: VERSION,
            read_only: false,
            can_answer: true,
            spoken: true,
            messages: vec![
                ChatMessage::System("You are Imprint.".into()),
                ChatMessage::User("plans?".into()),
                ChatMessage::Assistant {
                    content: "Let me check.".into(),
                    tool_calls: vec![call.clone()],
                },
                ChatMessage::Tool {
                    call_id: "t0".into(),
                    name: "search".into(),
                    content: "2 found".into(),
                },
            ],
            research: SavedResearch {
                left_ms: 1234,
                iterations: 1,
                max_iterations: 12,
                turns_without_progress: 0,
                seen: vec!["memory:1".into()],
            },
            request: "plans?".into(),
            answers: vec!["Billing".into()],
            policy: json!({"writes": [], "repeats": 0, "nudged": false, "found": null}),
            asked: 1,
            settled: vec![
                (NeedKind::Project, Some(Resolved::Project("Billing".into()))),
                (
                    NeedKind::Reference,
                    Some(Resolved::Memory {
                        label: "Billing meeting (12 Nov)".into(),
                        memories: vec!["[3] (Billing, 2026-11-12) Billing meeting".into()],
                        phrase: "the meeting".into(),
                    }),
                ),
                (
                    NeedKind::Reference,
                    Some(Resolved::Meant("the sync".into())),
                ),
                (NeedKind::Time, None),
            ],
            turns: 1,
            text: "Let me check.".into(),
            step: Step::Calls(PendingCalls {
                calls: vec![call],
                in_turn: 1,
                statuses: vec![ToolStatus::Done],
                progress: false,
                cap_note: Some(ChatMessage::User("(Imprint: only the first 4)".into())),
                malformed: 0,
                by_imprint: false,
            }),
            asking: Some(Asking {
                kind: NeedKind::Reference,
                attempt: 1,
                text: "What time?".into(),
            }),
            question: Some(Question {
                id: "q1".into(),
                question: "Which project?".into(),
                options: vec!["Imprint".into(), "Billing".into()],
                allow_other: true,
                expires_at: Some("2026-11-30T18:00:00.000Z".into()),
                origin: QuestionOrigin::Model,
                reason: None,
                why: None,
            }),
        };
        let text = serde_json::to_string(&saved).unwrap();
        let read: Checkpoint = serde_json::from_str(&text).unwrap();
        assert_eq!(read, saved);
        assert!(read.is_current());
        let settle: Step = serde_json::from_value(json!({"at": "settle"})).unwrap();
        assert_eq!(settle, Step::Settle);
        // The kinds as stored: a state written before references were
        // asked about still reads back.
        assert_eq!(
            serde_json::to_value(NeedKind::Reference).unwrap(),
            json!("reference")
        );
        let older: NeedKind = serde_json::from_value(json!("project")).unwrap();
        assert_eq!(older, NeedKind::Project);
    }
}
