//! Properties of the answer readers (`app::api::answers`), which read the
//! server functions' answers in the browser in place of serde's derived
//! `Deserialize`:
//! - every answer written by serde (`Serialize`) reads back as itself;
//! - on answers changed here and there (a field dropped, set to another
//!   JSON value, a field added, at any depth) a reader takes exactly what
//!   serde takes, as the same value, and refuses what serde refuses;
//! - no JSON value makes one panic.
//!
//! Where serde takes more than a reader (left out of the changes below,
//! never written by the server): a struct written as a list of its fields,
//! a unit enum written as an object (`"role": {"user": null}`).

use std::fmt::Debug;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use app::api::answers::Answer;
use app::protocol::{
    CallReason, ChatStatus, Connections, CurrentConnection, Ended, FoundServer, KeyShown,
    MeaningState, MeaningStatus, Memory, MemoryPage, Message, ModelList, Moved, Preset,
    ProjectInfo, ProjectList, Question, QuestionList, QuestionOrigin, QuestionReason, Reminder,
    ReminderList, Repeat, ReplyPhase, ReplyStarted, ReplyState, Role, Said, Session, SessionList,
    SessionSummary, SettingSource, Sources, StoredKey, TestResult, ToolStatus, UnreadableReminder,
    WaitingQuestion, WordsOnly,
};

/// Modest case counts: the suite runs on two cores. `PROPTEST_CASES=N`
/// sets every count, for a longer run.
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

/// One answer type: its name, its samples as serde writes them, and the
/// comparison of its reader with serde on a value.
struct Kind {
    name: &'static str,
    samples: Vec<Value>,
    agree: fn(&Value) -> Result<(), String>,
}

/// The reader and serde agree on `value`: the same value, or both refuse.
fn agree<T: Answer + DeserializeOwned + PartialEq + Debug>(value: &Value) -> Result<(), String> {
    let by_serde = serde_json::from_value::<T>(value.clone()).ok();
    let by_hand = T::read(value).ok();
    if by_hand == by_serde {
        Ok(())
    } else {
        Err(format!(
            "on {value}\n  read: {by_hand:?}\n serde: {by_serde:?}"
        ))
    }
}

fn kind<T>(name: &'static str, samples: &[T]) -> Kind
where
    T: Answer + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let samples = samples
        .iter()
        .map(|sample| {
            let value = serde_json::to_value(sample).expect("a sample is written");
            assert_eq!(
                T::read(&value).as_ref().ok(),
                Some(sample),
                "{name} reads back"
            );
            value
        })
        .collect();
    Kind {
        name,
        samples,
        agree: agree::<T>,
    }
}

fn question(why: Option<QuestionReason>) -> Question {
    Question {
        id: "q1".into(),
        question: "Which day?".into(),
        options: vec!["Friday".into(), "Monday".into()],
        allow_other: false,
        expires_at: Some("2026-12-01T09:00:00Z".into()),
        origin: QuestionOrigin::Imprint,
        reason: why.as_ref().map(QuestionReason::words),
        why,
    }
}

fn message(seq: i64, role: Role) -> Message {
    Message {
        seq,
        role,
        content: "Hi".into(),
        tool_name: None,
        tool_args: None,
        created_at: "2026-12-01T09:00:00Z".into(),
        ended: None,
        error: None,
        html: None,
        status: None,
        row_id: None,
        found: None,
        reason: None,
    }
}

