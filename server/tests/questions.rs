//! "Waiting for you" through real HTTP with the stand-in model:
//! `GET /api/questions` across chats, and "You decide" (the button's
//! `you_decide: true` and an answer that just says so) on the model's
//! question and on Imprint's own.

mod support;

use chrono::{Duration, Local};
use serde_json::{json, Value};
use support::*;

fn ask(trigger: &str, question: &str, options: &[&str], allow_other: bool) -> Scenario {
    scenario(
        trigger,
        vec![
            Turn::call(
                "ask_user",
                json!({"question": question, "options": options, "allow_other": allow_other}),
            ),
            Turn::text("Done as you like."),
        ],
    )
}

/// A reminder whose time the model made up: Imprint asks the user itself.
fn invoice() -> Scenario {
    let invented = (Local::now() + Duration::minutes(5))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    scenario(
        "send the invoice",
        vec![
            Turn::call(
                "remind",
                json!({"text": "Send the invoice", "at": invented}),
            ),
            Turn::text("Reminder set."),
        ],
    )
}

async fn post_answer(server: &TestServer, sid: &str, body: Value) -> (u16, Value) {
    server
        .post(&format!("/api/chat/sessions/{sid}/answer"), body)
        .await
}

async fn waiting(server: &TestServer) -> Vec<Value> {
    let (status, body) = server.get("/api/questions").await;
    assert_eq!(status, 200, "{body}");
    body["questions"].as_array().unwrap().clone()
}

/// The stored `ask_user` row of a session.
async fn asked_row(server: &TestServer, sid: &str) -> Value {
    let messages = server.session(sid).await["messages"].clone();
    messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_name"] == "ask_user")
        .cloned()
        .expect("the question is in history")
}

#[tokio::test]
async fn every_waiting_question_is_listed_oldest_first_with_its_chat() {
    let server = TestServer::start(
        vec![
            ask("plan the garden", "Which bed?", &["North", "South"], true),
            ask("tidy the notes", "Which folder?", &[], true),
        ],
        &[],
    )
    .await;
    assert!(waiting(&server).await.is_empty());

    let garden = server.create_session().await;
    server.say(&garden, "plan the garden").await;
    let first = server.watch(&garden, None).await.until("question").await;
    let first = first.last().unwrap().clone();
    let notes = server.create_session().await;
    server.say(&notes, "tidy the notes").await;
    let second = server.watch(&notes, None).await.until("question").await;
    let second = second.last().unwrap().clone();

    let listed = waiting(&server).await;
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(
        listed[0],
        json!({
            "session_id": garden, "session_title": "plan the garden",
            "id": first["id"], "question": "Which bed?", "options": ["North", "South"],
            "allow_other": true, "origin": "model", "expires_at": first["expires_at"],
        })
    );
    assert_eq!(listed[1]["session_id"], notes);
    assert_eq!(listed[1]["id"], second["id"]);
    assert_eq!(listed[1]["options"], json!([]));

    // Answered in one chat, it leaves the list at once.
    let (status, _) = post_answer(
        &server,
        &garden,
        json!({"id": first["id"], "answer": "North"}),
    )
    .await;
    assert_eq!(status, 200);
    let listed = waiting(&server).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], second["id"]);
}

#[tokio::test]
async fn you_decide_on_the_models_question_leaves_the_choice_to_the_model() {
    let server = TestServer::start(
        vec![ask(
            "plan the garden",
            "Which bed?",
            &["North", "South"],
            false,
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "plan the garden").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    let id = question["id"].clone();

    // Neither an answer nor "You decide" is an empty answer.
    let (status, body) = post_answer(&server, &sid, json!({"id": id})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        post_answer(&server, &sid, json!({"id": "q-other", "you_decide": true}))
            .await
            .0,
        409
    );
    assert_eq!(
        post_answer(&server, &sid, json!({"id": id, "you_decide": true})).await,
        (200, json!({"ok": true}))
    );
    // Decided once: refused as no longer waiting (409), or with no reply
    // being written (404) when the reply has already finished.
    let again = post_answer(&server, &sid, json!({"id": id, "you_decide": true}))
        .await
        .0;
    assert!(
        again == 409 || again == 404,
        "a question is decided once: {again}"
    );

    let rest = events.until_done().await;
    assert_eq!(
        types(&rest),
        [
            "unanswered",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    assert_eq!(
        rest[0],
        json!({"type": "unanswered", "id": id, "reason": "left_to_imprint"})
    );
    let told = "The user left the choice to you: choose what fits best, and say what you chose.";
    assert_eq!(rest[1]["result"], told);

    // The model read it as the tool's result.
    let requests = server.standin.requests_for("plan the garden");
    let last = requests.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (last["role"].as_str(), last["content"].as_str()),
        (Some("tool"), Some(told))
    );

    // History: a distinct outcome, not a timeout.
    let row = asked_row(&server, &sid).await;
    assert_eq!(row["tool_args"]["outcome"], "left_to_imprint");
    assert_eq!(row["tool_args"]["question"], "Which bed?");
    assert_eq!(row["content"], told);
    assert!(waiting(&server).await.is_empty());
}

#[tokio::test]
async fn an_answer_that_just_says_up_to_you_counts_as_you_decide() {
    let server = TestServer::start(
        vec![ask(
            "plan the garden",
            "Which bed?",
            &["North", "South"],
            false,
        )],
        &[],
    )
    .await;
    for words in ["Up to you!", "whatever you think", "You choose."] {
        let sid = server.create_session().await;
        server.say(&sid, "plan the garden").await;
        let mut events = server.watch(&sid, None).await;
        let question = events.until("question").await.pop().unwrap();
        // Accepted although the question takes only its options.
        let (status, body) = post_answer(
            &server,
            &sid,
            json!({"id": question["id"], "answer": words}),
        )
        .await;
        assert_eq!(status, 200, "{words}: {body}");
        let rest = events.until_done().await;
        assert_eq!(rest[0]["reason"], "left_to_imprint", "{words}");
        assert_eq!(
            asked_row(&server, &sid).await["tool_args"]["outcome"],
            "left_to_imprint"
        );
    }
}

#[tokio::test]
async fn you_decide_on_imprints_time_question_takes_the_first_option() {
    let server = TestServer::start(vec![invoice()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "Remind me to send the invoice").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["origin"], "imprint");
    let first = question["options"][0].as_str().unwrap().to_string();
    let listed = waiting(&server).await;
    assert_eq!(listed[0]["origin"], "imprint");

    let (status, _) = post_answer(
        &server,
        &sid,
        json!({"id": question["id"], "you_decide": true}),
    )
    .await;
    assert_eq!(status, 200);
    let rest = events.until_done().await;
    assert_eq!(
        rest[0],
        json!({"type": "unanswered", "id": question["id"], "reason": "left_to_imprint", "chosen": first})
    );
    let result = rest.iter().find(|e| e["type"] == "tool_result").unwrap()["result"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        result.starts_with("The user left the choice to Imprint, which chose "),
        "{result}"
    );
    assert!(result.contains("Reminder #"), "{result}");

    let (_, list) = server.get("/api/reminders").await;
    assert_eq!(list["reminders"].as_array().unwrap().len(), 1, "{list}");

    let row = asked_row(&server, &sid).await;
    assert_eq!(row["tool_args"]["outcome"], "left_to_imprint");
    assert_eq!(row["tool_args"]["chosen"], first.as_str());
    assert_eq!(row["tool_args"]["origin"], "imprint");
}
