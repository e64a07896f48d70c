//! Why Imprint did what it did, as typed codes on the wire: why it asks a
//! question ([`QuestionReason`]) and why a call did nothing
//! ([`CallReason`]). A reason that carries data (a count, a date, a
//! phrase) carries it as fields; the words people read are written here,
//! once, from the code (`words`), by the page and by the server alike.
//!
//! The wire spelling is serde's default (externally tagged, snake_case): a
//! reason with no data is its name (`"repeated_write"`), one with data an
//! object under its name (`{"already_said": {"option": "Friday"}}`).

use imprint_text::days::day_words;
use serde::{Deserialize, Serialize};

/// Why Imprint asks a question (a `question`'s `why`; SPEC §4's `reason?`
/// carries [`QuestionReason::words`] beside it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionReason {
    /// A date written so that either number could be the day ("3/4").
    DayOrMonthFirst { written: String },
    /// The zone said with the time cannot be read; `why` names it, as the
    /// zone reader says it.
    ZoneUnread { why: String },
    /// The request says no time at all.
    NoTime,
    /// The request says a day (`day`, YYYY-MM-DD) but no time of it.
    NoTimeOfDay { day: String },
    /// Several projects could be meant, and the request names none.
    ProjectsUnnamed { count: usize },
    /// How many memories match the phrase the request refers by.
    MemoriesMatch { phrase: String, count: usize },
    /// The one memory of the event the phrase names dates it on `count`
    /// days.
    OnSeveralDays { phrase: String, count: usize },
    /// A save names a detail ("the gate code") without giving it.
    DetailNotGiven,
    /// A save whose message says nothing Imprint could tell to keep.
    NothingToKeep,
    /// A reminder whose message says when, or nothing, but not what of.
    NothingToRemindOf,
}

impl QuestionReason {
    /// The few words the card shows ("3 memories match “the meeting”").
    pub fn words(&self) -> String {
        match self {
            QuestionReason::DayOrMonthFirst { written } => {
                format!("“{written}” could have the day or the month first")
            }
            QuestionReason::ZoneUnread { why } => {
                format!("{why}: say the time as your own clock shows it")
            }
            QuestionReason::NoTime => "Your request says no time".to_string(),
            QuestionReason::NoTimeOfDay { day } => format!(
                "Your request says {}, but no time of day",
                day_words(day).unwrap_or_else(|| day.clone())
            ),
            QuestionReason::ProjectsUnnamed { count } => {
                format!("{count} projects could be meant, and the request names none")
            }
            QuestionReason::MemoriesMatch { phrase, count } => match count {
                0 => format!("No memory matches “{phrase}”"),
                1 => format!("1 memory matches “{phrase}”"),
                n => format!("{n} memories match “{phrase}”"),
            },
            QuestionReason::OnSeveralDays { phrase, count } => {
                format!("Your memory of “{phrase}” says {count} days")
            }
            QuestionReason::DetailNotGiven => {
                "Your request names it, but does not say it".to_string()
            }
            QuestionReason::NothingToKeep => {
                "I couldn't tell from your message what to keep".to_string()
            }
            QuestionReason::NothingToRemindOf => {
                "Your request doesn't say what to remind you of".to_string()
            }
        }
    }
}

/// Why a call did nothing (refused, repeated, not asked, failed): a
/// `tool_result`'s `reason` and a tool row's, said to the user when its
/// activity line is opened.
///
/// The browser reads it with [`CallReason::from_value`] (see there why);
/// the server with serde's derive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallReason {
    /// A write about "it", and nobody said what "it" is.
    ReferenceUnknown,
    /// The model called a tool this conversation does not offer.
    NotOffered { tool: String },
    /// A reminder the user did not ask for.
    ReminderUnasked,
    /// A save the user did not ask for.
    SaveUnasked,
    /// Imprint asked when, and no time came.
    NoTimeCame,
    /// Imprint asked which project, and none came.
    NoProjectCame,
    /// The same write was already made in this reply.
    RepeatedWrite,
    /// The same read already ran in this reply.
    RepeatedRead,
    /// The model's question, when what the user asked for is done.
    AlreadyDone,
    /// The model asked when, and the user had said.
    TimeGiven,
    /// The model's question was the user's own request said back.
    OwnRequest,
    /// The model asked again what the user answered.
    AskedBefore,
    /// The model asked, and the user had already said `option`.
    AlreadySaid { option: String },
    /// Imprint's first search already found what is asked about.
    SearchFound,
    /// The user already answered Imprint's question about this request.
    Settled,
    /// The user already answered `count` questions in this reply.
    QuestionsAnswered { count: usize },
    /// The model's question could not be read (`error` says why).
    QuestionUnreadable { error: String },
    /// The call ran and failed (`error` says why).
    CouldNotRun { error: String },
    /// Words stored before reasons were typed: history written by older
    /// versions reads as what it said.
    #[serde(untagged)]
    Words(String),
}

