//! Properties of the wire readers (`app::logic::wire`), which read the JSON
//! of the event streams and the voice socket in the browser in place of
//! serde's derived `Deserialize`:
//! - no JSON value makes one panic;
//! - what a reader takes, serde takes too, as the same value;
//! - on objects shaped like the protocol's messages (every tag, every
//!   field name, values of every JSON type) a reader and serde agree;
//! - every message written by serde (`Serialize`) reads back as itself,
//!   from the value and from its text.
//!
//! Where serde takes more than a reader: a struct written as an array of
//! its fields (a voice turn as `["t", "x", "", null]`), a unit enum written
//! as an object (`"status": {"refused": null}`). The server never writes
//! either; a reader refuses them, and the shaped objects below leave them
//! out.

use std::fmt::Debug;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use app::logic::wire;
use app::protocol::{
    CallReason, DashboardEvent, IgnoredReason, Question, QuestionOrigin, QuestionReason,
    ReplyEvent, ToolStatus, UnansweredReason, VoiceQuestion, VoiceServerMessage, VoiceTurn,
};

/// Modest case counts: the suite runs on two cores. `PROPTEST_CASES=N`
/// sets every count, for a longer run.
/// A failing case is kept in `tests/*.proptest-regressions` and tried
/// first on the next run.
fn config(cases: u32) -> ProptestConfig {
    let config = ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_some() {
        config
    } else {
        ProptestConfig { cases, ..config }
    }
}

const TAGS: &[&str] = &[
    "token",
    "tool_call",
    "tool_result",
    "question",
    "answer",
    "unanswered",
    "assistant_message",
    "error",
    "stopped",
    "done",
    "reminder_due",
    "question_waiting",
    "question_closed",
    "reply_started",
    "reply_finished",
    "sessions_changed",
    "snapshot",
    "turn_started",
    "answering",
    "answered",
    "answer_rejected",
    "queued",
    "ignored",
    "mystery",
    "",
    "Token",
];

const FIELDS: &[&str] = &[
    "text",
    "id",
    "name",
    "args",
    "result",
    "status",
    "row_id",
    "found",
    "question",
    "options",
    "allow_other",
    "expires_at",
    "origin",
    "reason",
    "why",
    "no_time",
    "memories_match",
    "phrase",
    "count",
    "repeated_write",
    "already_said",
    "option",
    "chosen",
    "html",
    "error",
    "due_at",
    "session_id",
    "question_id",
    "reply_id",
    "outcome",
    "conversation_id",
    "saving",
    "read_only",
    "turn",
    "queue",
    "turn_id",
    "reply_text",
    "speech",
    "extra",
];

/// Strings, with the protocol's own words among them.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        2 => "\\PC{0,8}",
        1 => any::<String>(),
        1 => select(&["done", "refused", "repeated", "not_asked", "failed", "saved", "model",
            "imprint", "someone", "timed_out", "timeout", "stopped", "left_to_imprint", "noise",
            "echo", "busy", "", "null", "true", "1"][..]).prop_map(str::to_string),
    ]
    .boxed()
}

/// A float whose decimal text reads back exactly (serde_json's default
/// float parsing is not always exact for others).
fn float() -> BoxedStrategy<f64> {
    (any::<i32>(), 0i32..10)
        .prop_map(|(n, k)| f64::from(n) / 2f64.powi(k))
        .boxed()
}

fn scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        text().prop_map(Value::String),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![
            Just(0i64),
            Just(-1),
            Just(1),
            Just(i64::MAX),
            Just(i64::MIN)
        ]
        .prop_map(Value::from),
        float().prop_map(Value::from),
    ]
    .boxed()
}

/// Any JSON value, nested a few levels.
fn json() -> BoxedStrategy<Value> {
    scalar()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop_oneof![select(FIELDS).prop_map(str::to_string), text()],
                        inner
                    ),
                    0..4
                )
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
        .boxed()
}

fn question() -> BoxedStrategy<Question> {
    (
        text(),
        text(),
        prop::collection::vec(text(), 0..3),
        any::<bool>(),
        prop::option::of(text()),
        select(&[QuestionOrigin::Model, QuestionOrigin::Imprint][..]),
        prop::option::of(text()),
        prop::option::of(question_reason()),
    )
        .prop_map(
            |(id, question, options, allow_other, expires_at, origin, reason, why)| Question {
                id,
                question,
                options,
                allow_other,
                expires_at,
                origin,
                reason,
                why,
            },
        )
        .boxed()
}

