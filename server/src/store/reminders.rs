//! Reminders: adding them, listing them, the next one due, and taking
//! the due ones (each exactly once).

use app::protocol::Reminder;
use chrono::{DateTime, Utc};
use rusqlite::{params, Row, TransactionBehavior};

use super::sessions::session_exists;
use super::time::{fmt_ts, next_now, parse_stored_ts};
use super::{invalid, Store, StoreError};

impl Store {
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

fn reminder_from_row(row: &Row<'_>) -> rusqlite::Result<Reminder> {
    Ok(Reminder {
        id: row.get(0)?,
        text: row.get(1)?,
        due_at: row.get(2)?,
        done: row.get(3)?,
        session_id: row.get(4)?,
    })
}
