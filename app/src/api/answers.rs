//! The server functions' answers (and the wire's enums and reasons), read
//! by hand from one parsed JSON [`Value`]: [`Answer::read`].
//!
//! Why: serde's derived `Deserialize` is generic over the deserializer, so
//! every answer type compiled serde's visitors, `MapAccess` and error
//! paths once more into the wasm (about 100 KB for the dashboard's 30-odd
//! types). A reader here is a few field look-ups. Each accepts exactly
//! what the derive accepts from a JSON object, and refuses what it refuses
//! (`tests/answer_properties.rs` holds the two to it), except for shapes
//! the server never writes: a struct written as a list of its fields, a
//! unit enum written as an object (`{"done": null}`); those are refused.
//! The wire is the one of [`crate::protocol`], defined there once.

use std::fmt;

use serde_json::{Map, Value};

use crate::protocol::{
    CallReason, ChatStatus, Connections, CurrentConnection, Ended, FoundServer, IgnoredReason,
    KeyShown, MeaningState, MeaningStatus, Memory, MemoryPage, Message, ModelList, Moved, Preset,
    ProjectInfo, ProjectList, Question, QuestionList, QuestionOrigin, QuestionReason, Reminder,
    ReminderList, Repeat, ReplyPhase, ReplyStarted, ReplyState, Role, Said, Session, SessionList,
    SessionSummary, SettingSource, Sources, StoredKey, TestResult, ToolStatus, UnansweredReason,
    UnreadableReminder, WaitingQuestion, WordsOnly,
};

/// A type read from a JSON value as serde's derive reads it.
pub trait Answer: Sized {
    /// The value read, or which field was wrong.
    fn read(value: &Value) -> Result<Self, Wrong>;

    /// What an absent field reads as: `None` for an `Option` (as serde's
    /// derive reads one), else nothing (the field is missing).
    fn absent() -> Option<Self> {
        None
    }
}

/// Why an answer could not be read: the field that was missing or of
/// another type (the innermost one), or none when the value itself was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrong {
    field: &'static str,
}

impl Wrong {
    /// The value read is not of the type asked for.
    pub const SHAPE: Wrong = Wrong { field: "" };

    /// The field named, unless a field inside it is already named.
    fn at(self, field: &'static str) -> Self {
        if self.field.is_empty() {
            Wrong { field }
        } else {
            self
        }
    }
}

impl fmt::Display for Wrong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str("the answer is not of the expected type")
        } else {
            f.write_str("`")?;
            f.write_str(self.field)?;
            f.write_str("` is missing or of the wrong type")
        }
    }
}

/// The fields of a JSON object, read one by one.
pub struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    /// The object `value` is (a struct is read only from an object).
    pub fn of(value: &'a Value) -> Result<Self, Wrong> {
        value.as_object().map(Fields).ok_or(Wrong::SHAPE)
    }

    /// A field as serde's derive reads it: required, unless an `Option`.
    pub fn get<T: Answer>(&self, key: &'static str) -> Result<T, Wrong> {
        match self.0.get(key) {
            Some(value) => T::read(value).map_err(|wrong| wrong.at(key)),
            None => T::absent().ok_or(Wrong { field: key }),
        }
    }

    /// A `#[serde(default)]` field: absent is the default.
    pub fn or_default<T: Answer + Default>(&self, key: &'static str) -> Result<T, Wrong> {
        match self.0.get(key) {
            Some(value) => T::read(value).map_err(|wrong| wrong.at(key)),
            None => Ok(T::default()),
        }
    }
}

impl Answer for String {
    fn read(value: &Value) -> Result<Self, Wrong> {
        value.as_str().map(str::to_owned).ok_or(Wrong::SHAPE)
    }
}

impl Answer for bool {
    fn read(value: &Value) -> Result<Self, Wrong> {
        value.as_bool().ok_or(Wrong::SHAPE)
    }
}

impl Answer for u64 {
    fn read(value: &Value) -> Result<Self, Wrong> {
        value.as_u64().ok_or(Wrong::SHAPE)
    }
}

impl Answer for i64 {
    fn read(value: &Value) -> Result<Self, Wrong> {
        value.as_i64().ok_or(Wrong::SHAPE)
    }
}

impl Answer for usize {
    fn read(value: &Value) -> Result<Self, Wrong> {
        usize::try_from(u64::read(value)?).map_err(|_| Wrong::SHAPE)
    }
}

