//! Which words of a text say a time: a run of them at either end of a
//! reminder's text goes (the reminder carries its time in its own
//! fields), a text of nothing else is a time, and a word that names a
//! time zone (which Imprint does not read) is found.

use chrono::NaiveDate;

use super::{
    clock, clock_time, day_number, local, month, number, part_of_day, recurrence, span, stated_in,
    unit, weekday_in_full, weekday_short, words, DateOrder, Recurrence, Slashed, Stated, FILLERS,
};
use crate::iso8601;

/// A word in `text` shaped like a time zone's name ("Europe/Paris",
/// "Mars/Olympus"). Imprint reads offsets, not zone names, so a time that
/// names one is refused rather than read as local time.
pub fn zone_name(text: &str) -> Option<&str> {
    text.split_whitespace()
        .map(|word| word.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | '(' | ')')))
        .find(|word| {
            let mut parts = word.split('/');
            let area = parts.next().unwrap_or_default();
            let rest: Vec<&str> = parts.collect();
            area.len() >= 2
                && area.chars().all(|c| c.is_ascii_alphabetic())
                && !rest.is_empty()
                && rest.iter().all(|part| {
                    part.starts_with(|c: char| c.is_ascii_alphabetic())
                        && part
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'))
                })
        })
}

/// A reminder's text without the time it carries in its own fields: "call
/// Tom tomorrow at 9" is "call Tom" (on the day it fires, "tomorrow" would
/// be wrong), "take your vitamins every day at 8 AM" is "take your
/// vitamins". Only a run of time words at the start or the end that says a
/// moment or a recurrence goes, with the "on" or "for" that led to it; a
/// text that is all time, or holds none, stays as it is.
pub fn without_the_time(text: &str) -> String {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut kept: &[&str] = &tokens;
    if let Some(start) = time_run(kept, End::Last) {
        kept = &kept[..start];
        // "scheduled for", "due on": what led to the time goes with it.
        while let [rest @ .., last] = kept {
            let word = last
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if rest.is_empty() || !LEAD_INS.contains(&word.as_str()) {
                break;
            }
            kept = rest;
        }
    }
    if let Some(end) = time_run(kept, End::First) {
        kept = &kept[end..];
    }
    if kept.len() == tokens.len() {
        return text.to_string();
    }
    kept.join(" ")
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '–' | '—'))
        .to_string()
}

/// True when every word of `text` is a time word ("tomorrow at 9", "on
/// Friday"), and there is one.
pub fn is_only_time(text: &str) -> bool {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    // The Nordic clock word is a time with a time after it ("kl 10:00").
    let clock_word_led = |i: usize, w: &str| {
        super::clock_time::is_clock_word(w)
            && tokens
                .get(i + 1)
                .is_some_and(|next| words(next).iter().all(|n| is_time_word(n)))
    };
    !tokens.is_empty()
        && tokens.iter().enumerate().all(|(i, token)| {
            words(token.trim_end_matches([':', ',']))
                .iter()
                .all(|w| is_time_word(w) || clock_word_led(i, w))
        })
}

/// Words that lead to a time at the end of a reminder's text.
const LEAD_INS: [&str; 10] = [
    "for",
    "on",
    "at",
    "by",
    "is",
    "are",
    "due",
    "scheduled",
    "set",
    "starting",
];

#[derive(Clone, Copy, PartialEq)]
enum End {
    First,
    Last,
}

