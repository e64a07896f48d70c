//! When the user said something should happen: a small grammar over their
//! own words, relative to their local time.
//!
//! Recognised: ISO 8601 dates and date-times; "today", "tomorrow", "the day
//! after tomorrow", "tonight", weekdays ("on Friday", "next Monday"), month
//! dates ("December 3", "3rd of December") and dates with slashes ("14/12",
//! "12/14/26"; [`slashed_date`]); clock times ("at 9", "9am", "18:00",
//! "9:30 pm", "6.45pm", "noon", "midnight", "7 o'clock", the Nordic "kl 10"
//! and "kl. 8.30"); parts of the day
//! ("this evening", "tomorrow morning"); and spans from now ("in 2 hours",
//! "in 1 hr 15 min", "in an hour and a half", "2 hours from now";
//! [`span`]). Filler words after "in", "at" or "by" are read past: "in
//! exactly 2 hours", "at about 9", "around noon". A bare number is not a
//! time: "call 3 people" says nothing about when, nor does "12.50 an hour".
//!
//! Short forms some words share ("sat", "sun", "wed", "3/4", "24/7") are a
//! day only where a day is being said: "on sat", "next wed", "thurs at
//! 6.45pm", "by 3/4"; "I sat down" and "put on sun cream" are no time.
//!
//! Recurrence is read apart from the moment ([`recurrence`]): "every day",
//! "daily", "on weekdays", "weekly", "every Monday". "Every day" says how
//! often, not when: with no clock time or day, the time is still asked.

mod clock_time;
mod event;
mod slashed_date;
mod span;
mod time_words;
mod zone;

use clock_time::{clock_at, clock_time, is_anchor};
pub use event::{before_an_event, BeforeEvent, EventMoment};
pub use slashed_date::{date_order, date_order_of, DateOrder};
use slashed_date::{Reading, Slashed};
pub(crate) use span::is_bare_span;
use span::span_from_now;
pub(crate) use time_words::is_time_word;
pub use time_words::{is_only_time, without_the_time, zone_name};
pub use zone::{is_known_zone, said as zone_said, Said as ZoneSaid};

use chrono::{DateTime, Datelike, Duration, Local, NaiveDate, NaiveTime, TimeZone, Weekday};

use crate::iso8601::{self, IsoTime};

/// What the user's words fix about a moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stated {
    /// A moment: "tomorrow at 9", "in 2 hours", "2026-12-01T09:00".
    At(DateTime<Local>),
    /// A day without a time of day: "tomorrow", "on Friday".
    Day(NaiveDate),
}

/// The hour a day is given when only the day was said.
pub const DEFAULT_HOUR: u32 = 9;

impl Stated {
    /// The calendar day, of a moment or a day alone.
    pub fn day(self) -> NaiveDate {
        match self {
            Stated::At(t) => t.date_naive(),
            Stated::Day(day) => day,
        }
    }

    /// The moment, with a day alone taken at [`DEFAULT_HOUR`].
    pub fn moment(self) -> Option<DateTime<Local>> {
        match self {
            Stated::At(t) => Some(t),
            Stated::Day(day) => local(day, clock(DEFAULT_HOUR, 0)?),
        }
    }
}

/// Finds when the user's words say, or `None` when they say nothing about
/// time.
pub fn stated(text: &str, now: DateTime<Local>) -> Option<Stated> {
    stated_in(&opening_span_from_now(text), now, date_order())
}

/// "1 hr 20 min - check the kiln": a span alone before the first mark
/// opens a jotted reminder and is that long from now ("in 1 hr 20 min
/// - …"); other text as it is.
fn opening_span_from_now(text: &str) -> std::borrow::Cow<'_, str> {
    match split_at_first_mark(text) {
        Some((span, _)) if span::is_bare_span(span) => format!("in {}", text.trim_start()).into(),
        _ => text.into(),
    }
}

