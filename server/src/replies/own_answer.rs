//! The answer Imprint writes itself when the model's text has nothing
//! readable left (it was empty, or only markup): what the reply did, from
//! its writes' arguments, or else what its last read found.

use chrono::{DateTime, Local, NaiveDate};
use serde_json::Value;

use crate::models::note;
use crate::tools::run::MemoryLine;
use crate::tools::{self, REMIND, STORE};

/// "Done: reminder set for Tuesday 09:00 to call Anna." from the writes a
/// reply made (tool name and the arguments it ran with); `None` when it
/// made none.
pub fn from_writes(writes: &[(String, Value)], now: DateTime<Local>) -> Option<String> {
    let parts: Vec<String> = writes
        .iter()
        .filter_map(|(tool, args)| match tool.as_str() {
            REMIND => Some(reminder(args, now)),
            STORE => {
                // The sentence ends after the quote: "… mockups”."
                let saved = match text(args, "content") {
                    Some(content) => format!("saved “{}”", content.trim_end_matches('.')),
                    None => "saved a memory".to_string(),
                };
                // Where it went, when the user left that to Imprint too.
                Some(match text(args, "project") {
                    Some(project) => format!("{saved} in the project {project}"),
                    None => saved,
                })
            }
            _ => None,
        })
        .collect();
    (!parts.is_empty()).then(|| format!("Done: {}.", parts.join("; ")))
}

/// The model's answer without the sentences that say Imprint's notes
/// back; as it was when it says none.
pub fn without_notes_said_back(text: &str) -> String {
    let mut kept = String::new();
    let mut dropped = false;
    for sentence in sentences(text) {
        if note::said_back(sentence) {
            dropped = true;
        } else {
            kept.push_str(sentence);
        }
    }
    if dropped {
        kept.trim().to_string()
    } else {
        text.to_string()
    }
}

