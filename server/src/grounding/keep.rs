//! What a request to save keeps, in the user's words: whether it asks to
//! keep something at all, what follows its colon or its "remember that",
//! what comes before a closing "save that", and what the words before a
//! colon say it is about.

use serde_json::Value;

use super::{courtesy, reference, slip_of, UserWords};

/// True when the words ask to keep something: "save", "store",
/// "remember", "note that", "add to my notes", "write down"; or when they
/// start with a slip of a long verb of keeping ("rember my …").
pub fn asks_to_save(text: &str) -> bool {
    let lower = text.to_lowercase();
    !keeping_words_with_the_next(text).is_empty()
        || without_keeping_words(text).1
        || [
            "write down",
            "write this down",
            "don't forget",
            "dont forget",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// The words of keeping `text` reads as verbs, each with the word after
/// it ("file room key?": "file", "room"); a word of keeping that
/// ends its clause has none. What the user's memories hold side by side
/// is their name for a thing ("File room key: …"), not a verb.
pub fn keeping_words_with_the_next(text: &str) -> Vec<(String, Option<String>)> {
    imprint_text::words::clauses(text)
        .flat_map(|clause| {
            let words = imprint_text::words::plain(clause);
            (0..words.len())
                .filter(|&i| {
                    KEEPING_VERBS.contains(&words[i].as_str())
                        && !names_a_thing_after(words.get(i.wrapping_sub(1)))
                })
                .map(|i| (words[i].clone(), words.get(i + 1).cloned()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// True when a word of keeping after `before` (the word before it in its
/// clause) is a noun: after a word that names something ("the supplier
/// file", "the cake record"), says whose ("my file", "our log") or points
/// at a thing ("at the store", "this log"). After courtesy, another
/// function word or nothing, it is the verb ("pls file it", "can you
/// note", "I want to add", "make a note that …"). "For the record, …"
/// keeps by its labelled examples, not by a verb.
fn names_a_thing_after(before: Option<&String>) -> bool {
    before.is_some_and(|w| {
        let whose = imprint_text::pronouns::says_whose(w);
        whose
            || reference::is_determiner(w)
            || !(crate::common_words::is_function_word(w)
                || courtesy::names_nothing(w)
                || crate::common_words::is_asking_verb(w)
                || imprint_text::pronouns::is_speaking_subject(w))
    })
}

/// A `store` call's content, kept when it holds at least half of the words
/// of substance of what the user said to keep; else the user's own words
/// ("Save the new PIN 4321 for my bank account." stored as "4321" by the
/// built-in model is stored as "New PIN 4321 for my bank account.").
pub fn memory_content_from_user(args: &Value, words: &UserWords<'_>) -> Value {
    let Some(said) = content_to_save(words.request) else {
        return args.clone();
    };
    let wanted = reference::topic(&said, &[]);
    let content = args.get("content").and_then(Value::as_str).unwrap_or("");
    let held = reference::topic(content, &[]);
    let kept = wanted.iter().filter(|w| held.contains(w)).count();
    let mut args = args.clone();
    if kept * 2 < wanted.len() {
        if let Some(map) = args.as_object_mut() {
            map.insert("content".into(), Value::String(said));
        }
    }
    args
}

/// Verbs that ask to keep something ("write" only as "write down").
const KEEPING_VERBS: &[&str] = &[
    "save", "store", "remember", "note", "keep", "add", "record", "memorize", "memorise", "jot",
    "log", "file",
];

/// A verb of keeping, or a slip of a long one ("rember", "memorzie"):
/// short verbs ("save", "note") are other words with one slip ("same",
/// "nose").
fn is_keeping_verb(word: &str) -> bool {
    KEEPING_VERBS
        .iter()
        .any(|verb| *verb == word || (verb.len() >= 6 && slip_of(word, verb)))
}

/// Small words that may come with a verb of keeping at the start of a
/// request to save ("Please write down the …"), besides courtesy.
const BESIDE_KEEPING: &[&str] = &["write", "down", "the", "a", "an", "this", "that", "my"];

/// The request after its leading words of keeping ("Save the new PIN 4321
/// …" is "new PIN 4321 …"); `None` unless it starts with a verb of keeping.
fn after_keeping_words(text: &str) -> Option<&str> {
    let (rest, verb) = without_keeping_words(text);
    (verb && !rest.is_empty()).then_some(rest)
}

/// `text` after its leading verbs of keeping and the small words beside
/// them, and whether there was such a verb.
fn without_keeping_words(text: &str) -> (&str, bool) {
    let mut rest = text.trim_start();
    let mut verb = false;
    // "write" keeps only as "write down": "Write a long story about a
    // lighthouse keeper" asks for a story (a fresh request, session 13).
    let (mut write, mut down) = (false, false);
    while !rest.is_empty() {
        let (word, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let plain = word.to_lowercase();
        let plain = plain.trim_matches(|c: char| !c.is_alphanumeric());
        let keeping = is_keeping_verb(plain);
        if !keeping && !BESIDE_KEEPING.contains(&plain) && !courtesy::is_courtesy(plain) {
            break;
        }
        verb |= keeping;
        write |= plain == "write";
        down |= plain == "down";
        rest = after.trim_start();
    }
    (rest, verb || (write && down))
}

/// Where the colon that sets what to keep apart is ("Save to the Website
/// project: …"); a colon between digits is a clock time ("16:40").
pub(crate) fn colon_before_content(request: &str) -> Option<usize> {
    let bytes = request.as_bytes();
    request
        .char_indices()
        .find(|&(i, c)| {
            c == ':'
                && !(i > 0
                    && bytes[i - 1].is_ascii_digit()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        })
        .map(|(i, _)| i)
}

/// What to keep, in the user's words: [`what_to_save`], or else the
/// request past its verb of keeping ("Save the new PIN 4321 for my bank
/// account." keeps "New PIN 4321 for my bank account.").
pub fn content_to_save(request: &str) -> Option<String> {
    what_to_save(request).or_else(|| {
        let rest = after_keeping_words(request)?;
        // "can you save something for me pls" names nothing to keep.
        let names_something = imprint_text::words::plain(rest)
            .iter()
            .any(|w| !crate::common_words::is_function_word(w) && !courtesy::names_nothing(w));
        (names_something && asks_to_save(request)).then(|| capitalized(rest))
    })
}

/// What a request to save says to keep, in the user's words: what follows
/// a colon ("Save to the Website project: the client approved the
/// mockups"), after what it is about when the words before the colon say
/// ("Write down the password hint for my email account: the first street"
/// keeps "Password hint for my email account: the first street"), or
/// "that …" after a verb of keeping ("Remember that Anna likes tea").
/// `None` when it does not say it plainly.
pub fn what_to_save(request: &str) -> Option<String> {
    if !asks_to_save(request) {
        return None;
    }
    // "Lena's train gets in at 16:40 on Saturday, save that": what comes
    // before the keeping words is what to keep.
    if let Some(before) = before_trailing_keep(request) {
        return Some(capitalized(before));
    }
    let said = match colon_before_content(request).map(|i| (&request[..i], &request[i + 1..])) {
        Some((before, after)) => {
            let after = after.trim();
            if after.is_empty() {
                return None;
            }
            return Some(match saved_under(before) {
                Some(label) => format!("{}: {after}", capitalized(&label)),
                None => capitalized(after),
            });
        }
        None => &request[after_keeping_that(request)?..],
    };
    let said = said.trim();
    (!said.is_empty()).then(|| capitalized(said))
}

/// Where what to keep starts after a verb of keeping and "that":
/// "Remember that …", "Could you jot down that …", "make a note that …",
/// "don't forget that …". `None` when no verb of keeping is followed by
/// "that".
fn after_keeping_that(request: &str) -> Option<usize> {
    let mut words = request
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace() && (i == 0 || request[..i].ends_with(char::is_whitespace))
        })
        .map(|(i, _)| {
            let end = request[i..]
                .find(char::is_whitespace)
                .map_or(request.len(), |n| i + n);
            let plain = request[i..end]
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase();
            (plain, end)
        })
        .peekable();
    while let Some((word, _)) = words.next() {
        let keeping = is_keeping_verb(&word) || matches!(word.as_str(), "write" | "forget");
        if !keeping {
            continue;
        }
        // "down", "in mind", "a note", "it down": between the verb and
        // "that".
        while words
            .peek()
            .is_some_and(|(w, _)| matches!(w.as_str(), "down" | "in" | "mind" | "a" | "note"))
        {
            words.next();
        }
        if let Some((_, end)) = words.next_if(|(w, _)| w == "that") {
            return Some(end);
        }
    }
    None
}

/// The marks after which a closing clause may start ("…, save that").
const CLAUSE_ENDS: [char; 7] = [',', '-', '–', '—', ';', '.', '!'];

/// The request before a closing clause that only asks to keep it
/// ("Lena's train gets in at 16:40 on Saturday, save that" → "Lena's
/// train gets in at 16:40 on Saturday"; "…, could you jot it down for me
/// somewhere safe"); `None` when it does not end so, or nothing is
/// before it.
fn before_trailing_keep(request: &str) -> Option<&str> {
    let trimmed = courtesy::without_closing(request);
    // Only a closing clause: "…, save that", "… - remember this", "…!!
    // save it pls" (a sentence's end is a clause's end too).
    let cut = trimmed.rfind(CLAUSE_ENDS)?;
    let (before, clause) = trimmed.split_at(cut);
    if !only_asks_to_keep(&clause[clause.chars().next()?.len_utf8()..]) {
        return None;
    }
    let before = before.trim_end_matches(|c: char| c.is_whitespace() || CLAUSE_ENDS.contains(&c));
    let before = without_lead_in(before);
    (imprint_text::words::plain(before).len() >= 2).then_some(before)
}

/// True for a clause of a verb of keeping and words naming nothing:
/// "save that", "make a note of it", "keep that somewhere safe for me"
/// ("save a note about her move" names what to keep).
fn only_asks_to_keep(clause: &str) -> bool {
    let words = imprint_text::words::plain(clause);
    words.iter().any(|w| is_keeping_verb(w))
        && words.iter().all(|w| {
            is_keeping_verb(w)
                || crate::common_words::is_function_word(w)
                || crate::common_words::is_kept_thing(w)
                || courtesy::names_nothing(w)
                // "write it down", "make a note", "take a note", "somewhere
                // safe", "for later".
                || matches!(
                    w.as_str(),
                    "write" | "make" | "take" | "somewhere" | "safe" | "later"
                )
        })
}

/// `text` without the spoken or typed lead-in that opens it ("ok so the
/// tracking number …" is "the tracking number …", "btw the code …" is "the
/// code …").
pub fn without_lead_in(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        let (word, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let plain = word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let lead_in = courtesy::leads_in(&plain);
        if !lead_in || after.trim().is_empty() {
            return rest;
        }
        rest = after.trim_start();
    }
}

/// What the words before a colon say a memory is about, without the verb
/// of keeping: "Write down the password hint for my email account" is
/// "password hint for my email account". `None` for a place to keep it
/// ("Save to the Website project", "Note this").
fn saved_under(before: &str) -> Option<String> {
    let lower = before.to_lowercase();
    if imprint_text::words::plain(&lower)
        .iter()
        .any(|w| w == "project" || w == "projects")
    {
        return None;
    }
    let (label, _) = without_keeping_words(before);
    let label = label.trim_end();
    // "Keep in mind: …" says how, not what.
    if label.is_empty() || label.eq_ignore_ascii_case("in mind") {
        return None;
    }
    // "to my notes", "in memory": where, not what.
    let substance = reference::topic(label, &[]);
    (!substance.is_empty()).then(|| label.to_string())
}

/// `text` with a capital first letter.
pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
