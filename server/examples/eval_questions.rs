//! Evaluation (issues 7 and 8): how well replies ask, with a real model.
//! A measurement, not a test: prints figures, asserts nothing. Run with
//!
//! ```sh
//! cargo build --release -p imprint --bin imprint
//! cargo run --release -p imprint --example eval_questions [clear|ambiguous]
//! ```
//!
//! (`clear` or `ambiguous`: only the prompts of that kind.)
//!
//! The model is the local one (`scripts/local-model.sh start` on a free
//! port, set up by `scripts/local-model.sh ensure`), or whatever
//! `IMPRINT_CHAT_PROVIDER` / `IMPRINT_CHAT_BASE_URL` / `IMPRINT_CHAT_MODEL`
//! / `IMPRINT_CHAT_API_KEY` / `IMPRINT_CHAT_TOOL_FORMAT` name.
//!
//! # Method
//!
//! The release binary runs with a temporary data dir holding a few
//! memories in three projects (Website, Thesis, Garden) and the full tool
//! set. Each of 32 prompts goes to a new session: 16 are ambiguous in a way
//! search cannot settle (a reminder without a time, "the project" with
//! several projects), 16 are clear. When a question comes, it is answered
//! with the prompt's answer ("tomorrow at 10", "Website"). For each reply:
//! the questions it asked (by the model, or by Imprint for a grounded
//! argument), the tools it called, its outcome and how long it took; and
//! for each reminder it stored, whether the user had given its time (in
//! the prompt, or in an answer) and whether it is due when they said.

#[path = "bench_support/mod.rs"]
mod bench_support;

use std::process::Stdio;
use std::time::Instant;

use bench_support::{imprint_binary, Child, Samples, SseReader};
use chrono::{DateTime, Datelike, Local, NaiveTime, TimeZone};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ambiguous,
    Clear,
}

/// When a clear prompt's reminder is due.
#[derive(Clone, Copy)]
enum Due {
    None,
    /// Days from today, at this local time.
    DayAt(i64, u32, u32),
    /// Minutes from the moment the prompt was sent.
    In(i64),
}

struct Prompt {
    kind: Kind,
    text: &'static str,
    /// What the user answers if asked.
    answer: &'static str,
    due: Due,
}

const fn p(kind: Kind, text: &'static str, answer: &'static str, due: Due) -> Prompt {
    Prompt {
        kind,
        text,
        answer,
        due,
    }
}

use Kind::{Ambiguous as A, Clear as C};

