//! How a case's reply is judged: the answer's words, the memories and
//! reminders it left, invented claims and shown markup. Written for this
//! evaluation, independent of the server's own rules.

use chrono::{DateTime, Datelike, Duration, Local, NaiveDate, Timelike};
use serde_json::Value;

use super::cases::{Hm, When, MEMORIES};

/// Lowercase letters and digits only: "020 7946-0318" → "02079460318".
pub fn norm(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `text` holds `wanted` (both normalised).
pub fn holds(text: &str, wanted: &str) -> bool {
    norm(text).contains(&norm(wanted))
}

/// Markers of tool-call markup, Imprint's notes or a tool's result said
/// back, found in an answer.
pub fn shown_markup(answer: &str) -> Vec<&'static str> {
    const EXACT: [&str; 7] = [
        "{\"",
        "<tool_call",
        "</",
        "\"name\":",
        "\"id\":",
        "(Imprint",
        "The user answered",
    ];
    let mut found: Vec<&str> = EXACT.into_iter().filter(|m| answer.contains(m)).collect();
    if answer.to_lowercase().contains("tool call") {
        found.push("tool call");
    }
    found
}

/// Phrasings of "I found nothing about that".
const NOT_FOUND: &[&str] = &[
    "nothing",
    "no memory",
    "no memories",
    "no record",
    "no saved",
    "no information",
    "no note",
    "not find",
    "not found",
    "n't find",
    "n't found",
    "n't have",
    "not have",
    "n't see",
    "n't seem",
    "not seem",
    "n't saved",
    "not saved",
    "not stored",
    "n't stored",
    "haven't got",
    "no mention",
    "not in your",
    "n't know",
    "not sure",
    "unable to find",
];

pub fn says_not_found(answer: &str) -> bool {
    let lower = answer.to_lowercase().replace(['’', '‘'], "'");
    NOT_FOUND.iter().any(|p| lower.contains(p))
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
/// Capitalised words that name no one's things.
const COMMON: &[&str] = &[
    "i", "i'm", "i'll", "i've", "i'd", "imprint", "ok", "okay", "am", "pm", "utc", "wi-fi", "wifi",
    "ssid", "pin", "id", "eu", "uk", "gb", "dr", "mr", "mrs", "ms", "today", "tomorrow", "tonight",
    "yes", "no", "sure", "note", "reminder", "memory", "memories", "done", "saved", "got", "here",
    "hi", "hey", "thanks", "please", "sorry", "let", "would", "should",
];

fn calendar_word(word: &str) -> bool {
    let w = word.to_lowercase();
    let w = w.trim_end_matches('.');
    WEEKDAYS
        .iter()
        .chain(MONTHS.iter())
        .any(|name| *name == w || (w.len() >= 3 && name.starts_with(w)))
}

/// A time or date token: "18:30", "6pm", "8.05pm", a year, "4th", or a
/// day number next to a month's name.
fn calendar_number(token: &str, before: Option<&str>, after: Option<&str>) -> bool {
    let t = token.to_lowercase();
    let digits: String = t.chars().filter(char::is_ascii_digit).collect();
    let time = t.ends_with("am") || t.ends_with("pm") || t.ends_with('h');
    let clock = t.contains(':') && t.split(':').all(|p| p.len() <= 2 || p.ends_with('m'));
    let year = digits.len() == 4 && (2020..=2035).contains(&digits.parse::<u32>().unwrap_or(0));
    let ordinal = ["st", "nd", "rd", "th"].iter().any(|s| t.ends_with(s)) && digits.len() <= 2;
    let small = digits.len() <= 2 && digits == t;
    let by_month = small && [before, after].into_iter().flatten().any(calendar_word);
    (time && digits.len() <= 4) || clock || year || ordinal || by_month
}

/// Tokens of `answer` that state a number, a code or a capitalised name
/// found in neither the seeded memories nor `known` (the prompt and what
/// the user answered). A simple check: sentence-initial words are not
/// counted as names, and times and dates are not claims.
pub fn invented(answer: &str, known: &[&str]) -> Vec<String> {
    let corpus_norm: String = MEMORIES
        .iter()
        .map(|m| norm(m.content))
        .chain(known.iter().map(|k| norm(k)))
        .collect::<Vec<_>>()
        .join(" ");
    let corpus_lower: String = MEMORIES
        .iter()
        .map(|m| m.content.to_lowercase())
        .chain(known.iter().map(|k| k.to_lowercase()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut found = Vec::new();
    for line in answer.lines() {
        let raw: Vec<&str> = line.split_whitespace().collect();
        let mut sentence_start = true;
        for (i, token) in raw.iter().enumerate() {
            let word = bare(token)
                .trim_end_matches("'s")
                .trim_end_matches("’s")
                .to_string();
            let starts = std::mem::replace(
                &mut sentence_start,
                token.ends_with(['.', '!', '?', ':']) || token.starts_with(['-', '*', '•']),
            );
            if word.is_empty() {
                sentence_start |= starts;
                continue;
            }
            let before = i.checked_sub(1).map(|j| raw[j]);
            let after = raw.get(i + 1).copied();
            if word.chars().any(|c| c.is_ascii_digit()) {
                if calendar_number(&word, before.map(bare), after.map(bare)) {
                    continue;
                }
                if !corpus_norm.contains(&norm(&word)) {
                    found.push(word);
                }
            } else if word.chars().next().is_some_and(char::is_uppercase)
                && !starts
                && !calendar_word(&word)
                && !COMMON.contains(&word.to_lowercase().as_str())
                && !corpus_lower.contains(&word.to_lowercase())
            {
                found.push(word);
            }
        }
    }
    found
}

/// A token without the punctuation around it.
fn bare(token: &str) -> &str {
    token.trim_matches(|c: char| !c.is_alphanumeric())
}

/// Tokens with a digit that the prompt does not hold: a value stated.
pub fn values_stated(answer: &str, prompt: &str) -> Vec<String> {
    let prompt = norm(prompt);
    answer
        .split_whitespace()
        .map(|t| bare(t).to_string())
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()) && !prompt.contains(&norm(t)))
        .collect()
}

/// A seeded memory's facts the answer shows.
pub fn seeded_facts(answer: &str) -> Vec<&'static str> {
    let answer = norm(answer);
    MEMORIES
        .iter()
        .flat_map(|m| m.facts.iter().copied())
        .filter(|f| answer.contains(&norm(f)))
        .collect()
}

