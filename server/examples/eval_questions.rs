//! Evaluation (issues 7, 8 and 18): how well replies ask, with a real
//! model. A measurement, not a test: prints figures, asserts nothing, and
//! keeps the run's table in `docs/eval/`. Run with
//!
//! ```sh
//! cargo build --release -p imprint --bin imprint
//! IMPRINT_EVAL_LABEL=after cargo run --release -p imprint --example eval_questions
//! ```
//!
//! The model is the local one (`scripts/local-model.sh start` on a free
//! port, set up by `scripts/local-model.sh ensure`), or whatever
//! `IMPRINT_CHAT_PROVIDER` / `IMPRINT_CHAT_BASE_URL` / `IMPRINT_CHAT_MODEL`
//! / `IMPRINT_CHAT_API_KEY` / `IMPRINT_CHAT_TOOL_FORMAT` name. For a smoke
//! check, `IMPRINT_EVAL_KINDS=time,pronoun` keeps some kinds and
//! `IMPRINT_EVAL_PAIRS=2` the first pairs of each; `IMPRINT_EVAL_LABEL`
//! names the run's file (`docs/eval/DATE-LABEL.md`).
//!
//! # Method
//!
//! The release binary runs with a temporary data dir holding memories in
//! four projects (Website, Thesis, Garden, Billing), with two of each kind
//! a reference may mean: two meetings, two documents, two accounts, two
//! "usual" orders, two colleagues, two phone numbers, two budgets. Each of
//! 80 prompts goes to a new session: 40 are ambiguous in one of 8 ways
//! (a reminder's time, "the project", a person, a document or meeting, a
//! recurring reminder with no time, "the usual", a pronoun with nothing
//! before it, an account or thing), each with a clear twin that names what
//! the ambiguous one leaves out. A question is answered the way people
//! do: an option, their own words, or "You decide" (each ambiguous prompt
//! says which). A clear prompt asked anyway takes the first option (or
//! "You decide" when there is none).
//!
//! For each reply: the questions (the model's and Imprint's), the tools
//! called, the outcome and the time taken; whether its answer shows
//! tool-call markup; question cards its history draws for questions never
//! posed; and reminders it stored at a time the user never gave.
//! A reply asks twice when it poses more questions than its prompt needs
//! (one, or two for "remind me about it next week": what, and when).

#[path = "bench_support/mod.rs"]
mod bench_support;
/// `IMPRINT_EVAL_MODE=truth` (issue 26): the truth evaluation instead.
#[path = "eval_truth/mod.rs"]
mod eval_truth;

use std::fmt::Write as _;
use std::process::Stdio;
use std::time::Instant;

use bench_support::{imprint_binary, Child, Samples};
use serde_json::{json, Value};

/// The ways a request can leave out what it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Time,
    Project,
    Person,
    DocumentOrMeeting,
    Recurring,
    Usual,
    Pronoun,
    AccountOrThing,
}

const KINDS: [Kind; 8] = [
    Kind::Time,
    Kind::Project,
    Kind::Person,
    Kind::DocumentOrMeeting,
    Kind::Recurring,
    Kind::Usual,
    Kind::Pronoun,
    Kind::AccountOrThing,
];

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Time => "time",
            Kind::Project => "project",
            Kind::Person => "person",
            Kind::DocumentOrMeeting => "document or meeting",
            Kind::Recurring => "recurring",
            Kind::Usual => "the usual",
            Kind::Pronoun => "pronoun",
            Kind::AccountOrThing => "account or thing",
        }
    }

    /// The short name `IMPRINT_EVAL_KINDS` takes.
    fn key(self) -> &'static str {
        match self {
            Kind::Time => "time",
            Kind::Project => "project",
            Kind::Person => "person",
            Kind::DocumentOrMeeting => "document",
            Kind::Recurring => "recurring",
            Kind::Usual => "usual",
            Kind::Pronoun => "pronoun",
            Kind::AccountOrThing => "account",
        }
    }
}

