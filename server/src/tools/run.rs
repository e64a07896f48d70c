//! The tools' implementations over the store.

use app::protocol::{CallReason, ToolStatus};
use chrono::{DateTime, Local, Utc};
use serde_json::Value;

use super::{LIST_PROJECTS, REMIND, SEARCH, STORE};
pub use crate::iso8601::parse_date_time;
use crate::memory_lines::memory_fact;
pub use crate::memory_lines::{memories_found, memory_line, MemoryLine};
use crate::store::{Memory, MemoryQuery, NewMemory, Store, StoreError};

/// What a tool call produced.
#[derive(Debug, Default, PartialEq)]
pub struct ToolOutput {
    /// What became of the call (`tool_result`'s `status`); an `error`
    /// output is `failed` whatever this says.
    pub status: ToolStatus,
    /// The result as the model reads it.
    pub text: String,
    /// Keys of the facts the result carries (for the no-progress rule).
    pub facts: Vec<String>,
    /// The call wrote something (a memory or a reminder).
    pub wrote: bool,
    /// The call failed (bad arguments, unknown tool).
    pub error: bool,
    /// The memory or reminder a write made.
    pub row_id: Option<i64>,
    /// How many memories or projects a read found.
    pub found: Option<u64>,
    /// Why a call did nothing (refused, repeated, not asked, failed), in
    /// the user's terms: stored with the step and shown when its activity
    /// line is opened.
    pub reason: Option<CallReason>,
}

impl ToolOutput {
    fn error(message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            text: format!("Error: {message}"),
            error: true,
            status: ToolStatus::Failed,
            reason: Some(CallReason::CouldNotRun { error: message }),
            ..Self::default()
        }
    }

    /// A call that did nothing: `text` for the model, `reason` for the user.
    pub fn not_run(status: ToolStatus, text: impl Into<String>, reason: CallReason) -> Self {
        Self {
            text: text.into(),
            status,
            error: status == ToolStatus::Failed,
            reason: Some(reason),
            ..Self::default()
        }
    }

    /// The call's status as the page reads it.
    pub fn outcome(&self) -> ToolStatus {
        if self.error {
            ToolStatus::Failed
        } else {
            self.status
        }
    }
}

/// Where a tool runs: the store, the session it writes for, and a way to
/// tell the reminder timer a reminder was added.
pub struct ToolEnv<'a> {
    pub store: &'a Store,
    pub session_id: Option<&'a str>,
    pub reminder_added: &'a (dyn Fn() + Send + Sync),
    /// "Now", for a time without an offset and the past-time check.
    pub now: DateTime<Local>,
}

/// Runs one call. Bad arguments and store errors become error results the
/// model can read and correct; nothing here fails the reply.
pub async fn run_tool(env: &ToolEnv<'_>, name: &str, args: &Value) -> ToolOutput {
    if !args.is_object() {
        return ToolOutput::error("the arguments must be a JSON object");
    }
    let result = match name {
        SEARCH => search(env, args).await,
        LIST_PROJECTS => list_projects(env).await,
        STORE => store(env, args).await,
        REMIND => remind(env, args).await,
        other => return ToolOutput::error(format!("there is no tool named `{other}` here")),
    };
    result.unwrap_or_else(|e| match e {
        StoreError::Invalid(message) => ToolOutput::error(message),
        other => {
            tracing::error!(error = %other, tool = name, "tool failed");
            ToolOutput::error("the memory store failed; try again")
        }
    })
}