const PROMPTS: &[Prompt] = &[
    p(
        A,
        "Remind me about the dentist.",
        "tomorrow at 10",
        Due::None,
    ),
    p(
        A,
        "Remind me to send the invoice.",
        "tomorrow at 10",
        Due::None,
    ),
    p(
        A,
        "Set a reminder to call Anna.",
        "tomorrow at 10",
        Due::None,
    ),
    p(
        A,
        "Remind me to water the plants.",
        "tomorrow at 10",
        Due::None,
    ),
    p(
        A,
        "Please remind me about the team meeting.",
        "tomorrow at 10",
        Due::None,
    ),
    p(A, "Remind me to pay the rent.", "tomorrow at 10", Due::None),
    p(
        A,
        "Remind me to book the flights.",
        "tomorrow at 10",
        Due::None,
    ),
    p(
        A,
        "I need a reminder to renew my passport.",
        "tomorrow at 10",
        Due::None,
    ),
    p(
        A,
        "Remind me to take my medicine.",
        "tomorrow at 10",
        Due::None,
    ),
    p(
        A,
        "Remind me to back up the laptop.",
        "tomorrow at 10",
        Due::None,
    ),
    p(A, "Find my notes from the project.", "Website", Due::None),
    p(
        A,
        "What did we decide in the project?",
        "Website",
        Due::None,
    ),
    p(A, "Search the project for the budget.", "Thesis", Due::None),
    p(
        A,
        "Save this to my project: the client approved the mockups.",
        "Website",
        Due::None,
    ),
    p(
        A,
        "Add to the project notes that the deadline moved to Friday.",
        "Thesis",
        Due::None,
    ),
    p(
        A,
        "Show me the latest notes in my project.",
        "Garden",
        Due::None,
    ),
    p(
        C,
        "Remind me tomorrow at 9 to call Anna.",
        "",
        Due::DayAt(1, 9, 0),
    ),
    p(
        C,
        "Remind me tomorrow at 18:00 to buy bread.",
        "",
        Due::DayAt(1, 18, 0),
    ),
    p(C, "Remind me in 2 hours to stretch.", "", Due::In(120)),
    p(
        C,
        "Remind me the day after tomorrow at 8am to renew the car insurance.",
        "",
        Due::DayAt(2, 8, 0),
    ),
    p(
        C,
        "In 30 minutes, remind me to check the oven.",
        "",
        Due::In(30),
    ),
    p(C, "What does Anna like to drink?", "", Due::None),
    p(
        C,
        "Find my notes about hosting in the Website project.",
        "",
        Due::None,
    ),
    p(C, "Which projects do I have?", "", Due::None),
    p(
        C,
        "Save a memory: my bike lock code is 4312.",
        "",
        Due::None,
    ),
    p(
        C,
        "Store in the Garden project: planted tomatoes on the south bed.",
        "",
        Due::None,
    ),
    p(C, "When does my passport expire?", "", Due::None),
    p(
        C,
        "What is the survey budget in the Thesis project?",
        "",
        Due::None,
    ),
    p(C, "Say hello.", "", Due::None),
    p(C, "What is 2 plus 2?", "", Due::None),
    p(
        C,
        "Search my memories for the wifi password.",
        "",
        Due::None,
    ),
    p(C, "What did I plant in the Garden project?", "", Due::None),
];

const SEED: &str = r#"{"content": "Website: moved hosting to the new VPS; DNS switched on Friday", "project": "Website", "created_at": "2026-11-10T10:00:00Z"}
{"content": "Website: decided to use the blue theme for the landing page", "project": "Website", "created_at": "2026-11-12T10:00:00Z"}
{"content": "Thesis: chapter 3 draft sent to the supervisor", "project": "Thesis", "created_at": "2026-11-15T10:00:00Z"}
{"content": "Thesis: the budget for the survey is 400 EUR", "project": "Thesis", "created_at": "2026-11-16T10:00:00Z"}
{"content": "Garden: planted garlic in the north bed", "project": "Garden", "created_at": "2026-10-20T10:00:00Z"}
{"content": "Anna likes green tea", "created_at": "2026-09-01T10:00:00Z"}
{"content": "Passport expires on 2027-03-14", "created_at": "2026-08-01T10:00:00Z"}
{"content": "The wifi password is correct-horse-42", "created_at": "2026-07-01T10:00:00Z"}
"#;

/// What one reply did.
struct Outcome {
    asked_by_model: usize,
    asked_by_imprint: usize,
    tools: Vec<String>,
    end: String,
    seconds: f64,
    /// Reminders it stored, each with whether its time was the user's.
    reminders: Vec<(String, bool)>,
    /// The answer shows tool-call markup.
    markup_in_answer: bool,
    /// Question cards the stored history draws for questions that were
    /// never put to the user (cards minus questions posed).
    cards_never_asked: usize,
}

