//! How a reply that did not finish normally is kept and shown (SPEC §4's
//! `ended`): a stream cut off mid-answer in each tool format, a model at
//! its token limit, a failure, and the retry route that answers again.

mod support;

use serde_json::{json, Value};
use support::*;

fn cut_off(chunks: &[&str]) -> Turn {
    Turn {
        chunks: chunks.iter().map(|c| c.to_string()).collect(),
        cut_off: true,
        ..Turn::default()
    }
}

/// Some text, then a search call cut off half-written, as each format
/// writes calls.
fn cut_mid_call(format: &str) -> Turn {
    match format {
        "native" => Turn {
            calls: vec![standin::Call {
                name: "search".into(),
                arguments: json!({"query": "my notes on the garden"}),
            }],
            ..cut_off(&["Looking. "])
        },
        "hermes" => cut_off(&["Looking. ", "<tool_call>{\"name\": \"search\", \"argu"]),
        _ => cut_off(&[
            "Looking. ",
            "<tool_call><function=search><parameter=query>my no",
        ]),
    }
}

/// The last stored message of the session.
async fn last_message(server: &TestServer, sid: &str) -> Value {
    let session = server.session(sid).await;
    assert_eq!(session["reply"], Value::Null);
    session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn a_cut_off_stream_is_an_error_that_keeps_the_partial_text_in_every_format() {
    for format in ["native", "hermes", "qwen-xml"] {
        let server = TestServer::start_with_format(
            vec![
                scenario("story", vec![cut_off(&["w0 ", "w1"])]),
                // Cut off in the middle of a call: the call never runs and
                // its markup is never shown.
                scenario("notes", vec![cut_mid_call(format)]),
            ],
            format,
        )
        .await;
        let sid = server.create_session().await;
        let events = server.converse(&sid, "tell me a story").await;
        assert_eq!(
            types(&events),
            ["token", "token", "error", "done"],
            "{format}"
        );
        assert_eq!(events[2]["error"], "the model's answer was cut off");
        let kept = last_message(&server, &sid).await;
        assert_eq!(kept["role"], "assistant");
        assert_eq!(kept["content"], "w0 w1", "{format}");
        assert_eq!(kept["ended"], "cut_off", "{format}");

        let sid = server.create_session().await;
        let events = server.converse(&sid, "find my notes").await;
        assert!(
            !types(&events).contains(&"tool_call".to_string()),
            "{format}: {events:?}"
        );
        assert_eq!(streamed_text(&events), "Looking. ", "{format}");
        let kept = last_message(&server, &sid).await;
        assert_eq!(kept["content"], "Looking.");
        assert_eq!(kept["ended"], "cut_off");
        assert_eq!(
            server.standin.requests_for("find my notes").len(),
            1,
            "{format}: the cut-off call was not run"
        );
    }
}

#[tokio::test]
async fn an_answer_at_the_token_limit_is_the_answer_marked_length() {
    let at_limit = Turn {
        chunks: vec!["The list goes on and".into()],
        finish_reason: Some("length".into()),
        ..Turn::default()
    };
    let server = TestServer::start(vec![scenario("list", vec![at_limit])], &[]).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "list everything").await;
    assert_eq!(types(&events), ["token", "assistant_message", "done"]);
    assert_eq!(events[1]["text"], "The list goes on and");
    let kept = last_message(&server, &sid).await;
    assert_eq!(kept["content"], "The list goes on and");
    assert_eq!(kept["ended"], "length");
}

#[tokio::test]
async fn a_failed_reply_is_kept_with_its_error_and_its_partial_text() {
    let failing = Turn {
        status: Some(503),
        ..Turn::default()
    };
    let server = TestServer::start(
        vec![
            scenario("overloaded", vec![failing]),
            scenario(
                "half",
                vec![Turn {
                    chunks: vec!["half".into()],
                    garbage: true,
                    ..Turn::default()
                }],
            ),
        ],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "are you overloaded?").await;
    assert_eq!(types(&events), ["error", "done"]);
    let kept = last_message(&server, &sid).await;
    assert_eq!(kept["role"], "assistant");
    assert_eq!(kept["content"], "");
    assert_eq!(kept["ended"], "error");
    assert!(kept["error"].as_str().unwrap().contains("503"), "{kept}");

    let sid = server.create_session().await;
    server.converse(&sid, "only half").await;
    let kept = last_message(&server, &sid).await;
    assert_eq!(kept["content"], "half");
    assert_eq!(kept["ended"], "error");
    assert!(kept["error"].as_str().unwrap().contains("cannot read"));
    // The next message reads the conversation without the empty failure.
    let events = server.converse(&sid, "and now?").await;
    assert_eq!(events[events.len() - 2]["text"], "You said: and now?");
}

#[tokio::test]
async fn retry_answers_the_last_user_message_again_as_a_new_reply() {
    let server = TestServer::start(
        vec![scenario(
            "weather",
            vec![Turn {
                status: Some(500),
                ..Turn::default()
            }],
        )],
        &[],
    )
    .await;
    let retry = |sid: &str| format!("/api/chat/sessions/{sid}/retry");
    let (status, body) = server.post(&retry("no-such-session"), json!({})).await;
    assert_eq!(status, 404, "{body}");
    let sid = server.create_session().await;
    let (status, body) = server.post(&retry(&sid), json!({})).await;
    assert_eq!(
        (status, body["error"].is_string()),
        (404, true),
        "no message yet"
    );

    server.converse(&sid, "how is the weather?").await;
    assert_eq!(last_message(&server, &sid).await["ended"], "error");
    server
        .standin
        .replace(vec![scenario("weather", vec![Turn::text("Sunny.")])]);
    let (status, body) = server.post(&retry(&sid), json!({})).await;
    assert_eq!(status, 202, "{body}");
    let reply_id = body["reply_id"].as_str().unwrap().to_string();
    let events = server.watch_reply(&sid, &reply_id).await.until_done().await;
    assert_eq!(events[events.len() - 2]["text"], "Sunny.");

    let session = server.session(&sid).await;
    let roles: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles[..3], ["user", "assistant", "assistant"]);
    let sent = server.standin.requests_for("weather");
    let last = sent.last().unwrap()["messages"].as_array().unwrap().clone();
    assert_eq!(last.last().unwrap()["content"], "how is the weather?");
    assert_eq!(
        last.iter()
            .filter(|m| m["role"] == "user")
            .filter(|m| !m["content"].as_str().unwrap().starts_with("(Imprint:"))
            .count(),
        1,
        "the message is not stored or sent twice (Imprint's time note aside)"
    );
}

#[tokio::test]
async fn a_retry_while_a_reply_is_written_is_409() {
    let server = TestServer::start(
        vec![scenario(
            "slow",
            vec![Turn {
                chunks: vec!["thinking".into()],
                stall: true,
                ..Turn::default()
            }],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "a slow one").await;
    server.watch(&sid, None).await.until("token").await;
    let (status, body) = server
        .post(&format!("/api/chat/sessions/{sid}/retry"), json!({}))
        .await;
    assert_eq!(status, 409, "{body}");
    let (status, _) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 200);
}
