//! Decoding's rules, apart from the model and the search: which tokens may come
//! next (the config's suppress lists, no special token but the end), when
//! to stop (the end token, a cap, a loop of repeats), and how sure the
//! recogniser was (the mean log-probability of what it wrote).

/// What the config and the vocabulary say about choosing tokens.
#[derive(Clone, Debug)]
pub struct Rules {
    /// `<|endoftext|>`: the end of a transcript. Every id above it is a
    /// special token (task, language, timestamps), never written.
    pub end: u32,
    /// Never chosen (the config's `suppress_ids`).
    pub suppress: Vec<u32>,
    /// Not chosen first (the config's `suppress_ids_begin`: a bare space,
    /// the end).
    pub suppress_begin: Vec<u32>,
}

impl Rules {
    /// Sets the logits of the tokens not allowed after `step` tokens were
    /// written to −∞: the special tokens but the end, the config's
    /// suppressed tokens, and at the first step its `suppress_ids_begin`.
    pub fn mask(&self, logits: &mut [f32], step: usize) {
        let end = self.end as usize;
        for banned in logits.iter_mut().skip(end + 1) {
            *banned = f32::NEG_INFINITY;
        }
        let begin: &[u32] = if step == 0 { &self.suppress_begin } else { &[] };
        for id in self.suppress.iter().chain(begin) {
            if let Some(l) = logits.get_mut(*id as usize) {
                *l = f32::NEG_INFINITY;
            }
        }
    }
}

/// Logits into log-probabilities in place: l − log Σ exp(l) over the finite
/// logits; the others (masked, NaN) become −∞.
pub fn log_softmax(logits: &mut [f32]) {
    let best = logits
        .iter()
        .copied()
        .filter(|l| l.is_finite())
        .fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits
        .iter()
        .filter(|l| l.is_finite())
        .map(|l| (l - best).exp())
        .sum();
    let norm = best + sum.ln();
    for l in logits.iter_mut() {
        *l = if l.is_finite() {
            *l - norm
        } else {
            f32::NEG_INFINITY
        };
    }
}

/// The most tokens written for `seconds` of speech: generous for anyone's
/// speaking rate (about 4 tokens a second), short of a runaway.
pub fn token_cap(seconds: f32, room: usize) -> usize {
    let cap = 16 + (seconds.max(0.0) * 8.0) as usize;
    cap.min(224).min(room)
}

/// The shortest run of tokens whose second saying is a loop: about a
/// short sentence ("Remind me to call" is 4–5 tokens; 6 leaves room for
/// a phrase a person says twice on purpose).
pub const SENTENCE_RUN: usize = 6;

/// Whether `tokens` end in a loop, and how many tokens to drop to keep
/// what was said before it: a group of up to 8 tokens said three times
/// over (a single token four times), or the last [`SENTENCE_RUN`] tokens
/// already written before, apart (the first words of a sentence said
/// again, however long the sentence is). The second is found at the
/// first repeat, so a sentence said again is cut as soon as it starts,
/// not once it has been said three times.
pub fn repeated_tail(tokens: &[u32]) -> Option<usize> {
    for size in 1..=8 {
        let times = if size == 1 { 4 } else { 3 };
        let span = size * times;
        if tokens.len() < span {
            break;
        }
        let tail = &tokens[tokens.len() - span..];
        let group = &tail[..size];
        if tail.chunks(size).all(|c| c == group) {
            return Some(span - size);
        }
    }
    let run = SENTENCE_RUN;
    if tokens.len() >= 2 * run {
        let (before, tail) = tokens.split_at(tokens.len() - run);
        if before.windows(run).any(|w| w == tail) {
            return Some(run);
        }
    }
    None
}

/// `text` with what it says again dropped, the first saying kept.
///
/// - The same words said two or more times over ("The second one. The
///   second one.", "Tomorrow morning, Tomorrow morning"): a short answer
///   heard with silence after it is written again by Whisper, twice being
///   too few for [`repeated_tail`] to call it a loop.
/// - A sentence that says an earlier one again — the same words, the
///   start of them (a repeat cut short), or nearly the same words ("at
///   nine" then "at 9", one word in five differing) — ends the text
///   there: "A. B. A. B." is "A. B.", and a sentence said three times is
///   heard once.
///
/// Any other text as it is.
pub fn said_once(text: &str) -> &str {
    let text = whole_repeats_once(text);
    let ends = sentence_ends(text);
    let start_of = |i: usize| if i == 0 { 0 } else { ends[i - 1] };
    for i in 1..ends.len() {
        let later = plain(&text[start_of(i)..ends[i]]);
        if (0..i).any(|j| says_again(&plain(&text[start_of(j)..ends[j]]), &later)) {
            return text[..start_of(i)].trim_end();
        }
    }
    text
}