/// How the user answers a question on the ambiguous prompt.
#[derive(Clone, Copy, Debug)]
enum Reply {
    /// This option (the pair's words when the question has none).
    Option(usize),
    /// The pair's words.
    Words,
    /// "You decide".
    YouDecide,
}

struct Pair {
    kind: Kind,
    ambiguous: &'static str,
    clear: &'static str,
    reply: Reply,
    /// The user's own words for what they mean (or when).
    words: &'static str,
    /// Questions the ambiguous prompt needs.
    needs: usize,
}

const fn pair(
    kind: Kind,
    ambiguous: &'static str,
    clear: &'static str,
    reply: Reply,
    words: &'static str,
) -> Pair {
    Pair {
        kind,
        ambiguous,
        clear,
        reply,
        words,
        needs: 1,
    }
}

use Kind::*;
use Reply::{Option as Pick, Words, YouDecide};

/// The answer to a time question that is not the prompt's point.
const WHEN: &str = "tomorrow at 10";

const PAIRS: &[Pair] = &[
    // A reminder with no time.
    pair(
        Time,
        "Remind me to send the invoice.",
        "Remind me tomorrow at 9 to send the invoice.",
        Pick(0),
        WHEN,
    ),
    pair(
        Time,
        "Remind me to call Anna.",
        "Remind me in 2 hours to call Anna.",
        Words,
        WHEN,
    ),
    pair(
        Time,
        "Set a reminder to renew my passport.",
        "Set a reminder for December 3 at 10:00 to renew my passport.",
        YouDecide,
        WHEN,
    ),
    pair(
        Time,
        "Remind me before the flight to check in.",
        "Remind me on December 11 at 18:00 to check in for the flight.",
        Pick(1),
        WHEN,
    ),
    pair(
        Time,
        "Remind me next week to water the plants.",
        "Remind me next Monday at 8am to water the plants.",
        Words,
        "Friday at 9",
    ),
    // "The project" among several.
    pair(
        Project,
        "Find my notes from the project.",
        "Find my notes from the Website project.",
        Pick(0),
        "Website",
    ),
    pair(
        Project,
        "What did we decide in the project?",
        "What did we decide in the Thesis project?",
        Words,
        "the thesis one",
    ),
    pair(
        Project,
        "Search the project for the budget.",
        "Search the Thesis project for the budget.",
        YouDecide,
        "Thesis",
    ),
    pair(
        Project,
        "Save this to my project: the client approved the mockups.",
        "Save to the Website project: the client approved the mockups.",
        Pick(1),
        "Website",
    ),
    pair(
        Project,
        "Show me the latest notes in my project.",
        "Show me the latest notes in the Garden project.",
        Words,
        "Garden",
    ),
    // A person left unnamed.
    pair(
        Person,
        "What's her phone number?",
        "What's Marta's phone number?",
        Pick(1),
        "Marta",
    ),
    pair(
        Person,
        "What did my colleague say about email?",
        "What does Marta prefer, email or phone?",
        Words,
        "Marta",
    ),
    pair(
        Person,
        "Remind me to call him tomorrow at 9.",
        "Remind me to call Tom tomorrow at 9.",
        Words,
        "Tom",
    ),
    pair(
        Person,
        "Send my colleague the hosting report.",
        "Send Tom the hosting report.",
        YouDecide,
        "Tom",
    ),
    pair(
        Person,
        "Tell me about the one I care about.",
        "Tell me about Anna.",
        Words,
        "Anna",
    ),
    // A document or a meeting left unnamed.
    pair(
        DocumentOrMeeting,
        "What did we decide in the meeting?",
        "What did we decide in the billing meeting?",
        Pick(0),
        "the billing one",
    ),
    pair(
        DocumentOrMeeting,
        "Find the document I mentioned.",
        "Find the hosting report.",
        Words,
        "the hosting report",
    ),
    pair(
        DocumentOrMeeting,
        "Summarize the report.",
        "Summarize the thesis report draft.",
        YouDecide,
        "the thesis report",
    ),
    pair(
        DocumentOrMeeting,
        "When was the sync?",
        "When was the website sync?",
        Pick(1),
        "the website sync",
    ),
    pair(
        DocumentOrMeeting,
        "Remind me about the meeting tomorrow at 9.",
        "Remind me about the billing meeting tomorrow at 9.",
        Pick(0),
        "the billing meeting",
    ),
    // A recurring reminder with no time.
    pair(
        Recurring,
        "Remind me every day to take my vitamins.",
        "Remind me every day at 8 to take my vitamins.",
        Words,
        "at 8am",
    ),
    pair(
        Recurring,
        "Remind me every weekday to check the inbox.",
        "Remind me every weekday at 9:30 to check the inbox.",
        Pick(1),
        WHEN,
    ),
    pair(
        Recurring,
        "Remind me weekly to back up the laptop.",
        "Remind me every Friday at 17:00 to back up the laptop.",
        YouDecide,
        WHEN,
    ),
    pair(
        Recurring,
        "Remind me daily to stretch.",
        "Remind me daily at 15:00 to stretch.",
        Words,
        "at 3pm",
    ),
    pair(
        Recurring,
        "Remind me every week to call grandma.",
        "Remind me every Sunday at 11am to call grandma.",
        Pick(0),
        WHEN,
    ),
    // "The usual".
    pair(
        Usual,
        "Book the usual.",
        "Book a table at Luigi's for two.",
        Pick(0),
        "Luigi's",
    ),
    pair(
        Usual,
        "Order the usual.",
        "Order a flat white with oat milk.",
        Words,
        "the coffee",
    ),
    pair(
        Usual,
        "What is my usual?",
        "What is my usual coffee order?",
        YouDecide,
        "the coffee",
    ),
    pair(
        Usual,
        "Get me the usual, please.",
        "Get me the margherita at Luigi's, please.",
        Pick(1),
        "the coffee",
    ),
    pair(
        Usual,
        "Remind me to order the usual tomorrow at 12.",
        "Remind me to order a flat white tomorrow at 12.",
        Words,
        "the pizza at Luigi's",
    ),
    // A pronoun with nothing before it.
    Pair {
        needs: 2,
        ..pair(
            Pronoun,
            "Remind me about it next week.",
            "Remind me about the dentist next Monday at 10.",
            Words,
            "the dentist",
        )
    },
    pair(
        Pronoun,
        "Book it for Friday.",
        "Book the Lisbon flight for Friday.",
        Words,
        "the Lisbon flight",
    ),
    pair(
        Pronoun,
        "What did she say about it?",
        "What did Marta say about email?",
        Words,
        "Marta, about email",
    ),
    pair(
        Pronoun,
        "Move that to Friday.",
        "Move the billing meeting to Friday.",
        YouDecide,
        "the billing meeting",
    ),
    pair(
        Pronoun,
        "Cancel it.",
        "Cancel the website sync.",
        Words,
        "the website sync",
    ),
    // An account or a thing left unnamed.
    pair(
        AccountOrThing,
        "Write down the password hint for the account.",
        "Write down the password hint for my email account: the first street.",
        Pick(1),
        "the email account",
    ),
    pair(
        AccountOrThing,
        "Look up the thing we discussed.",
        "Look up what I saved about the wifi password.",
        Words,
        "the wifi password",
    ),
    pair(
        AccountOrThing,
        "What did I say about the budget last time?",
        "What did I say about the survey budget in the Thesis project?",
        Pick(0),
        "the thesis budget",
    ),
    pair(
        AccountOrThing,
        "What's the login for my account?",
        "What's the login for my bank account?",
        YouDecide,
        "the bank account",
    ),
    pair(
        AccountOrThing,
        "Save the new PIN to the account.",
        "Save the new PIN 4321 for my bank account.",
        Words,
        "the bank account",
    ),
];

