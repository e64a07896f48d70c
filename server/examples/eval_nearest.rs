//! How far finding by meaning alone can be trusted: for each read and
//! not-found question of the evaluation sets given, the memory nearest in
//! meaning, its similarity, its lead over the next, and (for a read)
//! whether it is the memory that answers (it holds one of the expected
//! answers). Then, for pairs of a similarity floor and a lead, how many
//! reads the nearest memory answers, how many it would answer wrongly,
//! and how many not-found questions it would seem to answer. Prints
//! figures, asserts nothing: a threshold is chosen from many sets.
//!
//! `scripts/embedding-model.sh ensure`, then
//! `cargo run --release -p imprint --example eval_nearest -- SET/cases.json…`

use imprint::grounding::plan::{asked_part, Topic};

// Shared with the examples that route requests, which use all of it.
#[allow(dead_code)]
mod meaning_support;

use meaning_support::EvalSet;

struct Question {
    set: String,
    id: String,
    /// `Some(true)` when the nearest memory answers a read, `Some(false)`
    /// when it does not, `None` for a not-found question.
    nearest_answers: Option<bool>,
    best: f32,
    lead: f32,
    request: String,
    nearest: String,
    /// How many of the words naming the thing the nearest holds, of how
    /// many.
    held: (usize, usize),
    /// How many of them the next nearest holds.
    next_held: usize,
    /// The similarity of the naming words, whose the thing is left out
    /// ("appointment opticians" of "rory's appointment at the
    /// opticians"), to the nearest memory.
    thing: Option<f32>,
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The values a read's rule expects, lower case.
fn expected(case: &serde_json::Value) -> Vec<String> {
    let rule = &case["rule"];
    let mut values: Vec<String> = rule["answer_any"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_lowercase))
        .collect();
    for group in rule["answer_all_groups"].as_array().into_iter().flatten() {
        values.extend(
            group
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_lowercase)),
        );
    }
    values
}