fn kinds() -> Vec<Kind> {
    let reasons = [
        QuestionReason::DayOrMonthFirst {
            written: "3/4".into(),
        },
        QuestionReason::ZoneUnread { why: "XYZ".into() },
        QuestionReason::NoTime,
        QuestionReason::NoTimeOfDay {
            day: "2026-12-01".into(),
        },
        QuestionReason::ProjectsUnnamed { count: 3 },
        QuestionReason::MemoriesMatch {
            phrase: "the meeting".into(),
            count: 2,
        },
        QuestionReason::DetailNotGiven,
        QuestionReason::NothingToKeep,
        QuestionReason::NothingToRemindOf,
    ];
    let tool_row = Message {
        tool_name: Some("store".into()),
        tool_args: Some(json!({"content": "x", "tags": ["a"]})),
        status: Some(ToolStatus::Refused),
        row_id: Some(-4),
        found: Some(2),
        reason: Some(CallReason::AlreadySaid {
            option: "Friday".into(),
        }),
        ..message(2, Role::Tool)
    };
    let ended = Message {
        ended: Some(Ended::CutOff),
        error: Some("broke".into()),
        html: Some("<p>Hi</p>".into()),
        reason: Some(CallReason::Words("old words".into())),
        ..message(3, Role::Assistant)
    };
    let session = Session {
        id: "s1".into(),
        title: "Plans".into(),
        created_at: "2026-12-01T09:00:00Z".into(),
        updated_at: "2026-12-01T09:05:00Z".into(),
        messages: vec![message(1, Role::User), tool_row, ended],
        reply: Some(ReplyState {
            id: "r1".into(),
            state: ReplyPhase::Waiting,
            question: Some(question(Some(reasons[5].clone()))),
        }),
        older: Some(7),
    };
    let summary = SessionSummary {
        id: "s1".into(),
        title: "Plans".into(),
        created_at: "a".into(),
        updated_at: "b".into(),
        message_count: 3,
        waiting: true,
    };
    let waiting = |why: Option<QuestionReason>| {
        WaitingQuestion::new("s1".into(), "Plans".into(), question(why))
    };
    let memory = Memory {
        id: 5,
        content: "Gate code 1234".into(),
        project: Some("Home".into()),
        tags: vec!["gate".into()],
        created_at: "2026-12-01T09:00:00Z".into(),
    };
    let reminder = Reminder {
        id: 1,
        text: "stretch".into(),
        due_at: "2026-12-01T09:00:00.000Z".into(),
        done: false,
        session_id: Some("s1".into()),
        repeat: Some(Repeat::Weekdays),
    };
    let current = CurrentConnection {
        provider: "local".into(),
        base_url: "http://127.0.0.1:8080/v1".into(),
        model: "qwen".into(),
        tool_format: "hermes".into(),
        source: SettingSource::ConfigFile,
        sources: Sources {
            provider: SettingSource::Flag,
            base_url: SettingSource::Environment,
            model: SettingSource::Page,
            tool_format: SettingSource::ConfigFile,
            turns: SettingSource::Default,
        },
        key: Some(KeyShown {
            masked: "sk-…abcd".into(),
            source: SettingSource::Page,
        }),
        turns: "auto".into(),
    };
    vec![
        kind(
            "ChatStatus",
            &[
                ChatStatus {
                    provider: "local".into(),
                    model: "qwen".into(),
                    tool_format: "native".into(),
                    ready: false,
                    hint: Some("Start a model".into()),
                },
                ChatStatus {
                    provider: "p".into(),
                    model: "m".into(),
                    tool_format: "none".into(),
                    ready: true,
                    hint: None,
                },
            ],
        ),
        kind(
            "SessionList",
            &[SessionList {
                sessions: vec![summary.clone(), summary.clone()],
            }],
        ),
        kind("SessionSummary", &[summary]),
        kind(
            "Session",
            &[
                session.clone(),
                Session {
                    reply: None,
                    older: None,
                    messages: vec![],
                    ..session
                },
            ],
        ),
        kind(
            "ReplyStarted",
            &[ReplyStarted {
                reply_id: "r1".into(),
            }],
        ),
        kind(
            "Said",
            &[
                Said::Answer,
                Said::NewRequest {
                    reply_id: "r2".into(),
                },
            ],
        ),
        kind(
            "QuestionList",
            &[QuestionList {
                questions: reasons
                    .iter()
                    .cloned()
                    .map(Some)
                    .chain([None])
                    .map(waiting)
                    .collect(),
            }],
        ),
        kind(
            "Question",
            &reasons
                .iter()
                .cloned()
                .map(Some)
                .chain([None])
                .map(question)
                .collect::<Vec<_>>(),
        ),
        kind(
            "MemoryPage",
            &[MemoryPage {
                memories: vec![
                    memory.clone(),
                    Memory {
                        project: None,
                        tags: vec![],
                        ..memory.clone()
                    },
                ],
                next_cursor: Some("c".into()),
            }],
        ),
        kind("Memory", &[memory]),
        kind(
            "ProjectList",
            &[ProjectList {
                projects: vec![ProjectInfo {
                    name: "Home".into(),
                    count: 3,
                    first_at: "a".into(),
                    last_at: "b".into(),
                }],
            }],
        ),
        kind(
            "MeaningStatus",
            &[
                MeaningStatus {
                    state: MeaningState::Filling,
                    model: Some("minilm".into()),
                    embedded: 3,
                    total: 9,
                    reason: None,
                },
                MeaningStatus {
                    state: MeaningState::Off,
                    model: None,
                    embedded: 0,
                    total: 9,
                    reason: Some(WordsOnly::FileMissing {
                        file: "model.safetensors".into(),
                    }),
                },
            ],
        ),
        kind("Moved", &[Moved { moved: 4 }]),
        kind(
            "ReminderList",
            &[
                ReminderList {
                    reminders: vec![
                        reminder.clone(),
                        Reminder {
                            session_id: None,
                            repeat: None,
                            done: true,
                            ..reminder.clone()
                        },
                    ],
                    unreadable: vec![UnreadableReminder {
                        id: 9,
                        problem: "year 10000".into(),
                    }],
                },
                ReminderList {
                    reminders: vec![],
                    unreadable: vec![],
                },
            ],
        ),
        kind("Reminder", &[reminder]),
        kind(
            "Connections",
            &[Connections {
                current: current.clone(),
                found: vec![FoundServer {
                    provider: "ollama".into(),
                    base_url: "http://127.0.0.1:11434/v1".into(),
                    models: vec!["a".into(), "b".into()],
                    server: "Ollama".into(),
                }],
                presets: vec![Preset {
                    provider: "openai".into(),
                    base_url: "https://api.openai.com/v1".into(),
                    model: "gpt".into(),
                    remote: true,
                }],
                keys: vec![StoredKey {
                    provider: "openai".into(),
                    base_url: "https://api.openai.com/v1".into(),
                    masked: "sk-…abcd".into(),
                }],
            }],
        ),
        kind(
            "CurrentConnection",
            &[
                current.clone(),
                CurrentConnection {
                    key: None,
                    ..current
                },
            ],
        ),
        kind(
            "TestResult",
            &[
                TestResult {
                    ok: true,
                    first_token_ms: Some(120),
                    tool_calls: true,
                    error: None,
                    reply: "Hello".into(),
                    tool_format: "native".into(),
                },
                TestResult {
                    ok: false,
                    first_token_ms: None,
                    tool_calls: false,
                    error: Some("refused".into()),
                    reply: String::new(),
                    tool_format: String::new(),
                },
            ],
        ),
        kind(
            "ModelList",
            &[ModelList {
                ok: true,
                base_url: "http://x/v1".into(),
                models: vec!["m".into()],
                error: Some("e".into()),
            }],
        ),
        kind("()", &[()]),
    ]
}

