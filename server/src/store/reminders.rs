//! Reminders: adding them (once or repeating), listing them (upcoming or
//! done), editing and deleting them, the next one due, and taking the due
//! ones (each exactly once per time it is due). A repeating reminder is
//! never done by firing: its `due_at` moves to its next time, kept at the
//! same wall-clock time of the user's zone.

use app::protocol::{Reminder, ReminderStatus, Repeat, UnreadableReminder};
use chrono::{DateTime, Datelike, Days, NaiveDateTime, TimeZone, Utc, Weekday};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{params, Connection, Row};

use super::sessions::session_exists;
use super::time::{fmt_ts, next_now, parse_stored_ts};
use super::{invalid, Store, StoreError};

/// A change to a reminder: what is `Some` changes (`repeat: Some(None)`
/// makes it a one-off).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReminderChange {
    pub text: Option<String>,
    pub due_at: Option<DateTime<Utc>>,
    pub done: Option<bool>,
    pub repeat: Option<Option<Repeat>>,
}

pub(super) const COLUMNS: &str = "id, text, due_at, done, session_id, repeat";

impl Store {
    /// A reminder due at `due_at`, optionally tied to a session (an unknown
    /// session is `Invalid`).
    pub async fn add_reminder(
        &self,
        text: impl Into<String>,
        due_at: DateTime<Utc>,
        session_id: Option<String>,
    ) -> Result<Reminder, StoreError> {
        self.add_reminder_repeating(text, due_at, session_id, None)
            .await
    }

    /// A reminder due at `due_at` that, with `repeat`, comes back after it
    /// fires.
    pub async fn add_reminder_repeating(
        &self,
        text: impl Into<String>,
        due_at: DateTime<Utc>,
        session_id: Option<String>,
        repeat: Option<Repeat>,
    ) -> Result<Reminder, StoreError> {
        let text = reminder_text(text.into())?;
        let due_at = fmt_ts(storable(due_at)?);
        self.call(move |conn| {
            let tx = conn.transaction()?;
            if let Some(id) = &session_id {
                if !session_exists(&tx, id)? {
                    return Err(invalid("unknown session"));
                }
            }
            tx.execute(
                "INSERT INTO reminders (text, due_at, session_id, created_at, done, repeat)
                 VALUES (?1, ?2, ?3, ?4, 0, ?5)",
                params![
                    text,
                    due_at,
                    session_id,
                    fmt_ts(next_now()),
                    repeat.map(Stored)
                ],
            )?;
            let id = tx.last_insert_rowid();
            tx.commit()?;
            Ok(Reminder {
                id,
                text,
                due_at,
                done: false,
                session_id,
                repeat,
            })
        })
        .await
    }

    /// Every reminder, done or not, soonest first (rows that cannot be
    /// read are left out).
    pub async fn list_reminders(&self) -> Result<Vec<Reminder>, StoreError> {
        Ok(self.reminders_with(None).await?.0)
    }

    /// Reminders with `status` (all when `None`): upcoming ones soonest
    /// first, done ones latest first; and apart, the rows with that status
    /// that cannot be read.
    pub async fn reminders_with(
        &self,
        status: Option<ReminderStatus>,
    ) -> Result<(Vec<Reminder>, Vec<UnreadableReminder>), StoreError> {
        let sql = match status {
            None => format!("SELECT {COLUMNS} FROM reminders ORDER BY due_at, id"),
            Some(ReminderStatus::Upcoming) => {
                format!("SELECT {COLUMNS} FROM reminders WHERE done = 0 ORDER BY due_at, id")
            }
            Some(ReminderStatus::Done) => format!(
                "SELECT {COLUMNS} FROM reminders WHERE done = 1 ORDER BY due_at DESC, id DESC"
            ),
        };
        self.call(move |conn| {
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map([], readable_reminder)?;
            let mut readable = Vec::new();
            let mut unreadable = Vec::new();
            for row in rows {
                match row? {
                    Ok(reminder) => readable.push(reminder),
                    Err(problem) => unreadable.push(problem),
                }
            }
            Ok((readable, unreadable))
        })
        .await
    }

