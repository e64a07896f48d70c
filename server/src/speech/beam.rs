//! Beam search, as Whisper does it (`BeamSearchDecoder`, patience 1), over
//! any model that gives the next logits of a batch of beams ([`Step`]).
//!
//! Each step, every live beam proposes its `width + 1` most likely allowed
//! tokens ([`Rules::mask`]); the candidates are ranked by their sum of
//! log-probabilities; those ending in `<|endoftext|>` (or in a loop, cut
//! to one group) are finished, and the best `width` others live on. The
//! search stops once `width` sequences are finished, or at the cap (the
//! live beams then count as finished). The answer is the finished sequence
//! with the best sum of log-probabilities divided by its length in tokens
//! (Whisper's ranking when no length penalty is given). A width of 1 is
//! greedy decoding.

use super::decode::{log_softmax, repeated_tail, Rules};

/// The model, one step at a time.
pub trait Step {
    /// The live beams after a step: beam i continues the beam that was row
    /// `rows[i]` before it, and has just written `last[i]`. Returns the
    /// next logits of each beam, in that order.
    fn next(&mut self, rows: &[u32], last: &[u32]) -> Result<Vec<Vec<f32>>, String>;
}

/// A transcript the search wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The tokens written (no prompt, no end).
    pub tokens: Vec<u32>,
    /// The sum of their log-probabilities (and the end's, when it ended).
    pub sum_logprob: f32,
    /// How many log-probabilities are in the sum.
    pub scored: usize,
    /// Whether the end's log-probability is one of them.
    pub ended: bool,
}

impl Written {
    /// Whisper's rank: the sum of log-probabilities per token written
    /// (before a loop was cut: the sum is theirs).
    fn rank(&self) -> f32 {
        let written = self.scored - usize::from(self.ended);
        self.sum_logprob / written.max(1) as f32
    }

    /// The mean log-probability of what was scored.
    pub fn mean_logprob(&self) -> f32 {
        self.sum_logprob / self.scored.max(1) as f32
    }
}

/// One candidate: beam `source` followed by `token`.
struct Candidate {
    source: usize,
    token: u32,
    score: f32,
}

/// The `k` indices of the largest finite values, largest first.
fn top(values: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut best: Vec<(usize, f32)> = Vec::with_capacity(k + 1);
    for (i, &v) in values.iter().enumerate() {
        if !v.is_finite() || (best.len() == k && v <= best[k - 1].1) {
            continue;
        }
        let at = best.partition_point(|(_, b)| *b >= v);
        best.insert(at, (i, v));
        best.truncate(k);
    }
    best
}

