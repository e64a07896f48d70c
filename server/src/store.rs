//! Imprint's durable store: sessions and their messages, memories (with an
//! FTS5 index), and reminders, in one SQLite database.
//!
//! rusqlite is blocking, so the [`Store`] owns one dedicated OS thread that
//! holds the only `Connection`. Async callers send closures to it over a
//! channel and await the answer on a `tokio::sync::oneshot`, so SQLite is
//! never touched on the async runtime. `Store` is a cheap `Clone + Send +
//! Sync` handle; when the last handle is dropped the thread ends and the
//! connection closes.
//!
//! Every time stored is an RFC 3339 UTC string with millisecond precision
//! (`2024-05-01T09:30:00.000Z`), so that text order is time order.

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use app::protocol::{Message, Reminder, Role, SessionSummary};
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use rusqlite::types::Type;
use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

/// The title of a session that has not been named yet.
pub const DEFAULT_TITLE: &str = "New chat";
/// The channel of a session created without one.
pub const DEFAULT_CHANNEL: &str = "chat";
/// Titles are cut to this many characters.
pub const TITLE_MAX_CHARS: usize = 60;
/// `search_memories` returns this many hits when no limit is given.
pub const DEFAULT_SEARCH_LIMIT: usize = 10;
/// `search_memories` never returns more than this many hits.
pub const MAX_SEARCH_LIMIT: usize = 50;
/// At most this many words of a search query are used.
const MAX_QUERY_TERMS: usize = 32;
/// How long a statement waits for a lock held by another connection.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema, one step per entry, applied in order at open. The database's
/// `PRAGMA user_version` is the number of steps already applied. Never edit a
/// released step: append a new one.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY NOT NULL,
    title      TEXT NOT NULL,
    channel    TEXT NOT NULL DEFAULT 'chat',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX sessions_by_activity ON sessions (updated_at DESC, created_at DESC);

CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content    TEXT NOT NULL,
    tool_name  TEXT,
    tool_args  TEXT,
    stopped    INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE memories (
    id         INTEGER PRIMARY KEY,
    content    TEXT NOT NULL,
    project    TEXT,
    tags       TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
);
CREATE INDEX memories_by_project ON memories (project, created_at);
CREATE INDEX memories_by_time ON memories (created_at);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, project, tags,
    content = 'memories',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content, project, tags)
    VALUES (new.id, new.content, new.project, new.tags);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, project, tags)
    VALUES ('delete', old.id, old.content, old.project, old.tags);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, project, tags)
    VALUES ('delete', old.id, old.content, old.project, old.tags);
    INSERT INTO memories_fts (rowid, content, project, tags)
    VALUES (new.id, new.content, new.project, new.tags);
END;

CREATE TABLE reminders (
    id         INTEGER PRIMARY KEY,
    text       TEXT NOT NULL,
    due_at     TEXT NOT NULL,
    session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    done       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX reminders_pending ON reminders (done, due_at);
CREATE INDEX reminders_by_session ON reminders (session_id);
"#];

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The store's thread is gone (or a closure sent to it panicked).
    #[error("the store is closed")]
    Closed,
    /// Bad input; the message names what is wrong.
    #[error("{0}")]
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> StoreError {
    StoreError::Invalid(msg.into())
}

/// A message to append to a session.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMessage {
    pub role: Role,
    pub content: String,
    pub tool_name: Option<String>,
    pub tool_args: Option<Value>,
    /// True for an assistant message cut short by a stop.
    pub stopped: bool,
}

impl NewMessage {
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }

    /// A tool row: its name, its arguments and (as content) its result.
    pub fn tool(name: impl Into<String>, args: Value, content: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            content: content.into(),
            tool_name: Some(name.into()),
            tool_args: Some(args),
            stopped: false,
        }
    }

    fn plain(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_name: None,
            tool_args: None,
            stopped: false,
        }
    }
}

/// A memory to store. `created_at`, when given, is RFC 3339 or a plain
/// `YYYY-MM-DD` date (midnight UTC); it defaults to now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewMemory {
    pub content: String,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub created_at: Option<String>,
}

/// A stored memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub id: i64,
    pub content: String,
    pub project: Option<String>,
    pub tags: Vec<String>,
    pub created_at: String,
}

/// One result of [`Store::search_memories`], best first.
pub type MemoryHit = Memory;

/// A memory search. `query` is free text (no FTS syntax: every word is
/// matched literally, any word may match). `since`/`until` are RFC 3339 or
/// plain dates; a plain-date `until` includes that whole day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryQuery {
    #[serde(default)]
    pub query: String,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub since: Option<String>,
    #[serde(default)]
    pub until: Option<String>,
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A project named by memories: how many, and the first and last times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectInfo {
    pub name: String,
    pub count: u64,
    pub first_at: String,
    pub last_at: String,
}

type Job = Box<dyn FnOnce(&mut Connection) + Send + 'static>;

/// The handle to the store's thread. Clone it freely.
#[derive(Clone, Debug)]
pub struct Store {
    jobs: mpsc::Sender<Job>,
}