/// Memories in four projects; two of each thing a reference may mean.
const SEED: &str = r#"{"content": "Billing meeting: we decided to move invoices to Stripe", "project": "Billing", "created_at": "2026-11-12T10:00:00Z"}
{"content": "Website sync: agreed to launch the landing page on 1 December", "project": "Website", "created_at": "2026-11-20T10:00:00Z"}
{"content": "Thesis report draft: chapter 3 sent to the supervisor", "project": "Thesis", "created_at": "2026-11-15T10:00:00Z"}
{"content": "Hosting report: the VPS costs 12 EUR a month", "project": "Website", "created_at": "2026-11-10T10:00:00Z"}
{"content": "Website: decided to use the blue theme for the landing page", "project": "Website", "created_at": "2026-11-12T11:00:00Z"}
{"content": "Website: the hosting budget is 20 EUR a month", "project": "Website", "created_at": "2026-11-18T10:00:00Z"}
{"content": "Thesis: the budget for the survey is 400 EUR", "project": "Thesis", "created_at": "2026-11-16T10:00:00Z"}
{"content": "Garden: planted garlic in the north bed", "project": "Garden", "created_at": "2026-10-20T10:00:00Z"}
{"content": "Garden: order tomato seeds in February", "project": "Garden", "created_at": "2026-11-02T10:00:00Z"}
{"content": "Colleague Marta prefers email over phone", "project": "Billing", "created_at": "2026-11-01T10:00:00Z"}
{"content": "Colleague Tom leads the website redesign", "project": "Website", "created_at": "2026-11-03T10:00:00Z"}
{"content": "Bank account: online banking login is anna.k, hint: the cat's name", "created_at": "2026-09-05T10:00:00Z"}
{"content": "Email account: password hint is the first street I lived on", "created_at": "2026-09-06T10:00:00Z"}
{"content": "My usual at Luigi's: margherita and sparkling water, table for two", "created_at": "2026-10-01T10:00:00Z"}
{"content": "My usual coffee order: flat white with oat milk", "created_at": "2026-10-03T10:00:00Z"}
{"content": "Anna's phone number is 0176 111 222", "created_at": "2026-08-01T10:00:00Z"}
{"content": "Marta's phone number is 0176 333 444", "created_at": "2026-08-02T10:00:00Z"}
{"content": "Anna likes green tea", "created_at": "2026-09-01T10:00:00Z"}
{"content": "Passport expires on 2027-03-14", "created_at": "2026-08-01T11:00:00Z"}
{"content": "The wifi password is correct-horse-42", "created_at": "2026-07-01T10:00:00Z"}
{"content": "Flight to Lisbon on 12 December at 07:10", "created_at": "2026-11-25T10:00:00Z"}
"#;