impl CallReason {
    /// The sentence the activity line shows when it is opened.
    pub fn words(&self) -> String {
        match self {
            CallReason::ReferenceUnknown => {
                "You didn't say what “it” was, so nothing was written.".to_string()
            }
            CallReason::NotOffered { tool } => {
                format!("The model called `{tool}`, which this conversation does not offer.")
            }
            CallReason::ReminderUnasked => {
                "The model tried to set a reminder, but you didn't ask for one, so none was set."
                    .to_string()
            }
            CallReason::SaveUnasked => "The model tried to save a memory, but you didn't ask to save anything, so nothing was saved.".to_string(),
            CallReason::NoTimeCame => "No time came for the reminder, so none was set.".to_string(),
            CallReason::NoProjectCame => {
                "No project came for the memory, so nothing was saved.".to_string()
            }
            CallReason::RepeatedWrite => {
                "The same write was already made in this reply, so it was not made twice."
                    .to_string()
            }
            CallReason::RepeatedRead => {
                "The same call already ran in this reply; its result was used again.".to_string()
            }
            CallReason::AlreadyDone => "What you asked for was already done.".to_string(),
            CallReason::TimeGiven => "You already said when.".to_string(),
            CallReason::OwnRequest => {
                "The model's question was your own request said back.".to_string()
            }
            CallReason::AskedBefore => "You already answered that question.".to_string(),
            CallReason::AlreadySaid { option } => format!("You already said “{option}”."),
            CallReason::SearchFound => {
                "Imprint's search already found what you asked about.".to_string()
            }
            CallReason::Settled => "You already answered Imprint's question about this.".to_string(),
            CallReason::QuestionsAnswered { count } => {
                format!("You already answered {count} questions in this reply.")
            }
            CallReason::QuestionUnreadable { error } => {
                format!("The model's question could not be asked: {error}.")
            }
            CallReason::CouldNotRun { error } => format!("The call could not run: {error}."),
            CallReason::Words(words) => words.clone(),
        }
    }

    /// A reason read from JSON as serde's derive reads it (tests hold the
    /// two to it): a code's name, a code with data as an object under its
    /// name (its fields, or a list of them), and any other string as
    /// [`CallReason::Words`].
    ///
    /// Why: the derive buffers the value to try the untagged `Words` after
    /// the codes, which compiles serde's buffering into the wasm.
    pub fn from_value(value: &serde_json::Value) -> Option<Self> {
        if let Some(name) = value.as_str() {
            return Some(Self::code(name).unwrap_or_else(|| CallReason::Words(name.to_owned())));
        }
        let object = value.as_object()?;
        if object.len() != 1 {
            return None;
        }
        let (name, fields) = object.iter().next()?;
        if let Some(code) = Self::code(name) {
            return fields.is_null().then_some(code);
        }
        // A code's one field, by its name or as a list of one.
        let field = |key: &str| match fields {
            serde_json::Value::Object(fields) => fields.get(key),
            serde_json::Value::Array(items) if items.len() == 1 => items.first(),
            _ => None,
        };
        let text = |key: &str| field(key)?.as_str().map(str::to_owned);
        Some(match name.as_str() {
            "not_offered" => CallReason::NotOffered {
                tool: text("tool")?,
            },
            "already_said" => CallReason::AlreadySaid {
                option: text("option")?,
            },
            "questions_answered" => CallReason::QuestionsAnswered {
                count: usize::try_from(field("count")?.as_u64()?).ok()?,
            },
            "question_unreadable" => CallReason::QuestionUnreadable {
                error: text("error")?,
            },
            "could_not_run" => CallReason::CouldNotRun {
                error: text("error")?,
            },
            _ => return None,
        })
    }

