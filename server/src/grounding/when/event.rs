//! A time said against something the memories hold: "an hour before the
//! christmas concert", "a week before the nct is due", "the day before
//! Anna's birthday", "at 7am on the day of the dentist". The words say
//! how long before the event, and what the event is; its day and time are
//! the memory's to give.

use chrono::{DateTime, Duration, Local};

use super::span::span_ending;
use super::{days_stated, stated, time_on, Stated};

/// The most words an event's name runs to ("the christmas concert",
/// "the nct is due"): more is a sentence, not a name.
const MOST_WORDS: usize = 6;

/// When a reminder set against an event is due, for one day the event
/// may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventMoment {
    /// The event's day, when its memory states several: what the user is
    /// asked to choose by.
    pub day: Option<chrono::NaiveDate>,
    pub due: Stated,
}

/// A reminder's time, said before an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeforeEvent {
    /// How long before the event: none on the day of it.
    pub lead: Duration,
    /// The event, in the user's words ("christmas concert").
    pub event: String,
    /// The request without the words of the lead and the event: where a
    /// time of day of its own is read ("at 9am").
    pub rest: String,
    /// The lead and the event as the request says them ("a week before
    /// the nct is due"): what a reminder's text says it is for.
    pub said: String,
}

/// The event `request` sets a reminder's time against, if it does.
pub fn before_an_event(request: &str) -> Option<BeforeEvent> {
    let lower = request.to_lowercase();
    if let Some(at) = find_word(&lower, "on the day of") {
        let (event, end) = event_after(&lower, at + "on the day of".len())?;
        return Some(BeforeEvent {
            lead: Duration::zero(),
            event,
            rest: format!("{} {}", &lower[..at], &lower[end..]),
            said: lower[at..end].trim().to_string(),
        });
    }
    // "morning of the fair, 7am", "the evening of the party": the event's
    // day, and the part of it said keeps its time ("the evening" is 18:00).
    if let Some((part, at, of_end)) = day_of(&lower) {
        let (event, end) = event_after(&lower, of_end)?;
        return Some(BeforeEvent {
            lead: Duration::zero(),
            event,
            rest: format!("{} {part} {}", &lower[..at], &lower[end..]),
            said: lower[at..end].trim().to_string(),
        });
    }
    // "at 6.30am on delivery day", "on the wedding day": the day of the
    // event named before "day".
    if let Some((event, at, end)) = named_day(&lower) {
        return Some(BeforeEvent {
            lead: Duration::zero(),
            event,
            rest: format!("{} {}", &lower[..at], &lower[end..]),
            said: lower[at..end].trim().to_string(),
        });
    }
    let at = find_word(&lower, "before")?;
    let (event, end) = event_after(&lower, at + "before".len())?;
    let before: Vec<&str> = lower[..at].split_whitespace().collect();
    let words: Vec<String> = before
        .iter()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
        .collect();
    // "the day before", "the evening before": a day, and a part of it
    // that says a time of its own ("the evening" is 18:00). Opening the
    // request, the "the" is often left off ("day before the flight, 6pm").
    let is_part = |word: &String| super::part_of_day(std::slice::from_ref(word)).is_some();
    let (lead, took, part) = match words.as_slice() {
        [.., the, day] if the == "the" && day == "day" => (Duration::days(1), 2, None),
        [day] if day == "day" => (Duration::days(1), 1, None),
        [.., the, part] if the == "the" && is_part(part) => {
            (Duration::days(1), 2, Some(part.as_str()))
        }
        [part] if is_part(part) => (Duration::days(1), 1, Some(part.as_str())),
        _ => {
            let (lead, took) = span_ending(&words)?;
            (lead, took, None)
        }
    };
    let mut kept = before[..before.len() - took].join(" ");
    if let Some(part) = part {
        kept = format!("{kept} {part}");
    }
    let lead_said = before[before.len() - took..].join(" ");
    Some(BeforeEvent {
        lead,
        event,
        rest: format!("{kept} {}", &lower[end..]),
        said: format!("{lead_said} {}", lower[at..end].trim()),
    })
}

impl BeforeEvent {
    /// When the reminder is due, the event being what `memory` says
    /// ("Finn's concert is Friday 18 December at 10am"): the lead before
    /// it, on its day at a time of day the request says of its own ("at
    /// 9am"). A day alone when only a day is known; `None` when the
    /// memory says no time, or the moment has passed.
    pub fn moment(&self, memory: &str, now: DateTime<Local>) -> Option<Stated> {
        self.due_before(stated(memory, now)?, now)
    }

