//! A request's kind by its labelled examples. [`Router::route`] asks a
//! linear classifier trained on the examples' vectors when they are
//! loaded ([`Classifier`]): its score is the kind's probability, and a
//! write is taken from it only at [`WRITE_FLOOR`] and with the model's
//! agreement. The examples are data (`examples.tsv`), not rules: a request
//! routed wrong becomes another example there.
//!
//! Measured with `examples/eval_routing.rs` (session 16): ten-fold over the
//! shipped examples, the classifier routed 318/423 right, the kinds'
//! centroids (the earlier router) 272/423 and the 3 nearest examples
//! 186/423; on the clear requests of fresh sets 1–5 the classifier was
//! right on 80–82 %, the centroids on 63–72 %. A sentence embedding says
//! more of what a request is about than of what it asks; the classifier
//! learns which directions tell the kinds apart.

use super::index::{Near, Query, VectorIndex};

/// The labelled examples, `kind<TAB>request` a line.
pub const EXAMPLES: &str = include_str!("examples.tsv");

/// How many of a kind's nearest examples speak for it in
/// [`Router::nearest`].
pub const NEIGHBOURS: usize = 3;

/// The lead the best kind's mean similarity needs over the next in
/// [`Router::nearest`] to be decided there; less is unclear.
pub const CLEAR_MARGIN: f32 = 0.04;

/// The probability at which the classifier decides a kind that writes
/// nothing (small talk, the project list) alone. Ten-fold over the
/// shipped examples (session 16), its precision was 70/75 for small talk
/// and 36/37 for the project list at any probability; for an act Imprint
/// cannot do, 62/92, which is why the rules still read those.
pub const SURE: f32 = 0.5;

/// The probability the classifier must give a save or a reminder before
/// the model is asked to agree (a question the rules read otherwise).
/// Measured on fresh sets 1–5 (290 clear requests, the rules first): at
/// 0.3, 16 requests that were no write were offered to the model as one
/// and 3 writes were missed; at 0.5, 2 and 12.
pub const WRITE_FLOOR: f32 = 0.3;

/// The probability at which the classifier's save or reminder is taken
/// without the model's agreement, for a request that does not ask (no
/// question mark, no closing question). Measured with
/// `examples/eval_routing.rs` on the clear requests of fresh sets 1–12
/// (session 24, 716 requests): at 0.7 and over, one request that was no
/// write was read as one ("remind me when the attic works start?", which
/// asks), so none that does not ask; at 0.6, "number for jason the
/// electrician pls, the cold room keeps tripping" (0.63) was. The built-in
/// model said "question" to "fyi the code for the new key safe at the shop
/// is 7391", which the classifier read as a save at 0.82.
pub const SURE_WRITE: f32 = 0.7;

/// How far a write must lead a runner-up that is a write too for
/// [`Route::clearly_a_write`]: "btw my apprentice is off on the 8th, he
/// has an exam" was a save at 0.46 and a reminder at 0.17 (fresh set 15,
/// session 26), and the built-in model, asked, called it a question.
pub const WRITE_LEAD: f32 = 0.2;

/// The kinds of request the examples name.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Routed {
    Save,
    Remind,
    /// A question about the user's own things.
    Read,
    /// General knowledge, or a task that needs none of the user's things.
    General,
    SmallTalk,
    /// An act Imprint has no tool for (send, book, call…).
    CannotDo,
    Projects,
}

impl Routed {
    pub const ALL: [Routed; 7] = [
        Routed::Save,
        Routed::Remind,
        Routed::Read,
        Routed::General,
        Routed::SmallTalk,
        Routed::CannotDo,
        Routed::Projects,
    ];

    /// The label of the examples file.
    pub fn label(self) -> &'static str {
        match self {
            Routed::Save => "save",
            Routed::Remind => "remind",
            Routed::Read => "read",
            Routed::General => "general",
            Routed::SmallTalk => "small_talk",
            Routed::CannotDo => "cannot_do",
            Routed::Projects => "projects",
        }
    }

    pub fn from_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.label() == label)
    }
}

/// What the examples say of a request.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub kind: Routed,
    pub score: f32,
    /// The next-best kind and its score.
    pub runner_up: Option<(Routed, f32)>,
}

impl Route {
    /// The best kind's lead over the next.
    pub fn margin(&self) -> f32 {
        self.runner_up.map_or(1.0, |(_, s)| self.score - s)
    }