    /// A reason with no data, by its wire name.
    fn code(name: &str) -> Option<Self> {
        Some(match name {
            "reference_unknown" => CallReason::ReferenceUnknown,
            "reminder_unasked" => CallReason::ReminderUnasked,
            "save_unasked" => CallReason::SaveUnasked,
            "no_time_came" => CallReason::NoTimeCame,
            "no_project_came" => CallReason::NoProjectCame,
            "repeated_write" => CallReason::RepeatedWrite,
            "repeated_read" => CallReason::RepeatedRead,
            "already_done" => CallReason::AlreadyDone,
            "time_given" => CallReason::TimeGiven,
            "own_request" => CallReason::OwnRequest,
            "asked_before" => CallReason::AskedBefore,
            "search_found" => CallReason::SearchFound,
            "settled" => CallReason::Settled,
            _ => return None,
        })
    }

    /// A reason as a tool row's `reason` column holds it: its JSON, or
    /// (rows stored before reasons were typed) its words.
    pub fn from_stored(text: &str) -> Self {
        serde_json::from_str(text).unwrap_or_else(|_| CallReason::Words(text.to_string()))
    }

    /// The reason as the `reason` column stores it (its JSON).
    pub fn to_stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| self.words())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn from_value_reads_as_the_derive_reads() {
        let mut samples = vec![
            json!("words from before"),
            json!(""),
            json!("already_said"),
            json!("words"),
            json!({"already_said": {"option": "Friday"}}),
            json!({"already_said": {"option": "Friday", "extra": 1}}),
            json!({"already_said": ["Friday"]}),
            json!({"already_said": ["Friday", "Monday"]}),
            json!({"already_said": []}),
            json!({"already_said": {}}),
            json!({"already_said": null}),
            json!({"already_said": {"option": 3}}),
            json!({"already_said": "Friday"}),
            json!({"not_offered": {"tool": "search"}}),
            json!({"questions_answered": {"count": 2}}),
            json!({"questions_answered": {"count": -2}}),
            json!({"questions_answered": {"count": 2.0}}),
            json!({"questions_answered": {"count": "2"}}),
            json!({"questions_answered": [7]}),
            json!({"question_unreadable": {"error": "no options"}}),
            json!({"could_not_run": {"error": "search needs a `query`"}}),
            json!({"repeated_write": null}),
            json!({"repeated_write": {}}),
            json!({"repeated_write": 1}),
            json!({"words": "x"}),
            json!({"unknown": null}),
            json!({"repeated_write": null, "settled": null}),
            json!({}),
            json!(null),
            json!(3),
            json!(true),
            json!(["repeated_write"]),
        ];
        for code in [
            "reference_unknown",
            "reminder_unasked",
            "save_unasked",
            "no_time_came",
            "no_project_came",
            "repeated_write",
            "repeated_read",
            "already_done",
            "time_given",
            "own_request",
            "asked_before",
            "search_found",
            "settled",
        ] {
            samples.push(json!(code));
            samples.push(json!({ code: null }));
        }
        for sample in samples {
            let by_serde = serde_json::from_value::<CallReason>(sample.clone()).ok();
            assert_eq!(
                CallReason::from_value(&sample),
                by_serde,
                "sample: {sample}"
            );
        }
    }

    #[test]
    fn from_value_reads_every_reason_written() {
        let reasons = [
            CallReason::ReferenceUnknown,
            CallReason::NotOffered { tool: "x".into() },
            CallReason::ReminderUnasked,
            CallReason::SaveUnasked,
            CallReason::NoTimeCame,
            CallReason::NoProjectCame,
            CallReason::RepeatedWrite,
            CallReason::RepeatedRead,
            CallReason::AlreadyDone,
            CallReason::TimeGiven,
            CallReason::OwnRequest,
            CallReason::AskedBefore,
            CallReason::AlreadySaid { option: "x".into() },
            CallReason::SearchFound,
            CallReason::Settled,
            CallReason::QuestionsAnswered { count: 3 },
            CallReason::QuestionUnreadable { error: "x".into() },
            CallReason::CouldNotRun { error: "x".into() },
            CallReason::Words("x".into()),
        ];
        for reason in reasons {
            // A variant added to CallReason and left out here fails to
            // compile below; one left out of from_value fails here.
            match &reason {
                CallReason::ReferenceUnknown
                | CallReason::NotOffered { .. }
                | CallReason::ReminderUnasked
                | CallReason::SaveUnasked
                | CallReason::NoTimeCame
                | CallReason::NoProjectCame
                | CallReason::RepeatedWrite
                | CallReason::RepeatedRead
                | CallReason::AlreadyDone
                | CallReason::TimeGiven
                | CallReason::OwnRequest
                | CallReason::AskedBefore
                | CallReason::AlreadySaid { .. }
                | CallReason::SearchFound
                | CallReason::Settled
                | CallReason::QuestionsAnswered { .. }
                | CallReason::QuestionUnreadable { .. }
                | CallReason::CouldNotRun { .. }
                | CallReason::Words(_) => {}
            }
            let value = serde_json::to_value(&reason).unwrap();
            assert_eq!(CallReason::from_value(&value), Some(reason));
        }
    }

    #[test]
    fn reasons_have_one_spelling_and_carry_their_data_as_fields() {
        assert_eq!(
            serde_json::to_value(CallReason::RepeatedWrite).unwrap(),
            json!("repeated_write")
        );
        assert_eq!(
            serde_json::to_value(CallReason::AlreadySaid {
                option: "Friday".into()
            })
            .unwrap(),
            json!({"already_said": {"option": "Friday"}})
        );
        assert_eq!(
            serde_json::to_value(QuestionReason::MemoriesMatch {
                phrase: "the meeting".into(),
                count: 3
            })
            .unwrap(),
            json!({"memories_match": {"phrase": "the meeting", "count": 3}})
        );
        assert_eq!(
            serde_json::to_value(QuestionReason::NoTime).unwrap(),
            json!("no_time")
        );
        for reason in [
            CallReason::QuestionsAnswered { count: 2 },
            CallReason::CouldNotRun {
                error: "search needs a `query`".into(),
            },
            CallReason::SaveUnasked,
        ] {
            let back: CallReason =
                serde_json::from_value(serde_json::to_value(&reason).unwrap()).unwrap();
            assert_eq!(back, reason);
            assert_eq!(CallReason::from_stored(&reason.to_stored()), reason);
        }
    }

    #[test]
    fn a_reason_stored_as_words_before_reasons_were_typed_still_reads() {
        let old = "The same write was already made in this reply, so it was not made twice.";
        let read: CallReason = serde_json::from_value(json!(old)).unwrap();
        assert_eq!(read, CallReason::Words(old.into()));
        assert_eq!(read.words(), old);
        assert_eq!(CallReason::from_stored(old), CallReason::Words(old.into()));
        assert_eq!(CallReason::RepeatedWrite.words(), old);
    }

    #[test]
    fn the_words_are_the_ones_the_card_and_the_line_show() {
        let count = |count| QuestionReason::MemoriesMatch {
            phrase: "the meeting".into(),
            count,
        };
        assert_eq!(count(0).words(), "No memory matches “the meeting”");
        assert_eq!(count(1).words(), "1 memory matches “the meeting”");
        assert_eq!(count(3).words(), "3 memories match “the meeting”");
        assert_eq!(
            QuestionReason::NoTimeOfDay {
                day: "2024-06-08".into()
            }
            .words(),
            "Your request says Saturday 8 June, but no time of day"
        );
        assert_eq!(
            CallReason::QuestionsAnswered { count: 2 }.words(),
            "You already answered 2 questions in this reply."
        );
    }
}
