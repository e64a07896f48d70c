//! Two things of the user's that a question fits equally ("when is the
//! appointment?" with the dentist's and the vet's both saved): Imprint asks
//! which, with them as the options, instead of answering from one. Equal
//! is measured: each names the thing as the request does (its words do not
//! single one out) and holds what is asked, and they are near in meaning to
//! the request.

use crate::grounding::plan::Topic;
use crate::grounding::reference::{self, Candidate, MAX_OPTIONS};
use crate::meaning::search::{Findings, FOUND};
use crate::replies::asking::Which;
use crate::replies::run::{Interrupt, Run};
use crate::store::Memory;
use crate::tools::run::MemoryLine;

/// How far below the best in meaning another memory may be and still fit
/// the question as well, when the request's words name both alike.
/// Measured with all-MiniLM-L6-v2 (`tests/judged_requests.rs`): "what time
/// is the appointment on friday?" is 0.64 to "Dentist appointment Friday
/// 3pm at Smile Clinic" and 0.50 to "Vet appointment for Biscuit Friday
/// 10am": two things of one kind differ by their other words more than by
/// how well they fit. Further below is another thing the words share.
pub const NEAR_EQUAL: f32 = 0.15;

/// As [`NEAR_EQUAL`], when the question asks a detail people keep ("the
/// wifi password", "the payment reference", "declan's number") and each
/// memory holds it for the thing named: which one's is meant is then
/// unclear however much else a memory says. Measured with
/// all-MiniLM-L6-v2 on fresh set 11 (session 22): "whats the wifi
/// password" was 0.70 to "Home wifi password: …" and 0.55 to "Shop wifi
/// (customers can use it too): network …, password …"; "whats the
/// payment reference" 0.49 and 0.32. A question asking no detail ("Tell
/// me about Anna") keeps [`NEAR_EQUAL`]: each memory of hers answers it.
/// One naming only a kind of thing takes this band as a detail does
/// ("how much was the quote?": the mason's quote 0.35, the electrician's
/// "quoted" 0.17, fresh set 20): its one word fits each memory of the
/// kind alike, and what else a memory says decides its similarity.
pub const NEAR_EQUAL_FOR_A_DETAIL: f32 = 0.30;

impl Run {
    /// When several of the memories `found` fit the question equally, asks
    /// which one is meant: what the answer named, or `None` when nothing
    /// is ambiguous or no answer came (the answer step then goes on from
    /// all of them, as before).
    pub(super) async fn which_is_meant(
        &mut self,
        findings: &Findings,
        found: &[String],
        topic: &Topic,
    ) -> Result<Option<Which>, Interrupt> {
        let findings = self.with_every_found(findings, found).await;
        let candidates = equally_fitting(&findings, found, topic, self.talk.request());
        if candidates.len() < 2 {
            return Ok(None);
        }
        let phrase = topic.phrase(self.talk.request());
        tracing::info!(reply = %self.reply.id, options = candidates.len(), %phrase, "several memories fit the question equally: asking which");
        let chosen = self
            .ask_which_memory("Which one do you mean?".to_string(), phrase, candidates)
            .await?;
        if let Some(Which::Chosen(memories)) = &chosen {
            self.settled_by(memories);
        }
        Ok(chosen)
    }
}