    /// One reminder by id.
    pub async fn get_reminder(&self, id: i64) -> Result<Option<Reminder>, StoreError> {
        self.call(move |conn| reminder_by_id(conn, id)).await
    }

    /// Changes what `change` gives; `None` if there is no such reminder.
    pub async fn update_reminder(
        &self,
        id: i64,
        change: ReminderChange,
    ) -> Result<Option<Reminder>, StoreError> {
        let text = change.text.map(reminder_text).transpose()?;
        let due_at = change.due_at.map(storable).transpose()?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let Some(mut reminder) = reminder_by_id(&tx, id)? else {
                return Ok(None);
            };
            if let Some(text) = text {
                reminder.text = text;
            }
            if let Some(due_at) = due_at {
                reminder.due_at = fmt_ts(due_at);
            }
            if let Some(done) = change.done {
                reminder.done = done;
            }
            if let Some(repeat) = change.repeat {
                reminder.repeat = repeat;
            }
            tx.prepare_cached(
                "UPDATE reminders SET text = ?2, due_at = ?3, done = ?4, repeat = ?5 WHERE id = ?1",
            )?
            .execute(params![
                id,
                reminder.text,
                reminder.due_at,
                reminder.done,
                reminder.repeat.map(Stored)
            ])?;
            tx.commit()?;
            Ok(Some(reminder))
        })
        .await
    }

    /// Deletes a reminder; false if there was none with that id.
    pub async fn delete_reminder(&self, id: i64) -> Result<bool, StoreError> {
        self.call(move |conn| {
            let deleted = conn
                .prepare_cached("DELETE FROM reminders WHERE id = ?1")?
                .execute([id])?;
            Ok(deleted > 0)
        })
        .await
    }
}

/// The first time after `now` that a reminder due at `due` and repeating
/// as `repeat` comes back: the same wall-clock time in `zone` on the next
/// day, weekday or week. Times missed while Imprint was stopped are not
/// fired one by one: the next one ahead is.
pub fn next_time<Z: TimeZone>(
    due: DateTime<Utc>,
    repeat: Repeat,
    now: DateTime<Utc>,
    zone: &Z,
) -> DateTime<Utc> {
    let wall = due.with_timezone(zone).naive_local();
    let today = now.with_timezone(zone).date_naive();
    // Skip whole weeks that lie behind (a week keeps the weekday).
    let behind = (today - wall.date()).num_days();
    let weeks = (behind / 7 - 1).max(0) as u64;
    let mut wall = wall.checked_add_days(Days::new(weeks * 7)).unwrap_or(wall);
    loop {
        wall = step(wall, repeat);
        if let Some(at) = in_zone(wall, zone) {
            if at > now {
                return at;
            }
        }
    }
}

fn step(wall: NaiveDateTime, repeat: Repeat) -> NaiveDateTime {
    let next = |w: NaiveDateTime, days| w.checked_add_days(Days::new(days)).unwrap_or(w);
    match repeat {
        Repeat::Daily => next(wall, 1),
        Repeat::Weekly => next(wall, 7),
        Repeat::Weekdays => match wall.weekday() {
            Weekday::Fri => next(wall, 3),
            Weekday::Sat => next(wall, 2),
            _ => next(wall, 1),
        },
    }
}

/// A wall-clock time in `zone`: the earlier of a repeated hour; an hour
/// later in a skipped one.
fn in_zone<Z: TimeZone>(wall: NaiveDateTime, zone: &Z) -> Option<DateTime<Utc>> {
    zone.from_local_datetime(&wall)
        .earliest()
        .or_else(|| {
            zone.from_local_datetime(&(wall + chrono::Duration::hours(1)))
                .earliest()
        })
        .map(|t| t.with_timezone(&Utc))
}

/// A due time the store can write and read back (see [`crate::iso8601::YEARS`]).
fn storable(due_at: DateTime<Utc>) -> Result<DateTime<Utc>, StoreError> {
    if crate::iso8601::storable(&due_at) {
        Ok(due_at)
    } else {
        Err(invalid(
            "a reminder's time must be within the years 0000–9999",
        ))
    }
}

