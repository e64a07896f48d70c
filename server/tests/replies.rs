//! The reply engine and the chat API through real HTTP with the stand-in.

mod support;

use app::protocol::tool_names::{ASK_USER, SEARCH, STORE};
use futures::StreamExt;
use serde_json::{json, Value};
use support::*;

#[tokio::test]
async fn a_reply_streams_tokens_then_the_answer_and_is_stored() {
    let server = TestServer::start(
        vec![scenario(
            "hello",
            vec![Turn::chunks(&["Hi ", "there", "!"])],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "hello\nsecond line").await;
    assert_eq!(
        types(&events),
        ["token", "token", "token", "assistant_message", "done"]
    );
    assert_eq!(streamed_text(&events), "Hi there!");
    assert_eq!(events[3]["text"], "Hi there!");
    assert_eq!(events[3]["html"], "<p>Hi there!</p>\n");

    let session = server.session(&sid).await;
    assert_eq!(
        session["title"], "hello",
        "the first line of the first message"
    );
    assert_eq!(session["reply"], serde_json::Value::Null);
    let messages = session["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        (messages[0]["role"].as_str(), messages[0]["seq"].as_i64()),
        (Some("user"), Some(1))
    );
    assert_eq!(messages[1]["content"], "Hi there!");
    assert_eq!(messages[1]["html"], "<p>Hi there!</p>\n");
    assert!(
        messages[0].get("html").is_none(),
        "only assistant messages are rendered"
    );
    let (_, list) = server.get("/api/chat/sessions").await;
    assert_eq!(list["sessions"][0]["message_count"], 2);
}

#[tokio::test]
async fn the_answer_and_history_carry_safe_html_rendered_by_the_server() {
    let markdown = "**Bold** and [ok](https://example.org) [bad](javascript:alert(1))\n\n\
                    <script>alert(1)</script>\n\n![pixel](https://tracker.example/p.gif)";
    let server = TestServer::start(
        vec![scenario("render", vec![Turn::chunks(&[markdown])])],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "render it").await;
    let answer = events
        .iter()
        .find(|e| e["type"] == "assistant_message")
        .expect("an answer");
    let html = answer["html"].as_str().expect("the answer's html");
    assert!(html.contains("<strong>Bold</strong>"), "{html}");
    assert!(html.contains("href=\"https://example.org\""), "{html}");
    assert!(!html.contains("javascript"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
    assert!(!html.contains("<img"), "{html}");

    let session = server.session(&sid).await;
    let stored = &session["messages"][1];
    assert_eq!(stored["role"], "assistant");
    assert_eq!(
        stored["html"].as_str(),
        Some(html),
        "history renders the same"
    );
}

#[tokio::test]
async fn the_stream_replays_to_late_watchers_and_resumes_after_an_id() {
    let mut stalled = Turn::chunks(&["a", "b", "c"]);
    stalled.stall = true;
    let server = TestServer::start(vec![scenario("slow", vec![stalled])], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "slow please").await;
    let mut first = server.watch(&sid, None).await;
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(first.next().await.unwrap());
    }
    assert_eq!(
        seen.iter().map(|e| e.id.unwrap()).collect::<Vec<_>>(),
        [1, 2, 3]
    );

    let mut late = server.watch(&sid, None).await;
    for expected in &seen {
        let replayed = late.next().await.unwrap();
        assert_eq!((replayed.id, &replayed.data), (expected.id, &expected.data));
    }
    let mut resumed = server.watch(&sid, Some(1)).await;
    assert_eq!(resumed.next().await.unwrap().id, Some(2));

    let (status, _) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 200);
    for stream in [&mut first, &mut late] {
        let rest = stream.all_with_ids().await;
        let kinds: Vec<_> = rest
            .iter()
            .map(|e| e.data["type"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(kinds, ["stopped", "done"]);
        assert_eq!(rest.last().unwrap().id, Some(5));
    }
}

#[tokio::test]
async fn a_late_watcher_gets_the_backlog_in_one_write_with_every_frame_whole_and_in_order() {
    let mut stalled = Turn::chunks(&["a", "b", "c"]);
    stalled.stall = true;
    let server = TestServer::start(vec![scenario("slow", vec![stalled])], &[]).await;
    let sid = server.create_session().await;
    let reply_id = server.say(&sid, "slow please").await;
    server.watch(&sid, None).await.until("token").await;
    let mut live = server.watch(&sid, None).await;
    for _ in 0..3 {
        live.next().await.unwrap();
    }

    let url = format!(
        "{}/api/chat/sessions/{sid}/reply?reply_id={reply_id}",
        server.url
    );
    let response = server.http.get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let token = |id: u64, text: &str| {
        format!("id: {id}\ndata: {{\"type\":\"token\",\"text\":\"{text}\"}}\n\n")
    };
    let backlog = [token(1, "a"), token(2, "b"), token(3, "c")].concat();
    // Written at once: one chunk on the wire (loopback keeps a small
    // write whole), the frames inside it whole and in order.
    let first = body.next().await.unwrap().unwrap();
    assert_eq!(String::from_utf8_lossy(&first), backlog);

    let (status, _) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 200);
    let mut rest = Vec::new();
    while let Some(chunk) = body.next().await {
        rest.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(
        String::from_utf8_lossy(&rest),
        "id: 4\ndata: {\"type\":\"stopped\"}\n\nid: 5\ndata: {\"type\":\"done\"}\n\n",
        "nothing but whole frames, no keep-alive, and the stream ends after done"
    );
    let mut reader = imprint::sse::SseMessages::default();
    let mut messages = reader.push(first.as_ref());
    messages.extend(reader.push(&rest));
    assert_eq!(reader.finish(), None);
    let ids: Vec<_> = messages.iter().map(|m| m.id.clone().unwrap()).collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5"]);
    let from_live: Vec<_> = live
        .all_with_ids()
        .await
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(
        from_live,
        [Some(4), Some(5)],
        "the live watcher gets the same"
    );
}

#[tokio::test]
async fn stop_ends_a_reply_mid_stream_keeps_its_text_and_aborts_the_model() {
    let mut stalled = Turn::chunks(&["Partial answer"]);
    stalled.stall = true;
    let server = TestServer::start(vec![scenario("stall", vec![stalled])], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "stall here").await;
    let mut events = server.watch(&sid, None).await;
    events.until("token").await;

    let (status, body) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!((status, body), (200, json!({"ok": true})));
    assert_eq!(types(&events.until_done().await), ["stopped", "done"]);
    server.standin.wait_for_aborts(1).await;

    let session = server.session(&sid).await;
    assert_eq!(session["reply"], serde_json::Value::Null);
    let last = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (last["role"].as_str(), last["content"].as_str()),
        (Some("assistant"), Some("Partial answer"))
    );
    assert_eq!(last["ended"], "stopped");
    let (status, _) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 404, "no reply is being written any more");
}

#[tokio::test]
async fn one_reply_per_session_at_a_time() {
    let mut stalled = Turn::text("…");
    stalled.stall = true;
    let server = TestServer::start(vec![scenario("busy", vec![stalled])], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "busy").await;
    let (status, body) = server
        .post(
            &format!("/api/chat/sessions/{sid}/messages"),
            json!({"message": "again"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("already"));
    let other = server.create_session().await;
    let other_reply = server.say(&other, "something else").await;
    server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    server
        .watch_reply(&other, &other_reply)
        .await
        .until_done()
        .await;
}

#[tokio::test]
async fn every_call_of_a_turn_runs_in_order_and_is_stored() {
    let server = TestServer::start(
        vec![scenario(
            "remember",
            vec![
                Turn::calls(&[
                    (
                        STORE,
                        json!({"content": "Anna's birthday is on 3 March", "project": "Family"}),
                    ),
                    (SEARCH, json!({"query": "birthday"})),
                ]),
                Turn::text("Saved, and I found it again."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "remember Anna's birthday, for the Family project")
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
    assert_eq!(events[0]["name"], STORE);
    assert_eq!(events[2]["name"], SEARCH);
    assert!(events[3]["result"]
        .as_str()
        .unwrap()
        .contains("Anna's birthday is on 3 March"));

    let requests = server.standin.requests_for("remember");
    assert_eq!(requests.len(), 2);
    let second = requests[1]["messages"].as_array().unwrap();
    let results: Vec<_> = second.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(results.len(), 2, "both results went back to the model");
    assert!(results[0]["content"]
        .as_str()
        .unwrap()
        .starts_with("Stored memory"));

    let session = server.session(&sid).await;
    let roles: Vec<_> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(roles, ["user", "tool", "tool", "assistant"]);
    assert_eq!(session["messages"][1]["tool_name"], STORE);
    assert_eq!(session["messages"][1]["tool_args"]["project"], "Family");
}

#[tokio::test]
async fn research_ends_in_a_reserved_answer_at_the_iteration_cap() {
    let server = TestServer::start(
        vec![scenario(
            "dig",
            vec![
                Turn::call(SEARCH, json!({"query": "fact one"})),
                Turn::call(SEARCH, json!({"query": "fact two"})),
                Turn::text("From what I found: two facts."),
            ],
        )],
        &["--max-tool-iters", "2"],
    )
    .await;
    let sid = server.create_session().await;
    // Reads: a write the request asked for would end research by itself.
    let events = server.converse(&sid, "dig deep for the facts").await;
    assert_eq!(
        events[events.len() - 2]["text"],
        "From what I found: two facts."
    );
    let requests = server.standin.requests_for("dig");
    assert_eq!(requests.len(), 3);
    assert!(requests[0].get("tools").is_some() && requests[1].get("tools").is_some());
    assert!(
        requests[2].get("tools").is_none(),
        "the reserved answer offers no tools"
    );
    let note = requests[2]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(note.contains("Answer the user now"), "{note}");
}

#[tokio::test]
async fn research_ends_when_turns_make_no_progress() {
    // Different searches each turn (a repeated one would not even run).
    let search = |query: &str| Turn::call(SEARCH, json!({"query": query}));
    let server = TestServer::start(
        vec![scenario(
            "loop",
            vec![
                search("nothing here"),
                search("nothing there"),
                search("still nothing"),
                Turn::text("Nothing found."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "loop forever").await;
    assert_eq!(events[events.len() - 2]["text"], "Nothing found.");
    let requests = server.standin.requests_for("loop");
    assert_eq!(requests.len(), 4);
    assert!(requests[3].get("tools").is_none());
}

#[tokio::test]
async fn research_ends_at_the_deadline() {
    // The search would come long after the budget.
    let mut slow = Turn::call(SEARCH, json!({"query": "x"}));
    slow.chunks = vec!["Looking.".into()];
    slow.delay_ms = 3_000;
    let server = TestServer::start(
        vec![scenario(
            "hurry",
            vec![slow, Turn::text("Out of time; here is what I have.")],
        )],
        &["--research-budget-s", "1"],
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "hurry up").await;
    assert_eq!(
        events[events.len() - 2]["text"],
        "Out of time; here is what I have."
    );
    assert!(!types(&events).contains(&"tool_call".to_string()));
    assert_answered_when_research_time_was_up(&server.standin.requests_for("hurry"));
}

/// The last request is the answer, without tools; any before it was
/// research. (On a starved machine the budget can run out before the
/// first request: then the answer is the only one.)
fn assert_answered_when_research_time_was_up(requests: &[Value]) {
    let (answer, research) = requests.split_last().expect("a request");
    assert!(answer.get("tools").is_none(), "{answer}");
    assert!(
        answer.to_string().contains("Research time is up"),
        "{answer}"
    );
    assert!(research.len() <= 1, "{research:?}");
    assert!(research.iter().all(|r| r.get("tools").is_some()));
}

#[tokio::test]
async fn a_turn_still_writing_at_the_deadline_is_dropped_for_the_answer() {
    // Hidden call markup, then nothing: the model writes on (as a small
    // model can, for minutes, up to its token limit) and shows nothing.
    let mut stalled =
        Turn::chunks(&["<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": "]);
    stalled.stall = true;
    let server = TestServer::start(
        vec![scenario(
            "dawdle",
            vec![stalled, Turn::text("Here is what I have.")],
        )],
        &["--research-budget-s", "1"],
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "dawdle please").await;
    assert_eq!(events[events.len() - 2]["text"], "Here is what I have.");
    assert!(!types(&events).contains(&"tool_call".to_string()));
    assert_answered_when_research_time_was_up(&server.standin.requests_for("dawdle"));
    let session = server.session(&sid).await;
    let last = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "Here is what I have.");
    assert!(!last["content"].as_str().unwrap().contains("tool_call"));
}

/// Runs a reply that fails in a new session; returns the session and the
/// error the dashboard was told. A failing reply can end before a watcher
/// connects, so its end is read from the dashboard's stream (subscribed
/// before the message is sent).
async fn failing_reply(server: &TestServer, trigger: &str) -> (String, String) {
    let mut dashboard = server.dashboard_events().await;
    let sid = server.create_session().await;
    server.say(&sid, trigger).await;
    let finished = loop {
        let event = dashboard.until("reply_finished").await.pop().unwrap();
        if event["session_id"] == sid.as_str() {
            break event;
        }
    };
    assert_eq!(finished["outcome"], "error");
    let message = finished["error"].as_str().unwrap().to_string();
    let session = server.session(&sid).await;
    assert_eq!(session["reply"], serde_json::Value::Null);
    assert_eq!(
        session["messages"][0]["role"], "user",
        "the question is kept"
    );
    (sid, message)
}

#[tokio::test]
async fn model_failures_end_the_reply_with_an_error_and_leave_the_session_usable() {
    let status = Turn {
        status: Some(503),
        ..Turn::default()
    };
    let garbage = Turn {
        garbage: true,
        chunks: vec!["half".into()],
        ..Turn::default()
    };
    let stall = Turn {
        stall: true,
        ..Turn::default()
    };
    let server = TestServer::start(
        vec![
            scenario("overloaded", vec![status]),
            scenario("garbled", vec![garbage]),
        ],
        &[],
    )
    .await;
    let (_, message) = failing_reply(&server, "overloaded").await;
    assert!(
        message.contains("503") && message.contains("scripted failure"),
        "{message}"
    );
    let (_, message) = failing_reply(&server, "garbled").await;
    assert!(message.contains("cannot read"), "{message}");

    // The session whose reply failed takes the next message.
    let (sid, _) = failing_reply(&server, "overloaded").await;
    let events = server.converse(&sid, "fine now").await;
    assert_eq!(events[events.len() - 2]["text"], "You said: fine now");

    // A model that stops sending, on a server of its own: its short idle
    // timeout covers no healthy reply.
    let stalling = TestServer::start(
        vec![scenario("stuck", vec![stall])],
        &["--model-idle-timeout-s", "0.3"],
    )
    .await;
    let (_, message) = failing_reply(&stalling, "stuck").await;
    assert!(message.contains("stopped sending"), "{message}");
}

#[tokio::test]
async fn an_unreachable_model_is_an_error_not_a_panic() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let standin = StandIn::start(vec![]).await;
    let server = TestServer::start_with(
        standin,
        &["--chat-provider", "vllm", "--chat-base-url", &closed],
        &[],
    )
    .await;
    let (_, status) = server.get("/api/chat/status").await;
    assert_eq!(status["ready"], false);
    assert!(status["hint"]
        .as_str()
        .unwrap()
        .contains("IMPRINT_CHAT_PROVIDER"));
    let (_, message) = failing_reply(&server, "anyone there?").await;
    assert!(message.contains("cannot be reached"), "{message}");
}

#[tokio::test]
async fn hermes_markup_split_across_chunks_becomes_a_tool_call_never_text() {
    let markup = Turn::chunks(&[
        "Let me check. <tool",
        "_call>{\"name\": \"sea",
        "rch\", \"arguments\": {\"query\": \"tea\"}}</tool_",
        "call>",
    ]);
    let server = TestServer::start_with_format(
        vec![scenario("tea", vec![markup, Turn::text("No tea notes.")])],
        "hermes",
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "any tea notes?").await;
    let text = streamed_text(&events);
    assert!(
        !text.contains("tool_call") && !text.contains("\"name\""),
        "markup leaked: {text:?}"
    );
    assert!(text.starts_with("Let me check."));
    let call = events.iter().find(|e| e["type"] == "tool_call").unwrap();
    assert_eq!(
        (call["name"].as_str(), call["args"]["query"].as_str()),
        (Some(SEARCH), Some("tea"))
    );
    let requests = server.standin.requests_for("tea");
    assert!(
        requests[0].get("tools").is_none(),
        "markup formats describe tools in the prompt"
    );
    assert!(requests[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("<tool_call>"));
    assert!(requests[1]["messages"]
        .to_string()
        .contains("<tool_response>"));
}

#[tokio::test]
async fn tool_format_none_offers_no_tools() {
    let server = TestServer::start_with_format(vec![], "none").await;
    let sid = server.create_session().await;
    server.converse(&sid, "plain").await;
    let request = &server.standin.requests()[0];
    assert!(request.get("tools").is_none());
    assert!(!request["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains(ASK_USER));
}

#[tokio::test]
async fn a_waiting_writer_takes_the_slot_in_turn() {
    let mut holder = Turn::text("holding");
    holder.stall = true;
    let server = TestServer::start(
        vec![scenario("hold", vec![holder])],
        &["--writing-slots", "1"],
    )
    .await;
    let (a, b) = (server.create_session().await, server.create_session().await);
    server.say(&a, "hold the slot").await;
    server.standin.wait_for_requests(1).await;
    server.say(&b, "next in line").await;
    let mut b_events = server.watch(&b, None).await;
    let mut a_events = server.watch(&a, None).await;
    a_events.until("token").await;
    assert_eq!(server.standin.requests().len(), 1, "b waits for the slot");
    server
        .post(&format!("/api/chat/sessions/{a}/stop"), json!({}))
        .await;
    let events = b_events.until_done().await;
    assert_eq!(events[events.len() - 2]["text"], "You said: next in line");
    assert_eq!(server.standin.requests().len(), 2);
}

#[tokio::test]
async fn deleting_a_session_stops_its_reply_first() {
    let mut stalled = Turn::text("…");
    stalled.stall = true;
    let server = TestServer::start(vec![scenario("forever", vec![stalled])], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "forever").await;
    let mut events = server.watch(&sid, None).await;
    events.until("token").await;
    let response = server
        .http
        .delete(format!("{}/api/chat/sessions/{sid}", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(types(&events.until_done().await), ["stopped", "done"]);
    let (status, _) = server.get(&format!("/api/chat/sessions/{sid}")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_model_silent_after_a_search_shows_what_was_found() {
    let server = TestServer::start(
        vec![scenario(
            "birthday",
            vec![
                Turn::call(STORE, json!({"content": "Anna's birthday is on 3 March"})),
                Turn::call(SEARCH, json!({"query": "birthday"})),
                Turn::text(""),
            ],
        )],
        &[],
    )
    .await;
    // Only a search in this reply: the write was in another.
    let sid = server.create_session().await;
    server
        .converse(&sid, "remember: Anna's birthday is on 3 March")
        .await;
    server.standin.add(scenario(
        "when is",
        vec![
            Turn::call(SEARCH, json!({"query": "birthday"})),
            Turn::text(""),
        ],
    ));
    let events = server.converse(&sid, "when is Anna's birthday?").await;
    let answer = &events[events.len() - 2];
    assert_eq!(answer["type"], "assistant_message", "{events:?}");
    let text = answer["text"].as_str().unwrap();
    assert!(
        text.starts_with("Here is what I found in your memories:"),
        "{text}"
    );
    assert!(text.contains("Anna's birthday is on 3 March"), "{text}");
}
