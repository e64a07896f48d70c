//! Calendar days in words, without a clock or a zone database: "Saturday
//! 8 June" for a reason's day, "Tue 1 Dec 09:00" for a wall-clock time.
//! The server and the page write dates the same way from here (the
//! server's own date arithmetic is chrono's; these only say a date).

const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// A calendar day, checked: month 1–12, day 1–31.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Day {
    year: i64,
    month: usize,
    day: i64,
}

impl Day {
    fn new(year: i64, month: i64, day: i64) -> Option<Self> {
        let month = usize::try_from(month).ok()?;
        ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(Self { year, month, day })
    }

    /// 0 for Monday … 6 for Sunday.
    fn weekday(self) -> usize {
        // 1970-01-01 was a Thursday (3).
        let days = days_from_civil(self.year, self.month as i64, self.day);
        // rem_euclid(7) is 0..7, so the index is in range.
        (days + 3).rem_euclid(7) as usize
    }

    fn weekday_name(self) -> &'static str {
        WEEKDAYS[self.weekday()]
    }

    fn month_name(self) -> &'static str {
        MONTHS[self.month - 1]
    }
}

/// The digits of `text` in `range`, as a number (`None` if any is not a
/// digit or the range is not there).
fn number(text: &str, range: std::ops::Range<usize>) -> Option<i64> {
    let part = text.get(range)?;
    part.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| part.parse().ok())?
}

/// The day of a text that starts "YYYY-MM-DD".
fn day_of(text: &str) -> Option<Day> {
    let bytes = text.as_bytes();
    if bytes.get(4) != Some(&b'-') || bytes.get(7) != Some(&b'-') {
        return None;
    }
    Day::new(
        number(text, 0..4)?,
        number(text, 5..7)?,
        number(text, 8..10)?,
    )
}

/// A calendar day (YYYY-MM-DD) as people say it: "Saturday 8 June" (the
/// server's chrono `%A %-d %B`). `None` for a text that is no such day.
pub fn day_words(day: &str) -> Option<String> {
    if day.len() != 10 {
        return None;
    }
    let day = day_of(day)?;
    Some(format!(
        "{} {} {}",
        day.weekday_name(),
        day.day,
        day.month_name()
    ))
}

/// "Tue 1 Dec 09:00" from an ISO 8601 date-time, read as the wall-clock
/// time it names (the server writes times in the user's zone).
pub fn local_time(iso: &str) -> Option<String> {
    let day = day_of(iso)?;
    let (hour, minute) = (number(iso, 11..13)?, number(iso, 14..16)?);
    if iso.as_bytes().get(13) != Some(&b':')
        || !matches!(iso.as_bytes().get(10), Some(b'T' | b't' | b' '))
        || hour > 23
        || minute > 59
    {
        return None;
    }
    Some(format!(
        "{} {} {} {hour:02}:{minute:02}",
        &day.weekday_name()[..3],
        day.day,
        &day.month_name()[..3]
    ))
}

/// Days since 1970-01-01 (a Thursday) of a proleptic Gregorian date
/// (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_said_with_their_weekday() {
        assert_eq!(day_words("2024-06-08").as_deref(), Some("Saturday 8 June"));
        assert_eq!(
            day_words("2000-02-29").as_deref(),
            Some("Tuesday 29 February")
        );
        assert_eq!(
            day_words("2026-01-01").as_deref(),
            Some("Thursday 1 January")
        );
        assert_eq!(
            day_words("1969-12-31").as_deref(),
            Some("Wednesday 31 December")
        );
        assert_eq!(day_words("2026-13-01"), None);
        assert_eq!(day_words("2026-12-01T09:00"), None);
        assert_eq!(day_words("soon"), None);
        assert_eq!(day_words(""), None);
        assert_eq!(day_words("2026-1é-01"), None);
    }

    #[test]
    fn local_times_read_the_wall_clock_and_refuse_what_is_not_a_time() {
        assert_eq!(
            local_time("2026-12-01T09:00").as_deref(),
            Some("Tue 1 Dec 09:00")
        );
        assert_eq!(
            local_time("2027-02-28 18:30:00Z").as_deref(),
            Some("Sun 28 Feb 18:30")
        );
        assert_eq!(
            local_time("2000-01-01T00:00").as_deref(),
            Some("Sat 1 Jan 00:00")
        );
        for bad in [
            "tomorrow",
            "2026-13-01T09:00",
            "2026-12-01",
            "2026-12-01T25:00",
            "é",
        ] {
            assert_eq!(local_time(bad), None, "{bad}");
        }
    }
}
