//! A clock time in a request's words ("9:30", "9am", "at 9", "noon"),
//! morning or evening settled by the part of the day said.

use chrono::NaiveTime;

use super::{clock, says_a_day, Part};

/// A clock time in the words: "9:30", "18:00", "9am", "9 pm", "at 9",
/// "by 10", "kl 10", "7 o'clock", "noon", "midnight", "6.45pm", "at 18.45", "half
/// past 7", "quarter to 6". `part`
/// settles whether a bare hour is morning or evening.
pub(super) fn clock_time(words: &[String], part: Option<Part>) -> Option<NaiveTime> {
    (0..words.len()).find_map(|i| clock_at(words, i, part))
}

/// The clock time the word at `i` says, with the words beside it: the
/// "at" before a bare hour, the "pm" or "o'clock" after it.
pub(super) fn clock_at(words: &[String], i: usize, part: Option<Part>) -> Option<NaiveTime> {
    let word = words.get(i)?;
    let next = words.get(i + 1).map(String::as_str);
    let prev = i.checked_sub(1).map(|j| words[j].as_str());
    if word == "midnight" {
        return clock(23, 59);
    }
    if word == "noon" || word == "midday" {
        return clock(12, 0);
    }
    if word == "past" || word == "to" {
        return minutes_past_or_to(words, i, part);
    }
    if word == "half" {
        return half_the_hour(words, i, part);
    }
    let (body, suffix) = split_suffix(word);
    let suffix = suffix.or(match next {
        Some("am") => Some(Meridiem::Am),
        Some("pm") => Some(Meridiem::Pm),
        _ => None,
    });
    let dotted = body.contains('.');
    let (hour, minute, written) = match body.split_once([':', 'h', '.']) {
        Some((h, m)) if !h.is_empty() && m.len() == 2 && !(dotted && h.len() > 2) => {
            let written = if dotted { Written::Dot } else { Written::Colon };
            (h.parse::<u32>().ok()?, m.parse::<u32>().ok()?, written)
        }
        Some((h, "")) if !h.is_empty() && word.ends_with('h') => {
            (h.parse::<u32>().ok()?, 0, Written::Colon)
        }
        _ => match body.parse::<u32>() {
            Ok(hour) => (hour, 0, Written::Bare),
            // "at eight in the morning", "tomorrow at eleven": an hour
            // spelled out, with what makes a number an hour after it, or
            // "at" and nothing more of it ("at one point" is no time).
            Err(_) => {
                let hour = super::number(body).filter(|h| (1..=12).contains(h))? as u32;
                (hour, 0, Written::Spelled)
            }
        },
    };
    let oclock = next == Some("o'clock") || next == Some("oclock");
    // "10 in the morning", "8 at night", "7 tonight", "6 tomorrow
    // evening": the part of the day said right after a bare hour, or
    // after the day it is on, makes it one.
    let with_part = (matches!(
        (next, words.get(i + 2).map(String::as_str)),
        (Some("in"), Some("the")) | (Some("at"), Some("night")) | (Some("tonight"), _)
    ) || next.is_some_and(says_a_day))
        && super::part_of_day(&words[(i + 1)..words.len().min(i + 4)]).is_some();
    let anchored = prev.is_some_and(is_anchor) || with_part;
    let ends_the_time = ends_a_time(next);
    let plain = match written {
        Written::Colon => true,
        Written::Spelled => {
            return (suffix.is_some() || oclock || with_part || (anchored && ends_the_time))
                .then(|| meridiem(hour, suffix, part))
                .and_then(|hour| clock(hour, 0));
        }
        // "12.50 an hour" is money: a dot makes a clock time with "am" or
        // "pm", after "at" or after a day ("tomorrow 18.45").
        Written::Dot => prev.is_some_and(says_a_day),
        Written::Bare => false,
    };
    if !(plain || suffix.is_some() || oclock || anchored) || hour > 23 || minute > 59 {
        return None;
    }
    clock(meridiem(hour, suffix, part), minute)
}

/// `hour` on the 24-hour clock: by "am" or "pm", else by the part of the
/// day said.
fn meridiem(hour: u32, suffix: Option<Meridiem>, part: Option<Part>) -> u32 {
    match suffix {
        Some(Meridiem::Am) if hour == 12 => 0,
        Some(Meridiem::Pm) if hour < 12 => hour + 12,
        Some(_) => hour,
        None if (1..12).contains(&hour) && part.is_some_and(Part::is_pm) => hour + 12,
        None => hour,
    }
}

/// True when the word after a time (`next`) ends it: none, "to", "and",
/// "on", a day or a clause's mark ("at 9 on friday", "at 9, and…").
fn ends_a_time(next: Option<&str>) -> bool {
    next.is_none_or(|n| n == "to" || n == "and" || n == "on" || says_a_day(n) || n.starts_with(','))
}

