//! Imprint's English rules, in one place: what a request asks for and why
//! ([`plan`]: its kind, a question's topic, the answer guard, sums), and
//! the details of a tool call that must come from the user's own words,
//! never from the model's guess (this module). The one tokenizer they all
//! read is `imprint_text::words`, shared with Echo.
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

pub(crate) mod courtesy;
mod keep;
mod need;
pub mod plan;
pub mod reference;
mod remind;
pub mod when;

pub(crate) use keep::capitalized;
pub use keep::{
    asks_to_save, content_to_save, keeping_words_with_the_next, memory_content_from_user,
    what_to_save, without_lead_in,
};
pub use need::{Need, NeedKind, Resolved};
use remind::about;
pub use remind::{
    asks_for_reminder, names_something_kept, names_something_to_remind, reminder_text,
    reminder_text_from_user, time_options,
};
use remind::{next_week_options, times_on};

use chrono::{DateTime, Local, NaiveDate};
use serde_json::Value;

use app::protocol::tool_names::{LIST_PROJECTS, REMIND, SEARCH, STORE};
use app::protocol::CallReason;
use when::Stated;

pub use crate::tools::WritesAsked;

/// The writes `request` asks for in its words: a save (a verb of keeping,
/// "write down"), a reminder ("remind me", "set an alarm for 6").
pub fn writes_asked(request: &str) -> WritesAsked {
    WritesAsked {
        save: asks_to_save(request),
        remind: asks_for_reminder(request),
    }
}

/// Words at most of an answer that says what a reference means ("Tom", "my
/// sister Anna"); a longer one is not put in a reminder's text for it.
const MEANT_WORDS: usize = 4;

/// The projects offered as options at most.
const MAX_PROJECT_OPTIONS: usize = 4;

/// What the user said: the request, then the answers given during this
/// reply, in order.
pub struct UserWords<'a> {
    pub request: &'a str,
    pub answers: &'a [String],
    /// The writes the request's kind asks for, as its nearest labelled
    /// examples (or the model between two kinds) judged it: "fyi my gym
    /// number is …" asks to save with no verb of keeping.
    pub judged: WritesAsked,
    /// When a reminder said against an event is due, the event's moment
    /// being a memory's ("an hour before the concert"): see
    /// [`when::BeforeEvent`].
    pub event: Option<Stated>,
}

impl UserWords<'_> {
    /// True when the user asked to save: in their words, or by the kind
    /// their request was judged.
    pub fn ask_to_save(&self) -> bool {
        self.judged.save || self.latest_first().any(asks_to_save)
    }

    /// True when the user asked to be reminded (see [`Self::ask_to_save`]).
    pub fn ask_for_reminder(&self) -> bool {
        self.judged.remind || self.latest_first().any(asks_for_reminder)
    }

    /// True when the user's words (the request or an answer) say when:
    /// a reminder asked for then needs no question.
    pub fn state_a_time(&self, now: DateTime<Local>) -> bool {
        self.event.is_some()
            || self
                .timed_first()
                .any(|text| when::stated(text, now).is_some())
    }

    /// When the user's words say a reminder is due: the latest words that
    /// say it, with a time of day alone ("10am") placed on a day said
    /// before it ("on Saturday"). A day with no time of day is only a day.
    pub fn when(&self, now: DateTime<Local>) -> Option<Stated> {
        if let Some(event) = self.event {
            return Some(self.when_against(event, now));
        }
        let texts: Vec<&str> = self.timed_first().collect();
        // An answer may be a bare hour ("10"); the request may not.
        let read = |i: usize, text: &str| {
            if i < self.answers.len() {
                when::answered(text, now)
            } else {
                when::stated(text, now)
            }
        };
        let (latest, stated) = texts
            .iter()
            .enumerate()
            .find_map(|(i, text)| read(i, text).map(|stated| (i, stated)))?;
        let said_day = texts[latest + 1..]
            .iter()
            .find_map(|text| match when::stated(text, now) {
                Some(Stated::Day(day)) => Some(day),
                _ => None,
            });
        let on_that_day = said_day.and_then(|day| when::time_on(texts[latest], day));
        Some(on_that_day.map_or(stated, Stated::At))
    }

    /// When a reminder set against an event is due: the event's moment;
    /// when only its day is known, at the time of day an answer gives
    /// ("what time on Tuesday?"). An answer naming which event ("the 6pm
    /// one") is no time of the reminder's.
    fn when_against(&self, event: Stated, now: DateTime<Local>) -> Stated {
        let Stated::Day(day) = event else {
            return event;
        };
        self.answers
            .iter()
            .rev()
            .filter(|answer| when::answered(answer, now).is_some())
            .find_map(|answer| when::time_on(answer, day))
            .map_or(event, Stated::At)
    }

    /// True when the user's words say the moment itself, not only a day.
    pub fn say_a_moment(&self, now: DateTime<Local>) -> bool {
        matches!(self.when(now), Some(Stated::At(_)))
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

    /// [`Self::latest_first`], less a request that sets its time against
    /// an event no memory dates ("the evening before the collection,
    /// 20h"): its clock time is on the event's day, which nobody has
    /// said, so only an answer says when.
    fn timed_first(&self) -> impl Iterator<Item = &str> {
        let undated_event = self.event.is_none() && when::before_an_event(self.request).is_some();
        let answers = self.answers.len();
        self.latest_first()
            .enumerate()
            .filter(move |(i, _)| !undated_event || *i < answers)
            .map(|(_, text)| text)
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
    /// A write the user never asked for: not made.
    Refuse(Unasked),
}

/// A write the user never asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unasked {
    Reminder,
    Save,
}