impl Store {
    /// Opens (creating it and its parent folders if need be) the database
    /// at `path` and brings its schema up to date. Blocks the calling thread
    /// until the database is ready: call it at startup.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).map_err(|e| {
                    invalid(format!("cannot create the folder {}: {e}", dir.display()))
                })?;
            }
        }
        let path = path.to_path_buf();
        Self::start(move || Ok(Connection::open(&path)?))
    }

    /// A private database in memory, gone when the last handle is dropped.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Self::start(|| Ok(Connection::open_in_memory()?))
    }

    fn start<O>(open: O) -> Result<Store, StoreError>
    where
        O: FnOnce() -> Result<Connection, StoreError> + Send + 'static,
    {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::sync_channel::<Result<(), StoreError>>(1);
        std::thread::Builder::new()
            .name("imprint-store".into())
            .spawn(move || {
                let opened = open().and_then(|mut conn| {
                    configure(&conn)?;
                    migrate(&mut conn)?;
                    Ok(conn)
                });
                let mut conn = match opened {
                    Ok(conn) => conn,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                drop(ready_tx);
                // Ends when every `Store` (every sender) is dropped.
                while let Ok(job) = queue.recv() {
                    // A panicking closure must not take the store down: its
                    // caller sees `Closed`, everyone else carries on.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job(&mut conn)));
                    if !conn.is_autocommit() {
                        // A closure left a transaction open: undo it.
                        let _ = conn.execute_batch("ROLLBACK");
                    }
                }
            })
            .map_err(|_| StoreError::Closed)?;
        ready_rx.recv().map_err(|_| StoreError::Closed)??;
        Ok(Store { jobs })
    }

    /// Runs `f` on the store's thread with the connection and returns its
    /// answer. The escape hatch for anything this module does not offer.
    pub async fn call<R, F>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = tx.send(f(conn));
        });
        self.jobs.send(job).map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    // ----- sessions -----

    /// A new, empty session. A blank title gives [`DEFAULT_TITLE`]; a blank
    /// channel gives [`DEFAULT_CHANNEL`].
    pub async fn create_session(
        &self,
        title: Option<String>,
        channel: &str,
    ) -> Result<SessionSummary, StoreError> {
        let title = title
            .as_deref()
            .and_then(clean_title)
            .unwrap_or_else(|| DEFAULT_TITLE.to_owned());
        let channel = match channel.trim() {
            "" => DEFAULT_CHANNEL.to_owned(),
            c => c.to_owned(),
        };
        self.call(move |conn| {
            let id = uuid::Uuid::new_v4().to_string();
            let now = fmt_ts(next_now());
            conn.execute(
                "INSERT INTO sessions (id, title, channel, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?4)",
                params![id, title, channel, now],
            )?;
            Ok(SessionSummary {
                id,
                title,
                created_at: now.clone(),
                updated_at: now,
                message_count: 0,
                waiting: false,
            })
        })
        .await
    }

    /// Every session, most recently active first. `waiting` is always false:
    /// the caller knows which sessions wait for an answer.
    pub async fn list_sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        self.call(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "{SUMMARY_SELECT} ORDER BY s.updated_at DESC, s.created_at DESC, s.rowid DESC"
            ))?;
            let rows = stmt.query_map([], summary_from_row)?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// A session and its messages in order, or `None` if there is no such
    /// session.
    pub async fn get_session(
        &self,
        id: &str,
    ) -> Result<Option<(SessionSummary, Vec<Message>)>, StoreError> {
        let id = id.to_owned();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let Some(summary) = session_summary(&tx, &id)? else {
                return Ok(None);
            };
            let messages = {
                let mut stmt = tx.prepare_cached(
                    "SELECT seq, role, content, tool_name, tool_args, created_at, stopped
                     FROM messages WHERE session_id = ?1 ORDER BY seq",
                )?;
                let rows = stmt.query_map([&id], message_from_row)?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            tx.commit()?;
            Ok(Some((summary, messages)))
        })
        .await
    }

    /// Renames a session (trimmed, first line, cut to 60 characters). A blank
    /// title is `Invalid`; an unknown session gives `None`. Does not count
    /// as activity: `updated_at` is unchanged.
    pub async fn rename_session(
        &self,
        id: &str,
        title: &str,
    ) -> Result<Option<SessionSummary>, StoreError> {
        let title = clean_title(title).ok_or_else(|| invalid("the title must not be blank"))?;
        let id = id.to_owned();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let changed = tx.execute(
                "UPDATE sessions SET title = ?2 WHERE id = ?1",
                params![id, title],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            let summary = session_summary(&tx, &id)?;
            tx.commit()?;
            Ok(summary)
        })
        .await
    }

    /// Deletes a session and its messages (its reminders stay, detached).
    /// False if there was no such session.
    pub async fn delete_session(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.call(move |conn| Ok(conn.execute("DELETE FROM sessions WHERE id = ?1", [&id])? > 0))
            .await
    }

    // ----- messages -----

    /// Appends one message (next seq) and bumps the session's `updated_at`.
    /// While the title is still the default, the session's first user
    /// message names it. An unknown session is `Invalid("unknown session")`.
    pub async fn append_message(
        &self,
        session_id: &str,
        message: NewMessage,
    ) -> Result<Message, StoreError> {
        let mut appended = self.append_messages(session_id, vec![message]).await?;
        appended.pop().ok_or(StoreError::Closed)
    }

    /// Appends messages in order, all in one transaction: either all are
    /// written or none is.
    pub async fn append_messages(
        &self,
        session_id: &str,
        messages: Vec<NewMessage>,
    ) -> Result<Vec<Message>, StoreError> {
        // Serialize the arguments before going to the store's thread.
        let prepared = messages
            .into_iter()
            .map(|m| {
                let args = m
                    .tool_args
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()
                    .map_err(|e| invalid(format!("tool arguments are not JSON: {e}")))?;
                Ok((m, args))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let session_id = session_id.to_owned();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let out = append_in(&tx, &session_id, prepared)?;
            tx.commit()?;
            Ok(out)
        })
        .await
    }

    // ----- memories -----

    /// Stores one memory.
    pub async fn add_memory(&self, memory: NewMemory) -> Result<Memory, StoreError> {
        let memory = ValidMemory::new(memory)?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let mut projects = ProjectNames::load(&tx)?;
            let stored = insert_memory(&tx, &mut projects, memory)?;
            tx.commit()?;
            Ok(stored)
        })
        .await
    }

    /// Stores many memories in one transaction: all of them, or (on the
    /// first bad one, named by its index) none. Returns how many.
    pub async fn import_memories(&self, memories: Vec<NewMemory>) -> Result<usize, StoreError> {
        let valid = memories
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                ValidMemory::new(m).map_err(|e| match e {
                    StoreError::Invalid(msg) => invalid(format!("memory {i}: {msg}")),
                    other => other,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let mut projects = ProjectNames::load(&tx)?;
            let count = valid.len();
            for memory in valid {
                insert_memory(&tx, &mut projects, memory)?;
            }
            tx.commit()?;
            Ok(count)
        })
        .await
    }

    /// Full-text search, most relevant first (bm25). Any word of the query
    /// may match; FTS syntax in it is taken literally. An empty query lists
    /// the newest memories that pass the filters.
    pub async fn search_memories(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, StoreError> {
        let limit = query
            .limit
            .unwrap_or(DEFAULT_SEARCH_LIMIT)
            .min(MAX_SEARCH_LIMIT);
        let since = query
            .since
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .map(|s| parse_bound(s, "since", false))
            .transpose()?;
        let until = query
            .until
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .map(|s| parse_bound(s, "until", true))
            .transpose()?;
        let project = query
            .project
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned);
        let fts = fts_query(&query.query);
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let project = match project {
                None => None,
                Some(p) => match ProjectNames::load(&tx)?.find(&p) {
                    Some(stored) => Some(stored.to_owned()),
                    None => return Ok(Vec::new()),
                },
            };
            let limit = i64::try_from(limit).unwrap_or(MAX_SEARCH_LIMIT as i64);
            let hits = match fts {
                Some(fts) => {
                    let mut stmt = tx.prepare_cached(
                        "SELECT m.id, m.content, m.project, m.tags, m.created_at
                         FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
                         WHERE memories_fts MATCH ?1
                           AND (?2 IS NULL OR m.project = ?2)
                           AND (?3 IS NULL OR m.created_at >= ?3)
                           AND (?4 IS NULL OR m.created_at < ?4)
                         ORDER BY bm25(memories_fts, 1.0, 0.5, 0.5), m.created_at DESC, m.id DESC
                         LIMIT ?5",
                    )?;
                    let rows =
                        stmt.query_map(params![fts, project, since, until, limit], memory_from_row);
                    match rows.and_then(|rows| rows.collect::<Result<Vec<_>, _>>()) {
                        Ok(hits) => hits,
                        // The query is built to be valid; should FTS5 still
                        // reject it, the user's text matched nothing.
                        Err(e) if is_fts_query_error(&e) => Vec::new(),
                        Err(e) => return Err(e.into()),
                    }
                }
                None => {
                    let mut stmt = tx.prepare_cached(
                        "SELECT id, content, project, tags, created_at FROM memories
                         WHERE (?1 IS NULL OR project = ?1)
                           AND (?2 IS NULL OR created_at >= ?2)
                           AND (?3 IS NULL OR created_at < ?3)
                         ORDER BY created_at DESC, id DESC
                         LIMIT ?4",
                    )?;
                    let rows =
                        stmt.query_map(params![project, since, until, limit], memory_from_row)?;
                    rows.collect::<Result<Vec<_>, _>>()?
                }
            };
            tx.commit()?;
            Ok(hits)
        })
        .await
    }

    /// The projects named by memories, most recently active first.
    pub async fn list_projects(&self) -> Result<Vec<ProjectInfo>, StoreError> {
        self.call(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT MIN(project), COUNT(*), MIN(created_at), MAX(created_at)
                 FROM memories WHERE project IS NOT NULL
                 GROUP BY project COLLATE NOCASE
                 ORDER BY MAX(created_at) DESC, MIN(project)",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok(ProjectInfo {
                    name: row.get(0)?,
                    count: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    first_at: row.get(2)?,
                    last_at: row.get(3)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    // ----- reminders -----

    /// A reminder due at `due_at`, optionally tied to a session (an unknown
    /// session is `Invalid`).
    pub async fn add_reminder(
        &self,
        text: impl Into<String>,
        due_at: DateTime<Utc>,
        session_id: Option<String>,
    ) -> Result<Reminder, StoreError> {
        let text = text.into().trim().to_owned();
        if text.is_empty() {
            return Err(invalid("the reminder text must not be blank"));
        }
        let due_at = fmt_ts(due_at);
        self.call(move |conn| {
            let tx = conn.transaction()?;
            if let Some(id) = &session_id {
                if !session_exists(&tx, id)? {
                    return Err(invalid("unknown session"));
                }
            }
            tx.execute(
                "INSERT INTO reminders (text, due_at, session_id, created_at, done)
                 VALUES (?1, ?2, ?3, ?4, 0)",
                params![text, due_at, session_id, fmt_ts(next_now())],
            )?;
            let id = tx.last_insert_rowid();
            tx.commit()?;
            Ok(Reminder {
                id,
                text,
                due_at,
                done: false,
                session_id,
            })
        })
        .await
    }

    /// Every reminder, done or not, soonest first.
    pub async fn list_reminders(&self) -> Result<Vec<Reminder>, StoreError> {
        self.call(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT id, text, due_at, done, session_id FROM reminders ORDER BY due_at, id",
            )?;
            let rows = stmt.query_map([], reminder_from_row)?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// When the earliest reminder not yet done is due.
    pub async fn next_pending_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        self.call(|conn| {
            let due: Option<String> = conn.query_row(
                "SELECT MIN(due_at) FROM reminders WHERE done = 0",
                [],
                |row| row.get(0),
            )?;
            due.map(|d| parse_stored_ts(&d, 0))
                .transpose()
                .map_err(Into::into)
        })
        .await
    }

    /// Marks every pending reminder due at or before `now` as done and
    /// returns them, soonest first. Each reminder is returned once.
    pub async fn take_due(&self, now: DateTime<Utc>) -> Result<Vec<Reminder>, StoreError> {
        let now = fmt_ts(now);
        self.call(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut taken = {
                let mut stmt = tx.prepare_cached(
                    "UPDATE reminders SET done = 1 WHERE done = 0 AND due_at <= ?1
                     RETURNING id, text, due_at, done, session_id",
                )?;
                let rows = stmt.query_map([&now], reminder_from_row)?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            tx.commit()?;
            taken.sort_by(|a, b| a.due_at.cmp(&b.due_at).then(a.id.cmp(&b.id)));
            Ok(taken)
        })
        .await
    }
}

// ----- opening -----

fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Answers "wal" on a file, "memory" in memory.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Applies the missing steps of [`MIGRATIONS`], each with its version bump in
/// one transaction. Safe to run again, and against another process doing the
/// same (the version is read under the write lock).
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        let applied = usize::try_from(version)
            .map_err(|_| invalid(format!("bad database schema version {version}")))?;
        if applied > MIGRATIONS.len() {
            return Err(invalid(format!(
                "the database's schema version {applied} is newer than this build's ({})",
                MIGRATIONS.len()
            )));
        }
        let Some(step) = MIGRATIONS.get(applied) else {
            return Ok(());
        };
        tx.execute_batch(step)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
}

