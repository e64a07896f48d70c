//! Grounded arguments: details of a tool call that must come from the
//! user's own words, never from the model's guess.
//!
//! Small models fill in what the user never said (a reminder "at 10:00", a
//! search "in project Notes"). Before a call runs, [`check`] compares its
//! grounded arguments with what the user said in this request (and the
//! answers given during the reply):
//! - `remind.at` must be stated by the user ([`when`]); Imprint sets it from
//!   their words, since small models also get date arithmetic wrong;
//! - `search.project`, `store.project` (and a `list_projects` call made to
//!   settle "the project") follow the project the user named; "the project"
//!   with several projects and none named is a question; a project the user
//!   never mentioned is dropped;
//! - `remind.repeat` is the recurrence the user said ("every day"), or
//!   none ([`recurring`]).
//!
//! When a detail is missing, the verdict is a [`Need`]: Imprint asks the
//! user itself, with sensible options, and resolves the answer. Some are
//! settled before the model starts: "the project" among several, a thing
//! the user left unnamed ([`reference`]), and a reminder's time
//! ([`unstated_time`]).

mod keep;
pub mod reference;
mod remind;
pub mod when;

pub use keep::{asks_to_save, content_to_save, memory_content_from_user, what_to_save};
use remind::about;
use remind::next_week_options;
pub use remind::{asks_for_reminder, reminder_text, reminder_text_from_user, time_options};

use chrono::{DateTime, Local};
use serde_json::Value;

use app::protocol::tool_names::{LIST_PROJECTS, REMIND, SEARCH, STORE};
use when::Stated;

/// Words at most of an answer that says what a reference means ("Tom", "my
/// sister Anna"); a longer one is not put in a reminder's text for it.
const MEANT_WORDS: usize = 4;

/// What the user said: the request, then the answers given during this
/// reply, in order.
pub struct UserWords<'a> {
    pub request: &'a str,
    pub answers: &'a [String],
}

impl UserWords<'_> {
    /// True when the user's words (the request or an answer) say when:
    /// a reminder asked for then needs no question.
    pub fn state_a_time(&self, now: DateTime<Local>) -> bool {
        self.latest_first()
            .any(|text| when::stated(text, now).is_some())
    }

    /// The one option these words name (as whole words), if exactly one
    /// does: a question offering it asks what the user already said. (When
    /// several are named, the user may be leaving the choice open.)
    pub fn the_one_named<'o>(&self, options: &'o [String]) -> Option<&'o str> {
        let mut named = options
            .iter()
            .filter(|option| self.latest_first().any(|text| mentions(text, option)));
        let first = named.next()?;
        named.next().is_none().then_some(first.as_str())
    }

    /// Latest first: an answer overrides the request.
    fn latest_first(&self) -> impl Iterator<Item = &str> {
        self.answers
            .iter()
            .rev()
            .map(String::as_str)
            .chain(std::iter::once(self.request))
    }
}

/// What to do with a call.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Run it with these arguments (corrected from the user's words where
    /// the model guessed).
    Run(Value),
    /// A grounded detail is missing: ask the user first.
    Ask(Need),
    /// A write the user never asked for: not made, for this reason.
    Refuse(String),
}

/// A detail only the user can give.
#[derive(Clone, Debug, PartialEq)]
pub enum Need {
    /// When a reminder is due. `about` completes "What time should I
    /// remind you …?"; each option carries its moment, fixed when asked.
    Time {
        about: String,
        options: Vec<(String, DateTime<Local>)>,
    },
    /// Which of the user's projects, most recent first.
    Project { options: Vec<String> },
    /// What a reference the user left unnamed points at ("the meeting"):
    /// the things their memories hold (none: an open question).
    Reference {
        phrase: String,
        question: String,
        candidates: Vec<reference::Candidate>,
    },
}

/// The projects offered as options at most.
const MAX_PROJECT_OPTIONS: usize = 4;

/// Which kind of detail a [`Need`] is: a reply asks once per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NeedKind {
    Time,
    Project,
    Reference,
}

impl Need {
    pub fn kind(&self) -> NeedKind {
        match self {
            Need::Time { .. } => NeedKind::Time,
            Need::Project { .. } => NeedKind::Project,
            Need::Reference { .. } => NeedKind::Reference,
        }
    }

    pub fn question(&self) -> String {
        match self {
            Need::Time { about, .. } => format!("What time should I remind you {about}?"),
            Need::Project { .. } => "Which project do you mean?".to_string(),
            Need::Reference { question, .. } => question.clone(),
        }
    }