    /// Each day the event `memory` dates may be, with when the reminder
    /// is due for it: one for a memory that states one day ("Finn's
    /// concert is Friday 18 December"), several for one that states more
    /// ("workshops on Sat 16 Jan and Sat 30 Jan", which is asked); only
    /// those still ahead.
    pub fn moments(&self, memory: &str, now: DateTime<Local>) -> Vec<EventMoment> {
        let days = days_stated(memory, now);
        if days.is_empty() {
            return self
                .moment(memory, now)
                .map(|due| EventMoment { day: None, due })
                .into_iter()
                .collect();
        }
        let several = days.len() > 1;
        days.into_iter()
            .filter_map(|event| {
                let due = self.due_before(event, now)?;
                Some(EventMoment {
                    day: several.then_some(event.day()),
                    due,
                })
            })
            .collect()
    }

    /// When the reminder is due for the event at `event`; `None` once
    /// passed.
    fn due_before(&self, event: Stated, now: DateTime<Local>) -> Option<Stated> {
        let moment = match event {
            Stated::At(event) => {
                let due = event - self.lead;
                match time_on(&self.rest, due.date_naive()) {
                    Some(at) => Stated::At(at),
                    // "on the day of the dentist": what time on it?
                    None if self.lead.is_zero() => Stated::Day(due.date_naive()),
                    None => Stated::At(due),
                }
            }
            Stated::Day(day) => {
                let day = day - Duration::days(self.lead.num_days());
                match time_on(&self.rest, day) {
                    Some(at) => Stated::At(at),
                    None => Stated::Day(day),
                }
            }
        };
        let ahead = match moment {
            Stated::At(at) => at > now,
            Stated::Day(day) => day >= now.date_naive(),
        };
        ahead.then_some(moment)
    }
}

/// "on delivery day", "on the wedding day": the event a day is named
/// by (one to three words after "on", its "the" or "my" left off, before
/// "day"), and where the phrase starts and ends in `lower`. Words of a
/// time ("on the next day", "on monday") name no event.
fn named_day(lower: &str) -> Option<(String, usize, usize)> {
    lower
        .match_indices("on ")
        .map(|(at, _)| at)
        .filter(|&at| {
            !lower[..at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        })
        .find_map(|at| {
            let rest = &lower[at + "on ".len()..];
            let tokens: Vec<(usize, &str)> = words_at(rest).take(4).collect();
            let day = tokens.iter().position(|(_, token)| {
                token.trim_end_matches(|c: char| !c.is_alphanumeric()) == "day"
            })?;
            // "on delivery day, …": a mark after "day" ends the phrase.
            let end = at + "on ".len() + tokens[day].0 + "day".len();
            let marked_before = tokens[..day]
                .iter()
                .any(|(_, t)| t.ends_with(|c: char| !c.is_alphanumeric()));
            let named: Vec<&str> = tokens[..day]
                .iter()
                .map(|(_, t)| *t)
                .skip_while(|w| crate::common_words::is_function_word(w))
                .collect();
            let names_an_event = !named.is_empty()
                && !marked_before
                && named
                    .iter()
                    .all(|w| !crate::common_words::is_function_word(w) && !super::is_time_word(w));
            names_an_event.then(|| (named.join(" "), at, end))
        })
}

/// "morning of the fair", "the day of the move": the part of the day
/// said ("" for the day itself), where the phrase starts (with its
/// "the" or "on the") and where its "of" ends. It opens the request or
/// follows "the": "the cost of the fair" is no day.
fn day_of(lower: &str) -> Option<(&str, usize, usize)> {
    let words: Vec<(usize, &str)> = words_at(lower).collect();
    (0..words.len().saturating_sub(1)).find_map(|i| {
        let (at, word) = words[i];
        if words[i + 1].1 != "of" {
            return None;
        }
        let part = match word {
            "day" => "",
            _ if super::part_of_day(&[word.to_string()]).is_some() => word,
            _ => return None,
        };
        let start = match i {
            0 => at,
            _ if words[i - 1].1 != "the" => return None,
            _ if i >= 2 && words[i - 2].1 == "on" => words[i - 2].0,
            _ => words[i - 1].0,
        };
        let (of_at, of) = words[i + 1];
        Some((part, start, of_at + of.len()))
    })
}

/// The words of `text` split at whitespace, each with its offset in it.
fn words_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_whitespace()
        .map(move |word| (offset_in(text, word), word))
}