fn question_reason() -> BoxedStrategy<QuestionReason> {
    prop_oneof![
        Just(QuestionReason::NoTime),
        text().prop_map(|day| QuestionReason::NoTimeOfDay { day }),
        any::<usize>().prop_map(|count| QuestionReason::ProjectsUnnamed { count }),
        (text(), any::<usize>())
            .prop_map(|(phrase, count)| QuestionReason::MemoriesMatch { phrase, count }),
    ]
    .boxed()
}

fn call_reason() -> BoxedStrategy<CallReason> {
    prop_oneof![
        Just(CallReason::RepeatedWrite),
        Just(CallReason::SaveUnasked),
        text().prop_map(|option| CallReason::AlreadySaid { option }),
        any::<usize>().prop_map(|count| CallReason::QuestionsAnswered { count }),
        // Words read back as words unless they spell a code's name.
        text()
            .prop_filter("not a code's name", |words| {
                serde_json::from_value::<CallReason>(Value::String(words.clone()))
                    .is_ok_and(|read| read == CallReason::Words(words.clone()))
            })
            .prop_map(CallReason::Words),
    ]
    .boxed()
}

fn ignored_reason() -> BoxedStrategy<IgnoredReason> {
    select(
        &[
            IgnoredReason::Noise,
            IgnoredReason::Echo,
            IgnoredReason::QueueFull,
            IgnoredReason::FrameTooLarge,
            IgnoredReason::AudioTooLong,
            IgnoredReason::AudioBacklog,
            IgnoredReason::Busy,
        ][..],
    )
    .boxed()
}

fn unanswered_reason() -> BoxedStrategy<UnansweredReason> {
    select(
        &[
            UnansweredReason::TimedOut,
            UnansweredReason::Stopped,
            UnansweredReason::LeftToImprint,
        ][..],
    )
    .boxed()
}

fn status() -> BoxedStrategy<ToolStatus> {
    select(
        &[
            ToolStatus::Done,
            ToolStatus::Refused,
            ToolStatus::Repeated,
            ToolStatus::NotAsked,
            ToolStatus::Failed,
        ][..],
    )
    .boxed()
}

fn reply_event() -> BoxedStrategy<ReplyEvent> {
    prop_oneof![
        text().prop_map(|text| ReplyEvent::Token { text }),
        (text(), text(), json()).prop_map(|(id, name, args)| ReplyEvent::ToolCall {
            id,
            name,
            args
        }),
        (
            (text(), text(), text(), status()),
            prop::option::of(any::<i64>()),
            // `Some(null)` is written as `"args": null`, which reads back as
            // `None` (by serde too): the two are one on the wire.
            prop::option::of(json().prop_filter("not null", |v| !v.is_null())),
            prop::option::of(any::<u64>()),
            prop::option::of(call_reason()),
        )
            .prop_map(
                |((id, name, result, status), row_id, args, found, reason)| {
                    ReplyEvent::ToolResult {
                        id,
                        name,
                        result,
                        status,
                        row_id,
                        args,
                        found,
                        reason,
                    }
                }
            ),
        question().prop_map(ReplyEvent::Question),
        (text(), text()).prop_map(|(id, text)| ReplyEvent::Answer { id, text }),
        (text(), unanswered_reason(), prop::option::of(text()))
            .prop_map(|(id, reason, chosen)| { ReplyEvent::Unanswered { id, reason, chosen } }),
        (text(), prop::option::of(text()))
            .prop_map(|(text, html)| ReplyEvent::AssistantMessage { text, html }),
        text().prop_map(|error| ReplyEvent::Error { error }),
        Just(ReplyEvent::Stopped),
        Just(ReplyEvent::Done),
    ]
    .boxed()
}

fn dashboard_event() -> BoxedStrategy<DashboardEvent> {
    prop_oneof![
        (any::<i64>(), text(), text())
            .prop_map(|(id, text, due_at)| { DashboardEvent::ReminderDue { id, text, due_at } }),
        (text(), text()).prop_map(|(session_id, question_id)| {
            DashboardEvent::QuestionWaiting {
                session_id,
                question_id,
            }
        }),
        (text(), text()).prop_map(|(session_id, question_id)| {
            DashboardEvent::QuestionClosed {
                session_id,
                question_id,
            }
        }),
        (text(), text()).prop_map(|(session_id, reply_id)| DashboardEvent::ReplyStarted {
            session_id,
            reply_id
        }),
        (text(), text(), text(), prop::option::of(text())).prop_map(
            |(session_id, reply_id, outcome, error)| DashboardEvent::ReplyFinished {
                session_id,
                reply_id,
                outcome,
                error,
            }
        ),
        Just(DashboardEvent::SessionsChanged { session_id: None }),
        "[a-z0-9-]{1,12}".prop_map(|id| DashboardEvent::SessionsChanged {
            session_id: Some(id)
        }),
    ]
    .boxed()
}