fn text_arg(args: &Value, key: &str) -> Option<String> {
    match args.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// True when every word of the query names the user's memories in
/// general, not what is in them ("notes", "all my memories", "*"): such a
/// query matches no memory by its words, so it lists the newest ones that
/// pass the filters.
pub fn is_generic_query(query: &str) -> bool {
    let words: Vec<String> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '*'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    !words.is_empty()
        && words.iter().all(|w| {
            w == "*"
                || crate::common_words::is_function_word(w)
                || crate::common_words::is_kept_thing(w)
        })
}

async fn search(env: &ToolEnv<'_>, args: &Value) -> Result<ToolOutput, StoreError> {
    let Some(asked) = text_arg(args, "query") else {
        return Ok(ToolOutput::error("search needs a `query`"));
    };
    // An empty query lists the newest memories that pass the filters.
    let generic = is_generic_query(&asked);
    let query = if generic { String::new() } else { asked };
    let limit = args
        .get("limit")
        .and_then(|v| {
            v.as_u64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .map(|n| n.clamp(1, 50) as usize);
    let hits = env
        .store
        .search_memories(MemoryQuery {
            query: query.clone(),
            project: text_arg(args, "project"),
            since: text_arg(args, "since"),
            until: text_arg(args, "until"),
            limit,
        })
        .await?;
    if hits.is_empty() {
        return Ok(ToolOutput {
            text: if generic {
                "No memories pass these filters.".to_string()
            } else {
                format!("No memories match \"{query}\".")
            },
            found: Some(0),
            ..ToolOutput::default()
        });
    }
    let text = if generic {
        format!("{} (the newest first):", memories_found(hits.len()))
    } else {
        format!("{}:", memories_found(hits.len()))
    };
    Ok(found_memories(text, &hits))
}

/// A search's output: `heading`, then each memory as the model reads it.
pub fn found_memories(heading: String, hits: &[Memory]) -> ToolOutput {
    let mut text = heading;
    for hit in hits {
        text.push('\n');
        text.push_str(&memory_line(hit));
    }
    ToolOutput {
        found: Some(hits.len() as u64),
        text,
        facts: hits.iter().map(|hit| memory_fact(hit.id)).collect(),
        ..ToolOutput::default()
    }
}

async fn list_projects(env: &ToolEnv<'_>) -> Result<ToolOutput, StoreError> {
    let projects = env.store.list_projects().await?;
    if projects.is_empty() {
        return Ok(ToolOutput {
            text: "There are no projects yet.".into(),
            found: Some(0),
            ..ToolOutput::default()
        });
    }
    let mut text = String::from("Projects:");
    let mut facts = Vec::new();
    for p in &projects {
        text.push_str(&format!(
            "\n- {} ({} memories, {} to {})",
            p.name,
            p.count,
            p.first_at.get(..10).unwrap_or(&p.first_at),
            p.last_at.get(..10).unwrap_or(&p.last_at)
        ));
        facts.push(format!("project:{}:{}", p.name, p.count));
    }
    Ok(ToolOutput {
        found: Some(projects.len() as u64),
        text,
        facts,
        ..ToolOutput::default()
    })
}

async fn store(env: &ToolEnv<'_>, args: &Value) -> Result<ToolOutput, StoreError> {
    let Some(content) = text_arg(args, "content") else {
        return Ok(ToolOutput::error("store needs the `content` to remember"));
    };
    let tags = match args.get("tags") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|t| t.as_str().map(|s| s.trim().to_string()))
            .filter(|t| !t.is_empty())
            .collect(),
        Some(Value::String(s)) => super::lists::split_list(s),
        _ => Vec::new(),
    };
    let memory = env
        .store
        .add_memory(NewMemory {
            content,
            project: text_arg(args, "project"),
            tags,
            created_at: None,
        })
        .await?;
    Ok(ToolOutput {
        text: format!(
            "Stored memory #{}{}.",
            memory.id,
            memory
                .project
                .as_deref()
                .map(|p| format!(" in project {p}"))
                .unwrap_or_default()
        ),
        facts: vec![format!("memory:{}", memory.id)],
        wrote: true,
        row_id: Some(memory.id),
        ..ToolOutput::default()
    })
}

async fn remind(env: &ToolEnv<'_>, args: &Value) -> Result<ToolOutput, StoreError> {
    let Some(text) = text_arg(args, "text") else {
        return Ok(ToolOutput::error("remind needs the `text` of the reminder"));
    };
    let Some(at) = text_arg(args, "at") else {
        return Ok(ToolOutput::error("remind needs `at`, the date and time"));
    };
    let now = env.now;
    let due = match parse_date_time(&at, now) {
        Ok(due) => due,
        Err(message) => return Ok(ToolOutput::error(message)),
    };
    if due <= now.with_timezone(&Utc) {
        return Ok(ToolOutput::error(format!("{at} has already passed")));
    }
    // Optional: "daily", "weekdays" or "weekly" (not yet in the schema the
    // model sees; grounding decides when to offer it).
    let repeat = match text_arg(args, "repeat") {
        None => None,
        Some(name) => match app::protocol::Repeat::parse(&name.to_lowercase()) {
            Some(repeat) => Some(repeat),
            None => {
                return Ok(ToolOutput::error(format!(
                    "`repeat` must be daily, weekdays or weekly, not {name:?}"
                )))
            }
        },
    };
    let reminder = env
        .store
        .add_reminder_repeating(text, due, env.session_id.map(str::to_string), repeat)
        .await?;
    (env.reminder_added)();
    Ok(ToolOutput {
        text: format!(
            "Reminder #{} set for {}: {}",
            reminder.id,
            due.with_timezone(&Local).format("%A %Y-%m-%d %H:%M"),
            reminder.text
        ),
        facts: vec![format!("reminder:{}", reminder.id)],
        wrote: true,
        row_id: Some(reminder.id),
        ..ToolOutput::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(store: &Store) -> ToolEnv<'_> {
        ToolEnv {
            store,
            session_id: None,
            reminder_added: &|| {},
            now: Local::now(),
        }
    }

    #[test]
    fn a_memory_line_reads_back_whatever_its_project_is_called() {
        let memory = |project: Option<&str>| Memory {
            id: 42,
            content: "Budget: 400 EUR (draft), not final".into(),
            project: project.map(str::to_string),
            tags: Vec::new(),
            created_at: "2026-11-16T09:30:00Z".into(),
        };
        for project in [None, Some("Thesis"), Some("Q3 (draft), Berlin")] {
            let line = memory_line(&memory(project));
            assert_eq!(
                MemoryLine::read(&line),
                Some(MemoryLine {
                    id: 42,
                    project,
                    day: "2026-11-16",
                    content: "Budget: 400 EUR (draft), not final",
                }),
                "{line}"
            );
        }
        assert_eq!(MemoryLine::read("2 memories found:"), None);
        assert_eq!(MemoryLine::read("[x] (Thesis, 2026-11-16) y"), None);
        assert_eq!(MemoryLine::read("[1] (Thesis, someday) y"), None);
    }

    #[tokio::test]
    async fn search_finds_stored_memories_and_reports_facts() {
        let store = Store::open_in_memory().unwrap();
        let env = env(&store);
        let stored = run_tool(
            &env,
            STORE,
            &json!({"content": "Anna likes green tea", "project": "Home"}),
        )
        .await;
        assert!(stored.wrote && !stored.error, "{stored:?}");
        let found = run_tool(&env, SEARCH, &json!({"query": "tea"})).await;
        assert!(
            found.text.contains("Anna likes green tea"),
            "{}",
            found.text
        );
        assert_eq!(found.facts.len(), 1);
        let none = run_tool(&env, SEARCH, &json!({"query": "coffee"})).await;
        assert!(none.text.starts_with("No memories") && none.facts.is_empty());
        let projects = run_tool(&env, LIST_PROJECTS, &json!({})).await;
        assert!(
            projects.text.contains("Home (1 memories"),
            "{}",
            projects.text
        );
    }

    #[tokio::test]
    async fn a_query_of_only_generic_words_lists_the_filtered_memories_newest_first() {
        let store = Store::open_in_memory().unwrap();
        let env = env(&store);
        for (content, project, day) in [
            ("Invoice template agreed", "Billing", "2026-11-03"),
            ("Old billing idea", "Billing", "2026-10-20"),
            ("Tax rates for 2027", "Billing", "2026-11-20"),
            ("Garden plan", "Home", "2026-11-10"),
        ] {
            store
                .add_memory(NewMemory {
                    content: content.into(),
                    project: Some(project.into()),
                    tags: Vec::new(),
                    created_at: Some(day.into()),
                })
                .await
                .unwrap();
        }
        for query in ["notes", "Memories", "everything", "all my notes"] {
            let found = run_tool(
                &env,
                SEARCH,
                &json!({"query": query, "project": "Billing", "since": "2026-11-01"}),
            )
            .await;
            assert_eq!(found.found, Some(2), "{query}: {}", found.text);
            let tax = found.text.find("Tax rates").unwrap();
            let invoice = found.text.find("Invoice template").unwrap();
            assert!(tax < invoice, "newest first: {}", found.text);
            assert!(!found.text.contains("Old billing") && !found.text.contains("Garden"));
        }
        // A real word still searches by it.
        let found = run_tool(&env, SEARCH, &json!({"query": "garden notes"})).await;
        assert_eq!(found.found, Some(1), "{}", found.text);
        let none = run_tool(
            &env,
            SEARCH,
            &json!({"query": "notes", "project": "Home", "since": "2026-11-20"}),
        )
        .await;
        assert_eq!(none.found, Some(0));
        assert!(!is_generic_query("invoice") && !is_generic_query("  "));
    }

    #[tokio::test]
    async fn writes_report_the_row_they_made() {
        let store = Store::open_in_memory().unwrap();
        let env = env(&store);
        let stored = run_tool(&env, STORE, &json!({"content": "Anna likes tea"})).await;
        let id = stored.row_id.expect("a memory id");
        let found = run_tool(&env, SEARCH, &json!({"query": "tea"})).await;
        assert!(found.text.contains(&format!("[{id}]")), "{}", found.text);
        let reminded = run_tool(
            &env,
            REMIND,
            &json!({"text": "call Anna", "at": "2099-05-01T09:30:00Z"}),
        )
        .await;
        let reminders = store.list_reminders().await.unwrap();
        assert_eq!(reminded.row_id, Some(reminders[0].id));
    }

    #[tokio::test]
    async fn bad_arguments_become_errors_for_the_model() {
        let store = Store::open_in_memory().unwrap();
        let env = env(&store);
        assert!(run_tool(&env, SEARCH, &json!({})).await.error);
        assert!(run_tool(&env, SEARCH, &json!("tea")).await.error);
        assert!(run_tool(&env, "delete_everything", &json!({})).await.error);
        let r = run_tool(&env, REMIND, &json!({"text": "x", "at": "sometime"})).await;
        assert!(r.error && r.text.contains("ISO 8601"));
        let r = run_tool(
            &env,
            REMIND,
            &json!({"text": "x", "at": "2001-01-01T09:00"}),
        )
        .await;
        assert!(r.error && r.text.contains("passed"));
    }

    #[tokio::test]
    async fn remind_stores_a_future_reminder_and_wakes_the_timer() {
        let store = Store::open_in_memory().unwrap();
        let woken = std::sync::atomic::AtomicBool::new(false);
        let wake = || woken.store(true, std::sync::atomic::Ordering::SeqCst);
        let env = ToolEnv {
            store: &store,
            session_id: None,
            reminder_added: &wake,
            now: Local::now(),
        };
        let r = run_tool(
            &env,
            REMIND,
            &json!({"text": "call Anna", "at": "2099-05-01T09:30:00Z"}),
        )
        .await;
        assert!(r.wrote && !r.error, "{r:?}");
        assert!(woken.load(std::sync::atomic::Ordering::SeqCst));
        let reminders = store.list_reminders().await.unwrap();
        assert_eq!(reminders.len(), 1);
        assert!(reminders[0].due_at.starts_with("2099-05-01T09:30"));
    }

    #[test]
    fn date_times_with_and_without_offsets_parse() {
        let now = Local::now();
        let utc = parse_date_time("2030-01-02T03:04:05Z", now).unwrap();
        assert_eq!(utc.to_rfc3339(), "2030-01-02T03:04:05+00:00");
        let local = parse_date_time("2030-01-02T03:04", now).unwrap();
        assert_eq!(
            local.with_timezone(&Local).format("%H:%M").to_string(),
            "03:04"
        );
        assert!(parse_date_time("tomorrow", now).is_err());
    }
}