    /// True when the nearest examples decide: the lead is at least
    /// [`CLEAR_MARGIN`].
    pub fn is_clear(&self) -> bool {
        self.margin() >= CLEAR_MARGIN
    }

    /// True when the classifier's kind is a save or a reminder at
    /// [`WRITE_FLOOR`] or more.
    pub fn is_likely_write(&self) -> bool {
        !self.likely_writes().is_empty()
    }

    /// True when the classifier's two likeliest kinds are both writes and
    /// the first leads by [`WRITE_LEAD`]: every other kind (a question,
    /// small talk) is then less likely than the runner-up, so far below
    /// the write that the model is not asked whether it tells or asks.
    pub fn clearly_a_write(&self) -> bool {
        let is_write = |kind: Routed| matches!(kind, Routed::Save | Routed::Remind);
        is_write(self.kind)
            && self
                .runner_up
                .is_some_and(|(kind, score)| is_write(kind) && self.score - score >= WRITE_LEAD)
    }

    /// The writes (save, reminder) the classifier finds likely, at
    /// [`WRITE_FLOOR`] or more, best first: its kind, and then its
    /// runner-up ("the kids' dentist is Dr Osei" reads a little more like
    /// a question than a save; the model then tells which).
    pub fn likely_writes(&self) -> Vec<Routed> {
        std::iter::once((self.kind, self.score))
            .chain(self.runner_up)
            .filter(|(kind, score)| {
                matches!(kind, Routed::Save | Routed::Remind) && *score >= WRITE_FLOOR
            })
            .map(|(kind, _)| kind)
            .collect()
    }
}

/// The examples' lines: (kind, request). A line with an unknown label is
/// an error naming it (the file ships in the binary and is tested).
pub fn parse_examples(text: &str) -> Result<Vec<(Routed, &str)>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, line)| {
            let (label, request) = line
                .split_once('\t')
                .ok_or_else(|| format!("examples line {}: no tab", i + 1))?;
            let kind = Routed::from_label(label.trim())
                .ok_or_else(|| format!("examples line {}: unknown kind {label:?}", i + 1))?;
            Ok((kind, request.trim()))
        })
        .collect()
}

/// The embedded examples, ready to route by: the classifier trained on
/// them, and the examples themselves for [`Router::nearest`].
pub struct Router {
    classifier: Classifier,
    index: VectorIndex,
    kinds: Vec<Routed>,
}

impl Router {
    /// `examples` with their vectors, in the same order.
    pub fn new(examples: &[(Routed, Vec<f32>)]) -> Self {
        let classifier = Classifier::train(examples, Training::default());
        let mut index = VectorIndex::default();
        let mut kinds = Vec::with_capacity(examples.len());
        for (i, (kind, vector)) in examples.iter().enumerate() {
            index.put(i as i64, vector);
            kinds.push(*kind);
        }
        Self {
            classifier,
            index,
            kinds,
        }
    }

    /// The kind of the request whose vector is `request`, by the
    /// classifier, or `None` with no examples.
    pub fn route(&self, request: &[f32]) -> Option<Route> {
        self.classifier.route(request)
    }

    /// What the request's nearest examples say: each kind scores the mean
    /// similarity of its [`NEIGHBOURS`] nearest. A question's "general
    /// knowledge or the user's own?" is read this way: measured on the
    /// truth evaluation and fresh sets 2 and 3, where the centroids
    /// answered a personal question with nothing saved about it as general
    /// knowledge (and the model then invented a number).
    pub fn nearest(&self, request: &[f32]) -> Option<Route> {
        let nearest = self
            .index
            .nearest(&Query::new(request), self.index.len(), None);
        let scores = Routed::ALL
            .into_iter()
            .filter_map(|kind| {
                let mean =
                    mean_of_nearest(&nearest, |id| self.kinds.get(id as usize) == Some(&kind))?;
                Some((kind, mean))
            })
            .collect();
        ranked(scores)
    }
}

/// The mean similarity of the [`NEIGHBOURS`] nearest of `nearest`
/// (nearest first) whose id is one `counts`; `None` when none is.
pub(super) fn mean_of_nearest(nearest: &[Near], counts: impl Fn(i64) -> bool) -> Option<f32> {
    let near: Vec<f32> = nearest
        .iter()
        .filter(|n| counts(n.id))
        .take(NEIGHBOURS)
        .map(|n| n.similarity)
        .collect();
    (!near.is_empty()).then(|| near.iter().sum::<f32>() / near.len() as f32)
}

