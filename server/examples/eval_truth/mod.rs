//! Truth mode of `eval_questions` (issue 26): does a reply tell the truth
//! about the user's things? Run with `IMPRINT_EVAL_MODE=truth`:
//!
//! ```sh
//! cargo build --release -p imprint --bin imprint
//! IMPRINT_EVAL_MODE=truth IMPRINT_EVAL_LABEL=after \
//!     cargo run --release -p imprint --example eval_questions
//! ```
//!
//! `IMPRINT_EVAL_KINDS=read,save,remind,general` keeps some kinds,
//! `IMPRINT_EVAL_CASES=1` the first cases of each (a smoke run),
//! `IMPRINT_EVAL_ONLY=passport|gate code` the cases whose prompt holds one
//! of these, and `IMPRINT_EVAL_TIMEOUT_S` (default 300) cuts a reply that
//! never ends.
//! The model is chosen as in `eval_questions`. The table is kept in
//! `docs/eval/DATE-truth-LABEL.md`.
//!
//! # Method
//!
//! The release binary runs with a temporary data dir seeded through
//! `POST /api/memories` with [`cases::MEMORIES`]: facts with near misses
//! (two phones of a kind, car and home insurance but no travel insurance,
//! the flight out and the flight back, two wifis, one colleague's
//! birthday). Each case is one prompt in a new session; a question is
//! answered with its first option (or "You decide"), or the case's own
//! words when the request leaves something out (those cases are not
//! "clear"). Then the case is judged from the answer, the memories and
//! reminders it left (read over the REST API, then deleted, so cases do
//! not see each other's), and checks written for this evaluation:
//! [`check::invented`] for numbers, codes and capitalised names found in
//! neither the memories nor the prompt, [`check::shown_markup`] for
//! markup, notes and results said back.

mod cases;
mod check;
mod report;

use std::time::{Duration, Instant};

use chrono::Local;
use serde_json::{json, Value};

use crate::bench_support::{self, imprint_binary, Child};
use cases::{Case, Check, Reply, CASES, KINDS, MEMORIES};

/// What one case's reply did, and the verdict.
#[derive(Default)]
pub struct Outcome {
    pub answer: String,
    pub tools: Vec<String>,
    pub questions: Vec<String>,
    /// What the user answered to them.
    pub given: Vec<String>,
    pub end: String,
    /// From the message sent to the `done` event.
    pub seconds: f64,
    pub why: Vec<String>,
    pub invented: Vec<String>,
    pub markup: Vec<&'static str>,
}

impl Outcome {
    pub fn pass(&self) -> bool {
        self.why.is_empty()
    }
}

/// The memories and reminders a reply left behind.
struct Left {
    /// New memories, as (id, content).
    memories: Vec<(String, String)>,
    /// Memories there before that the reply changed or deleted.
    touched: Vec<String>,
    reminders: Vec<Value>,
}

