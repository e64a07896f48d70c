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

/// Class: words in capitals shaped like an abbreviation (ending in "T")
/// that are no zone, so "at 9 NEXT week" is not refused as an unknown one.
const CAPITAL_WORDS: &[&str] = &[
    "next", "first", "east", "west", "test", "text", "chat", "meet", "start", "visit", "post",
    "part", "best", "rest", "list", "alert", "exact", "draft", "sit", "hit", "cut", "lot",
];

/// Class: words before "time" that name no place ("9am Local time",
/// "at 7 Dinner time"), so an unknown one written as a name is not refused
/// as a city.
const NO_PLACE_TIMES: &[&str] = &[
    "local",
    "home",
    "usual",
    "normal",
    "standard",
    "summer",
    "winter",
    "daylight",
    "lunch",
    "dinner",
    "breakfast",
    "bed",
    "tea",
    "break",
    "free",
    "screen",
    "family",
    "quiet",
    "school",
    "office",
    "work",
    "party",
    "game",
    "play",
    "show",
];

/// The longest name of a city read before "time" that an unknown one is
/// refused by (a longer word is quoted nowhere).
const LONGEST_UNKNOWN: usize = 30;

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
    let a_word =
        LOOKALIKE_WORDS.contains(&lower.as_str()) || common_words::names_nothing_kept(&lower);
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
    let shaped = capitals
        && (3..=5).contains(&word.len())
        && word.ends_with('T')
        && !a_word
        && !CAPITAL_WORDS.contains(&lower.as_str());
    shaped.then(|| {
        Said::Refused(format!(
            "{word} is not a time zone Imprint knows: give an offset (+02:00) or a zone such as Europe/Paris"
        ))
    })
}

