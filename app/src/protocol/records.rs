//! What Imprint keeps for the user, on the wire: memories (listed in pages,
//! searched, edited, exported), projects, and reminders (SPEC §4,
//! `/api/memories` and `/api/reminders`).

use serde::{Deserialize, Deserializer, Serialize};

/// A stored memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub id: i64,
    pub content: String,
    pub project: Option<String>,
    pub tags: Vec<String>,
    pub created_at: String,
}

/// `GET /api/memories`: one page, and the cursor of the next (none at the
/// end).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryPage {
    pub memories: Vec<Memory>,
    pub next_cursor: Option<String>,
}

/// The query of `GET /api/memories`: `q` searched as the `search` tool does
/// (FTS5, bm25), `project` a filter, `cursor` from the last page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MemoryListQuery {
    pub q: Option<String>,
    pub project: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<usize>,
}

/// `POST /api/memories`. `id` and `created_at` put a deleted memory back as
/// it was (the page's undo); a new memory gives neither.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryInput {
    pub content: String,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

/// `PATCH /api/memories/{id}`: what is given changes; `project: null` (or
/// blank) leaves the memory in no project.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub project: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}

/// `POST /api/memories/import`'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Imported {
    pub imported: usize,
}

/// A project named by memories: how many, and the first and last times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectInfo {
    pub name: String,
    pub count: u64,
    pub first_at: String,
    pub last_at: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectList {
    pub projects: Vec<ProjectInfo>,
}

/// A project renamed, or merged into another when `to` is already one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectMove {
    pub from: String,
    pub to: String,
}

/// How many memories a project move moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    pub moved: u64,
}

/// How a reminder comes back after it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repeat {
    Daily,
    /// Monday to Friday.
    Weekdays,
    Weekly,
}

impl Repeat {
    pub const ALL: [Repeat; 3] = [Repeat::Daily, Repeat::Weekdays, Repeat::Weekly];

    /// The stored name (the wire name).
    pub fn as_str(self) -> &'static str {
        match self {
            Repeat::Daily => "daily",
            Repeat::Weekdays => "weekdays",
            Repeat::Weekly => "weekly",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reminder {
    pub id: i64,
    pub text: String,
    pub due_at: String,
    pub done: bool,
    pub session_id: Option<String>,
    pub repeat: Option<Repeat>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReminderList {
    pub reminders: Vec<Reminder>,
    /// Stored reminders that cannot be read (a time outside the years
    /// 0000–9999 written by an older version or by hand): left out of
    /// `reminders` and never fired, so they cannot block the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<UnreadableReminder>,
}

/// A stored reminder row that cannot be read, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreadableReminder {
    pub id: i64,
    pub problem: String,
}

/// `GET /api/reminders?status=`: the ones still to come, or the done ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReminderStatus {
    Upcoming,
    Done,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReminderFilter {
    #[serde(default)]
    pub status: Option<ReminderStatus>,
}

/// `POST /api/reminders`: `at` in the grounding grammar ("tomorrow at 9")
/// or ISO 8601.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewReminder {
    pub text: String,
    pub at: String,
    #[serde(default)]
    pub repeat: Option<Repeat>,
}

/// `PATCH /api/reminders/{id}`: what is given changes; `repeat: null`
/// makes it a one-off.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReminderPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<bool>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub repeat: Option<Option<Repeat>>,
}

