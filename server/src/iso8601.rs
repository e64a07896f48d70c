//! The one reader of ISO 8601 dates and date-times, used by the reminder
//! tool, the grounding grammar and the store.
//!
//! Read: a date-time with an offset (`2026-12-01T09:00:00Z`,
//! `2026-12-01T09:00+01:00`), a date-time without one (`2026-12-01T09:00`,
//! `2026-12-01 09:00:00`: a wall-clock time, placed in a time zone by the
//! caller), and a date alone (`2026-12-01`, always two-digit month and day).
//! The `T` and `Z` may be lower case.
//!
//! Every time Imprint keeps lies in the years 0000–9999 (UTC), the years
//! RFC 3339 can write: a year of five digits, a sign, or a moment an
//! offset pushes out of them is no time, here where text becomes one.

use std::ops::RangeInclusive;

use chrono::{DateTime, Datelike, FixedOffset, Local, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// The years a kept time may have (UTC).
pub const YEARS: RangeInclusive<i32> = 0..=9999;

/// Whether `t` is a time Imprint can keep: within [`YEARS`].
pub fn storable<Tz: TimeZone>(t: &DateTime<Tz>) -> bool {
    YEARS.contains(&t.naive_utc().year())
}

/// What an ISO 8601 text says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsoTime {
    /// A moment: the text carried its offset.
    Exact(DateTime<FixedOffset>),
    /// A wall-clock date and time, in a zone the text did not say.
    Wall(NaiveDateTime),
    /// A date alone.
    Date(NaiveDate),
}

/// Date-times without an offset, and with one but no seconds (RFC 3339
/// wants the seconds).
const WALL_FORMATS: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%d %H:%M",
];
const OFFSET_FORMATS: [&str; 2] = ["%Y-%m-%dT%H:%M%#z", "%Y-%m-%d %H:%M%#z"];

/// Reads `text` (trimmed) as an ISO 8601 date or date-time; `None` if it
/// is neither.
pub fn parse(text: &str) -> Option<IsoTime> {
    let text = text.trim().to_ascii_uppercase();
    // Four digits and a dash: chrono's `%Y` also takes `+10000` and `-5`.
    let b = text.as_bytes();
    if b.len() < 10 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    let exact = |t: DateTime<FixedOffset>| storable(&t).then_some(IsoTime::Exact(t));
    if let Ok(t) = DateTime::parse_from_rfc3339(&text) {
        return exact(t);
    }
    for format in OFFSET_FORMATS {
        if let Ok(t) = DateTime::parse_from_str(&text, format) {
            return exact(t);
        }
    }
    for format in WALL_FORMATS {
        if let Ok(t) = NaiveDateTime::parse_from_str(&text, format) {
            return Some(IsoTime::Wall(t));
        }
    }
    plain_date(&text).map(IsoTime::Date)
}

impl IsoTime {
    /// The moment, a wall-clock time taken in `zone` (the earlier one when
    /// a clock change makes it twice); `None` for a date alone, a wall
    /// time that does not exist in `zone`, or one that `zone` moves out of
    /// [`YEARS`].
    pub fn moment_in<Tz: TimeZone>(self, zone: &Tz) -> Option<DateTime<Utc>> {
        match self {
            IsoTime::Exact(t) => Some(t.with_timezone(&Utc)),
            IsoTime::Wall(t) => zone
                .from_local_datetime(&t)
                .earliest()
                .map(|t| t.with_timezone(&Utc))
                .filter(storable),
            IsoTime::Date(_) => None,
        }
    }
}

/// `YYYY-MM-DD`, strictly (chrono alone also takes `2026-1-5`).
fn plain_date(s: &str) -> Option<NaiveDate> {
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

/// An ISO 8601 date-time (see [`crate::iso8601`]): with an offset, or
/// without one (the user's local time). A date alone is not enough.
pub fn parse_date_time(text: &str, now: DateTime<Local>) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    match parse(text) {
        Some(IsoTime::Date(_)) | None => Err(format!(
            "`at` must be an ISO 8601 date-time such as 2026-12-01T09:00, not {text:?}"
        )),
        Some(t) => t.moment_in(&now.timezone()).ok_or_else(|| {
            format!(
                "{text} does not exist in the local time zone, or is outside the years 0000–9999"
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    fn wall(s: &str) -> Option<IsoTime> {
        Some(IsoTime::Wall(
            NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap(),
        ))
    }

    #[test]
    fn offsets_make_exact_moments() {
        let utc = parse("2030-01-02T03:04:05Z").unwrap();
        assert_eq!(
            utc.moment_in(&Utc).unwrap().to_rfc3339(),
            "2030-01-02T03:04:05+00:00"
        );
        let lower = parse("2030-01-02t03:04:05z").unwrap();
        assert_eq!(lower, utc);
        let no_seconds = parse("2030-01-02T04:04+01:00").unwrap();
        assert_eq!(
            no_seconds.moment_in(&Utc).unwrap().to_rfc3339(),
            "2030-01-02T03:04:00+00:00"
        );
    }

    #[test]
    fn wall_times_take_the_callers_zone() {
        assert_eq!(parse("2030-01-02T03:04"), wall("2030-01-02 03:04:00"));
        assert_eq!(parse("2030-01-02 03:04:05"), wall("2030-01-02 03:04:05"));
        assert_eq!(parse(" 2030-01-02t03:04 "), wall("2030-01-02 03:04:00"));
        let east = FixedOffset::east_opt(2 * 3600).unwrap();
        let t = parse("2030-01-02T03:04").unwrap().moment_in(&east).unwrap();
        assert_eq!(t.to_rfc3339(), "2030-01-02T01:04:00+00:00");
    }

    #[test]
    fn dates_alone_are_strict_and_have_no_moment() {
        let date = parse("2030-01-02").unwrap();
        assert_eq!(
            date,
            IsoTime::Date(NaiveDate::from_ymd_opt(2030, 1, 2).unwrap())
        );
        assert_eq!(date.moment_in(&Utc), None);
        assert_eq!(parse("2030-1-2"), None);
        assert_eq!(parse("2030-02-30"), None);
    }

    #[test]
    fn times_outside_the_years_0000_to_9999_are_no_times() {
        for text in [
            "+10000-01-01T09:00Z",
            "+13434-05-06T07:08:09.000Z",
            "-0001-01-01T00:00Z",
            "10000-01-01",
            "9999-12-31T23:00-05:00",
            "0000-01-01T00:30+01:00",
        ] {
            let moment = parse(text).and_then(|t| t.moment_in(&Utc));
            assert_eq!(moment, None, "{text}");
        }
        let last = parse("9999-12-31T23:59:59.999Z").and_then(|t| t.moment_in(&Utc));
        assert!(last.is_some());
        let first = parse("0000-01-01T00:00Z").and_then(|t| t.moment_in(&Utc));
        assert!(first.is_some());
        // A wall time that the zone pushes past the last year.
        let west = FixedOffset::west_opt(5 * 3600).unwrap();
        assert_eq!(parse("9999-12-31T23:00").unwrap().moment_in(&west), None);
    }

    #[test]
    fn other_words_are_not_times() {
        for text in [
            "tomorrow",
            "",
            "9:30",
            "2030",
            "2030-01-02T25:00",
            "12/01/2030",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
