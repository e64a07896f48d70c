//! Echo over a real WebSocket with the stand-in model (SPEC §6).

mod support;

use app::protocol::tool_names::{ASK_USER, LIST_PROJECTS, SEARCH};
use futures::SinkExt;
use serde_json::{json, Value};
use support::echo::Echo;
use support::*;
use tokio_tungstenite::tungstenite::Message;

fn ask(trigger: &str) -> Scenario {
    standin::which_project(trigger, "Here are the notes.")
}

async fn waiting_question(echo: &mut Echo, text: &str) -> Value {
    echo.send(json!({"type": "utterance", "text": text, "confidence": 0.9}))
        .await;
    let started = echo.until("turn_started").await.pop().unwrap();
    assert_eq!(started["text"], text);
    let question = echo.until("question").await.pop().unwrap();
    assert_eq!(question["turn_id"], started["turn_id"]);
    question
}

#[tokio::test]
async fn echo_speaks_the_question_and_takes_the_next_utterance_as_the_answer() {
    let server = TestServer::start(vec![ask("voice notes")], &[]).await;
    let (mut echo, snapshot) = Echo::connect(&server, json!({"type": "hello"})).await;
    assert_eq!(
        (
            snapshot["saving"].as_bool(),
            snapshot["read_only"].as_bool()
        ),
        (Some(true), Some(true))
    );
    assert_eq!(snapshot["turn"], Value::Null);
    let question = waiting_question(&mut echo, "find my voice notes").await;
    assert_eq!(
        question["speech"],
        "Which project? You can say Imprint or Billing, or something else."
    );

    echo.send(json!({"type": "utterance", "text": "billing please", "confidence": 0.95}))
        .await;
    let seen = echo.until("answered").await;
    let kinds: Vec<_> = seen
        .iter()
        .map(|m| m["type"].as_str().unwrap().to_string())
        .collect();
    assert!(kinds.contains(&"answering".to_string()), "{kinds:?}");
    assert!(!kinds.contains(&"queued".to_string()) && !kinds.contains(&"turn_started".to_string()));
    assert_eq!(seen.last().unwrap()["text"], "Billing");
    let finished = echo.until("assistant_message").await.pop().unwrap();
    assert_eq!(finished["text"], "Here are the notes.");
    let sid = snapshot["conversation_id"].as_str().unwrap();
    let session = server.session(sid).await;
    assert_eq!(session["messages"][1]["tool_name"], ASK_USER);
    assert_eq!(session["messages"][1]["content"], "Billing");
}

