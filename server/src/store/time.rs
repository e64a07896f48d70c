//! Times as the store keeps them: RFC 3339 UTC with milliseconds, never
//! two rows at the same moment; and the times a caller may give (an RFC
//! 3339 time or a plain `YYYY-MM-DD` date).

use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use rusqlite::types::Type;

use super::{invalid, StoreError};
use crate::iso8601::{self, IsoTime};

static LAST_MILLIS: AtomicI64 = AtomicI64::new(0);

/// Now, at millisecond precision, strictly later than any earlier call, so
/// that rows written one after the other never tie on time.
pub(super) fn next_now() -> DateTime<Utc> {
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
pub(super) fn fmt_ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn midnight(date: NaiveDate) -> DateTime<Utc> {
    date.and_hms_opt(0, 0, 0)
        .map(|dt| dt.and_utc())
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// An RFC 3339 time or a plain date (midnight UTC), in the stored format.
pub(super) fn parse_user_time(s: &str, what: &str) -> Result<String, StoreError> {
    let s = s.trim();
    match iso8601::parse(s) {
        Some(IsoTime::Date(date)) => Ok(fmt_ts(midnight(date))),
        Some(IsoTime::Exact(t)) => Ok(fmt_ts(t.with_timezone(&Utc))),
        _ => Err(not_a_time(what, s)),
    }
}

fn not_a_time(what: &str, s: &str) -> StoreError {
    invalid(format!(
        "{what}: {} is not a date (YYYY-MM-DD) or an RFC 3339 time",
        crate::quoting::quoted(s)
    ))
}

/// A search bound in the stored format. `since` is inclusive. `until` is
/// returned as an exclusive bound: the day after a plain date, or one
/// millisecond after a time (stored times have millisecond precision).
pub(super) fn parse_bound(s: &str, what: &str, until: bool) -> Result<String, StoreError> {
    let s = s.trim();
    let bad = || not_a_time(what, s);
    let t = match iso8601::parse(s) {
        Some(IsoTime::Date(date)) if until => midnight(date.succ_opt().ok_or_else(bad)?),
        Some(IsoTime::Date(date)) => midnight(date),
        Some(IsoTime::Exact(t)) if until => {
            let millis = t.timestamp_millis().saturating_add(1);
            DateTime::from_timestamp_millis(millis).ok_or_else(bad)?
        }
        Some(IsoTime::Exact(t)) => t.with_timezone(&Utc),
        _ => return Err(bad()),
    };
    Ok(fmt_ts(t))
}

pub(super) fn parse_stored_ts(s: &str, col: usize) -> rusqlite::Result<DateTime<Utc>> {
    iso8601::parse(s)
        .and_then(|t| t.moment_in(&Utc))
        .ok_or_else(|| {
            let why = format!("{s:?} is not a stored time");
            rusqlite::Error::FromSqlConversionFailure(col, Type::Text, why.into())
        })
}