impl Run {
    /// `findings` with every memory the words' search `found` in them and
    /// its similarity in meaning: the words may find a memory the search
    /// by meaning ranked too low to keep or to measure ("the nurse's number": Mum's ward
    /// nurse as well as the vet nurse), and it fits the question as well.
    async fn with_every_found(&self, findings: &Findings, found: &[String]) -> Findings {
        let mut findings = findings.clone();
        let Some(vector) = findings.vector.clone() else {
            return findings;
        };
        let found_ids: Vec<i64> = found
            .iter()
            .filter_map(|line| MemoryLine::read(line).map(|m| m.id))
            .collect();
        // Found by words alone, a memory has no similarity yet.
        for f in findings.found.iter_mut() {
            if f.similarity.is_none() && found_ids.contains(&f.memory.id) {
                f.similarity = self.env.meaning.similarity_of(f.memory.id, &vector);
            }
        }
        let missing: Vec<i64> = found_ids
            .into_iter()
            .filter(|id| !findings.found.iter().any(|f| f.memory.id == *id))
            .collect();
        if missing.is_empty() {
            return findings;
        }
        let memories = match self.reply.store.memories_by_ids(missing).await {
            Ok(memories) => memories,
            Err(error) => {
                tracing::warn!(%error, "could not read the memories found by words");
                return findings;
            }
        };
        for memory in memories {
            let similarity = self.env.meaning.similarity_of(memory.id, &vector);
            findings.found.push(crate::meaning::search::Found {
                memory,
                similarity,
                by_words: None,
            });
        }
        findings
    }
}

/// The memories of `found` that fit the question equally, as options (at
/// most [`MAX_OPTIONS`]); fewer than two when one fits best.
pub fn equally_fitting(
    findings: &Findings,
    found: &[String],
    topic: &Topic,
    request: &str,
) -> Vec<Candidate> {
    let found_ids: Vec<i64> = found
        .iter()
        .filter_map(|line| MemoryLine::read(line).map(|m| m.id))
        .collect();
    if topic.is_empty() {
        return Vec::new();
    }
    let named_text = |m: &Memory| crate::memory_lines::named_text(&m.content, m.project.as_deref());
    // Each memory the words name that holds what is asked, with its
    // nearness in meaning and whether the words' search found it.
    let named: Vec<(&Memory, f32, bool)> = findings
        .found
        .iter()
        .filter_map(|f| Some((&f.memory, f.similarity?)))
        .filter(|(m, _)| topic.named_in(&named_text(m)) && topic.asked_in(&m.content))
        .map(|(m, s)| (m, s, found_ids.contains(&m.id)))
        .collect();
    // Those the words' search found: it ranks by the words of the story
    // too ("lights went off at the bakery, which cash power number…"
    // found the bakery's meter, not the house's), which meaning does not
    // weigh (fresh sets 23 and 24, session 35). One it ranked too low to
    // keep fits as well ("LEC prepaid meter at the yard" beside the
    // house's, for "whats the LEC meter number") unless the request's
    // other words, its story too, single out those found ("the current
    // finished at the yard, what's the LEC meter number").
    let said_in = |m: &Memory| Topic::request_words_held(request, &named_text(m));
    let most_said = named
        .iter()
        .filter(|(_, _, by_words)| *by_words)
        .map(|(m, _, _)| said_in(m))
        .max();
    // Those found first: the options keep that order.
    let (found_by_words, unranked): (Vec<_>, Vec<_>) =
        named.into_iter().partition(|(_, _, by_words)| *by_words);
    let mut scored: Vec<(&Memory, f32, bool)> = found_by_words
        .into_iter()
        .chain(
            unranked
                .into_iter()
                .filter(|(m, _, _)| most_said.is_some_and(|most| said_in(m) >= most)),
        )
        .map(|(m, s, _)| (m, s, true))
        .collect();
    // A thing of the kind named in other words ("Tuition … due Jan 15"
    // for "when are the school fees due", with "School fees … due Jan
    // 11" saved): none of the naming words, but what is asked, whose it
    // is, and nearer in meaning than any memory the words name, and near
    // enough to speak to the request at all ([`FOUND`]): under it, a
    // memory naming nothing asked is nearer only by chance ("number for
    // the sports hall?": a rent's landlord's number at 0.2640, a hair
    // above the memory naming the hall at 0.2639).
    let best_named = scored.iter().map(|(_, s, _)| *s).max_by(f32::total_cmp);
    if let Some(best_named) = best_named.filter(|_| !topic.asked.is_empty()) {
        scored.extend(findings.found.iter().filter_map(|f| {
            let similarity = f.similarity?;
            (similarity > best_named
                && similarity >= FOUND
                && topic.names_held(&named_text(&f.memory)) == 0
                && topic.owners_in(&f.memory.content)
                && topic.asked_in(&f.memory.content))
            .then_some((&f.memory, similarity, false))
        }));
    }
    tracing::debug!(
        found = found_ids.len(),
        fitting = ?scored.iter().map(|(m, s, _)| (m.id, *s)).collect::<Vec<_>>(),
        "memories that name the thing and hold what is asked"
    );
    // No floor in meaning: a short question ("what's the account
    // number?") is far from every memory that holds it among other
    // things, and two that hold its words alike fit it alike.
    let Some(best) = scored.iter().map(|(_, s, _)| *s).max_by(f32::total_cmp) else {
        return Vec::new();
    };
    let near_equal = if topic.detail().is_some() || topic.names_only_a_kind() {
        NEAR_EQUAL_FOR_A_DETAIL
    } else {
        NEAR_EQUAL
    };
    let near: Vec<(&Memory, bool)> = scored
        .iter()
        .filter(|(_, s, _)| *s >= best - near_equal)
        .map(|(m, _, named)| (*m, *named))
        .collect();
    // "my NIF": Rui's is his, not the user's.
    let near = super::preferring(near, |(m, _)| !topic.mine || !topic.anothers_in(&m.content));
    // The request's words single one out ("Tom's birthday" over Tim's),
    // among those they name; one named in other words stays beside them.
    let most = near
        .iter()
        .filter(|(_, named)| *named)
        .map(|(m, _)| topic.score(&m.content))
        .max();
    let tied: Vec<(&Memory, bool)> = near
        .into_iter()
        .filter(|(m, named)| !named || Some(topic.score(&m.content)) == most)
        .collect();
    // Then all the request says, the story before the question too ("we're
    // out of units at the shop, what's the meter no.": the shop's meter).
    let most_said = tied
        .iter()
        .filter(|(_, named)| *named)
        .map(|(m, _)| said_in(m))
        .max();
    let tied: Vec<Memory> = tied
        .into_iter()
        .filter(|(m, named)| !named || Some(said_in(m)) == most_said)
        .map(|(m, _)| m.clone())
        .collect();
    let mut options = reference::distinct_candidates(&tied);
    options.truncate(MAX_OPTIONS);
    options
}