/// Where `part`, a slice of `text`, starts in it: the pointers' gap.
fn offset_in(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// Where `phrase` stands in `text` as whole words.
fn find_word(text: &str, phrase: &str) -> Option<usize> {
    text.match_indices(phrase).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + phrase.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The event named from `start` on, without the function words that open
/// it ("the", "my"), up to
/// a mark or the words that go on to what to be reminded of ("… to book
/// it", "…, remind me"); and where it ends.
fn event_after(text: &str, start: usize) -> Option<(String, usize)> {
    let rest = &text[start..];
    let mut end = rest
        .find([',', ';', '.', '!', '?', ':', '—', '–'])
        .unwrap_or(rest.len());
    for stop in [" - ", " to ", " remind ", " and ", " so "] {
        if let Some(i) = rest[..end].find(stop) {
            end = i;
        }
    }
    // "… the play pls": the politeness that closes it is no part of it.
    let named = crate::grounding::courtesy::without_closing(&rest[..end]);
    let mut words: Vec<&str> = named.split_whitespace().collect();
    // "before I leave", "before we go": a clause, not an event's name.
    if words.first().is_some_and(|w| {
        imprint_text::pronouns::is_speaking_subject(w) || imprint_text::pronouns::is_third_person(w)
    }) {
        return None;
    }
    while words
        .first()
        .is_some_and(|w| crate::common_words::is_function_word(w))
    {
        words.remove(0);
    }
    // "the delivery at 18h", "the fair on sat": the time that closes it
    // is the reminder's, not part of the event's name; a part of the day
    // alone is the name's ("the quiz night", "games evening").
    let mut end = start + end;
    let closing_time = |k: usize| {
        let closing: Vec<String> = words[k..].iter().map(|w| w.to_string()).collect();
        super::is_only_time(&closing.join(" "))
            && !(closing.len() == 1
                && super::part_of_day(&closing).is_some()
                && !super::says_a_day(&closing[0]))
    };
    if let Some(k) = (1..words.len()).find(|&k| closing_time(k)) {
        end = offset_in(text, words[k]);
        words.truncate(k);
    }
    (!words.is_empty() && words.len() <= MOST_WORDS).then(|| (words.join(" "), end))
}

#[cfg(test)]
mod tests {
    use super::before_an_event;
    use chrono::Duration;

    fn read(request: &str) -> Option<(Duration, String)> {
        before_an_event(request).map(|b| (b.lead, b.event))
    }

    #[test]
    fn a_span_before_an_event_names_the_event_and_how_long_before() {
        assert_eq!(
            read("remind me an hour before the school play"),
            Some((Duration::hours(1), "school play".into()))
        );
        assert_eq!(
            read("two days before my passport expires, remind me at 10am to renew it"),
            Some((Duration::days(2), "passport expires".into()))
        );
        assert_eq!(
            read("remind me the day before Tom's birthday to buy a card"),
            Some((Duration::days(1), "tom's birthday".into()))
        );
        assert_eq!(
            read("remind me 30 mins before our vet - bring the lead"),
            Some((Duration::minutes(30), "vet".into()))
        );
    }

    #[test]
    fn the_day_of_an_event_is_no_time_before_it() {
        let anchored = before_an_event("remind me at 6am on the day of the marathon").unwrap();
        assert_eq!(anchored.lead, Duration::zero());
        assert_eq!(anchored.event, "marathon");
        assert!(anchored.rest.contains("at 6am"), "{}", anchored.rest);
    }

    #[test]
    fn a_day_named_by_an_event_is_the_day_of_it() {
        let moving =
            before_an_event("remind me at 7am on moving day to defrost the freezer").unwrap();
        assert_eq!(moving.lead, Duration::zero());
        assert_eq!(moving.event, "moving");
        assert_eq!(moving.said, "on moving day");
        assert!(moving.rest.contains("at 7am"), "{}", moving.rest);
        assert!(
            moving.rest.contains("defrost the freezer"),
            "{}",
            moving.rest
        );
        assert_eq!(
            read("on the open day, remind me to bring the banner"),
            Some((Duration::zero(), "open".into()))
        );
        // A day the time says, not an event.
        assert_eq!(read("remind me on the next day to ring back"), None);
        assert_eq!(read("remind me on monday to pay the day nursery"), None);
        assert_eq!(read("remind me on the day to bring cake"), None);
        assert_eq!(read("what did we do on that day"), None);
    }

    #[test]
    fn a_lead_opening_the_request_may_leave_its_the_off() {
        assert_eq!(
            read("day before the flight, 6pm, remind me to do the online check in"),
            Some((Duration::days(1), "flight".into()))
        );
        let night = before_an_event("night before mums appointment remind me at 8 to ring her");
        let night = night.unwrap();
        assert_eq!(
            (night.lead, night.event.as_str()),
            (Duration::days(1), "mums appointment")
        );
        assert!(night.rest.contains("night"), "{}", night.rest);
        // Inside a sentence, a day with no "the" leads nothing.
        assert_eq!(read("remind me every day before the school run"), None);
    }

    #[test]
    fn a_time_closing_the_event_is_the_reminders() {
        let anchored =
            before_an_event("day before the delivery at 18h remind me to prep the buckets")
                .unwrap();
        assert_eq!(anchored.event, "delivery");
        assert!(anchored.rest.contains("at 18h"), "{anchored:?}");
        assert_eq!(anchored.said, "day before the delivery");
        let anchored = before_an_event("remind me the evening before the quiz on friday").unwrap();
        assert_eq!(anchored.event, "quiz");
        // A name that only ends in a word of time keeps it, as does one
        // ending in a part of the day.
        let anchored = before_an_event("remind me an hour before the night market").unwrap();
        assert_eq!(anchored.event, "night market");
        let anchored =
            before_an_event("evening before the quiz night, 8pm, remind me to print the sheets")
                .unwrap();
        assert_eq!(anchored.event, "quiz night");
        let anchored = before_an_event("remind me an hour before the party tonight").unwrap();
        assert_eq!(anchored.event, "party");
    }

    #[test]
    fn a_part_of_an_events_day_is_its_day_at_that_part() {
        let fair = before_an_event("morning of the fair, 7am, remind me to fill the float tin");
        let fair = fair.unwrap();
        assert_eq!((fair.lead, fair.event.as_str()), (Duration::zero(), "fair"));
        assert!(
            fair.rest.contains("morning") && fair.rest.contains("7am"),
            "{}",
            fair.rest
        );
        assert_eq!(
            read("remind me on the evening of the party to bring the speaker"),
            Some((Duration::zero(), "party".into()))
        );
        assert_eq!(
            read("the day of the move, remind me to defrost the freezer"),
            Some((Duration::zero(), "move".into()))
        );
        // "of" after a word of no day is no event's day.
        assert_eq!(read("remind me what the cost of the fair was"), None);
        assert_eq!(read("remind me to ring the head of the school"), None);
    }

    #[test]
    fn before_with_no_span_or_a_sentence_after_it_is_no_event() {
        assert_eq!(read("remind me before I leave"), None);
        assert_eq!(read("remind me 10 minutes before we head out"), None);
        assert_eq!(read("ping me an hour before they land"), None);
        assert_eq!(read("remind me to lock up before the cleaner comes"), None);
        assert_eq!(read("what did I do before the holiday"), None);
        assert_eq!(
            read("remind me an hour before we finally go out for that long dinner with everyone from work"),
            None
        );
    }

    fn at(y: i32, m: u32, d: u32, h: u32, min: u32) -> chrono::DateTime<chrono::Local> {
        use chrono::TimeZone;
        chrono::Local.with_ymd_and_hms(y, m, d, h, min, 0).unwrap()
    }

    #[test]
    fn the_moment_is_the_memorys_less_the_lead_at_the_requests_own_time() {
        use crate::grounding::when::Stated;
        let now = at(2026, 12, 5, 10, 0);
        let play = "Maya's school play is on Thursday 17 December at 6pm in the hall.";
        let hour = before_an_event("remind me an hour before the school play").unwrap();
        assert_eq!(
            hour.moment(play, now),
            Some(Stated::At(at(2026, 12, 17, 17, 0)))
        );
        let morning = before_an_event("remind me at 7am on the day of the school play").unwrap();
        assert_eq!(
            morning.moment(play, now),
            Some(Stated::At(at(2026, 12, 17, 7, 0)))
        );
        // A day alone in the memory: the day, less the lead, at the time said.
        let expiry = "Passport expires on 20 January 2027.";
        let renew =
            before_an_event("two days before my passport expires, remind me at 10am to renew it")
                .unwrap();
        assert_eq!(
            renew.moment(expiry, now),
            Some(Stated::At(at(2027, 1, 18, 10, 0)))
        );
        // No time said: the day, to ask the time on.
        let card = before_an_event("remind me the day before the passport expires").unwrap();
        assert_eq!(
            card.moment(expiry, now),
            Some(Stated::Day(
                chrono::NaiveDate::from_ymd_opt(2027, 1, 19).unwrap()
            ))
        );
        // A memory with no time, or a moment gone by, gives none.
        assert_eq!(hour.moment("The school play is about pirates.", now), None);
        let past = "The school play was on 1 December 2026 at 6pm.";
        assert_eq!(hour.moment(past, now), None);
    }

    #[test]
    fn an_event_dated_on_several_days_is_due_before_each_still_ahead() {
        use super::EventMoment;
        use crate::grounding::when::Stated;
        let now = at(2026, 12, 5, 10, 0);
        let day = |m, d| chrono::NaiveDate::from_ymd_opt(2027, m, d).unwrap();
        let classes = "Life drawing classes at the arts centre: Tue 12 Jan and Tue 26 Jan 2027, 6.30pm to 8.30pm.";
        let before =
            before_an_event("the day before the drawing class, remind me at 5pm to book the model")
                .unwrap();
        assert_eq!(
            before.moments(classes, now),
            vec![
                EventMoment {
                    day: Some(day(1, 12)),
                    due: Stated::At(at(2027, 1, 11, 17, 0)),
                },
                EventMoment {
                    day: Some(day(1, 26)),
                    due: Stated::At(at(2027, 1, 25, 17, 0)),
                },
            ]
        );
        // With no time of the request's own, each day at the memory's.
        let hour = before_an_event("remind me an hour before the drawing class").unwrap();
        let dues: Vec<Stated> = hour.moments(classes, now).iter().map(|m| m.due).collect();
        assert_eq!(
            dues,
            vec![
                Stated::At(at(2027, 1, 12, 17, 30)),
                Stated::At(at(2027, 1, 26, 17, 30)),
            ]
        );
        // A day gone by is no choice; one day is no choice at all.
        let later = at(2027, 1, 20, 9, 0);
        assert_eq!(
            hour.moments(classes, later),
            vec![EventMoment {
                day: Some(day(1, 26)),
                due: Stated::At(at(2027, 1, 26, 17, 30)),
            }]
        );
        let once = "Life drawing class on Tue 12 Jan 2027 at 6.30pm.";
        assert_eq!(
            hour.moments(once, now),
            vec![EventMoment {
                day: None,
                due: Stated::At(at(2027, 1, 12, 17, 30)),
            }]
        );
    }

    #[test]
    fn a_part_of_the_day_before_is_a_day_before_at_that_part() {
        let anchored =
            before_an_event("remind me the evening before the ferry to pack the bags").unwrap();
        assert_eq!(anchored.lead, Duration::days(1));
        assert_eq!(anchored.event, "ferry");
        assert_eq!(anchored.said, "the evening before the ferry");
        let now = at(2026, 6, 1, 10, 0);
        let due = anchored.moment("Ferry to Bilbao on Saturday 13 June at 08:30", now);
        assert_eq!(due, Some(super::Stated::At(at(2026, 6, 12, 18, 0))));
        // Its own time of day wins over the part's.
        let anchored = before_an_event("remind me at 9pm the night before the ferry").unwrap();
        let due = anchored.moment("Ferry to Bilbao on Saturday 13 June at 08:30", now);
        assert_eq!(due, Some(super::Stated::At(at(2026, 6, 12, 21, 0))));
    }

    #[test]
    fn the_rest_keeps_a_time_of_day_and_drops_the_span() {
        let anchored =
            before_an_event("a week before the nct is due, remind me at 9am to book it").unwrap();
        assert_eq!(anchored.lead, Duration::weeks(1));
        assert_eq!(anchored.event, "nct is due");
        assert!(!anchored.rest.contains("week"), "{}", anchored.rest);
        assert!(anchored.rest.contains("at 9am"), "{}", anchored.rest);
        assert_eq!(anchored.said, "a week before the nct is due");
    }
}