/// Where the run of time words at one end of `tokens` begins (`Last`) or
/// ends (`First`), if they say a moment or a recurrence and leave a word
/// that is not time. A count just before it is left out when the time
/// says the same without it: "chapter 3 on Monday" keeps its 3.
fn time_run(tokens: &[&str], end: End) -> Option<usize> {
    let all_time = |token: &str| {
        words(token.trim_end_matches(':'))
            .iter()
            .all(|w| is_time_word(w))
    };
    // "kl 10", "kl. 8.30": the clock word with the time after it.
    let is_time = |i: usize| {
        all_time(tokens[i])
            || (words(tokens[i])
                .iter()
                .all(|w| super::clock_time::is_clock_word(w))
                && tokens.get(i + 1).is_some_and(|next| all_time(next)))
    };
    let length = match end {
        End::Last => (0..tokens.len()).rev().take_while(|&i| is_time(i)).count(),
        End::First => (0..tokens.len()).take_while(|&i| is_time(i)).count(),
    };
    if length == 0 || length == tokens.len() {
        return None;
    }
    let run = |length: usize| match end {
        End::Last => &tokens[tokens.len() - length..],
        End::First => &tokens[..length],
    };
    let said = meaning(run(length))?;
    // A count just before the time is the text's ("chapter 3 on Monday").
    let mut length = length;
    while length > 1 {
        let far = match end {
            End::Last => tokens[tokens.len() - length],
            End::First => tokens[length - 1],
        };
        let count = words(far)
            .iter()
            .all(|w| number(w).is_some() && !matches!(w.as_str(), "a" | "an"));
        if !count || meaning(run(length - 1)) != Some(said) {
            break;
        }
        length -= 1;
    }
    Some(match end {
        End::Last => tokens.len() - length,
        End::First => length,
    })
}

/// What a run of words says about time: a moment (read from a fixed early
/// morning, so "at 9" and "tomorrow at 9" differ), a recurrence, or a
/// vague time ("next week", "later": the reminder's time was asked).
fn meaning(tokens: &[&str]) -> Option<(Option<Stated>, Option<Recurrence>, bool)> {
    let text: Vec<&str> = tokens.iter().map(|t| t.trim_end_matches(':')).collect();
    let text = text.join(" ");
    let morning = local(NaiveDate::from_ymd_opt(2001, 1, 1)?, clock(0, 0)?)?;
    let vague = VAGUE.contains(&words(&text).join(" ").as_str());
    // Either order: which day "3/4" is does not matter here, only that
    // the words say one (whatever the locale).
    let said = (
        stated_in(&text, morning, Some(DateOrder::DayFirst)),
        recurrence(&text),
        vague,
    );
    (said != (None, None, false)).then_some(said)
}

/// Times too vague to be a moment, said whole.
const VAGUE: &[&str] = &[
    "next week",
    "this week",
    "next month",
    "this month",
    "this weekend",
    "next weekend",
    "later",
    "later today",
    "soon",
    "sometime",
];

/// A word a said time can be made of.
pub(crate) fn is_time_word(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "today", "tomorrow", "tmrw", "tonight", "day", "days", "week", "weeks", "after", "next",
        "this", "on", "in", "within", "every", "each", "once", "a", "an", "the", "of", "to",
        "through", "-", "half", "am", "pm", "o'clock", "oclock", "daily", "weekly", "nightly",
        "everyday", "weekday", "weekdays", "workday", "workdays", "working", "business", "mon-fri",
        "month", "months", "year", "years", "weekend", "later", "soon", "sometime", "and",
        "quarter", "past", "from", "now",
    ];
    // The anchors of a clock time ("at", "by"), but not the Nordic clock
    // word, a time only with the time after it (see `time_run`).
    WORDS.contains(&word)
        || (super::clock_time::is_anchor(word) && !super::clock_time::is_clock_word(word))
        || FILLERS.contains(&word)
        || part_of_day(&[word.to_string()]).is_some()
        || weekday_in_full(word).is_some()
        || weekday_short(word).is_some()
        || Slashed::read(word).is_some()
        || span::is_compact(word)
        || number(word).is_some()
        || unit(word).is_some()
        || month(word).is_some()
        || day_number(word).is_some()
        // "18:00", "6.45pm", "noon", "midnight"
        || clock_time(&["at".to_string(), word.to_string()], None).is_some()
        || iso8601::parse(word).is_some()
}
