//! Grounded arguments through real HTTP: a stand-in model that invents a
//! reminder time or a project, and Imprint asking the user itself.

mod support;

use app::protocol::tool_names::{ASK_USER, REMIND, SEARCH, STORE};
use chrono::{Duration, Local, Timelike};
use imprint::store::NewMemory;
use serde_json::{json, Value};
use support::*;

/// A time the user never gave: now, give or take, as a small model writes.
fn invented_time() -> String {
    (now() + Duration::minutes(5))
        .format("%Y-%m-%dT%H:%M")
        .to_string()
}

async fn reminders(server: &TestServer) -> Vec<Value> {
    let (_, list) = server.get("/api/reminders").await;
    list["reminders"].as_array().unwrap().clone()
}

fn invoice() -> Scenario {
    scenario(
        "send the invoice",
        vec![
            Turn::call(
                REMIND,
                json!({"text": "Send the invoice", "at": invented_time()}),
            ),
            Turn::text("I will remind you."),
        ],
    )
}

#[tokio::test]
async fn a_reminder_with_no_time_is_asked_before_the_model_starts_and_the_answer_sets_it() {
    let server = TestServer::start(vec![invoice()], &[]).await;
    server.set_now(now());
    let sid = server.create_session().await;
    server.say(&sid, "Remind me to send the invoice.").await;
    let mut events = server.watch(&sid, None).await;
    let seen = events.until("question").await;
    let question = seen.last().unwrap().clone();
    // Asked before the model starts: asking does not wait on the model
    // calling `remind` (a small model may not).
    assert_eq!(types(&seen)[..], ["question"]);
    assert!(server.standin.requests_for("send the invoice").is_empty());
    assert_eq!(question["origin"], "imprint");
    assert_eq!(
        question["question"],
        "What time should I remind you to send the invoice?"
    );
    let options = question["options"].as_array().unwrap();
    assert!(options.len() >= 3, "{options:?}");
    assert!(options.contains(&json!("Tomorrow, 09:00")), "{options:?}");
    assert_eq!(question["allow_other"], true);
    assert!(reminders(&server).await.is_empty());

    server
        .answer_ok(&sid, &question["id"], "Tomorrow, 09:00")
        .await;
    let rest = events.until_done().await;
    assert_eq!(
        types(&rest),
        [
            "answer",
            "tool_call",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    let result = rest[2]["result"].as_str().unwrap();
    assert!(result.starts_with("Reminder #"), "{result}");

    // The model's invented time gave way to the answer.
    let stored = reminders(&server).await;
    assert_eq!(stored.len(), 1);
    let due = chrono::DateTime::parse_from_rfc3339(stored[0]["due_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Local);
    assert_eq!(due.date_naive(), now().date_naive().succ_opt().unwrap());
    assert_eq!((due.hour(), due.minute()), (9, 0));

    // The model read the answer with the request, not the question.
    let first = server.standin.requests_for("send the invoice")[0].to_string();
    assert!(
        first.contains("Imprint asked when to remind; the user said Tuesday 2030-06-04 09:00"),
        "{first}"
    );
    assert!(!first.contains("What time should I remind you"), "{first}");

    // History keeps Imprint's question, marked as its own, then the call.
    let messages = server.session(&sid).await["messages"].clone();
    let tools: Vec<&Value> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tools.len(), 2, "{messages}");
    assert_eq!(tools[0]["tool_name"], ASK_USER);
    assert_eq!(tools[0]["tool_args"]["origin"], "imprint");
    assert_eq!(tools[0]["tool_args"]["outcome"], "answered");
    assert_eq!(tools[0]["content"], "Tomorrow, 09:00");
    assert_eq!(tools[1]["tool_name"], REMIND);
    assert!(tools[1]["tool_args"]["at"]
        .as_str()
        .unwrap()
        .contains("T09:00:00"));
}

#[tokio::test]
async fn a_clear_request_goes_straight_through_at_the_users_time() {
    let server = TestServer::start(
        vec![scenario(
            "call Anna",
            vec![
                // The model's own date arithmetic is off by a day.
                Turn::call(REMIND, json!({"text": "Call Anna", "at": invented_time()})),
                Turn::text("Set."),
            ],
        )],
        &[],
    )
    .await;
    server.set_now(now());
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Remind me tomorrow at 9 to call Anna")
        .await;
    assert_eq!(
        types(&events),
        [
            "tool_call",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    let stored = reminders(&server).await;
    assert_eq!(stored.len(), 1);
    let due = chrono::DateTime::parse_from_rfc3339(stored[0]["due_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Local);
    assert_eq!(due.date_naive(), now().date_naive().succ_opt().unwrap());
    assert_eq!((due.hour(), due.minute()), (9, 0));
}

#[tokio::test]
async fn an_unreadable_answer_is_asked_again_once_then_nothing_is_written() {
    let server = TestServer::start(vec![invoice()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "Remind me to send the invoice").await;
    let mut events = server.watch(&sid, None).await;
    let first = events.until("question").await.pop().unwrap();
    server.answer_ok(&sid, &first["id"], "whenever suits").await;
    let second = events.until("question").await.pop().unwrap();
    assert_ne!(second["id"], first["id"]);
    let text = second["question"].as_str().unwrap();
    assert!(
        text.starts_with("I could not read “whenever suits” as a time."),
        "{text}"
    );
    assert_eq!(second["origin"], "imprint");
    server.answer_ok(&sid, &second["id"], "no idea").await;
    let rest = events.until_done().await;
    let result = rest.iter().find(|e| e["type"] == "tool_result").unwrap()["result"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.starts_with("No reminder was set"), "{result}");
    assert!(reminders(&server).await.is_empty());
    assert_eq!(rest.last().unwrap()["type"], "done");
}

#[tokio::test]
async fn nobody_answering_stores_no_reminder_and_the_reply_says_so() {
    let server = TestServer::start(vec![invoice()], &["--answer-timeout-s", "0.3"]).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "Remind me to send the invoice").await;
    assert_eq!(
        types(&events),
        [
            "question",
            "unanswered",
            "tool_call",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    assert_eq!(events[1]["reason"], "timed_out");
    // The model's call at its own time is not made, nor asked again.
    assert!(events[3]["result"]
        .as_str()
        .unwrap()
        .starts_with("No reminder was set"));
    assert!(reminders(&server).await.is_empty());
    let first = server.standin.requests_for("send the invoice")[0].to_string();
    assert!(
        first.contains("the user did not say: set no reminder"),
        "{first}"
    );
}

#[tokio::test]
async fn stop_while_imprint_asks_stops_the_reply_and_writes_nothing() {
    let server = TestServer::start(vec![invoice()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "Remind me to send the invoice").await;
    let mut events = server.watch(&sid, None).await;
    events.until("question").await;
    let (status, _) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 200);
    let rest = events.until_done().await;
    assert_eq!(types(&rest), ["unanswered", "stopped", "done"]);
    assert!(reminders(&server).await.is_empty());
    let messages = server.session(&sid).await["messages"].clone();
    let asked = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_name"] == ASK_USER)
        .expect("the question is kept in history");
    assert_eq!(asked["tool_args"]["outcome"], "stopped");
    assert_eq!(asked["tool_args"]["origin"], "imprint");
}

async fn seed_projects(server: &TestServer) {
    for (content, project, at) in [
        (
            "Garden notes: planted garlic",
            "Garden",
            "2026-10-01T10:00:00Z",
        ),
        (
            "Thesis notes: chapter 3 sent",
            "Thesis",
            "2026-11-01T10:00:00Z",
        ),
        (
            "Website notes: hosting moved",
            "Website",
            "2026-11-20T10:00:00Z",
        ),
    ] {
        server
            .running
            .engine
            .store
            .add_memory(NewMemory {
                content: content.into(),
                project: Some(project.into()),
                tags: Vec::new(),
                created_at: Some(at.into()),
            })
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn the_project_among_several_becomes_a_question_with_recent_projects() {
    let server = TestServer::start(
        vec![scenario(
            "from the project",
            vec![
                // An invented project.
                Turn::call(SEARCH, json!({"query": "notes", "project": "Notes"})),
                Turn::text("Here they are."),
            ],
        )],
        &[],
    )
    .await;
    seed_projects(&server).await;
    let sid = server.create_session().await;
    server.say(&sid, "Find my notes from the project.").await;
    let mut events = server.watch(&sid, None).await;
    // Asked before the model starts: a small model may not look at all.
    let seen = events.until("question").await;
    assert_eq!(types(&seen), ["question"]);
    let question = seen.last().unwrap();
    assert_eq!(question["origin"], "imprint");
    assert_eq!(question["question"], "Which project do you mean?");
    assert_eq!(question["options"], json!(["Website", "Thesis", "Garden"]));
    server.answer_ok(&sid, &question["id"], "website").await;
    let rest = events.until_done().await;
    // The model's invented project gives way to the user's answer.
    assert!(!types(&rest).contains(&"question".to_string()));
    let result = rest.iter().find(|e| e["type"] == "tool_result").unwrap()["result"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.contains("hosting moved"), "{result}");
    assert!(!result.contains("garlic"), "{result}");
    let request = server.standin.requests_for("from the project")[0].to_string();
    assert!(
        request.contains("the user means the project Website"),
        "{request}"
    );
}

#[tokio::test]
async fn a_search_in_the_project_asks_when_the_model_calls_it() {
    // The guard on the call itself (the request names no project, the
    // model's call refers to one the answer settles).
    let server = TestServer::start(
        vec![scenario(
            "decide",
            vec![
                Turn::call(SEARCH, json!({"query": "notes", "project": "Notes"})),
                Turn::text("Here."),
            ],
        )],
        &[],
    )
    .await;
    seed_projects(&server).await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "what did we decide, in my notes")
        .await;
    // No project in the user's words: the model's is dropped, no question.
    assert!(!types(&events).contains(&"question".to_string()));
    let result = events[1]["result"].as_str().unwrap();
    assert!(result.contains("3 memories found"), "{result}");
}

#[tokio::test]
async fn a_project_the_user_never_mentioned_is_dropped_and_a_named_one_kept() {
    let server = TestServer::start(
        vec![
            scenario(
                "hosting",
                vec![
                    Turn::call(SEARCH, json!({"query": "hosting", "project": "Garden"})),
                    Turn::text("Found it."),
                ],
            ),
            scenario(
                "garlic",
                vec![
                    Turn::call(SEARCH, json!({"query": "garlic", "project": "Website"})),
                    Turn::text("Found it."),
                ],
            ),
        ],
        &[],
    )
    .await;
    seed_projects(&server).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "where did the hosting go?").await;
    assert!(!types(&events).contains(&"question".to_string()));
    let result = events[1]["result"].as_str().unwrap();
    assert!(result.contains("hosting moved"), "{result}");
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "what did I plant, the garlic, in the Garden project?")
        .await;
    assert!(!types(&events).contains(&"question".to_string()));
    let result = events[1]["result"].as_str().unwrap();
    assert!(result.contains("planted garlic"), "{result}");
}

#[tokio::test]
async fn a_repeated_write_is_not_stored_twice_and_a_silent_model_still_reports_it() {
    let call = |text: &str| Turn::call(REMIND, json!({"text": text, "at": invented_time()}));
    let server = TestServer::start(
        vec![scenario(
            "call Anna",
            // The repeat rewords the text: still the same reminder.
            vec![call("Call Anna"), call("Anna call"), Turn::text("")],
        )],
        &[],
    )
    .await;
    server.set_now(now());
    let sid = server.create_session().await;
    // The request also asks to save a note, so the job is not done after
    // the reminder and the model's repeat still reaches the guard (a note
    // whose words are not given plainly, which Imprint does not save
    // itself).
    let events = server
        .converse(
            &sid,
            "Remind me tomorrow at 9 to call Anna, and save a note about her move",
        )
        .await;
    assert_eq!(reminders(&server).await.len(), 1);
    let results: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .map(|e| e["result"].as_str().unwrap())
        .collect();
    assert_eq!(results.len(), 2, "{events:?}");
    assert!(results[0].starts_with("Reminder #1 set"), "{}", results[0]);
    assert!(
        results[1].starts_with("Already done, do not repeat it: Reminder #1"),
        "{}",
        results[1]
    );
    let answer = &events[events.len() - 2];
    assert_eq!(answer["type"], "assistant_message", "{events:?}");
    // Imprint writes the answer from what was done.
    let text = answer["text"].as_str().unwrap();
    assert!(text.starts_with("Done: reminder set for "), "{text}");
    assert!(text.ends_with(" 09:00 to call Anna."), "{text}");
    // After the repeat, the model read that it was already done.
    let requests = server.standin.requests_for("call Anna");
    assert_eq!(requests.len(), 3);
    let last = requests[2].to_string();
    assert!(last.contains("Already done, do not repeat it"), "{last}");
}

#[tokio::test]
async fn a_write_nobody_asked_for_is_refused_without_a_question() {
    let server = TestServer::start(
        vec![scenario(
            "from the garden",
            vec![
                Turn::calls(&[
                    (STORE, json!({"content": "garden notes"})),
                    (REMIND, json!({"text": "garden", "at": invented_time()})),
                ]),
                Turn::text("Here."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Show me my notes from the garden")
        .await;
    assert_eq!(
        types(&events),
        [
            "tool_call",
            "tool_result",
            "tool_call",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    for result in [&events[1], &events[3]] {
        let text = result["result"].as_str().unwrap();
        assert!(text.starts_with("Not done: the user did not ask"), "{text}");
    }
    assert!(reminders(&server).await.is_empty());
}

#[tokio::test]
async fn imprint_asks_once_per_detail_in_a_reply_and_runs_at_most_four_calls_a_turn() {
    let remind = || (REMIND, json!({"text": "invoice", "at": invented_time()}));
    let server = TestServer::start(
        vec![scenario(
            "the invoice",
            vec![
                Turn::calls(&[remind()]),
                // Asked again after no usable answer: Imprint does not ask
                // twice about the same detail.
                Turn::calls(&[
                    remind(),
                    (SEARCH, json!({"query": "a"})),
                    (SEARCH, json!({"query": "b"})),
                    (SEARCH, json!({"query": "c"})),
                    (SEARCH, json!({"query": "d"})),
                    (SEARCH, json!({"query": "e"})),
                ]),
                Turn::text("Sorry."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "Remind me about the invoice").await;
    let mut events = server.watch(&sid, None).await;
    for answer_text in ["hmm", "no idea"] {
        let question = events.until("question").await.pop().unwrap();
        server.answer_ok(&sid, &question["id"], answer_text).await;
    }
    let rest = events.until_done().await;
    let t = types(&rest);
    assert!(!t.contains(&"question".to_string()), "{t:?}");
    // The first turn's call, then the second turn's first four.
    assert_eq!(t.iter().filter(|t| *t == "tool_call").count(), 5, "{t:?}");
    assert!(reminders(&server).await.is_empty());
    let requests = server.standin.requests_for("the invoice");
    let last = requests.last().unwrap().to_string();
    assert!(last.contains("only the first 4 tool calls"), "{last}");
}

#[tokio::test]
async fn a_model_that_forgets_to_set_the_reminder_is_nudged_once() {
    let server = TestServer::start(
        vec![scenario(
            "stretch",
            vec![
                Turn::text("Sure, I will remind you."),
                Turn::call(REMIND, json!({"text": "stretch", "at": invented_time()})),
                Turn::text("Set."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Remind me in 2 hours to stretch")
        .await;
    assert_eq!(reminders(&server).await.len(), 1, "{events:?}");
    let requests = server.standin.requests_for("stretch");
    assert_eq!(requests.len(), 3);
    assert!(requests[1].to_string().contains("none is set"));
    // Without a reminder request there is no nudge.
    server
        .standin
        .add(scenario("hello there", vec![Turn::text("Hi.")]));
    let events = server.converse(&sid, "hello there").await;
    assert_eq!(types(&events), ["token", "assistant_message", "done"]);
}

#[tokio::test]
async fn once_the_reminder_is_set_the_models_question_is_not_asked() {
    let server = TestServer::start(
        vec![scenario(
            "call Anna",
            vec![
                Turn::call(REMIND, json!({"text": "Call Anna", "at": invented_time()})),
                Turn::call(ASK_USER, json!({"question": "Anything else?"})),
                Turn::text("Done."),
            ],
        )],
        &[],
    )
    .await;
    server.set_now(now());
    let sid = server.create_session().await;
    // The request also asks to save a note, so the job is not done after
    // the reminder and the model's question still reaches the guard.
    let events = server
        .converse(
            &sid,
            "Remind me tomorrow at 9 to call Anna, and save a note that she moved",
        )
        .await;
    assert!(
        !types(&events).contains(&"question".to_string()),
        "{events:?}"
    );
    assert!(events[3]["result"]
        .as_str()
        .unwrap()
        .starts_with("Not asked: what the user asked for is done."));
    assert_eq!(reminders(&server).await.len(), 1);
}

#[tokio::test]
async fn the_models_question_offering_what_the_user_named_is_not_asked() {
    // What the built-in model did with these requests (a lone option is
    // no choice, yet it still names what the question is about).
    for (request, options) in [
        (
            "Find my notes from the Website project.",
            &["Website", "Thesis"][..],
        ),
        ("Find my notes on the Website hosting.", &["Website"][..]),
    ] {
        the_question_offering_what_the_user_named_is_not_asked(request, options).await;
    }
}

async fn the_question_offering_what_the_user_named_is_not_asked(request: &str, options: &[&str]) {
    let server = TestServer::start(
        vec![scenario(
            request,
            vec![
                // Asked first: once a search has found the request's one
                // thing, the reply goes to its answer.
                Turn::ask("Which project do you mean?", options),
                Turn::call(SEARCH, json!({"query": "notes", "project": "Website"})),
                Turn::text("Your Website notes: hosting moved."),
            ],
        )],
        &[],
    )
    .await;
    seed_projects(&server).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, request).await;
    assert!(
        !types(&events).contains(&"question".to_string()),
        "{events:?}"
    );
    let refused = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == ASK_USER)
        .expect("the call is answered");
    assert_eq!(refused["status"], "not_asked", "{refused}");
    assert!(
        refused["result"].as_str().unwrap().contains("\"Website\""),
        "{refused}"
    );
    assert_eq!(events.last().unwrap()["type"], "done");
    assert_eq!(streamed_text(&events), "Your Website notes: hosting moved.");
}

#[tokio::test]
async fn the_models_question_is_asked_when_the_user_named_none_or_several_options() {
    let server = TestServer::start(
        vec![
            scenario(
                "the Website or the Thesis notes",
                vec![
                    Turn::ask("Which project do you mean?", &["Website", "Thesis"]),
                    Turn::text("Done."),
                ],
            ),
            scenario(
                "my latest notes",
                vec![
                    Turn::ask("Which project do you mean?", &["Website", "Thesis"]),
                    Turn::text("Done."),
                ],
            ),
        ],
        &[],
    )
    .await;
    seed_projects(&server).await;
    for request in [
        "Show me the Website or the Thesis notes, whichever is newer.",
        "Show me my latest notes.",
    ] {
        let sid = server.create_session().await;
        server.say(&sid, request).await;
        let mut events = server.watch(&sid, None).await;
        let seen = events.until("question").await;
        let question = seen.last().unwrap();
        assert_eq!(question["origin"], "model", "{request}");
        server.answer_ok(&sid, &question["id"], "Thesis").await;
        events.until_done().await;
    }
}
