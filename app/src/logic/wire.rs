//! Reading the tagged messages of the event streams and the voice socket
//! from a parsed JSON [`Value`], for the browser.
//!
//! serde's derive reads an internally tagged enum (`#[serde(tag = "type")]`)
//! by buffering the message and running a second deserializer per variant,
//! which costs the Wasm build tens of kilobytes. These readers accept and
//! refuse exactly what the derived `Deserialize` impls do for well-formed
//! JSON objects (the tests below hold them to it), so the wire format is the one of
//! [`crate::protocol`], defined there once.

use serde_json::{Map, Value};

use crate::api::answers::Answer;

use crate::protocol::{
    CallReason, DashboardEvent, Question, ReplyEvent, ToolStatus, VoiceQuestion,
    VoiceServerMessage, VoiceTurn,
};

type Object = Map<String, Value>;

/// A required string field.
fn string(o: &Object, key: &str) -> Option<String> {
    o.get(key)?.as_str().map(str::to_owned)
}

/// A required boolean field.
fn boolean(o: &Object, key: &str) -> Option<bool> {
    o.get(key)?.as_bool()
}

/// A value read as [`Answer::read`] reads it (a unit enum: only its name,
/// as a string).
fn named<T: Answer>(value: &Value) -> Option<T> {
    T::read(value).ok()
}

/// A list of strings (every element must be one).
pub fn strings(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// A field that may be absent, with `default` then; `Err` when present but
/// not readable by `read`.
fn or_default<T>(
    o: &Object,
    key: &str,
    default: T,
    read: impl FnOnce(&Value) -> Option<T>,
) -> Result<T, ()> {
    match o.get(key) {
        None => Ok(default),
        Some(value) => read(value).ok_or(()),
    }
}

/// An `Option` field: absent or null is `None`.
fn optional<T>(
    o: &Object,
    key: &str,
    read: impl FnOnce(&Value) -> Option<T>,
) -> Result<Option<T>, ()> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => read(value).map(Some).ok_or(()),
    }
}

/// A reply event, as `serde_json::from_value::<ReplyEvent>` reads it.
pub fn reply_event(value: &Value) -> Option<ReplyEvent> {
    let o = value.as_object()?;
    Some(match o.get("type")?.as_str()? {
        "token" => ReplyEvent::Token {
            text: string(o, "text")?,
        },
        "tool_call" => ReplyEvent::ToolCall {
            id: string(o, "id")?,
            name: string(o, "name")?,
            args: o.get("args")?.clone(),
        },
        "tool_result" => ReplyEvent::ToolResult {
            id: string(o, "id")?,
            name: string(o, "name")?,
            result: string(o, "result")?,
            status: or_default(o, "status", ToolStatus::default(), |v| {
                ToolStatus::parse(v.as_str()?)
            })
            .ok()?,
            row_id: optional(o, "row_id", Value::as_i64).ok()?,
            args: optional(o, "args", |v| Some(v.clone())).ok()?,
            found: optional(o, "found", Value::as_u64).ok()?,
            reason: optional(o, "reason", named::<CallReason>).ok()?,
        },
        "question" => ReplyEvent::Question(Question::read(value).ok()?),
        "answer" => ReplyEvent::Answer {
            id: string(o, "id")?,
            text: string(o, "text")?,
        },
        "unanswered" => ReplyEvent::Unanswered {
            id: string(o, "id")?,
            reason: named(o.get("reason")?)?,
            chosen: optional(o, "chosen", |v| v.as_str().map(str::to_owned)).ok()?,
        },
        "assistant_message" => ReplyEvent::AssistantMessage {
            text: string(o, "text")?,
            html: optional(o, "html", |v| v.as_str().map(str::to_owned)).ok()?,
        },
        "error" => ReplyEvent::Error {
            error: string(o, "error")?,
        },
        "stopped" => ReplyEvent::Stopped,
        "done" => ReplyEvent::Done,
        _ => return None,
    })
}