/// JSON put in place of a field or an element: every type, the protocol's
/// own names among the strings, and objects an enum could be read from.
fn replacement() -> BoxedStrategy<Value> {
    select(vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(1.5),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(4_294_967_296u64),
        json!(""),
        json!("x"),
        json!("user"),
        json!("tool"),
        json!("done"),
        json!("refused"),
        json!("cut_off"),
        json!("waiting"),
        json!("imprint"),
        json!("model"),
        json!("config_file"),
        json!("flag"),
        json!("daily"),
        json!("hourly"),
        json!("filling"),
        json!("no_time"),
        json!("nothing_to_keep"),
        json!("repeated_write"),
        json!("answer"),
        json!("new_request"),
        json!("turned_off"),
        json!("file_missing"),
        json!([]),
        json!({}),
        json!({"extra": 1}),
        json!({"no_time": null}),
        json!({"no_time": {}}),
        json!({"memories_match": {"phrase": "p", "count": 2}}),
        json!({"memories_match": {"phrase": "p"}}),
        json!({"projects_unnamed": {"count": -1}}),
        json!({"already_said": {"option": "o"}}),
        json!({"taken_as": "new_request", "reply_id": "r"}),
        json!({"code": "not_loaded", "error": "e"}),
    ])
    .boxed()
}

