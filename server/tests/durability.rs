//! What survives when Imprint stops: the real binary, killed with SIGKILL
//! (or stopped with SIGTERM) at each stage of a reply, then started again
//! on the same data directory. Each test checks the session, the answer
//! codes, the resumed model request, the final history and the events.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::binary::Binary;
use support::*;

fn ask_project() -> Scenario {
    scenario(
        "plans of the project",
        vec![
            Turn::chunks(&["Let me check. "]).with_call(
                "ask_user",
                json!({"question": "Which project?", "options": ["Imprint", "Billing"]}),
            ),
            Turn::text("Billing is due Friday."),
        ],
    )
}

/// A turn that writes some text, then holds the stream open.
fn stalled(text: &str) -> Turn {
    Turn {
        chunks: vec![text.to_string()],
        stall: true,
        ..Turn::default()
    }
}

trait WithCall {
    fn with_call(self, name: &str, arguments: Value) -> Turn;
}

impl WithCall for Turn {
    fn with_call(mut self, name: &str, arguments: Value) -> Turn {
        self.calls.push(standin::Call {
            name: name.into(),
            arguments,
        });
        self
    }
}

/// Reads the reply's events until its question; returns the question and
/// its event id.
async fn until_question(events: &mut Events) -> (Value, u64) {
    first_question(events, false).await
}

/// [`until_question`] for a reply that first waits for the meaning model:
/// at a first start it embeds the routing examples, tens of seconds in a
/// test build on a slow machine, and no event comes meanwhile.
async fn until_question_patiently(events: &mut Events) -> Value {
    first_question(events, true).await.0
}

async fn first_question(events: &mut Events, patient: bool) -> (Value, u64) {
    loop {
        let message = if patient {
            events.next_patient().await
        } else {
            events.next().await
        };
        let message = message.expect("a question");
        if message.data["type"] == "question" {
            return (message.data, message.id.unwrap());
        }
    }
}

fn messages(session: &Value) -> Vec<Value> {
    session["messages"].as_array().unwrap().clone()
}