    /// Why the question is asked, in a few words the card shows ("3
    /// memories match “the meeting”").
    pub fn reason(&self) -> String {
        match self {
            Need::Time { .. } => "Your request says no time".to_string(),
            Need::Project { options } => format!(
                "{} projects could be meant, and the request names none",
                options.len()
            ),
            Need::Reference {
                phrase, candidates, ..
            } => {
                let memories: usize = candidates.iter().map(|c| c.memories.len().max(1)).sum();
                match memories {
                    0 => format!("No memory matches “{phrase}”"),
                    1 => format!("1 memory matches “{phrase}”"),
                    n => format!("{n} memories match “{phrase}”"),
                }
            }
        }
    }

    pub fn options(&self) -> Vec<String> {
        match self {
            Need::Time { options, .. } => options.iter().map(|(label, _)| label.clone()).collect(),
            Need::Project { options } => options.clone(),
            Need::Reference { candidates, .. } => {
                candidates.iter().map(|c| c.label.clone()).collect()
            }
        }
    }

    /// Reads the user's answer into the detail, or says why it cannot.
    pub fn resolve(&self, answer: &str, now: DateTime<Local>) -> Result<Resolved, String> {
        let answer = answer.trim();
        match self {
            Need::Time { options, .. } => {
                if let Some((_, t)) = options
                    .iter()
                    .find(|(label, _)| label.eq_ignore_ascii_case(answer))
                {
                    return Ok(Resolved::Time(*t));
                }
                match when::stated(answer, now).and_then(Stated::moment) {
                    Some(t) if t > now => Ok(Resolved::Time(t)),
                    Some(_) => Err(format!("“{answer}” has already passed.")),
                    None => Err(format!("I could not read “{answer}” as a time.")),
                }
            }
            Need::Project { options } => {
                let named = options
                    .iter()
                    .find(|p| p.eq_ignore_ascii_case(answer))
                    .or_else(|| options.iter().find(|p| mentions(answer, p)));
                match named {
                    Some(project) => Ok(Resolved::Project(project.clone())),
                    None if answer.is_empty() => Err("The answer was empty.".into()),
                    None => Ok(Resolved::Project(answer.to_string())),
                }
            }
            Need::Reference { candidates, .. } => {
                // The option itself, or the one candidate the answer's own
                // words point at ("the billing one"); else the user's words.
                let chosen = candidates
                    .iter()
                    .find(|c| c.label.eq_ignore_ascii_case(answer))
                    .or_else(|| pointed_at(answer, candidates));
                match chosen {
                    Some(c) => Ok(Resolved::Memory {
                        label: c.label.clone(),
                        memories: c.memories.clone(),
                    }),
                    None if answer.is_empty() => Err("The answer was empty.".into()),
                    None => Ok(Resolved::Meant(answer.to_string())),
                }
            }
        }
    }
}

/// The one candidate whose label shares a word of three letters or more
/// with the answer (none when two do).
fn pointed_at<'a>(
    answer: &str,
    candidates: &'a [reference::Candidate],
) -> Option<&'a reference::Candidate> {
    const VAGUE: [&str; 8] = [
        "the", "one", "that", "this", "meeting", "first", "about", "with",
    ];
    let said: Vec<String> = lower_words(answer)
        .into_iter()
        .filter(|w| w.len() >= 3 && !VAGUE.contains(&w.as_str()))
        .collect();
    // "Marta" points at "Marta's phone number".
    let plain = |w: &String| w.trim_end_matches("'s").to_string();
    let said: Vec<String> = said.iter().map(plain).collect();
    let mut matching = candidates.iter().filter(|c| {
        let label: Vec<String> = lower_words(&c.label).iter().map(plain).collect();
        said.iter().any(|w| label.contains(w))
    });
    let first = matching.next()?;
    matching.next().is_none().then_some(first)
}

/// A detail the user gave (stored with a waiting reply's state).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolved {
    Time(DateTime<Local>),
    Project(String),
    /// The thing a reference points at: its label and its memories as the
    /// model reads them.
    Memory {
        label: String,
        memories: Vec<String>,
    },
    /// What the user said a reference means, in their own words.
    Meant(String),
}

impl Resolved {
    /// The call's arguments with the detail filled in.
    pub fn apply(&self, args: &Value) -> Value {
        let mut args = args.clone();
        if let Some(map) = args.as_object_mut() {
            match self {
                Resolved::Time(t) => {
                    map.insert("at".into(), Value::String(iso(*t)));
                }
                Resolved::Project(p) => {
                    map.insert("project".into(), Value::String(p.clone()));
                }
                // A reference is read with the request, not a call's
                // argument.
                Resolved::Memory { .. } | Resolved::Meant(_) => {}
            }
        }
        args
    }