/// `text` at its first mark (a dash, a comma, or a colon that is no
/// clock's, "18:00 - …"): what opens it, and what follows the mark.
pub(crate) fn split_at_first_mark(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let (cut, mark) = text.char_indices().find(|&(i, c)| {
        matches!(c, '-' | '–' | '—' | ',')
            || (c == ':' && !bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    })?;
    Some((&text[..cut], &text[cut + mark.len_utf8()..]))
}

/// [`stated`], with dates such as "3/4" read in `order`.
fn stated_in(text: &str, now: DateTime<Local>, order: Option<DateOrder>) -> Option<Stated> {
    let read = |text: &str, now| read_stated(text, now, order); // in the zone said, if any
    zone::read_in_zone(text, now, read).filter(|stated| match stated {
        Stated::At(t) => iso8601::storable(t),
        Stated::Day(day) => iso8601::YEARS.contains(&day.year()),
    })
}

/// A time of day alone ("10am", "in the evening") placed on `day`: the
/// answer to "what time on Saturday?". `None` when the words say a day, a
/// span or a date of their own, or no time of day.
pub fn time_on(text: &str, day: NaiveDate) -> Option<DateTime<Local>> {
    let words = as_an_hour(without_fillers(words(text)));
    if iso(&words).is_some()
        || span_from_now(&words).is_some()
        || day_of(&words, day, None).is_some()
    {
        return None;
    }
    let part = part_of_day(&words);
    let time = clock_time(&words, part).or(part.map(Part::time))?;
    local(day, time).filter(iso8601::storable)
}

/// An answer to "what time?" that starts with a bare number ("10", "10 in
/// the morning", "18.45") means that hour: read as "at 10 …". Elsewhere a
/// bare number is no time ("call 3 people", "12.50 an hour").
fn as_an_hour(words: Vec<String>) -> Vec<String> {
    match words.first() {
        Some(first) if leading_hour(first).is_some_and(|h| (1..=23).contains(&h)) => {
            std::iter::once("at".to_string()).chain(words).collect()
        }
        _ => words,
    }
}

/// When an answer to "what time should I remind you?" says: as
/// [`stated`], with a bare number first read as an hour ("10 in the
/// morning", "18.45"), and a short day alone as that day ("thurs",
/// "14/12").
pub fn answered(text: &str, now: DateTime<Local>) -> Option<Stated> {
    stated(text, now)
        .or_else(|| {
            let words = words(text);
            leading_hour(words.first()?)?;
            stated(&format!("at {text}"), now)
        })
        .or_else(|| stated(&format!("on {text}"), now))
}

/// The hour a word opens with: 10 of "10", 18 of "18.45".
fn leading_hour(word: &str) -> Option<u32> {
    word.split('.').next()?.parse().ok()
}

fn read_stated(text: &str, now: DateTime<Local>, order: Option<DateOrder>) -> Option<Stated> {
    let words = without_fillers(words(text));
    if let Some(t) = iso(&words) {
        return Some(t);
    }
    let today = now.date_naive();
    if let Some(span) = span_from_now(&words) {
        let then = now.checked_add_signed(span)?;
        // "in 3 days at 9am": the day from the span, the time as said.
        if span >= Duration::days(1) {
            if let Some(time) = clock_time(&words, part_of_day(&words)) {
                return local(then.date_naive(), time).map(Stated::At);
            }
        }
        return Some(Stated::At(then));
    }
    let day = match day_of(&words, today, order) {
        Some(DaySaid::On(day)) => Some(day),
        // "3/4" and no locale to say which day: not said, so it is asked.
        Some(DaySaid::TwoWays(_)) => return None,
        None => None,
    };
    let part = part_of_day(&words);
    let time = clock_time(&words, part);
    let day_given = day.is_some();
    let day = day.or(if part == Some(Part::Night) && time.is_none() {
        Some(today)
    } else {
        None
    });
    match (day, time, part) {
        (Some(day), Some(time), _) => local(day, time).map(Stated::At),
        (Some(day), None, Some(part)) => local(day, part.time()).map(Stated::At),
        (Some(day), None, None) => Some(Stated::Day(day)),
        (None, Some(time), _) => next_at(time, now).map(Stated::At),
        (None, None, Some(part)) if !day_given => local(today, part.time()).map(Stated::At),
        _ => None,
    }
}

/// How often a reminder comes back, as the user said it. The names are
/// the reminders' `repeat` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recurrence {
    Daily,
    /// Monday to Friday.
    Weekdays,
    Weekly,
}

