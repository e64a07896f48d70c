//! A detail only the user can give (a reminder's time, "the project", what
//! a reference means): the question Imprint asks for it, why, its options,
//! and how an answer is read.

use app::protocol::QuestionReason;
use chrono::{DateTime, Local, NaiveDate};
use serde_json::Value;

use super::when::{self, Stated};
use super::{iso, mentions, reference};

/// A detail only the user can give.
#[derive(Clone, Debug, PartialEq)]
pub enum Need {
    /// When a reminder is due. `about` completes "What time should I
    /// remind you …?"; each option carries its moment, fixed when asked.
    Time {
        about: String,
        /// The day the user said, with no time of day ("on Saturday").
        day: Option<NaiveDate>,
        options: Vec<(String, DateTime<Local>)>,
        /// A date the user wrote that reads two ways ("3/4"): the options
        /// are its readings.
        two_way: Option<String>,
        /// A zone the user wrote that cannot be read ("9 IST": India,
        /// Ireland or Israel?), and why: the time is asked again, naming it.
        unread_zone: Option<String>,
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
            Need::Time {
                about,
                two_way: Some(written),
                ..
            } => format!(
                "Which day is “{written}”: when should I remind you {}?",
                when::without_the_time(about)
            ),
            Need::Time {
                about,
                day: Some(day),
                ..
            } => format!(
                // The day is said once: "… on Saturday 8 June … to call Ines".
                "What time on {} should I remind you {}?",
                day.format("%A %-d %B"),
                when::without_the_time(about)
            ),
            Need::Time { about, .. } => format!("What time should I remind you {about}?"),
            Need::Project { .. } => "Which project do you mean?".to_string(),
            Need::Reference { question, .. } => question.clone(),
        }
    }

    /// Why the question is asked: the card shows its words ("3 memories
    /// match “the meeting”").
    pub fn reason(&self) -> QuestionReason {
        match self {
            Need::Time {
                two_way: Some(written),
                ..
            } => QuestionReason::DayOrMonthFirst {
                written: written.clone(),
            },
            Need::Time {
                unread_zone: Some(why),
                ..
            } => QuestionReason::ZoneUnread { why: why.clone() },
            Need::Time { day: None, .. } => QuestionReason::NoTime,
            Need::Time { day: Some(day), .. } => QuestionReason::NoTimeOfDay {
                day: day.format("%Y-%m-%d").to_string(),
            },
            Need::Project { options } => QuestionReason::ProjectsUnnamed {
                count: options.len(),
            },
            // One memory as every option: the days it dates an event on.
            Need::Reference {
                phrase, candidates, ..
            } if candidates.len() > 1
                && candidates
                    .iter()
                    .all(|c| c.memories == candidates[0].memories) =>
            {
                QuestionReason::OnSeveralDays {
                    phrase: phrase.clone(),
                    count: candidates.len(),
                }
            }
            Need::Reference {
                phrase, candidates, ..
            } => QuestionReason::MemoriesMatch {
                phrase: phrase.clone(),
                count: candidates.iter().map(|c| c.memories.len().max(1)).sum(),
            },
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
            Need::Time { options, day, .. } => {
                if let Some((_, t)) = options
                    .iter()
                    .find(|(label, _)| label.eq_ignore_ascii_case(answer))
                {
                    return Ok(Resolved::Time(*t));
                }
                // "10am" answers "what time on Saturday?" on Saturday.
                let on_the_day = day.and_then(|day| when::time_on(answer, day));
                match on_the_day.or_else(|| when::answered(answer, now).and_then(Stated::moment)) {
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
            Need::Reference {
                candidates, phrase, ..
            } => {
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
                        phrase: phrase.clone(),
                    }),
                    None if answer.is_empty() => Err("The answer was empty.".into()),
                    None => Ok(Resolved::Meant(answer.to_string())),
                }
            }
        }
    }
}

/// The one candidate the answer's words point at: the one whose label
/// shares a word of three letters or more with it, or else the one whose
/// memories hold most of its words; either way, its memories and label
/// must hold at least half of what the answer names ("jogvan i gong, the
/// landlord" is not Jogvan's pickup, whose label shares "jogvan": the
/// studio rent's memory holds "Jogvan i Gong"). None: the answer is taken
/// in the user's words.
fn pointed_at<'a>(
    answer: &str,
    candidates: &'a [reference::Candidate],
) -> Option<&'a reference::Candidate> {
    // Words every label may share say nothing of which: function words
    // ("the one about…"), ordinals ("the first") and the kinds of thing
    // a reference names ("the meeting").
    let said: Vec<String> = imprint_text::words::plain(answer)
        .into_iter()
        .filter(|w| {
            w.len() >= 3
                && !crate::common_words::names_nothing_kept(w)
                && !crate::grounding::courtesy::is_polite(w)
                && imprint_text::numbers::ordinal(w).is_none()
                && !reference::names_a_kind(w)
        })
        .collect();
    // "Marta" points at "Marta's phone number".
    let plain = |w: &String| w.trim_end_matches("'s").to_string();
    let said: Vec<String> = said.iter().map(plain).collect();
    let words_of = |text: &str| -> Vec<String> {
        imprint_text::words::plain(text).iter().map(plain).collect()
    };
    // How many of the answer's words the candidate's label and memories
    // hold ("the winter vaccines for the clinic" for "Nordvet order
    // NV-30918 (5 Dec)", whose memory is "…: the clinic's winter vaccine
    // stock").
    let held = |c: &reference::Candidate| {
        let mut words = words_of(&c.label);
        words.extend(words_of(&c.memories.join(" ")));
        said.iter()
            .filter(|w| {
                words.contains(w)
                    || crate::common_words::plain_forms(w)
                        .iter()
                        .any(|base| words.contains(base))
            })
            .count()
    };
    let counted: Vec<(&reference::Candidate, usize)> =
        candidates.iter().map(|c| (c, held(c))).collect();
    let holds_most = |held: usize| 2 * held >= said.len();
    let mut by_label = counted.iter().filter(|(c, _)| {
        let label = words_of(&c.label);
        said.iter().any(|w| label.contains(w))
    });
    if let (Some(&(one, held)), None) = (by_label.next(), by_label.next()) {
        if holds_most(held) {
            return Some(one);
        }
    }
    let most = counted
        .iter()
        .map(|&(_, held)| held)
        .max()
        .filter(|&most| most > 0)?;
    let mut holding_most = counted.iter().filter(|&&(_, held)| held == most);
    let &(first, _) = holding_most.next()?;
    (holding_most.next().is_none() && holds_most(most)).then_some(first)
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
        /// The words of the request Imprint asked about ("he's", "the
        /// meeting"); empty in a state stored before it was kept.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        phrase: String,
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