/// A dashboard-wide event, as `serde_json::from_value::<DashboardEvent>`
/// reads it.
pub fn dashboard_event(value: &Value) -> Option<DashboardEvent> {
    let o = value.as_object()?;
    Some(match o.get("type")?.as_str()? {
        "reminder_due" => DashboardEvent::ReminderDue {
            id: o.get("id")?.as_i64()?,
            text: string(o, "text")?,
            due_at: string(o, "due_at")?,
        },
        "question_waiting" => DashboardEvent::QuestionWaiting {
            session_id: string(o, "session_id")?,
            question_id: string(o, "question_id")?,
        },
        "question_closed" => DashboardEvent::QuestionClosed {
            session_id: string(o, "session_id")?,
            question_id: string(o, "question_id")?,
        },
        "reply_started" => DashboardEvent::ReplyStarted {
            session_id: string(o, "session_id")?,
            reply_id: string(o, "reply_id")?,
        },
        "reply_finished" => DashboardEvent::ReplyFinished {
            session_id: string(o, "session_id")?,
            reply_id: string(o, "reply_id")?,
            outcome: string(o, "outcome")?,
            error: optional(o, "error", |v| v.as_str().map(str::to_owned)).ok()?,
        },
        "sessions_changed" => DashboardEvent::SessionsChanged {
            session_id: optional(o, "session_id", |v| v.as_str().map(str::to_owned)).ok()?,
        },
        "meaning_progress" => DashboardEvent::MeaningProgress {
            state: named(o.get("state")?)?,
            embedded: o.get("embedded")?.as_u64()?,
            total: o.get("total")?.as_u64()?,
        },
        _ => return None,
    })
}

fn voice_question(value: &Value) -> Option<VoiceQuestion> {
    let o = value.as_object()?;
    Some(VoiceQuestion {
        id: string(o, "id")?,
        question: string(o, "question")?,
        options: strings(o.get("options")?)?,
        allow_other: boolean(o, "allow_other")?,
        speech: string(o, "speech")?,
    })
}

fn voice_turn(value: &Value) -> Option<VoiceTurn> {
    let o = value.as_object()?;
    Some(VoiceTurn {
        id: string(o, "id")?,
        text: string(o, "text")?,
        reply_text: string(o, "reply_text")?,
        question: optional(o, "question", voice_question).ok()?,
    })
}