    /// How the user's choice reads to the model and in history.
    pub fn describe(&self) -> String {
        match self {
            Resolved::Time(t) => t.format("%A %Y-%m-%d %H:%M").to_string(),
            Resolved::Project(p) => format!("the project {p}"),
            Resolved::Memory { label, .. } => label.clone(),
            Resolved::Meant(words) => format!("“{words}”"),
        }
    }
}

fn iso(t: DateTime<Local>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string()
}

/// Checks a call's grounded arguments against the user's words.
/// `projects` are the user's projects, most recent first.
pub fn check(
    tool: &str,
    args: &Value,
    words: &UserWords<'_>,
    projects: &[String],
    now: DateTime<Local>,
) -> Verdict {
    if !args.is_object() {
        return Verdict::Run(args.clone());
    }
    match tool {
        REMIND if !words.latest_first().any(asks_for_reminder) => {
            Verdict::Refuse("the user did not ask for a reminder, so none was set".into())
        }
        STORE if !words.latest_first().any(asks_to_save) => {
            Verdict::Refuse("the user did not ask to save anything, so nothing was stored".into())
        }
        REMIND => check_time(args, words, now),
        SEARCH | STORE | LIST_PROJECTS => check_project(tool, args, words, projects),
        _ => Verdict::Run(args.clone()),
    }
}

pub(crate) fn lower_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A reminder asked for with no time the user's words give (not even a
/// day): the question to settle before the model starts, so asking does
/// not wait on the model calling `remind`. "Every day", "next week" and
/// "before the flight" give no time either.
pub fn unstated_time(words: &UserWords<'_>, now: DateTime<Local>) -> Option<Need> {
    let asked = words.latest_first().any(asks_for_reminder);
    (asked && !words.state_a_time(now)).then(|| {
        let about = about(words.request, "");
        // "… every day to take my pills": how often, said back.
        let how_often = match when::recurrence(words.request) {
            Some(when::Recurrence::Daily) => "every day ",
            Some(when::Recurrence::Weekdays) => "every weekday ",
            Some(when::Recurrence::Weekly) => "every week ",
            None => "",
        };
        let about = if about.starts_with("to ") || about.starts_with("about ") {
            format!("{how_often}{about}")
        } else {
            about
        };
        let next_week = lower_words(words.request)
            .windows(2)
            .any(|w| w[0] == "next" && w[1] == "week");
        Need::Time {
            about,
            options: if next_week {
                next_week_options(now)
            } else {
                time_options(now)
            },
        }
    })
}

/// A `search` call's date filters, kept only when the user's words give a
/// time. A small model fills `since` / `until` with today's date on its
/// own, and then finds nothing; without a stated time it searches all.
pub fn dates_from_user(args: &Value, words: &UserWords<'_>, now: DateTime<Local>) -> Value {
    let mut args = args.clone();
    if !words.state_a_time(now) {
        if let Some(map) = args.as_object_mut() {
            map.remove("since");
            map.remove("until");
        }
    }
    args
}

/// A `remind` call's recurrence, from the user's words only: `repeat` is
/// set to what they said ("daily", "weekdays", "weekly") or removed (a
/// model's guess), and `at` moves to the first time it fires ("every
/// weekday at 9" said on a Saturday is due on Monday).
pub fn recurring(args: &Value, words: &UserWords<'_>, now: DateTime<Local>) -> Value {
    let mut args = args.clone();
    let said = words.latest_first().find_map(when::recurrence);
    let first = said.and_then(|r| {
        let at = args.get("at").and_then(Value::as_str)?;
        let t = crate::iso8601::parse_date_time(at, now).ok()?;
        r.first_after(t.with_timezone(&Local), now)
    });
    if let Some(map) = args.as_object_mut() {
        match said {
            Some(r) => {
                map.insert("repeat".into(), Value::String(r.as_str().into()));
            }
            None => {
                map.remove("repeat");
            }
        }
        if let Some(t) = first {
            map.insert("at".into(), Value::String(iso(t)));
        }
    }
    args
}

/// The first of the user's projects the request names, if any.
pub fn named_project(request: &str, projects: &[String]) -> Option<String> {
    projects
        .iter()
        .filter_map(|p| position_of(request, p).map(|at| (at, p)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, p)| p.clone())
}

fn check_time(args: &Value, words: &UserWords<'_>, now: DateTime<Local>) -> Verdict {
    let stated = words
        .latest_first()
        .find_map(|text| when::stated(text, now));
    match stated {
        Some(Stated::At(t)) => Verdict::Run(Resolved::Time(t).apply(args)),
        Some(Stated::Day(day)) => {
            // The day is the user's; a time of day the model chose on that
            // day is kept, else the default hour.
            let model_time = args
                .get("at")
                .and_then(Value::as_str)
                .and_then(|at| crate::iso8601::parse_date_time(at, now).ok())
                .map(|t| t.with_timezone(&Local))
                .filter(|t| t.date_naive() == day && *t > now);
            let t = model_time.or_else(|| Stated::Day(day).moment());
            match t {
                Some(t) => Verdict::Run(Resolved::Time(t).apply(args)),
                None => Verdict::Ask(time_need(args, words, now)),
            }
        }
        None => Verdict::Ask(time_need(args, words, now)),
    }
}

