//! A planned question about the user's things: answered from the
//! memories about it, said to have none, or left to general knowledge.
//! How the memories are found is in `finding`; the project list and an
//! act Imprint has no tool for are in `acts`.

use crate::grounding::plan::claims::{capitalized_names, lone_names};
use crate::grounding::plan::{self, Topic};
use crate::grounding::reference::{self, MAX_OPTIONS};
use crate::meaning::route::{Route, Routed};
use crate::meaning::search::{Findings, CLEAR_LEAD, FOUND, STRONG, VOUCHED};
use crate::models::{note, ChatMessage};
use crate::replies::asking::Which;
use crate::replies::own_answer;
use crate::replies::run::{Interrupt, Run};
use crate::tools::run::{memory_line, MemoryLine};

/// Memories the answer step reads at most.
pub(super) const READ_LIMIT: usize = 5;

/// The classifier's probability for a read at which a question nothing of
/// the user's names is still the user's own, and said to be not found
/// rather than answered by the model. Measured on the clear requests of
/// fresh sets 5–12 (session 23): general questions it read as the user's
/// scored at most 0.39.
const OWN_FLOOR: f32 = 0.45;

/// The classifier's probability for a read under [`OWN_FLOOR`] at which a
/// question is still the user's own when general knowledge is not its
/// runner-up within half of it ("when does the tractor insurance expire",
/// "how much are the term fees": a read at 0.34–0.41, the rest spread
/// over saves and acts). Answered by the model, such questions got an
/// invented date or sum. Measured with `examples/eval_personal.rs` on
/// fresh sets 1–25 (session 37), questions whose words say nothing of the
/// user's: at [`OWN_FLOOR`] alone 45 of 790 questions about the user's
/// own things read as theirs and 1 of 198 general ones; with this, 113
/// and 2 ("how often should a gas boiler be serviced normally?", said to
/// be not found only when no memory is near it).
const LEANS_OWN: f32 = 0.3;

/// The classifier's probability for general knowledge at which a question
/// whose words say nothing of the user's is general, though a name in it
/// is one the memories hold ("which ocean is durban on?" with a Durban
/// trip saved) or a memory shares some of its meaning: unless a memory is
/// near enough to vouch for ([`VOUCHED`]). Measured with
/// `examples/eval_personal.rs` on fresh sets 1–13 (session 25), with no
/// word of the user's and the best memory under 0.6: at 0.40 it reads 84
/// of 102 general questions as general and 2 of 378 questions about the
/// user's own things; at 0.45, 81 and the same 2; at 0.35, 89 and 5.
const GENERAL_FLOOR: f32 = 0.40;

/// The classifier's probability of small talk at which a remark that asks
/// nothing is small talk ([`MeaningRead::remarks_in_passing`]). The small
/// talk of fresh sets 1–22 it read so scored 0.27–0.89; each under 0.3
/// greeted in another language and asked how it's going.
const REMARK_FLOOR: f32 = 0.3;

/// The classifier's probability for general knowledge at which a
/// question is general though a memory holds every name in it, when its
/// words say nothing of the user's ("my", "his"). Measured with
/// `examples/eval_personal.rs` on fresh sets 1–15 (session 26): no
/// question about the user's own things scored over 0.69 ("is there any
/// fruit maja can't have?"); two general questions naming a saved place
/// or medicine scored 0.78 and 0.82.
const SURELY_GENERAL: f32 = 0.75;

/// How a question says it is about the user's own things.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Whose {
    /// Nothing in it says so.
    Unsaid,
    /// It names someone or something the memories hold ("Theo", "durban").
    Named,
    /// Its words say so ("my", "his", a project, a follow-up, the memory
    /// the user chose).
    Said,
    /// It asks for a detail people keep about their own things ("the
    /// booking ref for the car hire"): never the model's to make up.
    Kept,
}