/// A voice server message, as `serde_json::from_value::<VoiceServerMessage>`
/// reads it.
pub fn voice_server_message(value: &Value) -> Option<VoiceServerMessage> {
    let o = value.as_object()?;
    Some(match o.get("type")?.as_str()? {
        "snapshot" => VoiceServerMessage::Snapshot {
            conversation_id: string(o, "conversation_id")?,
            saving: boolean(o, "saving")?,
            read_only: boolean(o, "read_only")?,
            turn: optional(o, "turn", voice_turn).ok()?,
            queue: or_default(o, "queue", Vec::new(), strings).ok()?,
        },
        "turn_started" => VoiceServerMessage::TurnStarted {
            turn_id: string(o, "turn_id")?,
            text: string(o, "text")?,
        },
        "answering" => VoiceServerMessage::Answering {
            question_id: string(o, "question_id")?,
            text: string(o, "text")?,
        },
        "answered" => VoiceServerMessage::Answered {
            question_id: string(o, "question_id")?,
            text: string(o, "text")?,
        },
        "confirming" => VoiceServerMessage::Confirming {
            question_id: string(o, "question_id")?,
            text: string(o, "text")?,
            speech: string(o, "speech")?,
        },
        "unconfirmed" => VoiceServerMessage::Unconfirmed {
            question_id: string(o, "question_id")?,
            text: string(o, "text")?,
        },
        "answer_rejected" => VoiceServerMessage::AnswerRejected {
            question_id: string(o, "question_id")?,
            text: string(o, "text")?,
            error: string(o, "error")?,
        },
        "queued" => VoiceServerMessage::Queued {
            text: string(o, "text")?,
        },
        "ignored" => VoiceServerMessage::Ignored {
            text: string(o, "text")?,
            reason: named(o.get("reason")?)?,
        },
        "error" => VoiceServerMessage::Error {
            error: string(o, "error")?,
        },
        "audio_ready" => VoiceServerMessage::AudioReady {
            recogniser: string(o, "recogniser")?,
        },
        "audio_unavailable" => VoiceServerMessage::AudioUnavailable {
            error: string(o, "error")?,
        },
        "hearing" => VoiceServerMessage::Hearing,
        "interim" => VoiceServerMessage::Interim {
            text: string(o, "text")?,
        },
        "thinking" => VoiceServerMessage::Thinking,
        "heard" => VoiceServerMessage::Heard {
            text: string(o, "text")?,
            confidence: optional(o, "confidence", Value::as_f64).ok()?,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use serde_json::json;
    use std::fmt::Debug;

    /// Each reader agrees with serde on every sample: the same value, or
    /// both refuse.
    fn agrees<T: DeserializeOwned + PartialEq + Debug>(
        read: fn(&Value) -> Option<T>,
        samples: &[Value],
    ) {
        for sample in samples {
            let by_serde = serde_json::from_value::<T>(sample.clone()).ok();
            assert_eq!(read(sample), by_serde, "sample: {sample}");
        }
    }

    fn reply_samples() -> Vec<Value> {
        vec![
            json!({"type": "token", "text": "Hi"}),
            json!({"type": "token", "text": "Hi", "extra": 1}),
            json!({"type": "token"}),
            json!({"type": "token", "text": 3}),
            json!({"type": "token", "text": null}),
            json!({"type": "tool_call", "id": "c1", "name": "search", "args": {"query": "tea"}}),
            json!({"type": "tool_call", "id": "c1", "name": "search", "args": null}),
            json!({"type": "tool_call", "id": "c1", "name": "search"}),
            json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none"}),
            json!({"type": "tool_result", "id": "c1", "result": "none"}),
            json!({"type": "tool_result", "id": "c1", "name": "remind", "result": "set",
                "status": "done", "row_id": 4, "args": {"at": "2026-12-01T09:00"}}),
            json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none",
                "status": "refused", "found": 0, "row_id": null, "args": null}),
            json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none",
                "status": "saved"}),
            json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none",
                "status": null}),
            json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none",
                "row_id": "4"}),
            json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none",
                "found": -1}),
            json!({"type": "tool_result", "id": "c1", "name": "store", "result": "Not done",
                "status": "refused", "reason": "You didn't ask to save anything."}),
            json!({"type": "tool_result", "id": "c1", "name": "store", "result": "Not done",
                "status": "refused", "reason": 3}),
            json!({"type": "tool_result", "id": "c1", "name": "store", "result": "Not done",
                "status": "refused", "reason": "save_unasked"}),
            json!({"type": "tool_result", "id": "c1", "name": "ask_user", "result": "Not asked",
                "status": "not_asked", "reason": {"already_said": {"option": "Friday"}}}),
            json!({"type": "tool_result", "id": "c1", "name": "ask_user", "result": "Not asked",
                "status": "not_asked", "reason": {"already_said": {}}}),
            json!({"type": "question", "id": "q", "question": "When?"}),
            json!({"type": "question", "id": "q", "question": "When?", "reason": "Your request says no time",
                "why": "no_time"}),
            json!({"type": "question", "id": "q", "question": "Which?",
                "why": {"memories_match": {"phrase": "the meeting", "count": 3}}}),
            json!({"type": "question", "id": "q", "question": "Which day?",
                "why": {"on_several_days": {"phrase": "the workshop", "count": 2}}}),
            json!({"type": "question", "id": "q", "question": "Which?", "why": "because"}),
            json!({"type": "question", "id": "q", "question": "Which?", "why": null}),
            json!({"type": "question", "id": "q", "question": "Which?", "options": ["A", "B"],
                "allow_other": false, "expires_at": "2026-11-30T10:00:00Z", "origin": "imprint"}),
            json!({"type": "question", "id": "q", "question": "Which?", "expires_at": null, "origin": "model"}),
            json!({"type": "question", "id": "q", "question": "Which?", "options": null}),
            json!({"type": "question", "id": "q", "question": "Which?", "options": ["A", 1]}),
            json!({"type": "question", "id": "q", "question": "Which?", "allow_other": null}),
            json!({"type": "question", "id": "q", "question": "Which?", "origin": "someone"}),
            json!({"type": "question", "id": "q", "question": "Which?", "origin": null}),
            json!({"type": "question", "id": "q"}),
            json!({"type": "answer", "id": "q1", "text": "Billing"}),
            json!({"type": "answer", "id": "q1"}),
            json!({"type": "unanswered", "id": "q1", "reason": "timeout"}),
            json!({"type": "unanswered", "id": "q1", "reason": "timed_out"}),
            json!({"type": "unanswered", "id": "q1", "reason": "stopped", "chosen": null}),
            json!({"type": "unanswered", "id": "q1", "reason": "gone"}),
            json!({"type": "unanswered", "id": "q1", "reason": 1}),
            json!({"type": "unanswered", "id": "q1"}),
            json!({"type": "unanswered", "id": "q1", "reason": "left_to_imprint", "chosen": "Tomorrow 09:00"}),
            json!({"type": "unanswered", "id": "q1", "reason": "left_to_imprint", "chosen": null}),
            json!({"type": "unanswered", "id": "q1", "reason": "left_to_imprint", "chosen": 1}),
            json!({"type": "assistant_message", "text": "All done"}),
            json!({"type": "assistant_message", "text": "All done", "html": "<p>All done</p>"}),
            json!({"type": "assistant_message", "text": "All done", "html": null}),
            json!({"type": "assistant_message", "text": "All done", "html": 1}),
            json!({"type": "assistant_message", "html": "<p>All done</p>"}),
            json!({"type": "error", "error": "model unreachable"}),
            json!({"type": "error"}),
            json!({"type": "stopped"}),
            json!({"type": "stopped", "why": "user"}),
            json!({"type": "done"}),
            json!({"type": "mystery"}),
            json!({"type": 1}),
            json!({"text": "no type"}),
            json!("done"),
            json!(null),
        ]
    }

    #[test]
    fn reply_events_read_as_serde_reads_them() {
        agrees(reply_event, &reply_samples());
    }

    fn dashboard_samples() -> Vec<Value> {
        vec![
            json!({"type": "reminder_due", "id": 3, "text": "call Anna", "due_at": "2026-11-30T09:00:00Z"}),
            json!({"type": "reminder_due", "id": -3, "text": "call Anna", "due_at": "t"}),
            json!({"type": "reminder_due", "id": 1.5, "text": "call Anna", "due_at": "t"}),
            json!({"type": "reminder_due", "id": "3", "text": "call Anna", "due_at": "t"}),
            json!({"type": "reminder_due", "id": u64::MAX, "text": "call Anna", "due_at": "t"}),
            json!({"type": "reminder_due", "text": "call Anna", "due_at": "t"}),
            json!({"type": "meaning_progress", "state": "filling", "embedded": 12, "total": 40}),
            json!({"type": "meaning_progress", "state": "ready", "embedded": 40, "total": 40}),
            json!({"type": "meaning_progress", "state": "sleeping", "embedded": 1, "total": 2}),
            json!({"type": "meaning_progress", "state": "off", "embedded": -1, "total": 2}),
            json!({"type": "meaning_progress", "state": "off", "total": 2}),
            json!({"type": "question_waiting", "session_id": "s", "question_id": "q"}),
            json!({"type": "question_waiting", "session_id": "s"}),
            json!({"type": "question_closed", "session_id": "s", "question_id": "q"}),
            json!({"type": "reply_started", "session_id": "s", "reply_id": "r"}),
            json!({"type": "reply_finished", "session_id": "s", "reply_id": "r", "outcome": "answered"}),
            json!({"type": "reply_finished", "session_id": "s", "reply_id": "r", "outcome": "error", "error": "boom"}),
            json!({"type": "reply_finished", "session_id": "s", "reply_id": "r", "outcome": "error", "error": null}),
            json!({"type": "reply_finished", "session_id": "s", "reply_id": "r", "outcome": "error", "error": 1}),
            json!({"type": "reply_finished", "session_id": "s", "reply_id": "r"}),
            json!({"type": "sessions_changed"}),
            json!({"type": "sessions_changed", "session_id": "s"}),
            json!({"type": "token", "text": "not here"}),
            json!([]),
        ]
    }

    #[test]
    fn dashboard_events_read_as_serde_reads_them() {
        agrees(dashboard_event, &dashboard_samples());
    }

    fn voice_samples() -> Vec<Value> {
        let question = json!({"id": "q", "question": "When?", "options": [], "allow_other": true, "speech": "When?"});
        vec![
            json!({"type": "snapshot", "conversation_id": "c", "saving": true, "read_only": true, "turn": null}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": true, "read_only": true}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": true, "read_only": true, "turn": null, "queue": ["a", "b"]}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": true, "read_only": true, "turn": null, "queue": null}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": true, "turn": null}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": "yes", "read_only": true}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": false, "read_only": true,
                "turn": {"id": "t", "text": "x", "reply_text": "", "question": question}}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": false, "read_only": true,
                "turn": {"id": "t", "text": "x", "reply_text": ""}}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": false, "read_only": true,
                "turn": {"id": "t", "text": "x", "reply_text": "", "question": {"id": "q", "question": "When?", "speech": "When?"}}}),
            json!({"type": "snapshot", "conversation_id": "c", "saving": false, "read_only": true,
                "turn": {"id": "t", "text": "x"}}),
            json!({"type": "turn_started", "turn_id": "t", "text": "find notes"}),
            json!({"type": "turn_started", "text": "find notes"}),
            json!({"type": "answering", "question_id": "q", "text": "A"}),
            json!({"type": "confirming", "question_id": "q", "text": "A", "speech": "Did you say A?"}),
            json!({"type": "confirming", "question_id": "q", "text": "A"}),
            json!({"type": "unconfirmed", "question_id": "q", "text": "A"}),
            json!({"type": "ignored", "text": "A", "reason": "not_an_answer"}),
            json!({"type": "answered", "question_id": "q", "text": "B"}),
            json!({"type": "answer_rejected", "question_id": "q", "text": "C", "error": "not a choice"}),
            json!({"type": "answer_rejected", "question_id": "q", "text": "C"}),
            json!({"type": "queued", "text": "and tea?"}),
            json!({"type": "ignored", "text": "um", "reason": "noise"}),
            json!({"type": "ignored", "text": "", "reason": "audio_backlog"}),
            json!({"type": "ignored", "text": "um", "reason": "mumbling"}),
            json!({"type": "ignored", "text": "um"}),
            json!({"type": "error", "error": "bad message"}),
            json!({"type": "error", "turn_id": "t", "error": "model unreachable"}),
            json!({"type": "audio_ready", "recogniser": "whisper-tiny.en"}),
            json!({"type": "audio_ready"}),
            json!({"type": "audio_unavailable", "error": "no speech model set up"}),
            json!({"type": "hearing"}),
            json!({"type": "interim", "text": "remind me"}),
            json!({"type": "interim"}),
            json!({"type": "thinking"}),
            json!({"type": "heard", "text": "Billing", "confidence": 0.8}),
            json!({"type": "heard", "text": "Billing", "confidence": null}),
            json!({"type": "heard", "text": "Billing"}),
            json!({"type": "heard", "text": "Billing", "confidence": "high"}),
            json!({"type": "token", "turn_id": "t", "text": "Here"}),
            json!({"type": "question", "turn_id": "t", "id": "q", "question": "Which?"}),
            json!({"type": "done", "turn_id": "t"}),
            json!({}),
        ]
    }

    #[test]
    fn voice_messages_read_as_serde_reads_them() {
        agrees(voice_server_message, &voice_samples());
    }

    /// The `type` tags serde knows for `T`, read from its error for an
    /// unknown one ("unknown variant `?`, expected one of `a`, `b`").
    fn tags_of<T: DeserializeOwned + Debug>() -> Vec<String> {
        let error = serde_json::from_value::<T>(json!({"type": "?"}))
            .expect_err("`?` is no variant")
            .to_string();
        let (_, expected) = error
            .split_once("expected one of")
            .unwrap_or_else(|| panic!("serde no longer lists the variants: {error}"));
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    /// Every variant serde knows has a well-formed sample, and the reader
    /// reads it: a variant added to the protocol and not read here fails.
    fn every_variant_is_read<T: DeserializeOwned + PartialEq + Debug>(
        read: fn(&Value) -> Option<T>,
        samples: &[Value],
    ) {
        let tags = tags_of::<T>();
        assert!(tags.len() > 1, "{tags:?}");
        for tag in tags {
            let read_by_serde = samples.iter().find_map(|sample| {
                let value = serde_json::from_value::<T>(sample.clone()).ok()?;
                (sample["type"] == tag.as_str()).then_some((sample, value))
            });
            let Some((sample, value)) = read_by_serde else {
                panic!("no well-formed sample of `{tag}`: add one, and read it");
            };
            assert_eq!(read(sample), Some(value), "`{tag}` is not read");
        }
    }

    #[test]
    fn every_protocol_variant_is_read() {
        every_variant_is_read(reply_event, &reply_samples());
        every_variant_is_read(dashboard_event, &dashboard_samples());
        every_variant_is_read(voice_server_message, &voice_samples());
    }

    #[test]
    fn strings_reads_lists_of_strings_only() {
        assert_eq!(
            strings(&json!(["a", "b"])),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(strings(&json!([])), Some(vec![]));
        assert_eq!(strings(&json!(["a", 1])), None);
        assert_eq!(strings(&json!(null)), None);
        assert_eq!(strings(&json!("a")), None);
    }
}
