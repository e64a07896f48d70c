//! The answer step of a planned question: the model picks, under a JSON
//! schema, the memory that answers and words a sentence from it; Imprint
//! checks the pick and the sentence against the memory, and answers from
//! the memory itself where they fall short.

use serde_json::{json, Value};

use super::reads::{nothing_found, Vouched};
use crate::grounding::plan::{self, claims, Topic};
use crate::models::{ChatMessage, ModelError, StepRequest};
use crate::replies::own_answer;
use crate::replies::run::{Interrupt, Run};
use crate::tools::run::MemoryLine;

/// What the answer step chose.
struct Pick {
    /// 1-based; 0 for none.
    memory: usize,
    answer: String,
}

enum PickError {
    Stopped,
    Model(ModelError),
}

impl Run {
    /// The answer from `found`: the model picks the memory that answers and
    /// words a sentence from it under a schema; a pick that names nothing
    /// asked about, or a sentence that claims what the memory does not
    /// hold, is replaced by the memory itself.
    pub(super) async fn answer_from(
        &mut self,
        found: &[String],
        topic: &Topic,
        personal: bool,
        chosen: bool,
        vouched: &Vouched,
    ) -> Result<(), Interrupt> {
        let memories: Vec<MemoryLine<'_>> =
            found.iter().filter_map(|l| MemoryLine::read(l)).collect();
        // Said aloud, the first word should come soon after the user
        // stops talking: the one memory that stands as a pick of it would
        // (naming the thing, holding what is asked) is said as it is kept,
        // without the model's wording (seconds on the built-in model).
        if self.talk.spoken() && !topic.is_empty() {
            let one = match standing(found, topic, chosen, vouched).as_slice() {
                [one] => MemoryLine::read(one),
                _ => None,
            };
            if let Some(one) = one {
                tracing::info!(reply = %self.reply.id, "spoken: the one memory that stands answers as it is kept");
                self.say(&in_its_own_words(&one)).await;
                return Ok(());
            }
        }
        let pick = match self.pick(&memories).await {
            Ok(pick) => pick,
            Err(PickError::Stopped) => return Err(self.interrupted()),
            Err(PickError::Model(error)) if vouched.meaning_only => {
                // Found by meaning alone, a memory answers without the
                // model only as a pick of it would have to: named (or
                // near enough to vouch for) and holding what is asked.
                tracing::warn!(%error, "the answer step failed; answering from the memories found by meaning that would stand as a pick");
                let standing = standing(found, topic, chosen, vouched);
                if standing.is_empty() && vouched.general_if_none {
                    return self.general(true).await;
                }
                let text = if standing.is_empty() {
                    nothing_found(topic, self.talk.request())
                } else {
                    own_answer::from_found(&standing.join("\n"))
                };
                self.say(&text).await;
                return Ok(());
            }
            Err(PickError::Model(error)) => {
                // The memories are the answer without the model's words.
                tracing::warn!(%error, "the answer step failed; answering from the memories");
                self.say(&own_answer::from_found(&found.join("\n"))).await;
                return Ok(());
            }
        };
        tracing::debug!(reply = %self.reply.id, picked = pick.memory, found = ?memories.iter().map(|m| m.id).collect::<Vec<_>>(), ?vouched, "the model's pick");
        let picked = pick
            .memory
            .checked_sub(1)
            .and_then(|i| memories.get(i))
            .filter(|m| stands(m, topic, chosen, vouched));
        let Some(memory) = picked else {
            if !personal || vouched.general_if_none {
                return self.general(true).await;
            }
            if vouched.meaning_only {
                self.say(&nothing_found(topic, self.talk.request())).await;
                return Ok(());
            }
            // The model's pick fell short, but one memory found holds the
            // kind of detail asked ("the coach's number") and stands as a
            // pick of it would: it is the answer, in its own words; so is
            // one that says a day or a time when "when" is asked ("what
            // time is amma siggas eye op"). When nothing of a known kind
            // is asked ("what did we agree on"), the model's "none" stands.
            let asks_what_it_holds = |one: &str| {
                !topic.asked.is_empty()
                    || vouched.asks_when.is_some_and(|now| {
                        MemoryLine::read(one).is_some_and(|m| {
                            crate::grounding::when::stated(m.content, now).is_some()
                        })
                    })
            };
            if let [one] = standing(found, topic, chosen, vouched)
                .into_iter()
                .filter(|one| asks_what_it_holds(one))
                .collect::<Vec<_>>()
                .as_slice()
            {
                tracing::info!(reply = %self.reply.id, "the pick fell short; the one memory that stands answers");
                self.say(&own_answer::from_found(one)).await;
                return Ok(());
            }
            let text = none_answers(found, topic, self.talk.request());
            self.say(text.trim_end()).await;
            return Ok(());
        };
        let text = self.worded(&pick.answer, memory, topic);
        self.say(&text).await;
        Ok(())
    }

