//! Replies that are open (being written, or waiting for the user), as the
//! store keeps them so nothing is lost when Imprint stops: the text shown
//! so far, and while a reply can be resumed its stored state, its waiting
//! question and the answer once one is accepted.
//!
//! The row is opened with the user's message (one write) and closed with
//! the reply's last messages (one write). At start, a row with a stored
//! state is resumed; any other is closed with its text, marked interrupted.

use app::protocol::Ended;
use rusqlite::{params, OptionalExtension};

use super::sessions::{append_in, prepare, NewMessage};
use super::time::{fmt_ts, next_now};
use super::{Store, StoreError};

/// A reply that was open when the store was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenReply {
    pub reply_id: String,
    pub session_id: String,
    /// What the user was shown, in full, so far.
    pub text: String,
    /// The reply's resumable state (JSON), while it has one.
    pub checkpoint: Option<String>,
    /// The question it waits on, when its state has one.
    pub question_id: Option<String>,
    /// The answer accepted for that question, not yet acted on.
    pub answer: Option<String>,
    /// The sequence number of the last event it stored.
    pub last_seq: u64,
}

/// A reply's resumable state, as the store writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedState {
    pub checkpoint: String,
    pub question_id: Option<String>,
    pub last_seq: u64,
}

impl Store {
    /// Opens a reply in a session: appends the user's message (if any; a
    /// retry has none) and records the reply, in one transaction.
    pub async fn open_reply(
        &self,
        session_id: &str,
        reply_id: &str,
        user: Option<NewMessage>,
    ) -> Result<(), StoreError> {
        let session_id = session_id.to_owned();
        let reply_id = reply_id.to_owned();
        let prepared = user.map(|m| (m, None)).into_iter().collect::<Vec<_>>();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            // A row left by a reply of this session that never closed (it
            // cannot run now: the caller holds the session's only reply):
            // its text is kept, marked interrupted, before the new message.
            let leftover: Vec<(String, String)> = tx
                .prepare("SELECT reply_id, text FROM open_replies WHERE session_id = ?1")?
                .query_map([&session_id], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (leftover_id, text) in leftover {
                end_open_in(
                    &tx,
                    &leftover_id,
                    &session_id,
                    &text,
                    Ended::Interrupted,
                    None,
                )?;
            }
            append_in(&tx, &session_id, prepared)?;
            tx.execute(
                "INSERT INTO open_replies (reply_id, session_id, started_at)
                 VALUES (?1, ?2, ?3)",
                params![reply_id, session_id, fmt_ts(next_now())],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    /// Adds text the user is about to be shown, and returns once it is
    /// written: shown only after, it survives Imprint dying at any line.
    pub async fn keep_reply_text(&self, reply_id: &str, text: &str) -> Result<(), StoreError> {
        let reply_id = reply_id.to_owned();
        let text = text.to_owned();
        self.call(move |conn| {
            conn.prepare_cached("UPDATE open_replies SET text = text || ?2 WHERE reply_id = ?1")?
                .execute(params![reply_id, text])?;
            Ok(())
        })
        .await
    }

    /// Closes the reply: appends its last messages and forgets the row,
    /// in one transaction.
    pub async fn close_reply(
        &self,
        session_id: &str,
        reply_id: &str,
        messages: Vec<NewMessage>,
    ) -> Result<(), StoreError> {
        let prepared = prepare(messages)?;
        let (session_id, reply_id) = (session_id.to_owned(), reply_id.to_owned());
        self.call(move |conn| {
            let tx = conn.transaction()?;
            if !prepared.is_empty() {
                append_in(&tx, &session_id, prepared)?;
            }
            tx.execute("DELETE FROM open_replies WHERE reply_id = ?1", [&reply_id])?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    /// Closes a reply whose task failed inside Imprint: the text shown so
    /// far is kept as an assistant message that ended with `error`. Queued,
    /// not awaited (it is called while the failed task unwinds).
    pub fn fail_reply(&self, reply_id: &str, error: &str) {
        let (reply_id, error) = (reply_id.to_owned(), error.to_owned());
        self.enqueue(move |conn| {
            let tx = conn.transaction()?;
            let row: Option<(String, String)> = tx
                .query_row(
                    "SELECT session_id, text FROM open_replies WHERE reply_id = ?1",
                    [&reply_id],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            if let Some((session_id, text)) = row {
                end_open_in(
                    &tx,
                    &reply_id,
                    &session_id,
                    &text,
                    Ended::Error,
                    Some(error),
                )?;
            }
            tx.commit()?;
            Ok(())
        });
    }

    /// Every open reply, oldest first.
    pub async fn open_replies(&self) -> Result<Vec<OpenReply>, StoreError> {
        self.call(|conn| {
            let mut stmt = conn.prepare(
                "SELECT reply_id, session_id, text, checkpoint, question_id, answer, last_seq
                 FROM open_replies ORDER BY started_at, rowid",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok(OpenReply {
                    reply_id: row.get(0)?,
                    session_id: row.get(1)?,
                    text: row.get(2)?,
                    checkpoint: row.get(3)?,
                    question_id: row.get(4)?,
                    answer: row.get(5)?,
                    last_seq: row.get::<_, i64>(6)?.max(0) as u64,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// Closes replies that were being written when Imprint stopped: each
    /// keeps its text as an assistant message marked interrupted. One
    /// transaction for all.
    pub async fn interrupt_replies(&self, replies: Vec<OpenReply>) -> Result<(), StoreError> {
        if replies.is_empty() {
            return Ok(());
        }
        self.call(move |conn| {
            let tx = conn.transaction()?;
            for reply in replies {
                end_open_in(
                    &tx,
                    &reply.reply_id,
                    &reply.session_id,
                    &reply.text,
                    Ended::Interrupted,
                    None,
                )?;
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }
}

/// Ends an open reply's row: its text becomes an assistant message with
/// how it ended (when its session still exists), and the row goes.
fn end_open_in(
    tx: &rusqlite::Transaction<'_>,
    reply_id: &str,
    session_id: &str,
    text: &str,
    ended: Ended,
    error: Option<String>,
) -> Result<(), StoreError> {
    let exists: Option<i64> = tx
        .query_row("SELECT 1 FROM sessions WHERE id = ?1", [session_id], |r| {
            r.get(0)
        })
        .optional()?;
    if exists.is_some() {
        let message = NewMessage {
            ended: Some(ended),
            error,
            ..NewMessage::assistant(text.trim())
        };
        append_in(tx, session_id, vec![(message, None)])?;
    }
    tx.execute("DELETE FROM open_replies WHERE reply_id = ?1", [reply_id])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::protocol::Role;

    async fn session(store: &Store) -> String {
        store.create_session(None, "chat").await.unwrap().id
    }

    /// A store whose one session has the reply `r1` open for "a story".
    async fn story_being_told() -> (Store, String) {
        let store = Store::open_in_memory().unwrap();
        let sid = session(&store).await;
        store
            .open_reply(&sid, "r1", Some(NewMessage::user("a story")))
            .await
            .unwrap();
        (store, sid)
    }

    fn state(question: &str, last_seq: u64) -> SavedState {
        SavedState {
            checkpoint: format!("{{\"at\": \"{question}\"}}"),
            question_id: Some(question.into()),
            last_seq,
        }
    }

    #[tokio::test]
    async fn an_open_reply_keeps_its_text_state_and_answer_until_closed() {
        let store = Store::open_in_memory().unwrap();
        let sid = session(&store).await;
        store
            .open_reply(&sid, "r1", Some(NewMessage::user("plans?")))
            .await
            .unwrap();
        store.keep_reply_text("r1", "Let me ").await.unwrap();
        store.keep_reply_text("r1", "check.").await.unwrap();
        store.save_reply_state("r1", state("q1", 4)).await.unwrap();
        assert!(store.save_answer("r1", "q-other", "x").await.is_err());
        store.save_answer("r1", "q1", "Billing").await.unwrap();
        let open = store.open_replies().await.unwrap();
        assert_eq!(
            open,
            [OpenReply {
                reply_id: "r1".into(),
                session_id: sid.clone(),
                text: "Let me check.".into(),
                checkpoint: Some("{\"at\": \"q1\"}".into()),
                question_id: Some("q1".into()),
                answer: Some("Billing".into()),
                last_seq: 4,
            }]
        );
        // A step after the answer: the row and the new state in one write.
        store
            .append_reply_step(
                &sid,
                "r1",
                vec![NewMessage::tool(
                    "ask_user",
                    serde_json::json!({}),
                    "Billing",
                )],
                Some(SavedState {
                    question_id: None,
                    ..state("next", 6)
                }),
            )
            .await
            .unwrap();
        let open = store.open_replies().await.unwrap();
        assert_eq!((open[0].answer.as_deref(), open[0].last_seq), (None, 6));
        store.drop_reply_state("r1");
        assert_eq!(store.open_replies().await.unwrap()[0].checkpoint, None);
        store
            .close_reply(&sid, "r1", vec![NewMessage::assistant("Billing it is.")])
            .await
            .unwrap();
        assert!(store.open_replies().await.unwrap().is_empty());
        let (_, messages) = store.get_session(&sid).await.unwrap().unwrap();
        let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Tool, Role::Assistant]);
    }

    #[tokio::test]
    async fn interrupted_replies_keep_their_text_marked() {
        let (store, sid) = story_being_told().await;
        store.keep_reply_text("r1", "w0 ").await.unwrap();
        let open = store.open_replies().await.unwrap();
        store.interrupt_replies(open).await.unwrap();
        assert!(store.open_replies().await.unwrap().is_empty());
        let (_, messages) = store.get_session(&sid).await.unwrap().unwrap();
        assert_eq!(messages[1].content, "w0");
        assert_eq!(messages[1].ended, Some(Ended::Interrupted));
        // A retry opens a reply without a new user message.
        store.open_reply(&sid, "r2", None).await.unwrap();
        let (_, messages) = store.get_session(&sid).await.unwrap().unwrap();
        assert_eq!(messages.len(), 2);
        assert_eq!(store.open_replies().await.unwrap()[0].reply_id, "r2");
    }

    #[tokio::test]
    async fn a_leftover_row_keeps_its_text_before_the_next_message() {
        let (store, sid) = story_being_told().await;
        store.keep_reply_text("r1", "once upon ").await.unwrap();
        store
            .open_reply(&sid, "r2", Some(NewMessage::user("again")))
            .await
            .unwrap();
        let (_, messages) = store.get_session(&sid).await.unwrap().unwrap();
        let shown: Vec<_> = messages
            .iter()
            .map(|m| (m.content.as_str(), m.ended))
            .collect();
        assert_eq!(
            shown,
            [
                ("a story", None),
                ("once upon", Some(Ended::Interrupted)),
                ("again", None)
            ]
        );
        let open = store.open_replies().await.unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].reply_id, "r2");
    }

    #[tokio::test]
    async fn a_failed_reply_keeps_its_text_with_the_error() {
        let (store, sid) = story_being_told().await;
        store.keep_reply_text("r1", "w0 ").await.unwrap();
        store.fail_reply("r1", "it broke");
        // Queued writes land in order, before anything asked later.
        assert!(store.open_replies().await.unwrap().is_empty());
        let (_, messages) = store.get_session(&sid).await.unwrap().unwrap();
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[1].content, "w0");
        assert_eq!(messages[1].ended, Some(Ended::Error));
        assert_eq!(messages[1].error.as_deref(), Some("it broke"));
        // A reply that was closed already is left alone.
        store.fail_reply("r1", "again");
        let (_, again) = store.get_session(&sid).await.unwrap().unwrap();
        assert_eq!(again.len(), 2);
    }

    #[tokio::test]
    async fn deleting_a_session_forgets_its_open_reply() {
        let store = Store::open_in_memory().unwrap();
        let sid = session(&store).await;
        store.open_reply(&sid, "r1", None).await.unwrap();
        store.delete_session(&sid).await.unwrap();
        assert!(store.open_replies().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn the_migration_keeps_existing_rows_and_reads_stopped_as_ended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("imprint.db");
        {
            // A database as the first released schema left it.
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(super::super::schema::MIGRATIONS[0])
                .unwrap();
            conn.execute_batch(
                "PRAGMA user_version = 1;
                 INSERT INTO sessions VALUES ('s', 'Old', 'chat', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
                 INSERT INTO messages (session_id, seq, role, content, stopped, created_at)
                 VALUES ('s', 1, 'user', 'hi', 0, '2026-01-01T00:00:00.000Z'),
                        ('s', 2, 'assistant', 'half', 1, '2026-01-01T00:00:01.000Z'),
                        ('s', 3, 'assistant', 'whole', 0, '2026-01-01T00:00:02.000Z');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let (summary, messages) = store.get_session("s").await.unwrap().unwrap();
        assert_eq!(summary.title, "Old");
        let kept: Vec<(&str, Option<Ended>)> = messages
            .iter()
            .map(|m| (m.content.as_str(), m.ended))
            .collect();
        assert_eq!(
            kept,
            [
                ("hi", None),
                ("half", Some(Ended::Stopped)),
                ("whole", None)
            ]
        );
        assert!(store.open_replies().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_database_with_tool_outcomes_gets_the_open_replies_step_and_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("imprint.db");
        {
            // A database as the tool-outcome step (2) left it.
            let conn = rusqlite::Connection::open(&path).unwrap();
            for step in &super::super::schema::MIGRATIONS[..2] {
                conn.execute_batch(step).unwrap();
            }
            conn.execute_batch(
                "PRAGMA user_version = 2;
                 INSERT INTO sessions VALUES ('s', 'Old', 'chat', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
                 INSERT INTO messages (session_id, seq, role, content, tool_name, tool_args, stopped, created_at, status, row_id, found)
                 VALUES ('s', 1, 'user', 'remind me', NULL, NULL, 0, '2026-01-01T00:00:00.000Z', NULL, NULL, NULL),
                        ('s', 2, 'tool', 'Reminder set', 'remind', '{}', 0, '2026-01-01T00:00:01.000Z', 'done', 7, NULL),
                        ('s', 3, 'assistant', 'half', NULL, NULL, 1, '2026-01-01T00:00:02.000Z', NULL, NULL, NULL);",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let (_, messages) = store.get_session("s").await.unwrap().unwrap();
        let tool = &messages[1];
        assert_eq!(
            (tool.status, tool.row_id, tool.ended),
            (Some(app::protocol::ToolStatus::Done), Some(7), None)
        );
        assert_eq!(messages[2].ended, Some(Ended::Stopped));
        // The new step's table is there.
        store
            .open_reply("s", "r1", Some(NewMessage::user("again")))
            .await
            .unwrap();
        assert_eq!(store.open_replies().await.unwrap()[0].reply_id, "r1");
    }
}