impl Answer for u16 {
    fn read(value: &Value) -> Result<Self, Wrong> {
        u16::try_from(u64::read(value)?).map_err(|_| Wrong::SHAPE)
    }
}

impl Answer for f64 {
    fn read(value: &Value) -> Result<Self, Wrong> {
        value.as_f64().ok_or(Wrong::SHAPE)
    }
}

/// Any JSON (a tool call's arguments).
impl Answer for Value {
    fn read(value: &Value) -> Result<Self, Wrong> {
        Ok(value.clone())
    }
}

/// `null`: the answer of a call that returns nothing.
impl Answer for () {
    fn read(value: &Value) -> Result<Self, Wrong> {
        value.is_null().then_some(()).ok_or(Wrong::SHAPE)
    }
}

/// `null` or absent is `None`.
impl<T: Answer> Answer for Option<T> {
    fn read(value: &Value) -> Result<Self, Wrong> {
        match value {
            Value::Null => Ok(None),
            value => T::read(value).map(Some),
        }
    }

    fn absent() -> Option<Self> {
        Some(None)
    }
}

impl<T: Answer> Answer for Vec<T> {
    fn read(value: &Value) -> Result<Self, Wrong> {
        value
            .as_array()
            .ok_or(Wrong::SHAPE)?
            .iter()
            .map(T::read)
            .collect()
    }
}

/// A unit enum, by its wire name (a string; serde would also take
/// `{"name": null}`, which the server never writes).
fn named<T>(value: &Value, parse: fn(&str) -> Option<T>) -> Result<T, Wrong> {
    value.as_str().and_then(parse).ok_or(Wrong::SHAPE)
}

impl Answer for Role {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, |name| match name {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" => Some(Role::Tool),
            _ => None,
        })
    }
}

impl Answer for Ended {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, Ended::parse)
    }
}

impl Answer for ToolStatus {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, ToolStatus::parse)
    }
}

impl Answer for Repeat {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, Repeat::parse)
    }
}

impl Answer for ReplyPhase {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, |name| match name {
            "writing" => Some(ReplyPhase::Writing),
            "waiting" => Some(ReplyPhase::Waiting),
            _ => None,
        })
    }
}

impl Answer for QuestionOrigin {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, |name| match name {
            "model" => Some(QuestionOrigin::Model),
            "imprint" => Some(QuestionOrigin::Imprint),
            _ => None,
        })
    }
}

impl Answer for UnansweredReason {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, |name| match name {
            "timed_out" | "timeout" => Some(UnansweredReason::TimedOut),
            "stopped" => Some(UnansweredReason::Stopped),
            "left_to_imprint" => Some(UnansweredReason::LeftToImprint),
            _ => None,
        })
    }
}

impl Answer for IgnoredReason {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, |name| {
            Some(match name {
                "noise" => IgnoredReason::Noise,
                "echo" => IgnoredReason::Echo,
                "queue_full" => IgnoredReason::QueueFull,
                "frame_too_large" => IgnoredReason::FrameTooLarge,
                "audio_too_long" => IgnoredReason::AudioTooLong,
                "audio_backlog" => IgnoredReason::AudioBacklog,
                "busy" => IgnoredReason::Busy,
                "not_an_answer" => IgnoredReason::NotAnAnswer,
                _ => return None,
            })
        })
    }
}

impl Answer for MeaningState {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, |name| match name {
            "off" => Some(MeaningState::Off),
            "loading" => Some(MeaningState::Loading),
            "filling" => Some(MeaningState::Filling),
            "ready" => Some(MeaningState::Ready),
            _ => None,
        })
    }
}

impl Answer for SettingSource {
    fn read(value: &Value) -> Result<Self, Wrong> {
        named(value, |name| match name {
            "flag" => Some(SettingSource::Flag),
            "environment" => Some(SettingSource::Environment),
            "page" => Some(SettingSource::Page),
            "config_file" => Some(SettingSource::ConfigFile),
            "default" => Some(SettingSource::Default),
            _ => None,
        })
    }
}

impl Answer for CallReason {
    fn read(value: &Value) -> Result<Self, Wrong> {
        CallReason::from_value(value).ok_or(Wrong::SHAPE)
    }
}

impl Answer for WordsOnly {
    fn read(value: &Value) -> Result<Self, Wrong> {
        WordsOnly::from_value(value).ok_or(Wrong::SHAPE)
    }
}

impl Answer for Said {
    fn read(value: &Value) -> Result<Self, Wrong> {
        Said::from_value(value).ok_or(Wrong::SHAPE)
    }
}