/// One prompt of a pair.
struct Prompt<'a> {
    pair: &'a Pair,
    ambiguous: bool,
}

impl Prompt<'_> {
    fn text(&self) -> &'static str {
        if self.ambiguous {
            self.pair.ambiguous
        } else {
            self.pair.clear
        }
    }

    fn needs(&self) -> usize {
        if self.ambiguous {
            self.pair.needs
        } else {
            0
        }
    }

    /// Whether the prompt gives a reminder's time itself.
    fn says_when(&self) -> bool {
        !self.ambiguous || !matches!(self.pair.kind, Kind::Time | Kind::Recurring | Kind::Pronoun)
    }
}

/// What one reply did.
#[derive(Default)]
struct Outcome {
    asked_by_model: usize,
    asked_by_imprint: usize,
    questions: Vec<String>,
    tools: Vec<String>,
    end: String,
    seconds: f64,
    /// Reminders it stored at a time the user never gave.
    invented_times: usize,
    reminders: usize,
    /// The answer shows tool-call markup.
    markup_in_answer: bool,
    /// The answer the user read.
    answer: String,
    /// Question cards the stored history draws for questions that were
    /// never put to the user (cards minus questions posed).
    cards_never_asked: usize,
}

impl Outcome {
    fn asked(&self) -> usize {
        self.asked_by_model + self.asked_by_imprint
    }
}

