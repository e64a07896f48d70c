//! Imprint's notes to the model: what Imprint tells the model between its
//! turns (the time, calls it dropped, a reminder still not set, a call it
//! could not read, "answer now, and why"). Every note's text is written
//! here, once, beside the words that give a note away when an answer says
//! it back, so the answer guard ([`said_back`]) reads the same list the
//! notes are written from, and a new note cannot be missed by it.

use chrono::{DateTime, Local};

use super::ChatMessage;

/// How every note to the model starts: a user message that is Imprint's,
/// not the user's.
const MARK: &str = "(Imprint";

/// Why Imprint stops the model's calls and asks for its answer now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// What the user asked for is done.
    Done,
    /// Research time is up.
    Deadline,
    /// Every tool call this reply may make was made.
    CallsUsed,
    /// The last calls found nothing new.
    NoProgress,
    /// The model's calls ran past any call's length twice.
    Overlong,
}

impl StopReason {
    fn text(self) -> &'static str {
        match self {
            StopReason::Done => "What the user asked for is done.",
            StopReason::Deadline => "Research time is up.",
            StopReason::CallsUsed => "You have used all the tool calls this reply may make.",
            StopReason::NoProgress => "The last tool calls found nothing new.",
            StopReason::Overlong => "Your tool calls ran too long and were cut off.",
        }
    }
}

/// One note to the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// The time now, to the minute, with the weekday and offset (a
    /// reminder's "in 20 minutes" needs it).
    Time(DateTime<Local>),
    /// Only the first `kept` calls of a turn ran.
    CallsDropped { kept: usize },
    /// The user asked for a reminder, and the model set none.
    ReminderNotSet,
    /// A call the model wrote could not be read.
    UnreadableCall,
    /// No more calls: answer now.
    AnswerNow(StopReason),
}

impl Note {
    /// What the model reads.
    pub fn text(self) -> String {
        match self {
            Note::Time(now) => format!(
                "{MARK}: it is now {}.)",
                now.format("%A %Y-%m-%d %H:%M (%:z)")
            ),
            Note::CallsDropped { kept } => format!(
                "{MARK}: only the first {kept} tool calls of a turn run; the rest were not run. Call only what you need.)"
            ),
            Note::ReminderNotSet => format!(
                "{MARK}: the user asked for a reminder and none is set. Call remind now with the text and the time the user gave.)"
            ),
            Note::UnreadableCall => format!(
                "{MARK}: a tool call you wrote could not be read. Write it again exactly in the format given, or answer without it.)"
            ),
            Note::AnswerNow(why) => format!(
                "{MARK}: {} Do not call any more tools. Answer the user now from what you found, and say what you could not find.)",
                why.text()
            ),
        }
    }

    /// The note as the message the model reads.
    pub fn message(self) -> ChatMessage {
        ChatMessage::User(self.text())
    }
}

/// True for a user message that is one of Imprint's notes (or carries
/// one first), not the user's words.
pub fn is_note(text: &str) -> bool {
    text.starts_with(MARK)
}

/// Words only Imprint's notes (these, and the texts Imprint hands the
/// model with a request or a call's result) use: a sentence of an answer
/// holding one says a note back ("The last tool calls found nothing new.
/// Do not call any more tools." was the built-in model's whole answer).
const GIVEAWAYS: &[&str] = &[
    // The notes above.
    "(imprint",
    "tool call",
    "more tools",
    "any tools",
    "found nothing new",
    "research time is up",
    "answer the user now",
    "asked for is done",
    "what you could not find",
    "the user asked",
    // What Imprint found or asked, handed over with the request.
    "imprint searched",
    "imprint asked",
    "imprint's search",
    "imprint looked up",
    "the user's memories",
    // Why a call was not run.
    "the note with",
    "not asked:",
    "do not ask",
];

/// True when `sentence` says one of Imprint's notes back.
pub fn said_back(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    GIVEAWAYS.iter().any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn every_note() -> Vec<Note> {
        let now = Local.with_ymd_and_hms(2026, 12, 1, 11, 12, 0).unwrap();
        let mut notes = vec![
            Note::Time(now),
            Note::CallsDropped { kept: 4 },
            Note::ReminderNotSet,
            Note::UnreadableCall,
        ];
        notes.extend(
            [
                StopReason::Done,
                StopReason::Deadline,
                StopReason::CallsUsed,
                StopReason::NoProgress,
                StopReason::Overlong,
            ]
            .map(Note::AnswerNow),
        );
        notes
    }

    #[test]
    fn every_note_is_marked_as_imprints_and_caught_when_said_back() {
        for note in every_note() {
            let text = note.text();
            assert!(is_note(&text), "{text}");
            assert!(said_back(&text), "the guard misses {text}");
            // Said back without the mark, each sentence but the time is
            // still caught: a small model drops the brackets.
            let bare = text.trim_start_matches("(Imprint: ").trim_end_matches(')');
            if !matches!(note, Note::Time(_)) {
                assert!(said_back(bare), "the guard misses {bare}");
            }
        }
    }

    #[test]
    fn the_time_note_names_the_day_the_minute_and_the_offset() {
        let now = Local.with_ymd_and_hms(2026, 12, 1, 11, 12, 0).unwrap();
        let text = Note::Time(now).text();
        assert!(text.starts_with("(Imprint: it is now Tuesday 2026-12-01 11:12 ("));
        assert!(!is_note("It is now Tuesday."));
    }

    #[test]
    fn a_users_own_words_are_not_taken_for_a_note() {
        for said in [
            "The plumber's number is 0176 555 1234.",
            "I asked Anna about the tools we need.",
            "Imprint is the project I work on.",
        ] {
            assert!(!said_back(said), "{said}");
        }
    }
}