impl Unasked {
    /// The write `tool` would make, if it is one a user must ask for.
    pub fn of_tool(tool: &str) -> Option<Self> {
        match tool {
            REMIND => Some(Unasked::Reminder),
            STORE => Some(Unasked::Save),
            _ => None,
        }
    }

    /// Why it was not made, as the model reads it.
    pub fn for_the_model(self) -> &'static str {
        match self {
            Unasked::Reminder => "the user did not ask for a reminder, so none was set",
            Unasked::Save => "the user did not ask to save anything, so nothing was stored",
        }
    }

    /// Why it was not made, as the page says it when the line is opened.
    pub fn for_the_user(self) -> CallReason {
        match self {
            Unasked::Reminder => CallReason::ReminderUnasked,
            Unasked::Save => CallReason::SaveUnasked,
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
        REMIND if !words.ask_for_reminder() => Verdict::Refuse(Unasked::Reminder),
        STORE if !words.ask_to_save() => Verdict::Refuse(Unasked::Save),
        REMIND => check_time(args, words, now),
        SEARCH | STORE | LIST_PROJECTS => check_project(tool, args, words, projects),
        _ => Verdict::Run(args.clone()),
    }
}

/// True when `word` is `verb` with a slip of the keys: one letter left
/// out, added, changed or two swapped ("remnd", "reminf"), or two for a
/// verb of eight letters or more ("rember", "remeber"). The first letter
/// must be right, and the word at least four letters long, so "stone" is
/// no "store" by accident of a short word.
pub(crate) fn slip_of(word: &str, verb: &str) -> bool {
    let allowed = if verb.chars().count() >= 8 { 2 } else { 1 };
    word != verb
        && word.chars().count() >= 4
        && word.chars().next() == verb.chars().next()
        && strsim::damerau_levenshtein(word, verb) <= allowed
}

/// A reminder asked for with no time the user's words give: the question
/// to settle before the model starts, so asking does not wait on the model
/// calling `remind`. "Every day", "next week" and "before the flight" give
/// no time either; "on Saturday" gives the day, and the options are times
/// on it.
pub fn unstated_time(words: &UserWords<'_>, now: DateTime<Local>) -> Option<Need> {
    let asked = words.ask_for_reminder();
    let day = match words.when(now) {
        Some(Stated::At(_)) => return None,
        Some(Stated::Day(day)) => Some(day),
        None => None,
    };
    asked.then(|| {
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
        let next_week = imprint_text::words::plain(words.request)
            .windows(2)
            .any(|w| w[0] == "next" && w[1] == "week");
        if let Some((written, options)) = two_way_options(words, now, when::date_order()) {
            return Need::Time {
                about,
                day,
                options,
                two_way: Some(written),
                unread_zone: None,
            };
        }
        let options = match day {
            None if next_week => next_week_options(now),
            day => options_for(day, now),
        };
        Need::Time {
            about,
            day,
            options,
            two_way: None,
            unread_zone: unread_zone(words),
        }
    })
}

/// A time question's options: each label, and the moment it means.
type TimeOptions = Vec<(String, DateTime<Local>)>;