// ----- time -----

static LAST_MILLIS: AtomicI64 = AtomicI64::new(0);

/// Now, at millisecond precision, strictly later than any earlier call, so
/// that rows written one after the other never tie on time.
fn next_now() -> DateTime<Utc> {
    let now = Utc::now().timestamp_millis();
    let prev = LAST_MILLIS
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
            Some(now.max(last.saturating_add(1)))
        })
        .unwrap_or_else(|last| last);
    let millis = now.max(prev.saturating_add(1));
    DateTime::from_timestamp_millis(millis).unwrap_or_else(Utc::now)
}

/// The stored form of a time.
fn fmt_ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// `YYYY-MM-DD`, strictly.
fn parse_plain_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    let shape = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shape {
        return None;
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

fn midnight(date: NaiveDate) -> DateTime<Utc> {
    date.and_hms_opt(0, 0, 0)
        .map(|dt| dt.and_utc())
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// An RFC 3339 time or a plain date (midnight UTC), in the stored format.
fn parse_user_time(s: &str, what: &str) -> Result<String, StoreError> {
    let s = s.trim();
    if let Some(date) = parse_plain_date(s) {
        return Ok(fmt_ts(midnight(date)));
    }
    DateTime::parse_from_rfc3339(s)
        .map(|t| fmt_ts(t.with_timezone(&Utc)))
        .map_err(|_| {
            invalid(format!(
                "{what}: {s:?} is not a date (YYYY-MM-DD) or an RFC 3339 time"
            ))
        })
}

/// A search bound in the stored format. `since` is inclusive. `until` is
/// returned as an exclusive bound: the day after a plain date, or one
/// millisecond after a time (stored times have millisecond precision).
fn parse_bound(s: &str, what: &str, until: bool) -> Result<String, StoreError> {
    let s = s.trim();
    let bad = || {
        invalid(format!(
            "{what}: {s:?} is not a date (YYYY-MM-DD) or an RFC 3339 time"
        ))
    };
    let t = if let Some(date) = parse_plain_date(s) {
        let date = if until {
            date.succ_opt().ok_or_else(bad)?
        } else {
            date
        };
        midnight(date)
    } else {
        let t = DateTime::parse_from_rfc3339(s)
            .map_err(|_| bad())?
            .with_timezone(&Utc);
        if until {
            let millis = t.timestamp_millis().saturating_add(1);
            DateTime::from_timestamp_millis(millis).ok_or_else(bad)?
        } else {
            t
        }
    };
    Ok(fmt_ts(t))
}

fn parse_stored_ts(s: &str, col: usize) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(col, Type::Text, Box::new(e)))
}

// ----- sessions and messages -----

/// The first non-blank line, trimmed and cut to [`TITLE_MAX_CHARS`]
/// characters; `None` if there is none.
fn clean_title(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let cut: String = line.chars().take(TITLE_MAX_CHARS).collect();
    Some(cut.trim_end().to_owned())
}

const SUMMARY_SELECT: &str = "SELECT s.id, s.title, s.created_at, s.updated_at,
        (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)
     FROM sessions s";

fn summary_from_row(row: &Row<'_>) -> rusqlite::Result<SessionSummary> {
    Ok(SessionSummary {
        id: row.get(0)?,
        title: row.get(1)?,
        created_at: row.get(2)?,
        updated_at: row.get(3)?,
        message_count: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
        waiting: false,
    })
}

