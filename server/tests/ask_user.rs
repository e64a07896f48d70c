//! Asking the user mid-reply (SPEC §3), through real HTTP with the stand-in.

mod support;

use app::protocol::tool_names::{ASK_USER, SEARCH, STORE};
use serde_json::{json, Value};
use support::*;

/// The ask scenario most tests here share.
fn find_my_notes() -> Scenario {
    standin::which_project("find my notes", "Here are your notes.")
}

#[tokio::test]
async fn a_reply_pauses_on_the_question_and_resumes_with_a_chosen_option() {
    let server = TestServer::start(vec![find_my_notes()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "find my notes").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["question"], "Which project?");
    assert_eq!(question["options"], json!(["Imprint", "Billing"]));
    assert_eq!(question["allow_other"], true);
    assert!(question["expires_at"].is_string());

    let session = server.session(&sid).await;
    assert_eq!(session["reply"]["state"], "waiting");
    assert_eq!(session["reply"]["question"]["id"], question["id"]);
    let (_, list) = server.get("/api/chat/sessions").await;
    assert_eq!(list["sessions"][0]["waiting"], true);

    let id = question["id"].as_str().unwrap();
    assert_eq!(
        server.answer(&sid, id, "billing").await,
        (200, json!({"ok": true}))
    );
    let rest = events.until_done().await;
    assert_eq!(
        types(&rest),
        [
            "answer",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    assert_eq!(
        rest[0],
        json!({"type": "answer", "id": id, "text": "Billing"})
    );
    assert_eq!(rest[1]["result"], "The user answered: Billing");

    let requests = server.standin.requests_for("find my notes");
    assert_eq!(requests.len(), 2);
    let last = requests[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (last["role"].as_str(), last["content"].as_str()),
        (Some("tool"), Some("The user answered: Billing"))
    );

    let session = server.session(&sid).await;
    assert_eq!(session["reply"], Value::Null);
    let row = &session["messages"][1];
    assert_eq!(
        (
            row["role"].as_str(),
            row["tool_name"].as_str(),
            row["content"].as_str()
        ),
        (Some("tool"), Some(ASK_USER), Some("Billing"))
    );
    assert_eq!(row["tool_args"]["question"], "Which project?");
    assert_eq!(row["tool_args"]["options"], json!(["Imprint", "Billing"]));
    assert_eq!(row["tool_args"]["allow_other"], true);
}

#[tokio::test]
async fn an_answer_in_the_users_own_words_carries_on_and_later_turns_see_the_exchange() {
    let server = TestServer::start(vec![find_my_notes()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "find my notes").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    let (status, _) = server
        .answer(&sid, question["id"].as_str().unwrap(), "  the garden one  ")
        .await;
    assert_eq!(status, 200);
    let rest = events.until_done().await;
    assert_eq!(rest[0]["text"], "the garden one");

    server.converse(&sid, "thanks").await;
    let followup = server.standin.requests_for("thanks").pop().unwrap();
    let text = followup["messages"].to_string();
    assert!(
        text.contains("Which project?"),
        "the question is in later turns"
    );
    assert!(
        text.contains("The user answered: the garden one"),
        "and so is the answer"
    );
}

#[tokio::test]
async fn the_other_calls_of_the_turn_run_as_usual() {
    let server = TestServer::start(
        vec![scenario(
            "plan it",
            vec![
                Turn::calls(&[
                    (STORE, json!({"content": "planning started"})),
                    (ASK_USER, json!({"question": "What time?"})),
                    (SEARCH, json!({"query": "planning"})),
                ]),
                Turn::text("Planned."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server
        .say(&sid, "plan it, and note that planning started")
        .await;
    let mut events = server.watch(&sid, None).await;
    let before = events.until("question").await;
    assert_eq!(
        types(&before),
        ["tool_call", "tool_result", "tool_call", "question"]
    );
    assert!(before[3]["options"].as_array().unwrap().is_empty());
    server
        .answer(&sid, before[3]["id"].as_str().unwrap(), "at nine")
        .await;
    let rest = events.until_done().await;
    assert_eq!(
        types(&rest),
        [
            "answer",
            "tool_result",
            "tool_call",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    assert!(rest[3]["result"]
        .as_str()
        .unwrap()
        .contains("planning started"));
}

#[tokio::test]
async fn nobody_answering_goes_on_with_the_best_assumption() {
    let server = TestServer::start(vec![find_my_notes()], &["--answer-timeout-s", "0.2"]).await;
    let sid = server.create_session().await;
    let reply = server.say(&sid, "find my notes").await;
    let events = server.watch_reply(&sid, &reply).await.until_done().await;
    assert_eq!(
        types(&events),
        [
            "tool_call",
            "question",
            "unanswered",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    assert_eq!(events[2]["reason"], "timed_out");
    let result = events[3]["result"].as_str().unwrap();
    assert!(
        result.contains("No answer came") && result.contains("best assumption"),
        "{result}"
    );
    let session = server.session(&sid).await;
    let row = &session["messages"][1];
    assert_eq!(row["tool_args"]["outcome"], "timed_out");
    assert!(row["content"].as_str().unwrap().contains("No answer came"));
}

#[tokio::test]
async fn a_stop_ends_the_wait_at_once_and_stops_the_reply() {
    let server = TestServer::start(vec![find_my_notes()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "find my notes").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    let (status, _) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 200);
    let rest = events.until_done().await;
    assert_eq!(types(&rest), ["unanswered", "stopped", "done"]);
    assert_eq!(rest[0]["reason"], "stopped");
    let id = question["id"].as_str().unwrap();
    assert_eq!(
        server.answer(&sid, id, "Billing").await.0,
        404,
        "no reply any more"
    );
    let session = server.session(&sid).await;
    assert_eq!(session["reply"], Value::Null);
    assert_eq!(session["messages"][1]["tool_args"]["outcome"], "stopped");
    assert_eq!(
        server.standin.requests_for("find my notes").len(),
        1,
        "the model was not asked again"
    );
}

#[tokio::test]
async fn answers_get_the_documented_codes() {
    let closed = scenario(
        "pick one",
        vec![
            Turn::call(
                ASK_USER,
                json!({"question": "Which?", "options": ["Red", "Blue"], "allow_other": false}),
            ),
            Turn::text("ok"),
        ],
    );
    let server = TestServer::start(vec![closed], &[]).await;
    let sid = server.create_session().await;
    assert_eq!(
        server.answer(&sid, "q_x", "hi").await.0,
        404,
        "no reply is being written"
    );
    server.say(&sid, "pick one").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    let id = question["id"].as_str().unwrap();
    assert_eq!(server.answer(&sid, "q_other", "Red").await.0, 409);
    let (status, body) = server.answer(&sid, id, "   ").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("the answer is empty"))
    );
    assert_eq!(server.answer(&sid, id, &"x".repeat(2001)).await.0, 400);
    let (status, body) = server.answer(&sid, id, "Green").await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("Red, Blue"));
    let missing = server
        .post(
            &format!("/api/chat/sessions/{sid}/answer"),
            json!({"id": id}),
        )
        .await;
    // No answer and no "You decide": an empty answer.
    assert_eq!(
        (missing.0, missing.1["error"].as_str()),
        (400, Some("the answer is empty"))
    );
    assert_eq!(
        server.session(&sid).await["reply"]["state"],
        "waiting",
        "bad answers leave it waiting"
    );

    // Several windows at once: exactly one wins.
    let attempts = (0..8).map(|i| {
        let text = if i % 2 == 0 { "Red" } else { "Blue" };
        server.answer(&sid, id, text)
    });
    let codes: Vec<u16> = futures::future::join_all(attempts)
        .await
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    assert_eq!(codes.iter().filter(|c| **c == 200).count(), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 409).count(), 7, "{codes:?}");
    events.until_done().await;
    // Once the reply is done, no reply is being written: exactly 404.
    assert_eq!(server.answer(&sid, id, "Red").await.0, 404);
}

#[tokio::test]
async fn a_watcher_that_comes_back_sees_the_question_and_can_answer() {
    let server = TestServer::start(vec![find_my_notes()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "find my notes").await;
    {
        let mut first = server.watch(&sid, None).await;
        first.until("question").await;
    } // the window closes; the reply goes on waiting
    let mut again = server.watch(&sid, None).await;
    let replayed = again.until("question").await;
    assert_eq!(types(&replayed), ["tool_call", "question"]);
    let id = replayed[1]["id"].as_str().unwrap();
    assert_eq!(server.answer(&sid, id, "Imprint").await.0, 200);
    let rest = again.until_done().await;
    assert_eq!(rest[rest.len() - 2]["text"], "Here are your notes.");
}

#[tokio::test]
async fn a_waiting_reply_gives_up_its_slot_and_takes_it_back_after_the_answer() {
    let server = TestServer::start(vec![find_my_notes()], &["--writing-slots", "1"]).await;
    let (asking, other) = (server.create_session().await, server.create_session().await);
    server.say(&asking, "find my notes").await;
    let mut asking_events = server.watch(&asking, None).await;
    let question = asking_events.until("question").await.pop().unwrap();

    // With the only slot free, another chat's reply is written meanwhile.
    let events = server.converse(&other, "meanwhile").await;
    assert_eq!(events[events.len() - 2]["text"], "You said: meanwhile");

    server
        .answer(&asking, question["id"].as_str().unwrap(), "Imprint")
        .await;
    let rest = asking_events.until_done().await;
    assert_eq!(rest[rest.len() - 2]["text"], "Here are your notes.");
}

#[tokio::test]
async fn the_dashboard_stream_announces_waiting_and_closed_questions() {
    let server = TestServer::start(vec![find_my_notes()], &[]).await;
    let mut dashboard = server.dashboard_events().await;
    let sid = server.create_session().await;
    server.say(&sid, "find my notes").await;
    let waiting = dashboard.until("question_waiting").await.pop().unwrap();
    assert_eq!(waiting["session_id"], sid.as_str());
    let id = waiting["question_id"].as_str().unwrap().to_string();
    assert_eq!(
        server.answer(&sid, &id, "Billing").await.0,
        200,
        "answerable the moment it is announced"
    );
    let closed = dashboard.until("question_closed").await.pop().unwrap();
    assert_eq!(
        (
            closed["session_id"].as_str(),
            closed["question_id"].as_str()
        ),
        (Some(sid.as_str()), Some(id.as_str()))
    );
}

#[tokio::test]
async fn bad_questions_go_back_to_the_model_and_odd_options_are_normalized() {
    let server = TestServer::start(
        vec![scenario(
            "odd",
            vec![
                Turn::call(ASK_USER, json!({"question": "   "})),
                Turn::call(ASK_USER, json!({"question": "Which?", "options": "- Alpha\n- Beta\n- alpha", "allow_other": false})),
                Turn::text("done"),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "odd").await;
    let mut events = server.watch(&sid, None).await;
    let seen = events.until("question").await;
    assert_eq!(
        types(&seen),
        ["tool_call", "tool_result", "tool_call", "question"]
    );
    assert!(
        seen[1]["result"].as_str().unwrap().starts_with("Error:"),
        "the model reads the error"
    );
    assert_eq!(seen[3]["options"], json!(["Alpha", "Beta"]));
    assert_eq!(seen[3]["allow_other"], false);
    server
        .answer(&sid, seen[3]["id"].as_str().unwrap(), "beta")
        .await;
    assert_eq!(events.until_done().await[0]["text"], "Beta");
}

#[tokio::test]
async fn a_model_asking_again_and_again_is_stopped_after_two_questions() {
    let server = TestServer::start(
        vec![scenario(
            "ask away",
            vec![
                Turn::ask("First?", &[]),
                Turn::ask("Second?", &[]),
                Turn::ask("Third?", &[]),
                Turn::text("Fine."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "ask away").await;
    let mut events = server.watch(&sid, None).await;
    for _ in 0..2 {
        let question = events.until("question").await.pop().unwrap();
        server
            .answer(&sid, question["id"].as_str().unwrap(), "yes")
            .await;
    }
    let rest = events.until_done().await;
    assert!(!types(&rest).contains(&"question".to_string()), "{rest:?}");
    let refused = rest.iter().rfind(|e| e["type"] == "tool_result").unwrap()["result"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        refused.starts_with("Not asked: the user already answered 2 questions"),
        "{refused}"
    );
    assert_eq!(rest[rest.len() - 2]["text"], "Fine.");
}