impl Recurrence {
    /// The reminder's `repeat` value: "daily", "weekdays" or "weekly".
    pub fn as_str(self) -> &'static str {
        match self {
            Recurrence::Daily => "daily",
            Recurrence::Weekdays => "weekdays",
            Recurrence::Weekly => "weekly",
        }
    }

    /// The first moment at or after `t` this recurrence fires on, later
    /// than `now`: a weekday for `Weekdays`, the next day (or week) for a
    /// time of day already past today.
    pub fn first_after(self, t: DateTime<Local>, now: DateTime<Local>) -> Option<DateTime<Local>> {
        let step = match self {
            Recurrence::Weekly => Duration::weeks(1),
            Recurrence::Daily | Recurrence::Weekdays => Duration::days(1),
        };
        let mut day = t.date_naive();
        let time = t.time();
        // A week at most: a weekday always comes within three days.
        for _ in 0..8 {
            let weekend = matches!(day.weekday(), Weekday::Sat | Weekday::Sun);
            if let Some(moment) = local(day, time) {
                if moment > now && !(self == Recurrence::Weekdays && weekend) {
                    return Some(moment);
                }
            }
            day = day.checked_add_signed(step)?;
        }
        None
    }
}

/// Every day `text` states, in the order it states them, when it states
/// more than one ("workshops on Sat 16 Jan and Sat 30 Jan, 10am to 1pm",
/// "flight out 3 Feb, back 21 Feb"): each at the time of day its own part
/// says, else at the one the whole text says ("10am"), else the day
/// alone. Empty for a text that states one day or none, where
/// [`stated`] says it; a single day when the others read as passed.
pub fn days_stated(text: &str, now: DateTime<Local>) -> Vec<Stated> {
    let today = now.date_naive();
    let order = date_order();
    let all = without_fillers(words(text));
    let mut days: Vec<(NaiveDate, Option<NaiveTime>)> = Vec::new();
    // The parts a list of days is written in: between its marks, and on
    // either side of "and" ("Sat 16 Jan and Sat 30 Jan").
    let parts = text
        .split([',', ';', '&'])
        .flat_map(|part| part.split(" and "));
    // A list of dates writes its year once, on the last ("Tue 12 Jan and
    // Tue 26 Jan 2027"): each part without one of its own takes it.
    let is_year =
        |w: &String| w.len() == 4 && w.parse::<u16>().is_ok_and(|y| (1900..2200).contains(&y));
    let year = all.iter().find(|w| is_year(w)).cloned();
    for part in parts {
        let mut words = without_fillers(words(part));
        if let Some(year) = &year {
            if !words.iter().any(is_year) {
                words.push(year.clone());
            }
        }
        let Some(DaySaid::On(day)) = day_of(&words, today, order) else {
            continue;
        };
        if !days.iter().any(|(d, _)| *d == day) {
            days.push((day, clock_time(&words, part_of_day(&words))));
        }
    }
    if days.len() < 2 {
        return Vec::new();
    }
    let whole_time = clock_time(&all, part_of_day(&all));
    // A date without a year reads as its next coming, so one already
    // passed ("invoice sent 30 Nov, delivery Fri 18 Dec") comes out most
    // of a year after the rest: a list's days lie within half a year of
    // its first.
    let first = days.iter().map(|(day, _)| *day).min().unwrap_or(today);
    days.retain(|(day, _)| *day - first <= Duration::days(183));
    days.into_iter()
        .filter_map(|(day, time)| match time.or(whole_time) {
            Some(time) => local(day, time).map(Stated::At),
            None => Some(Stated::Day(day)),
        })
        .collect()
}