#[tokio::main]
async fn main() {
    let binary = match imprint_binary() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let data = tempfile::tempdir().expect("a temporary dir");
    let data_dir = data.path().to_str().expect("utf-8 path").to_string();
    let seed = data.path().join("seed.jsonl");
    std::fs::write(&seed, SEED).expect("seed written");
    let imported = std::process::Command::new(&binary)
        .args(["import", seed.to_str().expect("utf-8 path")])
        .env("IMPRINT_DATA_DIR", &data_dir)
        .stdout(Stdio::null())
        .status()
        .expect("imprint import runs");
    assert!(imported.success(), "imprint import failed");

    let mut model_env: Vec<(&str, String)> = Vec::new();
    for key in [
        "IMPRINT_CHAT_PROVIDER",
        "IMPRINT_CHAT_BASE_URL",
        "IMPRINT_CHAT_MODEL",
        "IMPRINT_CHAT_API_KEY",
        "IMPRINT_CHAT_TOOL_FORMAT",
        "IMPRINT_CHAT_TOOL_PROMPT",
    ] {
        if let Ok(value) = std::env::var(key) {
            model_env.push((key, value));
        }
    }
    let _local_model = if model_env.iter().any(|(k, _)| *k == "IMPRINT_CHAT_BASE_URL") {
        None
    } else {
        let (child, base_url) = start_local_model().await;
        model_env.push(("IMPRINT_CHAT_PROVIDER", "local".into()));
        model_env.push(("IMPRINT_CHAT_BASE_URL", base_url));
        Some(child)
    };
    let mut env = vec![
        ("IMPRINT_ADDR", "127.0.0.1:0".to_string()),
        ("IMPRINT_DATA_DIR", data_dir.clone()),
        ("IMPRINT_DIST_DIR", "/nonexistent".to_string()),
        ("IMPRINT_RESEARCH_BUDGET_S", "120".to_string()),
    ];
    env.extend(model_env.iter().cloned());
    let server = Child::spawn(&binary, &env).await;
    let http = reqwest::Client::new();
    let status: Value = http
        .get(format!("{}/api/chat/status", server.url))
        .send()
        .await
        .expect("status")
        .json()
        .await
        .expect("status JSON");
    println!(
        "model: {} {} (tool format {}), {} prompts\n",
        status["provider"].as_str().unwrap_or("?"),
        status["model"].as_str().unwrap_or("?"),
        status["tool_format"].as_str().unwrap_or("?"),
        PROMPTS.len()
    );

    let only = std::env::args().nth(1).map(|kind| match kind.as_str() {
        "clear" => Kind::Clear,
        "ambiguous" => Kind::Ambiguous,
        other => {
            eprintln!("eval_questions: unknown kind {other:?} (clear or ambiguous)");
            std::process::exit(2);
        }
    });
    let mut results = Vec::new();
    for prompt in PROMPTS
        .iter()
        .filter(|p| only.is_none_or(|kind| p.kind == kind))
    {
        let outcome = run_prompt(&http, &server.url, prompt).await;
        let due_check = check_due(prompt, &outcome);
        println!(
            "{} asked m{} i{} {:>5.1}s {:<9} tools [{}]{} | {}",
            if prompt.kind == Kind::Ambiguous {
                "A"
            } else {
                "C"
            },
            outcome.asked_by_model,
            outcome.asked_by_imprint,
            outcome.seconds,
            outcome.end,
            outcome.tools.join(","),
            due_check,
            prompt.text
        );
        results.push((prompt, outcome));
    }
    summarize(&results);
    server.stop().await;
}

/// Starts `scripts/local-model.sh start PORT` and waits for its
/// "listening" line (llama-server's log on stderr).
async fn start_local_model() -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/local-model.sh");
    let mut child = tokio::process::Command::new(script)
        .args(["start", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("scripts/local-model.sh starts");
    let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) if line.contains("listening on") => break,
            Ok(Some(_)) => {}
            _ => {
                eprintln!("the local model did not start: run scripts/local-model.sh ensure");
                std::process::exit(1);
            }
        }
    }
    // Keep reading its log, so the pipe never fills.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("http://127.0.0.1:{port}/v1"))
}

async fn reminder_ids(http: &reqwest::Client, url: &str) -> Vec<Value> {
    let list: Value = http
        .get(format!("{url}/api/reminders"))
        .send()
        .await
        .expect("reminders")
        .json()
        .await
        .expect("reminders JSON");
    list["reminders"].as_array().cloned().unwrap_or_default()
}

