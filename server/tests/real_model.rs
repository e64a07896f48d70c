//! The real-model tier: Imprint with the real local model (llama-server
//! and Qwen2.5-Coder-0.5B-Instruct) through real HTTP. These tests check
//! structure, never wording.
//!
//! They need a running model, so plain `cargo test` leaves them out
//! (ignored); `scripts/test.sh` starts the local model after the build and
//! runs them with `IMPRINT_REAL_MODEL_URL` set:
//!
//! ```sh
//! IMPRINT_REAL_MODEL_URL=http://127.0.0.1:PORT/v1 \
//!   cargo test --release -p imprint --test real_model -- --ignored
//! ```

mod support;

use serde_json::Value;
use support::*;

async fn with_real_model() -> TestServer {
    let url = std::env::var("IMPRINT_REAL_MODEL_URL")
        .expect("IMPRINT_REAL_MODEL_URL names the running model's base URL");
    // No stand-in is used; the support keeps one for the other tests.
    let unused = StandIn::start(Vec::new()).await;
    TestServer::start_with(
        unused,
        &["--chat-provider", "local", "--chat-base-url", &url],
        // A slow shared machine must not turn a real reply into a stall.
        &["--model-idle-timeout-s", "300"],
    )
    .await
}

/// Says `message` and reads its reply to the end, as patiently as a real
/// model on a shared machine needs (`converse` fails after 10 s without
/// an event).
async fn converse(server: &TestServer, sid: &str, message: &str) -> Vec<Value> {
    let reply_id = server.say(sid, message).await;
    let mut events = server.watch_reply(sid, &reply_id).await;
    let mut seen = Vec::new();
    while let Some(event) = events.next_patient().await {
        let done = event.data["type"] == "done";
        seen.push(event.data);
        if done {
            return seen;
        }
    }
    panic!("the stream ended before done; saw {seen:?}");
}

/// Reads the reply to its end, answering every question with `answer`.
/// Returns all events.
async fn follow(server: &TestServer, sid: &str, reply_id: &str, answer: &str) -> Vec<Value> {
    let mut events = server.watch_reply(sid, reply_id).await;
    let mut seen = Vec::new();
    while let Some(event) = events.next_patient().await {
        let data = event.data;
        if data["type"] == "question" {
            server.answer_ok(sid, &data["id"], answer).await;
        }
        let done = data["type"] == "done";
        seen.push(data);
        if done {
            break;
        }
    }
    seen
}

#[tokio::test]
#[ignore = "needs the real local model: scripts/test.sh runs it"]
async fn the_model_answers_a_plain_question() {
    let server = with_real_model().await;
    let (_, status) = server.get("/api/chat/status").await;
    assert_eq!(status["ready"], true, "{status}");
    let sid = server.create_session().await;
    let reply_id = server.say(&sid, "Say hello in one short sentence.").await;
    let events = follow(&server, &sid, &reply_id, "yes").await;
    let end = &events[events.len() - 2];
    assert_eq!(end["type"], "assistant_message", "{events:?}");
    assert!(!end["text"].as_str().unwrap().trim().is_empty());
    // The stored history ends with the same answer.
    let session = server.session(&sid).await;
    let last = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"], end["text"]);
}

#[tokio::test]
#[ignore = "needs the real local model: scripts/test.sh runs it"]
async fn an_ambiguous_request_asks_and_the_same_reply_finishes_after_the_answer() {
    let server = with_real_model().await;
    server.set_now(now());
    let sid = server.create_session().await;
    let reply_id = server.say(&sid, "Remind me about the dentist.").await;
    let events = follow(&server, &sid, &reply_id, "tomorrow at 10").await;
    let types = types(&events);
    let question = events
        .iter()
        .find(|e| e["type"] == "question")
        .unwrap_or_else(|| panic!("no question was asked: {events:?}"));
    assert!(
        !question["question"].as_str().unwrap().trim().is_empty(),
        "{question}"
    );
    let asked_at = types.iter().position(|t| t == "question").unwrap();
    assert_eq!(types[asked_at + 1], "answer", "{types:?}");
    // The same reply goes on to an answer after the user's.
    assert_eq!(types[types.len() - 2], "assistant_message", "{events:?}");
    // The reminder is stored, at the time the user gave and no other.
    let (_, list) = server.get("/api/reminders").await;
    let reminders = list["reminders"].as_array().unwrap();
    assert!(!reminders.is_empty(), "no reminder was stored: {events:?}");
    for reminder in reminders {
        let due = chrono::DateTime::parse_from_rfc3339(reminder["due_at"].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Local);
        let tomorrow = now().date_naive().succ_opt().unwrap();
        assert_eq!(due.date_naive(), tomorrow, "{reminder}");
        assert_eq!(due.format("%H:%M").to_string(), "10:00", "{reminder}");
    }
}