fn session_summary(conn: &Connection, id: &str) -> rusqlite::Result<Option<SessionSummary>> {
    conn.prepare_cached(&format!("{SUMMARY_SELECT} WHERE s.id = ?1"))?
        .query_row([id], summary_from_row)
        .optional()
}

fn session_exists(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .exists([id])
}

fn role_str(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn parse_role(s: &str) -> Option<Role> {
    match s {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "tool" => Some(Role::Tool),
        _ => None,
    }
}

fn conversion_error(col: usize, msg: String) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(col, Type::Text, msg.into())
}

fn message_from_row(row: &Row<'_>) -> rusqlite::Result<Message> {
    let role: String = row.get(1)?;
    let role =
        parse_role(&role).ok_or_else(|| conversion_error(1, format!("bad role {role:?}")))?;
    let tool_args = row
        .get::<_, Option<String>>(4)?
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(4, Type::Text, Box::new(e)))?;
    Ok(Message {
        seq: row.get(0)?,
        role,
        content: row.get(2)?,
        tool_name: row.get(3)?,
        tool_args,
        created_at: row.get(5)?,
        stopped: row.get(6)?,
        html: None,
    })
}

/// The body of `append_messages`, inside the caller's transaction.
fn append_in(
    conn: &Connection,
    session_id: &str,
    messages: Vec<(NewMessage, Option<String>)>,
) -> Result<Vec<Message>, StoreError> {
    let title: Option<String> = conn
        .prepare_cached("SELECT title FROM sessions WHERE id = ?1")?
        .query_row([session_id], |row| row.get(0))
        .optional()?;
    let Some(title) = title else {
        return Err(invalid("unknown session"));
    };
    // The title is taken from the first user message with some text, and
    // only while the session still has the default title.
    let mut may_name = title == DEFAULT_TITLE
        && !conn
            .prepare_cached(
                "SELECT 1 FROM messages WHERE session_id = ?1 AND role = 'user'
                   AND trim(content, ' ' || char(9, 10, 13)) <> ''",
            )?
            .exists([session_id])?;
    let mut seq: i64 = conn
        .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1")?
        .query_row([session_id], |row| row.get(0))?;
    let mut out = Vec::with_capacity(messages.len());
    let mut last_at = None;
    for (message, args_text) in messages {
        seq += 1;
        let created_at = fmt_ts(next_now());
        conn.prepare_cached(
            "INSERT INTO messages
               (session_id, seq, role, content, tool_name, tool_args, stopped, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?
        .execute(params![
            session_id,
            seq,
            role_str(message.role),
            message.content,
            message.tool_name,
            args_text,
            message.stopped,
            created_at,
        ])?;
        if may_name && message.role == Role::User {
            if let Some(title) = clean_title(&message.content) {
                conn.execute(
                    "UPDATE sessions SET title = ?2 WHERE id = ?1",
                    params![session_id, title],
                )?;
                may_name = false;
            }
        }
        last_at = Some(created_at.clone());
        out.push(Message {
            seq,
            role: message.role,
            content: message.content,
            tool_name: message.tool_name,
            tool_args: message.tool_args,
            created_at,
            stopped: message.stopped,
            html: None,
        });
    }
    if let Some(at) = last_at {
        conn.execute(
            "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
            params![session_id, at],
        )?;
    }
    Ok(out)
}

// ----- memories -----

/// A checked [`NewMemory`]: trimmed text, clean tags, a stored-format time.
struct ValidMemory {
    content: String,
    project: Option<String>,
    tags: Vec<String>,
    tags_json: String,
    created_at: Option<String>,
}

impl ValidMemory {
    fn new(m: NewMemory) -> Result<Self, StoreError> {
        let content = m.content.trim().to_owned();
        if content.is_empty() {
            return Err(invalid("the memory's content must not be blank"));
        }
        let project = m
            .project
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned);
        let mut seen = HashSet::new();
        let tags: Vec<String> = m
            .tags
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty() && seen.insert(t.to_lowercase()))
            .map(str::to_owned)
            .collect();
        let tags_json = serde_json::to_string(&tags)
            .map_err(|e| invalid(format!("the tags cannot be stored: {e}")))?;
        let created_at = m
            .created_at
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .map(|s| parse_user_time(s, "created_at"))
            .transpose()?;
        Ok(Self {
            content,
            project,
            tags,
            tags_json,
            created_at,
        })
    }
}

/// The project names already stored, found case-insensitively, so that one
/// project keeps the spelling it was first stored with.
struct ProjectNames {
    by_folded: HashMap<String, String>,
}

impl ProjectNames {
    fn load(conn: &Connection) -> rusqlite::Result<Self> {
        let mut stmt =
            conn.prepare_cached("SELECT DISTINCT project FROM memories WHERE project IS NOT NULL")?;
        let names = stmt.query_map([], |row| row.get::<_, String>(0))?;
        let mut by_folded = HashMap::new();
        for name in names {
            let name = name?;
            by_folded.entry(name.to_lowercase()).or_insert(name);
        }
        Ok(Self { by_folded })
    }

    fn find(&self, name: &str) -> Option<&str> {
        self.by_folded.get(&name.to_lowercase()).map(String::as_str)
    }

    /// The stored spelling of `name`, remembering it if it is new.
    fn canonical(&mut self, name: String) -> String {
        self.by_folded
            .entry(name.to_lowercase())
            .or_insert(name)
            .clone()
    }
}

fn insert_memory(
    conn: &Connection,
    projects: &mut ProjectNames,
    m: ValidMemory,
) -> Result<Memory, StoreError> {
    let project = m.project.map(|p| projects.canonical(p));
    let created_at = m.created_at.unwrap_or_else(|| fmt_ts(next_now()));
    conn.prepare_cached(
        "INSERT INTO memories (content, project, tags, created_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![m.content, project, m.tags_json, created_at])?;
    Ok(Memory {
        id: conn.last_insert_rowid(),
        content: m.content,
        project,
        tags: m.tags,
        created_at,
    })
}

fn memory_from_row(row: &Row<'_>) -> rusqlite::Result<Memory> {
    let tags: String = row.get(3)?;
    let tags = serde_json::from_str(&tags)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(3, Type::Text, Box::new(e)))?;
    Ok(Memory {
        id: row.get(0)?,
        content: row.get(1)?,
        project: row.get(2)?,
        tags,
        created_at: row.get(4)?,
    })
}

/// Free text as a safe FTS5 query: every whitespace-separated word that has
/// a letter or digit becomes a quoted string (so `"`, `*`, `OR`, `(`, `-`,
/// `:` and the like are plain text), and the words are ORed. `None` if no
/// word is left.
fn fts_query(text: &str) -> Option<String> {
    let mut seen = HashSet::new();
    let mut terms = Vec::new();
    for word in text.split_whitespace() {
        let word: String = word.chars().filter(|c| !c.is_control()).collect();
        if !word.chars().any(char::is_alphanumeric) || !seen.insert(word.to_lowercase()) {
            continue;
        }
        terms.push(format!("\"{}\"", word.replace('"', "\"\"")));
        if terms.len() == MAX_QUERY_TERMS {
            break;
        }
    }
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

fn is_fts_query_error(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(_, Some(msg)) if msg.starts_with("fts5:"))
}

// ----- reminders -----