/// A date the user wrote that reads two ways ("3/4") and `order` (the
/// locale's) does not say which: what was written, and its readings still
/// to come as the options, labelled as [`times_on`]'s are. `None` without
/// one, or when neither reading is to come.
fn two_way_options(
    words: &UserWords<'_>,
    now: DateTime<Local>,
    order: Option<when::DateOrder>,
) -> Option<(String, TimeOptions)> {
    let date = words
        .latest_first()
        .find_map(|text| when::two_way_date(text, now, order))?;
    let options: TimeOptions = date
        .readings
        .into_iter()
        .filter(|t| *t > now)
        .map(|t| (t.format("%-d %b (%a), %H:%M").to_string(), t))
        .collect();
    (!options.is_empty()).then_some((date.written, options))
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

/// The project a save names, and the words that name it when they open
/// the request before what is kept: by the project's whole name anywhere
/// ([`named_project`]), or loosely in those opening words, by a word of
/// its name no other project's name holds or two of its words in a row
/// ("for harbourside - sam wants…", "add to birchwood: …", "save this to
/// the green roof project: …" of "Harbourside Park", "Birchwood green
/// roof"; "the wedding project: …" of "Van Zyl wedding"; "for the bar
/// job: …" of "Beach bar rebuild", "the turays' booking: …" of "Turay
/// reunion"); one project only.
pub fn project_of_a_save<'r>(
    request: &'r str,
    projects: &[String],
) -> Option<(String, Option<&'r str>)> {
    if let Some(project) = named_project(request, projects) {
        // "beach bar rebuild: the painter is…": the name is the lead-in.
        let lead_in = lead_in_before_content(request)
            .filter(|lead_in| position_of(lead_in, &project).is_some());
        return Some((project, lead_in));
    }
    let lead_in = lead_in_before_content(request)?;
    let words = imprint_text::words::plain(lead_in);
    // "the turays' booking", "turay's": a name's word, whoever's.
    let holds = |word: &String| {
        words.iter().any(|w| {
            let whose = w.strip_suffix("'s").or_else(|| w.strip_suffix('s'));
            w == word || whose == Some(word.as_str())
        })
    };
    let names: Vec<Vec<String>> = projects
        .iter()
        .map(|p| imprint_text::words::plain(p))
        .collect();
    let names_loosely = |index: usize| {
        let name = &names[index];
        // "new" of "New website" says what is new ("a new number"), not
        // which project.
        let own = |word: &String| {
            word.chars().count() >= 3
                && !crate::common_words::names_nothing_kept(word)
                && !names
                    .iter()
                    .enumerate()
                    .any(|(other, n)| other != index && n.contains(word))
        };
        name.iter().any(|w| own(w) && holds(w))
            || name
                .windows(2)
                .any(|pair| words.windows(2).any(|w| w == pair))
    };
    match (0..projects.len())
        .filter(|&i| names_loosely(i))
        .collect::<Vec<_>>()[..]
    {
        [index] => Some((projects[index].clone(), Some(lead_in))),
        _ => None,
    }
}

/// The short lead-in of a note filed under a project: one that names a
/// project loosely ([`project_of_a_save`]) or points at one without
/// naming it ("put this under the project pls: …"), set apart from what
/// follows by a colon or a spaced dash.
pub fn note_lead_in<'r>(request: &'r str, projects: &[String]) -> Option<&'r str> {
    match project_of_a_save(request, projects) {
        Some((_, Some(lead_in))) => Some(lead_in),
        _ => lead_in_before_content(request).filter(|lead_in| refers_to_a_project(lead_in)),
    }
}

/// `content` without the `lead_in` that named its project ("For
/// harbourside - sam wants…" keeps "Sam wants…"), or without what is
/// left of it once its verb of keeping was taken ("add to the turays'
/// booking: 2 more…" kept as "to the turays' booking: 2 more…" keeps
/// "2 more…"); as it is otherwise.
pub fn without_project_lead_in(content: String, lead_in: &str) -> String {
    let lead_in = lead_in.trim();
    let separators = [':', '-', '–', '—', ' '];
    let after = |head: &str| {
        content
            .get(..head.len())
            .filter(|start| start.eq_ignore_ascii_case(head))
            .and_then(|_| content.get(head.len()..))
    };
    // The whole lead-in, or its tail from a word on when a colon or a
    // dash still sets it apart.
    let whole = after(lead_in).map(|rest| rest.trim_start_matches(separators));
    let tail = || {
        lead_in
            .match_indices(' ')
            .map(|(at, _)| &lead_in[at + 1..])
            .filter_map(after)
            .find(|rest| rest.trim_start().starts_with([':', '-', '–', '—']))
            .map(|rest| rest.trim_start_matches(separators))
    };
    match whole.or_else(tail).filter(|rest| !rest.is_empty()) {
        Some(rest) => keep::capitalized(rest),
        None => content,
    }
}