fn voice_question() -> BoxedStrategy<VoiceQuestion> {
    (
        text(),
        text(),
        prop::collection::vec(text(), 0..3),
        any::<bool>(),
        text(),
    )
        .prop_map(
            |(id, question, options, allow_other, speech)| VoiceQuestion {
                id,
                question,
                options,
                allow_other,
                speech,
            },
        )
        .boxed()
}

fn voice_turn() -> BoxedStrategy<VoiceTurn> {
    (text(), text(), text(), prop::option::of(voice_question()))
        .prop_map(|(id, text, reply_text, question)| VoiceTurn {
            id,
            text,
            reply_text,
            question,
        })
        .boxed()
}

fn voice_server_message() -> BoxedStrategy<VoiceServerMessage> {
    prop_oneof![
        (
            text(),
            any::<bool>(),
            any::<bool>(),
            prop::option::of(voice_turn()),
            prop::collection::vec(text(), 0..3),
        )
            .prop_map(|(conversation_id, saving, read_only, turn, queue)| {
                VoiceServerMessage::Snapshot {
                    conversation_id,
                    saving,
                    read_only,
                    turn,
                    queue,
                }
            }),
        (text(), text())
            .prop_map(|(turn_id, text)| VoiceServerMessage::TurnStarted { turn_id, text }),
        (text(), text())
            .prop_map(|(question_id, text)| VoiceServerMessage::Answering { question_id, text }),
        (text(), text())
            .prop_map(|(question_id, text)| VoiceServerMessage::Answered { question_id, text }),
        (text(), text(), text()).prop_map(|(question_id, text, error)| {
            VoiceServerMessage::AnswerRejected {
                question_id,
                text,
                error,
            }
        }),
        text().prop_map(|text| VoiceServerMessage::Queued { text }),
        (text(), ignored_reason())
            .prop_map(|(text, reason)| VoiceServerMessage::Ignored { text, reason }),
        text().prop_map(|error| VoiceServerMessage::Error { error }),
    ]
    .boxed()
}

fn to_value<T: Serialize>(t: T) -> Value {
    serde_json::to_value(t).expect("protocol types serialize")
}

/// A field's value: of any JSON type, and sometimes a well-formed
/// question or turn. Arrays hold at most three items (a struct's array
/// form needs four or five) and objects take their keys from the field
/// names (never an enum's variant name): see the module's note.
fn field_value() -> BoxedStrategy<Value> {
    let array = prop::collection::vec(scalar(), 0..4).prop_map(Value::Array);
    let strings =
        prop::collection::vec(text().prop_map(Value::String), 0..4).prop_map(Value::Array);
    let object = prop::collection::vec((select(FIELDS), scalar()), 0..6).prop_map(|entries| {
        Value::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    });
    prop_oneof![
        6 => scalar(),
        2 => strings,
        1 => array,
        1 => object,
        1 => voice_question().prop_map(to_value),
        1 => voice_turn().prop_map(to_value),
    ]
    .boxed()
}

/// An object with a `type` tag (a string) and some of the protocol's
/// fields, each of any type: sometimes a message, mostly almost one.
fn shaped() -> BoxedStrategy<Value> {
    let near_miss = (
        prop::option::of(select(TAGS)),
        prop::collection::vec((select(FIELDS), field_value()), 0..8),
    )
        .prop_map(|(tag, fields)| {
            let mut object: Map<String, Value> = fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            if let Some(tag) = tag {
                object.insert("type".to_string(), Value::from(tag));
            }
            Value::Object(object)
        });
    // A message with one field dropped, changed or added.
    let message = prop_oneof![
        reply_event().prop_map(to_value),
        dashboard_event().prop_map(to_value),
        voice_server_message().prop_map(to_value),
    ];
    let edited = (message, select(FIELDS), prop::option::of(field_value())).prop_map(
        |(mut message, field, value)| {
            let object = message.as_object_mut().expect("messages are objects");
            match value {
                Some(value) => object.insert(field.to_string(), value),
                None => object.remove(field),
            };
            message
        },
    );
    prop_oneof![near_miss, edited].boxed()
}