/// A field that is present, even as `null` (`Some(None)`); absent is `None`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_only_from_value_reads_as_the_derive_reads() {
        for sample in [
            json!({"code": "turned_off"}),
            json!({"code": "turned_off", "file": "x"}),
            json!({"code": "not_set_up"}),
            json!({"code": "file_missing", "file": "model.safetensors"}),
            json!({"code": "file_missing"}),
            json!({"code": "file_missing", "file": 1}),
            json!({"code": "not_loaded", "error": "bad"}),
            json!({"code": "not_loaded", "file": "bad"}),
            json!({"code": "vectors_unreadable", "error": "bad", "extra": [1]}),
            json!({"code": "stopped"}),
            json!({"code": 0}),
            json!({"code": 2, "file": "f"}),
            json!({"code": 5}),
            json!({"code": 6}),
            json!({"code": "other"}),
            json!({"code": null}),
            json!({"error": "bad"}),
            json!({}),
            json!("stopped"),
            json!(null),
        ] {
            let by_serde = serde_json::from_value::<WordsOnly>(sample.clone()).ok();
            assert_eq!(WordsOnly::from_value(&sample), by_serde, "sample: {sample}");
        }
    }

    #[test]
    fn reminders_have_the_spec_shape() {
        let reminder = Reminder {
            id: 1,
            text: "stretch".into(),
            due_at: "2026-12-01T09:00:00.000Z".into(),
            done: false,
            session_id: None,
            repeat: Some(Repeat::Weekdays),
        };
        assert_eq!(
            serde_json::to_value(&reminder).unwrap(),
            json!({"id": 1, "text": "stretch", "due_at": "2026-12-01T09:00:00.000Z",
                   "done": false, "session_id": null, "repeat": "weekdays"})
        );
        for repeat in Repeat::ALL {
            assert_eq!(Repeat::parse(repeat.as_str()), Some(repeat));
            assert_eq!(serde_json::to_value(repeat).unwrap(), repeat.as_str());
        }
        assert_eq!(Repeat::parse("hourly"), None);
    }

    #[test]
    fn a_patch_tells_null_from_absent() {
        let absent: ReminderPatch = serde_json::from_value(json!({"text": "x"})).unwrap();
        assert_eq!(absent.repeat, None);
        let cleared: ReminderPatch = serde_json::from_value(json!({"repeat": null})).unwrap();
        assert_eq!(cleared.repeat, Some(None));
        let set: ReminderPatch = serde_json::from_value(json!({"repeat": "daily"})).unwrap();
        assert_eq!(set.repeat, Some(Some(Repeat::Daily)));
        let memory: MemoryPatch = serde_json::from_value(json!({"project": null})).unwrap();
        assert_eq!(memory.project, Some(None));
        assert_eq!(
            serde_json::to_value(MemoryPatch::default()).unwrap(),
            json!({})
        );
    }

    #[test]
    fn a_page_carries_its_next_cursor() {
        let page = MemoryPage {
            memories: vec![],
            next_cursor: None,
        };
        assert_eq!(
            serde_json::to_value(page).unwrap(),
            json!({"memories": [], "next_cursor": null})
        );
    }
}

/// `GET /api/memories/meaning`: whether memories are found by meaning,
/// and how far the vectors of the memories kept before are filled in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeaningStatus {
    pub state: MeaningState,
    /// The embedding model, when one is set up.
    pub model: Option<String>,
    /// Memories with a vector, and all memories.
    pub embedded: u64,
    pub total: u64,
    /// Why search is by words only, when it is.
    pub reason: Option<WordsOnly>,
}

/// Why memories are found by their words only. The page says it in words.
///
/// The browser reads it with [`WordsOnly::from_value`] (see there why);
/// the server with serde's derive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum WordsOnly {
    /// Turned off by the configuration.
    TurnedOff,
    /// No embedding model is set up.
    NotSetUp,
    /// The model's folder lacks one of its files.
    FileMissing { file: String },
    /// The model could not be loaded, or its thread started.
    NotLoaded { error: String },
    /// The vectors kept with the memories could not be read.
    VectorsUnreadable { error: String },
    /// The model's thread stopped.
    Stopped,
}

impl WordsOnly {
    /// Read from a JSON object as serde's derive reads one (tests hold the
    /// two to it): the code's name under `code`, its
    /// fields beside it, other fields ignored. (The derive would
    /// also read a list; the server never writes one.)
    ///
    /// Why: the derive of a tagged enum buffers the object, which
    /// compiles serde's buffering into the wasm.
    pub fn from_value(value: &serde_json::Value) -> Option<Self> {
        let object = value.as_object()?;
        let text = |key: &str| object.get(key)?.as_str().map(str::to_owned);
        let code = object.get("code")?.as_str()?;
        Some(match code {
            "turned_off" => WordsOnly::TurnedOff,
            "not_set_up" => WordsOnly::NotSetUp,
            "file_missing" => WordsOnly::FileMissing {
                file: text("file")?,
            },
            "not_loaded" => WordsOnly::NotLoaded {
                error: text("error")?,
            },
            "vectors_unreadable" => WordsOnly::VectorsUnreadable {
                error: text("error")?,
            },
            "stopped" => WordsOnly::Stopped,
            _ => return None,
        })
    }
}

/// Where finding by meaning stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeaningState {
    /// No embedding model: search is by words only.
    Off,
    /// The model is loading.
    Loading,
    /// The vectors of memories kept before are being filled in.
    Filling,
    /// Every memory has its vector.
    Ready,
}