/// How a [`Classifier`] is trained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Training {
    /// Passes of gradient descent over all the examples.
    pub passes: usize,
    /// The step size.
    pub rate: f32,
    /// The weights' L2 penalty: larger keeps the classifier less sure.
    pub penalty: f32,
}

impl Default for Training {
    fn default() -> Self {
        Self {
            passes: 400,
            rate: 4.0,
            penalty: 1e-3,
        }
    }
}

/// A linear classifier over the examples' vectors (multinomial logistic
/// regression), trained when the examples are loaded. Unlike a centroid,
/// it learns which directions of the embedding tell the kinds apart, and
/// discounts those that only say what a request is about. Its score is a
/// probability, so its margin reads the same for every request.
pub struct Classifier {
    kinds: Vec<Routed>,
    /// One row of weights a kind, then its bias.
    rows: Vec<(Vec<f32>, f32)>,
}

impl Classifier {
    /// Trains on `examples`; each kind weighs the same in all, however
    /// many examples it has. The passes run on candle's matrix products
    /// (optimised in test builds too).
    pub fn train(examples: &[(Routed, Vec<f32>)], training: Training) -> Self {
        let kinds: Vec<Routed> = Routed::ALL
            .into_iter()
            .filter(|k| examples.iter().any(|(e, _)| e == k))
            .collect();
        let rows = match Self::descend(examples, &kinds, training) {
            Ok(rows) => rows,
            Err(error) => {
                tracing::warn!(%error, "the examples' classifier could not be trained");
                Vec::new()
            }
        };
        let kinds = if rows.len() == kinds.len() {
            kinds
        } else {
            Vec::new()
        };
        Self { kinds, rows }
    }

    fn descend(
        examples: &[(Routed, Vec<f32>)],
        kinds: &[Routed],
        training: Training,
    ) -> candle_core::Result<Vec<(Vec<f32>, f32)>> {
        use candle_core::{Device, Tensor, D};
        if kinds.is_empty() {
            return Ok(Vec::new());
        }
        let device = Device::Cpu;
        let (n, k) = (examples.len(), kinds.len());
        let dims = examples[0].1.len();
        let flat: Vec<f32> = examples
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        let x = Tensor::from_vec(flat, (n, dims), &device)?;
        let class: Vec<usize> = examples
            .iter()
            .map(|(e, _)| kinds.iter().position(|c| c == e).unwrap_or(0))
            .collect();
        let counts: Vec<f32> = (0..k)
            .map(|c| class.iter().filter(|&&x| x == c).count() as f32)
            .collect();
        // Balanced: every kind's examples weigh as much in all.
        let weight: Vec<f32> = class
            .iter()
            .map(|&c| n as f32 / (k as f32 * counts[c].max(1.0)))
            .collect();
        let weight = Tensor::from_vec(weight, (n, 1), &device)?;
        let mut one_hot = vec![0.0f32; n * k];
        for (i, &c) in class.iter().enumerate() {
            one_hot[i * k + c] = 1.0;
        }
        let truth = Tensor::from_vec(one_hot, (n, k), &device)?;
        let xt = x.t()?.contiguous()?;
        let mut w = Tensor::zeros((dims, k), candle_core::DType::F32, &device)?;
        let mut b = Tensor::zeros((1, k), candle_core::DType::F32, &device)?;
        let step = f64::from(training.rate) / n as f64;
        let decay = 1.0 - f64::from(training.rate * training.penalty);
        for _ in 0..training.passes {
            let logits = x.matmul(&w)?.broadcast_add(&b)?;
            let p = candle_nn::ops::softmax(&logits, D::Minus1)?;
            let error = (p - &truth)?.broadcast_mul(&weight)?;
            let grad_w = xt.matmul(&error)?;
            let grad_b = error.sum_keepdim(0)?;
            w = ((w * decay)? - (grad_w * step)?)?;
            b = (b - (grad_b * step)?)?;
        }
        let w = w.t()?.to_vec2::<f32>()?;
        let b = b.flatten_all()?.to_vec1::<f32>()?;
        Ok(w.into_iter().zip(b).collect())
    }

    /// Each kind's probability for the request whose vector is `request`.
    pub fn probabilities(&self, request: &[f32]) -> Vec<(Routed, f32)> {
        let mut probabilities = vec![0.0f32; self.kinds.len()];
        softmax_into(&self.rows, request, &mut probabilities);
        self.kinds.iter().copied().zip(probabilities).collect()
    }

