//! Events of a reply (SPEC §4) and of the dashboard-wide stream.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CallReason, QuestionReason};

/// Who wrote a question: the model through `ask_user`, or Imprint itself
/// when a tool needed a detail the user never gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionOrigin {
    #[default]
    Model,
    Imprint,
}

/// A question waiting for the user (the `question` event's fields, and the
/// `question` of a waiting reply).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub question: String,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default = "default_true")]
    pub allow_other: bool,
    /// When the reply goes on without an answer (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    #[serde(default)]
    pub origin: QuestionOrigin,
    /// Why this is asked, in a few words the card shows ("3 memories
    /// match “the meeting”"): SPEC §4's `reason?`, written from `why` when
    /// there is one (and all a question stored before reasons were typed
    /// has).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why this is asked, as a code the page writes the words from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<QuestionReason>,
}

impl Question {
    /// Sets why the question is asked: the code, and SPEC §4's words
    /// written from it.
    pub fn because(self, why: QuestionReason) -> Self {
        Self {
            reason: Some(why.words()),
            why: Some(why),
            ..self
        }
    }

    /// The words the card shows for why it is asked: written from `why`,
    /// else (a question stored before reasons were typed) its `reason`.
    pub fn reason_words(&self) -> Option<String> {
        self.why
            .as_ref()
            .map(QuestionReason::words)
            .or_else(|| self.reason.clone())
    }
}

fn default_true() -> bool {
    true
}

/// What became of a tool call (a `tool_result`'s `status`, and a tool
/// row's): the page writes its line from this, never from the result's prose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// It ran: a read read, a write wrote, a question was posed.
    #[default]
    Done,
    /// Imprint did not run it (the user did not ask for that write).
    Refused,
    /// The same write or read was already made in this reply.
    Repeated,
    /// An `ask_user` call Imprint did not put to the user.
    NotAsked,
    /// It ran and failed (bad arguments, an unknown tool, a store error).
    Failed,
}

impl ToolStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Done => "done",
            ToolStatus::Refused => "refused",
            ToolStatus::Repeated => "repeated",
            ToolStatus::NotAsked => "not_asked",
            ToolStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "done" => ToolStatus::Done,
            "refused" => ToolStatus::Refused,
            "repeated" => ToolStatus::Repeated,
            "not_asked" => ToolStatus::NotAsked,
            "failed" => ToolStatus::Failed,
            _ => return None,
        })
    }
}

/// Why a question closed without an answer (an `unanswered` event's
/// `reason`; SPEC §3's outcomes other than `answered`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnansweredReason {
    /// No answer came within the answer timeout. Older logs and history
    /// spelled it `timeout`.
    #[serde(alias = "timeout")]
    TimedOut,
    /// The user stopped the reply (or it ended) while the question waited.
    Stopped,
    /// The user chose "You decide".
    LeftToImprint,
}

/// How a question ended, as its `ask_user` history row stores it in its
/// arguments' `outcome` (SPEC §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionOutcome {
    Answered,
    LeftToImprint,
    /// `timeout` in rows stored before the spelling was settled.
    #[serde(alias = "timeout")]
    TimedOut,
    Stopped,
}

impl From<UnansweredReason> for QuestionOutcome {
    fn from(reason: UnansweredReason) -> Self {
        match reason {
            UnansweredReason::TimedOut => QuestionOutcome::TimedOut,
            UnansweredReason::Stopped => QuestionOutcome::Stopped,
            UnansweredReason::LeftToImprint => QuestionOutcome::LeftToImprint,
        }
    }
}

impl QuestionOutcome {
    /// The outcome a stored row's `outcome` value names; `None` for a
    /// missing or unknown one.
    ///
    /// By hand, not with the derive: `Deserialize` on a `&Value` compiled
    /// serde's enum access for this one type into the wasm.
    pub fn read(value: Option<&Value>) -> Option<Self> {
        Some(match value?.as_str()? {
            "answered" => QuestionOutcome::Answered,
            "left_to_imprint" => QuestionOutcome::LeftToImprint,
            "timed_out" | "timeout" => QuestionOutcome::TimedOut,
            "stopped" => QuestionOutcome::Stopped,
            _ => return None,
        })
    }
}

