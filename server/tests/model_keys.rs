//! A model server that says the key back (in an error or a reply),
//! redirects, or sends an endless error: the key never reaches a response
//! or the database, a redirect is never followed, and an error body is
//! read only so far.

mod support;

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};
use support::*;

/// 100 characters: clipping at 300 before hiding showed most of it.
fn key() -> String {
    format!("sk-{}", "AbCdEfGhIj0123456789".repeat(5))
        .chars()
        .take(100)
        .collect()
}

/// How a fake model server answers `POST /v1/chat/completions`.
#[derive(Clone, Copy)]
enum Answer {
    /// 401 with the key said back after 279 characters: clipped at 300 before
    /// hiding, 21 of its characters showed.
    EchoKey,
    /// A streamed reply that says the Authorization header back.
    EchoHeader,
    /// A 200 streamed reply that says the key back in parts: one delta
    /// ends inside it, the next goes on.
    EchoKeyInParts,
    /// 307 to `target`.
    Redirect,
    /// 500 and an error body that never ends.
    Endless,
}

/// A fake model server on loopback; its requests' paths are recorded.
async fn fake(answer: Answer, target: Option<String>) -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let chat = move |headers: HeaderMap| {
        let log = log.clone();
        let target = target.clone();
        async move {
            log.lock().unwrap().push("chat".to_string());
            let auth = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            let given = auth.trim_start_matches("Bearer ").to_string();
            match answer {
                Answer::EchoKey => (
                    StatusCode::UNAUTHORIZED,
                    axum::Json(json!({"error": {"message": format!(
                        "{} Incorrect API key provided: {given}. You can find your key in your account.",
                        "x".repeat(250)
                    )}})),
                )
                    .into_response(),
                Answer::EchoHeader => {
                    let chunk = json!({"choices": [{"delta": {"content": format!("You sent {auth}")}, "finish_reason": null}]});
                    let end = json!({"choices": [{"delta": {}, "finish_reason": "stop"}]});
                    Response::builder()
                        .header("content-type", "text/event-stream")
                        .body(Body::from(format!(
                            "data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n"
                        )))
                        .unwrap()
                }
                Answer::EchoKeyInParts => {
                    let (a, b) = given.split_at(given.len() / 3);
                    let (b, c) = b.split_at(b.len() / 2);
                    let parts = ["Your key is ", a, b, c, " and all is well."];
                    let mut body = String::new();
                    for part in parts {
                        let chunk = json!({"choices": [{"delta": {"content": part}, "finish_reason": null}]});
                        body.push_str(&format!("data: {chunk}\n\n"));
                    }
                    let end = json!({"choices": [{"delta": {}, "finish_reason": "stop"}]});
                    body.push_str(&format!("data: {end}\n\ndata: [DONE]\n\n"));
                    Response::builder()
                        .header("content-type", "text/event-stream")
                        .body(Body::from(body))
                        .unwrap()
                }
                Answer::Redirect => Response::builder()
                    .status(307)
                    .header("location", target.unwrap_or_default())
                    .body(Body::empty())
                    .unwrap(),
                Answer::Endless => {
                    let chunk = bytes::Bytes::from(vec![b'e'; 64 * 1024]);
                    let stream = futures::stream::repeat_with(move || {
                        Ok::<_, std::io::Error>(chunk.clone())
                    });
                    Response::builder()
                        .status(500)
                        .body(Body::from_stream(stream))
                        .unwrap()
                }
            }
        }
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route(
            "/v1/models",
            get(|| async { axum::Json(json!({"data": [{"id": "fake"}]})) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), seen)
}

async fn served_by(base_url: &str, key: &str) -> TestServer {
    let standin = StandIn::start(vec![]).await;
    let model = [
        "--chat-provider",
        "openai",
        "--chat-base-url",
        base_url,
        "--chat-model",
        "fake",
        "--chat-api-key",
        key,
    ];
    TestServer::start_with(standin, &model, &[]).await
}

/// No run of 8 characters of `key` in `text`.
fn assert_hidden(text: &str, key: &str) {
    for start in 0..=key.len() - 8 {
        assert!(
            !text.contains(&key[start..start + 8]),
            "a part of the key at {start} shows in: {text}"
        );
    }
}

/// The key said back reached neither the reply's events nor the stored
/// session (which says `[key]` in its place) nor the database files.
async fn assert_kept_from_page_and_database(
    server: &TestServer,
    sid: &str,
    events: &[Value],
    key: &str,
) {
    assert_hidden(&Value::Array(events.to_vec()).to_string(), key);
    let session = server.session(sid).await;
    assert!(session.to_string().contains("[key]"), "{session}");
    assert_hidden(&session.to_string(), key);
    // The database file itself.
    let db = std::fs::read(server.data_path().join("imprint.sqlite3")).unwrap_or_default();
    let wal = std::fs::read(server.data_path().join("imprint.sqlite3-wal")).unwrap_or_default();
    for bytes in [db, wal] {
        assert_hidden(&String::from_utf8_lossy(&bytes), key);
    }
}

#[tokio::test]
async fn a_key_said_back_in_an_error_reaches_neither_the_page_nor_the_database() {
    let key = key();
    let (base_url, _) = fake(Answer::EchoKey, None).await;
    let server = served_by(&base_url, &key).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "hello").await;
    let error = events
        .iter()
        .find(|e| e["type"] == "error")
        .expect("an error event");
    assert!(error["error"].as_str().unwrap().contains("401"), "{error}");
    assert_kept_from_page_and_database(&server, &sid, &events, &key).await;
}

