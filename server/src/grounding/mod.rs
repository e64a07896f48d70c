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

pub mod reference;
pub mod when;

use chrono::{DateTime, Datelike, Duration, Local, NaiveTime, TimeZone, Weekday};
use serde_json::Value;

use app::protocol::tool_names::{LIST_PROJECTS, REMIND, SEARCH, STORE};
use when::Stated;

/// What the user said: the request, then the answers given during this
/// reply, in order.
/// Words at most of an answer that says what a reference means ("Tom", "my
/// sister Anna"); a longer one is not put in a reminder's text for it.
const MEANT_WORDS: usize = 4;

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

/// True when the words ask for a reminder: "remind me", "set a reminder",
/// "wake me", "don't let me forget".
pub fn asks_for_reminder(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words = lower_words(text);
    words.iter().any(|w| {
        w.starts_with("remind")
            // "remnd", "reminf": one slip of the keys is still the verb.
            || one_edit_apart(w, "remind")
            || matches!(w.as_str(), "alarm" | "alert" | "notify" | "ping")
    }) || ["wake me", "let me forget", "let me not forget", "nudge me"]
        .iter()
        .any(|p| lower.contains(p))
}

/// What to be reminded of when a reminder's words give the time first and
/// then, after a comma, what: "for tomorrow at 7:15am, take the bins out"
/// → "to take the bins out". `None` for any other shape.
fn after_the_time(rest: &str) -> Option<String> {
    let (time, what) = rest.split_once(',')?;
    let time = time.trim();
    let time = ["for ", "on ", "at "]
        .iter()
        .find_map(|lead| time.strip_prefix(lead))
        .unwrap_or(time);
    let what = what.trim();
    (when::is_only_time(time) && lower_words(what).len() >= 2).then(|| format!("to {what}"))
}

/// Where "remnd me" (one slip from "remind me") is in `lower`, and its
/// length.
fn misspelt_remind_me(lower: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    for word in lower.split(' ') {
        let plain = word.trim_matches(|c: char| !c.is_alphanumeric());
        if one_edit_apart(plain, "remind") && lower[at + word.len()..].starts_with(" me") {
            return Some((at, word.len() + 3));
        }
        at += word.len() + 1;
    }
    None
}

/// True when `a` becomes `b` by one letter left out, added or changed.
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => a.iter().zip(&b).filter(|(x, y)| x != y).count() == 1,
        1 => {
            let first = short
                .iter()
                .zip(long.iter())
                .take_while(|(x, y)| x == y)
                .count();
            short[first..] == long[first + 1..]
        }
        _ => false,
    }
}