/// Externally tagged, as serde writes it: a reason with no data is its
/// name; one with data is an object of one entry, its name over its fields.
impl Answer for QuestionReason {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let unit = |name: &str| {
            Some(match name {
                "no_time" => QuestionReason::NoTime,
                "detail_not_given" => QuestionReason::DetailNotGiven,
                "nothing_to_keep" => QuestionReason::NothingToKeep,
                "nothing_to_remind_of" => QuestionReason::NothingToRemindOf,
                _ => return None,
            })
        };
        if let Some(name) = value.as_str() {
            return unit(name).ok_or(Wrong::SHAPE);
        }
        let object = value.as_object().ok_or(Wrong::SHAPE)?;
        let (name, inner) = match object.iter().next() {
            Some(entry) if object.len() == 1 => entry,
            _ => return Err(Wrong::SHAPE),
        };
        if let Some(unit) = unit(name) {
            return inner.is_null().then_some(unit).ok_or(Wrong::SHAPE);
        }
        let f = Fields::of(inner)?;
        Ok(match name.as_str() {
            "day_or_month_first" => QuestionReason::DayOrMonthFirst {
                written: f.get("written")?,
            },
            "zone_unread" => QuestionReason::ZoneUnread { why: f.get("why")? },
            "no_time_of_day" => QuestionReason::NoTimeOfDay { day: f.get("day")? },
            "projects_unnamed" => QuestionReason::ProjectsUnnamed {
                count: f.get("count")?,
            },
            "memories_match" => QuestionReason::MemoriesMatch {
                phrase: f.get("phrase")?,
                count: f.get("count")?,
            },
            "on_several_days" => QuestionReason::OnSeveralDays {
                phrase: f.get("phrase")?,
                count: f.get("count")?,
            },
            _ => return Err(Wrong::SHAPE),
        })
    }
}

impl Answer for Question {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Question {
            id: f.get("id")?,
            question: f.get("question")?,
            options: f.or_default("options")?,
            allow_other: match f.0.get("allow_other") {
                None => true,
                Some(value) => bool::read(value).map_err(|w| w.at("allow_other"))?,
            },
            expires_at: f.get("expires_at")?,
            origin: f.or_default("origin")?,
            reason: f.get("reason")?,
            why: f.get("why")?,
        })
    }
}

impl Answer for ChatStatus {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(ChatStatus {
            provider: f.get("provider")?,
            model: f.get("model")?,
            tool_format: f.get("tool_format")?,
            ready: f.get("ready")?,
            hint: f.get("hint")?,
        })
    }
}

impl Answer for SessionSummary {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(SessionSummary {
            id: f.get("id")?,
            title: f.get("title")?,
            created_at: f.get("created_at")?,
            updated_at: f.get("updated_at")?,
            message_count: f.get("message_count")?,
            waiting: f.get("waiting")?,
        })
    }
}

impl Answer for SessionList {
    fn read(value: &Value) -> Result<Self, Wrong> {
        Ok(SessionList {
            sessions: Fields::of(value)?.get("sessions")?,
        })
    }
}

impl Answer for Message {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Message {
            seq: f.get("seq")?,
            role: f.get("role")?,
            content: f.get("content")?,
            tool_name: f.get("tool_name")?,
            tool_args: f.get("tool_args")?,
            created_at: f.get("created_at")?,
            ended: f.get("ended")?,
            error: f.get("error")?,
            html: f.get("html")?,
            status: f.get("status")?,
            row_id: f.get("row_id")?,
            found: f.get("found")?,
            reason: f.get("reason")?,
        })
    }
}

impl Answer for ReplyState {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(ReplyState {
            id: f.get("id")?,
            state: f.get("state")?,
            question: f.get("question")?,
        })
    }
}

impl Answer for Session {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Session {
            id: f.get("id")?,
            title: f.get("title")?,
            created_at: f.get("created_at")?,
            updated_at: f.get("updated_at")?,
            messages: f.get("messages")?,
            reply: f.get("reply")?,
            older: f.get("older")?,
        })
    }
}

impl Answer for ReplyStarted {
    fn read(value: &Value) -> Result<Self, Wrong> {
        Ok(ReplyStarted {
            reply_id: Fields::of(value)?.get("reply_id")?,
        })
    }
}