#[tokio::test]
async fn a_key_said_back_in_a_reply_reaches_neither_the_page_nor_the_database() {
    let key = key();
    let (base_url, _) = fake(Answer::EchoKeyInParts, None).await;
    let server = served_by(&base_url, &key).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "hello").await;
    let streamed: String = events
        .iter()
        .filter(|e| e["type"] == "token")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(streamed, "Your key is [key] and all is well.", "{events:?}");
    let answer = events
        .iter()
        .find(|e| e["type"] == "assistant_message")
        .expect("an answer");
    assert_eq!(answer["text"], "Your key is [key] and all is well.");
    assert_kept_from_page_and_database(&server, &sid, &events, &key).await;
}

#[tokio::test]
async fn the_model_pages_test_hides_a_key_said_back() {
    let key = key();
    let (base_url, _) = fake(Answer::EchoHeader, None).await;
    let server = served_by(&base_url, "sk-unused-configured-key-0000").await;
    let choice = json!({"provider": "vllm", "base_url": base_url, "model": "fake", "api_key": key});
    let (status, result) = server.post("/api/connections/test", choice).await;
    assert_eq!(status, 200, "{result}");
    assert!(
        result["reply"].as_str().unwrap().contains("[key]"),
        "{result}"
    );
    assert_hidden(&result.to_string(), &key);

    let (base_url, _) = fake(Answer::EchoKey, None).await;
    let choice = json!({"provider": "vllm", "base_url": base_url, "model": "fake", "api_key": key});
    let (_, result) = server.post("/api/connections/test", choice).await;
    assert_eq!(result["ok"], false, "{result}");
    assert_hidden(&result.to_string(), &key);
}

#[tokio::test]
async fn a_redirect_is_not_followed_with_the_conversation() {
    let (elsewhere, seen_elsewhere) = fake(Answer::EchoHeader, None).await;
    let (base_url, _) = fake(
        Answer::Redirect,
        Some(format!("{elsewhere}/chat/completions")),
    )
    .await;
    let server = served_by(&base_url, "sk-redirected-key-0123456789").await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "my secret conversation").await;
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "error" && e["error"].as_str().unwrap().contains("307")),
        "{events:?}"
    );
    assert!(seen_elsewhere.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_endless_error_body_is_read_only_so_far() {
    let (base_url, _) = fake(Answer::Endless, None).await;
    let server = served_by(&base_url, "sk-endless-key-0123456789").await;
    let sid = server.create_session().await;
    // Read whole, this reply would never end.
    let events = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        server.converse(&sid, "hello"),
    )
    .await
    .expect("the reply ends");
    let error = events
        .iter()
        .find(|e| e["type"] == "error")
        .expect("an error event");
    assert!(error["error"].as_str().unwrap().contains("500"), "{error}");
    assert!(error.to_string().len() < 1000, "{error}");
}