pub async fn run() {
    let kinds: Vec<_> = match std::env::var("IMPRINT_EVAL_KINDS") {
        Ok(list) => KINDS
            .into_iter()
            .filter(|k| list.split(',').any(|name| name.trim() == k.key()))
            .collect(),
        Err(_) => KINDS.to_vec(),
    };
    let per_kind: usize = std::env::var("IMPRINT_EVAL_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let label = std::env::var("IMPRINT_EVAL_LABEL").unwrap_or_else(|_| "run".into());
    let timeout = std::env::var("IMPRINT_EVAL_TIMEOUT_S")
        .ok()
        .and_then(|n| n.parse().ok())
        .map_or(Duration::from_secs(300), Duration::from_secs);
    // `IMPRINT_EVAL_ONLY=passport|gate code`: the cases whose prompt holds
    // one of these (to run a case again).
    let only = std::env::var("IMPRINT_EVAL_ONLY")
        .unwrap_or_default()
        .to_lowercase();
    let chosen = |c: &&Case| {
        only.is_empty()
            || only
                .split('|')
                .any(|part| c.prompt.to_lowercase().contains(part.trim()))
    };
    let cases: Vec<&Case> = kinds
        .iter()
        .flat_map(|kind| {
            CASES
                .iter()
                .filter(move |c| c.kind == *kind)
                .filter(chosen)
                .take(per_kind)
        })
        .collect();

    let (server, _model_process, _data, model) = start().await;
    let http = reqwest::Client::new();
    seed(&http, &server.url).await;
    println!(
        "model: {model}, {} cases, {} memories\n",
        cases.len(),
        MEMORIES.len()
    );
    let mut results = Vec::new();
    for case in cases {
        let outcome = run_case(&http, &server.url, case, timeout).await;
        println!("{}", report::line(case, &outcome));
        results.push((case, outcome));
    }
    let table = report::table(&model, &label, &results);
    println!("\n{table}");
    match crate::keep(&format!("truth-{label}"), &table) {
        Ok(path) => println!("kept in {path}"),
        Err(error) => eprintln!("the table could not be kept: {error}"),
    }
    server.stop().await;
}

/// Starts the model (unless one is named) and the release binary on an
/// empty temporary data dir, as `eval_questions` does.
async fn start() -> (
    Child,
    Option<tokio::process::Child>,
    tempfile::TempDir,
    String,
) {
    let binary = imprint_binary().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let data = tempfile::tempdir().expect("a temporary dir");
    let mut env = vec![
        ("IMPRINT_ADDR", "127.0.0.1:0".to_string()),
        ("IMPRINT_DATA_DIR", data.path().display().to_string()),
        ("IMPRINT_DIST_DIR", "/nonexistent".to_string()),
        ("IMPRINT_RESEARCH_BUDGET_S", "120".to_string()),
    ];
    let (model_env, model_process) = bench_support::model_env().await;
    env.extend(model_env);
    let server = Child::spawn(&binary, &env).await;
    let status: Value = reqwest::get(format!("{}/api/chat/status", server.url))
        .await
        .expect("status")
        .json()
        .await
        .expect("status JSON");
    let model = format!(
        "{} {} (tool format {})",
        status["provider"].as_str().unwrap_or("?"),
        status["model"].as_str().unwrap_or("?"),
        status["tool_format"].as_str().unwrap_or("?"),
    );
    (server, model_process, data, model)
}

async fn seed(http: &reqwest::Client, url: &str) {
    for memory in MEMORIES {
        let mut body = json!({"content": memory.content});
        if let Some(project) = memory.project {
            body["project"] = json!(project);
        }
        let response = http
            .post(format!("{url}/api/memories"))
            .json(&body)
            .send()
            .await
            .expect("memory posted");
        assert!(response.status().is_success(), "seeding: {response:?}");
    }
}

fn id_of(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string)
}

/// All memories, newest first.
async fn memories(http: &reqwest::Client, url: &str) -> Vec<Value> {
    let list: Value = http
        .get(format!("{url}/api/memories?limit=200"))
        .send()
        .await
        .expect("memories")
        .json()
        .await
        .expect("memories JSON");
    list["memories"].as_array().cloned().unwrap_or_default()
}

/// Puts back seeded memories a reply changed or deleted (as the page's
/// undo does), and says which.
async fn restore(
    http: &reqwest::Client,
    url: &str,
    before: &[Value],
    after: &[Value],
) -> Vec<String> {
    let mut touched = Vec::new();
    for memory in before {
        let id = id_of(&memory["id"]);
        let now = after.iter().find(|m| id_of(&m["id"]) == id);
        if now.is_some_and(|m| m == memory) {
            continue;
        }
        touched.push(memory["content"].as_str().unwrap_or("").to_string());
        let request = match now {
            Some(_) => http.patch(format!("{url}/api/memories/{id}")).json(&json!({
                "content": memory["content"],
                "project": memory["project"],
                "tags": memory["tags"],
            })),
            // Put back with its own id and time, as the page's undo does.
            None => http.post(format!("{url}/api/memories")).json(memory),
        };
        let _ = request.send().await;
    }
    touched
}

