//! When a reminder is due, settled before the model starts: a time the
//! user's words leave unsaid is asked; a reminder set against an event
//! the memories hold ("an hour before the christmas concert", "a week
//! before the nct is due, at 9am") is due at the event's moment less the
//! lead, the event found among the memories that name it and say when it
//! is, and asked about when several do. Nothing found leaves the time
//! unsaid, and it is asked.

use crate::grounding;
use crate::grounding::plan::{self, Topic};
use crate::grounding::reference::{self, Candidate, MAX_OPTIONS, SEARCH_LIMIT};
use crate::grounding::when::{self, EventMoment, Stated};
use crate::grounding::{Need, Resolved};
use crate::meaning::search::CLEAR_LEAD;
use crate::replies::on_a_day::EVENT_FOUND;
use crate::replies::run::{Interrupt, Run};
use crate::store::{Memory, MemoryQuery};
use crate::tools::{ASK_USER, REMIND};

impl Run {
    /// When the request sets its reminder against an event a memory
    /// dates, that moment becomes the user's words' time (see
    /// [`crate::grounding::UserWords::when`]). A restored reply reads it
    /// again, its question about which one settled already.
    async fn settle_the_event(&mut self) -> Result<(), Interrupt> {
        let Some(anchor) = when::before_an_event(self.talk.request()) else {
            return Ok(());
        };
        let projects = self.recent_projects().await;
        let topic = Topic::of(&anchor.event, &projects);
        if topic.is_empty() {
            return Ok(());
        }
        let now = self.env.clock.now();
        // "half an hour before the appointment on the 14th": the memories
        // that say the 14th are what it may be.
        let dated = match self.on_the_day_named(&anchor.event, None, &topic).await {
            Some(on_the_day) if !on_the_day.is_empty() => on_the_day
                .into_iter()
                .flat_map(|(m, _)| dated_by(&anchor, m, now))
                .collect(),
            _ => self.named_events(&anchor, &topic, now).await,
        };
        let moment = match dated.as_slice() {
            [] => return Ok(()),
            [(_, moment)] => moment.due,
            _ => match self.which_event(&anchor.event, &dated).await? {
                Some(moment) => moment,
                None => return Ok(()),
            },
        };
        tracing::info!(reply = %self.reply.id, event = %anchor.event, ?moment, "a reminder set against an event the memories date");
        self.talk.set_event(moment);
        Ok(())
    }