fn roles(session: &Value) -> Vec<String> {
    messages(session)
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_waiting_question_waits_again_after_a_kill_and_its_answer_finishes_the_reply() {
    let standin = StandIn::start(vec![ask_project()]).await;
    let data = tempfile::tempdir().unwrap();
    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let sid = imprint.create_session().await;
    let reply_id = imprint
        .say(&sid, "What are the plans of the project?")
        .await;
    let mut events = imprint.watch(&sid, None).await;
    let (question, question_seq) = until_question(&mut events).await;
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let session = imprint.session(&sid).await;
    assert_eq!(session["reply"]["id"], reply_id.as_str(), "the same reply");
    assert_eq!(session["reply"]["state"], "waiting");
    let restored = &session["reply"]["question"];
    assert_eq!(restored["id"], question["id"]);
    assert_eq!(restored["question"], "Which project?");
    assert_eq!(restored["options"], json!(["Imprint", "Billing"]));
    assert_eq!(roles(&session), ["user"], "nothing is written twice");
    let (_, list) = imprint.get("/api/chat/sessions").await;
    assert_eq!(list["sessions"][0]["waiting"], true);
    let mut dashboard = imprint.dashboard_events().await;
    let waiting = dashboard.next().await.unwrap().data;
    assert_eq!(waiting["type"], "question_waiting");
    assert_eq!(waiting["question_id"], question["id"]);

    // A page that saw the question resumes after it: the question is
    // posed again, after the last id it saw.
    let mut resumed = imprint.watch(&sid, Some(question_seq)).await;
    let again = resumed.next().await.unwrap();
    assert!(again.id.unwrap() > question_seq, "{again:?}");
    assert_eq!(again.data["type"], "question");
    assert_eq!(again.data["id"], question["id"]);

    let (status, body) = imprint.answer(&sid, &question["id"], "Billing").await;
    assert_eq!(status, 200, "{body}");
    let rest = resumed.until_done().await;
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
    assert_eq!(rest[3]["text"], "Let me check. Billing is due Friday.");

    // The resumed request carries the whole conversation and the answer.
    let requests = standin.requests_for("plans of the project");
    assert_eq!(requests.len(), 2);
    let sent = requests[1]["messages"].as_array().unwrap();
    let sent_roles: Vec<&str> = sent.iter().map(|m| m["role"].as_str().unwrap()).collect();
    // The time note, then the user's message (issue 17: the time comes last).
    assert_eq!(sent_roles, ["system", "user", "user", "assistant", "tool"]);
    assert!(sent[1]["content"]
        .as_str()
        .unwrap()
        .starts_with("(Imprint: it is now"));
    assert_eq!(sent[3]["tool_calls"][0]["function"]["name"], "ask_user");
    assert_eq!(sent[4]["content"], "The user answered: Billing");

    let session = imprint.session(&sid).await;
    assert_eq!(session["reply"], Value::Null);
    assert_eq!(roles(&session), ["user", "tool", "assistant"]);
    let history = messages(&session);
    assert_eq!(history[1]["tool_args"]["outcome"], "answered");
    assert_eq!(history[1]["content"], "Billing");
    assert_eq!(
        history[2]["content"],
        "Let me check. Billing is due Friday."
    );
    assert!(history[2].get("ended").is_none(), "{}", history[2]);
    imprint.kill().await;
}

#[tokio::test]
async fn a_restored_question_can_be_stopped_and_an_old_answer_gets_404_after_it() {
    let standin = StandIn::start(vec![ask_project()]).await;
    let data = tempfile::tempdir().unwrap();
    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let sid = imprint.create_session().await;
    imprint
        .say(&sid, "What are the plans of the project?")
        .await;
    let (question, _) = until_question(&mut imprint.watch(&sid, None).await).await;
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let mut events = imprint.watch(&sid, None).await;
    let (status, _) = imprint
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 200);
    let seen = events.until_done().await;
    assert_eq!(types(&seen), ["question", "unanswered", "stopped", "done"]);
    let (status, _) = imprint.answer(&sid, &question["id"], "Billing").await;
    assert_eq!(status, 404, "the reply is over");
    let session = imprint.session(&sid).await;
    assert_eq!(roles(&session), ["user", "tool", "assistant"]);
    let history = messages(&session);
    assert_eq!(history[1]["tool_args"]["outcome"], "stopped");
    assert_eq!(history[2]["ended"], "stopped");
    assert_eq!(history[2]["content"], "Let me check.");
    assert_eq!(standin.requests_for("plans of the project").len(), 1);
    imprint.kill().await;
}