fn reminder_from_row(row: &Row<'_>) -> rusqlite::Result<Reminder> {
    Ok(Reminder {
        id: row.get(0)?,
        text: row.get(1)?,
        due_at: row.get(2)?,
        done: row.get(3)?,
        session_id: row.get(4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    fn mem() -> Store {
        Store::open_in_memory().expect("open in memory")
    }

    fn file_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("nested/dir/imprint.db")).expect("open");
        (dir, store)
    }

    fn memory(content: &str, project: Option<&str>, at: &str) -> NewMemory {
        NewMemory {
            content: content.into(),
            project: project.map(Into::into),
            tags: vec![],
            created_at: Some(at.into()),
        }
    }

    fn q(query: &str) -> MemoryQuery {
        MemoryQuery {
            query: query.into(),
            ..Default::default()
        }
    }

    async fn pragma<T: rusqlite::types::FromSql + Send + 'static>(store: &Store, name: &str) -> T {
        let sql = format!("PRAGMA {name}");
        store
            .call(move |c| Ok(c.query_row(&sql, [], |r| r.get(0))?))
            .await
            .expect("pragma")
    }

    async fn count(store: &Store, sql: &'static str) -> i64 {
        store
            .call(move |c| Ok(c.query_row(sql, [], |r| r.get(0))?))
            .await
            .expect("count")
    }

    #[test]
    fn store_is_a_shareable_handle() {
        fn check<T: Clone + Send + Sync + 'static>() {}
        check::<Store>();
    }

    #[tokio::test]
    async fn migrations_are_idempotent_on_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/imprint.db");
        let store = Store::open(&path).unwrap();
        let s = store.create_session(None, "chat").await.unwrap();
        store
            .append_message(&s.id, NewMessage::user("hello"))
            .await
            .unwrap();
        store
            .add_memory(memory("kept across opens", None, "2024-01-01"))
            .await
            .unwrap();
        assert_eq!(
            pragma::<i64>(&store, "user_version").await,
            MIGRATIONS.len() as i64
        );
        drop(store);

        for _ in 0..2 {
            let store = Store::open(&path).unwrap();
            assert_eq!(
                pragma::<i64>(&store, "user_version").await,
                MIGRATIONS.len() as i64
            );
            let (summary, messages) = store.get_session(&s.id).await.unwrap().unwrap();
            assert_eq!(summary.title, "hello");
            assert_eq!(messages.len(), 1);
            assert_eq!(store.search_memories(q("kept")).await.unwrap().len(), 1);
            // Running the migrations again by hand changes nothing.
            store.call(migrate).await.unwrap();
            assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 1);
        }
    }

    #[tokio::test]
    async fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("imprint.db");
        let store = Store::open(&path).unwrap();
        store
            .call(|c| Ok(c.pragma_update(None, "user_version", 99)?))
            .await
            .unwrap();
        drop(store);
        let err = Store::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::Invalid(m) if m.contains("newer")));
    }

    #[tokio::test]
    async fn file_database_uses_wal_and_foreign_keys() {
        let (_dir, store) = file_store();
        assert_eq!(pragma::<String>(&store, "journal_mode").await, "wal");
        assert_eq!(pragma::<i64>(&store, "foreign_keys").await, 1);
        assert_eq!(pragma::<i64>(&store, "synchronous").await, 1); // NORMAL
        assert_eq!(pragma::<i64>(&store, "busy_timeout").await, 5000);
    }

    #[tokio::test]
    async fn the_thread_ends_when_every_handle_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("imprint.db");
        let store = Store::open(&path).unwrap();
        let other = store.clone();
        store.create_session(None, "chat").await.unwrap();
        let wal = dir.path().join("imprint.db-wal");
        assert!(wal.exists());
        drop(store);
        other.list_sessions().await.unwrap(); // still open through the clone
        drop(other);
        // Closing the last connection checkpoints and removes the WAL file.
        let mut gone = false;
        for _ in 0..200 {
            if !wal.exists() {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(gone, "the connection was not closed");
    }

    #[tokio::test]
    async fn create_session_titles_and_channels() {
        let store = mem();
        let a = store.create_session(None, "chat").await.unwrap();
        assert_eq!(a.title, DEFAULT_TITLE);
        assert_eq!(a.message_count, 0);
        assert!(!a.waiting);
        assert_eq!(a.created_at, a.updated_at);
        assert!(a.created_at.ends_with('Z') && a.created_at.len() == 24);
        assert!(uuid::Uuid::parse_str(&a.id).is_ok());
        let b = store
            .create_session(Some("  \n ".into()), "")
            .await
            .unwrap();
        assert_eq!(b.title, DEFAULT_TITLE);
        let long = "x".repeat(100);
        let c = store
            .create_session(Some(format!("  {long}  ")), "telegram")
            .await
            .unwrap();
        assert_eq!(c.title, "x".repeat(60));
        let d = store
            .create_session(Some(" Trip plans ".into()), "chat")
            .await
            .unwrap();
        assert_eq!(d.title, "Trip plans");
        let channels: Vec<String> = store
            .call(|c| {
                let mut stmt = c.prepare("SELECT channel FROM sessions ORDER BY rowid")?;
                let rows = stmt.query_map([], |r| r.get(0))?;
                Ok(rows.collect::<Result<_, _>>()?)
            })
            .await
            .unwrap();
        assert_eq!(channels, ["chat", "chat", "telegram", "chat"]);
    }

    #[tokio::test]
    async fn first_user_message_names_the_session() {
        let store = mem();
        let s = store.create_session(None, "chat").await.unwrap();
        // Neither an assistant message nor a blank user message names it.
        store
            .append_message(&s.id, NewMessage::assistant("Hi! How can I help?"))
            .await
            .unwrap();
        store
            .append_message(&s.id, NewMessage::user("  \n\t\n"))
            .await
            .unwrap();
        let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title, DEFAULT_TITLE);

        store
            .append_message(
                &s.id,
                NewMessage::user("\n\n   Plan the trip to Lyon   \nwith details\n"),
            )
            .await
            .unwrap();
        let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title, "Plan the trip to Lyon");

        // Later user messages do not rename it.
        store
            .append_message(&s.id, NewMessage::user("something else"))
            .await
            .unwrap();
        let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title, "Plan the trip to Lyon");
    }

    #[tokio::test]
    async fn long_and_non_ascii_titles_are_cut_on_char_boundaries() {
        let store = mem();
        let s = store.create_session(None, "chat").await.unwrap();
        let text = "é🦀日".repeat(30); // 90 chars, many bytes each
        store
            .append_message(&s.id, NewMessage::user(text.clone()))
            .await
            .unwrap();
        let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title.chars().count(), 60);
        assert_eq!(summary.title, text.chars().take(60).collect::<String>());

        // A cut that lands on a space does not leave it dangling.
        let s = store.create_session(None, "chat").await.unwrap();
        let text = format!("{} tail", "a".repeat(59));
        store
            .append_message(&s.id, NewMessage::user(text))
            .await
            .unwrap();
        let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title, "a".repeat(59));
    }

    #[tokio::test]
    async fn a_renamed_session_keeps_its_title() {
        let store = mem();
        let s = store.create_session(None, "chat").await.unwrap();
        let renamed = store
            .rename_session(&s.id, "  My errands \n second line")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(renamed.title, "My errands");
        assert_eq!(renamed.updated_at, s.updated_at);
        store
            .append_message(&s.id, NewMessage::user("buy milk"))
            .await
            .unwrap();
        let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title, "My errands");

        // Renamed back to the default after a user message: still not taken
        // from later messages.
        store.rename_session(&s.id, DEFAULT_TITLE).await.unwrap();
        store
            .append_message(&s.id, NewMessage::user("buy bread"))
            .await
            .unwrap();
        let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title, DEFAULT_TITLE);

        let err = store.rename_session(&s.id, "   ").await.unwrap_err();
        assert!(matches!(err, StoreError::Invalid(_)));
        assert!(store.rename_session("nope", "x").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn messages_get_increasing_seqs_and_round_trip() {
        let store = mem();
        let s = store
            .create_session(Some("t".into()), "chat")
            .await
            .unwrap();
        let m1 = store
            .append_message(&s.id, NewMessage::user("what is on today?"))
            .await
            .unwrap();
        let mut tool = NewMessage::tool("calendar", json!({"day": "today"}), "2 events");
        tool.content = "2 events".into();
        let m2 = store.append_message(&s.id, tool).await.unwrap();
        let mut reply = NewMessage::assistant("You have two");
        reply.stopped = true;
        let m3 = store.append_message(&s.id, reply).await.unwrap();
        assert_eq!((m1.seq, m2.seq, m3.seq), (1, 2, 3));
        assert!(m1.created_at < m2.created_at && m2.created_at < m3.created_at);

        let (summary, messages) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.message_count, 3);
        assert_eq!(summary.updated_at, m3.created_at);
        assert_eq!(messages, vec![m1, m2.clone(), m3.clone()]);
        assert_eq!(m2.role, Role::Tool);
        assert_eq!(m2.tool_name.as_deref(), Some("calendar"));
        assert_eq!(m2.tool_args, Some(json!({"day": "today"})));
        assert!(m3.stopped);

        // Seqs are per session.
        let other = store.create_session(None, "chat").await.unwrap();
        let first = store
            .append_message(&other.id, NewMessage::user("hi"))
            .await
            .unwrap();
        assert_eq!(first.seq, 1);

        let err = store
            .append_message("no-such-session", NewMessage::user("hi"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Invalid(m) if m == "unknown session"));
        assert!(store
            .get_session("no-such-session")
            .await
            .unwrap()
            .is_none());
    }

    #[tokio::test]
    async fn concurrent_appends_get_distinct_seqs() {
        let store = mem();
        let s = store.create_session(None, "chat").await.unwrap();
        let mut tasks = Vec::new();
        for i in 0..20 {
            let store = store.clone();
            let id = s.id.clone();
            tasks.push(tokio::spawn(async move {
                store
                    .append_message(&id, NewMessage::assistant(format!("m{i}")))
                    .await
                    .unwrap()
                    .seq
            }));
        }
        let mut seqs = Vec::new();
        for t in tasks {
            seqs.push(t.await.unwrap());
        }
        seqs.sort();
        assert_eq!(seqs, (1..=20).collect::<Vec<i64>>());
    }

    #[tokio::test]
    async fn sessions_are_listed_most_recent_first() {
        let (_dir, store) = file_store();
        let a = store
            .create_session(Some("a".into()), "chat")
            .await
            .unwrap();
        let b = store
            .create_session(Some("b".into()), "chat")
            .await
            .unwrap();
        let c = store
            .create_session(Some("c".into()), "chat")
            .await
            .unwrap();
        let ids = |list: Vec<SessionSummary>| list.into_iter().map(|s| s.id).collect::<Vec<_>>();
        assert_eq!(
            ids(store.list_sessions().await.unwrap()),
            [c.id.clone(), b.id.clone(), a.id.clone()]
        );
        store
            .append_message(&a.id, NewMessage::user("bump"))
            .await
            .unwrap();
        let list = store.list_sessions().await.unwrap();
        assert_eq!(list[0].message_count, 1);
        assert_eq!(list[0].title, "a");
        assert_eq!(ids(list), [a.id, c.id, b.id]);
    }

    #[tokio::test]
    async fn deleting_a_session_cascades() {
        let (_dir, store) = file_store();
        let s = store.create_session(None, "chat").await.unwrap();
        let keep = store.create_session(None, "chat").await.unwrap();
        store
            .append_messages(
                &s.id,
                vec![NewMessage::user("one"), NewMessage::assistant("two")],
            )
            .await
            .unwrap();
        store
            .append_message(&keep.id, NewMessage::user("kept"))
            .await
            .unwrap();
        let due = Utc.with_ymd_and_hms(2030, 1, 1, 9, 0, 0).unwrap();
        let r = store
            .add_reminder("call mum", due, Some(s.id.clone()))
            .await
            .unwrap();
        assert_eq!(r.session_id.as_deref(), Some(s.id.as_str()));

        assert!(store.delete_session(&s.id).await.unwrap());
        assert!(!store.delete_session(&s.id).await.unwrap());
        assert!(store.get_session(&s.id).await.unwrap().is_none());
        assert_eq!(count(&store, "SELECT COUNT(*) FROM messages").await, 1);
        let reminders = store.list_reminders().await.unwrap();
        assert_eq!(reminders.len(), 1);
        assert_eq!(reminders[0].session_id, None);
        assert_eq!(store.list_sessions().await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn append_messages_is_all_or_nothing() {
        let store = mem();
        let err = store
            .append_messages(
                "missing",
                vec![NewMessage::user("a"), NewMessage::assistant("b")],
            )
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Invalid(m) if m == "unknown session"));
        assert_eq!(count(&store, "SELECT COUNT(*) FROM messages").await, 0);

        let s = store.create_session(None, "chat").await.unwrap();
        // Make the second message of a batch fail inside the transaction.
        store
            .call(|c| {
                c.execute_batch(
                    "CREATE TRIGGER boom BEFORE INSERT ON messages
                     WHEN new.content = 'boom'
                     BEGIN SELECT RAISE(ABORT, 'boom'); END;",
                )?;
                Ok(())
            })
            .await
            .unwrap();
        let err = store
            .append_messages(
                &s.id,
                vec![
                    NewMessage::user("first question"),
                    NewMessage::assistant("boom"),
                ],
            )
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Sqlite(_)));
        let (summary, messages) = store.get_session(&s.id).await.unwrap().unwrap();
        assert!(messages.is_empty());
        assert_eq!(summary.title, DEFAULT_TITLE);
        assert_eq!(summary.updated_at, s.updated_at);

        let ok = store
            .append_messages(
                &s.id,
                vec![
                    NewMessage::user("first question"),
                    NewMessage::assistant("answer"),
                ],
            )
            .await
            .unwrap();
        assert_eq!(ok.iter().map(|m| m.seq).collect::<Vec<_>>(), [1, 2]);
        assert!(store
            .append_messages(&s.id, vec![])
            .await
            .unwrap()
            .is_empty());
    }

    #[tokio::test]
    async fn add_memory_normalizes_and_validates() {
        let store = mem();
        let m = store
            .add_memory(NewMemory {
                content: "  likes green tea  ".into(),
                project: Some("  ".into()),
                tags: vec![" food ".into(), "".into(), "Food".into(), "drink".into()],
                created_at: Some("2024-03-05".into()),
            })
            .await
            .unwrap();
        assert_eq!(m.content, "likes green tea");
        assert_eq!(m.project, None);
        assert_eq!(m.tags, ["food", "drink"]);
        assert_eq!(m.created_at, "2024-03-05T00:00:00.000Z");

        let m = store
            .add_memory(memory("x", Some("p"), "2024-03-05T10:00:00+02:00"))
            .await
            .unwrap();
        assert_eq!(m.created_at, "2024-03-05T08:00:00.000Z");
        let m = store
            .add_memory(memory("y", None, "2024-03-05T10:00:00.123456Z"))
            .await
            .unwrap();
        assert_eq!(m.created_at, "2024-03-05T10:00:00.123Z");

        let now = store
            .add_memory(NewMemory {
                content: "now".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(DateTime::parse_from_rfc3339(&now.created_at).is_ok());

        for bad in [
            "yesterday",
            "2024-02-30",
            "2024-3-5",
            "20240305",
            "+12024-01-01",
        ] {
            let err = store.add_memory(memory("z", None, bad)).await.unwrap_err();
            assert!(
                matches!(&err, StoreError::Invalid(m) if m.contains("created_at")),
                "{bad}: {err}"
            );
        }
        let err = store
            .add_memory(memory(" \n ", None, "2024-01-01"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Invalid(_)));
        assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 3 + 1);
    }

    #[tokio::test]
    async fn search_ranks_the_more_relevant_memory_first() {
        let store = mem();
        store
            .import_memories(vec![
                memory("Went hiking in the Alps with Sam", None, "2024-01-01"),
                memory(
                    "SQLite WAL mode lets readers run during a write; SQLite checkpoints the WAL",
                    Some("imprint"),
                    "2024-01-02",
                ),
                memory("Tried a new SQLite GUI", None, "2024-01-03"),
                memory("Tomatoes need more sun in the garden", None, "2024-01-04"),
            ])
            .await
            .unwrap();
        let hits = store
            .search_memories(q("sqlite wal checkpoint"))
            .await
            .unwrap();
        assert_eq!(hits.len(), 2);
        assert!(hits[0].content.starts_with("SQLite WAL"));
        assert_eq!(hits[0].project.as_deref(), Some("imprint"));
        assert!(hits[1].content.contains("GUI"));

        // Stemming and diacritics: "gardens" finds "garden", "Alpes" no,
        // "hike" finds "hiking", "tomates" no; "sûn" finds "sun".
        assert_eq!(store.search_memories(q("gardens")).await.unwrap().len(), 1);
        assert_eq!(store.search_memories(q("hike")).await.unwrap().len(), 1);
        assert_eq!(store.search_memories(q("sûn")).await.unwrap().len(), 1);
        assert!(store
            .search_memories(q("bicycle"))
            .await
            .unwrap()
            .is_empty());

        // Tags are searched too.
        store
            .add_memory(NewMemory {
                content: "Bought a present".into(),
                tags: vec!["birthday".into()],
                ..Default::default()
            })
            .await
            .unwrap();
        let hits = store.search_memories(q("birthday")).await.unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].tags, ["birthday"]);
    }

    #[tokio::test]
    async fn search_filters_by_project_and_time() {
        let (_dir, store) = file_store();
        store
            .import_memories(vec![
                memory("note alpha", Some("Imprint"), "2024-05-01T08:00:00Z"),
                memory("note beta", Some("imprint"), "2024-05-02T23:59:59.999Z"),
                memory("note gamma", Some("Garden"), "2024-05-03T00:00:00Z"),
                memory("note delta", None, "2024-05-04T12:00:00Z"),
            ])
            .await
            .unwrap();
        let contents = |hits: Vec<MemoryHit>| {
            let mut c: Vec<String> = hits.into_iter().map(|h| h.content).collect();
            c.sort();
            c
        };
        let query = |project: Option<&str>, since: Option<&str>, until: Option<&str>| MemoryQuery {
            query: "note".into(),
            project: project.map(Into::into),
            since: since.map(Into::into),
            until: until.map(Into::into),
            limit: None,
        };

        let hits = store
            .search_memories(query(Some("IMPRINT"), None, None))
            .await
            .unwrap();
        assert_eq!(contents(hits.clone()), ["note alpha", "note beta"]);
        // The project keeps the spelling it was first stored with.
        assert!(hits.iter().all(|h| h.project.as_deref() == Some("Imprint")));
        assert!(store
            .search_memories(query(Some("Impr"), None, None))
            .await
            .unwrap()
            .is_empty());

        // A plain-date until includes that whole day.
        let hits = store
            .search_memories(query(None, None, Some("2024-05-02")))
            .await
            .unwrap();
        assert_eq!(contents(hits), ["note alpha", "note beta"]);
        let hits = store
            .search_memories(query(None, Some("2024-05-02"), Some("2024-05-03")))
            .await
            .unwrap();
        assert_eq!(contents(hits), ["note beta", "note gamma"]);
        // An RFC 3339 until is inclusive of that instant.
        let hits = store
            .search_memories(query(None, None, Some("2024-05-03T00:00:00Z")))
            .await
            .unwrap();
        assert_eq!(contents(hits), ["note alpha", "note beta", "note gamma"]);
        let hits = store
            .search_memories(query(None, Some("2024-05-03T02:00:00+02:00"), None))
            .await
            .unwrap();
        assert_eq!(contents(hits), ["note delta", "note gamma"]);
        let hits = store
            .search_memories(query(Some("garden"), Some("2024-05-04"), None))
            .await
            .unwrap();
        assert!(hits.is_empty());

        // Filters without a query list the newest first.
        let hits = store
            .search_memories(MemoryQuery {
                project: Some("imprint".into()),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(
            hits.iter().map(|h| h.content.as_str()).collect::<Vec<_>>(),
            ["note beta", "note alpha"]
        );

        for (since, until) in [(Some("last week"), None), (None, Some("2024-13-01"))] {
            let err = store
                .search_memories(query(None, since, until))
                .await
                .unwrap_err();
            assert!(matches!(err, StoreError::Invalid(_)), "{err}");
        }
    }

    #[tokio::test]
    async fn search_limit_defaults_to_10_and_caps_at_50() {
        let store = mem();
        let many = (0..60)
            .map(|i| memory(&format!("coffee note {i}"), None, "2024-01-01"))
            .collect();
        assert_eq!(store.import_memories(many).await.unwrap(), 60);
        assert_eq!(store.search_memories(q("coffee")).await.unwrap().len(), 10);
        let mut query = q("coffee");
        query.limit = Some(500);
        assert_eq!(
            store.search_memories(query.clone()).await.unwrap().len(),
            50
        );
        query.limit = Some(3);
        assert_eq!(store.search_memories(query.clone()).await.unwrap().len(), 3);
        query.limit = Some(0);
        assert!(store.search_memories(query).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn fts_syntax_in_queries_is_plain_text() {
        let store = mem();
        store
            .add_memory(memory(
                "Don't forget: the C++ talk (room 4) - bring the \"notes\" OR slides",
                None,
                "2024-01-01",
            ))
            .await
            .unwrap();
        for text in [
            "\"",
            "*",
            "OR",
            "(",
            "-",
            "AND",
            "NOT",
            "NEAR(",
            "a OR",
            "OR b",
            "\"unterminated",
            "foo\"bar",
            "title:talk",
            "^start",
            "prefix*",
            "-minus",
            "(room",
            "+",
            "{col1 col2}: x",
            "¹²³",
            "🦀",
            "",
            "   ",
            "a\u{0}b",
            "NEAR(talk room, 2)",
        ] {
            let result = store.search_memories(q(text)).await;
            assert!(result.is_ok(), "{text:?}: {result:?}");
        }
        let hits = store.search_memories(q("(room")).await.unwrap();
        assert_eq!(hits.len(), 1);
        let hits = store.search_memories(q("\"notes\"")).await.unwrap();
        assert_eq!(hits.len(), 1);
        let hits = store.search_memories(q("don't")).await.unwrap();
        assert_eq!(hits.len(), 1);
        let hits = store.search_memories(q("OR")).await.unwrap();
        assert_eq!(hits.len(), 1); // the word "or" itself
        assert!(store
            .search_memories(q("-zebra*"))
            .await
            .unwrap()
            .is_empty());
    }

    #[test]
    fn fts_query_quotes_every_word() {
        assert_eq!(fts_query("a b").as_deref(), Some("\"a\" OR \"b\""));
        assert_eq!(
            fts_query("say \"hi\"").as_deref(),
            Some("\"say\" OR \"\"\"hi\"\"\"")
        );
        assert_eq!(fts_query("x X x").as_deref(), Some("\"x\""));
        assert_eq!(fts_query(" - ( * \" "), None);
        let long = (0..100)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            fts_query(&long).map(|q| q.matches(" OR ").count()),
            Some(MAX_QUERY_TERMS - 1)
        );
    }

    #[tokio::test]
    async fn import_is_all_or_nothing() {
        let store = mem();
        let err = store
            .import_memories(vec![
                memory("one", Some("p"), "2024-01-01"),
                memory("two", Some("p"), "not a date"),
                memory("three", Some("p"), "2024-01-03"),
            ])
            .await
            .unwrap_err();
        assert!(
            matches!(&err, StoreError::Invalid(m) if m.contains("memory 1") && m.contains("created_at")),
            "{err}"
        );
        assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 0);
        assert!(store.list_projects().await.unwrap().is_empty());

        // A failure inside the transaction rolls back the earlier rows too.
        store
            .call(|c| {
                c.execute_batch(
                    "CREATE TRIGGER boom BEFORE INSERT ON memories
                     WHEN new.content = 'boom'
                     BEGIN SELECT RAISE(ABORT, 'boom'); END;",
                )?;
                Ok(())
            })
            .await
            .unwrap();
        let err = store
            .import_memories(vec![
                memory("fine", None, "2024-01-01"),
                memory("boom", None, "2024-01-02"),
            ])
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Sqlite(_)));
        assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 0);
        assert!(store.search_memories(q("fine")).await.unwrap().is_empty());

        let n = store
            .import_memories(vec![
                memory("one", Some("p"), "2024-01-01"),
                memory("two", Some("p"), "2024-01-02"),
            ])
            .await
            .unwrap();
        assert_eq!(n, 2);
        assert_eq!(store.search_memories(q("two")).await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn projects_are_counted_with_their_time_ranges() {
        let store = mem();
        store
            .import_memories(vec![
                memory("a1", Some("Alpha"), "2024-01-10"),
                memory("a2", Some("alpha"), "2024-03-01T12:00:00Z"),
                memory("a3", Some(" ALPHA "), "2024-02-01"),
                memory("b1", Some("Beta"), "2024-04-01"),
                memory("g1", Some("Gamma"), "2023-06-01"),
                memory("g2", Some("Gamma"), "2023-07-01"),
                memory("n1", None, "2025-01-01"),
            ])
            .await
            .unwrap();
        let projects = store.list_projects().await.unwrap();
        assert_eq!(
            projects,
            vec![
                ProjectInfo {
                    name: "Beta".into(),
                    count: 1,
                    first_at: "2024-04-01T00:00:00.000Z".into(),
                    last_at: "2024-04-01T00:00:00.000Z".into(),
                },
                ProjectInfo {
                    name: "Alpha".into(),
                    count: 3,
                    first_at: "2024-01-10T00:00:00.000Z".into(),
                    last_at: "2024-03-01T12:00:00.000Z".into(),
                },
                ProjectInfo {
                    name: "Gamma".into(),
                    count: 2,
                    first_at: "2023-06-01T00:00:00.000Z".into(),
                    last_at: "2023-07-01T00:00:00.000Z".into(),
                },
            ]
        );
        // A later add joins the existing project whatever its case.
        let m = store
            .add_memory(memory("g3", Some("gAMMA"), "2026-01-01"))
            .await
            .unwrap();
        assert_eq!(m.project.as_deref(), Some("Gamma"));
        let projects = store.list_projects().await.unwrap();
        assert_eq!(projects[0].name, "Gamma");
        assert_eq!(projects[0].count, 3);
    }

    #[tokio::test]
    async fn reminders_are_taken_once_when_due() {
        let (_dir, store) = file_store();
        let t = |h: u32, m: u32| Utc.with_ymd_and_hms(2030, 6, 1, h, m, 0).unwrap();
        assert_eq!(store.next_pending_due().await.unwrap(), None);
        assert!(store.take_due(t(23, 0)).await.unwrap().is_empty());

        let late = store
            .add_reminder(String::from("late"), t(12, 0), None)
            .await
            .unwrap();
        let early = store.add_reminder(" early ", t(9, 0), None).await.unwrap();
        let mid = store.add_reminder("mid", t(10, 30), None).await.unwrap();
        assert_eq!(early.text, "early");
        assert_eq!(early.due_at, "2030-06-01T09:00:00.000Z");
        assert!(!early.done);
        assert_eq!(store.next_pending_due().await.unwrap(), Some(t(9, 0)));
        let listed = store.list_reminders().await.unwrap();
        assert_eq!(
            listed.iter().map(|r| r.id).collect::<Vec<_>>(),
            [early.id, mid.id, late.id]
        );

        assert!(store.take_due(t(8, 59)).await.unwrap().is_empty());
        let taken = store.take_due(t(10, 30)).await.unwrap();
        assert_eq!(
            taken.iter().map(|r| r.id).collect::<Vec<_>>(),
            [early.id, mid.id]
        );
        assert!(taken.iter().all(|r| r.done));
        assert!(store.take_due(t(10, 30)).await.unwrap().is_empty());
        assert_eq!(store.next_pending_due().await.unwrap(), Some(t(12, 0)));

        let taken = store.take_due(t(23, 0)).await.unwrap();
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].id, late.id);
        assert_eq!(store.next_pending_due().await.unwrap(), None);
        let listed = store.list_reminders().await.unwrap();
        assert!(listed.iter().all(|r| r.done));
        assert_eq!(listed.len(), 3);

        let err = store
            .add_reminder("x", t(1, 0), Some("missing".into()))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Invalid(m) if m == "unknown session"));
        let err = store.add_reminder("  ", t(1, 0), None).await.unwrap_err();
        assert!(matches!(err, StoreError::Invalid(_)));
    }

    #[tokio::test]
    async fn a_panicking_call_does_not_close_the_store() {
        let store = mem();
        let err = store
            .call(|_| -> Result<(), StoreError> { panic!("bug in a closure") })
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Closed));
        // A closure that leaves a transaction open has it rolled back.
        store
            .call(|c| {
                c.execute_batch("BEGIN; INSERT INTO sessions VALUES ('x', 't', 'chat', '', '');")?;
                Ok(())
            })
            .await
            .unwrap();
        assert!(store.list_sessions().await.unwrap().is_empty());
        store.create_session(None, "chat").await.unwrap();
        assert_eq!(store.list_sessions().await.unwrap().len(), 1);
    }
}