/// How often the user's words say something should come back, if they
/// say it: "every day", "daily", "each morning" (daily); "on weekdays",
/// "every weekday", "Monday to Friday", "workdays" (weekdays); "weekly",
/// "every week", "once a week", "every Monday", "on Mondays" (weekly).
pub fn recurrence(text: &str) -> Option<Recurrence> {
    let words = words(text);
    let has = |w: &str| words.iter().any(|x| x == w);
    let pair = |a: &str, b: &[&str]| {
        words
            .windows(2)
            .any(|p| p[0] == a && b.contains(&p[1].as_str()))
    };
    const DAY_PARTS: [&str; 7] = [
        "day",
        "morning",
        "evening",
        "night",
        "afternoon",
        "single",
        "working",
    ];
    let weekday_plural = |w: &str| {
        WEEKDAYS
            .iter()
            .any(|(name, _)| w.strip_suffix('s') == Some(name.as_str()))
    };
    let weekdays = has("weekdays")
        || has("workdays")
        || pair("every", &["weekday", "workday"])
        || pair("each", &["weekday", "workday"])
        || pair("working", &["days"])
        || pair("business", &["days"])
        || has("mon-fri")
        || words.windows(3).any(|p| {
            // (`terms` drops a "-" standing alone.)
            p[0] == "monday" && matches!(p[1].as_str(), "to" | "through") && p[2] == "friday"
        });
    if weekdays {
        return Some(Recurrence::Weekdays);
    }
    // "every Monday", "each thurs"
    let every_weekday = words.windows(2).any(|p| {
        (p[0] == "every" || p[0] == "each")
            && (weekday_in_full(&p[1]).is_some() || weekday_short(&p[1]).is_some())
    });
    if has("weekly")
        || pair("every", &["week"])
        || pair("each", &["week"])
        || words
            .windows(3)
            .any(|p| p[0] == "once" && p[1] == "a" && p[2] == "week")
        || every_weekday
        || words.iter().any(|w| weekday_plural(w))
    {
        return Some(Recurrence::Weekly);
    }
    if has("daily")
        || has("everyday")
        || pair("every", &DAY_PARTS)
        || pair("each", &DAY_PARTS)
        || words
            .windows(3)
            .any(|p| p[0] == "once" && p[1] == "a" && p[2] == "day")
        || has("nightly")
    {
        return Some(Recurrence::Daily);
    }
    None
}

/// The text's terms ([`imprint_text::words::terms`]), "a.m." as "am". A
/// time written with a dot ("8.05pm") stays as written: whether it is a
/// clock time or a sum of money depends on the words around it
/// ([`clock_at`]).
fn words(text: &str) -> Vec<String> {
    let lower = text
        .to_lowercase()
        .replace("a.m.", "am")
        .replace("p.m.", "pm");
    imprint_text::words::terms(&lower)
}

/// Class: words that soften a time or a number without changing it
/// ("at about 9", "roughly how many miles").
const FILLERS: [&str; 10] = [
    "exactly",
    "about",
    "around",
    "approximately",
    "approx",
    "roughly",
    "precisely",
    "just",
    "circa",
    "somewhere",
];

/// True for a word that softens a time or a number without changing it.
pub fn softens(word: &str) -> bool {
    FILLERS.contains(&word)
}

/// Drops filler words right after a clock time's anchor ("at", "by",
/// "around", "until"), "in" or "within" ("at about 9" is "at 9").
/// Elsewhere they stay: "remind me about the dentist" is no time.
fn without_fillers(words: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(words.len());
    for word in words {
        let after_anchor = kept
            .last()
            .is_some_and(|prev| is_anchor(prev) || matches!(prev.as_str(), "in" | "within"));
        if after_anchor && softens(&word) {
            continue;
        }
        kept.push(word);
    }
    kept
}

fn clock(hour: u32, minute: u32) -> Option<NaiveTime> {
    NaiveTime::from_hms_opt(hour, minute, 0)
}

fn local(day: NaiveDate, time: NaiveTime) -> Option<DateTime<Local>> {
    Local.from_local_datetime(&day.and_time(time)).earliest()
}

/// The next time the clock shows `time`: today if still ahead, else
/// tomorrow.
/// A time the clock skips that day (a spring-forward gap) is taken an
/// hour later, as the clock shows it.
fn next_at(time: NaiveTime, now: DateTime<Local>) -> Option<DateTime<Local>> {
    let on = |day: NaiveDate| {
        let wall = day.and_time(time);
        Local.from_local_datetime(&wall).earliest().or_else(|| {
            let later = wall.checked_add_signed(Duration::hours(1))?;
            Local.from_local_datetime(&later).earliest()
        })
    };
    match on(now.date_naive()) {
        Some(today) if today > now => Some(today),
        _ => on(now.date_naive().succ_opt()?),
    }
}

