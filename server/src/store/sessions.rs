//! Sessions and their messages: creating, listing, renaming and deleting
//! sessions, and appending messages (all or nothing, in order; the first
//! user message names an untitled session).

use app::protocol::{CallReason, Ended, Message, Role, SessionSummary, ToolStatus};
use rusqlite::types::Type;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

use super::time::{fmt_ts, next_now};
use super::{invalid, Store, StoreError};

/// The title of a session that has not been named yet.
pub const DEFAULT_TITLE: &str = "New chat";

/// The channel of a session created without one.
pub const DEFAULT_CHANNEL: &str = "chat";

/// Titles are cut to this many characters.
pub const TITLE_MAX_CHARS: usize = 60;

/// A message to append to a session.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMessage {
    pub role: Role,
    pub content: String,
    pub tool_name: Option<String>,
    pub tool_args: Option<Value>,
    /// How an assistant message that did not finish normally ended.
    pub ended: Option<Ended>,
    /// With `ended: Error`: what went wrong.
    pub error: Option<String>,
    /// A tool row's outcome, as its `tool_result` told it.
    pub outcome: Option<ToolOutcome>,
}

/// What became of a tool call, kept with its row so history shows what
/// happened, not what the model asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolOutcome {
    pub status: ToolStatus,
    /// The memory or reminder a write made.
    pub row_id: Option<i64>,
    /// How many memories or projects a read found.
    pub found: Option<u64>,
    /// Why the call did nothing (the `reason` column holds its JSON; a
    /// row stored before reasons were typed, its words).
    pub reason: Option<CallReason>,
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
            ended: None,
            error: None,
            outcome: None,
        }
    }

    /// This row with its call's outcome.
    pub fn with_outcome(mut self, outcome: ToolOutcome) -> Self {
        self.outcome = Some(outcome);
        self
    }

    fn plain(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_name: None,
            tool_args: None,
            ended: None,
            error: None,
            outcome: None,
        }
    }
}

impl Store {
    /// The session row of a voice conversation, with the id Echo reserved
    /// at `hello` (nothing if it is there already).
    pub async fn create_voice_session(&self, id: &str) -> Result<(), StoreError> {
        let id = id.to_string();
        self.call(move |conn| {
            conn.execute(
                "INSERT OR IGNORE INTO sessions (id, title, channel, created_at, updated_at)
                 VALUES (?1, 'Voice conversation', 'voice', ?2, ?2)",
                params![id, fmt_ts(next_now())],
            )?;
            Ok(())
        })
        .await
    }

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

    /// The titles of the given sessions that exist, by id.
    pub async fn session_titles(
        &self,
        ids: Vec<String>,
    ) -> Result<std::collections::HashMap<String, String>, StoreError> {
        self.call(move |conn| {
            let mut stmt = conn.prepare_cached("SELECT title FROM sessions WHERE id = ?1")?;
            let mut titles = std::collections::HashMap::new();
            for id in ids {
                if let Some(title) = stmt
                    .query_row([&id], |row| row.get::<_, String>(0))
                    .optional()?
                {
                    titles.insert(id, title);
                }
            }
            Ok(titles)
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
                    "SELECT seq, role, content, tool_name, tool_args, created_at, stopped,
                            ended, error, status, row_id, found, reason
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

    /// A session and one page of its messages: the `limit` newest of those
    /// before seq `before` (the newest of all without it), in order, and
    /// how many messages come before the page. `None` if there is no such
    /// session. Both reads walk the `(session_id, seq)` key from the page's
    /// end, so a page of a long chat costs the page, not the chat.
    pub async fn get_session_page(
        &self,
        id: &str,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Option<(SessionSummary, Vec<Message>, u64)>, StoreError> {
        let id = id.to_owned();
        let before = before.unwrap_or(i64::MAX);
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let Some(summary) = session_summary(&tx, &id)? else {
                return Ok(None);
            };
            let mut messages = {
                let mut stmt = tx.prepare_cached(PAGE_SELECT)?;
                let rows = stmt.query_map(params![id, before, limit], message_from_row)?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            messages.reverse();
            let first = messages.first().map_or(before, |m| m.seq);
            let older: i64 = tx
                .prepare_cached(OLDER_COUNT)?
                .query_row(params![id, first], |row| row.get(0))?;
            tx.commit()?;
            Ok(Some((summary, messages, u64::try_from(older).unwrap_or(0))))
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
}

/// Messages with their arguments serialized, before going to the store's
/// thread.
pub(super) fn prepare(
    messages: Vec<NewMessage>,
) -> Result<Vec<(NewMessage, Option<String>)>, StoreError> {
    messages
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
        .collect()
}

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

/// A page of messages, newest first (reversed by the caller).
pub(super) const PAGE_SELECT: &str =
    "SELECT seq, role, content, tool_name, tool_args, created_at, stopped,
            ended, error, status, row_id, found, reason
     FROM messages WHERE session_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3";

/// How many messages come before a page.
pub(super) const OLDER_COUNT: &str =
    "SELECT COUNT(*) FROM messages WHERE session_id = ?1 AND seq < ?2";

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

pub(super) fn session_exists(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
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
        ended: ended_from_row(row)?,
        error: row.get(8)?,
        html: None,
        status: row
            .get::<_, Option<String>>(9)?
            .and_then(|status| ToolStatus::parse(&status)),
        row_id: row.get(10)?,
        found: row
            .get::<_, Option<i64>>(11)?
            .and_then(|n| u64::try_from(n).ok()),
        reason: row
            .get::<_, Option<String>>(12)?
            .map(|reason| CallReason::from_stored(&reason)),
    })
}

/// `ended`, or for a row older than that column, `stopped`.
fn ended_from_row(row: &Row<'_>) -> rusqlite::Result<Option<Ended>> {
    match row.get::<_, Option<String>>(7)? {
        Some(name) => Ended::parse(&name)
            .map(Some)
            .ok_or_else(|| conversion_error(7, format!("bad ending {name:?}"))),
        None if row.get::<_, bool>(6)? => Ok(Some(Ended::Stopped)),
        None => Ok(None),
    }
}

/// The body of `append_messages`, inside the caller's transaction.
pub(super) fn append_in(
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
               (session_id, seq, role, content, tool_name, tool_args, stopped, created_at,
                ended, error, status, row_id, found, reason)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?
        .execute(params![
            session_id,
            seq,
            role_str(message.role),
            message.content,
            message.tool_name,
            args_text,
            message.ended == Some(Ended::Stopped),
            created_at,
            message.ended.map(Ended::as_str),
            message.error,
            message.outcome.as_ref().map(|o| o.status.as_str()),
            message.outcome.as_ref().and_then(|o| o.row_id),
            message
                .outcome
                .as_ref()
                .and_then(|o| o.found)
                .and_then(|n| i64::try_from(n).ok()),
            message
                .outcome
                .as_ref()
                .and_then(|o| o.reason.as_ref())
                .map(CallReason::to_stored),
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
            ended: message.ended,
            error: message.error,
            html: None,
            status: message.outcome.as_ref().map(|o| o.status),
            row_id: message.outcome.as_ref().and_then(|o| o.row_id),
            found: message.outcome.as_ref().and_then(|o| o.found),
            reason: message.outcome.and_then(|o| o.reason),
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
