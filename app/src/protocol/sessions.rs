//! Sessions, messages, the reply state and the request bodies (SPEC §4).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Question, ToolStatus};

/// `GET /api/chat/status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatStatus {
    pub provider: String,
    pub model: String,
    pub tool_format: String,
    pub ready: bool,
    /// What to do when `ready` is false (how to connect a model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// One entry of `GET /api/chat/sessions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    pub message_count: u64,
    pub waiting: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionList {
    pub sessions: Vec<SessionSummary>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
}

/// A stored message. Tool rows carry the tool's name and arguments; an
/// `ask_user` row's arguments hold the question and its content the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub seq: i64,
    pub role: Role,
    pub content: String,
    pub tool_name: Option<String>,
    pub tool_args: Option<Value>,
    pub created_at: String,
    /// How an assistant message that did not finish normally ended;
    /// absent for a finished answer (and for other roles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<Ended>,
    /// With `ended: "error"`: what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// An assistant message's Markdown rendered to safe HTML by the server;
    /// absent for other roles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// A tool row's outcome, as its `tool_result` said (absent on other
    /// rows and on rows stored before outcomes were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolStatus>,
    /// The memory or reminder a tool row's write made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_id: Option<i64>,
    /// How many memories or projects a tool row's read found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<u64>,
    /// Why a tool row's call did nothing, as its `tool_result` said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<super::CallReason>,
}

/// How a reply that did not finish normally ended (SPEC §4). Whatever
/// text was written is kept with the mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// The user stopped it.
    Stopped,
    /// Imprint stopped (a crash, a shutdown) while writing it.
    Interrupted,
    /// The model's stream broke off mid-answer.
    CutOff,
    /// The model hit its token limit: the text is its answer, unfinished.
    Length,
    /// The model failed (unreachable, an HTTP error, a stall).
    Error,
}

impl Ended {
    /// The stored name (the wire name).
    pub fn as_str(self) -> &'static str {
        match self {
            Ended::Stopped => "stopped",
            Ended::Interrupted => "interrupted",
            Ended::CutOff => "cut_off",
            Ended::Length => "length",
            Ended::Error => "error",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        [
            Ended::Stopped,
            Ended::Interrupted,
            Ended::CutOff,
            Ended::Length,
            Ended::Error,
        ]
        .into_iter()
        .find(|e| e.as_str() == name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyPhase {
    Writing,
    Waiting,
}

/// The reply being written in a session, if any.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplyState {
    pub id: String,
    pub state: ReplyPhase,
    pub question: Option<Question>,
}

/// `GET /api/chat/sessions/{sid}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    pub messages: Vec<Message>,
    pub reply: Option<ReplyState>,
    /// On a paged read: how many messages come before the first one in
    /// `messages`. Absent on a whole read, which lists them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub older: Option<u64>,
}

/// `GET /api/chat/sessions/{sid}?before=&limit=`: one page of a session's
/// messages, the newest `limit` of those before seq `before` (the newest of
/// all without it). A cursor of seqs, so messages added meanwhile neither
/// repeat nor skip one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessagePage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<i64>,
    /// 1 to [`MessagePage::MAX_LIMIT`]; [`MessagePage::DEFAULT_LIMIT`] when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl MessagePage {
    pub const DEFAULT_LIMIT: u32 = 100;
    pub const MAX_LIMIT: u32 = 500;

    /// The newest `limit` messages.
    pub fn newest(limit: u32) -> Self {
        Self {
            before: None,
            limit: Some(limit),
        }
    }