/// Where each sentence of `text` ends: after its `.`, `!` or `?` (one
/// followed by a space or the end: "3.5" is one word), or at the end.
fn sentence_ends(text: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?') && next_is_space {
            ends.push(i + c.len_utf8());
        }
    }
    if ends
        .last()
        .is_none_or(|&end| !text[end..].trim().is_empty())
    {
        ends.push(text.len());
    }
    ends
}

/// Whether the sentence `later` says `earlier` again: the same words, the
/// start of them, or (four words or more) at most one word in five
/// different.
fn says_again(earlier: &[String], later: &[String]) -> bool {
    if later.is_empty() || earlier.is_empty() {
        return false;
    }
    if earlier.starts_with(later) {
        return true;
    }
    later.len() >= 4
        && earlier.len() >= 4
        && word_edits(earlier, later) * 5 <= earlier.len().max(later.len())
}

/// Word-level edit distance.
fn word_edits(a: &[String], b: &[String]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let next = (row[j] + 1)
                .min(row[j + 1] + 1)
                .min(diagonal + usize::from(x != y));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

fn plain(text: &str) -> Vec<String> {
    imprint_text::words::plain(text)
}

/// `text` said once when it is the same words said over and over.
fn whole_repeats_once(text: &str) -> &str {
    let spans: Vec<(usize, usize)> = text
        .split_whitespace()
        .map(|w| {
            let start = w.as_ptr() as usize - text.as_ptr() as usize;
            (start, start + w.len())
        })
        .collect();
    let plain: Vec<String> = spans
        .iter()
        .map(|&(s, e)| {
            text[s..e]
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect()
        })
        .collect();
    for period in 1..=plain.len() / 2 {
        if plain.len().is_multiple_of(period)
            && plain.chunks(period).all(|chunk| chunk == &plain[..period])
        {
            let end = spans[period - 1].1;
            return text[..end].trim_end_matches([',', ';']);
        }
    }
    text
}

/// A choice heard as the whole utterance reads at least this (the mean
/// log-probability of its tokens and the end) to stand for what was said.
/// Measured with `eval_speech` on the project's sets and the held-out
/// recordings (session 30): a choice said, heard in other words ("Maria"
/// as "Berea.", "Holiday" as "Our Day."), read −0.7 to −1.4; the nearest
/// choice under two other people talking and no answer, −2.0 and lower.
pub const WHOLE_CHOICE_FLOOR: f32 = -1.5;
/// …and no further than this below what the search wrote (a request read
/// as "Stop" was 2.1 below it or more).
pub const WHOLE_CHOICE_BEHIND: f32 = 1.5;
/// …and this far ahead of the next choice (the other choices of a said
/// one read 2.3 or more below it).
pub const WHOLE_CHOICE_LEAD: f32 = 2.0;

/// The choice the audio reads as, when what the search wrote names none:
/// of `readings` (each choice's mean log-probability as the whole
/// transcript), the best, when it clears [`WHOLE_CHOICE_FLOOR`], is within
/// [`WHOLE_CHOICE_BEHIND`] of what was written (`written`, its mean), and
/// leads the next by [`WHOLE_CHOICE_LEAD`]. With it, how much less likely
/// it reads than what was written: exp(difference of the means), 0–1.
pub fn whole_choice(written: f32, readings: &[(String, f32)]) -> Option<(&str, f32)> {
    let mut ranked: Vec<&(String, f32)> = readings.iter().filter(|(_, m)| m.is_finite()).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (best, mean) = ranked.first().map(|(t, m)| (t.as_str(), *m))?;
    let lead = ranked.get(1).map_or(f32::INFINITY, |(_, next)| mean - next);
    (mean >= WHOLE_CHOICE_FLOOR
        && written - mean <= WHOLE_CHOICE_BEHIND
        && lead >= WHOLE_CHOICE_LEAD)
        .then(|| (best, (mean - written).exp().clamp(0.0, 1.0)))
}

/// exp(mean log-probability) of the tokens written (and the end), 0–1,
/// from their sum and count.
pub fn confidence(sum_logprob: f32, scored: usize) -> Option<f32> {
    if scored == 0 {
        return None;
    }
    Some((sum_logprob / scored as f32).exp().clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readings(of: &[(&str, f32)]) -> Vec<(String, f32)> {
        of.iter().map(|(t, m)| (t.to_string(), *m)).collect()
    }

    #[test]
    fn a_choice_read_nearly_as_well_as_what_was_written_stands_for_it() {
        // "Maria" heard as "Berea." (−0.63): Maria reads −0.73.
        let heard = readings(&[("Peter", -4.6), ("Maria", -0.73), ("Tom", -5.0)]);
        let (choice, ratio) = whole_choice(-0.63, &heard).expect("a choice");
        assert_eq!(choice, "Maria");
        assert!((ratio - (-0.1f32).exp()).abs() < 1e-4, "{ratio}");
        // The lone word of a stop hint needs no lead.
        let stop = readings(&[("Stop", -1.04)]);
        assert_eq!(whole_choice(-0.32, &stop).map(|c| c.0), Some("Stop"));
    }

    #[test]
    fn no_choice_stands_when_it_reads_poorly_far_behind_or_near_another() {
        // Two other people talking, no answer: the nearest choice −2.0.
        let babble = readings(&[("Imprint", -2.01), ("Billing", -3.76)]);
        assert_eq!(whole_choice(-0.58, &babble), None);
        // A request while a reply runs: "Stop" far below what was written.
        let request = readings(&[("Stop", -1.4)]);
        assert_eq!(whole_choice(0.2, &request), None);
        // Two choices alike ("Maria" and "Tom" under reverb).
        let alike = readings(&[("Maria", -1.2), ("Tom", -1.9)]);
        assert_eq!(whole_choice(-0.8, &alike), None);
        // A choice that cannot be read at all is no candidate.
        let none = readings(&[("Peter", f32::NEG_INFINITY)]);
        assert_eq!(whole_choice(-0.5, &none), None);
    }

    fn rules() -> Rules {
        Rules {
            end: 5,
            suppress: vec![1],
            suppress_begin: vec![2, 5],
        }
    }

    #[test]
    fn suppressed_and_special_tokens_are_masked() {
        // id:               0    1     2    3    4    5    6      7
        let logits = [0.0, 9.0, 8.0, 1.0, 2.0, 3.0, 10.0, 10.0];
        let mut first = logits;
        rules().mask(&mut first, 0);
        let allowed: Vec<usize> = (0..8).filter(|i| first[*i].is_finite()).collect();
        assert_eq!(
            allowed,
            vec![0, 3, 4],
            "1 always, 2 and the end at first, 6 and 7 special"
        );
        let mut later = logits;
        rules().mask(&mut later, 1);
        let allowed: Vec<usize> = (0..8).filter(|i| later[*i].is_finite()).collect();
        assert_eq!(allowed, vec![0, 2, 3, 4, 5]);
    }

    #[test]
    fn log_softmax_normalises_the_finite_logits() {
        let mut l = [2f32.ln(), f32::NEG_INFINITY, 0.0, 0.0, f32::NAN];
        log_softmax(&mut l);
        // e^l = 2, 1, 1 over the finite ones.
        assert!((l[0] - 0.5f32.ln()).abs() < 1e-6);
        assert!((l[2] - 0.25f32.ln()).abs() < 1e-6);
        assert_eq!(l[1], f32::NEG_INFINITY);
        assert_eq!(l[4], f32::NEG_INFINITY);
    }

    #[test]
    fn loops_are_found_and_cut_to_one_group() {
        assert_eq!(repeated_tail(&[1, 2, 3]), None);
        assert_eq!(
            repeated_tail(&[7, 7, 7]),
            None,
            "three of one token can be speech"
        );
        assert_eq!(repeated_tail(&[1, 7, 7, 7, 7]), Some(3));
        assert_eq!(repeated_tail(&[9, 1, 2, 1, 2, 1, 2]), Some(4));
        assert_eq!(repeated_tail(&[1, 2, 1, 2, 3]), None);
    }

    #[test]
    fn a_sentence_said_again_is_cut_at_its_first_repeat() {
        // A 10-token sentence, then its first six tokens again: cut there,
        // the first saying kept whole.
        let sentence: Vec<u32> = (10..20).collect();
        let mut written = sentence.clone();
        for (i, token) in sentence.iter().enumerate() {
            written.push(*token);
            let cut = repeated_tail(&written);
            if i + 1 < SENTENCE_RUN {
                assert_eq!(cut, None, "{} tokens of the repeat", i + 1);
            } else {
                assert_eq!(cut, Some(SENTENCE_RUN));
                written.truncate(written.len() - SENTENCE_RUN);
                break;
            }
        }
        assert_eq!(written, sentence);
        // Longer than the 8-token groups, and a repeat that differs at its
        // end (only its start is said again): still cut.
        let mut long: Vec<u32> = (100..130).collect();
        long.extend(100..106);
        assert_eq!(repeated_tail(&long), Some(SENTENCE_RUN));
        // A run said again with other words between is a loop too.
        let mut between: Vec<u32> = (1..=6).collect();
        between.extend([40, 41, 42]);
        between.extend(1..=6);
        assert_eq!(repeated_tail(&between), Some(SENTENCE_RUN));
        // Five tokens again is a phrase, not a sentence: kept.
        let mut phrase: Vec<u32> = (1..=5).collect();
        phrase.extend([40, 41, 42]);
        phrase.extend(1..=5);
        assert_eq!(repeated_tail(&phrase), None);
        // Distinct tokens never loop, however many.
        let distinct: Vec<u32> = (0..224).collect();
        assert_eq!(repeated_tail(&distinct), None);
        assert_eq!(repeated_tail(&[]), None);
    }

    #[test]
    fn a_text_said_twice_over_is_said_once() {
        assert_eq!(
            said_once("The second one. The second one."),
            "The second one."
        );
        assert_eq!(
            said_once("Tomorrow morning, Tomorrow morning"),
            "Tomorrow morning"
        );
        assert_eq!(said_once("Billing. Billing. Billing."), "Billing.");
        // Not the same words over: as it is.
        assert_eq!(said_once("Stop, stop it."), "Stop, stop it.");
        assert_eq!(
            said_once("Remind me to call Anna."),
            "Remind me to call Anna."
        );
        assert_eq!(said_once(""), "");
    }

    #[test]
    fn a_sentence_said_again_is_heard_once() {
        let once = "Remind me to call Anna tomorrow at nine.";
        assert_eq!(said_once(&format!("{once} {once} {once}")), once);
        assert_eq!(
            said_once(
                "Remind me to call Anna tomorrow at nine. Remind me to call Anna tomorrow at 9."
            ),
            once,
            "nearly the same words"
        );
        assert_eq!(
            said_once("Remind me to call Anna tomorrow at nine. Remind me to"),
            once,
            "a repeat cut short"
        );
        assert_eq!(
            said_once("Add milk. Add eggs. Add milk. Add eggs."),
            "Add milk. Add eggs.",
            "the first repeat ends it"
        );
        assert_eq!(
            said_once("Billing. Billing, please."),
            "Billing. Billing, please."
        );
        // Sentences that only share words are kept.
        let two = "Remind me to call Anna. Remind me to water the garden on Sunday.";
        assert_eq!(said_once(two), two);
        assert_eq!(
            said_once("No. No wait, the second."),
            "No. No wait, the second."
        );
        assert_eq!(
            said_once("It costs 3.5 dollars. Pay it."),
            "It costs 3.5 dollars. Pay it."
        );
        assert_eq!(said_once("Stop! Stop? Stop."), "Stop!");
    }

    #[test]
    fn the_cap_and_the_confidence_stay_in_range() {
        assert_eq!(token_cap(3.0, 400), 40);
        assert_eq!(token_cap(100.0, 400), 224);
        assert_eq!(token_cap(3.0, 10), 10);
        assert_eq!(confidence(0.0, 0), None);
        assert_eq!(confidence(0.0, 2), Some(1.0));
        let c = confidence(-0.4, 2).unwrap();
        assert!((c - (-0.2f32).exp()).abs() < 1e-6);
    }
}
