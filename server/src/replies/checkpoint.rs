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

use app::protocol::Question;
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
    pub fn offer(&self) -> Offer {
        Offer {
            read_only: self.read_only,
            can_answer: self.can_answer,
        }
    }
}

/// Where in its loop the reply stood.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Step {
    /// Before the first model turn: Imprint asking which project.
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
    /// Repeated writes counted before the turn.
    pub repeats_before: usize,
    /// Whether a finished call of the turn made progress.
    pub progress: bool,
    /// The note for calls past the per-turn cap, added after the calls.
    pub cap_note: Option<ChatMessage>,
    /// Unreadable calls the turn wrote.
    pub malformed: usize,
}

/// Imprint's own question in progress across attempts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asking {
    pub kind: NeedKind,
    pub attempt: usize,
    pub text: String,
}
