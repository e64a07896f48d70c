//! Time zones in the words of a time: a written offset ("+05:00",
//! "UTC+5", "GMT-3:30"), a zone's name from the zone database
//! ("Europe/Paris", chrono-tz's data), an abbreviation ("EST", "CET") or
//! a named US time ("pacific time"). A time that says one is read as the
//! clock shows it there; an abbreviation that means several offsets
//! ("IST", "CST") or a name the database does not know is refused by
//! name, never dropped (the time would fire at the wrong hour).
//!
//! Abbreviations, like offsets, count only right after a clock time ("9
//! EST", "9am PST", "21:00 CET"): "the PT team" names no zone.

use chrono::{DateTime, Duration, FixedOffset, Local, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;

use super::Stated;

/// A zone a time was said in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Zone {
    /// A written offset, or an abbreviation that stands for one.
    Fixed(FixedOffset),
    /// A zone of the database, with its clock changes.
    Named(Tz),
}

/// What the words of a time say about its zone.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    /// Nothing: the time is the user's own local time.
    Nothing,
    /// A zone, and the words without those that named it.
    In(Zone, String),
    /// A zone that cannot be read, and why (naming it).
    Refused(String),
}

/// What an abbreviation stands for.
#[derive(Clone, Copy, Debug)]
enum Meaning {
    /// Minutes east of UTC.
    Offset(i32),
    /// A zone of the database (its clock changes apply).
    Zone(&'static str),
    /// Several offsets: refused, naming them.
    Ambiguous(&'static str),
}

/// Zone abbreviations as people write them, and what each stands for.
/// An abbreviation in use for more than one offset is refused with the
/// offsets it may mean.
const ABBREVIATIONS: &[(&str, Meaning)] = &[
    ("UTC", Meaning::Offset(0)),
    ("GMT", Meaning::Offset(0)),
    ("WET", Meaning::Offset(0)),
    ("WEST", Meaning::Offset(60)),
    ("BST", Meaning::Offset(60)),
    ("CET", Meaning::Offset(60)),
    ("CEST", Meaning::Offset(120)),
    ("EET", Meaning::Offset(120)),
    ("EEST", Meaning::Offset(180)),
    ("MSK", Meaning::Offset(180)),
    ("PKT", Meaning::Offset(300)),
    ("SGT", Meaning::Offset(480)),
    ("HKT", Meaning::Offset(480)),
    ("AWST", Meaning::Offset(480)),
    ("JST", Meaning::Offset(540)),
    ("KST", Meaning::Offset(540)),
    ("ACST", Meaning::Offset(570)),
    ("AEST", Meaning::Offset(600)),
    ("AEDT", Meaning::Offset(660)),
    ("NZST", Meaning::Offset(720)),
    ("NZDT", Meaning::Offset(780)),
    ("HST", Meaning::Offset(-600)),
    ("AKST", Meaning::Offset(-540)),
    ("AKDT", Meaning::Offset(-480)),
    ("PST", Meaning::Offset(-480)),
    ("PDT", Meaning::Offset(-420)),
    ("MST", Meaning::Offset(-420)),
    ("MDT", Meaning::Offset(-360)),
    ("CDT", Meaning::Offset(-300)),
    ("EST", Meaning::Offset(-300)),
    ("EDT", Meaning::Offset(-240)),
    ("PT", Meaning::Zone("America/Los_Angeles")),
    ("MT", Meaning::Zone("America/Denver")),
    ("CT", Meaning::Zone("America/Chicago")),
    ("ET", Meaning::Zone("America/New_York")),
    (
        "IST",
        Meaning::Ambiguous("India (+05:30), Ireland (+01:00) or Israel (+02:00)"),
    ),
    (
        "CST",
        Meaning::Ambiguous("US Central (-06:00), China (+08:00) or Cuba (-05:00)"),
    ),
    (
        "AST",
        Meaning::Ambiguous("Atlantic (-04:00) or Arabia (+03:00)"),
    ),
    (
        "BT",
        Meaning::Ambiguous("Baghdad (+03:00) or Bhutan (+06:00)"),
    ),
];

/// US times said by name, followed by "time": "pacific time".
const NAMED_TIMES: &[(&str, &str)] = &[
    ("pacific", "America/Los_Angeles"),
    ("mountain", "America/Denver"),
    ("central", "America/Chicago"),
    ("eastern", "America/New_York"),
];

/// The largest offset written: ±14:00 (Kiribati).
const MAX_OFFSET_MINUTES: i32 = 14 * 60;

impl Zone {
    /// The moment the clock shows `wall` in this zone (the earlier of two
    /// in a clock change's repeated hour; `None` in a skipped one).
    fn moment(self, wall: NaiveDateTime) -> Option<DateTime<Utc>> {
        match self {
            Zone::Fixed(offset) => offset
                .from_local_datetime(&wall)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
            Zone::Named(tz) => tz
                .from_local_datetime(&wall)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
        }
    }

    /// Seconds east of UTC at `at`.
    fn offset_at(self, at: DateTime<Utc>) -> i32 {
        match self {
            Zone::Fixed(offset) => offset.local_minus_utc(),
            Zone::Named(tz) => tz
                .offset_from_utc_datetime(&at.naive_utc())
                .fix()
                .local_minus_utc(),
        }
    }
}

/// Reads `text` with `read` (the grammar, given a text and now) in the
/// zone it names: the words are read against the zone's own clock, and
/// the wall time they give is taken there. `None` when the zone is
/// refused.
pub(super) fn read_in_zone(
    text: &str,
    now: DateTime<Local>,
    read: impl Fn(&str, DateTime<Local>) -> Option<Stated>,
) -> Option<Stated> {
    let (zone, rest) = match said(text) {
        Said::Nothing => return read(text, now),
        Said::Refused(_) => return None,
        Said::In(zone, rest) => (zone, rest),
    };
    // Now as the zone's clock shows it, on the local clock: "at 9" is the
    // next 9:00 there, "tomorrow" its tomorrow.
    let utc = now.with_timezone(&Utc);
    let shift = i64::from(zone.offset_at(utc)) - i64::from(now.offset().fix().local_minus_utc());
    let there = now.checked_add_signed(Duration::seconds(shift))?;
    match read(&rest, there)? {
        Stated::At(t) => {
            let wall = t.naive_local();
            zone.moment(wall)
                .map(|t| Stated::At(t.with_timezone(&Local)))
        }
        Stated::Day(day) => Some(Stated::Day(day)),
    }
}

/// What `text` says about a time zone (see the module's notes).
pub fn said(text: &str) -> Said {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let bare = |i: usize| -> &str {
        tokens[i].trim_matches(|c: char| matches!(c, ',' | '.' | ';' | '(' | ')' | '!' | '?'))
    };
    for i in 0..tokens.len() {
        let word = bare(i);
        // A zone of the database, wherever it stands; a name in one of
        // its areas that it does not hold is refused ("and/or" is no
        // zone at all).
        if let Some(name) = area_city(word) {
            if let Some(tz) = database_zone(name) {
                return Said::In(Zone::Named(tz), without(&tokens, i, 1));
            }
            if database_area(name) {
                return Said::Refused(format!(
                    "{name:?} is not a time zone Imprint knows: give an offset (+02:00) or a zone such as Europe/Paris"
                ));
            }
        }
        // "pacific time".
        if i + 1 < tokens.len() && bare(i + 1).eq_ignore_ascii_case("time") {
            let named = NAMED_TIMES
                .iter()
                .find(|(name, _)| word.eq_ignore_ascii_case(name))
                .and_then(|(_, zone)| zone.parse::<Tz>().ok());
            if let Some(tz) = named {
                return Said::In(Zone::Named(tz), without(&tokens, i, 2));
            }
        }
        if !after_a_clock_time(&tokens, i) {
            continue;
        }
        // "UTC+5", "GMT-3:30", "+05:00", and "UTC +5" in two words.
        if let Some(offset) = written_offset(word) {
            return match offset {
                Ok(offset) => Said::In(Zone::Fixed(offset), without(&tokens, i, 1)),
                Err(why) => Said::Refused(why),
            };
        }
        let prefix = word.eq_ignore_ascii_case("utc") || word.eq_ignore_ascii_case("gmt");
        if prefix && i + 1 < tokens.len() {
            if let Some(Ok(offset)) = signed_offset(bare(i + 1)) {
                return Said::In(Zone::Fixed(offset), without(&tokens, i, 2));
            }
        }
        // An abbreviation, written in capitals ("UTC" and "GMT" in any case).
        let written = if prefix {
            word.to_ascii_uppercase()
        } else {
            word.to_string()
        };
        if let Some((name, meaning)) = ABBREVIATIONS.iter().find(|(name, _)| *name == written) {
            return match *meaning {
                Meaning::Offset(minutes) => match FixedOffset::east_opt(minutes * 60) {
                    Some(offset) => Said::In(Zone::Fixed(offset), without(&tokens, i, 1)),
                    None => Said::Refused(format!("{name} is not an offset Imprint can read")),
                },
                Meaning::Zone(zone) => match zone.parse::<Tz>() {
                    Ok(tz) => Said::In(Zone::Named(tz), without(&tokens, i, 1)),
                    Err(_) => Said::Refused(format!("{name} is not a zone Imprint knows")),
                },
                Meaning::Ambiguous(places) => Said::Refused(format!(
                    "{name} may mean {places}: give the offset (e.g. +05:30) or the zone (e.g. Asia/Kolkata)"
                )),
            };
        }
    }
    Said::Nothing
}

/// The words without `count` of them from `at`.
fn without(tokens: &[&str], at: usize, count: usize) -> String {
    tokens
        .iter()
        .enumerate()
        .filter(|(i, _)| !(at..at + count).contains(i))
        .map(|(_, t)| *t)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the word at `i` follows a clock time: a word with a digit ("9",
/// "9am", "21:00"), or "am"/"pm" after one.
fn after_a_clock_time(tokens: &[&str], i: usize) -> bool {
    let has_digit = |word: &str| word.chars().any(|c| c.is_ascii_digit());
    match i {
        0 => false,
        _ if has_digit(tokens[i - 1]) => true,
        1 => false,
        _ => {
            let meridiem = tokens[i - 1].trim_matches('.').replace('.', "");
            (meridiem.eq_ignore_ascii_case("am") || meridiem.eq_ignore_ascii_case("pm"))
                && has_digit(tokens[i - 2])
        }
    }
}

/// "UTC+5", "GMT-03:30" or a bare "+05:00" / "+0530" (a bare offset needs
/// its minutes, so "+5" alone is no zone).
fn written_offset(word: &str) -> Option<Result<FixedOffset, String>> {
    let upper = word.to_ascii_uppercase();
    for prefix in ["UTC", "GMT"] {
        if let Some(rest) = upper.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return signed_offset(rest);
            }
        }
    }
    let digits = word.get(1..).unwrap_or("");
    let full = (digits.len() == 5 && digits.as_bytes().get(2) == Some(&b':'))
        || (digits.len() == 4 && digits.chars().all(|c| c.is_ascii_digit()));
    if word.starts_with(['+', '-']) && full {
        return signed_offset(word);
    }
    None
}

/// "+5", "-3:30", "+0530", "+05:00": an offset, refused past ±14:00.
fn signed_offset(text: &str) -> Option<Result<FixedOffset, String>> {
    let sign = match text.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let body = &text[1..];
    let (hours, minutes) = match body.split_once(':') {
        Some((h, m)) => (h, m),
        None if body.len() == 4 => body.split_at(2),
        None => (body, "0"),
    };
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.chars().all(|c| c.is_ascii_digit());
    if !digits(hours) || !digits(minutes) {
        return None;
    }
    let (hours, minutes): (i32, i32) = (hours.parse().ok()?, minutes.parse().ok()?);
    let total = hours * 60 + minutes;
    if minutes >= 60 || total > MAX_OFFSET_MINUTES {
        return Some(Err(format!(
            "{text} is not an offset from UTC (at most ±14:00)"
        )));
    }
    Some(
        FixedOffset::east_opt(sign * total * 60)
            .ok_or_else(|| format!("{text} is not an offset from UTC")),
    )
}

/// A word shaped like a zone's name: "Europe/Paris", "America/New_York".
fn area_city(word: &str) -> Option<&str> {
    let mut parts = word.split('/');
    let area = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let shaped = area.len() >= 2
        && area.chars().all(|c| c.is_ascii_alphabetic())
        && !rest.is_empty()
        && rest.iter().all(|part| {
            part.starts_with(|c: char| c.is_ascii_alphabetic())
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'))
        });
    shaped.then_some(word)
}

/// Whether `name` starts with an area of the database ("Europe/…").
fn database_area(name: &str) -> bool {
    let area = name.split('/').next().unwrap_or("");
    chrono_tz::TZ_VARIANTS.iter().any(|tz| {
        tz.name()
            .split_once('/')
            .is_some_and(|(known, _)| known.eq_ignore_ascii_case(area))
    })
}

/// Whether `name` (an Area/City word) is a zone of the database.
pub fn is_known_zone(name: &str) -> bool {
    database_zone(name).is_some()
}

/// The database's zone of that name, as written or in its usual case
/// ("europe/paris" is Europe/Paris).
fn database_zone(name: &str) -> Option<Tz> {
    name.parse::<Tz>().ok().or_else(|| {
        let mut cased = String::with_capacity(name.len());
        let mut start = true;
        for c in name.chars() {
            cased.push(if start {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            });
            start = matches!(c, '/' | '_' | '-');
        }
        cased.parse::<Tz>().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(minutes: i32) -> Zone {
        Zone::Fixed(FixedOffset::east_opt(minutes * 60).unwrap())
    }

    #[test]
    fn written_offsets_are_read() {
        assert_eq!(
            said("tomorrow 9:00 +05:00"),
            Said::In(fixed(300), "tomorrow 9:00".into())
        );
        assert_eq!(
            said("tomorrow at 9 UTC+5"),
            Said::In(fixed(300), "tomorrow at 9".into())
        );
        assert_eq!(
            said("tomorrow at 9 GMT+2"),
            Said::In(fixed(120), "tomorrow at 9".into())
        );
        assert_eq!(said("at 9 utc -3:30"), Said::In(fixed(-210), "at 9".into()));
        assert_eq!(said("at 9 -0430"), Said::In(fixed(-270), "at 9".into()));
        assert!(matches!(said("at 9 UTC+15"), Said::Refused(_)));
        // Not after a clock time, or not an offset: no zone.
        assert_eq!(said("call +5 people"), Said::Nothing);
        assert_eq!(said("at 9 +5"), Said::Nothing);
    }

    #[test]
    fn abbreviations_are_read_after_a_clock_time_or_refused_by_name() {
        assert_eq!(
            said("tomorrow at 9 EST"),
            Said::In(fixed(-300), "tomorrow at 9".into())
        );
        assert_eq!(said("9am PST"), Said::In(fixed(-480), "9am".into()));
        assert_eq!(said("at 9 pm CET"), Said::In(fixed(60), "at 9 pm".into()));
        assert_eq!(said("at 10 BST"), Said::In(fixed(60), "at 10".into()));
        for ambiguous in ["at 9 IST", "tomorrow at 9 CST"] {
            let Said::Refused(why) = said(ambiguous) else {
                panic!("{ambiguous} is not refused");
            };
            assert!(why.contains("IST") || why.contains("CST"), "{why}");
        }
        // Not after a time: a word like any other.
        assert_eq!(said("ask the PT team tomorrow"), Said::Nothing);
        assert_eq!(said("call est at 9"), Said::Nothing);
    }

    #[test]
    fn zone_names_come_from_the_database() {
        let paris: Tz = "Europe/Paris".parse().unwrap();
        assert_eq!(
            said("2030-01-01T09:00 Europe/Paris"),
            Said::In(Zone::Named(paris), "2030-01-01T09:00".into())
        );
        assert_eq!(
            said("at 9 europe/paris"),
            Said::In(Zone::Named(paris), "at 9".into())
        );
        let la: Tz = "America/Los_Angeles".parse().unwrap();
        assert_eq!(
            said("tomorrow at 9 pacific time"),
            Said::In(Zone::Named(la), "tomorrow at 9".into())
        );
        assert!(matches!(said("at 9 Europe/Atlantis"), Said::Refused(_)));
        assert_eq!(said("call Anna and/or Tom at 9"), Said::Nothing);
        assert!(!is_known_zone("Mars/Olympus"));
    }

    #[test]
    fn a_time_in_a_zone_is_the_moment_its_clock_shows_it() {
        use chrono::Timelike;
        let now = Local.with_ymd_and_hms(2030, 1, 10, 12, 0, 0).unwrap();
        let read = |text: &str, now: DateTime<Local>| super::super::stated(text, now);
        let at = |text: &str| match read_in_zone(text, now, read) {
            Some(Stated::At(t)) => t.with_timezone(&Utc),
            other => panic!("{text}: {other:?}"),
        };
        let nine_est = at("tomorrow at 9 EST");
        assert_eq!((nine_est.hour(), nine_est.minute()), (14, 0));
        assert_eq!(at("tomorrow 9:00 +05:00").hour(), 4);
        // Winter in Paris: UTC+1.
        assert_eq!(at("2030-01-11T09:00 Europe/Paris").hour(), 8);
        // A span is the same span wherever it is said.
        let span = at("in 2 hours UTC+5");
        assert_eq!(span, now.with_timezone(&Utc) + Duration::hours(2));
        assert!(read_in_zone("at 9 IST", now, read).is_none());
    }
}