/// The body of the answer to a question.
fn answer_for(case: &Case, question: &Value) -> (Value, String) {
    let id = &question["id"];
    let first = question["options"]
        .as_array()
        .and_then(|o| o.first())
        .and_then(Value::as_str);
    let closed = question["allow_other"] == false;
    match (case.reply, first) {
        (Reply::Text(words), _) if !(closed && first.is_some()) => {
            (json!({"id": id, "answer": words}), words.to_string())
        }
        (_, Some(option)) => (json!({"id": id, "answer": option}), option.to_string()),
        (_, None) => (json!({"id": id, "you_decide": true}), "You decide".into()),
    }
}

async fn run_case(http: &reqwest::Client, url: &str, case: &Case, limit: Duration) -> Outcome {
    let memories_before = memories(http, url).await;
    let reminders_before: Vec<String> = crate::reminders(http, url)
        .await
        .iter()
        .map(|r| id_of(&r["id"]))
        .collect();
    let sid = bench_support::new_session(http, url).await;
    let sent = Local::now();
    let started = Instant::now();
    let mut outcome = Outcome {
        end: "cut".into(),
        ..Outcome::default()
    };
    let mut events = bench_support::say(http, url, &sid, case.prompt).await;
    let read = async {
        while let Some(event) = events.next().await {
            match event["type"].as_str().unwrap_or("") {
                "tool_call" => outcome
                    .tools
                    .push(event["name"].as_str().unwrap_or("?").to_string()),
                "question" => {
                    let text = event["question"].as_str().unwrap_or("").to_string();
                    outcome.questions.push(text);
                    let (body, said) = answer_for(case, &event);
                    outcome.given.push(said);
                    let _ = http
                        .post(format!("{url}/api/chat/sessions/{sid}/answer"))
                        .json(&body)
                        .send()
                        .await;
                }
                "assistant_message" => {
                    outcome.end = "answered".into();
                    outcome.answer = event["text"].as_str().unwrap_or("").to_string();
                }
                "error" => {
                    outcome.end = format!("error ({})", event["error"].as_str().unwrap_or("?"));
                }
                "stopped" => outcome.end = "stopped".into(),
                "done" => break,
                _ => {}
            }
        }
    };
    if tokio::time::timeout(limit, read).await.is_err() {
        outcome.end = format!("timeout ({} s)", limit.as_secs());
        let _ = http
            .post(format!("{url}/api/chat/sessions/{sid}/stop"))
            .send()
            .await;
    }
    outcome.seconds = started.elapsed().as_secs_f64();
    let done = Local::now();
    let memories_after = memories(http, url).await;
    let touched = restore(http, url, &memories_before, &memories_after).await;
    let before_ids: Vec<String> = memories_before.iter().map(|m| id_of(&m["id"])).collect();
    let left = Left {
        memories: memories_after
            .iter()
            .map(|m| {
                (
                    id_of(&m["id"]),
                    m["content"].as_str().unwrap_or("").to_string(),
                )
            })
            .filter(|(id, _)| !before_ids.contains(id))
            .collect(),
        touched,
        reminders: crate::reminders(http, url)
            .await
            .into_iter()
            .filter(|r| !reminders_before.contains(&id_of(&r["id"])))
            .collect(),
    };
    judge(case, &mut outcome, &left, sent, done);
    // Leave the store as seeded, so no case sees another's writes.
    for (id, _) in &left.memories {
        let _ = http.delete(format!("{url}/api/memories/{id}")).send().await;
    }
    for reminder in &left.reminders {
        let id = id_of(&reminder["id"]);
        let _ = http
            .delete(format!("{url}/api/reminders/{id}"))
            .send()
            .await;
    }
    outcome
}