/// Field names to add: the types' own, and one no type has.
const FIELDS: &[&str] = &[
    "id",
    "hint",
    "older",
    "reply",
    "ended",
    "error",
    "html",
    "status",
    "row_id",
    "found",
    "reason",
    "why",
    "options",
    "allow_other",
    "expires_at",
    "origin",
    "unreadable",
    "presets",
    "keys",
    "key",
    "server",
    "reply_id",
    "first_token_ms",
    "tool_format",
    "next_cursor",
    "model",
    "tool_args",
    "tool_name",
    "repeat",
    "session_id",
    "question",
    "extra",
];

/// One change to a value: at the node `at` picks (never the value itself:
/// the top is always the answer's object or name), drop it, put `with` in
/// its place, or (in an object) add `field` with `with`.
#[derive(Clone, Debug)]
struct Change {
    at: usize,
    how: u8,
    field: &'static str,
    with: Value,
}

fn change() -> impl Strategy<Value = Change> {
    (any::<usize>(), 0u8..3, select(FIELDS), replacement()).prop_map(|(at, how, field, with)| {
        Change {
            at,
            how,
            field,
            with,
        }
    })
}

/// The paths of the nodes below the top (object keys and list indexes).
fn paths(value: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                prefix.push(Step::Key(key.clone()));
                out.push(prefix.clone());
                paths(inner, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                prefix.push(Step::Index(index));
                out.push(prefix.clone());
                paths(inner, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn apply(value: &mut Value, change: &Change) {
    let mut all = Vec::new();
    paths(value, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return;
    }
    let path = &all[change.at % all.len()];
    let (last, parent_path) = path.split_last().expect("a path below the top");
    let mut parent = &mut *value;
    for step in parent_path {
        parent = match step {
            Step::Key(key) => &mut parent[key.as_str()],
            Step::Index(index) => &mut parent[*index],
        };
    }
    match (change.how, last, parent) {
        (0, Step::Key(key), Value::Object(map)) => {
            map.remove(key);
        }
        (0, Step::Index(index), Value::Array(items)) => {
            items.remove(*index);
        }
        (2, _, Value::Object(map)) => {
            map.insert(change.field.to_string(), change.with.clone());
        }
        (_, Step::Key(key), Value::Object(map)) => {
            map.insert(key.clone(), change.with.clone());
        }
        (_, Step::Index(index), Value::Array(items)) => {
            items[*index] = change.with.clone();
        }
        _ => {}
    }
}

/// Any JSON value, nested a few levels.
fn json_value() -> BoxedStrategy<Value> {
    replacement()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((select(FIELDS), inner), 0..4).prop_map(|entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(key, value)| (key.to_string(), value))
                            .collect(),
                    )
                }),
            ]
        })
        .boxed()
}

#[test]
fn every_sample_reads_back_and_agrees() {
    for kind in kinds() {
        for sample in &kind.samples {
            (kind.agree)(sample).unwrap_or_else(|error| panic!("{}: {error}", kind.name));
        }
    }
}

#[test]
fn a_wrong_answer_names_its_field() {
    let wrong = Session::read(&json!({"id": "s", "title": "t", "created_at": "a",
        "updated_at": "b", "messages": [{"seq": "1"}], "reply": null}))
    .expect_err("a seq is a number");
    assert_eq!(wrong.to_string(), "`seq` is missing or of the wrong type");
    let wrong = Memory::read(&json!([])).expect_err("a memory is an object");
    assert_eq!(wrong.to_string(), "the answer is not of the expected type");
    let wrong = ChatStatus::read(&json!({"provider": "p"})).expect_err("no model");
    assert_eq!(wrong.to_string(), "`model` is missing or of the wrong type");
}

proptest! {
    #![proptest_config(config(384))]

    /// Answers changed at one to four places: each reader takes exactly
    /// what serde takes.
    #[test]
    fn readers_agree_with_serde_on_changed_answers(
        sample in any::<usize>(),
        changes in prop::collection::vec(change(), 1..5),
    ) {
        for kind in kinds() {
            let mut value = kind.samples[sample % kind.samples.len()].clone();
            for change in &changes {
                apply(&mut value, change);
            }
            if let Err(error) = (kind.agree)(&value) {
                return Err(TestCaseError::fail(format!("{}: {error}", kind.name)));
            }
        }
    }

    /// Any JSON value: no reader panics.
    #[test]
    fn readers_never_panic(value in json_value()) {
        for kind in kinds() {
            let _ = (kind.agree)(&value);
        }
    }
}