/// "Paris time", "new york time" from the word at `i`: the zone of the
/// database named after that city, refused where the name is several
/// zones' with different clocks, or where it is written as a name
/// ("Gotham time") but no zone's.
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
    // One word written as a name, before "time", that no zone is named after.
    let word = bare(tokens, i);
    let named = word.len() <= LONGEST_UNKNOWN
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.chars().skip(1).all(|c| c.is_ascii_lowercase())
        && word.len() >= 2
        && !common_words::names_nothing_kept(&word.to_ascii_lowercase())
        && !NO_PLACE_TIMES.contains(&word.to_ascii_lowercase().as_str());
    let before_time = i + 1 < tokens.len() && bare(tokens, i + 1).eq_ignore_ascii_case("time");
    (named && before_time).then(|| {
        Said::Refused(format!(
            "{word} is not a city Imprint knows a time zone for: give an offset (+02:00) or a zone such as Europe/Paris"
        ))
    })
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

    /// The zone `text` says, as minutes east of UTC on the 15th of `month`
    /// 2030, and the words left.
    fn minutes_in(text: &str, month: u32) -> (i32, String) {
        match said(text) {
            Said::In(zone, rest) => {
                let at = Utc.with_ymd_and_hms(2030, month, 15, 12, 0, 0).unwrap();
                (zone.offset_at(at) / 60, rest)
            }
            other => panic!("{text}: {other:?}"),
        }
    }

    /// Why `text`'s zone is refused.
    fn refused(text: &str) -> String {
        match said(text) {
            Said::Refused(why) => why,
            other => panic!("{text} is not refused: {other:?}"),
        }
    }

    #[test]
    fn abbreviations_are_read_after_a_clock_time_or_refused_by_name() {
        assert_eq!(
            said("tomorrow at 9 EST"),
            Said::In(fixed(-300), "tomorrow at 9".into())
        );
        // PST is the Pacific clock: its summer time applies in July.
        assert_eq!(minutes_in("9am PST", 1), (-480, "9am".into()));
        assert_eq!(minutes_in("9am PST", 7).0, -420);
        assert_eq!(said("at 9 pm CET"), Said::In(fixed(60), "at 9 pm".into()));
        assert_eq!(minutes_in("at 10 BST", 7), (60, "at 10".into()));
        for ambiguous in ["at 9 IST", "tomorrow at 9 CST"] {
            let why = refused(ambiguous);
            assert!(why.contains("IST") || why.contains("CST"), "{why}");
        }
        // Not after a time: a word like any other.
        assert_eq!(said("ask the PT team tomorrow"), Said::Nothing);
        assert_eq!(said("call est at 9"), Said::Nothing);
    }

    #[test]
    fn abbreviations_come_from_the_zone_database_in_any_case() {
        assert_eq!(minutes_in("9 est", 1), (-300, "9".into()));
        assert_eq!(minutes_in("9 pst", 1), (-480, "9".into()));
        assert_eq!(minutes_in("9 WIB", 1), (420, "9".into()));
        assert_eq!(minutes_in("9 wib", 7), (420, "9".into()));
        assert_eq!(minutes_in("at 9 JST", 1).0, 540);
        assert_eq!(minutes_in("at 9 AEST", 1).0, 600);
        assert_eq!(minutes_in("at 9 ChST", 1).0, 600);
        assert_eq!(minutes_in("at 9 chst", 1).0, 600);
        assert_eq!(minutes_in("at 9 msk", 1).0, 180);
        assert_eq!(minutes_in("at 9 utc", 1).0, 0);
        assert_eq!(minutes_in("at 9 GMT", 7).0, 0);
        // An abbreviation zones with different clocks show is its own
        // offset all year: CET (Algiers keeps it in summer) in July.
        assert_eq!(minutes_in("at 9 CET", 7).0, 60);
        // One shown by one clock only is that clock: CEST in January is
        // the Central European clock, then on CET.
        assert_eq!(minutes_in("at 9 CEST", 7).0, 120);
        assert_eq!(minutes_in("at 9 CEST", 1).0, 60);
        // One zone's clock: its summer time applies (AKST in July).
        assert_eq!(minutes_in("at 9 AKST", 7).0, -480);
        // Kept from before tzdata wrote "+08" for Singapore.
        assert_eq!(minutes_in("at 9 SGT", 1).0, 480);
        // The US short forms, in capitals.
        assert_eq!(minutes_in("at 9 ET", 7).0, -240);
        assert_eq!(minutes_in("at 9 PT", 1).0, -480);
        assert!(refused("9 ist").contains("IST"));
    }

    #[test]
    fn a_shared_abbreviation_is_the_many_zones_clock_only_against_one_other() {
        // Manila's PST and Cuba's CDT lose to the US clocks.
        assert_eq!(minutes_in("at 9 PST", 1).0, -480);
        assert_eq!(minutes_in("at 9 CDT", 7).0, -300);
        // China and Cuba against US Central: refused, naming all three.
        let why = refused("at 9 cst");
        for offset in ["-06:00", "+08:00", "-05:00"] {
            assert!(why.contains(offset), "{why}");
        }
        let why = refused("at 9 IST");
        for offset in ["+05:30", "+01:00", "+02:00", "Europe/Dublin"] {
            assert!(why.contains(offset), "{why}");
        }
        // Arabia's AST, which tzdata no longer writes, is still meant.
        assert!(refused("at 9 AST").contains("Arabia"));
    }

    #[test]
    fn ordinary_words_are_not_zones() {
        for text in [
            "9 at",
            "at 9 am",
            "at 9 eat breakfast",
            "at 9 wet the plants",
            "go west at 9 west",
            "at 9 pt",
            "at 9 et al",
            "at 9 bt",
            "at 9 NEXT week",
            "at 9 IT standup",
            "at 9 lunch time",
            "9am Local time",
            "at 7 Dinner time",
            "at 9 same time",
            "AT 9 EAT",
            "meet in EST",
            "in 2 hours",
            "at 9 in the morning",
        ] {
            assert_eq!(said(text), Said::Nothing, "{text}");
        }
        // In a text all in capitals, a zone's abbreviation still is one.
        assert_eq!(minutes_in("AT 9 EST", 1), (-300, "AT 9".into()));
    }

    #[test]
    fn a_citys_time_is_its_zone() {
        let paris: Tz = "Europe/Paris".parse().unwrap();
        assert_eq!(
            said("9 Paris time"),
            Said::In(Zone::Named(paris), "9".into())
        );
        assert_eq!(
            minutes_in("tomorrow at 9 London time", 7),
            (60, "tomorrow at 9".into())
        );
        assert_eq!(minutes_in("at 9 new york time", 1), (-300, "at 9".into()));
        assert_eq!(minutes_in("at 9am, Tokyo time", 1).0, 540);
        assert_eq!(minutes_in("at 9 Los Angeles time", 7).0, -420);
        // A name no zone has, written as one: refused by name.
        assert!(refused("at 9 Gotham time").contains("Gotham"));
    }

    #[test]
    fn a_zone_after_in_takes_the_in_with_it() {
        assert_eq!(minutes_in("at 9 in EST", 1), (-300, "at 9".into()));
        assert_eq!(
            minutes_in("tomorrow at 9 in est", 1),
            (-300, "tomorrow at 9".into())
        );
        assert_eq!(minutes_in("at 9 in London time", 1), (0, "at 9".into()));
        assert_eq!(minutes_in("at 9 in pacific time", 1), (-480, "at 9".into()));
        assert_eq!(minutes_in("at 9 in +05:00", 1), (300, "at 9".into()));
        assert_eq!(minutes_in("at 9 in Europe/Paris", 1), (60, "at 9".into()));
        assert!(refused("at 9 in IST").contains("IST"));
    }

    #[test]
    fn an_unknown_abbreviation_is_refused_by_name() {
        assert!(refused("9 XYZT").contains("XYZT"));
        // tzdata writes "-03" for Brasília now: BRT is refused, not dropped.
        assert!(refused("tomorrow at 9 BRT").contains("BRT"));
    }

    #[test]
    fn no_input_breaks_the_reading() {
        let long = format!("9 {} time", "A".repeat(10_000));
        let many_ins = format!("at 9 {}EST", "in ".repeat(1_000));
        let hostile = [
            "",
            " ",
            "9",
            "in",
            "at 9 in",
            "time",
            "9 time",
            "9 UTC+a€",
            "9 UTC +é€",
            "9 GMT-€€",
            "9 +é€1",
            "9 +99:99",
            "9 UTC-",
            "9 GMT+ 5",
            "9 - time",
            "9 / time",
            "9 a/b/c/ time",
            "9 Europe/ time",
            "9 🙂 time",
            "9 \u{0}T",
            "\u{202e}9 EST",
            long.as_str(),
            many_ins.as_str(),
        ];
        let now = Local.with_ymd_and_hms(2030, 1, 10, 12, 0, 0).unwrap();
        for text in hostile {
            if let Said::Refused(why) = said(text) {
                assert!(why.len() < 400, "{text}: {why}");
            }
            let _ = read_in_zone(text, now, super::super::stated);
        }
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
        // The audit's cases: each in its zone (January: Paris UTC+1).
        assert_eq!(at("tomorrow at 9 est").hour(), 14);
        assert_eq!(at("tomorrow at 9 pst").hour(), 17);
        assert_eq!(at("tomorrow at 9 in EST").hour(), 14);
        assert_eq!(at("tomorrow at 9 WIB").hour(), 2);
        assert_eq!(at("tomorrow at 9 Paris time").hour(), 8);
        assert_eq!(at("tomorrow at 9 London time").hour(), 9);
        assert!(read_in_zone("tomorrow at 9 BRT", now, read).is_none());
    }
}