#[tokio::test]
async fn an_answer_that_got_200_resumes_after_a_kill_before_the_next_model_request() {
    let standin = StandIn::start(vec![
        ask_project(),
        scenario("hold the slot", vec![stalled("holding")]),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    // One writing slot: while another reply holds it, the answered reply
    // waits in line and makes no model request.
    let args = ["--writing-slots", "1"];
    let imprint = Binary::start(data.path(), &standin.base_url(), &args).await;
    let asking = imprint.create_session().await;
    let reply_id = imprint
        .say(&asking, "What are the plans of the project?")
        .await;
    let (question, _) = until_question(&mut imprint.watch(&asking, None).await).await;
    let holding = imprint.create_session().await;
    imprint.say(&holding, "Please hold the slot").await;
    let mut held = imprint.watch(&holding, None).await;
    held.until("token").await;
    let (status, body) = imprint.answer(&asking, &question["id"], "Imprint").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(standin.requests_for("plans of the project").len(), 1);
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &args).await;
    let mut events = imprint.watch_reply(&asking, &reply_id).await;
    let seen = events.until_done().await;
    assert_eq!(
        types(&seen),
        [
            "question",
            "answer",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    assert_eq!(seen[1]["text"], "Imprint");
    let requests = standin.requests_for("plans of the project");
    assert_eq!(requests.len(), 2);
    let sent = requests[1]["messages"].as_array().unwrap();
    assert_eq!(
        sent.last().unwrap()["content"],
        "The user answered: Imprint"
    );
    let history = messages(&imprint.session(&asking).await);
    assert_eq!(history[1]["content"], "Imprint");
    assert_eq!(history[1]["tool_args"]["outcome"], "answered");
    assert_eq!(history.len(), 3);

    // The reply that held the slot was writing: it is kept, marked.
    let held = messages(&imprint.session(&holding).await);
    assert_eq!(held.len(), 2, "{held:?}");
    assert_eq!(held[1]["role"], "assistant");
    assert_eq!(held[1]["content"], "holding");
    assert_eq!(held[1]["ended"], "interrupted");
    imprint.kill().await;
}

#[tokio::test]
async fn a_reply_killed_mid_stream_is_kept_marked_interrupted_and_retry_answers_it() {
    let standin = StandIn::start(vec![scenario("tell me a story", vec![stalled("w0 ")])]).await;
    let data = tempfile::tempdir().unwrap();
    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let sid = imprint.create_session().await;
    imprint.say(&sid, "Please tell me a story").await;
    imprint.watch(&sid, None).await.until("token").await;
    // The session is read through the same store queue the text was
    // written to: once it answers, the text shown so far is on disk.
    assert_eq!(imprint.session(&sid).await["reply"]["state"], "writing");
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let session = imprint.session(&sid).await;
    assert_eq!(session["reply"], Value::Null);
    let history = messages(&session);
    assert_eq!(roles(&session), ["user", "assistant"]);
    assert_eq!(history[1]["content"], "w0");
    assert_eq!(history[1]["ended"], "interrupted");

    standin.replace(vec![scenario(
        "tell me a story",
        vec![Turn::text("Once upon a time.")],
    )]);
    let (status, body) = imprint
        .post(&format!("/api/chat/sessions/{sid}/retry"), json!({}))
        .await;
    assert_eq!(status, 202, "{body}");
    // By id: a fast reply may have ended before the stream is asked for.
    let reply_id = body["reply_id"].as_str().unwrap();
    let seen = imprint.watch_reply(&sid, reply_id).await.until_done().await;
    assert_eq!(seen[seen.len() - 2]["text"], "Once upon a time.");
    let session = imprint.session(&sid).await;
    assert_eq!(roles(&session), ["user", "assistant", "assistant"]);
    let retried = standin.requests_for("tell me a story");
    let sent = retried.last().unwrap()["messages"].as_array().unwrap();
    assert_eq!(
        sent.last().unwrap()["content"],
        "Please tell me a story",
        "the same request, without the interrupted text"
    );
    imprint.kill().await;
}

#[tokio::test]
async fn a_kill_before_the_question_is_stored_leaves_the_reply_marked_not_a_question() {
    // The model was still writing its ask_user call when Imprint died.
    let standin = StandIn::start(vec![scenario(
        "plans of the project",
        vec![stalled("Let me ask. ")],
    )])
    .await;
    let data = tempfile::tempdir().unwrap();
    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let sid = imprint.create_session().await;
    imprint
        .say(&sid, "What are the plans of the project?")
        .await;
    imprint.watch(&sid, None).await.until("token").await;
    imprint.session(&sid).await;
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let session = imprint.session(&sid).await;
    assert_eq!(session["reply"], Value::Null);
    let (_, list) = imprint.get("/api/chat/sessions").await;
    assert_eq!(list["sessions"][0]["waiting"], false);
    let history = messages(&session);
    assert_eq!(roles(&session), ["user", "assistant"]);
    assert_eq!(history[1]["ended"], "interrupted");
    assert_eq!(history[1]["content"], "Let me ask.");
    let (status, _) = imprint
        .post(
            &format!("/api/chat/sessions/{sid}/answer"),
            json!({"id": "q-any", "answer": "x"}),
        )
        .await;
    assert_eq!(status, 404);
    imprint.kill().await;
}

#[tokio::test]
async fn imprints_own_question_waits_again_after_a_kill_and_the_answer_sets_the_reminder() {
    let at = (chrono::Local::now() + chrono::Duration::minutes(5))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    let standin = StandIn::start(vec![scenario(
        "send the invoice",
        vec![
            Turn::call("remind", json!({"text": "Send the invoice", "at": at})),
            Turn::text("I will remind you."),
        ],
    )])
    .await;
    let data = tempfile::tempdir().unwrap();
    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let sid = imprint.create_session().await;
    imprint.say(&sid, "Remind me to send the invoice.").await;
    let (question, _) = until_question(&mut imprint.watch(&sid, None).await).await;
    assert_eq!(question["origin"], "imprint");
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let session = imprint.session(&sid).await;
    assert_eq!(session["reply"]["state"], "waiting");
    assert_eq!(session["reply"]["question"]["id"], question["id"]);
    assert_eq!(session["reply"]["question"]["origin"], "imprint");
    let (_, reminders) = imprint.get("/api/reminders").await;
    assert_eq!(reminders["reminders"], json!([]), "nothing set on a guess");

    let mut events = imprint.watch(&sid, None).await;
    let (status, body) = imprint
        .answer(&sid, &question["id"], "Tomorrow, 09:00")
        .await;
    assert_eq!(status, 200, "{body}");
    let seen = events.until_done().await;
    // Asked before the model started: the model's call comes after.
    assert_eq!(
        types(&seen),
        [
            "question",
            "answer",
            "tool_call",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    let (_, reminders) = imprint.get("/api/reminders").await;
    let reminders = reminders["reminders"].as_array().unwrap().clone();
    assert_eq!(reminders.len(), 1, "set once: {reminders:?}");
    let history = messages(&imprint.session(&sid).await);
    let tools: Vec<&Value> = history.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tools.len(), 2, "{history:?}");
    assert_eq!(tools[0]["tool_args"]["origin"], "imprint");
    assert_eq!(tools[0]["content"], "Tomorrow, 09:00");
    assert_eq!(tools[1]["tool_name"], "remind");
    let requests = standin.requests_for("send the invoice");
    assert_eq!(requests.len(), 2);
    let first = requests[0].to_string();
    assert!(
        first.contains("Imprint asked when to remind; the user said"),
        "{first}"
    );
    imprint.kill().await;
}

#[tokio::test]
async fn a_question_that_expired_while_imprint_was_down_goes_on_with_the_best_assumption() {
    let standin = StandIn::start(vec![ask_project()]).await;
    let data = tempfile::tempdir().unwrap();
    let args = ["--answer-timeout-s", "1"];
    let imprint = Binary::start(data.path(), &standin.base_url(), &args).await;
    let sid = imprint.create_session().await;
    let reply_id = imprint
        .say(&sid, "What are the plans of the project?")
        .await;
    let (question, _) = until_question(&mut imprint.watch(&sid, None).await).await;
    imprint.kill().await;
    // Imprint stays down past the question's expiry: time passing is the
    // behaviour under test.
    let expires_at = chrono::DateTime::parse_from_rfc3339(question["expires_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    let left = (expires_at - chrono::Utc::now())
        .to_std()
        .unwrap_or_default();
    tokio::time::sleep(left + Duration::from_millis(50)).await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &args).await;
    let seen = imprint
        .watch_reply(&sid, &reply_id)
        .await
        .until_done()
        .await;
    let unanswered = seen.iter().find(|e| e["type"] == "unanswered").unwrap();
    assert_eq!(unanswered["reason"], "timed_out");
    let requests = standin.requests_for("plans of the project");
    assert_eq!(requests.len(), 2);
    let told = requests[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(told.contains("No answer came"), "{told}");
    let history = messages(&imprint.session(&sid).await);
    assert_eq!(history[1]["tool_args"]["outcome"], "timed_out");
    imprint.kill().await;
}

#[tokio::test]
async fn sigterm_keeps_waiting_questions_and_marks_writing_replies_interrupted() {
    let standin = StandIn::start(vec![
        ask_project(),
        scenario("tell me a story", vec![stalled("w0 ")]),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let imprint = Binary::start(data.path(), &standin.base_url(), &["--writing-slots", "2"]).await;
    let asking = imprint.create_session().await;
    imprint
        .say(&asking, "What are the plans of the project?")
        .await;
    let (question, _) = until_question(&mut imprint.watch(&asking, None).await).await;
    let writing = imprint.create_session().await;
    imprint.say(&writing, "Please tell me a story").await;
    let mut story = imprint.watch(&writing, None).await;
    story.until("token").await;
    let (took, clean) = imprint.terminate().await;
    assert!(clean, "a clean exit");
    // The stream a watcher had open ends rather than hanging.
    while story.next().await.is_some() {}
    eprintln!("SIGTERM to exit: {took:?}");

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let session = imprint.session(&asking).await;
    assert_eq!(session["reply"]["state"], "waiting");
    assert_eq!(session["reply"]["question"]["id"], question["id"]);
    assert_eq!(roles(&session), ["user"], "no stopped question row");
    let history = messages(&imprint.session(&writing).await);
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["content"], "w0");
    assert_eq!(history[1]["ended"], "interrupted");
    imprint.kill().await;
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Echo's socket on the binary: sends `hello`, returns the snapshot.
async fn echo(imprint: &Binary, hello: Value) -> (Socket, Value) {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let url = format!("{}/api/voice/ws", imprint.url.replace("http://", "ws://"));
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    socket
        .send(Message::Text(hello.to_string().into()))
        .await
        .unwrap();
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a voice message within 10 s")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(text.as_str()).unwrap();
            if value["type"] == "snapshot" {
                return (socket, value);
            }
        }
    }
}

/// Types into Echo and reads until its question.
async fn typed_until_question(socket: &mut Socket, text: &str) -> Value {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let typed = json!({"type": "typed", "text": text});
    socket
        .send(Message::Text(typed.to_string().into()))
        .await
        .unwrap();
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a voice message within 10 s")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(text.as_str()).unwrap();
            if value["type"] == "question" {
                return value;
            }
        }
    }
}

#[tokio::test]
async fn echos_saved_question_survives_a_kill_with_its_speech_and_an_unsaved_one_does_not() {
    let standin = StandIn::start(vec![ask_project()]).await;
    let data = tempfile::tempdir().unwrap();
    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let (mut saved, snapshot) = echo(&imprint, json!({"type": "hello"})).await;
    let conversation = snapshot["conversation_id"].as_str().unwrap().to_string();
    let question = typed_until_question(&mut saved, "What are the plans of the project?").await;
    let (mut unsaved, snapshot) = echo(&imprint, json!({"type": "hello", "saving": false})).await;
    let unsaved_id = snapshot["conversation_id"].as_str().unwrap().to_string();
    typed_until_question(&mut unsaved, "What are the plans of the project?").await;
    drop((saved, unsaved));
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let (_socket, snapshot) = echo(
        &imprint,
        json!({"type": "hello", "conversation_id": conversation}),
    )
    .await;
    assert_eq!(snapshot["conversation_id"], conversation.as_str());
    let waiting = &snapshot["turn"]["question"];
    assert_eq!(waiting["id"], question["id"], "{snapshot}");
    assert_eq!(
        waiting["speech"],
        "Which project? You can say Imprint or Billing, or something else."
    );
    assert_eq!(
        imprint.session(&conversation).await["reply"]["state"],
        "waiting"
    );
    // Nothing of the unsaved conversation was stored.
    let (status, _) = imprint
        .get(&format!("/api/chat/sessions/{unsaved_id}"))
        .await;
    assert_eq!(status, 404);
    let (_, list) = imprint.get("/api/chat/sessions").await;
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1);
    imprint.kill().await;
}

#[tokio::test]
async fn a_question_between_events_found_by_meaning_waits_again_after_a_kill_and_an_upgrade() {
    // The built-in model's planned path, finding by meaning on: the sofa's
    // memory says "delivered", so only its meaning makes it a delivery.
    let standin = StandIn::start(Vec::new()).await;
    let model = ["--chat-provider", "local", "--chat-model", "standin"];
    let data = tempfile::tempdir().unwrap();
    let day = |ahead: i64| (chrono::Local::now() + chrono::Duration::days(ahead)).date_naive();
    let (sofa_day, shed_day) = (day(9), day(11));
    let said = |date: chrono::NaiveDate| date.format("%A %-d %B").to_string().to_lowercase();
    let imprint = Binary::start_by_meaning(data.path(), &standin.base_url(), &model).await;
    for content in [
        format!(
            "The new sofa gets delivered on {}, morning slot",
            said(sofa_day)
        ),
        format!(
            "Garden shed delivery is on {} between 12 and 4",
            said(shed_day)
        ),
    ] {
        let (status, body) = imprint
            .post("/api/memories", json!({ "content": content }))
            .await;
        assert_eq!(status, 201, "{body}");
    }
    let sid = imprint.create_session().await;
    imprint
        .say(&sid, "remind me at 7am on delivery day to clear the hall")
        .await;
    let question = until_question_patiently(&mut imprint.watch(&sid, None).await).await;
    let options: Vec<String> = serde_json::from_value(question["options"].clone()).unwrap();
    assert_eq!(options.len(), 2, "{question}");
    let sofa = options
        .iter()
        .find(|o| o.contains("sofa"))
        .expect("the sofa is an option");
    imprint.kill().await;

    // An upgrade while the question waits: the examples' vectors are made
    // again at the next start, seconds in which the model is not ready.
    let db = rusqlite::Connection::open(data.path().join("imprint.sqlite3")).unwrap();
    db.execute("DELETE FROM example_vectors", []).unwrap();
    drop(db);

    let imprint = Binary::start_by_meaning(data.path(), &standin.base_url(), &model).await;
    let session = imprint.session(&sid).await;
    assert_eq!(session["reply"]["state"], "waiting");
    assert_eq!(session["reply"]["question"]["id"], question["id"]);
    let mut events = imprint.watch(&sid, None).await;
    // The restored reply takes its steps again on the same memories, found
    // the same way: it still waits for this answer (a reply that decided
    // anew would have set the shed's reminder and closed the question).
    let (status, body) = imprint.answer(&sid, &question["id"], sofa).await;
    assert_eq!(status, 200, "{body}");
    // It goes on once the model is ready again (seconds, more in a test
    // build on a busy machine).
    while events.next_patient().await.expect("the reply goes on").data["type"] != "done" {}
    let (_, reminders) = imprint.get("/api/reminders").await;
    let reminders = reminders["reminders"].as_array().unwrap().clone();
    assert_eq!(reminders.len(), 1, "{reminders:?}");
    let at_seven = sofa_day.and_hms_opt(7, 0, 0).unwrap();
    let due = chrono::TimeZone::from_local_datetime(&chrono::Local, &at_seven)
        .single()
        .unwrap()
        .with_timezone(&chrono::Utc)
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    assert!(
        reminders[0]["due_at"].as_str().unwrap().starts_with(&due),
        "7am on the sofa's day ({due}): {reminders:?}"
    );
    imprint.kill().await;
}