impl Run {
    /// A question: answered from the memories about it, or said to have
    /// none when it is about the user's own things, or else the model's
    /// general knowledge.
    pub(super) async fn question(&mut self) -> Result<(), Interrupt> {
        if self.settling.reference_unknown() {
            self.say("I couldn't tell what you meant, so I looked nothing up. Tell me its name, and I'll look again.").await;
            return Ok(());
        }
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects);
        // What the user said a reference means ("Anna" for "her") is what
        // to look up.
        // Before the question, so what it asks stays whole.
        let words = match self.settling.meant() {
            Some(meant) => format!("{meant}: {}", plan::asked_part(self.talk.request())),
            None => self.talk.request().to_string(),
        };
        let naming = self.asked_words_the_memories_name(&words).await;
        let mut topic = Topic::of_naming(&words, &projects, &naming);
        // "and Dana's?", "what's his number then": a follow-up leans on
        // the question before it.
        let carried = self.previous_request().and_then(|before| {
            topic.following(self.talk.request(), &Topic::of(&before, &projects))
        });
        let follows = carried.is_some();
        tracing::debug!(reply = %self.reply.id, ?topic, "the question's topic");
        if let Some(carried) = carried {
            tracing::info!(reply = %self.reply.id, ?carried, "a follow-up: the topic leans on the question before");
            topic = carried;
        }
        // The memory the user chose from Imprint's options, or the one
        // match its lookup found, is what the request is about.
        let chosen = self.chosen_memories();
        // "anything on fri the 18th?": nothing named but the day; what
        // the memories say of that day is the answer.
        if topic.is_empty()
            && topic.asked.is_empty()
            && chosen.is_empty()
            && !follows
            && project.is_none()
            && crate::replies::on_a_day::asks_what_is_on(self.talk.request())
        {
            let now = self.env.clock.now();
            if let Some(day) = crate::replies::on_a_day::day_stated(self.talk.request(), now) {
                return self.what_is_on(day).await;
            }
        }
        let said = plan::is_personal(self.talk.request())
            || follows
            || project.is_some()
            || !chosen.is_empty();
        let mut personal = said;
        // Memories near enough in meaning to answer when the model picks
        // one, though the request's words are not theirs.
        let mut vouched = Vouched::default();
        let mut meaning_read = None;
        let (found, chosen) = if chosen.is_empty() {
            let mut found = self.search(&topic, project.clone()).await;
            // "whats my dentsit's number": the word the memories hold.
            if found.is_empty() && personal {
                if let Some(respelt) = self.respelt(&words, &topic).await {
                    let topic_respelt = Topic::of(&respelt, &projects);
                    found = self.search(&topic_respelt, project.clone()).await;
                    if !found.is_empty() {
                        tracing::info!(reply = %self.reply.id, %respelt, "read with its words respelt as the memories spell them");
                        topic = topic_respelt;
                    }
                }
            }
            // "¿Cuál es el número de la escuela de Theo?": a name the
            // memories hold makes it the user's own, in any language.
            if found.is_empty() && !personal {
                let names: Vec<String> = capitalized_names(self.talk.request(), false)
                    .iter()
                    .map(|n| n.to_lowercase())
                    .collect();
                if !names.is_empty() {
                    found = self.search(&Topic::of_names(names), project.clone()).await;
                }
            }
            // Typed in lower case ("what blood group is kadi?" with Dad's
            // blood group saved): a naming word the memories write as a
            // name, when what the words found names no one; its memories
            // are what the question is about.
            let request = self.talk.request();
            if !personal
                && capitalized_names(request, false).is_empty()
                && !found.iter().any(|line| names_someone_in(request, line))
            {
                // A word the memories found already hold is theirs to
                // answer: "the order ref for the louga sign" with the
                // sign's memory found is not every memory saying "Louga".
                let held_by_found = |name: &String| {
                    found.iter().any(|line| {
                        MemoryLine::read(line).is_some_and(|m| {
                            Topic::of_names(vec![name.clone()]).names_held(&m.named_text()) > 0
                        })
                    })
                };
                let unheld: Vec<String> = topic
                    .names
                    .iter()
                    .filter(|n| !held_by_found(n))
                    .cloned()
                    .collect();
                for name in &unheld {
                    let by_name = self
                        .search(&Topic::of_names(vec![name.clone()]), project.clone())
                        .await;
                    if by_name
                        .iter()
                        .any(|line| names_someone_in(self.talk.request(), line))
                    {
                        found = by_name;
                        break;
                    }
                }
            }
            if !personal
                && found
                    .iter()
                    .any(|line| names_someone_in(self.talk.request(), line))
            {
                tracing::info!(reply = %self.reply.id, "the request names someone the memories know");
                personal = true;
            }
            let whose = match (said, personal) {
                (true, _) if plan::asks_a_kept_detail(self.talk.request()) => Whose::Kept,
                (true, _) => Whose::Said,
                (false, true) => Whose::Named,
                (false, false) => Whose::Unsaid,
            };
            // A general question ("the boiling point of water") is not
            // answered by a memory that shares one of its words ("Water:
            // Severnside account"): most of what it names must be held.
            if !personal {
                found.retain(|line| {
                    MemoryLine::read(line)
                        .is_some_and(|m| 2 * topic.score(m.content) > topic.runs.len())
                });
            }
            // What it asks, not the story told around it ("dad worked in
            // osaka…, whats the capital of japan").
            meaning_read = self
                .by_meaning(plan::asked_part(&words), project.clone(), follows)
                .await;
            if let Some(meant) = &meaning_read {
                vouched.ids = meant.strong_ids();
                let nearest = meant
                    .clearly_nearest()
                    .or_else(|| meant.nearest_told_apart_by_words(&topic));
                vouched.clearly_nearest = match nearest {
                    Some(nearest) => {
                        let content = meant
                            .findings
                            .found
                            .iter()
                            .find(|f| f.memory.id == nearest.id)
                            .map(|f| f.memory.content.clone())
                            .unwrap_or_default();
                        Some(Nearest {
                            thing_near: self.names_the_thing(&topic, nearest.id, &content).await,
                            ..nearest
                        })
                    }
                    None => None,
                };
                vouched.asks_an_amount = plan::asked_part(self.talk.request())
                    .to_lowercase()
                    .contains("how much");
                vouched.asks_when = asks_when(self.talk.request()).then(|| self.env.clock.now());
                // "what time's the appointment on the 14th?": the memories
                // that say the 14th are what it may be about.
                let on_the_day = match vouched.asks_when {
                    Some(_) => {
                        let request = self.talk.request();
                        self.on_the_day_named(request, Some(&meant.findings), &topic)
                            .await
                    }
                    None => None,
                };
                match on_the_day.as_deref() {
                    // One that day names it, or is near enough in meaning
                    // to be it in other words.
                    Some([(one, similarity)])
                        if topic.names_held(&one.content) > 0
                            || *similarity >= crate::replies::on_a_day::EVENT_FOUND =>
                    {
                        tracing::info!(reply = %self.reply.id, "the one memory that says the day asked");
                        let found = [memory_line(one)];
                        return self.answer_from(&found, &topic, true, true, &vouched).await;
                    }
                    Some(several @ [_, _, ..]) => {
                        let several: Vec<crate::store::Memory> =
                            several.iter().map(|(m, _)| m.clone()).collect();
                        let mut candidates = reference::distinct_candidates(&several);
                        candidates.truncate(MAX_OPTIONS);
                        let phrase = topic.phrase(self.talk.request());
                        tracing::info!(reply = %self.reply.id, options = candidates.len(), "several memories say the day asked: asking which");
                        let question = "Which one do you mean?".to_string();
                        if let Some(memories) = self
                            .ask_which_memory(question, phrase, candidates)
                            .await?
                            .and_then(Which::chosen)
                        {
                            self.settled_by(&memories);
                            return self
                                .answer_from(&memories, &topic, true, true, &vouched)
                                .await;
                        }
                    }
                    _ => {}
                }
                let judged = if meant.remarks_in_passing(self.talk.request()) {
                    Judged::SmallTalk
                } else {
                    meant.judge(found.is_empty(), whose)
                };
                match judged {
                    Judged::Found(lines) => {
                        tracing::info!(reply = %self.reply.id, "found by meaning");
                        // "what does warfarin actually do in the body?"
                        // with Dad's warfarin saved: if none of these
                        // answers, it is general knowledge.
                        vouched.general_if_none = !personal && meant.classified_general();
                        found = lines;
                        personal = true;
                        vouched.meaning_only = true;
                    }
                    // "what's the name of the teacher?" with the kids'
                    // teachers saved: a memory holding all it names keeps
                    // it the user's, however general it reads; "the
                    // capital of Australia" names more than an Australia
                    // trip holds.
                    // "what's benachin?" with "lunch: benachin from Mam
                    // Sai" saved: a memory that only names the thing does
                    // not say what it is.
                    Judged::General
                        if !meant.general_though_named(whose)
                            && found.iter().any(|line| {
                                holds_all_it_asks(line, &topic, whose)
                                    && says_what_it_is(self.talk.request(), line)
                            }) =>
                    {
                        tracing::info!(reply = %self.reply.id, "reads as general, but a memory holds all it names: the user's");
                        personal = true;
                    }
                    Judged::General => {
                        tracing::info!(reply = %self.reply.id, "general: the memories hold nothing near it, and it reads as general");
                        return self.general(true).await;
                    }
                    Judged::SmallTalk => {
                        tracing::info!(reply = %self.reply.id, "small talk, by the examples");
                        return self.general(false).await;
                    }
                    Judged::AsFound => {
                        // The words found other memories than the one
                        // clearly nearest in meaning ("when do we hand the
                        // calendars over to adinkra?" found the church's
                        // envelopes "handed in at the door"): it is offered
                        // first, and stands as a pick of it would.
                        if let Some(line) = meant.clearly_nearest_unfound(&found) {
                            tracing::info!(reply = %self.reply.id, "the memory clearly nearest in meaning, which the words missed, joins them");
                            found.insert(0, line);
                        }
                    }
                }
            }
            (found, false)
        } else {
            (chosen, true)
        };
        // "how much was the quote for the gate motor?": nothing of the
        // user's names it, and it says no "my"; but read as the user's own
        // by the examples, sure enough, it is not the model's to answer.
        let read_as_own = meaning_read
            .as_ref()
            .is_some_and(MeaningRead::classified_own);
        if found.is_empty() {
            if personal || read_as_own {
                self.say(&nothing_found(&topic, self.talk.request())).await;
                return Ok(());
            }
            return self.general(true).await;
        }
        if topic.is_empty() && !chosen && !vouched.meaning_only {
            // A project named and nothing asked of it ("my notes from the
            // Website project"): its newest memories are the answer.
            self.say(&own_answer::from_found(&found.join("\n"))).await;
            return Ok(());
        }
        // Two things of the user's fit the question equally: which one?
        if let (false, Some(read)) = (chosen, &meaning_read) {
            match self.which_is_meant(&read.findings, &found, &topic).await? {
                Some(Which::Chosen(memories)) => {
                    return self
                        .answer_from(&memories, &topic, true, true, &vouched)
                        .await;
                }
                // "the print files to nordtryk" to "which deadline?": a
                // thing the options were not, found by the answer's words.
                Some(Which::Meant(words)) => {
                    if let Some(memories) = self.meant_instead(&words, project.clone()).await {
                        self.settled_by(&memories);
                        return self
                            .answer_from(&memories, &topic, true, true, &vouched)
                            .await;
                    }
                }
                None => {}
            }
        }
        // The words found them alike: the model, which leans to the first
        // it is offered, sees the nearest in meaning first ("what does
        // mama take for her sugar": her medicines before her carer).
        let found = match (&meaning_read, chosen) {
            (Some(read), false) => read.nearest_first(found),
            _ => found,
        };
        // Whose it is, by meaning: read as the user's own by the examples,
        // or found by its words and near enough in meaning to vouch for
        // ("what time is amma siggas eye op" and her cataract operation):
        // a pick that falls short is not the model's to answer from what
        // it knows, which cannot be the user's appointment.
        let personal = personal
            || read_as_own
            || found
                .iter()
                .any(|line| MemoryLine::read(line).is_some_and(|m| vouched.ids.contains(&m.id)));
        self.answer_from(&found, &topic, personal, chosen, &vouched)
            .await
    }

    /// The memories the answer to "Which one do you mean?" names when it
    /// named none of the options ("the print files to nordtryk" to "which
    /// deadline?"): found by its words and naming all it names. `None`
    /// when its words name nothing kept ("the cheaper one").
    async fn meant_instead(
        &mut self,
        answer: &str,
        project: Option<String>,
    ) -> Option<Vec<String>> {
        let meant = Topic::of(answer, &[]);
        let found: Vec<String> = self
            .search(&meant, project)
            .await
            .into_iter()
            .filter(|line| MemoryLine::read(line).is_some_and(|m| meant.named_in(&m.named_text())))
            .collect();
        tracing::info!(reply = %self.reply.id, found = found.len(), "the answer named none of the options: looked up by its words");
        (!found.is_empty()).then_some(found)
    }

    /// The memories that say `day`, or that none does.
    async fn what_is_on(&mut self, day: chrono::NaiveDate) -> Result<(), Interrupt> {
        let memories = self.memories_on(day).await;
        tracing::info!(reply = %self.reply.id, %day, found = memories.len(), "a day asked about, and nothing else named");
        let text = if memories.is_empty() {
            format!(
                "I found nothing on {} in your memories.",
                day.format("%A %-d %B")
            )
        } else {
            let lines: Vec<String> = memories.iter().map(memory_line).collect();
            own_answer::from_found(&lines.join("\n"))
        };
        self.say(&text).await;
        Ok(())
    }

    /// The words of `request` that would say what is asked but which a
    /// memory holds as part of a thing's name, with the word beside them
    /// ("cell" of "when is ama's sickle cell review" with "Ama's sickle
    /// cell review…" kept): the user's own name for the thing asks no
    /// phone number.
    async fn asked_words_the_memories_name(&self, request: &str) -> Vec<String> {
        let mut naming = Vec::new();
        for (word, phrases) in plan::asked_words_running_into_a_name(request) {
            for phrase in phrases {
                if let Ok(true) = self.reply.store.holds_phrase(phrase.to_vec()).await {
                    naming.push(word);
                    break;
                }
            }
        }
        naming
    }

    /// True when the words naming the thing `topic` asks about that
    /// memory `id` (its `content`) does not hold, whose it is left out,
    /// are at least [`THING_NEAR`] to it in meaning.
    async fn names_the_thing(&self, topic: &Topic, id: i64, content: &str) -> bool {
        // The words it does not hold must be near it: "wedding" of "the
        // photographer for sena's wedding" is held by the wedding's
        // memory, which says nothing of a photographer.
        let thing: Vec<&str> = topic
            .names_not_held(content)
            .into_iter()
            .filter(|name| !topic.owners.contains(name))
            .map(String::as_str)
            .collect();
        if thing.is_empty() {
            return false;
        }
        let meaning = &self.env.meaning;
        match meaning.embed_one(&thing.join(" ")).await {
            Ok(vector) => meaning
                .similarity_of(id, &vector)
                .is_some_and(|similarity| similarity >= THING_NEAR),
            Err(_) => false,
        }
    }

    /// The memories Imprint's lookup settled the request by: the one the
    /// user chose from its options, or the one match it found.
    pub(super) fn chosen_memories(&self) -> Vec<String> {
        self.policy
            .settled_memories()
            .map(|text| {
                text.lines()
                    .filter(|l| MemoryLine::read(l).is_some())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The user's request before this one in the conversation, if any
    /// (not an answer to a question, nor Imprint's notes).
    pub(in crate::replies) fn previous_request(&self) -> Option<String> {
        let before = self.talk.messages().len().checked_sub(1)?;
        self.talk.messages()[..before]
            .iter()
            .rev()
            .find_map(|message| match message {
                ChatMessage::User(text)
                    if !note::is_note(text) && !self.talk.answers().contains(text) =>
                {
                    Some(text.clone())
                }
                _ => None,
            })
    }
}

/// What finding by meaning vouches for, for the answer step.
#[derive(Debug, Default)]
pub(super) struct Vouched {
    /// Memories at least [`VOUCHED`] in meaning: the model's pick of one
    /// stands though the request does not name the thing as the memory
    /// does ("how much are we paying the painter" and "Painter (Dobrev
    /// Decor) agreed £2,350"); what is asked must still be in it.
    pub ids: Vec<i64>,
    /// The memories to answer from were found by meaning alone: one the
    /// model does not pick is no answer, and is not shown as the closest
    /// (a near miss in meaning is someone else's thing, not a hint).
    pub meaning_only: bool,
    /// The request says nothing of the user's ("my", a name) and the
    /// classifier reads it as general knowledge: when no memory found
    /// answers, general knowledge does, not "I found nothing".
    pub general_if_none: bool,
    /// The memory nearest in meaning, when it is at least [`CLEAR_FLOOR`]
    /// and leads every other by [`CLEAR_LEAD`], or when the request's
    /// words tell it from the next nearest
    /// ([`MeaningRead::nearest_told_apart_by_words`]): the thing asked about in
    /// other words ("Kari's band plays a gig on Saturday" for "kari's
    /// concert", "The clinic's account at Islandsbanki" for "the clinic
    /// bank account"). The model's pick of it stands though the request's
    /// head word is not in it, when it holds whose the thing is and what
    /// is asked.
    pub clearly_nearest: Option<Nearest>,
    /// The question asks how much ("how much did the plumber charge"):
    /// the memory clearly nearest answers only with an amount in it, not
    /// the plumber's phone number.
    pub asks_an_amount: bool,
    /// The question asks when ("when is my next dentist appointment?"),
    /// read at this moment: the memory clearly nearest answers only with
    /// a day or a time in it, not the dentist's phone number.
    pub asks_when: Option<chrono::DateTime<chrono::Local>>,
}

/// True when the part of `request` that asks opens with "when" or asks
/// "what time" or "what day" ("what time's the lunch?" too).
fn asks_when(request: &str) -> bool {
    let asked = plan::asked_part(request).to_lowercase();
    let words = imprint_text::words::plain(&asked);
    let plain = |w: &str| w.strip_suffix("'s").unwrap_or(w).to_string();
    words.first().is_some_and(|w| {
        w.strip_suffix("'s")
            .or_else(|| w.strip_suffix('s'))
            .unwrap_or(w)
            == "when"
    }) || words.windows(2).any(|w| {
        matches!(w[0].as_str(), "what" | "which")
            && matches!(plain(&w[1]).as_str(), "time" | "day" | "date")
    })
}

/// The memory clearly nearest in meaning ([`Vouched::clearly_nearest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Nearest {
    pub id: i64,
    /// It leads every other by [`WIDE_LEAD`]: no other memory is a near
    /// miss, so half the request's naming words name it ("number for the
    /// neighbour who fetches the twins from school" and "Mrs Boakye next
    /// door picks the twins up from school"), not all but one.
    pub far_ahead: bool,
    /// The words naming the thing, whose it is left out ("carpenter
    /// given" of "how much have we already given the carpenter"), are
    /// at least [`THING_NEAR`] to it in meaning: it is that thing in
    /// other words ("we gave him Le 8,000 up front").
    pub thing_near: bool,
}

/// How near in meaning the words naming the thing must be to the memory
/// clearly nearest for it to name the thing though it holds few of them.
/// Measured with `examples/eval_nearest.rs` on the read and not-found
/// questions of fresh sets 1–21 (session 32; 497 reads, 152 not found):
/// beside all but one naming word held, it answered 301 reads (282
/// without), 6 wrong (5), and was near that way for 34 not-found
/// questions (29), which whose it is and the kind of detail asked turn
/// away. At 0.4: 297, 6 and 34.
pub const THING_NEAR: f32 = 0.3;

/// How near in meaning the nearest memory must be to be the thing asked
/// about in other words. Measured with `examples/eval_nearest.rs` on the
/// read and not-found questions of fresh sets 1–17 (session 28; 377
/// reads, 117 not found): a nearest memory at 0.45 or more leading by
/// [`CLEAR_LEAD`] answered 241 reads and was wrong for 5; it was near
/// that way for 25 not-found questions, which what it must hold (whose,
/// the kind of detail, the naming words) turns away. At 0.6 (the floor
/// before): 190, 2 and 11.
pub const CLEAR_FLOOR: f32 = 0.45;

/// A lead at which no other memory is a near miss ([`Nearest::far_ahead`]).
/// Measured as [`CLEAR_FLOOR`]: at 0.45 and a lead of 0.2 the nearest
/// answered 188 reads, was wrong for 2, and was that near for 13
/// not-found questions (among them eight asking a phone number, an amount
/// or someone's own thing the memory does not hold).
pub const WIDE_LEAD: f32 = 0.2;

/// A question's memories found by meaning, and its route.
pub(super) struct MeaningRead {
    pub(super) findings: Findings,
    /// What the nearest examples say.
    pub(super) route: Option<Route>,
    /// What the classifier over all the examples says.
    pub(super) classified: Option<Route>,
}

/// What finding by meaning makes of a question.
#[derive(Debug, PartialEq)]
enum Judged {
    /// These memories answer it (the words' search found none).
    Found(Vec<String>),
    /// It is general knowledge: nothing of the user's is near it.
    General,
    /// A greeting, thanks or chit-chat the rules did not know.
    SmallTalk,
    /// The words' search stands.
    AsFound,
}

impl MeaningRead {
    /// The memories found by meaning, nearest first, with their
    /// similarity.
    fn by_meaning(&self) -> Vec<(&crate::store::Memory, f32)> {
        let mut ranked: Vec<(&crate::store::Memory, f32)> = self
            .findings
            .found
            .iter()
            .filter_map(|f| Some((&f.memory, f.similarity?)))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked
    }

    /// `found` (search lines) ordered nearest in meaning first; those
    /// with no similarity keep their order, after the rest.
    fn nearest_first(&self, mut found: Vec<String>) -> Vec<String> {
        let similarity = |line: &String| {
            MemoryLine::read(line).and_then(|m| {
                self.findings
                    .found
                    .iter()
                    .find(|f| f.memory.id == m.id)
                    .and_then(|f| f.similarity)
            })
        };
        found.sort_by(|a, b| match (similarity(a), similarity(b)) {
            (Some(a), Some(b)) => b.total_cmp(&a),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        found
    }

    /// The memory nearest in meaning when it is at least [`CLEAR_FLOOR`]
    /// and leads every other by [`CLEAR_LEAD`].
    fn clearly_nearest(&self) -> Option<Nearest> {
        match self.by_meaning().as_slice() {
            [(nearest, best), rest @ ..] if *best >= CLEAR_FLOOR => {
                let lead = rest.first().map_or(1.0, |(_, next)| best - next);
                (lead >= CLEAR_LEAD).then_some(Nearest {
                    id: nearest.id,
                    far_ahead: lead >= WIDE_LEAD,
                    thing_near: false,
                })
            }
            _ => None,
        }
    }

    /// The memory nearest in meaning, at [`CLEAR_FLOOR`] or more though
    /// not clearly ahead, when the request's words tell it from the next
    /// nearest: it holds two of the words naming the thing or more, all
    /// but one of them, and more of them than the next ("the fee for the
    /// new tutor in leeds": "Booked Priya to tutor Sam in Leeds, £30 an
    /// hour", with another tutor's rate next). Measured with
    /// `examples/eval_nearest.rs` on the read and not-found questions of
    /// fresh sets 1–22 (session 33), beside the clearly nearest: it adds
    /// 47 reads it answers, 4 it does not and 10 not-found questions,
    /// before whose it is and the kind of detail asked turn them away;
    /// with one word held, 53, 6 and 16 (on fresh sets 19–22 that gave
    /// one door's code for another's).
    fn nearest_told_apart_by_words(&self, topic: &Topic) -> Option<Nearest> {
        let by_meaning = self.by_meaning();
        let [(nearest, best), rest @ ..] = by_meaning.as_slice() else {
            return None;
        };
        if *best < CLEAR_FLOOR || topic.names.is_empty() {
            return None;
        }
        let held = topic.names_held(&nearest.content);
        let next = rest
            .first()
            .map_or(0, |(memory, _)| topic.names_held(&memory.content));
        (held >= 2 && held + 1 >= topic.names.len() && held > next).then_some(Nearest {
            id: nearest.id,
            far_ahead: false,
            thing_near: false,
        })
    }

    /// The memory clearly nearest in meaning as a search line, when it is
    /// not among the memories the words `found`.
    fn clearly_nearest_unfound(&self, found: &[String]) -> Option<String> {
        let id = self.clearly_nearest()?.id;
        let already = found
            .iter()
            .any(|line| MemoryLine::read(line).is_some_and(|m| m.id == id));
        let nearest = self.findings.found.iter().find(|f| f.memory.id == id)?;
        (!already).then(|| memory_line(&nearest.memory))
    }

    /// The memories found at least [`VOUCHED`] in meaning.
    fn strong_ids(&self) -> Vec<i64> {
        self.findings
            .found
            .iter()
            .filter(|f| f.similarity.is_some_and(|s| s >= VOUCHED))
            .map(|f| f.memory.id)
            .collect()
    }

    /// True when a request that reads as general and says nothing of the
    /// user's ("my", a kept detail) stays general though a memory holds
    /// what it names: the classifier is sure ([`SURELY_GENERAL`]), or no
    /// memory speaks to it in meaning (under [`FOUND`]), so the one that
    /// holds the name holds no answer ("what's laufabraud made of?" and
    /// "Laufabraud day at Rosa's on Sunday", 0.29 in meaning).
    fn general_though_named(&self, whose: Whose) -> bool {
        matches!(whose, Whose::Unsaid | Whose::Named)
            && (self.surely_general() || self.findings.best_similarity().unwrap_or(0.0) < FOUND)
    }

    /// True when the classifier over all the examples reads the request
    /// as a question about the user's own things: at [`OWN_FLOOR`] or
    /// more, or at [`LEANS_OWN`] with general knowledge not a runner-up
    /// within half of it.
    fn classified_own(&self) -> bool {
        self.classified.as_ref().is_some_and(|r| {
            let general_close = r
                .runner_up
                .is_some_and(|(kind, p)| kind == Routed::General && p * 2.0 >= r.score);
            r.kind == Routed::Read
                && (r.score >= OWN_FLOOR || (r.score >= LEANS_OWN && !general_close))
        })
    }

    /// True when the classifier over all the examples reads the request
    /// as general knowledge at [`GENERAL_FLOOR`] or more. Below it, a
    /// request read as general first is more often the user's own: on the
    /// clear requests of fresh sets 1–12 (session 24), 24 of them and 10
    /// general questions.
    fn classified_general(&self) -> bool {
        self.classified
            .as_ref()
            .is_some_and(|r| r.kind == Routed::General && r.score >= GENERAL_FLOOR)
    }

    /// True when the request is a remark, not a question: the classifier
    /// over all the examples reads it as small talk at [`REMARK_FLOOR`] or
    /// more, it neither asks (no question mark, no question word opening
    /// its last clause) nor gives a number, says nothing is the user's own
    /// ("my", "our"), and no memory is near it in meaning (`best` under
    /// [`STRONG`]): "thanks boss, you saved me a trip to the office",
    /// "long day today, the guests kept me running". Measured on fresh
    /// sets 1–22 (session 33): of the clear requests the classifier read
    /// as small talk that were none, the reads all asked, and the rest
    /// were saves and reminders, judged before a question is read (one
    /// of the saves says "my").
    fn remarks_in_passing(&self, request: &str) -> bool {
        let best = self.findings.best_similarity().unwrap_or(0.0);
        let classified = self
            .classified
            .as_ref()
            .is_some_and(|r| r.kind == Routed::SmallTalk && r.score >= REMARK_FLOOR);
        let whose_own = plan::says_its_the_users_own(request);
        classified
            && best < STRONG
            && !whose_own
            && !request.chars().any(|c| c.is_ascii_digit())
            && !plan::is_a_question(request)
            && !plan::closes_with_a_question(request)
    }

    /// True when the classifier over all the examples reads the request
    /// as general knowledge at [`SURELY_GENERAL`] or more: a memory that
    /// holds the name it asks about ("which river runs through lisbon"
    /// with a flight to Lisbon saved, "what is warfarin for?" with Dad's
    /// warfarin) does not make it the user's.
    fn surely_general(&self) -> bool {
        self.classified
            .as_ref()
            .is_some_and(|r| r.kind == Routed::General && r.score >= SURELY_GENERAL)
    }

    /// `words_found_none`: the words' search found nothing; `whose`: what
    /// the request says of whose it is.
    fn judge(&self, words_found_none: bool, whose: Whose) -> Judged {
        let personal = whose != Whose::Unsaid;
        let best = self.findings.best_similarity().unwrap_or(0.0);
        let routed = |kind| {
            self.route
                .as_ref()
                .is_some_and(|r| r.kind == kind && r.is_clear())
        };
        let speaking = self.findings.speaking();
        // Nothing of the user's is near enough a request that reads as
        // general ("Which is the biggest planet in our solar system?",
        // "the capital of Australia" with an Australia trip saved), though
        // it says "our" or shares a word and some meaning with a memory.
        if routed(Routed::General) && best < STRONG && whose != Whose::Kept {
            return Judged::General;
        }
        // Read as general by the classifier, and no memory near enough
        // to vouch for: a name the memories hold does not make it the
        // user's ("the capital of Australia" with an Australia trip).
        if self.classified_general()
            && !matches!(whose, Whose::Said | Whose::Kept)
            && best < VOUCHED
        {
            return Judged::General;
        }
        if routed(Routed::SmallTalk) && best < FOUND && !personal {
            return Judged::SmallTalk;
        }
        if words_found_none && !speaking.is_empty() {
            // The nearest examples reading it as the user's own speak
            // for it unless the classifier reads it as general ("what
            // were border terriers bred for?" with a terrier saved).
            let classified_general = self.classified_general();
            let about_the_user = personal
                || best >= STRONG
                || (self.route.as_ref().is_some_and(|r| r.kind == Routed::Read)
                    && !classified_general);
            if about_the_user {
                return Judged::Found(
                    speaking
                        .into_iter()
                        .take(READ_LIMIT)
                        .map(memory_line)
                        .collect(),
                );
            }
        }
        Judged::AsFound
    }
}

/// True when the memory of a search `line` holds all a question reading
/// as general names (see [`names_it_whole`]) and also what it asks, unless
/// the question's words say it is the user's: "which ocean is durban on?"
/// asks an ocean, which a Durban trip does not hold. Named by nothing of
/// the user's, a question asking for no kind of detail people keep must
/// find it held too ("what country is lanzarote in?"); one that does
/// ("what's the name of the teacher?") is answered by a memory of the
/// teacher.
fn holds_all_it_asks(line: &str, topic: &Topic, whose: Whose) -> bool {
    let must_hold_asked = match whose {
        Whose::Said | Whose::Kept => false,
        Whose::Named => true,
        Whose::Unsaid => !topic.asked.is_empty() && topic.asks_no_known_detail(),
    };
    names_it_whole(line, topic)
        && (!must_hold_asked || MemoryLine::read(line).is_some_and(|m| topic.asked_in(m.content)))
}

/// The thing a question asks what it is ("what's benachin?", "what is
/// a bardino?"): one to three words after "what is" (or "what's",
/// "what are", an "a" or "an"), none of them a function word ("what's
/// the plan" asks of the user's own plan, "what's my pin" of theirs).
fn asked_what_it_is(request: &str) -> Option<String> {
    let words = imprint_text::words::plain(plan::asked_part(request));
    let rest = match words.as_slice() {
        [what, rest @ ..] if what == "what's" || what == "whats" => rest,
        [what, is, rest @ ..] if what == "what" && (is == "is" || is == "are") => rest,
        _ => return None,
    };
    let rest = match rest {
        [article, thing @ ..] if article == "a" || article == "an" => thing,
        thing => thing,
    };
    let plain = (1..=3).contains(&rest.len())
        && rest
            .iter()
            .all(|w| !crate::common_words::is_function_word(w) && !w.ends_with("'s"));
    plain.then(|| rest.join(" "))
}

/// False when `request` asks what a thing is and the memory of a search
/// `line` only names it: it neither opens with the thing nor says what
/// it is after it ("Benachin is…", "benachin (…", "benachin: …").
fn says_what_it_is(request: &str, line: &str) -> bool {
    let Some(thing) = asked_what_it_is(request) else {
        return true;
    };
    let Some(memory) = MemoryLine::read(line) else {
        return false;
    };
    let content = memory.content.to_lowercase();
    content.starts_with(&thing)
        || content.match_indices(&thing).any(|(at, _)| {
            let after = content[at + thing.len()..]
                .trim_start_matches("'s")
                .trim_start();
            after.starts_with(['(', ':', '-', '='])
                || after
                    .split_whitespace()
                    .next()
                    .is_some_and(|word| word == "is" || word == "are")
        })
}

/// True when the memory of a search `line` holds every naming run of
/// `topic` (what it asks is the pick's to hold: "the name of the
/// teacher" is answered by "Ana Ruiz is … teacher").
fn names_it_whole(line: &str, topic: &Topic) -> bool {
    !topic.is_empty() && MemoryLine::read(line).is_some_and(|m| topic.named_in(&m.named_text()))
}

/// How many pairs of neighbouring words `request` and `content` share
/// ("flight to", "to lisbon"): pairs that name something, not two
/// function words ("for the" of "need it for the parking app").
pub(super) fn shared_pairs(request: &str, content: &str) -> usize {
    let pairs = |text: &str| {
        let words = imprint_text::words::plain(text);
        words
            .windows(2)
            .filter(|w| {
                w.iter()
                    .any(|w| !crate::common_words::names_nothing_kept(w))
            })
            .map(|w| format!("{} {}", w[0], w[1]))
            .collect::<std::collections::HashSet<_>>()
    };
    pairs(request).intersection(&pairs(content)).count()
}

/// "I found nothing about the plumber in your memories." and what to do.
pub(super) fn nothing_found(topic: &Topic, request: &str) -> String {
    if topic.is_empty() {
        return "I found nothing about that in your memories. Tell me, and I'll save it.".into();
    }
    let what = match topic.detail() {
        // A secret is not asked for in passing.
        Some("pin" | "password" | "pw" | "passcode") => String::new(),
        Some("phone" | "mobile" | "cell" | "telephone") => {
            "Tell me the number, and I'll save it.".into()
        }
        Some("policy") => "Tell me the policy number, and I'll save it.".into(),
        Some(detail) => format!("Tell me the {detail}, and I'll save it."),
        None => "Tell me, and I'll save it.".into(),
    };
    format!(
        "I found nothing about “{}” in your memories. {what}",
        topic.phrase(request)
    )
    .trim_end()
    .to_string()
}

/// True when `request` names, with a capital inside a sentence, a name
/// the memory `line` holds with a capital too ("Theo", "Dana"): the
/// request is about someone or something of the user's.
fn names_someone_in(request: &str, line: &str) -> bool {
    let Some(memory) = MemoryLine::read(line) else {
        return false;
    };
    // A memory often opens with the name ("Theo (my son) is …").
    let held = capitalized_names(memory.content, true);
    if capitalized_names(request, false)
        .iter()
        .any(|name| held.contains(name))
    {
        return true;
    }
    // Typed in lower case, a name the memory writes alone with a capital.
    let lone = lone_names(memory.content);
    request
        .split_whitespace()
        .map(|raw| raw.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|word| !word.chars().any(char::is_uppercase))
        .map(|word| word.strip_suffix("'s").unwrap_or(word))
        .any(|word| lone.iter().any(|name| name == word))
}

#[cfg(test)]
mod tests {
    use super::{
        asked_what_it_is, asks_when, holds_all_it_asks, names_it_whole, names_someone_in,
        says_what_it_is, shared_pairs, Judged, MeaningRead, Nearest, Whose,
    };
    use crate::grounding::plan::Topic;
    use crate::meaning::route::{Route, Routed};
    use crate::meaning::search::{Findings, Found};
    use crate::store::Memory;

    fn read(similarities: &[f32], route: Option<(Routed, f32)>) -> MeaningRead {
        let found = similarities
            .iter()
            .enumerate()
            .map(|(i, &s)| Found {
                memory: Memory {
                    id: i as i64 + 1,
                    content: format!("memory {}", i + 1),
                    project: None,
                    tags: Vec::new(),
                    created_at: "2026-12-01T10:00:00.000Z".into(),
                },
                similarity: Some(s),
                by_words: None,
            })
            .collect();
        MeaningRead {
            findings: Findings {
                found,
                by_meaning: true,
                vector: None,
            },
            route: route.map(|(kind, margin)| Route {
                kind,
                score: 0.6,
                runner_up: Some((Routed::Read, 0.6 - margin)),
            }),
            classified: None,
        }
    }

    #[test]
    fn the_memories_found_alike_are_offered_nearest_in_meaning_first() {
        // The model leans to the first it is offered.
        let meant = read(&[0.42, 0.58, 0.31], None);
        let line = |i: usize| crate::memory_lines::memory_line(&meant.findings.found[i].memory);
        let unfound = crate::memory_lines::memory_line(&Memory {
            id: 9,
            content: "found by its words alone".into(),
            project: None,
            tags: Vec::new(),
            created_at: "2026-12-01T10:00:00.000Z".into(),
        });
        let offered = meant.nearest_first(vec![unfound.clone(), line(0), line(2), line(1)]);
        assert_eq!(offered, [line(1), line(0), line(2), unfound]);
    }

    #[test]
    fn the_clearly_nearest_memory_leads_every_other_and_is_near_enough_to_vouch_for() {
        let nearest = |similarities: &[f32]| read(similarities, None).clearly_nearest();
        let at = |id, far_ahead| {
            Some(Nearest {
                id,
                far_ahead,
                thing_near: false,
            })
        };
        assert_eq!(nearest(&[0.48, 0.64, 0.31]), at(2, false));
        assert_eq!(nearest(&[0.64]), at(1, true));
        // Far ahead of the next: no near miss.
        assert_eq!(nearest(&[0.27, 0.49, 0.24]), at(2, true));
        // Two of one kind, close together: neither.
        assert_eq!(nearest(&[0.64, 0.58]), None);
        // Not near enough, however far ahead.
        assert_eq!(nearest(&[0.42, 0.10]), None);
    }

    #[test]
    fn a_memory_holding_the_name_but_far_in_meaning_leaves_a_question_general() {
        // "what is ratatouille made of?" with "Ratatouille night at Jo's
        // on Friday" saved: the name, and nothing near what is asked.
        let far = read(&[0.28, 0.12], None);
        assert!(far.general_though_named(Whose::Unsaid));
        assert!(far.general_though_named(Whose::Named));
        // The user's words say it is theirs: it stays theirs.
        assert!(!far.general_though_named(Whose::Said));
        assert!(!far.general_though_named(Whose::Kept));
        // A memory that speaks to it keeps it the user's.
        let near = read(&[0.28, 0.41], None);
        assert!(!near.general_though_named(Whose::Named));
    }

    #[test]
    fn a_question_the_classifier_reads_as_general_is_not_the_users_by_the_nearest_alone() {
        // "what were border terriers first bred for?" with "Pickle (our
        // border terrier)…" saved: near, not near enough to answer.
        let mut terriers = read(&[0.42], Some((Routed::Read, 0.06)));
        terriers.classified = Some(Route {
            kind: Routed::General,
            score: 0.52,
            runner_up: Some((Routed::Read, 0.36)),
        });
        assert_eq!(terriers.judge(true, Whose::Unsaid), Judged::General);
        // "my" keeps it the user's.
        assert!(matches!(
            terriers.judge(true, Whose::Said),
            Judged::Found(_)
        ));
    }

    #[test]
    fn a_read_first_but_unsure_is_the_users_unless_general_is_close_behind() {
        let classified = |score, runner_up| {
            let mut meant = read(&[0.3], None);
            meant.classified = Some(Route {
                kind: Routed::Read,
                score,
                runner_up: Some(runner_up),
            });
            meant
        };
        // "when does the tractor insurance expire": a read at 0.41, a
        // save next.
        assert!(classified(0.41, (Routed::Save, 0.37)).classified_own());
        // General knowledge behind it by less than half.
        assert!(!classified(0.37, (Routed::General, 0.3)).classified_own());
        assert!(classified(0.37, (Routed::General, 0.15)).classified_own());
        // Sure enough, whatever comes next.
        assert!(classified(0.5, (Routed::General, 0.3)).classified_own());
        // Too unsure.
        assert!(!classified(0.25, (Routed::Save, 0.2)).classified_own());
        let mut general = classified(0.6, (Routed::Read, 0.2));
        general.classified.as_mut().unwrap().kind = Routed::General;
        assert!(!general.classified_own());
    }

    #[test]
    fn read_as_general_first_but_unsure_is_not_general() {
        // "what's the dose of the thyroid tablet?" with two thyroid
        // tablets saved: general first at 0.37, the user's own next.
        let classified = |score| {
            let mut meant = read(&[0.55], None);
            meant.classified = Some(Route {
                kind: Routed::General,
                score,
                runner_up: Some((Routed::Read, 0.32)),
            });
            meant
        };
        assert!(!classified(0.37).classified_general());
        assert!(classified(0.5).classified_general());
    }

    #[test]
    fn a_name_the_memories_hold_does_not_make_a_general_question_the_users() {
        // "which ocean is durban on?" with a Durban trip saved.
        let mut durban = read(&[0.54], Some((Routed::General, 0.02)));
        durban.classified = Some(Route {
            kind: Routed::General,
            score: 0.5,
            runner_up: Some((Routed::Read, 0.2)),
        });
        assert_eq!(durban.judge(false, Whose::Named), Judged::General);
        // A memory near enough to vouch for keeps it the user's...
        let mut near = read(&[0.64], Some((Routed::General, 0.02)));
        near.classified = durban.classified.clone();
        assert_eq!(near.judge(false, Whose::Named), Judged::AsFound);
        // ...and so does a classifier unsure it is general.
        durban.classified = Some(Route {
            kind: Routed::General,
            score: 0.37,
            runner_up: Some((Routed::Read, 0.35)),
        });
        assert_eq!(durban.judge(false, Whose::Named), Judged::AsFound);
    }

    #[test]
    fn a_memory_near_in_meaning_answers_when_the_words_found_none() {
        // "how much are we paying the painter in the end?"
        let judged = read(&[0.62, 0.58, 0.31], None).judge(true, Whose::Said);
        let Judged::Found(lines) = judged else {
            panic!("{judged:?}")
        };
        assert_eq!(lines.len(), 2, "the best and the one near it: {lines:?}");
        assert!(lines[0].contains("memory 1"));
        // With no word of the user's life, only a strong one does.
        assert!(matches!(
            read(&[0.62], None).judge(true, Whose::Unsaid),
            Judged::Found(_)
        ));
        assert_eq!(
            read(&[0.4], None).judge(true, Whose::Unsaid),
            Judged::AsFound
        );
        // ...unless the examples read it as about the user's things.
        let about_the_user = read(&[0.4], Some((Routed::Read, 0.1)));
        assert!(matches!(
            about_the_user.judge(true, Whose::Unsaid),
            Judged::Found(_)
        ));
        // What the words found stands.
        assert_eq!(
            read(&[0.62], None).judge(false, Whose::Said),
            Judged::AsFound
        );
    }

    #[test]
    fn a_general_request_with_nothing_near_it_is_general_though_it_says_our() {
        // "Which is the biggest planet in our solar system?"
        let planet = read(&[0.12], Some((Routed::General, 0.1)));
        assert_eq!(planet.judge(true, Whose::Said), Judged::General);
        // A detail people keep is never the model's: "what's the booking
        // ref for the car hire in lanzarote" with no car hire saved.
        assert_eq!(planet.judge(true, Whose::Kept), Judged::AsFound);
        // Unclear examples leave it to the words.
        let unclear = read(&[0.12], Some((Routed::General, 0.01)));
        assert_eq!(unclear.judge(true, Whose::Said), Judged::AsFound);
        // So is one sharing some meaning with a memory, not enough to answer.
        let australia = read(&[0.44], Some((Routed::General, 0.1)));
        assert_eq!(australia.judge(true, Whose::Unsaid), Judged::General);
        // A memory near it keeps it the user's.
        let near = read(&[0.55], Some((Routed::General, 0.1)));
        assert!(matches!(near.judge(true, Whose::Said), Judged::Found(_)));
    }

    #[test]
    fn only_memories_strong_in_meaning_are_vouched_for() {
        let meant = read(&[0.62, 0.58, 0.2], None);
        assert_eq!(meant.strong_ids(), [1]);
        assert!(read(&[0.3], None).strong_ids().is_empty());
    }

    #[test]
    fn the_nearest_the_words_tell_from_the_next_stands_though_not_clearly_ahead() {
        let found = |id, content: &str, similarity| Found {
            memory: Memory {
                id,
                content: content.into(),
                project: None,
                tags: Vec::new(),
                created_at: "2026-12-01T10:00:00.000Z".into(),
            },
            similarity: Some(similarity),
            by_words: None,
        };
        let meant = |first: f32, second: f32| MeaningRead {
            findings: Findings {
                found: vec![
                    found(1, "Booked Priya to tutor Sam in Leeds, £30 an hour.", first),
                    found(2, "Maths tutor Mr Hale, £35 an hour.", second),
                ],
                by_meaning: true,
                vector: None,
            },
            route: None,
            classified: None,
        };
        let leeds = Topic::of("whats the fee for the new tutor in leeds", &[]);
        let told = meant(0.53, 0.46).nearest_told_apart_by_words(&leeds);
        assert_eq!(told.map(|n| n.id), Some(1));
        // The next holds as many of the words: nothing tells them apart.
        let any = Topic::of("whats the fee for the tutor", &[]);
        assert_eq!(meant(0.53, 0.46).nearest_told_apart_by_words(&any), None);
        // Not near enough in meaning.
        assert_eq!(meant(0.40, 0.30).nearest_told_apart_by_words(&leeds), None);
        // One word held of two says too little: "the fee for sam" may
        // be another tutor's, or none.
        let sam = Topic::of("whats the fee for sam", &[]);
        assert_eq!(meant(0.53, 0.31).nearest_told_apart_by_words(&sam), None);
    }

    #[test]
    fn a_remark_that_asks_nothing_is_small_talk_though_it_says_me() {
        let classified = |score| {
            Some(Route {
                kind: Routed::SmallTalk,
                score,
                runner_up: Some((Routed::CannotDo, 0.2)),
            })
        };
        let with = |best: f32, score: f32| MeaningRead {
            classified: classified(score),
            ..read(&[best], None)
        };
        let chat = with(0.37, 0.36);
        assert!(chat.remarks_in_passing("cheers mate, you spared me a drive to the depot"));
        assert!(chat.remarks_in_passing("long week, the kids ran me ragged"));
        // It asks, gives a number or says something is the user's own.
        assert!(!chat.remarks_in_passing("you spared me a drive, what's the depot's code?"));
        assert!(!chat.remarks_in_passing("cheers, the depot shuts at 5"));
        assert!(!chat.remarks_in_passing("ugh, my sister is visiting all week"));
        // A memory near in meaning, or a classifier unsure of small talk.
        assert!(!with(0.55, 0.36).remarks_in_passing("long week, the kids ran me ragged"));
        assert!(!with(0.37, 0.25).remarks_in_passing("long week, the kids ran me ragged"));
    }

    #[test]
    fn chit_chat_the_rules_missed_is_small_talk() {
        let chat = read(&[0.1], Some((Routed::SmallTalk, 0.2)));
        assert_eq!(chat.judge(true, Whose::Unsaid), Judged::SmallTalk);
        assert_eq!(
            chat.judge(true, Whose::Said),
            Judged::AsFound,
            "\"my\" keeps it a read"
        );
    }

    #[test]
    fn the_memory_that_says_it_as_the_request_does_shares_more_pairs() {
        let request = "what's the booking reference for my flight to lisbon";
        let outbound =
            "Flight to Lisbon: TAP TP1351 on 19 December at 07:40, booking reference QX7M2P";
        let back =
            "Flight back from Lisbon: easyJet EZY8736 on 2 January, booking reference K4LBT9";
        assert_eq!(
            shared_pairs(request, outbound),
            3,
            "booking reference, flight to, to lisbon"
        );
        assert_eq!(shared_pairs(request, back), 1);
        assert_eq!(shared_pairs("when's my flight back from lisbon", back), 3);
    }

    #[test]
    fn a_memory_holding_all_a_general_sounding_question_names_keeps_it_the_users() {
        let topic = |request| crate::grounding::plan::Topic::of(request, &[]);
        let teacher =
            "[4] (no project, 2026-12-02) Ana Ruiz is Leo's violin teacher, Tuesdays at 5pm.";
        assert!(names_it_whole(
            teacher,
            &topic("what's the name of the teacher?")
        ));
        let trip =
            "[5] (no project, 2026-12-02) Australia trip: flights to Perth booked for March.";
        assert!(!names_it_whole(
            trip,
            &topic("what's the capital of Australia?")
        ));
        let water = "[6] (no project, 2026-12-02) Water: Severnside account 4411.";
        assert!(!names_it_whole(
            water,
            &topic("whats the boiling point of water")
        ));
        // Named only by a name the memories hold, it must hold what is
        // asked too.
        let durban = "[7] (no project, 2026-12-02) Durban trip: flights on 3 March.";
        let ocean = topic("which ocean is durban on?");
        assert!(names_it_whole(durban, &ocean));
        assert!(!holds_all_it_asks(durban, &ocean, Whose::Named));
        assert!(holds_all_it_asks(durban, &ocean, Whose::Said));
        assert!(holds_all_it_asks(
            teacher,
            &topic("what's the name of the teacher?"),
            Whose::Unsaid
        ));
        // Named by nothing of the user's, what it asks must be held too.
        let lanzarote = "[8] (no project, 2026-12-02) Lanzarote flights: out on 13 February.";
        let country = topic("what country is lanzarote in?");
        assert!(names_it_whole(lanzarote, &country));
        assert!(!holds_all_it_asks(lanzarote, &country, Whose::Unsaid));
        let school = "[9] (no project, 2026-12-02) Theo goes to Ashgrove school, class 3B.";
        assert!(holds_all_it_asks(
            school,
            &topic("which school does theo go to?"),
            Whose::Unsaid
        ));
    }

    #[test]
    fn a_memory_that_only_names_a_thing_does_not_say_what_it_is() {
        assert_eq!(
            asked_what_it_is("what's a mandoline? the recipe needs one").as_deref(),
            Some("mandoline")
        );
        assert_eq!(
            asked_what_it_is("What is sourdough starter?").as_deref(),
            Some("sourdough starter")
        );
        // The user's own thing, a detail of it, or another kind of question.
        assert_eq!(asked_what_it_is("what's the plan for saturday?"), None);
        assert_eq!(asked_what_it_is("what's my pin"), None);
        assert_eq!(asked_what_it_is("what's gran's postcode"), None);
        assert_eq!(asked_what_it_is("when is the mandoline coming?"), None);
        let request = "what's a mandoline?";
        let named = "[7] (kitchen, 2026-12-02) Ordered a mandoline from Lakeland, arrives Friday.";
        assert!(!says_what_it_is(request, named));
        for says in [
            "[8] (kitchen, 2026-12-02) Mandoline: the slicer with the green guard, top drawer.",
            "[9] (kitchen, 2026-12-02) The mandoline is the slicer in the top drawer.",
            "[10] (kitchen, 2026-12-02) Our mandoline (the V-blade slicer) lives in the top drawer.",
        ] {
            assert!(says_what_it_is(request, says), "{says}");
        }
        // Any other question is answered by a memory that names its thing.
        assert!(says_what_it_is("when does the mandoline arrive?", named));
    }

    #[test]
    fn a_name_the_memory_holds_makes_a_question_the_users_own() {
        let line =
            "[3] (family, 2026-12-02) Theo (my son) is in Year 4 at Ashgrove Primary School. \
                    School office phone 0161 555 0190.";
        assert!(names_someone_in(
            "¿Cuál es el número de teléfono de la escuela de Theo?",
            line
        ));
        assert!(names_someone_in("How old is Theo now?", line));
        // A capital that opens a sentence, or a name the memory lacks, is
        // not.
        assert!(!names_someone_in("School starts when in Spain?", line));
        assert!(!names_someone_in("Who was Theodora?", line));
        // Typed in lower case: a name the memory writes alone with a
        // capital, and no word of a longer name.
        let inside =
            "[4] (family, 2026-12-02) Swimming for Theo is on Tuesdays at Ashgrove Primary School.";
        assert!(names_someone_in("how tall is theo now", inside));
        assert!(!names_someone_in("when does school start in spain", inside));
        assert!(!names_someone_in("what is a primary colour", inside));
        assert!(!names_someone_in("how do I teach swimming", inside));
        // A name in a list, or after another in brackets, stands alone.
        let listed = "[5] (family, 2026-12-02) Gran (Theo's godmother) sends cards to me, Ines, Theo and Maya.";
        assert!(names_someone_in("what does ines like", listed));
        assert!(names_someone_in("whats theo's shoe size", listed));
    }

    #[test]
    fn a_question_asks_when_by_its_first_word_or_what_time_or_day() {
        for asking in [
            "when's rory's appointment at the opticians",
            "what time's the xmas lunch at dad's home?",
            "what day is the skip collected",
            "ok so which date did we agree for the plastering?",
        ] {
            assert!(asks_when(asking), "{asking}");
        }
        for not_asking in [
            "what's the code for the key box",
            "whats the name of the time zone app i saved",
            "how much time did the plumber quote",
        ] {
            assert!(!asks_when(not_asking), "{not_asking}");
        }
    }
}