fn time_need(args: &Value, words: &UserWords<'_>, now: DateTime<Local>) -> Need {
    let model_text = args.get("text").and_then(Value::as_str).unwrap_or("");
    Need::Time {
        about: about(words.request, model_text),
        options: time_options(now),
    }
}

fn check_project(tool: &str, args: &Value, words: &UserWords<'_>, projects: &[String]) -> Verdict {
    // The model's project counts when the user said it; else the first
    // known project the user named.
    let model_project = args
        .get("project")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let candidates: Vec<&String> = projects.iter().collect();
    let named = words.latest_first().find_map(|text| {
        let known = |p: &str| projects.iter().any(|k| k.eq_ignore_ascii_case(p));
        // A new project only when the user called it one ("the Bakery
        // project"): "my bike lock code" does not make a project "Bike".
        let said = |p: &&str| {
            if known(p) {
                mentions(text, p)
            } else {
                named_as_project(text, p)
            }
        };
        if let Some(p) = model_project.filter(said) {
            return Some(p.to_string());
        }
        candidates
            .iter()
            .filter_map(|p| position_of(text, p).map(|at| (at, p)))
            .min_by_key(|(at, _)| *at)
            .map(|(_, p)| (*p).clone())
    });
    let refers = words.latest_first().any(refers_to_a_project);
    let with_project = |project: Option<&str>| {
        let mut args = args.clone();
        if tool != LIST_PROJECTS {
            if let Some(map) = args.as_object_mut() {
                match project {
                    Some(p) => map.insert("project".into(), Value::String(p.into())),
                    None => map.remove("project"),
                };
            }
        }
        args
    };
    match (named, refers) {
        (Some(project), _) => Verdict::Run(with_project(Some(&project))),
        (None, true) if projects.len() >= 2 => Verdict::Ask(Need::Project {
            options: projects.iter().take(MAX_PROJECT_OPTIONS).cloned().collect(),
        }),
        (None, true) if projects.len() == 1 => Verdict::Run(with_project(Some(&projects[0]))),
        // The user named no project: one the model chose is its guess.
        _ => Verdict::Run(with_project(None)),
    }
}

/// A request that points at "the project" among several without naming
/// one: the question to settle before the model starts (a small model may
/// answer such a request without looking anything up).
pub fn unnamed_project(request: &str, projects: &[String]) -> Option<Need> {
    let named = projects.iter().any(|p| mentions(request, p));
    (refers_to_a_project(request) && !named && projects.len() >= 2).then(|| Need::Project {
        options: projects.iter().take(MAX_PROJECT_OPTIONS).cloned().collect(),
    })
}

/// True when the words point at one project without naming it: "the
/// project", "my project", "this project's notes".
pub fn refers_to_a_project(text: &str) -> bool {
    lower_words(text).windows(2).any(|pair| {
        matches!(
            pair[0].as_str(),
            "the" | "my" | "our" | "this" | "that" | "current"
        ) && matches!(pair[1].as_str(), "project" | "project's")
    })
}

/// Where `name` occurs in `text` as whole words (case-insensitive).
fn position_of(text: &str, name: &str) -> Option<usize> {
    let text = text.to_lowercase();
    let name = name.to_lowercase();
    if name.is_empty() {
        return None;
    }
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    let mut from = 0;
    while let Some(i) = text[from..].find(&name) {
        let start = from + i;
        let end = start + name.len();
        if boundary(text[..start].chars().next_back()) && boundary(text[end..].chars().next()) {
            return Some(start);
        }
        from = start + name.len().max(1);
    }
    None
}

/// True when the words call `name` a project: "the Bakery project",
/// "project Bakery", "project: Bakery".
fn named_as_project(text: &str, name: &str) -> bool {
    let words = lower_words(text);
    let name = lower_words(name);
    if name.is_empty() {
        return false;
    }
    let is_project =
        |w: Option<&String>| matches!(w.map(String::as_str), Some("project" | "project's"));
    (0..words.len()).any(|i| {
        words[i..].starts_with(&name)
            && (is_project(words.get(i + name.len()))
                || is_project(i.checked_sub(1).and_then(|j| words.get(j))))
    })
}

fn mentions(text: &str, name: &str) -> bool {
    position_of(text, name).is_some()
}

#[cfg(test)]
mod tests;
