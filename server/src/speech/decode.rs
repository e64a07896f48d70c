//! Greedy decoding's rules, apart from the model: which tokens may come
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

/// One chosen token and its log-probability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    pub token: u32,
    pub logprob: f32,
}

impl Rules {
    /// The most likely allowed token after `step` tokens were written.
    /// `logits` are masked in place. `None` when nothing is allowed (or
    /// every logit is NaN).
    pub fn choose(&self, logits: &mut [f32], step: usize) -> Option<Choice> {
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
        let (token, best) = logits
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        // log-softmax at the winner: best − log Σ exp(l).
        let sum: f32 = logits
            .iter()
            .filter(|l| l.is_finite())
            .map(|l| (l - best).exp())
            .sum();
        Some(Choice {
            token: token as u32,
            logprob: -sum.ln(),
        })
    }
}

/// The most tokens written for `seconds` of speech: generous for anyone's
/// speaking rate (about 4 tokens a second), short of a runaway.
pub fn token_cap(seconds: f32, room: usize) -> usize {
    let cap = 16 + (seconds.max(0.0) * 8.0) as usize;
    cap.min(224).min(room)
}

/// Whether `tokens` end in a loop: a group of up to 8 tokens said three
/// times over (a single token four times). Returns how many tokens to
/// drop to keep the group once.
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
    None
}

/// exp(mean log-probability) of the tokens written (and the end): 0–1.
pub fn confidence(logprobs: &[f32]) -> Option<f32> {
    if logprobs.is_empty() {
        return None;
    }
    let mean = logprobs.iter().sum::<f32>() / logprobs.len() as f32;
    Some(mean.exp().clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules {
            end: 5,
            suppress: vec![1],
            suppress_begin: vec![2, 5],
        }
    }

    #[test]
    fn suppressed_and_special_tokens_are_never_chosen() {
        // id:           0    1     2    3    4    5    6      7
        let logits = [0.0, 9.0, 8.0, 1.0, 2.0, 3.0, 10.0, 10.0];
        let first = rules().choose(&mut logits.clone(), 0).unwrap();
        assert_eq!(
            first.token, 4,
            "1 always, 2 and the end at first, 6 and 7 special"
        );
        let later = rules().choose(&mut logits.clone(), 1).unwrap();
        assert_eq!(later.token, 2);
        assert!(later.logprob < 0.0);
        let all_gone = rules().choose(&mut [0.0, 1.0, f32::NAN, f32::NAN, f32::NAN, f32::NAN], 0);
        assert_eq!(all_gone.map(|c| c.token), Some(0));
    }

    #[test]
    fn the_logprob_is_a_log_softmax_of_the_allowed_tokens() {
        let choice = rules().choose(&mut [2f32.ln(), 9.0, 0.0, 0.0, 0.0, 0.0], 1);
        // allowed: ids 0, 2, 3, 4, 5 with e^l = 2, 1, 1, 1, 1
        let choice = choice.unwrap();
        assert_eq!(choice.token, 0);
        assert!((choice.logprob - (2.0f32 / 6.0).ln()).abs() < 1e-5);
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
    fn the_cap_and_the_confidence_stay_in_range() {
        assert_eq!(token_cap(3.0, 400), 40);
        assert_eq!(token_cap(100.0, 400), 224);
        assert_eq!(token_cap(3.0, 10), 10);
        assert_eq!(confidence(&[]), None);
        assert_eq!(confidence(&[0.0, 0.0]), Some(1.0));
        let c = confidence(&[-0.1, -0.3]).unwrap();
        assert!((c - (-0.2f32).exp()).abs() < 1e-6);
    }
}