/// Searches from `first`, the logits after the prompt, writing at most
/// `cap` tokens with `width` beams. `None` when no token was ever allowed.
pub fn search(
    model: &mut impl Step,
    first: Vec<f32>,
    rules: &Rules,
    width: usize,
    cap: usize,
) -> Result<Option<Written>, String> {
    let width = width.max(1);
    let mut live = vec![Written {
        tokens: Vec::new(),
        sum_logprob: 0.0,
        scored: 0,
        ended: false,
    }];
    let mut logits = vec![first];
    let mut finished: Vec<Written> = Vec::new();
    for step in 0..cap {
        let mut candidates = Vec::new();
        for (source, (beam, l)) in live.iter().zip(logits.iter_mut()).enumerate() {
            rules.mask(l, step);
            log_softmax(l);
            for (token, logprob) in top(l, width + 1) {
                candidates.push(Candidate {
                    source,
                    token: token as u32,
                    score: beam.sum_logprob + logprob,
                });
            }
        }
        if candidates.is_empty() {
            break;
        }
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut next = Vec::new();
        let mut rows = Vec::new();
        let mut kept = 0;
        for c in candidates {
            let beam = &live[c.source];
            let mut written = Written {
                tokens: beam.tokens.clone(),
                sum_logprob: c.score,
                scored: beam.scored + 1,
                ended: c.token == rules.end,
            };
            if written.ended {
                finished.push(written);
                continue;
            }
            written.tokens.push(c.token);
            // A loop is cut and finished, but takes a live beam's place
            // (Whisper, without the cut, would have kept it alive): a
            // width of 1 stays greedy decoding, which stops there.
            kept += 1;
            if let Some(drop) = repeated_tail(&written.tokens) {
                written.tokens.truncate(written.tokens.len() - drop);
                finished.push(written);
            } else {
                next.push(written);
                rows.push(c.source as u32);
            }
            if kept == width {
                break;
            }
        }
        live = next;
        if finished.len() >= width || live.is_empty() || step + 1 == cap {
            break;
        }
        let last: Vec<u32> = live
            .iter()
            .map(|b| *b.tokens.last().unwrap_or(&0))
            .collect();
        logits = model.next(&rows, &last)?;
    }
    // Whisper: too few finished, the live beams (best first) join them.
    let missing = width.saturating_sub(finished.len());
    finished.extend(live.into_iter().take(missing));
    Ok(finished
        .into_iter()
        .max_by(|a, b| a.rank().total_cmp(&b.rank())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model whose next logits depend only on the tokens written: a
    /// table from the sequence so far to log-probabilities over 4 tokens
    /// (id 3 is the end); unlisted sequences end at once.
    struct Table {
        rows: Vec<(Vec<u32>, [f32; 4])>,
        live: Vec<Vec<u32>>,
        calls: Vec<(Vec<u32>, Vec<u32>)>,
    }

    impl Table {
        fn logits(&self, written: &[u32]) -> Vec<f32> {
            let row = self.rows.iter().find(|(w, _)| w == written);
            let p = row.map_or([0.01, 0.01, 0.01, 0.97], |(_, p)| *p);
            p.iter().map(|p| p.ln()).collect()
        }
    }

    impl Step for Table {
        fn next(&mut self, rows: &[u32], last: &[u32]) -> Result<Vec<Vec<f32>>, String> {
            self.calls.push((rows.to_vec(), last.to_vec()));
            self.live = rows
                .iter()
                .zip(last)
                .map(|(r, t)| {
                    let mut w = self.live[*r as usize].clone();
                    w.push(*t);
                    w
                })
                .collect();
            Ok(self.live.iter().map(|w| self.logits(w)).collect())
        }
    }

    fn rules() -> Rules {
        Rules {
            end: 3,
            suppress: vec![],
            suppress_begin: vec![3],
        }
    }

    /// Greedy takes 0 (0.5) then finds a flat future; the beam finds
    /// 1 then 2 then the end, far likelier as a whole.
    fn table() -> Table {
        Table {
            rows: vec![
                (vec![], [0.5, 0.4, 0.1, 0.0]),
                (vec![0], [0.3, 0.2, 0.1, 0.4]),
                (vec![0, 0], [0.25, 0.25, 0.25, 0.25]),
                (vec![1], [0.0, 0.0, 0.99, 0.01]),
                (vec![1, 2], [0.0, 0.0, 0.01, 0.99]),
            ],
            live: vec![vec![]],
            calls: vec![],
        }
    }

    #[test]
    fn the_beam_finds_the_likelier_sequence_greedy_misses() {
        let mut model = table();
        let first = model.logits(&[]);
        let greedy = search(&mut model, first.clone(), &rules(), 1, 10)
            .unwrap()
            .unwrap();
        assert_eq!(greedy.tokens, vec![0], "greedy: 0, then the end (0.4)");
        assert_eq!(model.calls[0], (vec![0], vec![0]));

        let mut model = table();
        let beam = search(&mut model, first, &rules(), 3, 10).unwrap().unwrap();
        assert_eq!(beam.tokens, vec![1, 2]);
        assert_eq!(beam.scored, 3, "two tokens and the end");
        let expected = 0.4f32.ln() + 0.99f32.ln() + 0.99f32.ln();
        assert!((beam.sum_logprob - expected).abs() < 1e-4);
        // The first step fans one beam out into three rows of it.
        assert_eq!(model.calls[0], (vec![0, 0, 0], vec![0, 1, 2]));
    }

    #[test]
    fn the_rank_divides_by_the_length() {
        let short = Written {
            tokens: vec![1],
            sum_logprob: -1.0,
            scored: 2,
            ended: true,
        };
        let long = Written {
            tokens: vec![1, 2, 3],
            sum_logprob: -1.5,
            scored: 4,
            ended: true,
        };
        assert!(long.rank() > short.rank(), "-0.5 a token beats -1");
        assert!((long.mean_logprob() + 0.375).abs() < 1e-6);
        let cut_loop = Written {
            tokens: vec![1],
            sum_logprob: -1.5,
            scored: 3,
            ended: false,
        };
        assert!((cut_loop.rank() + 0.5).abs() < 1e-6, "ranked as written");
    }

    #[test]
    fn the_cap_ends_the_search_with_the_live_beams() {
        let mut model = Table {
            rows: vec![],
            live: vec![vec![]],
            calls: vec![],
        };
        // The end is not allowed first; token 1 is the likeliest.
        model.rows = vec![(vec![], [0.1, 0.6, 0.3, 0.0])];
        let first = model.logits(&[]);
        let got = search(&mut model, first, &rules(), 2, 1).unwrap().unwrap();
        assert_eq!(got.tokens, vec![1]);
        assert!(model.calls.is_empty(), "no step after the cap");
    }

    #[test]
    fn a_loop_finishes_cut_to_one_group() {
        let rows = (0..4).map(|n| (vec![2; n], [0.0, 0.0, 1.0, 0.0])).collect();
        let mut model = Table {
            rows,
            live: vec![vec![]],
            calls: vec![],
        };
        let first = model.logits(&[]);
        let got = search(&mut model, first, &rules(), 1, 10).unwrap().unwrap();
        assert_eq!(got.tokens, vec![2]);
        assert_eq!((got.scored, got.ended), (4, false));
    }

    #[test]
    fn a_loop_is_ranked_by_what_was_written_before_the_cut() {
        // After [2, 2, 2] another 2 (0.6) is a loop, cut to [2]; the end
        // (0.4) after [2, 2, 2] must not win for the cut's shortness.
        let mut rows: Vec<_> = (0..3).map(|n| (vec![2; n], [0.0, 0.0, 1.0, 0.0])).collect();
        rows.push((vec![2; 3], [0.0, 0.0, 0.6, 0.4]));
        let mut model = Table {
            rows,
            live: vec![vec![]],
            calls: vec![],
        };
        let first = model.logits(&[]);
        // Two beams, so both the cut loop and the end are finished.
        let got = search(&mut model, first, &rules(), 2, 10).unwrap().unwrap();
        assert_eq!((got.tokens, got.ended), (vec![2], false));
    }

    #[test]
    fn top_keeps_the_largest_finite_values_in_order() {
        let values = [1.0, f32::NEG_INFINITY, 3.0, f32::NAN, 2.0, 0.5];
        assert_eq!(top(&values, 2), vec![(2, 3.0), (4, 2.0)]);
        assert_eq!(top(&values, 9).len(), 4);
    }
}