/// One event of a reply. Every event is appended to the reply's log and
/// sent to every watcher; `Done` is always last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReplyEvent {
    Token {
        text: String,
    },
    ToolCall {
        id: String,
        name: String,
        args: Value,
    },
    /// A call's result. `args` are the arguments it ran with (a grounded
    /// time or project, not the model's guess); `row_id` is the memory or
    /// reminder a write made; `found` how many memories or projects a read
    /// found.
    ToolResult {
        id: String,
        name: String,
        result: String,
        #[serde(default)]
        status: ToolStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row_id: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        args: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        found: Option<u64>,
        /// Why a call did nothing (refused, repeated, not asked, failed),
        /// said to the user when its activity line is opened.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<CallReason>,
    },
    Question(Question),
    Answer {
        id: String,
        text: String,
    },
    /// A question closed without an answer. With `left_to_imprint` (the
    /// user chose "You decide"), `chosen` is the option Imprint took for
    /// its own question, if any.
    Unanswered {
        id: String,
        reason: UnansweredReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        chosen: Option<String>,
    },
    /// The whole answer; `html` is its Markdown rendered to safe HTML by
    /// the server (always sent by it; absent only from older logs).
    AssistantMessage {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        html: Option<String>,
    },
    Error {
        error: String,
    },
    Stopped,
    Done,
}

impl ReplyEvent {
    /// True for the event that ends a reply's stream.
    pub fn is_done(&self) -> bool {
        matches!(self, ReplyEvent::Done)
    }
}

/// A reply event with its position in the reply's log (the SSE `id`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SequencedEvent {
    pub seq: u64,
    pub event: ReplyEvent,
}

