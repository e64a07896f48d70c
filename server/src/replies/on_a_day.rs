//! A thing named with its day ("what time's the appointment on the 14th?",
//! "when does the school thing on thursday the 17th start?", "half an hour
//! before the appointment on the 14th"): the day limits what it can be to
//! the memories that say that day. The words often name the event in
//! other words than the memory ("appointment" for "braces check"), or
//! only by its kind, so the day does what the words cannot; meaning
//! orders them.

use chrono::{DateTime, Datelike, Local, NaiveDate};

use crate::grounding::plan::{self, Topic};
use crate::grounding::reference::SEARCH_LIMIT;
use crate::grounding::when::{self, Stated};
use crate::meaning::search::Findings;
use crate::replies::run::Run;
use crate::store::{Memory, MemoryQuery};

use super::planned::NEAR_EQUAL_FOR_A_DETAIL;

impl Run {
    /// The memories `named` may be when it states a day: those that say
    /// that day, found by meaning (`findings`, or a search for `named`
    /// when none are given) or by the day's number ("14", "14th"), as
    /// [`on_the_day`] keeps them. `None` when it states no day.
    pub(super) async fn on_the_day_named(
        &self,
        named: &str,
        findings: Option<&Findings>,
        topic: &Topic,
    ) -> Option<Vec<(Memory, f32)>> {
        let now = self.env.clock.now();
        let day = day_stated(named, now)?;
        let searched;
        let findings = match findings {
            Some(findings) => Some(findings),
            None => {
                let query = MemoryQuery {
                    query: named.to_string(),
                    limit: Some(SEARCH_LIMIT),
                    ..MemoryQuery::default()
                };
                searched = self.env.meaning.search(&self.reply.store, query).await.ok();
                searched.as_ref()
            }
        };
        let mut memories: Vec<(Memory, Option<f32>)> = findings
            .iter()
            .flat_map(|f| &f.found)
            .map(|f| (f.memory.clone(), f.similarity))
            .collect();
        let vector = findings.and_then(|f| f.vector.as_deref());
        let query = MemoryQuery {
            query: day_number_words(day),
            limit: Some(SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        match self.reply.store.search_memories(query).await {
            Ok(hits) => {
                for memory in hits {
                    if !memories.iter().any(|(m, _)| m.id == memory.id) {
                        let similarity =
                            vector.and_then(|v| self.env.meaning.similarity_of(memory.id, v));
                        memories.push((memory, similarity));
                    }
                }
            }
            Err(error) => tracing::warn!(%error, "could not search the memories for the day named"),
        }
        let kept = on_the_day(memories, topic, day, now);
        tracing::debug!(reply = %self.reply.id, %day, kept = ?kept.iter().map(|(m, s)| (m.id, *s)).collect::<Vec<_>>(), "the memories that say the day named");
        Some(kept)
    }

    /// The memories that say `day` (once, not each week), for a question
    /// that names nothing but the day ("anything on fri the 18th?",
    /// "what have I got on tomorrow"): found by the day's number, as the
    /// memories write it ("Fri 18 Dec", "on the 18th", "18/12"), and by
    /// its month, as many as a search returns: a small day's number is in
    /// many memories ("£7", "Year 7").
    pub(super) async fn memories_on(&self, day: NaiveDate) -> Vec<Memory> {
        let now = self.env.clock.now();
        let query = MemoryQuery {
            query: format!(
                "{} {} {}",
                day_number_words(day),
                day.format("%B"),
                day.format("%b")
            ),
            limit: Some(crate::store::MAX_SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        match self.reply.store.search_memories(query).await {
            Ok(hits) => hits
                .into_iter()
                .filter(|m| says_day(&m.content, day, now))
                .collect(),
            Err(error) => {
                tracing::warn!(%error, "could not search the memories for the day asked");
                Vec::new()
            }
        }
    }
}

/// True when `request` asks what is on a day, not about the day itself:
/// the day is said after "on" ("anything on fri the 18th?") or the request
/// says it is the user's own ("what have I got tomorrow?"), and it is no
/// yes-or-no question of the calendar ("is tomorrow friday?") nor a count
/// ("how many days until friday?").
pub(super) fn asks_what_is_on(request: &str) -> bool {
    let words = imprint_text::words::plain(plan::asked_part(request));
    let personal = plan::is_personal(request);
    let first = words.first().map(String::as_str);
    // "is there anything on friday?" asks what is on it.
    let yes_or_no = first.is_some_and(crate::common_words::is_auxiliary)
        && words.get(1).is_none_or(|w| w != "there")
        && !personal;
    (words.iter().any(|w| w == "on") || personal) && !yes_or_no && first != Some("how")
}

/// The calendar day the part of `text` that asks states, read at `now`
/// ("on the 14th", "thursday the 17th", "tomorrow"); `None` when it states
/// none.
pub(super) fn day_stated(text: &str, now: DateTime<Local>) -> Option<NaiveDate> {
    when::stated(plan::asked_part(text), now).map(Stated::day)
}

/// The words a memory writes `day`'s number in: "14 14th".
fn day_number_words(day: NaiveDate) -> String {
    format!("{0} {0}{1}", day.day(), ordinal_ending(day.day()))
}

/// "st", "nd", "rd" or "th": how "14th" is written after its number.
fn ordinal_ending(day: u32) -> &'static str {
    match (day % 10, day % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

/// Of `memories` (with their similarity in meaning to the question), those
/// that say `day` (once, not each week) and fit the question alike
/// ([`alike`]). Nearest first.
fn on_the_day(
    memories: Vec<(Memory, Option<f32>)>,
    topic: &Topic,
    day: NaiveDate,
    now: DateTime<Local>,
) -> Vec<(Memory, f32)> {
    let dated = memories
        .into_iter()
        .filter(|(m, _)| says_day(&m.content, day, now))
        .map(|(m, similarity)| (m, similarity.unwrap_or(0.0)))
        .collect();
    alike(dated, topic)
}

/// The similarity from which a dated memory may be the event a request
/// names in other words (a reminder's event, or the one memory that says
/// the day a question asks about). An event's name is a few words
/// against a whole memory, so it lies lower than a question's [`FOUND`]:
/// "the celebration" is 0.32 to a birthday party and 0.31 to a
/// christening, and 0.18 to a boiler service; "the church service" 0.36
/// to the christening and 0.24 to the boiler's.
///
/// [`FOUND`]: crate::meaning::search::FOUND
pub(super) const EVENT_FOUND: f32 = 0.28;

/// Of `dated` (with their similarity in meaning), those that fit the
/// question alike: those that hold whose it is (when it says), and of them
/// the ones holding most of the words naming the thing, when some hold
/// any ("rory's school play on the 17th" is his nativity, not Isla's
/// concert that day), and of those the nearest in meaning and any less
/// than [`NEAR_EQUAL_FOR_A_DETAIL`] below it (on one day, what the words
/// name is what tells the memories apart); none when the words passed
/// over the one nearest in meaning of all. Nearest first.
fn alike(mut dated: Vec<(Memory, f32)>, topic: &Topic) -> Vec<(Memory, f32)> {
    let nearest = dated
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|d| d.0.id);
    // Whose it is comes first: Isla's concert "playing" fiddle that day
    // holds a word of "rory's school play" as his nativity holds "rory",
    // and the shop's Tuesday hours are no "daan's swimming lesson on
    // tuesday".
    dated.retain(|d| topic.owners_in(&d.0.content));
    let held = |m: &Memory| topic.names_held(&m.content);
    let most_held = dated.iter().map(|d| held(&d.0)).max().unwrap_or(0);
    dated.retain(|d| held(&d.0) == most_held);
    dated.sort_by(|a, b| b.1.total_cmp(&a.1));
    let Some(best) = dated.first().map(|d| d.1) else {
        return Vec::new();
    };
    let alike: Vec<(Memory, f32)> = dated
        .into_iter()
        .filter(|(_, similarity)| *similarity > best - NEAR_EQUAL_FOR_A_DETAIL)
        .collect();
    // The words passed over the one nearest in meaning ("the kids' thing"
    // on the 19th is no more the final of a team called Golden Kids than
    // the recital that day): the two do not agree on what it is, and
    // nothing here is sure.
    if !alike.iter().any(|(m, _)| Some(m.id) == nearest) {
        return Vec::new();
    }
    alike
}

/// True when `content` says `day`, once: "Next braces check: Mon 14 Dec
/// at 15:40" says 14 December; "bins go out on Mondays" no one day.
fn says_day(content: &str, day: NaiveDate, now: DateTime<Local>) -> bool {
    when::recurrence(content).is_none()
        && when::stated(content, now).is_some_and(|stated| match stated {
            Stated::At(moment) => moment.date_naive() == day,
            Stated::Day(said) => said == day,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Local> {
        // Sunday 6 December 2026, 10:00.
        Local.with_ymd_and_hms(2026, 12, 6, 10, 0, 0).unwrap()
    }

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, d).unwrap()
    }

    fn memories(memories: &[(&str, f32)]) -> Vec<(Memory, Option<f32>)> {
        memories
            .iter()
            .enumerate()
            .map(|(i, (content, similarity))| {
                let memory = Memory {
                    id: i as i64 + 1,
                    content: content.to_string(),
                    project: None,
                    tags: Vec::new(),
                    created_at: "2026-12-01T09:00:00Z".to_string(),
                };
                (memory, Some(*similarity))
            })
            .collect()
    }

    #[test]
    fn the_day_a_question_states_is_read_from_what_it_asks() {
        let asked = |request: &str| day_stated(request, now());
        assert_eq!(
            asked("what time's the appointment on the 14th?"),
            Some(day(14))
        );
        assert_eq!(
            asked("what time does the school thing on thursday the 17th start?"),
            Some(day(17))
        );
        assert_eq!(asked("when is the dentist tomorrow?"), Some(day(7)));
        assert_eq!(asked("what time's the christmas do?"), None);
        assert_eq!(asked("when's rory's appointment at the opticians"), None);
    }

    /// The ids `on_the_day` keeps for `request` on day `d`, the memories
    /// `saved` with their similarity to it.
    fn on(saved: &[(&str, f32)], request: &str, d: u32) -> Vec<i64> {
        on_the_day(memories(saved), &Topic::of(request, &[]), day(d), now())
            .iter()
            .map(|(m, _)| m.id)
            .collect()
    }

    #[test]
    fn the_memories_that_say_the_day_asked_and_fit_it_alike_are_what_it_may_be() {
        let saved = [
            // Another day, however near in meaning.
            ("Dentist appointment: Tue 15 Dec at 9am", 0.62),
            (
                "Isla's orthodontist: next braces check Mon 14 Dec at 15:40",
                0.41,
            ),
            ("Rory's eye test at Specsavers: Mon 14 Dec at 16:10", 0.38),
            // That day, but far below what the question fits.
            ("Skip collected Mon 14 Dec", 0.05),
            // Every Monday: no one day.
            ("Bins go out every Monday at 7am", 0.3),
            ("Room 14 at Redburn House", 0.4),
        ];
        assert_eq!(
            on(&saved, "what time's the appointment on the 14th?", 14),
            vec![2, 3]
        );
        assert!(on(&saved, "what time's the appointment on the 16th?", 16).is_empty());
        // Someone else's that day is not it.
        assert!(on(
            &saved,
            "what time is daan's swimming lesson on the 14th?",
            14
        )
        .is_empty());
        // The words name one of them, nearest in meaning too.
        let eye_test = [
            (
                "Isla's orthodontist: next braces check Mon 14 Dec at 15:40",
                0.45,
            ),
            ("Rory's eye test at Specsavers: Mon 14 Dec at 16:10", 0.62),
        ];
        assert_eq!(
            on(&eye_test, "when is rory's eye test on the 14th", 14),
            vec![2]
        );
        // Whose it is, though another holds a word of it ("playing").
        let play = [
            (
                "Isla is playing fiddle at the Christmas concert, Thu 17 Dec at 7pm",
                0.56,
            ),
            (
                "Crown Primary nativity: Thu 17 Dec at 1:45pm. Rory is a shepherd",
                0.67,
            ),
        ];
        assert_eq!(
            on(&play, "what time is rory's school play on the 17th?", 17),
            vec![2]
        );
        // The words pass over the nearest in meaning (a team called
        // Golden Kids holds "kids"): nothing here is sure.
        let kids = [
            (
                "Kofi's football final (Bright Stars vs Golden Kids) on Sat 19 Dec at 3pm",
                0.33,
            ),
            (
                "Afua's dance recital with her troupe on Sat 19 Dec at 11am",
                0.36,
            ),
        ];
        assert!(on(
            &kids,
            "what time is the kids' thing on saturday the 19th",
            19
        )
        .is_empty());
    }

    #[test]
    fn a_day_is_looked_up_by_its_number_as_memories_write_it() {
        let endings: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31]
            .iter()
            .map(|&d| format!("{d}{}", ordinal_ending(d)))
            .collect();
        assert_eq!(
            endings,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "31st"]
        );
    }

    #[test]
    fn what_is_on_a_day_is_asked_not_the_day_itself() {
        for asks in [
            "anything on fri the 18th?",
            "what have I got on the 12th?",
            "what do I have tomorrow",
            "is there anything on friday?",
            "whats on tomorrow",
        ] {
            assert!(asks_what_is_on(asks), "{asks}");
        }
        for about_the_day in [
            "is tomorrow friday?",
            "how many days until friday?",
            "is the 25th a sunday?",
            "what's 3 days from now?",
            "anything within a week?",
            "and tomorrow?",
        ] {
            assert!(!asks_what_is_on(about_the_day), "{about_the_day}");
        }
    }
}
