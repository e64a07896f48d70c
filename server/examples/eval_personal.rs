//! The user's own or general knowledge: what the signals Imprint reads a
//! question by say on labelled questions. Prints figures, asserts nothing.
//!
//! For each question of the evaluation sets given (`cases.json`; kinds
//! read and notfound are the user's own, general is general knowledge):
//! the classifier's kind and probability, the nearest examples' kind and
//! margin, the best similarity in meaning to the set's own memories, and
//! whether the request's words say it is personal ("my", "his", a kept
//! detail). Then, per kind, how many questions each candidate reading
//! calls general. A threshold is chosen from these figures over many
//! sets, never from one request.
//!
//! `scripts/embedding-model.sh ensure`, then
//! `cargo run --release -p imprint --example eval_personal -- SET/cases.json…`

use imprint::grounding::plan::{asked_part, is_personal};
use imprint::meaning::route::{Route, Routed, Router};

mod meaning_support;

use meaning_support::EvalSet;

struct Question {
    set: String,
    id: String,
    own: bool,
    request: String,
    classified: Option<Route>,
    nearest: Option<Route>,
    best: f32,
    personal: bool,
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn main() {
    let model = meaning_support::model();
    let embed = |texts: &[String]| meaning_support::embed(&model, texts);
    let labelled = meaning_support::labelled_examples(&model);
    let router = Router::new(&labelled);

    let mut questions = Vec::new();
    for path in std::env::args().skip(1) {
        let EvalSet {
            name: set,
            memories,
            cases,
        } = meaning_support::eval_set(&path);
        let memory_vectors = embed(&memories);
        for case in &cases {
            let own = match case["kind"].as_str() {
                Some("read" | "notfound") => true,
                Some("general") => false,
                _ => continue,
            };
            let request = case["request"].as_str().unwrap_or_default().to_string();
            let vector = embed(&[asked_part(&request).to_string()]).remove(0);
            let best = memory_vectors
                .iter()
                .map(|m| dot(m, &vector))
                .fold(f32::MIN, f32::max);
            questions.push(Question {
                set: set.clone(),
                id: case["id"].as_str().unwrap_or_default().to_string(),
                own,
                personal: is_personal(&request),
                classified: router.route(&vector),
                nearest: router.nearest(&vector),
                best,
                request,
            });
        }
    }

    let kind = |r: &Option<Route>| r.as_ref().map_or("-", |r| r.kind.label());
    println!("set\tid\town\tclassified\tp\tnearest\tmargin\tbest\tpersonal\trequest");
    for q in &questions {
        println!(
            "{}\t{}\t{}\t{}\t{:.2}\t{}\t{:.3}\t{:.2}\t{}\t{}",
            q.set,
            q.id,
            if q.own { "own" } else { "general" },
            kind(&q.classified),
            q.classified.as_ref().map_or(0.0, |r| r.score),
            kind(&q.nearest),
            q.nearest.as_ref().map_or(0.0, Route::margin),
            q.best,
            q.personal,
            q.request
        );
    }

    // Candidate readings of "general": how many of each kind each calls
    // general (right for general questions, wrong for the user's own).
    let general_p = |q: &Question| {
        q.classified
            .as_ref()
            .filter(|r| r.kind == Routed::General)
            .map_or(0.0, |r| r.score)
    };
    let nearest_general = |q: &Question| {
        q.nearest
            .as_ref()
            .is_some_and(|r| r.kind == Routed::General && r.is_clear())
    };
    println!();
    println!("reading\tgeneral called general\town called general");
    let own_total = questions.iter().filter(|q| q.own).count();
    let general_total = questions.len() - own_total;
    let report = |name: &str, says: &dyn Fn(&Question) -> bool| {
        let general = questions.iter().filter(|q| !q.own && says(q)).count();
        let own = questions.iter().filter(|q| q.own && says(q)).count();
        println!("{name}\t{general}/{general_total}\t{own}/{own_total}");
    };
    report("words say not personal", &|q| !q.personal);
    // The other side: a question whose words say nothing of the user's,
    // read as the user's own by the classifier's read probability alone
    // (said to be not found when nothing answers, never the model's).
    let read_p = |q: &Question| {
        q.classified
            .as_ref()
            .filter(|r| r.kind == Routed::Read)
            .map_or(0.0, |r| r.score)
    };
    let general_runner_up = |q: &Question| {
        q.classified
            .as_ref()
            .and_then(|r| r.runner_up)
            .filter(|(kind, _)| *kind == Routed::General)
            .map_or(0.0, |(_, p)| p)
    };
    for floor in [0.3, 0.33, 0.35, 0.38, 0.4, 0.45] {
        report(
            &format!("NOT general: read >= {floor}, words not personal"),
            &|q| !q.personal && read_p(q) >= floor,
        );
        report(
            &format!("NOT general: read >= {floor}, general runner-up under half of it, words not personal"),
            &|q| !q.personal && read_p(q) >= floor && general_runner_up(q) * 2.0 < read_p(q),
        );
    }
    report("nearest general (clear)", &nearest_general);
    for floor in [0.35, 0.4, 0.45, 0.5, 0.55, 0.6] {
        report(&format!("classifier general >= {floor}"), &|q| {
            general_p(q) >= floor
        });
        for best in [0.5, 0.55, 0.6] {
            report(
                &format!("classifier general >= {floor} and best < {best}"),
                &|q| general_p(q) >= floor && q.best < best,
            );
            report(
                &format!("classifier general >= {floor} and best < {best}, words not personal"),
                &|q| general_p(q) >= floor && q.best < best && !q.personal,
            );
        }
    }
}