    /// The `limit` messages before seq `before`.
    pub fn before(before: i64, limit: u32) -> Self {
        Self {
            before: Some(before),
            limit: Some(limit),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    #[serde(default)]
    pub title: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenameSession {
    pub title: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostMessage {
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyStarted {
    pub reply_id: String,
}

/// What came of text the user typed in a chat while a question waited.
///
/// The browser reads it with [`Said::from_value`] (see there why);
/// the server with serde's derive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "taken_as", rename_all = "snake_case")]
pub enum Said {
    /// It answered the question.
    Answer,
    /// It was a new request: the waiting reply stopped and this one
    /// started with it.
    NewRequest { reply_id: String },
}

impl Said {
    /// Read from a JSON object as serde's derive reads one (tests hold the
    /// two to it): the outcome's name under `taken_as`,
    /// `reply_id` beside a new request, other fields ignored. (The derive
    /// would also read a list; the server never writes one.)
    ///
    /// Why: the derive of a tagged enum buffers the object, which
    /// compiles serde's buffering into the wasm.
    pub fn from_value(value: &Value) -> Option<Self> {
        let object = value.as_object()?;
        let taken_as = object.get("taken_as")?.as_str()?;
        Some(match taken_as {
            "answer" => Said::Answer,
            "new_request" => Said::NewRequest {
                reply_id: object.get("reply_id")?.as_str()?.to_owned(),
            },
            _ => return None,
        })
    }
}

/// The answer route's body: `{id, answer}`, or `{id, you_decide: true}`
/// for "You decide" (then `answer` may be left out).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub you_decide: bool,
}

/// One entry of `GET /api/questions`: a question waiting now, with its chat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitingQuestion {
    pub session_id: String,
    pub session_title: String,
    pub id: String,
    pub question: String,
    pub options: Vec<String>,
    pub allow_other: bool,
    pub origin: super::QuestionOrigin,
    pub expires_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<super::QuestionReason>,
}

impl WaitingQuestion {
    pub fn new(session_id: String, session_title: String, question: Question) -> Self {
        Self {
            session_id,
            session_title,
            id: question.id,
            question: question.question,
            options: question.options,
            allow_other: question.allow_other,
            origin: question.origin,
            expires_at: question.expires_at,
            reason: question.reason,
            why: question.why,
        }
    }

    /// The question as its card shows it.
    pub fn to_question(&self) -> Question {
        Question {
            id: self.id.clone(),
            question: self.question.clone(),
            options: self.options.clone(),
            allow_other: self.allow_other,
            expires_at: self.expires_at.clone(),
            origin: self.origin,
            reason: self.reason.clone(),
            why: self.why.clone(),
        }
    }
}

/// `GET /api/questions`: every question waiting now, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuestionList {
    pub questions: Vec<WaitingQuestion>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn said_from_value_reads_as_the_derive_reads() {
        for sample in [
            json!({"taken_as": "answer"}),
            json!({"taken_as": "answer", "reply_id": "r1"}),
            json!({"taken_as": "new_request", "reply_id": "r1"}),
            json!({"taken_as": "new_request", "reply_id": "r1", "extra": true}),
            json!({"taken_as": "new_request"}),
            json!({"taken_as": "new_request", "reply_id": 3}),
            json!({"taken_as": "new_request", "reply_id": null}),
            json!({"taken_as": 0}),
            json!({"taken_as": 1, "reply_id": "r1"}),
            json!({"taken_as": 2}),
            json!({"taken_as": -1}),
            json!({"taken_as": "other"}),
            json!({"taken_as": null}),
            json!({"reply_id": "r1"}),
            json!({}),
            json!("answer"),
            json!(null),
        ] {
            let by_serde = serde_json::from_value::<Said>(sample.clone()).ok();
            assert_eq!(Said::from_value(&sample), by_serde, "sample: {sample}");
        }
    }

    #[test]
    fn session_with_waiting_reply_has_the_spec_shape() {
        let session = Session {
            id: "s1".into(),
            title: "Plans".into(),
            created_at: "t0".into(),
            updated_at: "t1".into(),
            messages: vec![Message {
                seq: 1,
                role: Role::Tool,
                content: "Billing".into(),
                tool_name: Some("ask_user".into()),
                tool_args: Some(json!({"question": "Which?"})),
                created_at: "t1".into(),
                ended: None,
                error: None,
                html: None,
                status: None,
                row_id: None,
                found: None,
                reason: None,
            }],
            reply: Some(ReplyState {
                id: "r1".into(),
                state: ReplyPhase::Waiting,
                question: None,
            }),
            older: None,
        };
        assert_eq!(
            serde_json::to_value(&session).unwrap(),
            json!({
                "id": "s1", "title": "Plans", "created_at": "t0", "updated_at": "t1",
                "messages": [{"seq": 1, "role": "tool", "content": "Billing",
                    "tool_name": "ask_user", "tool_args": {"question": "Which?"}, "created_at": "t1"}],
                "reply": {"id": "r1", "state": "waiting", "question": null}
            })
        );
    }

    #[test]
    fn summary_and_requests_have_the_spec_shape() {
        let summary = SessionSummary {
            id: "s".into(),
            title: "New chat".into(),
            created_at: "a".into(),
            updated_at: "b".into(),
            message_count: 2,
            waiting: true,
        };
        assert_eq!(
            serde_json::to_value(&summary).unwrap(),
            json!({"id": "s", "title": "New chat", "created_at": "a", "updated_at": "b", "message_count": 2, "waiting": true})
        );
        let answer: AnswerRequest =
            serde_json::from_value(json!({"id": "q", "answer": "yes"})).unwrap();
        assert_eq!(
            (answer.answer.as_deref(), answer.you_decide),
            (Some("yes"), false)
        );
        let you_decide: AnswerRequest =
            serde_json::from_value(json!({"id": "q", "you_decide": true})).unwrap();
        assert_eq!((you_decide.answer, you_decide.you_decide), (None, true));
        let create: CreateSession = serde_json::from_value(json!({})).unwrap();
        assert_eq!(create.title, None);
        assert_eq!(
            serde_json::to_value(ReplyStarted {
                reply_id: "r".into()
            })
            .unwrap(),
            json!({"reply_id": "r"})
        );
    }

    #[test]
    fn an_unfinished_message_carries_its_ending_and_error() {
        let message = Message {
            seq: 2,
            role: Role::Assistant,
            content: "w0".into(),
            tool_name: None,
            tool_args: None,
            created_at: "t".into(),
            ended: Some(Ended::Error),
            error: Some("the model at x cannot be reached".into()),
            html: None,
            status: None,
            row_id: None,
            found: None,
            reason: None,
        };
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(value["ended"], "error");
        assert_eq!(value["error"], "the model at x cannot be reached");
        for ended in ["stopped", "interrupted", "cut_off", "length", "error"] {
            let parsed: Ended = serde_json::from_value(json!(ended)).unwrap();
            assert_eq!(parsed.as_str(), ended);
            assert_eq!(Ended::parse(ended), Some(parsed));
        }
        assert_eq!(Ended::parse("finished"), None);
    }

    #[test]
    fn a_waiting_question_has_the_spec_shape() {
        let question = Question {
            id: "q".into(),
            question: "When?".into(),
            options: vec!["Tomorrow 09:00".into(), "Tonight 20:00".into()],
            allow_other: true,
            expires_at: Some("2026-11-30T10:00:00Z".into()),
            origin: super::super::QuestionOrigin::Imprint,
            reason: None,
            why: None,
        };
        let waiting = WaitingQuestion::new("s".into(), "Plans".into(), question.clone());
        assert_eq!(waiting.to_question(), question);
        assert_eq!(
            serde_json::to_value(QuestionList {
                questions: vec![waiting]
            })
            .unwrap(),
            json!({"questions": [{"session_id": "s", "session_title": "Plans", "id": "q",
                "question": "When?", "options": ["Tomorrow 09:00", "Tonight 20:00"],
                "allow_other": true, "origin": "imprint", "expires_at": "2026-11-30T10:00:00Z"}]})
        );
    }

    #[test]
    fn status_omits_an_absent_hint() {
        let status = ChatStatus {
            provider: "local".into(),
            model: "qwen".into(),
            tool_format: "hermes".into(),
            ready: true,
            hint: None,
        };
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!({"provider": "local", "model": "qwen", "tool_format": "hermes", "ready": true})
        );
    }
}