fn reminder_text(text: String) -> Result<String, StoreError> {
    let text = text.trim().to_owned();
    if text.is_empty() {
        return Err(invalid("the reminder text must not be blank"));
    }
    Ok(text)
}

/// One reminder by id; a row that cannot be read is `Invalid`, saying so
/// (it can still be deleted).
fn reminder_by_id(conn: &Connection, id: i64) -> Result<Option<Reminder>, StoreError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM reminders WHERE id = ?1"))?;
    let mut rows = stmt.query_map([id], readable_reminder)?;
    match rows.next().transpose()? {
        None => Ok(None),
        Some(Ok(reminder)) => Ok(Some(reminder)),
        Some(Err(bad)) => Err(invalid(format!(
            "reminder {id} cannot be read ({}); delete it",
            bad.problem
        ))),
    }
}

/// A row as a reminder whose time can be read, or what is wrong with it.
pub(super) fn readable_reminder(
    row: &Row<'_>,
) -> rusqlite::Result<Result<Reminder, UnreadableReminder>> {
    let id: i64 = row.get(0)?;
    let read = reminder_from_row(row)
        .and_then(|reminder| parse_stored_ts(&reminder.due_at, 2).map(|_| reminder));
    Ok(read.map_err(|error| UnreadableReminder {
        id,
        problem: match error {
            rusqlite::Error::FromSqlConversionFailure(_, _, why) => why.to_string(),
            other => other.to_string(),
        },
    }))
}

fn reminder_from_row(row: &Row<'_>) -> rusqlite::Result<Reminder> {
    Ok(Reminder {
        id: row.get(0)?,
        text: row.get(1)?,
        due_at: row.get(2)?,
        done: row.get(3)?,
        session_id: row.get(4)?,
        repeat: row.get::<_, Option<Stored>>(5)?.map(|s| s.0),
    })
}

/// A [`Repeat`] as stored: its wire name.
struct Stored(Repeat);

impl ToSql for Stored {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.as_str()))
    }
}

impl FromSql for Stored {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let name = value.as_str()?;
        Repeat::parse(name)
            .map(Stored)
            .ok_or_else(|| FromSqlError::Other(format!("{name:?} is not a repeat").into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    fn utc(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, min, 0).unwrap()
    }

    #[test]
    fn a_daily_reminder_comes_back_the_next_day_at_the_same_time() {
        let due = utc(2026, 12, 1, 9, 0);
        assert_eq!(
            next_time(due, Repeat::Daily, due, &Utc),
            utc(2026, 12, 2, 9, 0)
        );
        assert_eq!(
            next_time(due, Repeat::Weekly, due, &Utc),
            utc(2026, 12, 8, 9, 0)
        );
    }

    #[test]
    fn weekdays_skip_the_weekend() {
        // 2026-12-04 is a Friday.
        let friday = utc(2026, 12, 4, 9, 0);
        assert_eq!(
            next_time(friday, Repeat::Weekdays, friday, &Utc),
            utc(2026, 12, 7, 9, 0)
        );
        let saturday = utc(2026, 12, 5, 9, 0);
        assert_eq!(
            next_time(saturday, Repeat::Weekdays, saturday, &Utc),
            utc(2026, 12, 7, 9, 0)
        );
    }

    #[test]
    fn times_missed_while_stopped_are_skipped_to_the_next_one_ahead() {
        let due = utc(2026, 1, 5, 9, 0); // a Monday
        let now = utc(2026, 12, 2, 12, 0); // a Wednesday, later in the day
        assert_eq!(
            next_time(due, Repeat::Daily, now, &Utc),
            utc(2026, 12, 3, 9, 0)
        );
        assert_eq!(
            next_time(due, Repeat::Weekly, now, &Utc),
            utc(2026, 12, 7, 9, 0)
        );
    }

    #[test]
    fn the_wall_clock_time_holds_in_the_users_zone() {
        let zone = FixedOffset::east_opt(5 * 3600).unwrap();
        // 09:00 at +05:00 is 04:00 UTC.
        let due = utc(2026, 12, 1, 4, 0);
        assert_eq!(
            next_time(due, Repeat::Daily, due, &zone),
            utc(2026, 12, 2, 4, 0)
        );
    }
}