fn iso(words: &[String]) -> Option<Stated> {
    for (i, word) in words.iter().enumerate() {
        match iso8601::parse(word) {
            Some(IsoTime::Exact(t)) => return Some(Stated::At(t.with_timezone(&Local))),
            Some(IsoTime::Wall(t)) => {
                return Local.from_local_datetime(&t).earliest().map(Stated::At)
            }
            Some(IsoTime::Date(day)) => {
                let rest = &words[i + 1..];
                let part = part_of_day(rest);
                return match clock_time(rest, part).or(part.map(Part::time)) {
                    Some(time) => local(day, time).map(Stated::At),
                    None => Some(Stated::Day(day)),
                };
            }
            None => {}
        }
    }
    None
}

fn number(word: &str) -> Option<i64> {
    if let Ok(n) = word.parse::<i64>() {
        return Some(n);
    }
    match word {
        "a" | "an" => Some(1),
        "fifteen" => Some(15),
        "twenty" => Some(20),
        "thirty" => Some(30),
        "forty-five" => Some(45),
        _ => imprint_text::numbers::cardinal(word).map(i64::from),
    }
}

fn unit(word: &str) -> Option<Duration> {
    let word = word.trim_end_matches('s');
    Some(match word {
        "min" | "minute" | "mn" => Duration::minutes(1),
        "hour" | "hr" | "h" => Duration::hours(1),
        "day" => Duration::days(1),
        "week" | "wk" => Duration::weeks(1),
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Morning,
    Noon,
    Afternoon,
    Evening,
    Night,
}

impl Part {
    fn time(self) -> NaiveTime {
        let hour = match self {
            Part::Morning => 9,
            Part::Noon => 12,
            Part::Afternoon => 15,
            Part::Evening => 18,
            Part::Night => 20,
        };
        NaiveTime::from_hms_opt(hour, 0, 0).expect("a valid hour")
    }

    /// Whether a bare hour 1–11 in this part of the day is after noon.
    fn is_pm(self) -> bool {
        matches!(self, Part::Afternoon | Part::Evening | Part::Night)
    }
}

pub(super) fn part_of_day(words: &[String]) -> Option<Part> {
    // "Good evening. Could you remind me … at ten in the morning": a
    // greeting names no part of the day.
    let greets = |i: usize| i > 0 && words[i - 1] == "good";
    words
        .iter()
        .enumerate()
        .find_map(|(i, w)| match w.as_str() {
            _ if greets(i) => None,
            "morning" => Some(Part::Morning),
            "noon" | "midday" | "lunchtime" => Some(Part::Noon),
            "afternoon" => Some(Part::Afternoon),
            "evening" => Some(Part::Evening),
            "tonight" | "night" => Some(Part::Night),
            _ => None,
        })
}

/// The days of the week by name, lower case ("monday"), from the
/// calendar's own names (chrono's), not a list of ours.
static WEEKDAYS: std::sync::LazyLock<Vec<(String, Weekday)>> = std::sync::LazyLock::new(|| {
    // 1 January 2024 was a Monday.
    NaiveDate::from_ymd_opt(2024, 1, 1)
        .into_iter()
        .flat_map(|monday| monday.iter_days().take(7))
        .map(|day| (day.format("%A").to_string().to_lowercase(), day.weekday()))
        .collect()
});

/// The months by name, lower case ("january"), January first.
static MONTHS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    (1..=12u8)
        .filter_map(|n| chrono::Month::try_from(n).ok())
        .map(|month| month.name().to_lowercase())
        .collect()
});

/// True for a word (lower case) naming a day of the week or a month in
/// full ("monday", "october"): a date said, even opening a sentence.
pub(crate) fn names_a_day(word: &str) -> bool {
    WEEKDAYS.iter().any(|(name, _)| name == word) || MONTHS.iter().any(|m| m == word)
}