/// Issue 14: "Remind me to call Anna." → "Tomorrow, 09:00", three times in
/// a row. Imprint's guards, not the model's luck: one reminder at the time
/// chosen, one question, no markup anywhere, every call's status true.
#[tokio::test]
#[ignore = "needs the real local model: scripts/test.sh runs it"]
async fn remind_me_to_call_anna_is_short_true_and_done_three_times() {
    let server = with_real_model().await;
    for run in 1..=3 {
        let sid = server.create_session().await;
        let reply_id = server.say(&sid, "Remind me to call Anna.").await;
        let events = follow(&server, &sid, &reply_id, "Tomorrow, 09:00").await;
        let questions = events.iter().filter(|e| e["type"] == "question").count();
        assert_eq!(questions, 1, "run {run}: {events:?}");
        assert_eq!(
            events[events.len() - 2]["type"],
            "assistant_message",
            "run {run}: {events:?}"
        );
        // Tokens, answers and questions: nothing the page shows has markup.
        for event in &events {
            if let Some(text) = event["text"].as_str() {
                assert!(
                    !imprint::models::shown_text::shows_markup(text),
                    "run {run}: {event}"
                );
            }
        }
        let set: Vec<&Value> = events
            .iter()
            .filter(|e| {
                e["type"] == "tool_result" && e["name"] == "remind" && e["status"] == "done"
            })
            .collect();
        assert_eq!(set.len(), 1, "run {run}: {events:?}");
        let at = set[0]["args"]["at"].as_str().unwrap();
        assert!(at.contains("T09:00"), "run {run}: {at}");
    }
    // Three runs, three reminders, each tomorrow at 09:00.
    let (_, list) = server.get("/api/reminders").await;
    let reminders = list["reminders"].as_array().unwrap();
    assert_eq!(reminders.len(), 3, "{reminders:?}");
    let tomorrow = chrono::Local::now().date_naive().succ_opt().unwrap();
    for reminder in reminders {
        let due = chrono::DateTime::parse_from_rfc3339(reminder["due_at"].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Local);
        assert_eq!(
            (due.date_naive(), due.format("%H:%M").to_string()),
            (tomorrow, "09:00".to_string()),
            "{reminder}"
        );
    }
}

/// Issue 26: the built-in model, under planned turns, answers from the
/// memory that names what was asked about, and never with a number no
/// memory holds; with nothing saved about it, it says so.
#[tokio::test]
#[ignore = "needs the real local model: scripts/test.sh runs it"]
async fn the_plumbers_number_comes_from_the_plumbers_memory_or_is_said_to_be_missing() {
    let server = with_real_model().await;
    let sid = server.create_session().await;
    let events = converse(&server, &sid, "What's the plumber's number?").await;
    let text = assistant_text(&events);
    assert!(text.contains("found nothing"), "{text}");
    assert!(!text.chars().any(|c| c.is_ascii_digit()), "{text}");

    server
        .remember("Plumber: Jan Kowalski, 0176 555 1234", None)
        .await;
    server
        .remember("Electrician: Piotr Nowak, 0151 222 9876", None)
        .await;
    let events = converse(&server, &sid, "whats the number of the plumber?").await;
    let text = assistant_text(&events);
    assert!(text.contains("555 1234"), "{text}");
    assert!(!text.contains("9876"), "{text}");
    // No other number: only the memory's, and the day it was kept.
    let year = chrono::Local::now().format("%Y").to_string();
    for group in text.split(|c: char| !c.is_ascii_digit()) {
        assert!(
            group.len() <= 2 || ["0176", "555", "1234", &year].contains(&group),
            "{group} is in no memory: {text}"
        );
    }
}
