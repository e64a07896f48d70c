//! How well each way of routing a request by its labelled examples names
//! its kind. Prints figures, asserts nothing.
//!
//! 1. The shipped examples, 10-fold: each fold routed by a router built on
//!    the other nine.
//! 2. Labelled requests from evaluation sets (`cases.json` files given as
//!    arguments; a case's kind read or notfound is a read, smalltalk is
//!    small talk, ask cases are left out), routed by a router built on all
//!    the examples, beside the rules' kind.
//!
//! For each: the share routed right, and the writes made unasked (a
//! request that is no save or reminder routed as one) and missed, at each
//! probability floor a write must clear.
//!
//! `scripts/embedding-model.sh ensure`, then
//! `cargo run --release -p imprint --example eval_routing -- SET/cases.json…`

use std::collections::BTreeMap;

use imprint::grounding::plan::{classify, Kind};
use imprint::meaning::route::{Classifier, Route, Routed, Router, Training};

// Shared with the examples that read evaluation sets, which use all of it.
#[allow(dead_code)]
mod meaning_support;

type Labelled = Vec<(Routed, Vec<f32>)>;

fn main() {
    let model = meaning_support::model();
    let embed = |texts: &[String]| meaning_support::embed(&model, texts);
    let labelled: Labelled = meaning_support::labelled_examples(&model);
    let trainings = [
        Training::default(),
        Training {
            penalty: 1e-2,
            ..Training::default()
        },
        Training {
            penalty: 1e-4,
            ..Training::default()
        },
        Training {
            passes: 1000,
            ..Training::default()
        },
    ];

    println!("## The examples, 10-fold ({} examples)\n", labelled.len());
    let mut folds: BTreeMap<String, Vec<(Routed, Route)>> = BTreeMap::new();
    for fold in 0..10 {
        let (test, train): (Vec<_>, Vec<_>) = labelled
            .iter()
            .cloned()
            .enumerate()
            .partition(|(i, _)| i % 10 == fold);
        let train: Labelled = train.into_iter().map(|(_, e)| e).collect();
        let router = Router::new(&train);
        for (_, (kind, vector)) in &test {
            let mut put = |name: String, route: Option<Route>| {
                folds
                    .entry(name)
                    .or_default()
                    .push((*kind, route.expect("routed")));
            };
            put("3 nearest".into(), router.nearest(vector));
        }
        for training in &trainings {
            let classifier = Classifier::train(&train, *training);
            for (_, (kind, vector)) in &test {
                folds
                    .entry(format!("linear {training:?}"))
                    .or_default()
                    .push((*kind, classifier.route(vector).expect("routed")));
            }
        }
    }
    for (name, routed) in &folds {
        report(name, routed);
    }
    // Each kind's recall and precision for the shipped training.
    if let Some(routed) = folds.get(&format!("linear {:?}", Training::default())) {
        println!("\n| kind | examples | routed right (recall) | of those routed to it, right (precision) |\n|---|---|---|---|");
        for kind in Routed::ALL {
            let of_kind = routed.iter().filter(|(k, _)| *k == kind).count();
            let right = routed
                .iter()
                .filter(|(k, r)| *k == kind && r.kind == kind)
                .count();
            let to_kind = routed.iter().filter(|(_, r)| r.kind == kind).count();
            println!(
                "| {} | {of_kind} | {right}/{of_kind} | {right}/{to_kind} |",
                kind.label()
            );
        }
    }

    let router = Router::new(&labelled);
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("the cases file");
        let cases: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let mut requests = Vec::new();
        for case in cases["cases"].as_array().expect("cases") {
            let kind = match case["kind"].as_str().unwrap_or("") {
                "read" | "notfound" => Routed::Read,
                "general" => Routed::General,
                "smalltalk" => Routed::SmallTalk,
                "save" => Routed::Save,
                "remind" => Routed::Remind,
                _ => continue,
            };
            requests.push((kind, case["request"].as_str().unwrap_or("").to_string()));
        }
        let texts: Vec<String> = requests.iter().map(|(_, r)| r.clone()).collect();
        let vectors = embed(&texts);
        println!("\n## {path} ({} requests)\n", requests.len());
        let by = |route: &dyn Fn(&[f32]) -> Option<Route>| -> Vec<(Routed, Route)> {
            requests
                .iter()
                .zip(&vectors)
                .map(|((kind, _), v)| (*kind, route(v).expect("routed")))
                .collect()
        };
        report("3 nearest", &by(&|v| router.nearest(v)));
        let linear = by(&|v| router.route(v));
        report("the shipped router (linear, default training)", &linear);
        let rules: Vec<(Routed, Routed)> = requests
            .iter()
            .map(|(kind, request)| (*kind, rules_kind(request)))
            .collect();
        let (rules_unasked, rules_missed) = writes_wrong(&rules);
        for ((truth, got), (_, request)) in rules.iter().zip(&requests) {
            if (is_write(*truth) || is_write(*got)) && truth != got {
                println!("  - the rules read {truth:?} as {got:?}: {request}");
            }
        }
        let right = rules
            .iter()
            .filter(|(truth, got)| coarse(*truth) == coarse(*got))
            .count();
        println!(
            "| rules (read, general as one) | {right}/{} | unasked writes {rules_unasked}, missed {rules_missed} |",
            rules.len()
        );
        // The rules first; a question they read becomes a write when the
        // classifier says so with a lead (before the model is asked).
        for (floor, lead) in [(0.3f32, 0.0f32), (0.4, 0.1), (0.5, 0.15)] {
            let combined: Vec<(Routed, Routed)> = rules
                .iter()
                .zip(&linear)
                .map(|((truth, rules), (_, route))| {
                    let write = *rules == Routed::Read
                        && is_write(route.kind)
                        && route.score >= floor
                        && route.margin() >= lead;
                    (*truth, if write { route.kind } else { *rules })
                })
                .collect();
            let (unasked, missed) = writes_wrong(&combined);
            println!("| rules, then linear writes at p ≥ {floor}, lead ≥ {lead} | | unasked writes {unasked}, missed {missed} |");
        }
        for ((kind, request), (_, route)) in requests.iter().zip(&linear) {
            if *kind != route.kind {
                println!(
                    "  - {:?} routed {:?} ({:.2}, then {:?}): {request}",
                    kind,
                    route.kind,
                    route.score,
                    route
                        .runner_up
                        .map(|(k, s)| (k, (s * 100.0).round() / 100.0))
                );
            }
        }
    }
}