/// The month a word names ("march", "mar"), 1–12.
pub(crate) fn month(word: &str) -> Option<u32> {
    if word.len() < 3 {
        return None;
    }
    let word = word.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|m| m == word || (word.len() == 3 && m.starts_with(word) && word != "may"))
        .or_else(|| (word == "may").then_some(4))
        .map(|i| i as u32 + 1)
}

fn day_number(word: &str) -> Option<u32> {
    let digits = word
        .strip_suffix("st")
        .or_else(|| word.strip_suffix("nd"))
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))
        .unwrap_or(word);
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// The day of the month written as an ordinal at `words[at]` ("9th",
/// "21st") with no month after it ("the 9th of January" is read at the
/// month).
fn day_of_month_alone(words: &[String], at: usize) -> Option<u32> {
    let word = words.get(at)?;
    let ordinal = imprint_text::numbers::ordinal(word).is_some();
    let month_after = words[at + 1..].iter().take(2).any(|w| month(w).is_some());
    day_number(word).filter(|_| ordinal && !month_after)
}

/// The next date from `today` on that falls on `day` of a month.
fn next_day_of_month(today: NaiveDate, day: u32) -> Option<NaiveDate> {
    (0..12).find_map(|ahead| {
        let first = today
            .with_day(1)?
            .checked_add_months(chrono::Months::new(ahead))?;
        first.with_day(day).filter(|date| *date >= today)
    })
}

/// The day of the month spelled out as an ordinal ending at `words[at]`:
/// "first", "twelfth", "twentieth", "twenty-first", "twenty first".
fn spelled_day(words: &[String], at: usize) -> Option<u32> {
    if let Some((tens, ones)) = words.get(at)?.split_once('-') {
        let pair = [tens.to_string(), ones.to_string()];
        return spelled_day(&pair, 1).filter(|&day| day > 20);
    }
    let word = words.get(at)?.as_str();
    let ones = match word {
        "twentieth" => return Some(20),
        "thirtieth" => return Some(30),
        _ => imprint_text::numbers::spelled_ordinal(word)?,
    };
    let tens = match at.checked_sub(1).map(|j| words[j].as_str()) {
        Some("twenty") if ones < 10 => 20,
        Some("thirty") if ones < 2 => 30,
        _ => 0,
    };
    Some(tens + ones)
}

/// A day the words name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DaySaid {
    On(NaiveDate),
    /// A date written with slashes that reads two ways ("3/4"), at this
    /// word, and no other day said.
    TwoWays(usize),
}

/// How many days from today a word says: "today", "tonight" (0),
/// "tomorrow" (1).
fn days_ahead(word: &str) -> Option<i64> {
    match word {
        "today" | "tonight" => Some(0),
        "tomorrow" | "tmrw" | "tomorow" => Some(1),
        _ => None,
    }
}

/// The weekday a word names in full, or in full and plural ("mondays").
fn weekday_in_full(word: &str) -> Option<Weekday> {
    let singular = word.strip_suffix('s').unwrap_or(word);
    WEEKDAYS
        .iter()
        .find(|(name, _)| word == name || singular == name)
        .map(|(_, weekday)| *weekday)
}

/// The weekday a short form names: three letters or more that open its
/// name ("thu", "thurs", "tues", "sat"), and those with an "s" after a
/// consonant ("weds"; "thus" is no Thursday).
fn weekday_short(word: &str) -> Option<Weekday> {
    let opens = |short: &str, name: &str| {
        short.len() >= 3 && short.len() < name.len() && name.starts_with(short)
    };
    let stem = word
        .strip_suffix('s')
        .filter(|stem| stem.ends_with(|c: char| c.is_ascii_alphabetic() && !"aeiou".contains(c)));
    WEEKDAYS
        .iter()
        .find(|(name, _)| opens(word, name) || stem.is_some_and(|stem| opens(stem, name)))
        .map(|(_, weekday)| *weekday)
}

/// True for a word that says a day on its own: "tomorrow", "friday",
/// "thurs", "14/12". A time written with a dot after one is a clock time
/// ("tomorrow 18.45").
fn says_a_day(word: &str) -> bool {
    days_ahead(word).is_some()
        || weekday_in_full(word).is_some()
        || weekday_short(word).is_some()
        || Slashed::read(word).is_some()
}