#[cfg(test)]
mod tests {
    use super::{equally_fitting, NEAR_EQUAL};
    use crate::grounding::plan::Topic;
    use crate::meaning::search::{Findings, Found};
    use crate::memory_lines::memory_line;
    use crate::store::Memory;

    /// Memories found with these similarities, and their search lines.
    fn found(memories: &[(&str, f32)]) -> (Findings, Vec<String>) {
        let found: Vec<Found> = memories
            .iter()
            .enumerate()
            .map(|(i, (content, similarity))| Found {
                memory: Memory {
                    id: i as i64 + 1,
                    content: content.to_string(),
                    project: None,
                    tags: Vec::new(),
                    created_at: "2026-12-01T10:00:00.000Z".into(),
                },
                similarity: Some(*similarity),
                by_words: None,
            })
            .collect();
        let lines = found.iter().map(|f| memory_line(&f.memory)).collect();
        let findings = Findings {
            found,
            by_meaning: true,
            vector: None,
        };
        (findings, lines)
    }

    fn options(request: &str, memories: &[(&str, f32)]) -> Vec<String> {
        options_found_first(request, memories, memories.len())
    }

    /// As [`options`], the words' search having found only the first
    /// `by_words` memories (the rest found by meaning alone).
    fn options_found_first(
        request: &str,
        memories: &[(&str, f32)],
        by_words: usize,
    ) -> Vec<String> {
        let (findings, mut lines) = found(memories);
        lines.truncate(by_words);
        equally_fitting(&findings, &lines, &Topic::of(request, &[]), request)
            .into_iter()
            .map(|c| c.label)
            .collect()
    }