async fn run_prompt(http: &reqwest::Client, url: &str, prompt: &Prompt) -> Outcome {
    let before: Vec<Value> = reminder_ids(http, url).await;
    let session: Value = http
        .post(format!("{url}/api/chat/sessions"))
        .json(&json!({}))
        .send()
        .await
        .expect("session")
        .json()
        .await
        .expect("session JSON");
    let sid = session["id"].as_str().expect("a session id").to_string();
    let started = Instant::now();
    let sent: Value = http
        .post(format!("{url}/api/chat/sessions/{sid}/messages"))
        .json(&json!({"message": prompt.text}))
        .send()
        .await
        .expect("message")
        .json()
        .await
        .expect("message JSON");
    let reply_id = sent["reply_id"].as_str().expect("a reply id");
    let response = http
        .get(format!(
            "{url}/api/chat/sessions/{sid}/reply?reply_id={reply_id}"
        ))
        .send()
        .await
        .expect("reply stream");
    let mut events = SseReader::new(response);
    let mut outcome = Outcome {
        asked_by_model: 0,
        asked_by_imprint: 0,
        tools: Vec::new(),
        end: "cut".into(),
        seconds: 0.0,
        reminders: Vec::new(),
        markup_in_answer: false,
        cards_never_asked: 0,
    };
    let mut answered = false;
    while let Some(event) = events.next().await {
        match event["type"].as_str().unwrap_or("") {
            "tool_call" => outcome
                .tools
                .push(event["name"].as_str().unwrap_or("?").to_string()),
            "question" => {
                if event["origin"] == "imprint" {
                    outcome.asked_by_imprint += 1;
                } else {
                    outcome.asked_by_model += 1;
                }
                let options = event["options"].as_array().cloned().unwrap_or_default();
                let answer = if prompt.answer.is_empty() {
                    options
                        .first()
                        .and_then(Value::as_str)
                        .unwrap_or("I don't know")
                        .to_string()
                } else if event["allow_other"] == false && !options.is_empty() {
                    options[0].as_str().unwrap_or_default().to_string()
                } else {
                    prompt.answer.to_string()
                };
                answered = true;
                let _ = http
                    .post(format!("{url}/api/chat/sessions/{sid}/answer"))
                    .json(&json!({"id": event["id"], "answer": answer}))
                    .send()
                    .await;
            }
            "assistant_message" => {
                outcome.end = "answered".into();
                outcome.markup_in_answer =
                    imprint::models::shown_text::shows_markup(event["text"].as_str().unwrap_or(""));
            }
            "error" => {
                outcome.end = format!("error ({})", event["error"].as_str().unwrap_or("?"));
            }
            "stopped" => outcome.end = "stopped".into(),
            "done" => break,
            _ => {}
        }
    }
    outcome.seconds = started.elapsed().as_secs_f64();
    outcome.cards_never_asked = cards_never_asked(http, url, &sid, &outcome).await;
    let after = reminder_ids(http, url).await;
    let user_gave_time = prompt.kind == Kind::Clear || answered;
    for reminder in after.iter().filter(|r| !before.contains(r)) {
        let due = reminder["due_at"].as_str().unwrap_or("").to_string();
        outcome.reminders.push((due, user_gave_time));
    }
    outcome
}

/// Question cards the page draws from the session's history, beyond the
/// questions the reply posed.
async fn cards_never_asked(
    http: &reqwest::Client,
    url: &str,
    sid: &str,
    outcome: &Outcome,
) -> usize {
    let session: Option<app::protocol::Session> = match http
        .get(format!("{url}/api/chat/sessions/{sid}"))
        .send()
        .await
    {
        Ok(response) => response.json().await.ok(),
        Err(_) => None,
    };
    let Some(session) = session else {
        return 0;
    };
    let cards = app::logic::reply::history_entries(&session.messages)
        .iter()
        .filter(|e| {
            matches!(
                e,
                app::logic::reply::HistoryEntry::Item(
                    app::logic::reply::ReplyItem::Question { .. }
                )
            )
        })
        .count();
    cards.saturating_sub(outcome.asked_by_model + outcome.asked_by_imprint)
}

