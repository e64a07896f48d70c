//! Tool activity as one short line for people ("Reminder set for Tue 1 Dec
//! 09:00: Call Anna").
//!
//! A running call's line names no argument: while it runs (or waits on
//! Imprint's question) its arguments are only the model's guess. A finished
//! call's line is written from its result: the status the server gave, the
//! arguments it ran with, what it found. Refused and failed calls get one
//! muted line; repeats and questions that were not asked get none.

use imprint_text::days::local_time;
use serde_json::Value;

use crate::protocol::tool_names::{ASK_USER, LIST_PROJECTS, REMIND, SEARCH, STORE};
use crate::protocol::{CallReason, ToolStatus};

/// One activity line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activity {
    pub text: String,
    /// Drawn quietly: the call did nothing.
    pub muted: bool,
    /// Where the row a write made is shown (the Memories page).
    pub link: Option<String>,
    /// Why a call did nothing, shown when the line is opened.
    pub why: Option<String>,
}

impl Activity {
    fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            muted: false,
            link: None,
            why: None,
        }
    }

    fn muted(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            muted: true,
            link: None,
            why: None,
        }
    }
}

impl Activity {
    /// The line with the server's reason for a call that did nothing.
    fn because(mut self, outcome: &Outcome) -> Self {
        self.why = outcome
            .reason
            .as_ref()
            .map(CallReason::words)
            .map(|why| why.trim().to_owned())
            .filter(|why| !why.is_empty());
        self
    }
}

/// What a finished call did, as the server reported it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub status: ToolStatus,
    /// The arguments the call ran with.
    pub args: Value,
    /// How many memories or projects a read found.
    pub found: Option<u64>,
    /// The memory or reminder a write made.
    pub row_id: Option<i64>,
    /// Why the call did nothing, as the server said.
    pub reason: Option<CallReason>,
}

fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The line of a call still running.
pub fn running(name: &str) -> Activity {
    Activity::plain(match name {
        SEARCH => "Searching memories…".to_string(),
        LIST_PROJECTS => "Listing projects…".to_string(),
        STORE => "Saving a memory…".to_string(),
        REMIND => "Setting a reminder…".to_string(),
        other => format!("Running {other}…"),
    })
}

/// The line of a finished call, or `None` when it gets no line (a repeat,
/// a question not asked, an `ask_user` call drawn as its card).
pub fn finished(name: &str, outcome: &Outcome) -> Option<Activity> {
    match outcome.status {
        ToolStatus::Done => done(name, &outcome.args, outcome.found).map(|mut line| {
            line.link = outcome
                .row_id
                .and_then(|id| super::records::row_link(name, id));
            line
        }),
        ToolStatus::Refused => Some(Activity::muted(match name {
            STORE => "Not saved (you didn't ask to save)".to_string(),
            REMIND => "No reminder set (you didn't ask for one)".to_string(),
            other => format!("Not run: {other}"),
        }))
        .map(|line| line.because(outcome)),
        ToolStatus::Failed => Some(Activity::muted(match name {
            SEARCH => "Search failed".to_string(),
            LIST_PROJECTS => "Could not list projects".to_string(),
            STORE => "Not saved".to_string(),
            REMIND => "No reminder set".to_string(),
            ASK_USER => return None,
            other => format!("{other} failed"),
        }))
        .map(|line| line.because(outcome)),
        ToolStatus::Repeated | ToolStatus::NotAsked => None,
    }
}