    #[test]
    fn a_kind_named_in_other_words_and_nearer_in_meaning_fits_too() {
        let fees = |tuition: f32| {
            options_found_first(
                "when are the school fees due",
                &[
                    (
                        "Ben is in year 8 at St Mary's. School fees 1,200 a term, due 11 Jan",
                        0.42,
                    ),
                    (
                        "Amy is at Hillside Sixth Form. Tuition 650 a term, due 15 Jan",
                        tuition,
                    ),
                ],
                1,
            )
        };
        assert_eq!(fees(0.48).len(), 2, "{:?}", fees(0.48));
        // Further in meaning than what the words name: another thing.
        assert!(fees(0.40).len() < 2, "{:?}", fees(0.40));
        // Both far in meaning: nearer by chance, not another word for it.
        let far = options_found_first(
            "when are the school fees due",
            &[
                (
                    "Ben is in year 8 at St Mary's. School fees 1,200 a term, due 11 Jan",
                    0.26,
                ),
                (
                    "Amy is at Hillside Sixth Form. Tuition 650 a term, due 15 Jan",
                    0.27,
                ),
            ],
            1,
        );
        assert!(far.len() < 2, "{far:?}");
        // Holding some of the words but not all is a near miss, not
        // other words for the same kind.
        let insurance = options_found_first(
            "when is the car insurance due",
            &[
                ("Car insurance with Aviva, due 14 May", 0.55),
                ("Car tax due 3 March", 0.60),
            ],
            1,
        );
        assert!(insurance.len() < 2, "{insurance:?}");
        // Without what is asked, it is no option.
        let no_day = options_found_first(
            "when are the school fees due",
            &[
                ("School fees 1,200 a term, due 11 Jan", 0.42),
                ("Tuition at Hillside is paid by Dad", 0.50),
            ],
            1,
        );
        assert!(no_day.len() < 2, "{no_day:?}");
    }

    #[test]
    fn one_the_words_name_alike_but_did_not_rank_fits_unless_other_words_single_out() {
        let meters = |request: &str| {
            options_found_first(
                request,
                &[
                    ("Water meter at the flat: serial 88 1204 7731", 0.52),
                    ("Water meter at the allotment: serial 88 1204 7713", 0.44),
                ],
                1,
            )
        };
        assert_eq!(meters("whats the water meter serial").len(), 2);
        // The story names the place: the one found is meant.
        let told = meters("the tap at the flat is dry, whats the water meter serial");
        assert!(told.len() < 2, "{told:?}");
        // Both found by the words: the story still singles one out.
        let both = [
            ("Water meter at the flat: serial 88 1204 7731", 0.52),
            ("Water meter at the allotment: serial 88 1204 7713", 0.50),
        ];
        assert_eq!(options("whats the water meter serial", &both).len(), 2);
        let story = options(
            "the allotment tap is dry, whats the water meter serial",
            &both,
        );
        assert!(story.len() < 2, "{story:?}");
        // Named by the words only in part: no option.
        let gas = options_found_first(
            "whats the water meter serial",
            &[
                ("Water meter at the flat: serial 88 1204 7731", 0.52),
                ("Gas meter at the flat: serial 41 0092 5567", 0.50),
            ],
            1,
        );
        assert!(gas.len() < 2, "{gas:?}");
    }

    #[test]
    fn two_things_that_fit_equally_are_both_options() {
        let both = options(
            "what time is the appointment on friday?",
            &[
                ("Dentist appointment Friday 3pm at Smile Clinic", 0.52),
                ("Vet appointment for Biscuit Friday 10am", 0.50),
                ("Car service booked for Monday", 0.31),
            ],
        );
        assert_eq!(both.len(), 2, "{both:?}");
    }