/// For the printout: each stored reminder, and whether it is due when the
/// user said.
fn check_due(prompt: &Prompt, outcome: &Outcome) -> String {
    let mut notes = String::new();
    for (due, user_gave) in &outcome.reminders {
        let due_local = DateTime::parse_from_rfc3339(due)
            .map(|t| t.with_timezone(&Local))
            .ok();
        let verdict = match (prompt.due, due_local) {
            (_, None) => "unreadable",
            _ if !user_gave => "INVENTED TIME",
            (Due::DayAt(days, h, m), Some(t)) => {
                let expected = Local::now().date_naive() + chrono::Duration::days(days);
                let matches = t.date_naive() == expected
                    && t.time() == NaiveTime::from_hms_opt(h, m, 0).expect("valid");
                if matches {
                    "as said"
                } else {
                    "WRONG TIME"
                }
            }
            (Due::In(minutes), Some(t)) => {
                let expected = Local::now() + chrono::Duration::minutes(minutes);
                if (t - expected).num_minutes().abs() <= 5 {
                    "as said"
                } else {
                    "WRONG TIME"
                }
            }
            (Due::None, Some(t)) => {
                // Answered "tomorrow at 10".
                let tomorrow = Local::now().date_naive().succ_opt().expect("a date");
                let ten = Local
                    .from_local_datetime(&tomorrow.and_hms_opt(10, 0, 0).expect("valid"))
                    .earliest();
                if Some(t) == ten && t.day() == tomorrow.day() {
                    "as answered"
                } else {
                    "WRONG TIME"
                }
            }
        };
        notes.push_str(&format!(" reminder {due} ({verdict})"));
    }
    notes
}

fn summarize(results: &[(&Prompt, Outcome)]) {
    println!();
    for kind in [Kind::Ambiguous, Kind::Clear] {
        let of_kind: Vec<&Outcome> = results
            .iter()
            .filter(|(p, _)| p.kind == kind)
            .map(|(_, o)| o)
            .collect();
        let n = of_kind.len();
        if n == 0 {
            continue;
        }
        let asked = of_kind
            .iter()
            .filter(|o| o.asked_by_model + o.asked_by_imprint > 0)
            .count();
        let by_model = of_kind.iter().filter(|o| o.asked_by_model > 0).count();
        let by_imprint = of_kind.iter().filter(|o| o.asked_by_imprint > 0).count();
        println!(
            "{:<9}: asked in {asked}/{n} ({:.0} %): the model asked in {by_model}, Imprint in {by_imprint}",
            if kind == Kind::Ambiguous {
                "ambiguous"
            } else {
                "clear"
            },
            100.0 * asked as f64 / n as f64,
        );
    }
    let twice = results
        .iter()
        .filter(|(_, o)| o.asked_by_model + o.asked_by_imprint >= 2)
        .count();
    println!(
        "asked twice or more in one reply: {twice}/{}",
        results.len()
    );
    let reminders: Vec<&(String, bool)> = results.iter().flat_map(|(_, o)| &o.reminders).collect();
    let invented = reminders.iter().filter(|(_, user_gave)| !user_gave).count();
    println!(
        "reminders stored: {}, at a time the user did not give: {invented}",
        reminders.len()
    );
    let failed = results.iter().filter(|(_, o)| o.end != "answered").count();
    println!("replies without an answer (error, stop, cut): {failed}");
    let mut clear_calls: Vec<usize> = results
        .iter()
        .filter(|(p, _)| p.kind == Kind::Clear)
        .map(|(_, o)| o.tools.len())
        .collect();
    clear_calls.sort_unstable();
    let median = |v: &[usize]| match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2] as f64,
        n => (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0,
    };
    println!(
        "tool calls on a clear request: median {:.1}, max {}",
        median(&clear_calls),
        clear_calls.last().copied().unwrap_or(0)
    );
    let markup = results.iter().filter(|(_, o)| o.markup_in_answer).count();
    let never_asked: usize = results.iter().map(|(_, o)| o.cards_never_asked).sum();
    println!("answers with markup: {markup}; cards for questions never asked: {never_asked}");
    let seconds = Samples::new(results.iter().map(|(_, o)| o.seconds).collect());
    println!(
        "reply time: p50 {:.1} s, p95 {:.1} s, max {:.1} s, mean {:.1} s",
        seconds.pct(50.0),
        seconds.pct(95.0),
        seconds.max(),
        seconds.mean()
    );
}