/// "half 8", "half 12": half past the hour, as Ireland and Britain say
/// it. The word at `i` is "half", with an hour of the clock's face (1–12)
/// right after it that ends the time: the request, a clause, "am" or
/// "pm", the part of the day or the day after it ("cut it in half 2
/// times" is no time).
fn half_the_hour(words: &[String], i: usize, part: Option<Part>) -> Option<NaiveTime> {
    let (body, suffix) = split_suffix(words.get(i + 1)?);
    let after = words.get(i + 2).map(String::as_str);
    let suffix = suffix.or(match after {
        Some("am") => Some(Meridiem::Am),
        Some("pm") => Some(Meridiem::Pm),
        _ => None,
    });
    let ends_the_time = suffix.is_some()
        || ends_a_time(after)
        || super::part_of_day(&words[(i + 2).min(words.len())..words.len().min(i + 5)]).is_some();
    if !ends_the_time {
        return None;
    }
    let hour = body
        .parse::<i64>()
        .ok()
        .or_else(|| super::number(body))
        .filter(|h| (1..=12).contains(h))? as u32;
    clock(meridiem(hour, suffix, part), 30)
}

/// "half past 7", "quarter to 6", "ten past 8", "twenty to 5pm": the word at
/// `i` is "past" or "to", with the minutes before it and an hour of the
/// clock's face (1–12) after it.
fn minutes_past_or_to(words: &[String], i: usize, part: Option<Part>) -> Option<NaiveTime> {
    let past = words[i] == "past";
    // "twenty minutes past ten": the minutes may say their unit.
    let said_at = match i.checked_sub(1).map(|j| words[j].as_str())? {
        "minutes" | "minute" | "mins" | "min" => i.checked_sub(2)?,
        _ => i - 1,
    };
    let minutes = match words[said_at].as_str() {
        "half" if past => 30,
        "quarter" => 15,
        // "5 to 6" is a span of hours more often than a time: minutes
        // before "to" are said in words ("ten to six").
        said if !past && said.starts_with(|c: char| c.is_ascii_digit()) => return None,
        said => {
            let units = super::number(said)?;
            // "twenty five past": the tens said before the units.
            let tens = said_at
                .checked_sub(1)
                .and_then(|j| super::number(&words[j]))
                .filter(|t| (units < 10) && matches!(t, 20 | 30));
            u32::try_from(units + tens.unwrap_or(0))
                .ok()
                .filter(|m| (1..=30).contains(m))?
        }
    };
    let (body, suffix) = split_suffix(words.get(i + 1)?);
    let suffix = suffix.or(match words.get(i + 2).map(String::as_str) {
        Some("am") => Some(Meridiem::Am),
        Some("pm") => Some(Meridiem::Pm),
        _ => None,
    });
    let hour = body
        .parse::<i64>()
        .ok()
        .or_else(|| super::number(body))
        .filter(|h| (1..=12).contains(h))? as u32;
    // "…past ten in the morning": the part said after the hour.
    let after = &words[(i + 2).min(words.len())..words.len().min(i + 5)];
    let part = super::part_of_day(after).or(part);
    let (hour, minute) = if past {
        (hour, minutes)
    } else {
        (if hour == 1 { 12 } else { hour - 1 }, 60 - minutes)
    };
    let hour = match suffix {
        Some(Meridiem::Am) if hour == 12 => 0,
        Some(Meridiem::Pm) if hour < 12 => hour + 12,
        Some(_) => hour,
        None if hour < 12 && part.is_some_and(Part::is_pm) => hour + 12,
        None => hour,
    };
    clock(hour, minute)
}

/// A word after which a bare number is an hour: "at 9", "by 10", and
/// the Nordic clock's "kl 10", "kl. 9.30".
pub(super) fn is_anchor(word: &str) -> bool {
    matches!(word, "at" | "by" | "around" | "@" | "until") || is_clock_word(word)
}

/// The Nordic clock's word before a time ("kl 10", "kl. 8.30"; Finnish
/// "klo"): part of a time only with the time after it ("my flight to KL"
/// names a city).
pub(super) fn is_clock_word(word: &str) -> bool {
    matches!(word, "kl" | "klo")
}

/// How the hour and minutes were written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Written {
    /// "9:30", "9h30", "9h".
    Colon,
    /// "9.30", a clock time or a decimal.
    Dot,
    /// "9", an hour only with more words.
    Bare,
    /// "eight", an hour only with more words still.
    Spelled,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Meridiem {
    Am,
    Pm,
}

fn split_suffix(word: &str) -> (&str, Option<Meridiem>) {
    if let Some(body) = word.strip_suffix("am") {
        if body.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return (body, Some(Meridiem::Am));
        }
    }
    if let Some(body) = word.strip_suffix("pm") {
        if body.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return (body, Some(Meridiem::Pm));
        }
    }
    (word, None)
}