    #[test]
    fn one_ahead_in_meaning_or_named_by_the_words_is_no_question() {
        // Further ahead in meaning than NEAR_EQUAL.
        let ahead = options(
            "when is the dentist?",
            &[
                ("Dentist appointment Friday 3pm", 0.70),
                ("Vet appointment Friday 10am", 0.70 - NEAR_EQUAL - 0.05),
            ],
        );
        assert!(ahead.len() < 2, "{ahead:?}");
        // Near in meaning, but the request names Tom, not Tim.
        let named = options(
            "when is Tom's birthday?",
            &[
                ("Tom's birthday is 3 May", 0.61),
                ("Tim's birthday is 4 June", 0.60),
            ],
        );
        assert!(named.len() < 2, "{named:?}");
        // A short question is far in meaning from memories that hold it
        // among other things; holding its words alike, they fit alike.
        let short = options(
            "what's the account number?",
            &[
                (
                    "Timber comes from Brook & Sons, account number BR-5510.",
                    0.26,
                ),
                (
                    "Paint is ordered from Hue Ltd, account number HU-5501.",
                    0.25,
                ),
            ],
        );
        assert_eq!(short.len(), 2, "{short:?}");
    }

    #[test]
    fn a_detail_held_by_two_memories_is_asked_about_however_much_else_they_say() {
        // The same gap: a detail asked is asked about, a person told
        // about is not.
        let gap = NEAR_EQUAL + 0.1;
        let password = options(
            "whats the wifi password",
            &[
                ("Home wifi password: Lantern#22", 0.70),
                (
                    "Studio wifi (guests may use it): network Kiln, password Glaze#9",
                    0.70 - gap,
                ),
            ],
        );
        assert_eq!(password.len(), 2, "{password:?}");
        let about = options(
            "tell me about Priya",
            &[
                ("Priya's phone number is 0161 555 0101", 0.60),
                ("Priya likes jasmine tea", 0.60 - gap),
            ],
        );
        assert!(about.len() < 2, "{about:?}");
    }

    #[test]
    fn a_thing_named_only_by_its_kind_is_asked_about_however_much_else_they_say() {
        let gap = NEAR_EQUAL + 0.05;
        let quotes = [
            (
                "Roofer for the extension: Dale Price, his quote is £4,200 for the flat roof.",
                0.40,
            ),
            (
                "Plasterer (Kim Webb) quoted £1,150 for the back bedroom, starts in March.",
                0.40 - gap,
            ),
        ];
        assert_eq!(options("how much was the quote?", &quotes).len(), 2);
        // Whose or which it is singles one out.
        assert!(options("how much was the roofer's quote?", &quotes).len() < 2);
        assert!(options("how much was the quote for the flat roof?", &quotes).len() < 2);
    }

    #[test]
    fn two_memories_that_open_alike_are_told_apart_by_what_follows() {
        let kilns = options(
            "when's the kiln booked?",
            &[
                (
                    "Glass co-op: the big kiln is booked for me on 15 December.",
                    0.71,
                ),
                (
                    "Glass co-op: the small kiln is booked on 19 December.",
                    0.61,
                ),
            ],
        );
        assert_eq!(kilns.len(), 2, "{kilns:?}");
        assert_ne!(kilns[0], kilns[1]);
        assert!(kilns[0].starts_with("Big kiln"), "{kilns:?}");
    }

    #[test]
    fn my_thing_is_not_someone_elses() {
        let mine = options(
            "what's my NIF?",
            &[
                ("My NIF (tax number): 231 884 507.", 0.62),
                ("Rui's NIF: 231 848 507.", 0.61),
            ],
        );
        assert!(mine.len() < 2, "{mine:?}");
        // Without "my", either may be meant.
        let either = options(
            "what's the NIF?",
            &[
                ("My NIF (tax number): 231 884 507.", 0.62),
                ("Rui's NIF: 231 848 507.", 0.61),
            ],
        );
        assert_eq!(either.len(), 2, "{either:?}");
    }

    #[test]
    fn a_memory_without_what_is_asked_is_no_option() {
        // The clinic's name answers no "when".
        let when = options(
            "when is my dentist appointment?",
            &[
                ("Dentist appointment Tuesday 14 March 3pm", 0.66),
                ("Dentist is Dr Patel at Smile Clinic", 0.64),
            ],
        );
        assert!(when.len() < 2, "{when:?}");
    }
}