/// Fills in why a case failed (nothing when it passed) and what it
/// invented.
fn judge(
    case: &Case,
    outcome: &mut Outcome,
    left: &Left,
    sent: chrono::DateTime<Local>,
    done: chrono::DateTime<Local>,
) {
    let answer = outcome.answer.clone();
    let mut why = Vec::new();
    let mut invented = Vec::new();
    if outcome.end != "answered" {
        why.push(format!("ended: {}", outcome.end));
    }
    if !case.clear() && outcome.questions.is_empty() {
        why.push("asked nothing, though the request leaves something out".into());
    }
    outcome.markup = check::shown_markup(&answer);
    if !outcome.markup.is_empty() {
        why.push(format!("shows {:?}", outcome.markup));
    }
    let mut known: Vec<&str> = vec![case.prompt];
    known.extend(outcome.given.iter().map(String::as_str));
    let writes = matches!(case.check, Check::Save { .. } | Check::Remind { .. });
    if !writes && !left.memories.is_empty() {
        why.push(format!("saved a memory unasked: {:?}", left.memories[0].1));
    }
    if !left.touched.is_empty() {
        why.push(format!("changed or deleted {:?}", left.touched));
    }
    if !matches!(case.check, Check::Remind { .. }) && !left.reminders.is_empty() {
        why.push(format!(
            "set a reminder unasked: {:?}",
            left.reminders[0]["text"]
        ));
    }
    let near_misses = |not: &[&str], why: &mut Vec<String>, invented: &mut Vec<String>| {
        let hits: Vec<String> = not
            .iter()
            .filter(|n| check::holds(&answer, n))
            .map(|n| n.to_string())
            .collect();
        if !hits.is_empty() {
            why.push(format!("shows a near miss's {hits:?}"));
            invented.extend(hits);
        }
    };
    match case.check {
        Check::Read { any, not } => {
            if !any.iter().any(|a| check::holds(&answer, a)) {
                why.push(format!("lacks any of {any:?}"));
            }
            near_misses(not, &mut why, &mut invented);
        }
        Check::Save { all } => {
            let kept = left
                .memories
                .iter()
                .any(|(_, content)| all.iter().all(|w| check::holds(content, w)));
            if left.memories.is_empty() {
                why.push("saved no memory".into());
            } else if !kept {
                let saved: Vec<&str> = left.memories.iter().map(|(_, c)| c.as_str()).collect();
                why.push(format!("saved {saved:?}, wanted all of {all:?}"));
            }
        }
        Check::Remind { when, words } => {
            let problems: Vec<String> = left
                .reminders
                .iter()
                .map(|r| {
                    let text = r["text"].as_str().unwrap_or("");
                    let due = check::due_problem(r, when, sent, done);
                    let text = check::reminder_text_problem(text, words);
                    [due, text]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .collect();
            if problems.is_empty() {
                why.push("set no reminder".into());
            } else if !problems.iter().any(String::is_empty) {
                why.push(problems.join(" | "));
            }
        }
        Check::Knows { any, not } => {
            if !any.iter().any(|a| check::holds(&answer, a)) {
                why.push(format!("lacks any of {any:?}"));
            }
            let wrong: Vec<&str> = not
                .iter()
                .copied()
                .filter(|n| check::holds(&answer, n))
                .collect();
            if !wrong.is_empty() {
                why.push(format!("says {wrong:?}"));
            }
            let leaked = check::seeded_facts(&answer);
            if !leaked.is_empty() {
                why.push(format!("shows memories' {leaked:?}"));
            }
        }
        Check::Absent { not } => {
            let values = check::values_stated(&answer, &known.join(" "));
            if !values.is_empty() {
                why.push(format!("states {values:?}"));
                invented.extend(values);
            }
            if !check::says_not_found(&answer) {
                why.push("does not say nothing was found".into());
            }
            near_misses(not, &mut why, &mut invented);
        }
    }
    // World knowledge is not a claim about the user's things.
    if !matches!(case.check, Check::Knows { .. }) {
        let tokens = check::invented(&answer, &known);
        if !tokens.is_empty() {
            why.push(format!("invents {tokens:?}"));
        }
        invented.extend(tokens);
    }
    invented.sort();
    invented.dedup();
    outcome.why = why;
    outcome.invented = invented;
}