/// Events of `GET /api/events`, the dashboard-wide stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DashboardEvent {
    ReminderDue {
        id: i64,
        text: String,
        due_at: String,
    },
    QuestionWaiting {
        session_id: String,
        question_id: String,
    },
    QuestionClosed {
        session_id: String,
        question_id: String,
    },
    /// A reply started in a session.
    ReplyStarted {
        session_id: String,
        reply_id: String,
    },
    /// A reply ended: `outcome` is `answered`, `stopped` or `error`.
    ReplyFinished {
        session_id: String,
        reply_id: String,
        outcome: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A session was created, renamed or deleted (`session_id`: which).
    SessionsChanged {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// Finding by meaning changed: its state, and how many memories have
    /// their vectors (the Memories page shows the filling in).
    MeaningProgress {
        state: super::MeaningState,
        embedded: u64,
        total: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(event: &ReplyEvent, expected: Value) {
        assert_eq!(serde_json::to_value(event).unwrap(), expected);
        let back: ReplyEvent = serde_json::from_value(expected).unwrap();
        assert_eq!(&back, event);
    }

    #[test]
    fn reply_events_have_the_spec_shape() {
        round_trip(
            &ReplyEvent::Token { text: "Hi".into() },
            json!({"type": "token", "text": "Hi"}),
        );
        round_trip(
            &ReplyEvent::ToolCall {
                id: "c1".into(),
                name: "search".into(),
                args: json!({"query": "tea"}),
            },
            json!({"type": "tool_call", "id": "c1", "name": "search", "args": {"query": "tea"}}),
        );
        round_trip(
            &ReplyEvent::ToolResult {
                id: "c1".into(),
                name: "search".into(),
                result: "none".into(),
                status: ToolStatus::Done,
                row_id: None,
                args: None,
                found: Some(0),
                reason: None,
            },
            json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none",
                "status": "done", "found": 0}),
        );
        round_trip(
            &ReplyEvent::ToolResult {
                id: "c2".into(),
                name: "remind".into(),
                result: "Reminder #4 set".into(),
                status: ToolStatus::Done,
                row_id: Some(4),
                args: Some(json!({"text": "Call Anna", "at": "2026-12-01T09:00"})),
                found: None,
                reason: None,
            },
            json!({"type": "tool_result", "id": "c2", "name": "remind", "result": "Reminder #4 set",
                "status": "done", "row_id": 4, "args": {"text": "Call Anna", "at": "2026-12-01T09:00"}}),
        );
        round_trip(
            &ReplyEvent::ToolResult {
                id: "c3".into(),
                name: "ask_user".into(),
                result: "Not asked".into(),
                status: ToolStatus::NotAsked,
                row_id: None,
                args: None,
                found: None,
                reason: None,
            },
            json!({"type": "tool_result", "id": "c3", "name": "ask_user", "result": "Not asked",
                "status": "not_asked"}),
        );
        round_trip(
            &ReplyEvent::Answer {
                id: "q1".into(),
                text: "Billing".into(),
            },
            json!({"type": "answer", "id": "q1", "text": "Billing"}),
        );
        round_trip(
            &ReplyEvent::AssistantMessage {
                text: "All done".into(),
                html: None,
            },
            json!({"type": "assistant_message", "text": "All done"}),
        );
        round_trip(
            &ReplyEvent::AssistantMessage {
                text: "**All** done".into(),
                html: Some("<p><strong>All</strong> done</p>\n".into()),
            },
            json!({"type": "assistant_message", "text": "**All** done",
                "html": "<p><strong>All</strong> done</p>\n"}),
        );
        round_trip(
            &ReplyEvent::Error {
                error: "model unreachable".into(),
            },
            json!({"type": "error", "error": "model unreachable"}),
        );
        round_trip(&ReplyEvent::Stopped, json!({"type": "stopped"}));
        round_trip(&ReplyEvent::Done, json!({"type": "done"}));
    }

    #[test]
    fn a_question_left_to_imprint_names_what_was_chosen() {
        round_trip(
            &ReplyEvent::Unanswered {
                id: "q1".into(),
                reason: UnansweredReason::TimedOut,
                chosen: None,
            },
            json!({"type": "unanswered", "id": "q1", "reason": "timed_out"}),
        );
        round_trip(
            &ReplyEvent::Unanswered {
                id: "q1".into(),
                reason: UnansweredReason::LeftToImprint,
                chosen: Some("Tomorrow 09:00".into()),
            },
            json!({"type": "unanswered", "id": "q1", "reason": "left_to_imprint", "chosen": "Tomorrow 09:00"}),
        );
    }

    #[test]
    fn unanswered_reasons_have_one_spelling_and_read_the_old_one() {
        for (reason, name) in [
            (UnansweredReason::TimedOut, "timed_out"),
            (UnansweredReason::Stopped, "stopped"),
            (UnansweredReason::LeftToImprint, "left_to_imprint"),
        ] {
            assert_eq!(serde_json::to_value(reason).unwrap(), json!(name));
            let back: UnansweredReason = serde_json::from_value(json!(name)).unwrap();
            assert_eq!(back, reason);
        }
        // An event logged before the spelling was settled.
        let old: ReplyEvent =
            serde_json::from_value(json!({"type": "unanswered", "id": "q1", "reason": "timeout"}))
                .unwrap();
        let ReplyEvent::Unanswered { reason, .. } = &old else {
            panic!("{old:?}")
        };
        assert_eq!(*reason, UnansweredReason::TimedOut);
        assert_eq!(
            serde_json::to_value(&old).unwrap()["reason"],
            json!("timed_out"),
            "written in today's spelling"
        );
        assert!(serde_json::from_value::<ReplyEvent>(
            json!({"type": "unanswered", "id": "q1", "reason": "gone"})
        )
        .is_err());
    }

    #[test]
    fn question_outcomes_have_one_spelling_and_read_the_old_one() {
        for (outcome, name) in [
            (QuestionOutcome::Answered, "answered"),
            (QuestionOutcome::LeftToImprint, "left_to_imprint"),
            (QuestionOutcome::TimedOut, "timed_out"),
            (QuestionOutcome::Stopped, "stopped"),
        ] {
            assert_eq!(serde_json::to_value(outcome).unwrap(), json!(name));
            assert_eq!(QuestionOutcome::read(Some(&json!(name))), Some(outcome));
        }
        assert_eq!(
            QuestionOutcome::read(Some(&json!("timeout"))),
            Some(QuestionOutcome::TimedOut)
        );
        assert_eq!(QuestionOutcome::read(Some(&json!("gone"))), None);
        assert_eq!(QuestionOutcome::read(Some(&json!(3))), None);
        assert_eq!(QuestionOutcome::read(None), None);
        for reason in [
            UnansweredReason::TimedOut,
            UnansweredReason::Stopped,
            UnansweredReason::LeftToImprint,
        ] {
            assert_eq!(
                serde_json::to_value(QuestionOutcome::from(reason)).unwrap(),
                serde_json::to_value(reason).unwrap(),
                "an unanswered event's reason is stored as the same outcome"
            );
        }
    }

    #[test]
    fn question_event_is_flat_with_its_fields() {
        let event = ReplyEvent::Question(Question {
            id: "q1".into(),
            question: "Which project?".into(),
            options: vec!["Imprint".into(), "Billing".into()],
            allow_other: true,
            expires_at: Some("2026-11-30T10:00:00Z".into()),
            origin: QuestionOrigin::Model,
            reason: None,
            why: None,
        });
        round_trip(
            &event,
            json!({
                "type": "question", "id": "q1", "question": "Which project?",
                "options": ["Imprint", "Billing"], "allow_other": true,
                "expires_at": "2026-11-30T10:00:00Z", "origin": "model"
            }),
        );
    }

    #[test]
    fn a_question_says_why_as_a_code_and_as_the_spec_words() {
        let asked = Question {
            id: "q1".into(),
            question: "Which meeting?".into(),
            options: Vec::new(),
            allow_other: true,
            expires_at: None,
            origin: QuestionOrigin::Imprint,
            reason: None,
            why: None,
        }
        .because(QuestionReason::MemoriesMatch {
            phrase: "the meeting".into(),
            count: 3,
        });
        round_trip(
            &ReplyEvent::Question(asked.clone()),
            json!({
                "type": "question", "id": "q1", "question": "Which meeting?",
                "options": [], "allow_other": true, "origin": "imprint",
                "reason": "3 memories match “the meeting”",
                "why": {"memories_match": {"phrase": "the meeting", "count": 3}}
            }),
        );
        assert_eq!(
            asked.reason_words().as_deref(),
            Some("3 memories match “the meeting”")
        );
        // Stored before reasons were typed: the words are all there is.
        let old: Question = serde_json::from_value(json!({
            "id": "q1", "question": "When?", "reason": "Your request says no time"
        }))
        .unwrap();
        assert_eq!(old.why, None);
        assert_eq!(
            old.reason_words().as_deref(),
            Some("Your request says no time")
        );
    }

    #[test]
    fn a_tool_result_stored_with_words_for_its_reason_still_reads() {
        let old: ReplyEvent = serde_json::from_value(json!({
            "type": "tool_result", "id": "c1", "name": "store", "result": "Not done",
            "status": "refused", "reason": "You didn't say what “it” was, so nothing was written."
        }))
        .unwrap();
        let ReplyEvent::ToolResult { reason, .. } = old else {
            panic!("a tool result");
        };
        assert_eq!(
            reason.map(|r| r.words()).as_deref(),
            Some(CallReason::ReferenceUnknown.words().as_str())
        );
        round_trip(
            &ReplyEvent::ToolResult {
                id: "c1".into(),
                name: "store".into(),
                result: "Not done".into(),
                status: ToolStatus::Refused,
                row_id: None,
                args: None,
                found: None,
                reason: Some(CallReason::SaveUnasked),
            },
            json!({"type": "tool_result", "id": "c1", "name": "store", "result": "Not done",
                "status": "refused", "reason": "save_unasked"}),
        );
    }

    #[test]
    fn tool_statuses_read_back_from_their_names() {
        for status in [
            ToolStatus::Done,
            ToolStatus::Refused,
            ToolStatus::Repeated,
            ToolStatus::NotAsked,
            ToolStatus::Failed,
        ] {
            assert_eq!(ToolStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                json!(status.as_str())
            );
        }
        assert_eq!(ToolStatus::parse("saved"), None);
    }

    #[test]
    fn question_defaults_allow_other_and_options() {
        let q: Question = serde_json::from_value(json!({"id": "q", "question": "When?"})).unwrap();
        assert!(q.allow_other);
        assert!(q.options.is_empty());
        assert_eq!(q.origin, QuestionOrigin::Model);
    }

    #[test]
    fn dashboard_events_have_the_spec_shape() {
        assert_eq!(
            serde_json::to_value(DashboardEvent::ReminderDue {
                id: 3,
                text: "call Anna".into(),
                due_at: "2026-11-30T09:00:00Z".into()
            })
            .unwrap(),
            json!({"type": "reminder_due", "id": 3, "text": "call Anna", "due_at": "2026-11-30T09:00:00Z"})
        );
        assert_eq!(
            serde_json::to_value(DashboardEvent::QuestionWaiting {
                session_id: "s".into(),
                question_id: "q".into()
            })
            .unwrap(),
            json!({"type": "question_waiting", "session_id": "s", "question_id": "q"})
        );
        assert_eq!(
            serde_json::to_value(DashboardEvent::QuestionClosed {
                session_id: "s".into(),
                question_id: "q".into()
            })
            .unwrap(),
            json!({"type": "question_closed", "session_id": "s", "question_id": "q"})
        );
    }
}