/// Words after which a short form of a day is one: "on sat", "next wed",
/// "by 3/4", "rent due 14/12".
const DAY_LEADS: [&str; 11] = [
    "on", "next", "this", "by", "until", "till", "for", "from", "every", "each", "due",
];

fn led_to_a_day(words: &[String], i: usize) -> bool {
    i.checked_sub(1)
        .is_some_and(|j| DAY_LEADS.contains(&words[j].as_str()))
}

/// True when a clock time or a part of the day comes right after the word
/// at `i`: "thurs at 6.45pm", "sat 10am", "fri evening" ("sun tonight" is
/// tonight, with the sun).
fn time_of_day_follows(words: &[String], i: usize) -> bool {
    let next = words.get(i + 1).map(String::as_str);
    clock_at(words, i + 1, None).is_some()
        || (next.is_some_and(is_anchor) && clock_at(words, i + 2, None).is_some())
        || words
            .get(i + 1)
            .is_some_and(|w| w != "tonight" && part_of_day(std::slice::from_ref(w)).is_some())
}

/// True when the short form of a day at `i` ("sat", "wed") is said as a
/// day: after a word that leads to one, with nothing or a time word after
/// it ("on sun cream" is no Sunday), or with a time of day after it.
fn short_day_said(words: &[String], i: usize) -> bool {
    let ends_or_time = words
        .get(i + 1)
        .is_none_or(|next| time_words::is_time_word(next));
    (led_to_a_day(words, i) && ends_or_time) || time_of_day_follows(words, i)
}

/// True when a date written with slashes and no year ("14/12", but also
/// "24/7" and "1/2") is said as a date: after a word that leads to a day
/// or a day itself ("Friday 14/12"), or with a time of day after it.
fn slashed_date_said(words: &[String], i: usize) -> bool {
    led_to_a_day(words, i)
        || i.checked_sub(1).is_some_and(|j| says_a_day(&words[j]))
        || time_of_day_follows(words, i)
}

/// True when a date written with dots and no year ("21.12", "4.1.") is
/// said as a date: a time of day after it ("21.12 6:30", "4.1. kl 10:00"),
/// a day before it, or a word leading to a day with nothing
/// after ("due 4.1."); "for 1.5 hours" and "2.5 acres" are no dates.
fn dotted_date_said(words: &[String], i: usize) -> bool {
    time_of_day_follows(words, i)
        || i.checked_sub(1).is_some_and(|j| says_a_day(&words[j]))
        || (led_to_a_day(words, i) && i + 1 == words.len())
}

/// The next `month`/`day` from `today` on: this year's, or next year's
/// once this year's has passed (or does not exist: February 29).
fn next_date(today: NaiveDate, month: u32, day: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(today.year(), month, day)
        .filter(|date| *date >= today)
        .or_else(|| NaiveDate::from_ymd_opt(today.year().checked_add(1)?, month, day))
}