    /// The answer from the picked `memory`: the model's sentence with its
    /// source, or the memory itself when the sentence names what no memory
    /// holds, or says nothing the question did not.
    fn worded(&self, answer: &str, memory: &MemoryLine<'_>, topic: &Topic) -> String {
        // The request's question backs what it says, not a story told
        // before it ("monday the car wouldn't start in the cold … when is
        // the boiler due?" backs no "Monday" in the answer).
        let mut backing = vec![memory.content, plan::asked_part(self.talk.request())];
        backing.extend(self.talk.answers().iter().map(String::as_str));
        let mut invented = claims::unbacked(answer, &backing);
        if claims::repeats_itself(answer) {
            invented.push("(the same words over and over)".to_string());
        }
        // A story of the model's own, with no number or name to catch.
        if invented.is_empty() && !claims::mostly_backed(answer, &backing) {
            invented.push("(words no memory holds)".to_string());
        }
        let answer = answer.trim();
        // "Jan Kowalski" for the plumber's number names him, but does not
        // say it.
        let says_it = (!topic.wants_digits() || answer.chars().any(|c| c.is_ascii_digit()))
            // "you" for the wifi password says nothing the question did not.
            && claims::tells_something(answer, memory.content, self.talk.request());
        let content = memory.content.trim();
        let own = answer.is_empty() || !invented.is_empty() || !says_it;
        if !invented.is_empty() {
            tracing::info!(reply = %self.reply.id, ?invented, "the answer named what no memory holds; Imprint answers from the memory");
        }
        if own || content.contains(answer.trim_end_matches('.')) {
            in_its_own_words(memory)
        } else {
            let source = own_answer::kept(memory);
            format!("{answer}\n\n*From your memory “{content}” ({source}).*")
        }
    }

