//! Reminders as the timer reads them: when the next one is due, and
//! taking those due (a one-off marked done, a repeating one moved to its
//! next time), each firing returned once.

use app::protocol::Reminder;
use chrono::{DateTime, Local, Utc};
use rusqlite::{params, Connection, TransactionBehavior};

use super::reminders::{next_time, readable_reminder, COLUMNS};
use super::time::{fmt_ts, parse_stored_ts};
use super::{Store, StoreError};

impl Store {
    /// When the earliest reminder not yet done is due. A row whose time
    /// cannot be read is skipped (and logged): it must not hold back the
    /// ones after it.
    pub async fn next_pending_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        self.call(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT id, due_at FROM reminders WHERE done = 0 ORDER BY due_at, id",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let id: i64 = row.get(0)?;
                let due = row.get_ref(1)?.as_str().ok().map(|d| parse_stored_ts(d, 1));
                match due {
                    Some(Ok(due)) => return Ok(Some(due)),
                    _ => tracing::warn!(id, "a reminder's time cannot be read; it is skipped"),
                }
            }
            Ok(None)
        })
        .await
    }

    /// Takes every pending reminder due at or before `now` and returns them
    /// as they fired, soonest first. A one-off is marked done; a repeating
    /// one moves to its next time after `now`. Each firing is returned once.
    pub async fn take_due(&self, now: DateTime<Utc>) -> Result<Vec<Reminder>, StoreError> {
        self.call(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut taken = {
                let mut stmt = tx.prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM reminders WHERE done = 0 AND due_at <= ?1"
                ))?;
                let rows = stmt.query_map([fmt_ts(now)], readable_reminder)?;
                // A row that cannot be read (its time sorts before any
                // real one) is never fired.
                let mut taken = Vec::new();
                for row in rows {
                    match row? {
                        Ok(reminder) => taken.push(reminder),
                        Err(bad) => tracing::warn!(id = bad.id, problem = %bad.problem, "a reminder cannot be read; it is skipped"),
                    }
                }
                taken
            };
            for reminder in &mut taken {
                fire(&tx, reminder, now)?;
            }
            tx.commit()?;
            taken.sort_by(|a, b| a.due_at.cmp(&b.due_at).then(a.id.cmp(&b.id)));
            Ok(taken)
        })
        .await
    }
}

/// Marks a fired one-off done, or moves a repeating one to its next time.
fn fire(conn: &Connection, reminder: &mut Reminder, now: DateTime<Utc>) -> Result<(), StoreError> {
    match reminder.repeat {
        None => {
            conn.prepare_cached("UPDATE reminders SET done = 1 WHERE id = ?1")?
                .execute([reminder.id])?;
            reminder.done = true;
        }
        Some(repeat) => {
            let due = parse_stored_ts(&reminder.due_at, 2)?;
            let next = next_time(due, repeat, now, &Local);
            conn.prepare_cached("UPDATE reminders SET due_at = ?2 WHERE id = ?1")?
                .execute(params![reminder.id, fmt_ts(next)])?;
        }
    }
    Ok(())
}