fn is_write(kind: Routed) -> bool {
    matches!(kind, Routed::Save | Routed::Remind)
}

/// Of (true kind, routed kind) pairs: the writes made unasked (a request
/// that is no such write routed as one) and the writes missed.
fn writes_wrong(pairs: &[(Routed, Routed)]) -> (usize, usize) {
    let unasked = pairs
        .iter()
        .filter(|(truth, got)| is_write(*got) && truth != got)
        .count();
    let missed = pairs
        .iter()
        .filter(|(truth, got)| is_write(*truth) && truth != got)
        .count();
    (unasked, missed)
}

fn coarse(kind: Routed) -> Routed {
    match kind {
        Routed::General => Routed::Read,
        other => other,
    }
}

fn rules_kind(request: &str) -> Routed {
    match classify(request).kind {
        Kind::Save => Routed::Save,
        Kind::Remind => Routed::Remind,
        Kind::CannotDo { .. } => Routed::CannotDo,
        Kind::Projects => Routed::Projects,
        Kind::SmallTalk => Routed::SmallTalk,
        Kind::Question => Routed::Read,
    }
}

/// One line: the share right, and unasked and missed writes when a write
/// must clear each floor of its score (below it, a write is not made).
fn report(name: &str, routed: &[(Routed, Route)]) {
    let right = routed.iter().filter(|(k, r)| *k == r.kind).count();
    let floors = [0.0f32, 0.5, 0.7, 0.9];
    let at: Vec<String> = floors
        .iter()
        .map(|floor| {
            let made = |r: &Route| is_write(r.kind) && r.score >= *floor;
            let unasked = routed
                .iter()
                .filter(|(k, r)| made(r) && *k != r.kind)
                .count();
            let missed = routed
                .iter()
                .filter(|(k, r)| is_write(*k) && !(made(r) && *k == r.kind))
                .count();
            format!("≥{floor}: unasked {unasked}, missed {missed}")
        })
        .collect();
    println!(
        "| {name} | {right}/{} ({:.0} %) | {} |",
        routed.len(),
        100.0 * right as f32 / routed.len() as f32,
        at.join("; ")
    );
}