#[tokio::main]
async fn main() {
    if std::env::var("IMPRINT_EVAL_MODE").as_deref() == Ok("truth") {
        return eval_truth::run().await;
    }
    let binary = match imprint_binary() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let kinds: Vec<Kind> = match std::env::var("IMPRINT_EVAL_KINDS") {
        Ok(list) => KINDS
            .into_iter()
            .filter(|k| list.split(',').any(|name| name.trim() == k.key()))
            .collect(),
        Err(_) => KINDS.to_vec(),
    };
    let per_kind: usize = std::env::var("IMPRINT_EVAL_PAIRS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let label = std::env::var("IMPRINT_EVAL_LABEL").unwrap_or_else(|_| "run".into());
    let pairs: Vec<&Pair> = kinds
        .iter()
        .flat_map(|kind| PAIRS.iter().filter(move |p| p.kind == *kind).take(per_kind))
        .collect();
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

    let (model_env, _local_model) = bench_support::model_env().await;
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
    let model = format!(
        "{} {} (tool format {})",
        status["provider"].as_str().unwrap_or("?"),
        status["model"].as_str().unwrap_or("?"),
        status["tool_format"].as_str().unwrap_or("?"),
    );
    println!("model: {model}, {} prompts\n", pairs.len() * 2);

    let mut results = Vec::new();
    for pair in &pairs {
        for ambiguous in [true, false] {
            let prompt = Prompt { pair, ambiguous };
            let outcome = run_prompt(&http, &server.url, &prompt).await;
            println!("{}", prompt_line(&prompt, &outcome));
            results.push((prompt, outcome));
        }
    }
    let table = report(&model, &label, &results);
    println!("\n{table}");
    match keep(&label, &table) {
        Ok(path) => println!("kept in {path}"),
        Err(error) => eprintln!("the table could not be kept: {error}"),
    }
    server.stop().await;
}

async fn reminders(http: &reqwest::Client, url: &str) -> Vec<Value> {
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

/// What the user says to a question: the body of the answer request.
fn answer_for(prompt: &Prompt<'_>, question: &Value) -> Value {
    let id = &question["id"];
    let options: Vec<&str> = question["options"]
        .as_array()
        .map(|o| o.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let closed = question["allow_other"] == false;
    let text = question["question"].as_str().unwrap_or("");
    let about_time = text.starts_with("What time") || text.to_lowercase().contains("when");
    let reply = if !prompt.ambiguous {
        Reply::Option(0)
    } else if about_time && !matches!(prompt.pair.kind, Kind::Time | Kind::Recurring) {
        // Not the prompt's point: a plain time.
        return json!({"id": id, "answer": WHEN});
    } else {
        prompt.pair.reply
    };
    match reply {
        Reply::Option(i) => match options.get(i).or(options.first()) {
            Some(option) => json!({"id": id, "answer": option}),
            None if prompt.ambiguous => json!({"id": id, "answer": prompt.pair.words}),
            None => json!({"id": id, "you_decide": true}),
        },
        Reply::Words if closed && !options.is_empty() => json!({"id": id, "answer": options[0]}),
        Reply::Words => json!({"id": id, "answer": prompt.pair.words}),
        Reply::YouDecide => json!({"id": id, "you_decide": true}),
    }
}

async fn run_prompt(http: &reqwest::Client, url: &str, prompt: &Prompt<'_>) -> Outcome {
    let before = reminders(http, url).await;
    let sid = bench_support::new_session(http, url).await;
    let started = Instant::now();
    let mut events = bench_support::say(http, url, &sid, prompt.text()).await;
    let mut outcome = Outcome {
        end: "cut".into(),
        ..Outcome::default()
    };
    let mut time_answered = false;
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
                let text = event["question"].as_str().unwrap_or("").to_string();
                time_answered |= text.starts_with("What time") || text.contains("when");
                outcome.questions.push(text);
                let body = answer_for(prompt, &event);
                let _ = http
                    .post(format!("{url}/api/chat/sessions/{sid}/answer"))
                    .json(&body)
                    .send()
                    .await;
            }
            "assistant_message" => {
                outcome.end = "answered".into();
                let text = event["text"].as_str().unwrap_or("");
                outcome.answer = text.to_string();
                outcome.markup_in_answer = text.contains("{\"name\"")
                    || text.contains("<tool_call>")
                    || imprint::models::shown_text::shows_markup(text);
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
    let after = reminders(http, url).await;
    let new = after.iter().filter(|r| !before.contains(r)).count();
    outcome.reminders = new;
    if !(prompt.says_when() || time_answered) {
        outcome.invented_times = new;
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
    cards.saturating_sub(outcome.asked())
}

fn prompt_line(prompt: &Prompt<'_>, outcome: &Outcome) -> String {
    format!(
        "{} {:<19} asked m{} i{} {:>5.1}s {:<9} tools [{}]{} | {}",
        if prompt.ambiguous { "A" } else { "C" },
        prompt.pair.kind.name(),
        outcome.asked_by_model,
        outcome.asked_by_imprint,
        outcome.seconds,
        outcome.end,
        outcome.tools.join(","),
        if outcome.invented_times > 0 {
            " INVENTED TIME"
        } else {
            ""
        },
        prompt.text()
    ) + &format!(
        "\n    asked: [{}] answer: {}",
        outcome.questions.join(" | "),
        short(&outcome.answer, 160)
    )
}

/// The first `max` characters of `text` on one line.
fn short(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "–".into();
    }
    format!(
        "{part}/{whole} ({:.0} %)",
        100.0 * part as f64 / whole as f64
    )
}

fn median(values: &mut [usize]) -> f64 {
    values.sort_unstable();
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2] as f64,
        n => (values[n / 2 - 1] + values[n / 2]) as f64 / 2.0,
    }
}

/// The run's table (Markdown), as printed and kept.
fn report(model: &str, label: &str, results: &[(Prompt<'_>, Outcome)]) -> String {
    let mut out = String::new();
    let now = chrono::Utc::now().format("%Y-%m-%d %H:%M UTC");
    let _ = writeln!(out, "# Asking: eval_questions, {label}\n");
    let _ = writeln!(out, "- date: {now}");
    let _ = writeln!(out, "- model: {model}");
    let _ = writeln!(
        out,
        "- prompts: {} ({} ambiguous, each with a clear twin), memories in 4 projects",
        results.len(),
        results.iter().filter(|(p, _)| p.ambiguous).count()
    );
    let _ = writeln!(
        out,
        "- answers: an option, own words or \"You decide\", as each prompt says\n"
    );
    let _ = writeln!(
        out,
        "| kind | asked on ambiguous | asked on clear (false asks) | asked twice | asked by the model / by Imprint |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    let mut kinds: Vec<Option<Kind>> = KINDS
        .into_iter()
        .filter(|k| results.iter().any(|(p, _)| p.pair.kind == *k))
        .map(Some)
        .collect();
    kinds.push(None);
    for kind in kinds {
        let of_kind: Vec<&(Prompt<'_>, Outcome)> = results
            .iter()
            .filter(|(p, _)| kind.is_none_or(|k| p.pair.kind == k))
            .collect();
        let ambiguous: Vec<&Outcome> = of_kind
            .iter()
            .filter(|(p, _)| p.ambiguous)
            .map(|(_, o)| o)
            .collect();
        let clear: Vec<&Outcome> = of_kind
            .iter()
            .filter(|(p, _)| !p.ambiguous)
            .map(|(_, o)| o)
            .collect();
        let asked = ambiguous.iter().filter(|o| o.asked() > 0).count();
        let false_asks = clear.iter().filter(|o| o.asked() > 0).count();
        let twice = of_kind
            .iter()
            .filter(|(p, o)| o.asked() > p.needs().max(1))
            .count();
        let by_model = of_kind.iter().filter(|(_, o)| o.asked_by_model > 0).count();
        let by_imprint = of_kind
            .iter()
            .filter(|(_, o)| o.asked_by_imprint > 0)
            .count();
        let name = kind.map_or("**all**", Kind::name);
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {by_model} / {by_imprint} |",
            percent(asked, ambiguous.len()),
            percent(false_asks, clear.len()),
            percent(twice, of_kind.len()),
        );
    }
    let mut clear_calls: Vec<usize> = results
        .iter()
        .filter(|(p, _)| !p.ambiguous)
        .map(|(_, o)| o.tools.len())
        .collect();
    let clear_max = clear_calls.iter().max().copied().unwrap_or(0);
    let mut all_calls: Vec<usize> = results.iter().map(|(_, o)| o.tools.len()).collect();
    let markup = results.iter().filter(|(_, o)| o.markup_in_answer).count();
    let never_asked: usize = results.iter().map(|(_, o)| o.cards_never_asked).sum();
    let invented: usize = results.iter().map(|(_, o)| o.invented_times).sum();
    let stored: usize = results.iter().map(|(_, o)| o.reminders).sum();
    let failed = results.iter().filter(|(_, o)| o.end != "answered").count();
    let seconds = Samples::new(results.iter().map(|(_, o)| o.seconds).collect());
    let _ = writeln!(out, "\n| figure | value |\n|---|---|");
    let _ = writeln!(
        out,
        "| tool calls per reply, clear prompts: median (max) | {:.1} ({clear_max}) |",
        median(&mut clear_calls)
    );
    let _ = writeln!(
        out,
        "| tool calls per reply, all prompts: median | {:.1} |",
        median(&mut all_calls)
    );
    let _ = writeln!(out, "| answers with tool-call markup | {markup} |");
    let _ = writeln!(out, "| cards for questions never asked | {never_asked} |");
    let _ = writeln!(
        out,
        "| reminders stored (at a time the user never gave) | {stored} ({invented}) |"
    );
    let _ = writeln!(
        out,
        "| replies without an answer (error, stop, cut) | {failed} |"
    );
    let _ = writeln!(
        out,
        "| reply time p50 / p95 / max | {:.1} s / {:.1} s / {:.1} s |",
        seconds.pct(50.0),
        seconds.pct(95.0),
        seconds.max()
    );
    let _ = writeln!(
        out,
        "\n## Prompts\n\n| | kind | questions | tools | time | end | prompt |\n|---|---|---|---|---|---|---|"
    );
    for (prompt, outcome) in results {
        let questions = if outcome.questions.is_empty() {
            "–".to_string()
        } else {
            outcome.questions.join(" / ").replace('|', "\\|")
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.1} s | {} | {} |",
            if prompt.ambiguous { "A" } else { "C" },
            prompt.pair.kind.name(),
            questions,
            outcome.tools.join(", "),
            outcome.seconds,
            outcome.end.replace('|', "\\|"),
            prompt.text().replace('|', "\\|"),
        );
    }
    out
}

/// Writes the table to `docs/eval/DATE-LABEL.md` (a new file per run).
fn keep(label: &str, table: &str) -> std::io::Result<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/eval");
    std::fs::create_dir_all(dir)?;
    let date = chrono::Utc::now().format("%Y-%m-%d");
    let label: String = label
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect();
    let mut path = format!("{dir}/{date}-{label}.md");
    let mut n = 2;
    while std::path::Path::new(&path).exists() {
        path = format!("{dir}/{date}-{label}-{n}.md");
        n += 1;
    }
    std::fs::write(&path, table)?;
    Ok(path)
}