/// `text` cut after each '.', '!' or '?' that ends a sentence (followed by
/// a space or the end) and after each line, the cuts kept with the pieces.
fn sentences(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends =
            c == '\n' || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace));
        if ends {
            // The space after it goes with it.
            let mut end = i + c.len_utf8();
            while let Some(&(j, n)) = chars.peek() {
                if n == ' ' {
                    end = j + 1;
                    chars.next();
                } else {
                    break;
                }
            }
            pieces.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// What a read found, for a model that then said nothing, as a person
/// reads it: each memory a list item with its project and day, without
/// the ids and headings the model reads; the project list under its own
/// heading.
pub fn from_found(found: &str) -> String {
    // Each memory's content (its lines) and where and when it was kept.
    let mut memories: Vec<(Vec<&str>, String)> = Vec::new();
    let mut rest: Vec<&str> = Vec::new();
    for line in found.lines().filter(|line| !line.trim().is_empty()) {
        if let Some(memory) = MemoryLine::read(line) {
            memories.push((vec![memory.content.trim()], kept(&memory)));
        } else if let Some((lines, _)) = memories.last_mut() {
            // A memory of several lines goes on in its item.
            lines.push(line.trim());
        } else {
            rest.push(line);
        }
    }
    if !memories.is_empty() {
        let items: Vec<String> = memories
            .iter()
            .map(|(lines, kept)| format!("- {} ({kept})", lines.join("\n  ")))
            .collect();
        return format!(
            "Here is what I found in your memories:\n\n{}",
            items.join("\n")
        );
    }
    match rest.split_first() {
        Some((&"Projects:", projects)) => format!(
            "Here is what I found: your projects.\n\n{}",
            projects.join("\n")
        ),
        _ => format!("Here is what I found:\n\n{}", rest.join("\n")),
    }
}

/// Where and when a memory was kept: "Website, 2 August 2026", or the day
/// alone.
pub fn kept(memory: &MemoryLine<'_>) -> String {
    let day = NaiveDate::parse_from_str(memory.day, "%Y-%m-%d")
        .map(|d| d.format("%-d %B %Y").to_string())
        .unwrap_or_else(|_| memory.day.to_string());
    // "saved": the day is when it was kept, not a fact of the memory's.
    match memory.project {
        Some(project) => format!("{project}, saved {day}"),
        None => format!("saved {day}"),
    }
}

/// A read that found nothing, for a model that then said nothing.
pub fn nothing_found(tool: &str, args: &Value) -> String {
    if tool == tools::LIST_PROJECTS {
        return "You have no projects yet.".to_string();
    }
    match text(args, "query").filter(|q| !tools::run::is_generic_query(q)) {
        Some(query) => format!("I found nothing in your memories for “{query}”."),
        None => "I found no memories that match.".to_string(),
    }
}

fn text<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn reminder(args: &Value, now: DateTime<Local>) -> String {
    let repeat = text(args, "repeat");
    let when = text(args, "at")
        .and_then(|at| tools::run::parse_date_time(at, now).ok())
        .map(|due| format!(" for {}", when(due.with_timezone(&Local), repeat, now)))
        .unwrap_or_default();
    let Some(what) = text(args, "text").map(|t| t.trim_end_matches('.')) else {
        return format!("reminder set{when}");
    };
    let first = what
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_lowercase();
    // "to call Anna" reads well, "to dentist appointment" does not.
    if crate::grounding::is_a_verb_of_doing(&first) {
        let mut chars = what.chars();
        let lowered: String = chars
            .next()
            .map(|c| c.to_lowercase().chain(chars).collect())
            .unwrap_or_default();
        format!("reminder set{when} to {lowered}")
    } else {
        format!("reminder set{when}: {what}")
    }
}

/// "every day at 08:00", "every weekday at 09:30", "every Friday at 17:00"
/// for a reminder that comes back; else its one [`moment`].
fn when(due: DateTime<Local>, repeat: Option<&str>, now: DateTime<Local>) -> String {
    let time = due.format("%H:%M");
    match repeat {
        Some("daily") => format!("every day at {time}"),
        Some("weekdays") => format!("every weekday at {time}"),
        Some("weekly") => format!("every {} at {time}", due.format("%A")),
        _ => moment(due, now),
    }
}

/// "Tuesday 09:00" within the week ahead, "Tuesday 8 December 09:00"
/// further on.
fn moment(due: DateTime<Local>, now: DateTime<Local>) -> String {
    let days_ahead = (due.date_naive() - now.date_naive()).num_days();
    if (0..7).contains(&days_ahead) {
        due.format("%A %H:%M").to_string()
    } else {
        due.format("%A %-d %B %H:%M").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    /// Monday 2026-11-30, 10:40 local time.
    fn now() -> DateTime<Local> {
        Local.with_ymd_and_hms(2026, 11, 30, 10, 40, 0).unwrap()
    }

    #[test]
    fn a_set_reminder_reads_as_the_issue_wants() {
        let writes = [(
            REMIND.to_string(),
            json!({"text": "Call Anna", "at": "2026-12-01T09:00"}),
        )];
        assert_eq!(
            from_writes(&writes, now()).unwrap(),
            "Done: reminder set for Tuesday 09:00 to call Anna."
        );
    }

    #[test]
    fn sentences_that_say_imprints_notes_back_are_dropped() {
        assert_eq!(
            without_notes_said_back(
                "The last tool calls found nothing new. Do not call any more tools."
            ),
            ""
        );
        assert_eq!(
            without_notes_said_back(
                "The password hint is \"First Street\". The user asked for \"do not call any more tools\" and did not call any more tools.\nThe user could not find more."
            ),
            "The password hint is \"First Street\". \nThe user could not find more."
        );
        assert_eq!(
            without_notes_said_back(
                "The thesis report draft was created by Imprint, which searched first. Imprint searched the user's memories first. Chapter 3 went to the supervisor!"
            ),
            "The thesis report draft was created by Imprint, which searched first. Chapter 3 went to the supervisor!"
        );
        // Seen in the last evaluation: the note's words in the model's own
        // sentences.
        assert_eq!(
            without_notes_said_back(
                "The thesis report draft was created by Imprint, which searched the user's memories first. It found one memory."
            ),
            "It found one memory."
        );
        assert_eq!(
            without_notes_said_back(
                "The password hint is \"First Street\".The user asked for \"What the user asked for is done."
            ),
            ""
        );
        // An answer that says no note back stays exactly as written.
        for answer in [
            "Marta's number is 0176 333 444.  ",
            "Tea, 3 p.m. on Friday.",
        ] {
            assert_eq!(without_notes_said_back(answer), answer);
        }
    }

    #[test]
    fn a_reminder_that_comes_back_says_how_often() {
        let set = |repeat: &str, at: &str| {
            let writes = [(
                REMIND.to_string(),
                json!({"text": "Take the vitamins", "at": at, "repeat": repeat}),
            )];
            from_writes(&writes, now()).unwrap()
        };
        assert_eq!(
            set("daily", "2026-12-01T08:00"),
            "Done: reminder set for every day at 08:00 to take the vitamins."
        );
        assert_eq!(
            set("weekdays", "2026-12-01T09:30"),
            "Done: reminder set for every weekday at 09:30 to take the vitamins."
        );
        assert_eq!(
            set("weekly", "2026-12-04T17:00"),
            "Done: reminder set for every Friday at 17:00 to take the vitamins."
        );
    }

    #[test]
    fn a_saved_memory_says_which_project_it_went_to() {
        let writes = vec![(
            STORE.to_string(),
            json!({"content": "The deadline moved.", "project": "Website"}),
        )];
        assert_eq!(
            from_writes(&writes, now()).as_deref(),
            Some("Done: saved “The deadline moved” in the project Website.")
        );
    }

    #[test]
    fn reads_that_found_nothing_say_so() {
        assert_eq!(
            nothing_found(tools::SEARCH, &json!({"query": "green tea"})),
            "I found nothing in your memories for “green tea”."
        );
        assert_eq!(
            nothing_found(
                tools::SEARCH,
                &json!({"query": "notes", "project": "Billing"})
            ),
            "I found no memories that match."
        );
        assert_eq!(
            nothing_found(tools::LIST_PROJECTS, &json!({})),
            "You have no projects yet."
        );
    }

    #[test]
    fn several_writes_and_texts_that_are_no_verb() {
        let writes = [
            (
                REMIND.to_string(),
                json!({"text": "Dentist appointment", "at": "2026-12-10T14:30"}),
            ),
            (
                STORE.to_string(),
                json!({"content": "Anna likes green tea."}),
            ),
        ];
        assert_eq!(
            from_writes(&writes, now()).unwrap(),
            "Done: reminder set for Thursday 10 December 14:30: Dentist appointment; saved “Anna likes green tea”."
        );
        assert_eq!(from_writes(&[], now()), None);
        assert_eq!(
            from_writes(&[("search".into(), json!({"query": "x"}))], now()),
            None
        );
    }

    #[test]
    fn what_was_found_reads_as_a_list_without_ids_or_headings() {
        let found = "3 memories found:\n\
            [17] (no project, 2026-08-02) Marta's phone number is 0176 333 444\n\
            [4] (Website, Blog, 2026-11-10) Hosting report: the VPS costs 12 EUR\n\
            a month, paid yearly\n\
            [9] (Q3 (draft), 2026-11-12) Budget: 400 EUR";
        assert_eq!(
            from_found(found),
            "Here is what I found in your memories:\n\n\
             - Marta's phone number is 0176 333 444 (saved 2 August 2026)\n\
             - Hosting report: the VPS costs 12 EUR\n  a month, paid yearly (Website, Blog, saved 10 November 2026)\n\
             - Budget: 400 EUR (Q3 (draft), saved 12 November 2026)"
        );
        assert_eq!(
            from_found("Projects:\n- Billing (3 memories, 2026-11-01 to 2026-11-12)"),
            "Here is what I found: your projects.\n\n- Billing (3 memories, 2026-11-01 to 2026-11-12)"
        );
    }
}
