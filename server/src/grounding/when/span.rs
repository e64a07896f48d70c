//! A span from now: "in 2 hours", "in 1 hr 15 min", "in 1h15m", "in an
//! hour and a half", "in half an hour", "2 hours 30 minutes from now".
//!
//! A span takes all of its parts or is no span: "in 1 hr 15" (15 what?)
//! says no time, rather than an hour that drops the 15.

use chrono::Duration;

use super::{number, unit};

/// The most of one unit a span can say: "in 2147483647weeks" is no time a
/// reminder can have.
const MOST: f64 = 1000.0;

/// The span the words say from now: after "in" or "within", or before
/// "from now".
pub(super) fn span_from_now(words: &[String]) -> Option<Duration> {
    for (i, word) in words.iter().enumerate() {
        if word != "in" && word != "within" {
            continue;
        }
        match span(&words[i + 1..]) {
            Read::Span(span, _) => return Some(span),
            Read::Unclear => return None,
            // "in the evening": another "in" may say it.
            Read::Nothing => {}
        }
    }
    // "40 mins then the parking is up": a span opening the text, with
    // what happens then after it, counts from now.
    if let Read::Span(span, used) = span(words) {
        if words.get(used).is_some_and(|next| next == "then") {
            return Some(span);
        }
    }
    // "an hour and a half from now": the span is the run of span words
    // just before it, all of it (a word or two of the sentence before
    // it, "call Anna and", left out).
    let end = (1..words.len()).find(|&i| words[i - 1] == "from" && words[i] == "now")? - 1;
    let run = words[..end]
        .iter()
        .rev()
        .take_while(|w| is_span_word(w))
        .count();
    for start in end - run..end {
        match span(&words[start..end]) {
            Read::Span(span, used) if start + used == end => return Some(span),
            Read::Unclear => return None,
            _ => {}
        }
    }
    None
}

/// The span that ends `words` ("remind me an hour and a half" → 90
/// minutes), all of its run of span words, and how many words it took:
/// what comes before "before the concert".
pub(super) fn span_ending(words: &[String]) -> Option<(Duration, usize)> {
    let end = words.len();
    let run = words.iter().rev().take_while(|w| is_span_word(w)).count();
    for start in end - run..end {
        match span(&words[start..end]) {
            Read::Span(span, used) if start + used == end => return Some((span, end - start)),
            Read::Unclear => return None,
            _ => {}
        }
    }
    None
}

/// A word a span can be made of.
/// True when `text` is a span alone, as a jotted reminder opens ("1 hr
/// 20 min", "45 mins"): span words with a unit among them.
pub(crate) fn is_bare_span(text: &str) -> bool {
    let words = imprint_text::words::plain(text);
    !words.is_empty()
        && words.iter().all(|w| is_span_word(w))
        && words
            .iter()
            .any(|w| unit(w).is_some() || compact(w).is_some())
}

fn is_span_word(word: &str) -> bool {
    amount(word).is_some()
        || unit(word).is_some()
        || fraction(word).is_some()
        || compact(word).is_some()
        || matches!(word, "and" | "of")
}

/// What the words at the start of a slice say as a span.
#[derive(Debug, PartialEq)]
enum Read {
    /// The span and how many words it took.
    Span(Duration, usize),
    /// A span whose next part is begun and not finished ("2 hours 15"),
    /// or in the wrong order ("15 minutes 2 hours").
    Unclear,
    Nothing,
}

/// One part or more, each a smaller unit than the one before, with "and"
/// between them or not: "1 hr 15 min", "2 hours and 30 minutes".
fn span(words: &[String]) -> Read {
    let Some((mut total, mut last, mut used)) = part(words) else {
        return Read::Nothing;
    };
    loop {
        let rest = &words[used..];
        let (and, rest) = match rest {
            [and, rest @ ..] if and == "and" => (1, rest),
            rest => (0, rest),
        };
        let begun = rest.first().is_some_and(|w| begins_a_part(w));
        match part(rest) {
            Some((more, unit, took)) if unit < last => {
                let Some(sum) = total.checked_add(&more) else {
                    return Read::Unclear;
                };
                total = sum;
                last = unit;
                used += and + took;
            }
            Some(_) => return Read::Unclear,
            None if begun => return Read::Unclear,
            None => return Read::Span(total, used),
        }
    }
}

