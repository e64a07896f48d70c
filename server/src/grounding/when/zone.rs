//! Time zones in the words of a time: a written offset ("+05:00",
//! "UTC+5", "GMT-3:30"), a zone's name from the zone database
//! ("Europe/Paris", chrono-tz's data), an abbreviation the database's
//! zones show ("EST", "cet", "WIB"; see [`names`]), a city's time ("Paris
//! time", "new york time") or a named US time ("pacific time"). A time
//! that says one is read as the clock shows it there; an abbreviation
//! that means several offsets ("IST", "CST"), a name the database does not
//! know, or a word shaped like an abbreviation that no zone shows ("9
//! BRT") is refused by name, never dropped (the time would fire at the
//! wrong hour).
//!
//! Abbreviations, like offsets and cities, count only right after a clock
//! time ("9 EST", "9am PST", "21:00 CET", "at 9 in EST"): "the PT team"
//! names no zone. In lower case they count unless they are also English
//! words ("at 9 eat breakfast").

use chrono::{DateTime, Duration, FixedOffset, Local, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;

use self::names::Meaning;
use super::Stated;
use crate::common_words;

mod names;

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

/// US times said by name, followed by "time": "pacific time". Class: the
/// US clocks' own names, read wherever they stand (the database holds them
/// only as old aliases, "US/Pacific", which a city's time reads only
/// after a clock time).
const NAMED_TIMES: &[(&str, &str)] = &[
    ("pacific", "America/Los_Angeles"),
    ("mountain", "America/Denver"),
    ("central", "America/Chicago"),
    ("eastern", "America/New_York"),
];

/// Class: English words the zone database also uses as abbreviations
/// ("EAT" is East Africa Time, "WET" Western European Time). In lower case
/// after a time they are the words ("at 9 eat breakfast"), not zones.
const LOOKALIKE_WORDS: &[&str] = &["cat", "eat", "wet", "west", "wit", "wat"];

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
    // In a text of words with no lower case ("AT 9 EAT"), capitals say
    // nothing of an abbreviation: its words are read as if in lower case.
    // One word alone in capitals ("9 EST") is written so.
    let words = (0..tokens.len())
        .filter(|&i| {
            let word = bare(&tokens, i);
            !word.is_empty() && word.chars().all(char::is_alphabetic)
        })
        .count();
    let shouted = words >= 2 && !text.chars().any(char::is_lowercase);
    for i in 0..tokens.len() {
        let word = bare(&tokens, i);
        // "at 9 in EST": the "in" goes with the zone.
        let lead = if i >= 1 && bare(&tokens, i - 1).eq_ignore_ascii_case("in") {
            i - 1
        } else {
            i
        };
        let from = |at: usize| {
            if lead < at && after_a_clock_time(&tokens, lead) {
                lead
            } else {
                at
            }
        };
        // A zone of the database, wherever it stands; a name in one of
        // its areas that it does not hold is refused ("and/or" is no
        // zone at all).
        if let Some(name) = area_city(word) {
            if let Some(tz) = database_zone(name) {
                let start = from(i);
                return Said::In(Zone::Named(tz), without(&tokens, start, i + 1 - start));
            }
            if database_area(name) {
                return Said::Refused(format!(
                    "{name:?} is not a time zone Imprint knows: give an offset (+02:00) or a zone such as Europe/Paris"
                ));
            }
        }
        // "pacific time".
        if i + 1 < tokens.len() && bare(&tokens, i + 1).eq_ignore_ascii_case("time") {
            let named = NAMED_TIMES
                .iter()
                .find(|(name, _)| word.eq_ignore_ascii_case(name))
                .and_then(|(_, zone)| zone.parse::<Tz>().ok());
            if let Some(tz) = named {
                let start = from(i);
                return Said::In(Zone::Named(tz), without(&tokens, start, i + 2 - start));
            }
        }
        let start = from(i);
        if start == i && !after_a_clock_time(&tokens, i) {
            continue;
        }
        if let Some(said) = zone_at(&tokens, i, start, shouted) {
            return said;
        }
    }
    Said::Nothing
}

