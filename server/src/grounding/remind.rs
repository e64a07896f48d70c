//! A reminder asked for, in the user's words: whether the request asks to
//! be reminded (one slip of the keys allowed), and what of: the text after
//! "remind me" without the time it carries, with whom a pronoun means.

use chrono::{DateTime, Datelike, Duration, Local, NaiveDate, NaiveTime, TimeZone, Weekday};
use serde_json::Value;

use super::{reference, slip_of, when, UserWords, MEANT_WORDS};

/// Class: the verbs that ask to be told of something later, before "me"
/// ("nudge me", "ping me"); "remind" is read with its slips and "alarm"
/// only with a time, below.
const TELL_ME_LATER: &[&str] = &["remind", "nudge", "ping", "alert", "notify", "wake"];

/// The words that link "remind me" to what of: "to", "about", "of", "that".
const LINKS: &[&str] = &["to ", "about ", "of ", "that "];

/// The words that may open a time said before what to be reminded of.
const TIME_LEADS: &[&str] = &["for ", "on ", "at "];

/// True when the words ask for a reminder: "remind me", "set a reminder",
/// "wake me", "don't let me forget".
pub fn asks_for_reminder(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words = imprint_text::words::plain(text);
    // "an alarm for 6", "alert me at 9", not "whats the alarm code, …
    // tomorrow": the alarm itself is followed by a function word, a time
    // or nothing; a word naming a thing makes it another thing's name.
    let the_alarm_itself = |i: usize| {
        words.get(i + 1).is_none_or(|next| {
            crate::common_words::is_function_word(next)
                || when::is_time_word(next)
                || next.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    words
        .iter()
        .enumerate()
        // "which reminded me …", "it reminds me of …" tell, not ask.
        .filter(|(_, w)| !matches!(w.as_str(), "reminded" | "reminds"))
        .any(|(i, w)| {
            w.starts_with("remind")
            // "remnd", "reminf": one slip of the keys is still the verb.
            || slip_of(w, "remind")
            // "set an alarm for 6", not "the new alarm code is 7731": as
            // nouns of other things, these ask only with a time.
            || (matches!(w.as_str(), "alarm" | "alert")
                && the_alarm_itself(i)
                && says_a_time(text))
        })
        || tell_me_later(&lower).is_some()
        || forget_me(&lower).is_some()
        || time_then_task(text).is_some()
}

/// What to do after a time that opens the request alone, as a reminder
/// is jotted: "1 hr 20 min - check the kiln", "fri 5pm: email the
/// Carters", "tmrw 8am, call the school" → "check the kiln". The time
/// must say when (not only "later"), and what follows must start with a
/// verb of doing the shared lists know and ask nothing ("2pm - meeting
/// moved to room 4" is a fact).
fn time_then_task(text: &str) -> Option<&str> {
    let (time, task) = when::split_at_first_mark(text.trim())?;
    let task = task.trim();
    let first = imprint_text::words::plain(task).into_iter().next()?;
    (when::is_only_time(time.trim())
        && (says_a_time(time) || when::is_bare_span(time))
        && !task.ends_with('?')
        // Said as one tells oneself to: "check", not "meeting" or "checked".
        && !first.ends_with("ing")
        && !first.ends_with("ed")
        && super::is_a_verb_of_doing(&first))
    .then_some(task)
}

/// Where a verb of [`TELL_ME_LATER`] and its "me" are in `lower` ("ping
/// me", "notify me"), and their length.
fn tell_me_later(lower: &str) -> Option<(usize, usize)> {
    TELL_ME_LATER.iter().find_map(|verb| {
        let anchor = format!("{verb} me");
        lower.find(&anchor).map(|i| (i, anchor.len()))
    })
}

/// Where "let me forget" or "let me not forget" is in `lower` ("don't let
/// me forget the keys"), and its length.
fn forget_me(lower: &str) -> Option<(usize, usize)> {
    ["let me not forget", "let me forget"]
        .iter()
        .find_map(|anchor| lower.find(anchor).map(|i| (i, anchor.len())))
}

/// True when `text` says a time: a moment, a day or a repeat.
fn says_a_time(text: &str) -> bool {
    when::stated(text, Local::now()).is_some() || when::recurrence(text).is_some()
}

/// What to be reminded of when a reminder's words give the time first and
/// then, after a comma, what: "for tomorrow at 7:15am, take the bins out"
/// → "to take the bins out". `None` for any other shape.
fn after_the_time(rest: &str) -> Option<String> {
    let (time, what) = rest.split_once(',')?;
    let time = time.trim();
    let time = TIME_LEADS
        .iter()
        .find_map(|lead| time.strip_prefix(lead))
        .unwrap_or(time);
    let what = what.trim();
    (when::is_only_time(time) && imprint_text::words::plain(what).len() >= 2)
        .then(|| format!("to {what}"))
}

/// Where "remnd me" (one slip from "remind me") is in `lower`, and its
/// length.
fn misspelt_remind_me(lower: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    for word in lower.split(' ') {
        let plain = word.trim_matches(|c: char| !c.is_alphanumeric());
        if slip_of(plain, "remind") && lower[at + word.len()..].starts_with(" me") {
            return Some((at, word.len() + 3));
        }
        at += word.len() + 1;
    }
    None
}

/// A `remind` call's text, kept when it shares a word of substance with
/// what the user said; else the request's own ("Call him tomorrow at 9"),
/// with what the user said the request's reference `meant` ("Call Tom"); a
/// text that is only the reference ("It") is what they said or `chosen`.
/// A small model copied Imprint's note into it ("remind now with the text
/// and that time"). Either way without the time, which the reminder keeps
/// in `at` and `repeat` ("Call him").
pub fn reminder_text_from_user(
    args: &Value,
    words: &UserWords<'_>,
    meant: Option<&str>,
    chosen: Option<&str>,
) -> Value {
    let said: Vec<String> = words
        .latest_first()
        .flat_map(|text| reference::topic(text, &[]))
        .collect();
    let text = args.get("text").and_then(Value::as_str).unwrap_or("");
    // "Remind me about it": a text that is only the reference is what the
    // user said it means, however many words ("the parcel at the post
    // office").
    let bare = text.trim().trim_end_matches(['.', '!']);
    let only_the_reference = reference::find(words.request, "", &[])
        .is_some_and(|found| bare.is_empty() || bare.eq_ignore_ascii_case(&found.phrase));
    // Or the thing they chose from Imprint's options for it.
    if let Some(meaning) = meant.or(chosen).filter(|_| only_the_reference) {
        let mut args = args.clone();
        if let Some(map) = args.as_object_mut() {
            map.insert("text".into(), Value::String(meaning.trim().to_string()));
        }
        return args;
    }
    // What the user said a reference of the request means ("him": "Tom").
    let meant = meant.and_then(|meaning| meant_by(words.request, meaning));
    // A text of no words of substance ("call him") is left as it is,
    // unless the user said whom it means: then the request's, with that.
    let own = reference::topic(text, &[]);
    let shares = (own.is_empty() && meant.is_none()) || own.iter().any(|w| said.contains(w));
    let text = if !shares {
        reminder_text(words.request)
    } else if text.to_lowercase().starts_with("remind me") {
        // The request copied as the text: what it asks to be reminded of.
        reminder_text(text).or_else(|| Some(text.to_string()))
    } else {
        Some(text.to_string())
    };
    let text = match (text, meant) {
        (Some(text), Some((phrase, meaning))) => Some(replace_words(&text, &phrase, meaning)),
        (text, _) => text,
    };
    let mut args = args.clone();
    if let (Some(text), Some(map)) = (text.filter(|t| !t.is_empty()), args.as_object_mut()) {
        // A note, not a sentence: "Send the invoice", no full stop.
        let text = with_what_answers_add(&when::without_the_time(&text), words.answers);
        let text = with_the_event(&text, words.request);
        let text = text
            .strip_suffix('.')
            .filter(|t| !t.ends_with('.'))
            .unwrap_or(&text);
        map.insert("text".into(), Value::String(text.to_string()));
    }
    args
}

/// `text` with the event the request sets it against, when it does not
/// say it: "Book it" a week before the nct is due is "Book it (a week
/// before the nct is due)", which says what it is for when it fires.
fn with_the_event(text: &str, request: &str) -> String {
    let Some(anchor) = when::before_an_event(request) else {
        return text.to_string();
    };
    let held = reference::topic(text, &[]);
    let named = reference::topic(&anchor.event, &[]);
    if named.iter().any(|w| held.contains(w)) {
        return text.to_string();
    }
    format!(
        "{} ({})",
        text.trim_end().trim_end_matches('.'),
        anchor.said
    )
}

/// `text` with what the user's answers say beyond a time ("monday at
/// 6pm, for Felix's appointment" to "What time should I remind you about
/// the dentist?" keeps "The dentist, for Felix's appointment"), unless
/// the text already holds it.
fn with_what_answers_add(text: &str, answers: &[String]) -> String {
    let held = reference::topic(text, &[]);
    let mut text = text.trim_end().trim_end_matches('.').to_string();
    for answer in answers {
        // Only an answer that gave a time: other answers (whom "him"
        // means) are read where the question was asked.
        if when::without_the_time(answer).trim().len() == answer.trim().len() {
            continue;
        }
        // Its clauses that say no time ("on the 1st of February at 9am,
        // for the car insurance").
        for clause in answer.split([',', ';', '—', '–']) {
            let clause = clause.trim().trim_end_matches('.');
            let timeless = when::without_the_time(clause).trim().len() == clause.len()
                && !when::is_only_time(clause);
            let new = reference::topic(clause, &[]);
            if timeless && !new.is_empty() && new.iter().any(|w| !held.contains(w)) {
                text = format!("{text}, {clause}");
            }
        }
    }
    text
}

/// The request's reference and the user's few words for what it means
/// ("him", "Tom"); `None` for a longer answer.
fn meant_by<'m>(request: &str, meaning: &'m str) -> Option<(String, &'m str)> {
    let found = reference::find(request, "", &[])?;
    let meaning = meaning.trim();
    let few = (1..=MEANT_WORDS).contains(&meaning.split_whitespace().count());
    (few && !meaning.eq_ignore_ascii_case(&found.phrase)).then_some((found.phrase, meaning))
}

/// `text` with each whole-word `phrase` (any case) replaced by `with`.
fn replace_words(text: &str, phrase: &str, with: &str) -> String {
    let lower = text.to_lowercase();
    let phrase = phrase.to_lowercase();
    let mut out = String::new();
    let mut from = 0;
    while let Some(found) = lower[from..].find(&phrase).map(|i| from + i) {
        let end = found + phrase.len();
        let whole = !lower[..found].ends_with(char::is_alphanumeric)
            && !lower[end..].starts_with(char::is_alphanumeric);
        out.push_str(&text[from..found]);
        out.push_str(if whole { with } else { &text[found..end] });
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

/// Completes "What time should I remind you …?" from the user's request
/// ("remind me to send the invoice" → "to send the invoice"), else from
/// the reminder's text.
pub(super) fn about(request: &str, model_text: &str) -> String {
    if let Some(rest) = [request, model_text].into_iter().find_map(after_remind_me) {
        return rest;
    }
    // "Remind me before the flight": the user's words as they are.
    let lower = request.to_lowercase();
    if let Some(i) = lower.find("remind me ") {
        let rest = clean_end(&request[i + "remind me ".len()..]);
        if !rest.is_empty() {
            return rest;
        }
    }
    let text = clean_end(model_text);
    if text.is_empty() {
        "about this".to_string()
    } else {
        format!("about “{text}”")
    }
}

/// `s` without the marks and the politeness that close it ("to water the
/// plants pls." is "to water the plants").
fn clean_end(s: &str) -> String {
    super::courtesy::without_closing(s).to_string()
}

/// "to send the invoice" from "… remind me to send the invoice." (or
/// "… a reminder to send …"); words of when before it are passed over:
/// "remind me every day to take my pills" → "to take my pills".
fn after_remind_me(source: &str) -> Option<String> {
    let lower = source.to_lowercase();
    let (i, len) = tell_me_later(&lower)
        .or_else(|| lower.find("reminder").map(|i| (i, "reminder".len())))
        .or_else(|| forget_me(&lower))
        .or_else(|| misspelt_remind_me(&lower))?;
    let rest = without_an_event(&clean_end(&source[i + len..]));
    if let Some(what) = after_the_time(&rest) {
        return Some(what);
    }
    // "Don't let me forget the keys": what is not to be forgotten follows
    // the verb itself.
    let forget = lower[i..i + len].ends_with("forget");
    let lower_rest = rest.to_lowercase();
    let linked = LINKS.iter().any(|p| lower_rest.starts_with(p));
    if forget && !linked && !rest.is_empty() {
        return Some(format!("about {rest}"));
    }
    let lower_rest = format!(" {}", rest.to_lowercase());
    let start = LINKS
        .iter()
        .filter_map(|p| lower_rest.find(&format!(" {p}")))
        .min()?;
    // Only when the words before it say when or how often.
    let before = &lower_rest[..start];
    // "a reminder for December 3 at 10:00 to …": the time after its "for".
    let time = TIME_LEADS
        .iter()
        .find_map(|lead| before.trim_start().strip_prefix(lead))
        .unwrap_or(before);
    let only_when = before.trim().is_empty()
        || when::recurrence(before).is_some()
        // "tomorrow at 9", "on Friday at 14:00": the words say when.
        || when::is_only_time(before)
        || when::is_only_time(time)
        // "next week", "later", "again": words of a time, however vague.
        || imprint_text::words::plain(before)
            .iter()
            .all(|w| when::is_time_word(w) || w == "again");
    only_when.then(|| rest[start..].trim().to_string())
}

/// `rest` of a "remind me" without the time it sets against an event ("the
/// day before the inspection", "on the day of the show"): its words are
/// when, not what, and its "of" is no link to what ("at 4pm on the day of
/// the show to charge the camera" is reminded "to charge the camera").
fn without_an_event(rest: &str) -> String {
    let Some(event) = when::before_an_event(rest) else {
        return rest.to_string();
    };
    let lower = rest.to_lowercase();
    match lower.find(&event.said) {
        // Offsets in the lower-case text are the text's own only when
        // lower-casing kept every length.
        Some(at) if lower.len() == rest.len() => {
            let (before, after) = (&rest[..at], &rest[at + event.said.len()..]);
            format!("{} {}", before.trim_end(), after.trim_start())
                .trim()
                .to_string()
        }
        _ => rest.to_string(),
    }
}

/// "to check in" from "Remind me before the flight to check in": when is
/// said by another event (and asked), what follows its "to".
fn after_an_event(request: &str) -> Option<String> {
    let lower = request.to_lowercase();
    let at = ["remind me before ", "remind me after "]
        .iter()
        .find_map(|p| lower.find(p).map(|i| i + p.len()))?;
    let to = lower[at..].find(" to ")? + at;
    let what = clean_end(&request[to..]);
    (imprint_text::words::plain(&what).len() >= 2).then_some(what)
}

/// "of the play" from "remind me an hour before the play": a request
/// that says nothing but when, against an event, is reminded of the event.
fn only_an_event(request: &str) -> Option<String> {
    let anchor = when::before_an_event(request)?;
    let said_else = imprint_text::words::plain(&anchor.rest)
        .into_iter()
        .any(|w| {
            w != "remind"
                && w != "me"
                && !super::courtesy::is_courtesy(&w)
                && !when::is_time_word(&w)
        });
    (!said_else).then(|| format!("of the {}", anchor.event))
}

/// True when `text` names something to be reminded of: a word that is
/// not one of asking, of courtesy or of when ("set a reminder for 6",
/// "half 3 in the afternoon" name nothing).
pub fn names_something_to_remind(text: &str) -> bool {
    names_something_beside(text, |w| {
        crate::common_words::names_nothing_kept(w) || when::is_time_word(w)
    })
}

/// True when `fact` names something to keep: a word that is not one of
/// asking, of keeping or of courtesy ("I need to remember something"
/// names nothing).
pub fn names_something_kept(fact: &str) -> bool {
    names_something_beside(fact, crate::common_words::names_nothing_kept)
}

/// True when `text` holds a word that is no word of courtesy and none
/// that `says_nothing` holds to say nothing.
fn names_something_beside(text: &str, says_nothing: impl Fn(&str) -> bool) -> bool {
    imprint_text::words::plain(text)
        .iter()
        .any(|w| !super::courtesy::names_nothing(w) && !says_nothing(w))
}

/// What to remind of, in the user's own words: "Remind me to call Anna."
/// → "Call Anna"; `None` when the request does not say it that way.
pub fn reminder_text(request: &str) -> Option<String> {
    let about = after_remind_me(request)
        .or_else(|| after_an_event(request))
        .or_else(|| time_then_task(request).map(|task| format!("to {}", clean_end(task))))
        .or_else(|| only_an_event(request))?;
    let (_, what) = about.split_once(' ')?;
    let what = what.trim();
    // "reminder for tmrw, half 3 in the afternoon": a time, and nothing
    // to be reminded of ("call him", "check in" are things to do).
    if !names_something_beside(what, when::is_time_word) {
        return None;
    }
    let mut chars = what.chars();
    let first = chars.next()?;
    Some(first.to_uppercase().chain(chars).collect())
}

/// Monday, Wednesday and Friday of next week at 09:00, labelled date
/// first ("7 Dec (Mon), 09:00") so the label reads back as the same
/// moment in the grammar of when.
pub(super) fn next_week_options(now: DateTime<Local>) -> Vec<(String, DateTime<Local>)> {
    let today = now.date_naive();
    let to_monday = 7 - i64::from(today.weekday().num_days_from_monday());
    [0, 2, 4]
        .into_iter()
        .filter_map(|offset| {
            let day = today.checked_add_signed(Duration::days(to_monday + offset))?;
            let t = Local
                .from_local_datetime(&day.and_time(NaiveTime::from_hms_opt(9, 0, 0)?))
                .earliest()?;
            Some((t.format("%-d %b (%a), %H:%M").to_string(), t))
        })
        .collect()
}

/// Morning, midday and evening of `day` that are still to come, labelled
/// as [`next_week_options`] are ("5 Dec (Sat), 09:00").
pub(super) fn times_on(day: NaiveDate, now: DateTime<Local>) -> Vec<(String, DateTime<Local>)> {
    [9, 12, 18]
        .into_iter()
        .filter_map(|hour| {
            let t = Local
                .from_local_datetime(&day.and_time(NaiveTime::from_hms_opt(hour, 0, 0)?))
                .earliest()?;
            (t > now).then(|| (t.format("%-d %b (%a), %H:%M").to_string(), t))
        })
        .collect()
}

/// A few sensible moments from now, labelled.
pub fn time_options(now: DateTime<Local>) -> Vec<(String, DateTime<Local>)> {
    let today = now.date_naive();
    let at = |days: i64, hour: u32| {
        let day = today.checked_add_signed(Duration::days(days))?;
        Local
            .from_local_datetime(&day.and_time(NaiveTime::from_hms_opt(hour, 0, 0)?))
            .earliest()
    };
    let mut options = Vec::new();
    let mut push = |label: String, t: Option<DateTime<Local>>| {
        if let Some(t) = t.filter(|t| *t > now) {
            options.push((label, t));
        }
    };
    if now.time() < NaiveTime::from_hms_opt(17, 0, 0).expect("valid") {
        push("This evening, 18:00".into(), at(0, 18));
    } else {
        push("In 1 hour".into(), Some(now + Duration::hours(1)));
    }
    push("Tomorrow, 09:00".into(), at(1, 9));
    push("Tomorrow, 18:00".into(), at(1, 18));
    let tomorrow = today.succ_opt().map(|d| d.weekday());
    if tomorrow != Some(Weekday::Mon) {
        let ahead = 7 - i64::from(today.weekday().num_days_from_monday());
        push("Monday, 09:00".into(), at(ahead, 9));
    }
    options
}