/// A word that opens another part of a span: a number ("2 hours 15"
/// is begun), but not "a" ("in 2 hours a day" is no part) nor a clock
/// time ("in 3 days 9am").
fn begins_a_part(word: &str) -> bool {
    (amount(word).is_some() && word != "a" && word != "an") || fraction(word).is_some()
}

/// One part of a span, its unit and the words it took: "2 hours", "an hour
/// and a half", "two and a half hours", "half an hour", "a quarter of an
/// hour", "1.5 hours", "1h15m".
fn part(words: &[String]) -> Option<(Duration, Duration, usize)> {
    let word = |i: usize| words.get(i).map(String::as_str);
    let article = |i: usize| matches!(word(i), Some("a" | "an"));
    // "half an hour", "a quarter of an hour", "a half hour".
    let lead = usize::from(article(0));
    if let Some(share) = word(lead).and_then(fraction) {
        let mut at = lead + 1;
        at += usize::from(word(at) == Some("of"));
        at += usize::from(article(at));
        let unit = word(at).and_then(unit)?;
        return Some((scaled(unit, share)?, unit, at + 1));
    }
    if let Some(found) = word(0).and_then(compact) {
        return Some(found);
    }
    let amount = amount(word(0)?)?;
    // "two and a half hours"
    if word(1) == Some("and") && article(2) {
        if let (Some(share), Some(unit)) = (word(3).and_then(fraction), word(4).and_then(unit)) {
            return Some((scaled(unit, amount + share)?, unit, 5));
        }
    }
    let unit = word(1).and_then(unit)?;
    // "an hour and a half"
    if word(2) == Some("and") && article(3) {
        if let Some(share) = word(4).and_then(fraction) {
            return Some((scaled(unit, amount + share)?, unit, 5));
        }
    }
    Some((scaled(unit, amount)?, unit, 2))
}

/// "1h15m", "2h", "30min", "1h15" (minutes after the hours): digits and
/// units run together in one word.
fn compact(word: &str) -> Option<(Duration, Duration, usize)> {
    let mut total = Duration::zero();
    let mut last: Option<Duration> = None;
    let mut rest = word;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let n: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let letters = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        let unit = match &rest[..letters] {
            // "1h15": the minutes of the hour.
            "" if last == Some(Duration::hours(1)) => Duration::minutes(1),
            // "m" alone is read as minutes only run together with its number.
            "m" => Duration::minutes(1),
            name => unit(name)?,
        };
        rest = &rest[letters..];
        if last.is_some_and(|last| unit >= last) {
            return None;
        }
        total = total.checked_add(&scaled(unit, n)?)?;
        last = Some(unit);
    }
    Some((total, last?, 1))
}

/// A word's amount: "2", "two", "an", "1.5".
fn amount(word: &str) -> Option<f64> {
    number(word)
        .map(|n| n as f64)
        .or_else(|| word.parse::<f64>().ok().filter(|n| n.is_finite()))
}

/// A share of a unit: "half", "quarter".
fn fraction(word: &str) -> Option<f64> {
    match word {
        "half" => Some(0.5),
        "quarter" => Some(0.25),
        _ => None,
    }
}

/// `amount` of `unit`, when it is more than nothing and at most [`MOST`].
fn scaled(unit: Duration, amount: f64) -> Option<Duration> {
    if !(amount > 0.0 && amount <= MOST) {
        return None;
    }
    // Whole seconds: a week's seconds times a thousand fit an i64 many times.
    let seconds = (unit.num_seconds() as f64 * amount).round() as i64;
    Some(Duration::seconds(seconds))
}

/// True for digits and units run together in one word: "1h15m", "30min".
pub(super) fn is_compact(word: &str) -> bool {
    compact(word).is_some()
}
