//! A clock time in a request's words ("9:30", "9am", "at 9", "noon"),
//! morning or evening settled by the part of the day said.

use chrono::NaiveTime;

use super::{clock, Part};

/// A clock time in the words: "9:30", "18:00", "9am", "9 pm", "at 9",
/// "by 10", "7 o'clock", "noon", "midnight". `part` settles whether a bare
/// hour is morning or evening.
pub(super) fn clock_time(words: &[String], part: Option<Part>) -> Option<NaiveTime> {
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str);
        let prev = i.checked_sub(1).map(|j| words[j].as_str());
        if word == "midnight" {
            return clock(23, 59);
        }
        if word == "noon" || word == "midday" {
            return clock(12, 0);
        }
        let (body, suffix) = split_suffix(word);
        let suffix = suffix.or(match next {
            Some("am") => Some(Meridiem::Am),
            Some("pm") => Some(Meridiem::Pm),
            _ => None,
        });
        let (hour, minute, has_colon) = match body.split_once([':', 'h']) {
            Some((h, m)) if !h.is_empty() && m.len() == 2 => {
                (h.parse::<u32>().ok(), m.parse::<u32>().ok(), true)
            }
            Some((h, "")) if !h.is_empty() && word.ends_with('h') => {
                (h.parse::<u32>().ok(), Some(0), true)
            }
            _ => (body.parse::<u32>().ok(), Some(0), false),
        };
        let (Some(mut hour), Some(minute)) = (hour, minute) else {
            continue;
        };
        let oclock = next == Some("o'clock") || next == Some("oclock");
        let anchored = matches!(prev, Some("at" | "by" | "around" | "@" | "until"));
        if !(has_colon || suffix.is_some() || oclock || anchored) {
            continue;
        }
        if hour > 23 || minute > 59 {
            continue;
        }
        match suffix {
            Some(Meridiem::Am) if hour == 12 => hour = 0,
            Some(Meridiem::Pm) if hour < 12 => hour += 12,
            Some(_) => {}
            None if (1..12).contains(&hour) && part.is_some_and(Part::is_pm) => hour += 12,
            None => {}
        }
        return clock(hour, minute);
    }
    None
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