    /// The memories that say when the `anchor`'s event is, still ahead:
    /// those that name it, and those near it in meaning
    /// ([`Self::events_by_meaning`]).
    async fn named_events(
        &self,
        anchor: &when::BeforeEvent,
        topic: &Topic,
        now: chrono::DateTime<chrono::Local>,
    ) -> Vec<(Memory, EventMoment)> {
        let query = MemoryQuery {
            query: topic.words().join(" "),
            limit: Some(SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        let hits = match self.reply.store.search_memories(query).await {
            Ok(hits) => hits,
            Err(error) => {
                tracing::warn!(%error, "could not search the memories for the event");
                return Vec::new();
            }
        };
        // The memories that name the event and say when it is, still ahead.
        let mut dated: Vec<(Memory, EventMoment)> = hits
            .into_iter()
            .filter(|m| topic.named_in(&m.content))
            // "collects the kids from school on Thursdays" comes back every
            // week: no one event to set a reminder against.
            .filter(|m| when::recurrence(&m.content).is_none())
            .flat_map(|m| dated_by(anchor, m, now))
            .collect();
        // And those that are the event in other words ("the family
        // programme" is a funeral and an engagement, "the flight comes in"
        // two arrivals): a dated memory as near in meaning as the nearest
        // is one more it may be.
        let named: Vec<i64> = dated.iter().map(|(m, _)| m.id).collect();
        for (memory, moment) in self.events_by_meaning(anchor, now).await {
            if !named.contains(&memory.id) {
                dated.push((memory, moment));
            }
        }
        dated
    }

    /// The memories that say when one event ahead is, nearest in meaning
    /// to the `anchor`'s event: those at least [`EVENT_FOUND`] and within
    /// [`CLEAR_LEAD`] of the nearest. None with finding by meaning off.
    async fn events_by_meaning(
        &self,
        anchor: &when::BeforeEvent,
        now: chrono::DateTime<chrono::Local>,
    ) -> Vec<(Memory, EventMoment)> {
        let meaning = &self.env.meaning;
        if !meaning.is_on() {
            return Vec::new();
        }
        let query = MemoryQuery {
            query: anchor.event.clone(),
            limit: Some(SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        let findings = match meaning.search(&self.reply.store, query).await {
            Ok(findings) => findings,
            Err(error) => {
                tracing::warn!(%error, "could not search the memories for the event by meaning");
                return Vec::new();
            }
        };
        let dated: Vec<(Vec<(Memory, EventMoment)>, f32)> = findings
            .found
            .into_iter()
            .filter(|found| when::recurrence(&found.memory.content).is_none())
            .filter_map(|found| {
                let similarity = found.similarity?;
                let moments = dated_by(anchor, found.memory, now);
                (!moments.is_empty()).then_some((moments, similarity))
            })
            .collect();
        let best = dated.iter().map(|d| d.1).fold(f32::MIN, f32::max);
        tracing::debug!(reply = %self.reply.id, event = %anchor.event, best, dated = ?dated.iter().map(|d| (d.0[0].0.id, d.1)).collect::<Vec<_>>(), "events by meaning");
        dated
            .into_iter()
            .filter(|(_, similarity)| *similarity >= EVENT_FOUND && *similarity > best - CLEAR_LEAD)
            .flat_map(|(moments, _)| moments)
            .collect()
    }

    /// Asks which of the `dated` events is meant (and on which day, for a
    /// memory that dates it on several): the chosen one's moment, or
    /// `None` when no answer came.
    async fn which_event(
        &mut self,
        event: &str,
        dated: &[(Memory, EventMoment)],
    ) -> Result<Option<Stated>, Interrupt> {
        if !self.talk.offers(ASK_USER) {
            return Ok(None);
        }
        let dated = &dated[..dated.len().min(MAX_OPTIONS)];
        let memories: Vec<Memory> = dated.iter().map(|(m, _)| m.clone()).collect();
        let candidates: Vec<Candidate> = reference::distinct_candidates(&memories)
            .into_iter()
            .zip(dated)
            .map(|(candidate, (memory, moment))| match moment.day {
                Some(day) => Candidate {
                    label: reference::label_on(memory, day),
                    ..candidate
                },
                None => candidate,
            })
            .collect();
        let one_memory = memories.iter().all(|m| m.id == memories[0].id);
        let question = if one_memory {
            format!("Which day do you mean for “{event}”?")
        } else {
            format!("Which one do you mean by “{event}”?")
        };
        let need = Need::Reference {
            question,
            phrase: event.to_string(),
            candidates: candidates.clone(),
        };
        let now = self.env.clock.now();
        let chosen = match self.ask_for(&need).await? {
            // The option by its label; a memory settled by an earlier
            // question of this reply by its lines.
            Some(Resolved::Memory {
                label, memories, ..
            }) => candidates
                .iter()
                .position(|c| c.label == label)
                .or_else(|| candidates.iter().position(|c| c.memories == memories)),
            // "the 30th", "saturday the 16th": the day the answer names.
            Some(Resolved::Meant(words)) => when::stated(&words, now).and_then(|said| {
                dated
                    .iter()
                    .position(|(_, moment)| moment.day == Some(said.day()))
            }),
            _ => None,
        };
        Ok(chosen.map(|i| dated[i].1.due))
    }

    /// A reminder asked for with no time in the user's words: Imprint asks
    /// when before the model starts (the model's `remind` call then runs
    /// at the answer; see [`grounding::check`]).
    pub(super) async fn settle_the_time(&mut self) -> Result<Option<String>, Interrupt> {
        if !self.talk.offers(ASK_USER) || !self.talk.offers(REMIND) {
            return Ok(None);
        }
        // What to remind of never came: when is no question.
        if self.settling.reference_unknown() {
            return Ok(None);
        }
        // A planned reply asks when only for a reminder: "remind me what
        // my national insurance number is" is a question.
        let remind = match self.policy.judged() {
            Some(kind) => kind == crate::meaning::route::Routed::Remind,
            None => plan::classify(self.talk.request()).kind == plan::Kind::Remind,
        };
        if self.env.planned && !remind {
            return Ok(None);
        }
        self.settle_the_event().await?;
        let words = self.talk.user_words(self.policy.judged_writes());
        let Some(need) = grounding::unstated_time(&words, self.env.clock.now()) else {
            return Ok(None);
        };
        let note = match self.ask_for(&need).await? {
            Some(time) => {
                // Left for the `remind` call to take, so its result says
                // who chose too.
                let who = if self.questions.imprint_chose() {
                    "the user left it to you, and Imprint took"
                } else {
                    "the user said"
                };
                format!(
                    "Imprint asked when to remind; {who} {}; say so. Call remind with that time.",
                    time.describe()
                )
            }
            None => "Imprint asked when to remind, and the user did not say: set no reminder, and tell the user they can tell you when.".to_string(),
        };
        Ok(Some(note))
    }
}

/// Each day `memory` dates the `anchor`'s event on, with when the
/// reminder is due for it.
fn dated_by(
    anchor: &when::BeforeEvent,
    memory: Memory,
    now: chrono::DateTime<chrono::Local>,
) -> Vec<(Memory, EventMoment)> {
    anchor
        .moments(&memory.content, now)
        .into_iter()
        .map(|moment| (memory.clone(), moment))
        .collect()
}