/// Whether a reminder's text keeps the user's words and no more: one of
/// `words`, no "remind me", no ISO time.
pub fn reminder_text_problem(text: &str, words: &[&str]) -> Option<String> {
    let lower = text.to_lowercase();
    if !words.iter().any(|w| lower.contains(w)) {
        return Some(format!("text {text:?} lacks {words:?}"));
    }
    if lower.contains("remind me") {
        return Some(format!("text {text:?} says \"remind me\""));
    }
    let bytes = text.as_bytes();
    let iso = bytes.windows(10).any(|w| {
        let d = |i: usize| w[i].is_ascii_digit();
        d(0) && d(1) && d(2) && d(3) && w[4] == b'-' && d(5) && d(6) && w[7] == b'-' && d(8) && d(9)
    }) || bytes
        .windows(6)
        .any(|w| w[0] == b'T' && w[1].is_ascii_digit() && w[2].is_ascii_digit() && w[3] == b':');
    iso.then(|| format!("text {text:?} holds an ISO time"))
}

fn hm_matches(due: &DateTime<Local>, hm: Hm) -> bool {
    due.minute() == hm.m && (due.hour() == hm.h || (hm.either_half && due.hour() == hm.h + 12))
}

fn next_date(from: NaiveDate, month: u32, day: u32) -> Option<NaiveDate> {
    let this = NaiveDate::from_ymd_opt(from.year(), month, day)?;
    if this >= from {
        Some(this)
    } else {
        NaiveDate::from_ymd_opt(from.year() + 1, month, day)
    }
}

/// Whether a reminder (`due_at`, `repeat`) is due when the user said,
/// for a message sent at `sent` and answered by `done`.
pub fn due_problem(
    reminder: &Value,
    when: When,
    sent: DateTime<Local>,
    done: DateTime<Local>,
) -> Option<String> {
    let due_at = reminder["due_at"].as_str().unwrap_or("");
    let Ok(due) = DateTime::parse_from_rfc3339(due_at) else {
        return Some(format!("due_at {due_at:?} unreadable"));
    };
    let due = due.with_timezone(&Local);
    let repeat = reminder["repeat"].as_str();
    let today = sent.date_naive();
    let date = due.date_naive();
    let one_off = repeat.is_none();
    let ok = match when {
        When::Weekday(day, hm) => {
            let ahead =
                (7 + day.num_days_from_monday() - today.weekday().num_days_from_monday()) % 7;
            let first = today + Duration::days(ahead.into());
            one_off && [first, first + Duration::days(7)].contains(&date) && hm_matches(&due, hm)
        }
        When::Tomorrow(hm) => one_off && date == today + Duration::days(1) && hm_matches(&due, hm),
        When::DaysAt(n, hm) => one_off && date == today + Duration::days(n) && hm_matches(&due, hm),
        When::Date(month, day, hm) => {
            one_off && next_date(today, month, day) == Some(date) && hm_matches(&due, hm)
        }
        When::In(minutes) => {
            let low = sent + Duration::minutes(minutes - 2);
            let high = done + Duration::minutes(minutes + 2);
            one_off && due >= low && due <= high
        }
        When::Every(every, day, hm) => {
            repeat == Some(every)
                && day.is_none_or(|d| due.weekday() == d)
                && hm_matches(&due, hm)
                && due >= sent - Duration::minutes(1)
                && due <= sent + Duration::days(8)
        }
    };
    (!ok).then(|| {
        format!(
            "due {} (repeat {}), wanted {when:?}",
            due.format("%a %Y-%m-%d %H:%M"),
            repeat.unwrap_or("none")
        )
    })
}