#[tokio::test]
async fn a_tapped_choice_and_typed_text_answer_too() {
    let server = TestServer::start(vec![ask("tap it"), ask("type it")], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    let question = waiting_question(&mut echo, "tap it").await;
    echo.send(json!({"type": "answer", "question_id": question["id"], "text": "Imprint"}))
        .await;
    assert_eq!(
        echo.until("answered").await.pop().unwrap()["text"],
        "Imprint"
    );
    echo.until("done").await;

    let question = waiting_question(&mut echo, "type it").await;
    echo.send(json!({"type": "typed", "text": "the garden one"}))
        .await;
    let answered = echo.until("answered").await.pop().unwrap();
    assert_eq!(
        (answered["question_id"].clone(), answered["text"].as_str()),
        (question["id"].clone(), Some("the garden one"))
    );
}

#[tokio::test]
async fn noise_and_echos_own_voice_are_ignored_even_while_a_question_waits() {
    let server = TestServer::start(vec![ask("noisy")], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    for (text, confidence) in [("um uh", 0.9), ("Billing", 0.2), ("", 0.9)] {
        echo.send(json!({"type": "utterance", "text": text, "confidence": confidence}))
            .await;
        let ignored = echo.until("ignored").await.pop().unwrap();
        assert_eq!(ignored["reason"], "noise");
    }
    waiting_question(&mut echo, "noisy room").await;
    echo.send(
        json!({"type": "utterance", "text": "you can say imprint or billing", "confidence": 0.9}),
    )
    .await;
    assert_eq!(echo.until("ignored").await.pop().unwrap()["reason"], "echo");
    echo.send(json!({"type": "utterance", "text": "hmm", "confidence": 0.9}))
        .await;
    assert_eq!(
        echo.until("ignored").await.pop().unwrap()["reason"],
        "noise"
    );
    echo.send(json!({"type": "utterance", "text": "Imprint", "confidence": 0.9}))
        .await;
    assert_eq!(
        echo.until("answered").await.pop().unwrap()["text"],
        "Imprint"
    );
}

#[tokio::test]
async fn speech_during_a_reply_is_queued_and_becomes_the_next_turn() {
    let mut slow = Turn::text("Thinking about it.");
    slow.stall = true;
    let server = TestServer::start(vec![scenario("long story", vec![slow])], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send(json!({"type": "utterance", "text": "tell me a long story", "confidence": 0.9}))
        .await;
    echo.until("token").await;
    echo.send(json!({"type": "utterance", "text": "and what about tea", "confidence": 0.9}))
        .await;
    assert_eq!(
        echo.until("queued").await.pop().unwrap()["text"],
        "and what about tea"
    );
    // A spoken "stop" stops the reply; the queue becomes the next turn.
    echo.send(json!({"type": "utterance", "text": "Stop.", "confidence": 0.9}))
        .await;
    echo.until("stopped").await;
    let next = echo.until("turn_started").await.pop().unwrap();
    assert_eq!(next["text"], "and what about tea");
    assert_eq!(
        echo.until("assistant_message").await.pop().unwrap()["text"],
        "You said: and what about tea"
    );
}

#[tokio::test]
async fn a_word_shaped_like_stop_stops_a_reply_but_a_request_holding_star_does_not() {
    let mut slow = Turn::text("Thinking about it.");
    slow.stall = true;
    let server = TestServer::start(vec![scenario("long story", vec![slow])], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send(json!({"type": "utterance", "text": "tell me a long story", "confidence": 0.9}))
        .await;
    echo.until("token").await;
    // A request that holds "star" (or "start") is queued, not a stop.
    for request in ["Star the message from Anna.", "Start a timer."] {
        echo.send(json!({"type": "utterance", "text": request, "confidence": 0.9}))
            .await;
        assert_eq!(echo.until("queued").await.pop().unwrap()["text"], request);
    }
    // Shaped like stop but unsure: not a stop (queued as speech).
    echo.send(json!({"type": "utterance", "text": "Star.", "confidence": 0.52}))
        .await;
    assert_eq!(echo.until("queued").await.pop().unwrap()["text"], "Star.");
    // Heard sure enough while the reply runs: it stops.
    echo.send(json!({"type": "utterance", "text": "Star.", "confidence": 0.8}))
        .await;
    echo.until("stopped").await;
}

#[tokio::test]
async fn an_unsure_answer_is_confirmed_and_background_talk_is_not_an_answer() {
    let server = TestServer::start(vec![ask("which one unsure")], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    let question = waiting_question(&mut echo, "which one unsure").await;
    // Background talk names no choice: ignored, the question waits.
    echo.send(json!({"type": "utterance", "text": "Have you seen the man last night?", "confidence": 0.79}))
        .await;
    let ignored = echo.until("ignored").await.pop().unwrap();
    assert_eq!(ignored["reason"], "not_an_answer");
    // A choice heard unsure: "Did you say …?", and a no drops it.
    echo.send(json!({"type": "utterance", "text": "Billing", "confidence": 0.4}))
        .await;
    let confirming = echo.until("confirming").await.pop().unwrap();
    assert_eq!(
        (
            confirming["question_id"].clone(),
            confirming["text"].as_str(),
            confirming["speech"].as_str()
        ),
        (
            question["id"].clone(),
            Some("Billing"),
            Some("Did you say Billing?")
        )
    );
    echo.send(json!({"type": "utterance", "text": "No.", "confidence": 0.9}))
        .await;
    let dropped = echo.until("unconfirmed").await.pop().unwrap();
    assert_eq!(dropped["text"], "Billing");
    // Asked again, and a typed (or tapped) yes takes it.
    echo.send(json!({"type": "utterance", "text": "Imprint", "confidence": 0.45}))
        .await;
    echo.until("confirming").await;
    echo.send(json!({"type": "typed", "text": "yes"})).await;
    let answered = echo.until("answered").await.pop().unwrap();
    assert_eq!(
        (answered["question_id"].clone(), answered["text"].as_str()),
        (question["id"].clone(), Some("Imprint"))
    );
}

#[tokio::test]
async fn an_unconfirmed_answer_is_dropped_after_the_confirm_timeout_and_the_question_waits() {
    let server = TestServer::start(
        vec![ask("which one unheard")],
        &["--voice-confirm-timeout-s", "0.3"],
    )
    .await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    let question = waiting_question(&mut echo, "which one unheard").await;
    echo.send(json!({"type": "utterance", "text": "Billing", "confidence": 0.4}))
        .await;
    echo.until("confirming").await;
    // Nobody says yes or no: dropped, not given to the reply.
    let dropped = echo.until("unconfirmed").await;
    assert!(
        dropped.iter().all(|m| m["type"] != "answered"),
        "{dropped:?}"
    );
    assert_eq!(
        (
            dropped.last().unwrap()["question_id"].clone(),
            dropped.last().unwrap()["text"].as_str()
        ),
        (question["id"].clone(), Some("Billing"))
    );
    // The question still waits for its answer, and a sure one answers it.
    echo.send(json!({"type": "utterance", "text": "Imprint", "confidence": 0.95}))
        .await;
    let answered = echo.until("answered").await.pop().unwrap();
    assert_eq!(
        (answered["question_id"].clone(), answered["text"].as_str()),
        (question["id"].clone(), Some("Imprint"))
    );
}

#[tokio::test]
async fn the_stop_control_ends_the_wait() {
    let server = TestServer::start(vec![ask("stop the wait")], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    waiting_question(&mut echo, "stop the wait").await;
    echo.send(json!({"type": "stop"})).await;
    let seen = echo.until("done").await;
    let kinds: Vec<_> = seen
        .iter()
        .map(|m| m["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["unanswered", "stopped", "done"]);
}

#[tokio::test]
async fn voice_is_read_only_but_offers_ask_user() {
    let server = TestServer::start(vec![], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send(json!({"type": "typed", "text": "what tools"}))
        .await;
    echo.until("done").await;
    let request = server.standin.requests_for("what tools").pop().unwrap();
    let names: Vec<_> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, [SEARCH, LIST_PROJECTS, ASK_USER]);
}

#[tokio::test]
async fn with_saving_off_nothing_is_stored_or_listed() {
    let server = TestServer::start(vec![], &[]).await;
    let (mut echo, snapshot) =
        Echo::connect(&server, json!({"type": "hello", "saving": false})).await;
    assert_eq!(snapshot["saving"], false);
    echo.send(json!({"type": "typed", "text": "a private thought"}))
        .await;
    let seen = echo.until("done").await;
    assert!(seen.iter().any(|m| m["type"] == "assistant_message" && m["text"] == "You said: a private thought"), "{seen:?}");
    let (_, list) = server.get("/api/chat/sessions").await;
    assert_eq!(list["sessions"].as_array().unwrap().len(), 0);
    let sid = snapshot["conversation_id"].as_str().unwrap();
    assert_eq!(
        server.get(&format!("/api/chat/sessions/{sid}")).await.0,
        404
    );
}

#[tokio::test]
async fn a_window_that_reconnects_gets_the_waiting_question_in_its_snapshot() {
    let server = TestServer::start(vec![ask("reconnect")], &[]).await;
    let (mut first, snapshot) = Echo::connect(&server, json!({"type": "hello"})).await;
    let question = waiting_question(&mut first, "reconnect me").await;
    drop(first);
    let id = snapshot["conversation_id"].clone();
    let (mut again, snapshot) =
        Echo::connect(&server, json!({"type": "hello", "conversation_id": id})).await;
    assert_eq!(snapshot["conversation_id"], id);
    let waiting = &snapshot["turn"]["question"];
    assert_eq!(waiting["id"], question["id"]);
    assert_eq!(waiting["speech"], question["speech"]);
    let sid = id.as_str().unwrap();
    assert_eq!(
        server.session(sid).await["reply"]["state"],
        "waiting",
        "the session API reports it too"
    );
    again
        .send(json!({"type": "answer", "question_id": question["id"], "text": "Billing"}))
        .await;
    again.until("answered").await;
}

#[tokio::test]
async fn a_quiet_turn_times_out_but_not_while_a_question_waits() {
    let mut stalled = Turn::text("…");
    stalled.stall = true;
    let mut slow = Turn::text("slow but fine");
    slow.delay_ms = 600;
    let server = TestServer::start(
        vec![
            scenario("go quiet", vec![stalled]),
            ask("ask and wait"),
            scenario("slow chat", vec![slow]),
        ],
        &["--voice-turn-timeout-s", "0.3"],
    )
    .await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send(json!({"type": "typed", "text": "go quiet"}))
        .await;
    echo.until("stopped").await; // the stalled model was stopped by the timeout
    echo.until("done").await;

    let question = waiting_question(&mut echo, "ask and wait").await;
    // Let more than the turn timeout pass, measured by another chat's slow
    // reply (600 ms), while the question waits.
    let sid = server.create_session().await;
    let events = server.converse(&sid, "slow chat").await;
    assert_eq!(events[events.len() - 2]["text"], "slow but fine");
    echo.send(json!({"type": "answer", "question_id": question["id"], "text": "Billing"}))
        .await;
    let rest = echo.until("done").await;
    assert!(
        rest.iter().any(|m| m["type"] == "assistant_message"),
        "the turn went on: {rest:?}"
    );
}

#[tokio::test]
async fn bad_messages_get_an_error_not_a_closed_socket() {
    let server = TestServer::start(vec![], &[]).await;
    let mut echo = Echo::open(&server).await;
    echo.send(json!({"type": "typed", "text": "before hello"}))
        .await;
    assert!(echo.until("error").await.pop().unwrap()["error"]
        .as_str()
        .unwrap()
        .contains("hello"));
    echo.socket
        .send(Message::Text("not json".into()))
        .await
        .unwrap();
    echo.until("error").await;
    echo.send(json!({"type": "hello"})).await;
    echo.until("snapshot").await;
    echo.send(json!({"type": "dance"})).await;
    echo.until("error").await;
}

#[tokio::test]
async fn a_spoken_up_to_you_leaves_the_choice_to_the_model() {
    let server = TestServer::start(vec![ask("choose for me")], &[]).await;
    let (mut echo, snapshot) = Echo::connect(&server, json!({"type": "hello"})).await;
    let question = waiting_question(&mut echo, "choose for me please").await;
    echo.send(json!({"type": "utterance", "text": "Up to you.", "confidence": 0.9}))
        .await;
    let answered = echo.until("answered").await.pop().unwrap();
    assert_eq!(answered["question_id"], question["id"]);
    assert_eq!(answered["text"], "Left to Imprint");
    let closed = echo.until("unanswered").await.pop().unwrap();
    assert_eq!(
        (closed["id"].clone(), closed["reason"].as_str()),
        (question["id"].clone(), Some("left_to_imprint"))
    );
    let result = echo.until("tool_result").await.pop().unwrap();
    assert!(
        result["result"]
            .as_str()
            .unwrap()
            .starts_with("The user left the choice to you"),
        "{result}"
    );
    echo.until("done").await;
    let sid = snapshot["conversation_id"].as_str().unwrap();
    let session = server.session(sid).await;
    assert_eq!(session["messages"][1]["tool_name"], "ask_user");
    assert_eq!(
        session["messages"][1]["tool_args"]["outcome"],
        "left_to_imprint"
    );
}

#[tokio::test]
async fn a_voice_conversation_sets_a_reminder_only_when_the_user_lets_it() {
    // Planned turns (the built-in model's path): a reminder with no time
    // is asked by Imprint, and the spoken time answers it.
    let server = TestServer::start_planned(Vec::new()).await;
    let (mut echo, snapshot) =
        Echo::connect(&server, json!({"type": "hello", "writes": true})).await;
    assert_eq!(snapshot["read_only"], false);
    let question = waiting_question(&mut echo, "Remind me to call Anna").await;
    assert!(
        question["question"]
            .as_str()
            .unwrap()
            .starts_with("What time"),
        "{question}"
    );
    echo.send(json!({"type": "utterance", "text": "Tomorrow at nine.", "confidence": 0.9}))
        .await;
    // A time of its own, not one of the choices: confirmed first.
    let confirming = echo.until("confirming").await.pop().unwrap();
    assert_eq!(confirming["speech"], "Did you say Tomorrow at nine?");
    echo.send(json!({"type": "utterance", "text": "Yes.", "confidence": 0.9}))
        .await;
    let done = echo.until("assistant_message").await.pop().unwrap();
    let text = done["text"].as_str().unwrap();
    assert!(text.starts_with("Done: reminder set for"), "{text}");
    let (_, reminders) = server.get("/api/reminders").await;
    let reminders = reminders["reminders"].as_array().unwrap().clone();
    assert_eq!(reminders.len(), 1, "{reminders:?}");
    assert_eq!(reminders[0]["text"], "Call Anna");
    let due = chrono::DateTime::parse_from_rfc3339(reminders[0]["due_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Local);
    let tomorrow = chrono::Local::now().date_naive().succ_opt().unwrap();
    assert_eq!(due.date_naive(), tomorrow);
    assert_eq!(due.format("%H:%M").to_string(), "09:00");

    // Read-only by default: nothing is set, and Echo says why.
    let (mut echo, snapshot) = Echo::connect(&server, json!({"type": "hello"})).await;
    assert_eq!(snapshot["read_only"], true);
    echo.send(json!({"type": "typed", "text": "Remind me to call Ben tomorrow at 10"}))
        .await;
    let done = echo.until("assistant_message").await.pop().unwrap();
    assert!(
        !done["text"].as_str().unwrap().starts_with("Done"),
        "{done}"
    );
    let (_, reminders) = server.get("/api/reminders").await;
    assert_eq!(reminders["reminders"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_spoken_read_is_the_one_memory_that_answers_with_no_model_step() {
    // Planned turns (the built-in model's path). Said aloud, the answer
    // comes without the model's wording step, which costs seconds; typed
    // in Chat, the model words it.
    let worded = json!({"memory": 1, "answer": "Jan's number is 0176 555 1234."});
    let server = TestServer::start_planned(vec![scenario(
        "plumber",
        vec![Turn::text(&worded.to_string())],
    )])
    .await;
    server
        .remember("Plumber: Jan Kowalski, 0176 555 1234", None)
        .await;
    server
        .remember("Electrician: Piotr, 0176 999 000", None)
        .await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send(json!({"type": "typed", "text": "What's the plumber's number?"}))
        .await;
    let done = echo.until("assistant_message").await.pop().unwrap();
    let text = done["text"].as_str().unwrap();
    assert!(
        text.starts_with("From your memories: Plumber: Jan Kowalski, 0176 555 1234"),
        "{text}"
    );
    assert!(!text.contains("Piotr"), "{text}");
    assert!(
        server.standin.requests_for("plumber").is_empty(),
        "no model step for a spoken read"
    );

    // Two memories that would both answer: the model picks, as in Chat.
    server
        .remember("Plumber (backup): Ewa Nowak, 0176 555 9876", None)
        .await;
    echo.send(json!({"type": "typed", "text": "What's the plumber's number?"}))
        .await;
    echo.until("assistant_message").await;
    assert_eq!(server.standin.requests_for("plumber").len(), 1);

    // Typed in Chat, the model words the answer.
    let sid = server.create_session().await;
    let events = server.converse(&sid, "What's the plumber's number?").await;
    assert_eq!(server.standin.requests_for("plumber").len(), 2);
    assert!(assistant_text(&events).contains("0176 555"), "{events:?}");
}