fn done(name: &str, args: &Value, found: Option<u64>) -> Option<Activity> {
    let text = match name {
        SEARCH => {
            let mut scope = arg(args, "query")
                .map(|q| format!(" for “{q}”"))
                .unwrap_or_default();
            if let Some(project) = arg(args, "project") {
                scope.push_str(&format!(" in {project}"));
            }
            match found {
                Some(0) if scope.is_empty() => "Nothing found".to_string(),
                Some(0) => format!("Nothing found{scope}"),
                Some(1) => format!("Found 1 memory{scope}"),
                Some(n) => format!("Found {n} memories{scope}"),
                None => format!("Searched memories{scope}"),
            }
        }
        LIST_PROJECTS => match found {
            Some(0) => "No projects yet".to_string(),
            Some(1) => "Found 1 project".to_string(),
            Some(n) => format!("Found {n} projects"),
            None => "Listed projects".to_string(),
        },
        STORE => match arg(args, "content") {
            Some(content) => format!("Saved “{content}”"),
            None => "Saved a memory".to_string(),
        },
        REMIND => {
            let when = arg(args, "at")
                .and_then(local_time)
                .map(|t| format!(" for {t}"))
                .unwrap_or_default();
            match arg(args, "text") {
                Some(text) => format!("Reminder set{when}: {text}"),
                None => format!("Reminder set{when}"),
            }
        }
        ASK_USER => return None,
        other => format!("Ran {other}"),
    };
    Some(Activity::plain(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(status: ToolStatus, args: Value, found: Option<u64>) -> Outcome {
        Outcome {
            status,
            args,
            found,
            reason: None,
            row_id: None,
        }
    }

    #[test]
    fn a_call_that_did_nothing_says_why_and_a_done_one_needs_no_reason() {
        let with = |status, reason: &str| {
            let outcome = Outcome {
                reason: Some(CallReason::Words(reason.into())),
                ..outcome(status, json!({"content": "x"}), None)
            };
            finished(STORE, &outcome).and_then(|a| a.why)
        };
        let why = "You didn't ask to save anything, so nothing was saved.";
        assert_eq!(with(ToolStatus::Refused, why).as_deref(), Some(why));
        assert_eq!(
            with(ToolStatus::Failed, " No project came. ").as_deref(),
            Some("No project came.")
        );
        assert_eq!(with(ToolStatus::Refused, "  "), None);
        assert_eq!(with(ToolStatus::Done, why), None);
        let typed = Outcome {
            reason: Some(CallReason::SaveUnasked),
            ..outcome(ToolStatus::Refused, json!({"content": "x"}), None)
        };
        assert_eq!(
            finished(STORE, &typed).and_then(|a| a.why),
            Some(CallReason::SaveUnasked.words())
        );
        assert_eq!(
            finished(STORE, &outcome(ToolStatus::Refused, json!({}), None)).and_then(|a| a.why),
            None
        );
    }

    #[test]
    fn a_write_links_to_the_row_it_made() {
        let made = |name: &str, args: Value| {
            let outcome = Outcome {
                row_id: Some(7),
                ..outcome(ToolStatus::Done, args, None)
            };
            finished(name, &outcome).and_then(|a| a.link)
        };
        assert_eq!(
            made(STORE, json!({"content": "x"})).as_deref(),
            Some("/memories?memory=7")
        );
        assert_eq!(
            made(REMIND, json!({"text": "x", "at": "2026-12-01T09:00"})).as_deref(),
            Some("/memories?reminder=7")
        );
        assert_eq!(made(SEARCH, json!({"query": "x"})), None);
        let refused = Outcome {
            row_id: Some(7),
            ..outcome(ToolStatus::Refused, json!({}), None)
        };
        assert_eq!(finished(STORE, &refused).and_then(|a| a.link), None);
    }

    fn line(name: &str, status: ToolStatus, args: Value, found: Option<u64>) -> Option<String> {
        finished(name, &outcome(status, args, found)).map(|a| a.text)
    }

    #[test]
    fn a_set_reminder_says_when_from_the_arguments_it_ran_with() {
        let done = finished(
            "remind",
            &outcome(
                ToolStatus::Done,
                json!({"text": "Call Anna", "at": "2026-12-01T09:00:00.000+01:00"}),
                None,
            ),
        )
        .unwrap();
        assert_eq!(done.text, "Reminder set for Tue 1 Dec 09:00: Call Anna");
        assert!(!done.muted);
    }

    #[test]
    fn a_running_call_names_no_guessed_argument() {
        for name in ["search", "list_projects", "store", "remind"] {
            let text = running(name).text;
            assert!(text.ends_with('…'), "{text}");
            assert!(!text.contains("2026") && !text.contains('“'), "{text}");
        }
        assert_eq!(running("remind").text, "Setting a reminder…");
    }

    #[test]
    fn reads_say_what_they_found() {
        let search = |found| line("search", ToolStatus::Done, json!({"query": "tea"}), found);
        assert_eq!(search(Some(3)).unwrap(), "Found 3 memories for “tea”");
        assert_eq!(search(Some(1)).unwrap(), "Found 1 memory for “tea”");
        assert_eq!(search(Some(0)).unwrap(), "Nothing found for “tea”");
        assert_eq!(search(None).unwrap(), "Searched memories for “tea”");
        assert_eq!(
            line(
                "search",
                ToolStatus::Done,
                json!({"query": "", "project": "Billing"}),
                Some(2)
            )
            .unwrap(),
            "Found 2 memories in Billing"
        );
        assert_eq!(
            line("list_projects", ToolStatus::Done, json!({}), Some(4)).unwrap(),
            "Found 4 projects"
        );
        assert_eq!(
            line("list_projects", ToolStatus::Done, json!({}), Some(0)).unwrap(),
            "No projects yet"
        );
    }

    #[test]
    fn refused_calls_get_one_muted_line_without_a_success_verb() {
        for (name, expected) in [
            ("store", "Not saved (you didn't ask to save)"),
            ("remind", "No reminder set (you didn't ask for one)"),
        ] {
            let activity = finished(
                name,
                &outcome(
                    ToolStatus::Refused,
                    json!({"content": "Call Anna", "text": "Call Anna", "at": "2026-12-01T09:00"}),
                    None,
                ),
            )
            .unwrap();
            assert_eq!(activity.text, expected);
            assert!(activity.muted);
            assert!(!activity.text.starts_with("Saved") && !activity.text.contains("set for"));
        }
        let failed = finished(
            "remind",
            &outcome(ToolStatus::Failed, json!({"at": "soon"}), None),
        )
        .unwrap();
        assert!(failed.muted && failed.text == "No reminder set");
    }

    #[test]
    fn repeats_and_questions_not_asked_get_no_line() {
        assert_eq!(
            line(
                "store",
                ToolStatus::Repeated,
                json!({"content": "Call Anna"}),
                None
            ),
            None
        );
        assert_eq!(
            line(
                "remind",
                ToolStatus::Repeated,
                json!({"text": "x", "at": "2026-12-01T09:00"}),
                None
            ),
            None
        );
        assert_eq!(
            line(
                "ask_user",
                ToolStatus::NotAsked,
                json!({"question": "Do you want to call Anna?"}),
                None
            ),
            None
        );
        assert_eq!(line("ask_user", ToolStatus::Done, json!({}), None), None);
    }

    #[test]
    fn saved_memories_and_unknown_tools() {
        assert_eq!(
            line(
                "store",
                ToolStatus::Done,
                json!({"content": "Anna likes tea"}),
                None
            )
            .unwrap(),
            "Saved “Anna likes tea”"
        );
        assert_eq!(
            line("mystery", ToolStatus::Done, json!({}), None).unwrap(),
            "Ran mystery"
        );
    }
}