/// The words before what a request keeps, when a colon or a spaced dash
/// sets them apart ("add to birchwood: …", "for harbourside - …"); a colon
/// between digits is a clock time.
fn lead_in_before_content(request: &str) -> Option<&str> {
    let colon = keep::colon_before_content(request);
    let dash = [" - ", " – ", " — "]
        .iter()
        .filter_map(|d| request.find(d))
        .min();
    let end = match (colon, dash) {
        (Some(c), Some(d)) => c.min(d),
        (c, d) => c.or(d)?,
    };
    // A lead-in is short: a long one is the fact itself.
    Some(&request[..end]).filter(|lead| imprint_text::words::plain(lead).len() <= 8)
}

fn check_time(args: &Value, words: &UserWords<'_>, now: DateTime<Local>) -> Verdict {
    match words.when(now) {
        Some(Stated::At(t)) => Verdict::Run(Resolved::Time(t).apply(args)),
        Some(Stated::Day(day)) => {
            // The day is the user's; a time of day the model chose on that
            // day is kept, else the user is asked what time.
            let model_time = args
                .get("at")
                .and_then(Value::as_str)
                .and_then(|at| crate::iso8601::parse_date_time(at, now).ok())
                .map(|t| t.with_timezone(&Local))
                .filter(|t| t.date_naive() == day && *t > now);
            match model_time {
                Some(t) => Verdict::Run(Resolved::Time(t).apply(args)),
                None => Verdict::Ask(time_need(args, words, Some(day), now)),
            }
        }
        None => Verdict::Ask(time_need(args, words, None, now)),
    }
}

fn time_need(
    args: &Value,
    words: &UserWords<'_>,
    day: Option<NaiveDate>,
    now: DateTime<Local>,
) -> Need {
    let model_text = args.get("text").and_then(Value::as_str).unwrap_or("");
    let two_way = two_way_options(words, now, when::date_order()).filter(|_| day.is_none());
    let (two_way, options) = match two_way {
        Some((written, options)) => (Some(written), options),
        None => (None, options_for(day, now)),
    };
    Need::Time {
        about: about(words.request, model_text),
        day,
        options,
        two_way,
        unread_zone: unread_zone(words),
    }
}

/// Why a zone the user wrote cannot be read ("9 IST"), if they wrote one:
/// the time is then asked again, not read in a guessed zone.
fn unread_zone(words: &UserWords<'_>) -> Option<String> {
    words
        .latest_first()
        .find_map(|text| match when::zone_said(text) {
            when::ZoneSaid::Refused(why) => Some(why),
            _ => None,
        })
}

/// The times offered: on the day the user said, while some are still to
/// come that day; else a few sensible moments from now.
fn options_for(day: Option<NaiveDate>, now: DateTime<Local>) -> Vec<(String, DateTime<Local>)> {
    let on_the_day = day.map(|day| times_on(day, now)).unwrap_or_default();
    if on_the_day.is_empty() {
        time_options(now)
    } else {
        on_the_day
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
        // A save may name its project loosely before what it keeps ("for
        // harbourside - …").
        let loosely = |p: &str| {
            tool == STORE
                && project_of_a_save(text, projects).is_some_and(|(q, _)| q.eq_ignore_ascii_case(p))
        };
        let said = |p: &&str| {
            if known(p) {
                mentions(text, p) || loosely(p)
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
    imprint_text::words::plain(text).windows(2).any(|pair| {
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
    let words = imprint_text::words::plain(text);
    let name = imprint_text::words::plain(name);
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

/// True for a verb of doing something, as a reminder's text may start
/// with one: a verb of asking Imprint ("call", "check", "book"), of going
/// and meeting ("take", "visit"), or of an act Imprint cannot do itself
/// ("pay", "email", "buy").
pub fn is_a_verb_of_doing(word: &str) -> bool {
    word == "do"
        || crate::common_words::is_asking_verb(word)
        || plan::is_doing(word)
        || plan::is_act_it_cannot_do(word)
}

#[cfg(test)]
mod tests;