/// The zone said by the words from `i`, which follow a clock time: an
/// offset, an abbreviation, a city's time, or something shaped like an
/// abbreviation that no zone has (refused). `start` is where the words
/// that go with it begin ("in" before it).
fn zone_at(tokens: &[&str], i: usize, start: usize, shouted: bool) -> Option<Said> {
    let word = bare(tokens, i);
    let gone = |count: usize| without(tokens, start, i + count - start);
    // "UTC+5", "GMT-3:30", "+05:00", and "UTC +5" in two words.
    if let Some(offset) = written_offset(word) {
        return Some(match offset {
            Ok(offset) => Said::In(Zone::Fixed(offset), gone(1)),
            Err(why) => Said::Refused(why),
        });
    }
    let prefix = word.eq_ignore_ascii_case("utc") || word.eq_ignore_ascii_case("gmt");
    if prefix && i + 1 < tokens.len() {
        if let Some(Ok(offset)) = signed_offset(bare(tokens, i + 1)) {
            return Some(Said::In(Zone::Fixed(offset), gone(2)));
        }
    }
    // "Paris time", "New York time": a city of the database.
    if let Some(said) = city_time(tokens, i, &gone) {
        return Some(said);
    }
    // An abbreviation: "EST", and "est" in lower case unless it is also an
    // English word ("at 9 eat breakfast").
    if word.is_empty() || !word.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let capitals = !shouted && word.chars().all(|c| c.is_ascii_uppercase());
    let lower = word.to_ascii_lowercase();
    let upper = word.to_ascii_uppercase();
    let a_word = LOOKALIKE_WORDS.contains(&lower.as_str())
        || common_words::names_nothing_kept(&lower)
        || super::is_time_word(&lower);
    // Two letters ("ET", "PT", "BT") only as written in capitals: "et",
    // "pt" and "bt" are words.
    let in_capitals = word.chars().all(|c| c.is_ascii_uppercase());
    let readable = capitals || (!a_word && (in_capitals || word.len() >= 3));
    if readable {
        if let Some(meaning) = names::abbreviation(&upper) {
            return Some(match meaning {
                Meaning::Fixed(offset) => Said::In(Zone::Fixed(offset), gone(1)),
                Meaning::Named(tz) => Said::In(Zone::Named(tz), gone(1)),
                Meaning::Ambiguous(places) => Said::Refused(format!(
                    "{upper} may mean {places}: give the offset you mean (+hh:mm) or its zone's name (Area/City) instead"
                )),
            });
        }
    }
    // Shaped like an abbreviation but none of the database's ("9 BRT",
    // "9 XYZT"): refused, not read as local time.
    let shaped = capitals && (3..=4).contains(&word.len()) && word.ends_with('T') && !a_word;
    shaped.then(|| {
        Said::Refused(format!(
            "{word} is not a time zone Imprint knows: give an offset (+02:00) or a zone such as Europe/Paris"
        ))
    })
}

/// "Paris time", "new york time" from the word at `i`: the zone of the
/// database named after that city, refused where the name is several
/// zones' with different clocks. (A name no zone has, "Gotham time", is
/// left to the words: "Dinner time" is no place either.)
fn city_time(tokens: &[&str], i: usize, gone: &dyn Fn(usize) -> String) -> Option<Said> {
    let longest = (*names::LONGEST_CITY).min(tokens.len().saturating_sub(i + 1));
    for count in (1..=longest).rev() {
        if !bare(tokens, i + count).eq_ignore_ascii_case("time") {
            continue;
        }
        let words: Vec<&str> = (i..i + count).map(|at| bare(tokens, at)).collect();
        let city = words.join(" ").to_lowercase();
        match names::city(&city) {
            Some(Meaning::Named(tz)) => return Some(Said::In(Zone::Named(tz), gone(count + 1))),
            Some(Meaning::Fixed(offset)) => {
                return Some(Said::In(Zone::Fixed(offset), gone(count + 1)))
            }
            Some(Meaning::Ambiguous(zones)) => {
                return Some(Said::Refused(format!(
                    "{} may mean {zones}: give the offset you mean (+hh:mm) or its zone's name (Area/City) instead",
                    words.join(" ")
                )))
            }
            None => {}
        }
    }
    None
}

/// The word at `i` without the punctuation around it.
fn bare<'a>(tokens: &[&'a str], i: usize) -> &'a str {
    tokens
        .get(i)
        .copied()
        .unwrap_or("")
        .trim_matches(|c: char| matches!(c, ',' | '.' | ';' | '(' | ')' | '!' | '?'))
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
    // Only ASCII is read: a byte index is then a character's.
    let body = text.get(1..).filter(|body| body.is_ascii())?;
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
mod tests;