/// True when the words ask to keep something: "save", "store",
/// "remember", "note that", "add to my notes", "write down".
pub fn asks_to_save(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower_words(text)
        .iter()
        .any(|w| KEEPING_VERBS.contains(&w.as_str()))
        || [
            "write down",
            "write this down",
            "don't forget",
            "dont forget",
        ]
        .iter()
        .any(|p| lower.contains(p))
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

/// Monday, Wednesday and Friday of next week at 09:00, labelled date
/// first ("7 Dec (Mon), 09:00") so the label reads back as the same
/// moment in the grammar of when.
fn next_week_options(now: DateTime<Local>) -> Vec<(String, DateTime<Local>)> {
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

/// A `remind` call's text, kept when it shares a word of substance with
/// what the user said; else the request's own ("Call him tomorrow at 9"),
/// with what the user said the request's reference `meant` ("Call Tom").
/// A small model copied Imprint's note into it ("remind now with the text
/// and that time"). Either way without the time, which the reminder keeps
/// in `at` and `repeat` ("Call him").
pub fn reminder_text_from_user(args: &Value, words: &UserWords<'_>, meant: Option<&str>) -> Value {
    let said: Vec<String> = words
        .latest_first()
        .flat_map(|text| reference::topic(text, &[]))
        .collect();
    let text = args.get("text").and_then(Value::as_str).unwrap_or("");
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
        let text = when::without_the_time(&text);
        let text = text
            .strip_suffix('.')
            .filter(|t| !t.ends_with('.'))
            .unwrap_or(&text);
        map.insert("text".into(), Value::String(text.to_string()));
    }
    args
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

/// Completes "What time should I remind you …?" from the user's request
/// ("remind me to send the invoice" → "to send the invoice"), else from
/// the reminder's text.
fn about(request: &str, model_text: &str) -> String {
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

fn clean_end(s: &str) -> String {
    s.trim()
        .trim_end_matches(['.', '!', '?', ' '])
        .trim()
        .to_string()
}

/// "to send the invoice" from "… remind me to send the invoice." (or
/// "… a reminder to send …"); words of when before it are passed over:
/// "remind me every day to take my pills" → "to take my pills".
fn after_remind_me(source: &str) -> Option<String> {
    let lower = source.to_lowercase();
    let (i, len) = [
        "remind me",
        "reminder",
        "nudge me",
        "ping me",
        "alert me",
        "notify me",
    ]
    .iter()
    .find_map(|anchor| lower.find(anchor).map(|i| (i, anchor.len())))
    .or_else(|| misspelt_remind_me(&lower))?;
    let rest = clean_end(&source[i + len..]);
    if let Some(what) = after_the_time(&rest) {
        return Some(what);
    }
    let lower_rest = format!(" {}", rest.to_lowercase());
    let start = [" to ", " about ", " of ", " that "]
        .iter()
        .filter_map(|p| lower_rest.find(p))
        .min()?;
    // Only when the words before it say when or how often.
    let before = &lower_rest[..start];
    let only_when = before.trim().is_empty()
        || when::recurrence(before).is_some()
        // "tomorrow at 9", "on Friday at 14:00": the words say when.
        || when::is_only_time(before)
        || lower_words(before).iter().all(|w| {
            matches!(
                w.as_str(),
                "next" | "week" | "later" | "soon" | "sometime" | "again" | "please"
            )
        });
    only_when.then(|| rest[start..].trim().to_string())
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

/// Small words that may come with a verb of keeping at the start of a
/// request to save ("Please write down the …").
const BESIDE_KEEPING: &[&str] = &[
    "please", "pls", "plz", "write", "down", "the", "a", "an", "this", "that", "my",
];

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
    while !rest.is_empty() {
        let (word, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let plain = word.to_lowercase();
        let plain = plain.trim_matches(|c: char| !c.is_alphanumeric());
        let keeping = KEEPING_VERBS.contains(&plain) || plain == "write";
        if !keeping && !BESIDE_KEEPING.contains(&plain) {
            break;
        }
        verb |= keeping;
        rest = after.trim_start();
    }
    (rest, verb)
}

/// What to keep, in the user's words: [`what_to_save`], or else the
/// request past its verb of keeping ("Save the new PIN 4321 for my bank
/// account." keeps "New PIN 4321 for my bank account.").
pub fn content_to_save(request: &str) -> Option<String> {
    what_to_save(request).or_else(|| {
        let rest = after_keeping_words(request)?;
        asks_to_save(request).then(|| capitalized(rest))
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
    // A colon between digits is a clock time ("16:40"), not where what to
    // keep begins.
    let bytes = request.as_bytes();
    let colon = request.char_indices().find(|&(i, c)| {
        c == ':'
            && !(i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    let said = match colon.map(|(i, _)| (&request[..i], &request[i + 1..])) {
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
        None => {
            let lower = request.to_lowercase();
            let at = [
                "remember that ",
                "note that ",
                "save that ",
                "keep in mind that ",
            ]
            .iter()
            .find_map(|p| lower.find(p).map(|i| i + p.len()))?;
            &request[at..]
        }
    };
    let said = said.trim();
    (!said.is_empty()).then(|| capitalized(said))
}

/// Keeping words that may close a request ("…, save that").
const TRAILING_KEEP: &[&str] = &[
    "save that",
    "save this",
    "save it",
    "remember that",
    "remember this",
    "remember it",
    "note that",
    "note this",
    "note it",
    "keep that",
    "keep this",
    "store that",
    "store this",
    "store it",
    "write that down",
    "write it down",
    "jot that down",
    "please save",
    "keep a note of that",
    "make a note of that",
    "make a note of it",
    "note that down",
    "take a note of that",
];

/// The request before keeping words that close it ("Lena's train gets in
/// at 16:40 on Saturday, save that" → "Lena's train gets in at 16:40 on
/// Saturday"); `None` when it does not end so, or nothing is before them.
fn before_trailing_keep(request: &str) -> Option<&str> {
    let mut trimmed = request.trim_end_matches(|c: char| c.is_whitespace() || ".!".contains(c));
    // "…, store it pls": the politeness after the keeping words goes.
    for polite in [" please", " pls", " plz", " thanks", " thx", " ta"] {
        if trimmed.to_lowercase().ends_with(polite) {
            trimmed = trimmed[..trimmed.len() - polite.len()].trim_end();
        }
    }
    let lower = trimmed.to_lowercase();
    let suffix = TRAILING_KEEP.iter().find(|s| lower.ends_with(*s))?;
    let before = trimmed.get(..trimmed.len() - suffix.len())?;
    // Only a closing clause: "…, save that", "… - remember this".
    let cut = before.trim_end();
    if !cut.ends_with([',', '-', '–', '—', ';', '.']) {
        return None;
    }
    let before = cut.trim_end_matches(|c: char| c.is_whitespace() || ",-–—;.".contains(c));
    (lower_words(before).len() >= 2).then_some(before)
}

/// What the words before a colon say a memory is about, without the verb
/// of keeping: "Write down the password hint for my email account" is
/// "password hint for my email account". `None` for a place to keep it
/// ("Save to the Website project", "Note this").
fn saved_under(before: &str) -> Option<String> {
    let lower = before.to_lowercase();
    if lower_words(&lower)
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

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// What to remind of, in the user's own words: "Remind me to call Anna."
/// → "Call Anna"; `None` when the request does not say it that way.
pub fn reminder_text(request: &str) -> Option<String> {
    let about = after_remind_me(request)?;
    let (_, what) = about.split_once(' ')?;
    let what = what.trim();
    let mut chars = what.chars();
    let first = chars.next()?;
    Some(first.to_uppercase().chain(chars).collect())
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