fn main() {
    let model = meaning_support::model();
    let embed = |texts: &[String]| meaning_support::embed(&model, texts);
    let mut questions = Vec::new();
    for path in std::env::args().skip(1) {
        let EvalSet {
            name: set,
            memories,
            cases,
        } = meaning_support::eval_set(&path);
        let memory_vectors = embed(&memories);
        for case in &cases {
            let read = match case["kind"].as_str() {
                Some("read") => true,
                Some("notfound") => false,
                _ => continue,
            };
            let request = case["request"].as_str().unwrap_or_default().to_string();
            let vector = embed(&[asked_part(&request).to_string()]).remove(0);
            let mut ranked: Vec<(usize, f32)> = memory_vectors
                .iter()
                .map(|m| dot(m, &vector))
                .enumerate()
                .collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
            let (index, best) = ranked[0];
            let lead = best - ranked.get(1).map_or(0.0, |r| r.1);
            let nearest = memories[index].clone();
            let topic = Topic::of(&request, &[]);
            let held = (topic.names_held(&nearest), topic.names.len());
            let next_held = ranked
                .get(1)
                .map_or(0, |(next, _)| topic.names_held(&memories[*next]));
            let thing_words: Vec<String> = topic
                .names
                .iter()
                .filter(|n| !topic.owners.contains(n))
                .cloned()
                .collect();
            let thing = (!thing_words.is_empty())
                .then(|| dot(&embed(&[thing_words.join(" ")])[0], &memory_vectors[index]));
            let nearest_answers = read.then(|| {
                let content = nearest.to_lowercase();
                expected(case).iter().any(|v| content.contains(v.as_str()))
            });
            questions.push(Question {
                set: set.clone(),
                id: case["id"].as_str().unwrap_or_default().to_string(),
                nearest_answers,
                best,
                lead,
                request,
                nearest,
                held,
                next_held,
                thing,
            });
        }
    }

    println!("set\tid\tnearest\tbest\tlead\theld\tthing\trequest\tnearest memory");
    for q in &questions {
        let verdict = match q.nearest_answers {
            Some(true) => "answers",
            Some(false) => "wrong",
            None => "notfound",
        };
        println!(
            "{}\t{}\t{}\t{:.2}\t{:.2}\t{}/{}\t{}\t{}\t{}",
            q.set,
            q.id,
            verdict,
            q.best,
            q.lead,
            q.held.0,
            q.held.1,
            q.thing.map_or("-".to_string(), |t| format!("{t:.2}")),
            q.request,
            q.nearest.chars().take(70).collect::<String>()
        );
    }
    let reads = questions
        .iter()
        .filter(|q| q.nearest_answers.is_some())
        .count();
    let not_found = questions.len() - reads;
    println!();
    println!(
        "floor\tlead\treads answered (of {reads})\treads wrong\tnot-found taken (of {not_found})"
    );
    for floor in [0.35, 0.4, 0.45, 0.5, 0.55, 0.6] {
        for lead in [0.05, 0.08, 0.1, 0.12, 0.15] {
            let taken = |q: &&Question| q.best >= floor && q.lead >= lead;
            let count = |want: Option<bool>| {
                questions
                    .iter()
                    .filter(taken)
                    .filter(|q| q.nearest_answers == want)
                    .count()
            };
            println!(
                "{floor}\t{lead}\t{}\t{}\t{}",
                count(Some(true)),
                count(Some(false)),
                count(None)
            );
        }
    }

    // Of the clearly nearest (0.45, lead 0.12): how many each test of
    // whether it names the thing lets stand.
    println!();
    println!(
        "clearly nearest (0.45 / 0.12) stands by\treads answered\treads wrong\tnot-found taken"
    );
    let clear: Vec<&Question> = questions
        .iter()
        .filter(|q| q.best >= 0.45 && q.lead >= 0.12)
        .collect();
    let tally = |name: &str, stands: &dyn Fn(&Question) -> bool| {
        let count = |want: Option<bool>| {
            clear
                .iter()
                .filter(|q| stands(q) && q.nearest_answers == want)
                .count()
        };
        println!(
            "{name}\t{}\t{}\t{}",
            count(Some(true)),
            count(Some(false)),
            count(None)
        );
    };
    tally("all but one naming word (half when 0.2 ahead)", &|q| {
        q.held.0 + 1 >= q.held.1 || (q.lead >= 0.2 && 2 * q.held.0 >= q.held.1)
    });
    tally("one naming word", &|q| q.held.0 >= 1);
    for floor in [0.3, 0.35, 0.4, 0.45, 0.5] {
        tally(&format!("the thing's words at {floor} in meaning"), &|q| {
            q.thing.is_none_or(|t| t >= floor)
        });
        tally(
            &format!("all but one naming word, or the thing's words at {floor}"),
            &|q| {
                q.held.0 + 1 >= q.held.1
                    || (q.lead >= 0.2 && 2 * q.held.0 >= q.held.1)
                    || q.thing.is_some_and(|t| t >= floor)
            },
        );
    }

    // Nearest at 0.45 by any lead, holding all but one naming word and
    // more of them than the next nearest: the words tell it from its
    // neighbour where meaning alone does not.
    println!();
    println!("nearest (floor, any lead) holding all but one naming word and more than the next\treads answered\treads wrong\tnot-found taken");
    for (floor, least) in [0.35, 0.4, 0.45, 0.5]
        .into_iter()
        .flat_map(|floor| [(floor, 1), (floor, 2)])
    {
        let stands = |q: &&Question| {
            q.best >= floor
                && q.held.0 >= least
                && q.held.0 + 1 >= q.held.1
                && q.held.0 > q.next_held
        };
        let count = |want: Option<bool>| {
            questions
                .iter()
                .filter(stands)
                .filter(|q| q.nearest_answers == want)
                .count()
        };
        let clear_too = questions
            .iter()
            .filter(stands)
            .filter(|q| q.lead >= 0.12)
            .count();
        // Those it adds to the clearly nearest: reads answered, wrong,
        // not-found questions taken.
        let added = |want: Option<bool>| {
            questions
                .iter()
                .filter(stands)
                .filter(|q| q.lead < 0.12 && q.nearest_answers == want)
                .count()
        };
        let clear_too = format!(
            "{clear_too}; it adds {} reads, {} wrong, {} not found",
            added(Some(true)),
            added(Some(false)),
            added(None)
        );
        println!(
            "{floor}, {least}+ held\t{}\t{}\t{}\t(of them clearly nearest already: {clear_too})",
            count(Some(true)),
            count(Some(false)),
            count(None)
        );
    }
}