/// The reader and serde agree on `value`.
fn agree<T: DeserializeOwned + PartialEq + Debug>(
    read: fn(&Value) -> Option<T>,
    value: &Value,
) -> Result<(), TestCaseError> {
    let by_serde = serde_json::from_value::<T>(value.clone()).ok();
    prop_assert_eq!(read(value), by_serde, "{}", value);
    Ok(())
}

/// What the reader takes, serde takes as the same.
fn within_serde<T: DeserializeOwned + PartialEq + Debug>(
    read: fn(&Value) -> Option<T>,
    value: &Value,
) -> Result<(), TestCaseError> {
    if let Some(read) = read(value) {
        let by_serde = serde_json::from_value::<T>(value.clone()).ok();
        prop_assert_eq!(Some(read), by_serde, "{}", value);
    }
    Ok(())
}

/// Reads `message` back through serde's `Serialize`, as a value and as
/// the text of a frame.
fn reads_back<T: Serialize + PartialEq + Debug>(
    read: fn(&Value) -> Option<T>,
    message: &T,
) -> Result<(), TestCaseError> {
    let value = to_value(message);
    let read_back = read(&value);
    prop_assert_eq!(read_back.as_ref(), Some(message), "{}", value);
    let text = serde_json::to_string(message).expect("protocol types serialize");
    let value: Value = serde_json::from_str(&text).expect("serde_json reads its own text");
    let read_back = read(&value);
    prop_assert_eq!(read_back.as_ref(), Some(message), "{}", text);
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    /// Any JSON value: no panic, and nothing serde would refuse.
    #[test]
    fn readers_take_nothing_serde_refuses(value in prop_oneof![json(), shaped()]) {
        within_serde(wire::reply_event, &value)?;
        within_serde(wire::dashboard_event, &value)?;
        within_serde(wire::voice_server_message, &value)?;
        agree(wire::strings, &value)?;
    }

    /// On objects shaped like the protocol's messages, each reader takes
    /// exactly what serde takes.
    #[test]
    fn readers_agree_with_serde_on_shaped_objects(value in shaped()) {
        agree(wire::reply_event, &value)?;
        agree(wire::dashboard_event, &value)?;
        agree(wire::voice_server_message, &value)?;
    }

    /// The readers never panic on a frame's text, whatever it holds.
    #[test]
    fn readers_never_panic_on_any_text(text in prop_oneof![
        any::<String>(),
        json().prop_map(|v| v.to_string()),
        shaped().prop_map(|v| v.to_string()),
    ]) {
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            let _ = wire::reply_event(&value);
            let _ = wire::dashboard_event(&value);
            let _ = wire::voice_server_message(&value);
            let _ = wire::strings(&value);
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn reply_events_read_back(event in reply_event()) {
        reads_back(wire::reply_event, &event)?;
    }

    #[test]
    fn dashboard_events_read_back(event in dashboard_event()) {
        reads_back(wire::dashboard_event, &event)?;
    }

    #[test]
    fn voice_messages_read_back(message in voice_server_message()) {
        reads_back(wire::voice_server_message, &message)?;
    }
}

/// What the server never writes, a reader refuses: a numeric `type`
/// (serde refuses it too), and what serde alone takes, a struct as an
/// array and a unit enum as an object.
#[test]
fn readers_refuse_what_the_server_never_writes() {
    use serde_json::json;
    let samples = [
        json!({"type": 0, "text": "Hi"}),
        json!({"type": 7}),
        json!({"type": "snapshot", "conversation_id": "c", "saving": true, "read_only": true,
            "turn": ["t", "x", "", null]}),
        json!({"type": "tool_result", "id": "c1", "name": "search", "result": "none",
            "status": {"refused": null}}),
        json!({"type": "question", "id": "q", "question": "Which?", "origin": {"imprint": null}}),
        json!({"type": "unanswered", "id": "q", "reason": {"timed_out": null}}),
        json!({"type": "ignored", "text": "um", "reason": {"noise": null}}),
    ];
    for sample in samples {
        assert_eq!(wire::reply_event(&sample), None, "{sample}");
        assert_eq!(wire::dashboard_event(&sample), None, "{sample}");
        assert_eq!(wire::voice_server_message(&sample), None, "{sample}");
    }
}