    /// The most probable kind, with the next; `None` with no examples.
    pub fn route(&self, request: &[f32]) -> Option<Route> {
        ranked(self.probabilities(request))
    }
}

/// The softmax of each row's score of `x`, into `out`.
fn softmax_into(rows: &[(Vec<f32>, f32)], x: &[f32], out: &mut [f32]) {
    for (o, (w, b)) in out.iter_mut().zip(rows) {
        *o = w.iter().zip(x).map(|(a, b)| a * b).sum::<f32>() + b;
    }
    let top = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for o in out.iter_mut() {
        *o = (*o - top).exp();
        sum += *o;
    }
    for o in out.iter_mut() {
        *o /= sum;
    }
}

/// The best kind of `scores`, and the next.
fn ranked(mut scores: Vec<(Routed, f32)>) -> Option<Route> {
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (kind, score) = *scores.first()?;
    Some(Route {
        kind,
        score,
        runner_up: scores.get(1).copied(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::DIMENSIONS;

    fn towards(dim: usize, lean: f32) -> Vec<f32> {
        let mut v = vec![0.0; DIMENSIONS];
        v[dim] = lean;
        v[DIMENSIONS - 1] = (1.0 - lean * lean).sqrt();
        v
    }

    #[test]
    fn two_writes_far_ahead_of_the_rest_are_clearly_a_write() {
        let route = |score, runner_up| Route {
            kind: Routed::Save,
            score,
            runner_up: Some(runner_up),
        };
        assert!(route(0.46, (Routed::Remind, 0.17)).clearly_a_write());
        // Close behind: a question may be as likely as the reminder.
        assert!(!route(0.36, (Routed::Remind, 0.30)).clearly_a_write());
        // A question next is the model's to tell apart.
        assert!(!route(0.46, (Routed::Read, 0.17)).clearly_a_write());
    }

    #[test]
    fn the_kind_of_the_nearest_examples_wins_with_its_margin() {
        let router = Router::new(&[
            (Routed::Save, towards(0, 0.95)),
            (Routed::Save, towards(0, 0.9)),
            (Routed::Read, towards(1, 0.95)),
            (Routed::Read, towards(1, 0.9)),
        ]);
        let route = router.route(&towards(0, 1.0)).expect("routed");
        assert_eq!(route.kind, Routed::Save);
        assert!(route.is_clear(), "{route:?}");
        let (runner, _) = route.runner_up.expect("a runner-up");
        assert_eq!(runner, Routed::Read);
        assert!(route.margin() > 0.5, "{route:?}");
    }

    #[test]
    fn the_nearest_examples_speak_for_their_kind() {
        let router = Router::new(&[
            (Routed::General, towards(0, 0.95)),
            (Routed::General, towards(0, 0.9)),
            (Routed::Read, towards(1, 0.95)),
            (Routed::Read, towards(2, 0.95)),
        ]);
        let route = router.nearest(&towards(0, 1.0)).expect("routed");
        assert_eq!(route.kind, Routed::General, "{route:?}");
        assert!(route.is_clear(), "{route:?}");
        let route = router.nearest(&towards(2, 1.0)).expect("routed");
        assert_eq!(route.kind, Routed::Read, "{route:?}");
        assert_eq!(Router::new(&[]).nearest(&towards(0, 1.0)), None);
    }

    #[test]
    fn a_request_between_two_kinds_is_unclear() {
        let router = Router::new(&[
            (Routed::Save, towards(0, 0.9)),
            (Routed::Remind, towards(1, 0.9)),
        ]);
        // Halfway between the two: the same similarity to each.
        let mut between = vec![0.0; DIMENSIONS];
        between[0] = std::f32::consts::FRAC_1_SQRT_2;
        between[1] = std::f32::consts::FRAC_1_SQRT_2;
        let route = router.route(&between).expect("routed");
        assert!(route.margin() < CLEAR_MARGIN, "{route:?}");
        assert!(!route.is_clear());
        let runner_up = route.runner_up.map(|(kind, _)| kind);
        assert!(
            [route.kind, runner_up.unwrap()].contains(&Routed::Save)
                && [route.kind, runner_up.unwrap()].contains(&Routed::Remind)
        );
    }

    /// A unit vector leaning `kind` along dimension 0 or 1 (what is asked)
    /// and `topic` along 2 or 3 (what it is about).
    fn asked_about(kind: usize, topic: usize) -> Vec<f32> {
        let mut v = vec![0.0; DIMENSIONS];
        v[kind] = 0.3;
        v[2 + topic] = 0.9;
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / norm).collect()
    }

    #[test]
    fn the_classifier_learns_what_is_asked_not_what_it_is_about() {
        // Most saves are about topic 0 and most reads about topic 1; what
        // tells them apart is the weaker lean along dimension 0 or 1.
        let mut examples = Vec::new();
        for _ in 0..6 {
            examples.push((Routed::Save, asked_about(0, 0)));
            examples.push((Routed::Read, asked_about(1, 1)));
        }
        examples.push((Routed::Save, asked_about(0, 1)));
        examples.push((Routed::Read, asked_about(1, 0)));
        let router = Router::new(&examples);
        // A read about the saves' usual topic.
        let route = router.route(&asked_about(1, 0)).expect("routed");
        assert_eq!(route.kind, Routed::Read, "{route:?}");
        let route = router.route(&asked_about(0, 1)).expect("routed");
        assert_eq!(route.kind, Routed::Save, "{route:?}");
        assert!(route.is_likely_write(), "{route:?}");
        let total: f32 = router
            .classifier
            .probabilities(&asked_about(0, 1))
            .iter()
            .map(|(_, p)| p)
            .sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
    }

    #[test]
    fn a_likely_write_may_be_the_runner_up() {
        let route = |kind, score, runner_up| Route {
            kind,
            score,
            runner_up: Some(runner_up),
        };
        // A little more like a question than a save: the save is still
        // likely, and the model is asked.
        let fact = route(Routed::Read, 0.42, (Routed::Save, 0.38));
        assert_eq!(fact.likely_writes(), [Routed::Save]);
        let either = route(Routed::Remind, 0.6, (Routed::Save, 0.35));
        assert_eq!(either.likely_writes(), [Routed::Remind, Routed::Save]);
        let read = route(Routed::Read, 0.7, (Routed::Save, 0.2));
        assert!(read.likely_writes().is_empty() && !read.is_likely_write());
    }

    #[test]
    fn no_examples_route_nothing() {
        assert_eq!(Router::new(&[]).route(&towards(0, 1.0)), None);
    }

    #[test]
    fn the_shipped_examples_parse_and_cover_every_kind() {
        let examples = parse_examples(EXAMPLES).expect("the examples file parses");
        for kind in Routed::ALL {
            let n = examples.iter().filter(|(k, _)| *k == kind).count();
            assert!(n >= 10, "{} has {n} examples", kind.label());
        }
        let mut seen = std::collections::HashSet::new();
        for (_, request) in &examples {
            assert!(!request.is_empty());
            assert!(seen.insert(request.to_lowercase()), "{request:?} twice");
        }
    }

    /// The words of a request, for telling a copy from a likeness.
    fn word_set(text: &str) -> std::collections::BTreeSet<String> {
        text.to_lowercase()
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn no_example_is_copied_from_an_evaluation_set() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/eval");
        let mut requests = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("docs/eval") {
            let cases = entry.unwrap().path().join("cases.json");
            let Ok(text) = std::fs::read_to_string(&cases) else {
                continue;
            };
            let cases: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            for case in cases["cases"].as_array().expect("cases") {
                requests.push(case["request"].as_str().unwrap_or_default().to_string());
            }
        }
        assert!(
            requests.len() > 200,
            "{} evaluation requests",
            requests.len()
        );
        let requests: Vec<_> = requests.iter().map(|r| (r, word_set(r))).collect();
        for (_, example) in parse_examples(EXAMPLES).unwrap() {
            let words = word_set(example);
            for (request, theirs) in &requests {
                let shared = words.intersection(theirs).count() as f32;
                let all = words.union(theirs).count() as f32;
                assert!(
                    shared / all < 0.9,
                    "the example {example:?} copies the evaluation request {request:?}"
                );
            }
        }
    }

    #[test]
    fn a_bad_label_is_named() {
        let error = parse_examples("# c\nsave\tkeep this\nshout\tHEY\n").unwrap_err();
        assert!(
            error.contains("line 3") && error.contains("shout"),
            "{error}"
        );
        assert!(parse_examples("no tab here").is_err());
    }
}