    /// The constrained step: which memory answers, and a sentence from it.
    async fn pick(&mut self, memories: &[MemoryLine<'_>]) -> Result<Pick, PickError> {
        self.ensure_slot().await.map_err(|_| PickError::Stopped)?;
        let listed: Vec<String> = memories
            .iter()
            .enumerate()
            .map(|(i, m)| format!("{}. {}", i + 1, m.content.trim()))
            .collect();
        let system = format!(
            "You answer the user's question from their saved memories, and from nothing else.\n\nMemories:\n{}\n\nReply in JSON. \"memory\": the number of the memory that answers the question, or 0 if none of them does. \"answer\": one short sentence that answers the question with that memory's own words, numbers and names, speaking to the user as \"you\".",
            listed.join("\n")
        );
        let choices: Vec<Value> = (0..=memories.len()).map(|i| json!(i)).collect();
        let schema = json!({
            "type": "object",
            "properties": {
                "memory": {"type": "integer", "enum": choices},
                "answer": {"type": "string", "maxLength": 300},
            },
            "required": ["memory", "answer"],
            "additionalProperties": false,
        });
        let step = StepRequest {
            messages: vec![
                ChatMessage::System(system),
                ChatMessage::User(self.talk.request().to_string()),
            ],
            schema,
            max_tokens: 160,
        };
        let stop = self.reply.stop_token().child_token();
        let value = self.env.model.constrained(step, stop).await.map_err(|e| {
            if self.reply.stop_token().is_cancelled() {
                PickError::Stopped
            } else {
                PickError::Model(e)
            }
        })?;
        Ok(Pick {
            memory: value.get("memory").and_then(Value::as_u64).unwrap_or(0) as usize,
            answer: value
                .get("answer")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
    }
}

/// The memories found that would stand as a pick ([`stands`]).
fn standing<'a>(
    found: &'a [String],
    topic: &Topic,
    chosen: bool,
    vouched: &Vouched,
) -> Vec<&'a str> {
    found
        .iter()
        .filter(|l| MemoryLine::read(l).is_some_and(|m| stands(&m, topic, chosen, vouched)))
        .map(String::as_str)
        .collect()
}

/// The answer that is `memory` as it was kept, and where and when.
fn in_its_own_words(memory: &MemoryLine<'_>) -> String {
    format!(
        "From your memories: {} ({})",
        memory.content.trim(),
        own_answer::kept(memory)
    )
}

/// True when `memory`, picked, answers: the user chose it, or it names
/// the thing (a memory very near in meaning names it in its own words,
/// "Builder agreed £8,400" for "paying the builders", as does the one
/// clearly nearest that holds whose the thing is and all but one of the
/// words naming it, or half of them when it is far ahead of every other:
/// "kari's concert on saturday" is his band's gig on Saturday, "helgi fly
/// back to copenhagen" is not Helgi's arrival; found by meaning
/// alone, one must be that near when nothing names it) and holds what is
/// asked ("When's Tom's birthday?" is not answered by when Tom likes his
/// calls, however near in meaning), or, that near, is asked only what no
/// kind of detail names ("what dose").
fn stands(memory: &MemoryLine<'_>, topic: &Topic, chosen: bool, vouched: &Vouched) -> bool {
    let vouched_for = vouched.ids.contains(&memory.id);
    let named = (vouched_for && topic.heads_in(memory.content))
        || names_as_clearly_nearest(memory, topic, vouched)
        || (topic.is_empty() && !vouched.meaning_only)
        || topic.named_in(&memory.named_text());
    // What no kind of detail names ("what dose") is held in the words of
    // a memory near enough in meaning ("3 mg").
    let holds_asked = (topic.asked_in(memory.content)
        || (vouched_for && topic.asks_no_known_detail()))
        && !topic.asked_of_another(memory.content);
    chosen || (named && holds_asked)
}

/// True when `memory` is the one clearly nearest in meaning and names
/// the thing in its own words: it holds whose the thing is, all but one
/// of the words naming it (half when it is far ahead of every other), an
/// amount when "how much" is asked and a day or a time when "when" is.
fn names_as_clearly_nearest(memory: &MemoryLine<'_>, topic: &Topic, vouched: &Vouched) -> bool {
    let Some(nearest) = vouched.clearly_nearest.filter(|n| n.id == memory.id) else {
        return false;
    };
    let held = topic.names_held(&memory.named_text());
    let named = held + 1 >= topic.names.len()
        || (nearest.far_ahead && 2 * held >= topic.names.len())
        || nearest.thing_near;
    named
        && topic.owners_in(memory.content)
        && (!vouched.asks_an_amount || plan::holds_an_amount(memory.content))
        && vouched
            .asks_when
            .is_none_or(|now| crate::grounding::when::stated(memory.content, now).is_some())
}

/// No memory found answers the question: said so, with the closest (those
/// that hold what it asks and the compound names of the thing), or what
/// to do. A memory holding one of two things named is another thing's ("the
/// booking ref for our car hire in durban" and the Durban flight's ref),
/// and shown beside "closest" it reads as the answer.
fn none_answers(found: &[String], topic: &Topic, request: &str) -> String {
    let named = names_in_the_memories(request, found);
    let closest: Vec<&String> = found
        .iter()
        .filter(|line| {
            MemoryLine::read(line).is_some_and(|m| {
                is_closest(&m, topic) && {
                    let words = imprint_text::words::plain(&m.named_text());
                    named.iter().all(|name| words.contains(name))
                }
            })
        })
        .collect();
    if closest.is_empty() {
        return known_but_not_said(found, topic, request)
            .unwrap_or_else(|| nothing_found(topic, request));
    }
    let lines: Vec<&str> = closest.iter().map(|l| l.as_str()).collect();
    format!(
        "I found no memory that clearly answers that. {}",
        own_answer::from_found(&lines.join("\n")).replacen(
            "Here is what I found in your memories:",
            "The closest:",
            1
        )
    )
}

/// "what meds is paco on?" with seven memories about Paco and none
/// saying his medicines: "I found nothing about “paco”" is untrue. When a
/// memory found holds every word naming the thing and the question asks
/// something of it that is no kind of detail one tells ("meds", not
/// "number"), the memories about it are said to be there, and none to
/// answer ("Your memories mention “paco”, but I found no memory that
/// says that.").
fn known_but_not_said(found: &[String], topic: &Topic, request: &str) -> Option<String> {
    if topic.asked.is_empty() || topic.detail().is_some() || topic.names.is_empty() {
        return None;
    }
    let holds_the_thing = found.iter().any(|line| {
        MemoryLine::read(line).is_some_and(|m| topic.names_held(m.content) == topic.names.len())
    });
    holds_the_thing.then(|| {
        format!(
            "Your memories mention “{}”, but I found no memory that says that. Tell me, and I'll save it.",
            topic.phrase(request)
        )
    })
}

/// The words of `request` that the memories `found` write as names
/// ("helgi" for "My brother Helgi lives in Copenhagen"), lower case: a
/// memory without one of them is someone else's thing ("Kari flies back
/// on Sunday" for "when does helgi fly back?"), never the closest.
fn names_in_the_memories(request: &str, found: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for memory in found.iter().filter_map(|line| MemoryLine::read(line)) {
        names.extend(
            claims::capitalized_names(memory.content, true)
                .iter()
                .map(|n| n.to_lowercase())
                .chain(claims::lone_names(memory.content)),
        );
    }
    let mut named: Vec<String> = imprint_text::words::plain(request)
        .into_iter()
        .map(|w| w.strip_suffix("'s").map(str::to_string).unwrap_or(w))
        .filter(|w| names.contains(w))
        .collect();
    named.dedup();
    named
}

/// True when `memory` holds what `topic` asks and a word of every naming
/// run of two words or more (see [`none_answers`]); when a kind of detail
/// is asked, most of the naming words too. Holding one of two things
/// named is another thing's ("Home insurance, policy 7741-0329" for "the
/// code for the garage at home"): shown as the closest, its number reads
/// as the answer.
fn is_closest(memory: &MemoryLine<'_>, topic: &Topic) -> bool {
    let content = memory.named_text();
    topic.asked_in(memory.content)
        && topic.touches_every_compound(&content)
        && (topic.asked.is_empty() || 2 * topic.names_held(&content) > topic.names.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replies::planned::reads::Nearest;

    #[test]
    fn the_closest_hold_most_of_what_names_the_thing() {
        let topic = Topic::of("whats the booking ref for our car hire in lisbon", &[]);
        let flight = line(4, "Flight to Lisbon on 3 May, booking ref QX7RTA.");
        let hire = line(5, "Car hire in Lisbon with Sixt, booking ref SX-4410.");
        assert!(!is_closest(&MemoryLine::read(&flight).unwrap(), &topic));
        assert!(is_closest(&MemoryLine::read(&hire).unwrap(), &topic));
        // Most of the words that name it are near enough to show.
        let hire_desk = line(6, "Lisbon airport hire desk opens at 6am, ref LX-22.");
        assert!(is_closest(&MemoryLine::read(&hire_desk).unwrap(), &topic));
        // One of two things named is another thing's.
        let garage = Topic::of("whats the code for the garage at home", &[]);
        let home = line(7, "Home insurance is with Tranquilidade, policy 7741-0329.");
        assert!(!is_closest(&MemoryLine::read(&home).unwrap(), &garage));
        let both = line(8, "Garage door at home: code 4410.");
        assert!(is_closest(&MemoryLine::read(&both).unwrap(), &garage));
        let text = none_answers(
            std::slice::from_ref(&flight),
            &topic,
            "whats the booking ref for our car hire in lisbon",
        );
        assert!(!text.contains("QX7RTA"), "{text}");
        // Who asks, before the question, is no name of the thing.
        let topic = Topic::of(
            "Mama Ines wants to know when we fly out to lisbon so she can track it",
            &[],
        );
        assert!(is_closest(&MemoryLine::read(&flight).unwrap(), &topic));
    }

    #[test]
    fn the_closest_is_never_someone_elses_by_a_name_the_memories_hold() {
        let request = "when does nadia fly home to lyon?";
        let topic = Topic::of(request, &[]);
        let found = [
            line(
                1,
                "My cousin Nadia lives in Lyon; she arrives on Friday 4 June.",
            ),
            line(2, "Tom flies home from Lyon on Sunday 6 June at 18:30."),
        ];
        let text = none_answers(&found, &topic, request);
        assert!(!text.contains("18:30"), "{text}");
        assert!(!text.contains("4 June"), "{text}");
        // Hers, holding every name and the thing asked, is the closest.
        let hers = line(
            3,
            "Nadia flies home to Lyon on a Sunday, usually the late flight.",
        );
        let text = none_answers(&[found[1].clone(), hers], &topic, request);
        assert!(
            text.contains("late flight") && !text.contains("18:30"),
            "{text}"
        );
    }

    #[test]
    fn memories_about_the_thing_that_say_nothing_asked_are_said_to_be_there() {
        let request = "what meds is paco on again";
        let topic = Topic::of(request, &[]);
        let found = [
            line(1, "Paco sees the neurologist on Tue 15 Dec at 10:20."),
            line(2, "Paco's physio comes on Mondays and Thursdays at 11."),
        ];
        let text = none_answers(&found, &topic, request);
        assert!(
            text.starts_with("Your memories mention “paco”, but I found no memory that says that."),
            "{text}"
        );
        // Nothing found holds the thing: nothing found is said.
        let other = [line(3, "Lola is our dog, 6 years old.")];
        let text = none_answers(&other, &topic, request);
        assert!(text.starts_with("I found nothing about"), "{text}");
        // A detail one tells keeps its own offer ("Tell me the number").
        let request = "what's paco's number";
        let topic = Topic::of(request, &[]);
        let text = none_answers(&found, &topic, request);
        assert!(!text.starts_with("Your memories mention"), "{text}");
    }

    fn line(id: i64, content: &str) -> String {
        format!("[{id}] (no project, 2026-12-02) {content}")
    }

    #[test]
    fn a_memory_near_in_meaning_answers_what_no_kind_of_detail_names() {
        let topic = Topic::of("what dose of warfarin is Dad on?", &[]);
        let warfarin = line(3, "Dad takes warfarin 3 mg at 6pm every evening.");
        let memory = MemoryLine::read(&warfarin).unwrap();
        let vouched = Vouched {
            ids: vec![3],
            meaning_only: true,
            general_if_none: false,
            clearly_nearest: None,
            asks_an_amount: false,
            asks_when: None,
        };
        assert!(stands(&memory, &topic, false, &vouched));
        // Not near enough in meaning: "dose" is not in its words.
        assert!(!stands(&memory, &topic, false, &Vouched::default()));
        // A kind of detail must be held, however near: a day for a birthday.
        let birthday = Topic::of("when is Tom's birthday?", &[]);
        let calls = line(3, "Tom likes his calls after 6pm.");
        assert!(!stands(
            &MemoryLine::read(&calls).unwrap(),
            &birthday,
            false,
            &vouched
        ));
    }

    /// Memory 4 found by meaning alone, clearly the nearest, or not.
    fn nearest_is_4(clearly: bool, asks_an_amount: bool) -> Vouched {
        Vouched {
            ids: vec![4],
            meaning_only: true,
            general_if_none: false,
            clearly_nearest: clearly.then_some(Nearest {
                id: 4,
                far_ahead: false,
                thing_near: false,
            }),
            asks_an_amount,
            asks_when: None,
        }
    }

    fn stands_as(content: &str, request: &str, vouched: &Vouched) -> bool {
        let line = line(4, content);
        stands(
            &MemoryLine::read(&line).unwrap(),
            &Topic::of(request, &[]),
            false,
            vouched,
        )
    }

    #[test]
    fn the_memory_clearly_nearest_in_meaning_names_the_thing_in_its_own_words() {
        let concert = "what time is tomas's concert on friday?";
        let gig = "Tomas's band plays a gig at the Roxy on Friday 3 May: on stage at 21:00.";
        assert!(stands_as(gig, concert, &nearest_is_4(true, false)));
        // Near in meaning, but not clearly the nearest: "concert" is not
        // in its words.
        assert!(!stands_as(gig, concert, &nearest_is_4(false, false)));
        // Clearly nearest, but someone else's.
        let lenas = "Lena's band plays a gig at the Roxy on Friday 3 May: on stage at 21:00.";
        assert!(!stands_as(lenas, concert, &nearest_is_4(true, false)));
        // How much he charged is no phone number.
        let charged = "how much did tomas the plumber charge for the boiler?";
        let plumber = "Tomas, plumber, fixed the boiler in May: 0176 555 1234.";
        assert!(!stands_as(plumber, charged, &nearest_is_4(true, true)));
        let paid = "Tomas the plumber fixed the boiler in May for £180.";
        assert!(stands_as(paid, charged, &nearest_is_4(true, true)));
        // Clearly nearest and his, but another thing of his: two of the
        // words naming it are not in it.
        let lesson = "what time is tomas's swimming lesson on saturday?";
        let cricket = "Tomas has cricket practice on Wednesdays and Fridays at 17:00.";
        assert!(!stands_as(cricket, lesson, &nearest_is_4(true, false)));
    }

    #[test]
    fn far_ahead_of_every_other_half_the_naming_words_do_but_a_when_wants_a_moment() {
        // Under VOUCHED: the clearly nearest alone speaks for it.
        let nearest = |far_ahead: bool, asks_when: bool| Vouched {
            ids: Vec::new(),
            clearly_nearest: Some(Nearest {
                id: 4,
                far_ahead,
                thing_near: false,
            }),
            asks_when: asks_when.then(|| {
                use chrono::TimeZone;
                chrono::Local
                    .with_ymd_and_hms(2026, 12, 2, 10, 0, 0)
                    .earliest()
                    .unwrap()
            }),
            ..nearest_is_4(true, false)
        };
        // "neighbour" and "fetches" are not its words; "twins" and
        // "school" are.
        let fetches = "number for the neighbour who fetches the twins from school?";
        let boakye = "Mrs Boakye next door picks the twins up from school: 026 911 4470.";
        assert!(stands_as(boakye, fetches, &nearest(true, false)));
        // Only clearly nearest, all but one naming word must be its.
        assert!(!stands_as(boakye, fetches, &nearest(false, false)));
        // Fewer than half: no.
        let sewing = "number for the lady who sews the kids' school uniforms?";
        assert!(!stands_as(boakye, sewing, &nearest(true, false)));
        // Asked when, a memory without a day or a time is no answer.
        let appointment = "when is my next dentist appointment?";
        let dentist = "Dentist is Dr. Okafor at Brightsmile, tel 020 7946 0318.";
        assert!(!stands_as(dentist, appointment, &nearest(true, true)));
        let booked = "Dentist check-up with Dr. Okafor on Tuesday 12 January at 10am.";
        assert!(stands_as(booked, appointment, &nearest(true, true)));
    }

    #[test]
    fn the_thing_near_in_meaning_names_it_in_few_of_its_words() {
        // "cash" and "handed" are not its words: one naming word of three
        // is held.
        let handed = "how much was the cash handed to the plasterer";
        let plasterer = "Plasterer Jim Hale agreed £900; we paid him a £300 deposit on 2 May.";
        let nearest = |thing_near: bool| Vouched {
            clearly_nearest: Some(Nearest {
                id: 4,
                far_ahead: false,
                thing_near,
            }),
            // Under the floor that vouches for any memory that holds
            // the head word.
            ids: Vec::new(),
            ..nearest_is_4(true, true)
        };
        assert!(!stands_as(plasterer, handed, &nearest(false)));
        // The naming words are near it in meaning: it is the thing.
        assert!(stands_as(plasterer, handed, &nearest(true)));
        // Still only with what is asked in it: an amount for "how much".
        let number = "Plasterer Jim Hale, 07700 900 412, does the ceilings.";
        assert!(!stands_as(number, handed, &nearest(true)));
    }

    #[test]
    fn a_memorys_project_names_what_it_is_about() {
        // "the van" is the project "Camper van build", not the memory's words.
        let topic = Topic::of("when is the pop-top roof going on the van?", &[]);
        let roof =
            "[5] (Camper van build, 2026-12-02) Pop-top roof to be fitted on Monday 1 February.";
        let memory = MemoryLine::read(roof).unwrap();
        assert!(stands(&memory, &topic, false, &Vouched::default()));
        let elsewhere = line(5, "Pop-top roof to be fitted on Monday 1 February.");
        let memory = MemoryLine::read(&elsewhere).unwrap();
        assert!(!stands(&memory, &topic, false, &Vouched::default()));
    }
}