/// The day the words name, if any. A date with slashes and no year gives
/// way to a day named plainly ("add 1/2 cup tomorrow" is tomorrow).
fn day_of(words: &[String], today: NaiveDate, order: Option<DateOrder>) -> Option<DaySaid> {
    let mut slashed_day = None;
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str);
        if let Some(ahead) = days_ahead(word) {
            let after = ahead == 1 && i >= 2 && words[i - 1] == "after" && words[i - 2] == "day";
            let ahead = ahead + i64::from(after);
            return today
                .checked_add_signed(Duration::days(ahead))
                .map(DaySaid::On);
        }
        // "on the 9th", "wed the 10th": a day of this month (or the next,
        // once it has passed); the date over its weekday.
        let ordinal_at = if word == "the" { i + 1 } else { i + 2 };
        let weekday_and_date = says_a_day(word) && next == Some("the");
        // "on the 9th", "the 9th at noon"; "the 3rd draft" is no day.
        let day_after_the = word == "the"
            && (led_to_a_day(words, i)
                || words.get(i + 2).is_none_or(|after| {
                    is_anchor(after) || after == "to" || time_of_day_follows(words, i + 1)
                }));
        if day_after_the || weekday_and_date {
            if let Some(day) = day_of_month_alone(words, ordinal_at) {
                return next_day_of_month(today, day).map(DaySaid::On);
            }
        }
        // "on Mondays" is a Monday too (and a weekly one, see `recurrence`).
        let weekday = weekday_in_full(word)
            .or_else(|| weekday_short(word).filter(|_| short_day_said(words, i)));
        // "Thursday 17 December": the date over its weekday.
        let date_follows = words[i + 1..].iter().take(4).any(|w| month(w).is_some());
        if let Some(weekday) = weekday.filter(|_| !date_follows) {
            let ahead =
                (weekday.num_days_from_monday() + 7 - today.weekday().num_days_from_monday()) % 7;
            let ahead = if ahead == 0 { 7 } else { ahead };
            return today
                .checked_add_signed(Duration::days(ahead.into()))
                .map(DaySaid::On);
        }
        if let Some(m) = month(word) {
            // "December 3" / "3 December" / "3rd of December"
            let before = i
                .checked_sub(1)
                .filter(|&j| words[j] != "of")
                .or_else(|| i.checked_sub(2));
            // The day before the month first: in "the 20th of December,
            // 10 in the morning" the 10 after it is the hour.
            // A day spelled out is read before "of" ("the twenty-first of
            // December") or just after the month ("January thirtieth",
            // "December twenty first"), never after "may", which is
            // mostly a verb ("I may first need to…").
            let spelled_before = (i >= 2 && words[i - 1] == "of")
                .then(|| spelled_day(words, i - 2))
                .flatten();
            let spelled_after = (word != "may")
                .then(|| {
                    spelled_day(words, i + 2)
                        .filter(|&day| day > 20)
                        .or_else(|| spelled_day(words, i + 1))
                })
                .flatten();
            let day = before
                .and_then(|j| day_number(&words[j]))
                .or(spelled_before)
                .or_else(|| next.and_then(day_number))
                .or(spelled_after);
            if let Some(day) = day {
                // "1 December 2026", "December 1st, 2027": that year's.
                let year = words[i + 1..]
                    .iter()
                    .take(2)
                    .find_map(|w| w.parse::<i32>().ok().filter(|y| (1000..=9999).contains(y)));
                if let Some(year) = year {
                    return NaiveDate::from_ymd_opt(year, m, day).map(DaySaid::On);
                }
                return next_date(today, m, day).map(DaySaid::On);
            }
        }
        let Some(date) = Slashed::read(word) else {
            continue;
        };
        let said = match date.reading(order, today) {
            Some(Reading::Day(day)) if date.has_year() => return Some(DaySaid::On(day)),
            Some(Reading::Day(day)) => DaySaid::On(day),
            Some(Reading::TwoWays) => DaySaid::TwoWays(i),
            None => continue,
        };
        let said_as_a_date = if date.is_dotted() {
            dotted_date_said(words, i)
        } else {
            slashed_date_said(words, i)
        };
        if date.has_year() || said_as_a_date {
            slashed_day.get_or_insert(said);
        }
    }
    slashed_day
}

/// A date the user wrote with slashes that reads two ways ("3/4": 3 April
/// or March 4) and no locale to say which: what was written, and the
/// moment each reading says (month first, then day first), at the time
/// of day said, else at [`DEFAULT_HOUR`].
#[derive(Clone, Debug, PartialEq)]
pub struct TwoWayDate {
    pub written: String,
    pub readings: [DateTime<Local>; 2],
}

/// The date of `text` that reads two ways, when it leaves the time unsaid
/// and `order` ([`date_order`]) does not settle it.
pub fn two_way_date(
    text: &str,
    now: DateTime<Local>,
    order: Option<DateOrder>,
) -> Option<TwoWayDate> {
    if order.is_some() || stated_in(text, now, None).is_some() {
        return None;
    }
    let words = without_fillers(words(text));
    let Some(DaySaid::TwoWays(i)) = day_of(&words, now.date_naive(), None) else {
        return None;
    };
    let read = |order| stated_in(text, now, Some(order)).and_then(Stated::moment);
    Some(TwoWayDate {
        written: words[i].clone(),
        readings: [read(DateOrder::MonthFirst)?, read(DateOrder::DayFirst)?],
    })
}

#[cfg(test)]
pub(super) mod tests;