impl Answer for WaitingQuestion {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(WaitingQuestion {
            session_id: f.get("session_id")?,
            session_title: f.get("session_title")?,
            id: f.get("id")?,
            question: f.get("question")?,
            options: f.get("options")?,
            allow_other: f.get("allow_other")?,
            origin: f.get("origin")?,
            expires_at: f.get("expires_at")?,
            reason: f.get("reason")?,
            why: f.get("why")?,
        })
    }
}

impl Answer for QuestionList {
    fn read(value: &Value) -> Result<Self, Wrong> {
        Ok(QuestionList {
            questions: Fields::of(value)?.get("questions")?,
        })
    }
}

impl Answer for Memory {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Memory {
            id: f.get("id")?,
            content: f.get("content")?,
            project: f.get("project")?,
            tags: f.get("tags")?,
            created_at: f.get("created_at")?,
        })
    }
}

impl Answer for MemoryPage {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(MemoryPage {
            memories: f.get("memories")?,
            next_cursor: f.get("next_cursor")?,
        })
    }
}

impl Answer for ProjectInfo {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(ProjectInfo {
            name: f.get("name")?,
            count: f.get("count")?,
            first_at: f.get("first_at")?,
            last_at: f.get("last_at")?,
        })
    }
}

impl Answer for ProjectList {
    fn read(value: &Value) -> Result<Self, Wrong> {
        Ok(ProjectList {
            projects: Fields::of(value)?.get("projects")?,
        })
    }
}

impl Answer for Moved {
    fn read(value: &Value) -> Result<Self, Wrong> {
        Ok(Moved {
            moved: Fields::of(value)?.get("moved")?,
        })
    }
}

impl Answer for MeaningStatus {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(MeaningStatus {
            state: f.get("state")?,
            model: f.get("model")?,
            embedded: f.get("embedded")?,
            total: f.get("total")?,
            reason: f.get("reason")?,
        })
    }
}

impl Answer for Reminder {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Reminder {
            id: f.get("id")?,
            text: f.get("text")?,
            due_at: f.get("due_at")?,
            done: f.get("done")?,
            session_id: f.get("session_id")?,
            repeat: f.get("repeat")?,
        })
    }
}

impl Answer for UnreadableReminder {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(UnreadableReminder {
            id: f.get("id")?,
            problem: f.get("problem")?,
        })
    }
}

impl Answer for ReminderList {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(ReminderList {
            reminders: f.get("reminders")?,
            unreadable: f.or_default("unreadable")?,
        })
    }
}

impl Answer for Sources {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Sources {
            provider: f.get("provider")?,
            base_url: f.get("base_url")?,
            model: f.get("model")?,
            tool_format: f.get("tool_format")?,
            turns: f.get("turns")?,
        })
    }
}

impl Answer for KeyShown {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(KeyShown {
            masked: f.get("masked")?,
            source: f.get("source")?,
        })
    }
}

impl Answer for CurrentConnection {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(CurrentConnection {
            provider: f.get("provider")?,
            base_url: f.get("base_url")?,
            model: f.get("model")?,
            tool_format: f.get("tool_format")?,
            source: f.get("source")?,
            sources: f.get("sources")?,
            key: f.get("key")?,
            turns: f.get("turns")?,
        })
    }
}

impl Answer for FoundServer {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(FoundServer {
            provider: f.get("provider")?,
            base_url: f.get("base_url")?,
            models: f.get("models")?,
            server: f.or_default("server")?,
        })
    }
}

impl Answer for Preset {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Preset {
            provider: f.get("provider")?,
            base_url: f.get("base_url")?,
            model: f.get("model")?,
            remote: f.get("remote")?,
        })
    }
}

impl Answer for StoredKey {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(StoredKey {
            provider: f.get("provider")?,
            base_url: f.get("base_url")?,
            masked: f.get("masked")?,
        })
    }
}

impl Answer for Connections {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(Connections {
            current: f.get("current")?,
            found: f.get("found")?,
            presets: f.or_default("presets")?,
            keys: f.or_default("keys")?,
        })
    }
}

impl Answer for TestResult {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(TestResult {
            ok: f.get("ok")?,
            first_token_ms: f.get("first_token_ms")?,
            tool_calls: f.get("tool_calls")?,
            error: f.get("error")?,
            reply: f.or_default("reply")?,
            tool_format: f.or_default("tool_format")?,
        })
    }
}

impl Answer for ModelList {
    fn read(value: &Value) -> Result<Self, Wrong> {
        let f = Fields::of(value)?;
        Ok(ModelList {
            ok: f.get("ok")?,
            base_url: f.get("base_url")?,
            models: f.get("models")?,
            error: f.get("error")?,
        })
    }
}
