//! A scripted stand-in for a chat model: an OpenAI-compatible streaming
//! server that tests drive. Test support only, never part of the product.
//!
//! Stateless by design, so parallel tests share one: the reply is chosen
//! by the first scenario whose `trigger` occurs in the conversation's last
//! user message, and the turn by how many assistant messages follow it.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::watch;

/// One scripted conversation.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Scenario {
    pub trigger: String,
    pub turns: Vec<Turn>,
    /// Played for one request only, then forgotten: a later scenario with
    /// the same trigger answers the same conversation differently (a
    /// retry, say).
    #[serde(default)]
    pub once: bool,
}

/// One model turn.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Turn {
    /// Text streamed as content deltas, one chunk each.
    pub chunks: Vec<String>,
    /// Native tool calls (streamed as deltas, arguments split in two).
    pub calls: Vec<Call>,
    /// Delay before each chunk, in milliseconds.
    pub delay_ms: u64,
    /// After the chunks, keep the stream open and send nothing more.
    pub stall: bool,
    /// Answer with this HTTP status and an error body instead.
    pub status: Option<u16>,
    /// Send a line that is not JSON after the chunks.
    pub garbage: bool,
    /// Close the connection with neither a `finish_reason` nor `[DONE]`
    /// after the chunks, and after only the first half of each call: a
    /// stream cut off mid-answer.
    pub cut_off: bool,
    /// The `finish_reason` sent at the end (default `stop`).
    pub finish_reason: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Call {
    pub name: String,
    pub arguments: Value,
}

impl Turn {
    pub fn text(text: &str) -> Self {
        Self {
            chunks: vec![text.to_string()],
            ..Self::default()
        }
    }
    pub fn chunks(chunks: &[&str]) -> Self {
        Self {
            chunks: chunks.iter().map(|c| c.to_string()).collect(),
            ..Self::default()
        }
    }
    pub fn call(name: &str, arguments: Value) -> Self {
        Self::calls(&[(name, arguments)])
    }
    /// The model's `ask_user` call with these options.
    pub fn ask(question: &str, options: &[&str]) -> Self {
        Self::call(
            app::protocol::tool_names::ASK_USER,
            json!({"question": question, "options": options}),
        )
    }
    pub fn calls(calls: &[(&str, Value)]) -> Self {
        Self {
            calls: calls
                .iter()
                .map(|(name, arguments)| Call {
                    name: name.to_string(),
                    arguments: arguments.clone(),
                })
                .collect(),
            ..Self::default()
        }
    }
}

/// The model asks "Which project?" (Imprint or Billing), then answers
/// with `answer`: the ask scenario the tests and benchmarks share.
pub fn which_project(trigger: &str, answer: &str) -> Scenario {
    Scenario {
        trigger: trigger.into(),
        turns: vec![
            Turn::ask("Which project?", &["Imprint", "Billing"]),
            Turn::text(answer),
        ],
        once: false,
    }
}

#[derive(Default)]
struct Shared {
    scenarios: Mutex<Vec<Scenario>>,
    requests: Mutex<Vec<Value>>,
    /// The `Authorization` header of each chat request, in order.
    authorizations: Mutex<Vec<Option<String>>>,
}

/// A running stand-in.
#[derive(Clone)]
pub struct StandIn {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    /// Counts requests received; tests wait on it.
    requests_seen: watch::Receiver<usize>,
    /// Counts streams the client dropped before their end.
    aborted: watch::Receiver<usize>,
}

struct Counters {
    requests: watch::Sender<usize>,
    aborted: watch::Sender<usize>,
}

#[derive(Clone)]
struct AppState {
    shared: Arc<Shared>,
    counters: Arc<Counters>,
}

impl StandIn {
    /// Starts on a free loopback port.
    pub async fn start(scenarios: Vec<Scenario>) -> Self {
        Self::start_on("127.0.0.1:0".parse().unwrap(), scenarios).await
    }

    pub async fn start_on(addr: SocketAddr, scenarios: Vec<Scenario>) -> Self {
        let shared = Arc::new(Shared {
            scenarios: Mutex::new(scenarios),
            ..Shared::default()
        });
        let (requests_tx, requests_seen) = watch::channel(0);
        let (aborted_tx, aborted) = watch::channel(0);
        let state = AppState {
            shared: Arc::clone(&shared),
            counters: Arc::new(Counters {
                requests: requests_tx,
                aborted: aborted_tx,
            }),
        };
        let app = Router::new()
            .route("/v1/models", get(models))
            .route("/v1/chat/completions", post(completions))
            .route("/_scenarios", post(add_scenarios))
            .route("/_requests", get(list_requests))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            addr,
            shared,
            requests_seen,
            aborted,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Plays these scenarios from now on, instead of the earlier ones.
    pub fn replace(&self, scenarios: Vec<Scenario>) {
        *self.shared.scenarios.lock().unwrap() = scenarios;
    }

    pub fn add(&self, scenario: Scenario) {
        self.shared.scenarios.lock().unwrap().push(scenario);
    }

    /// Every chat request received so far (the JSON bodies).
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The `Authorization` header of every chat request so far.
    pub fn authorizations(&self) -> Vec<Option<String>> {
        self.shared.authorizations.lock().unwrap().clone()
    }

    /// Requests whose last real user message contains `trigger`.
    pub fn requests_for(&self, trigger: &str) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| last_user_message(r).contains(trigger))
            .collect()
    }

    /// Waits until at least `count` requests have arrived.
    pub async fn wait_for_requests(&self, count: usize) {
        let mut seen = self.requests_seen.clone();
        let _ = seen.wait_for(|n| *n >= count).await;
    }

    /// Waits until at least `count` streams were dropped by the client.
    pub async fn wait_for_aborts(&self, count: usize) {
        let mut aborted = self.aborted.clone();
        let _ = aborted.wait_for(|n| *n >= count).await;
    }

    pub fn aborted(&self) -> usize {
        *self.aborted.borrow()
    }
}

async fn models() -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": "standin", "object": "model"}]}))
}

async fn add_scenarios(
    State(state): State<AppState>,
    Json(scenarios): Json<Vec<Scenario>>,
) -> StatusCode {
    state.shared.scenarios.lock().unwrap().extend(scenarios);
    StatusCode::NO_CONTENT
}

async fn list_requests(State(state): State<AppState>) -> Json<Vec<Value>> {
    Json(state.shared.requests.lock().unwrap().clone())
}

/// The last message from the user, not counting tool responses written
/// as user messages or Imprint's own notes.
pub fn last_user_message(request: &Value) -> String {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .rev()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .find(|c| !c.starts_with("<tool_response>") && !c.starts_with("(Imprint:"))
        .unwrap_or_default()
}

/// How many assistant turns came after the last real user message.
fn turn_index(request: &Value) -> usize {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last_user = messages.iter().rposition(|m| {
        m["role"] == "user" && {
            let c = m["content"].as_str().unwrap_or_default();
            !c.starts_with("<tool_response>") && !c.starts_with("(Imprint:")
        }
    });
    match last_user {
        Some(i) => messages[i + 1..]
            .iter()
            .filter(|m| m["role"] == "assistant")
            .count(),
        None => 0,
    }
}

async fn completions(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    Json(request): Json<Value>,
) -> Response {
    let user = last_user_message(&request);
    let index = turn_index(&request);
    {
        let authorization = headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        state
            .shared
            .authorizations
            .lock()
            .unwrap()
            .push(authorization);
        state.shared.requests.lock().unwrap().push(request.clone());
    }
    state.counters.requests.send_modify(|n| *n += 1);
    let scenario = {
        let mut scenarios = state.shared.scenarios.lock().unwrap();
        let found = scenarios
            .iter()
            .position(|s| !s.trigger.is_empty() && user.contains(&s.trigger));
        match found {
            Some(i) if scenarios[i].once => Some(scenarios.remove(i)),
            Some(i) => Some(scenarios[i].clone()),
            None => None,
        }
    };
    let turn = match scenario {
        Some(s) => s
            .turns
            .get(index)
            .cloned()
            .unwrap_or_else(|| Turn::text("(the script has no more turns)")),
        None => Turn::text(&format!("You said: {user}")),
    };
    if let Some(status) = turn.status {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return (
            status,
            Json(json!({"error": {"message": format!("scripted failure {}", status.as_u16())}})),
        )
            .into_response();
    }
    if request["stream"] == json!(false) {
        // A whole reply (Imprint's constrained steps ask for one).
        if turn.stall {
            // Held until the client goes away (the handler is dropped).
            std::future::pending::<()>().await;
        }
        let content: String = turn.chunks.concat();
        let reason = turn.finish_reason.as_deref().unwrap_or("stop");
        return Json(json!({
            "id": "standin",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": reason}],
        }))
        .into_response();
    }
    let counters = Arc::clone(&state.counters);
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        let guard = AbortGuard {
            counters,
            finished: false,
        };
        stream_turn(turn, tx, guard).await;
    });
    let body = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx));
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(body)
        .unwrap()
}

/// Counts a stream the client dropped before its end.
struct AbortGuard {
    counters: Arc<Counters>,
    finished: bool,
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.counters.aborted.send_modify(|n| *n += 1);
        }
    }
}

fn chunk(delta: Value) -> Bytes {
    let body = json!({"id": "standin", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]});
    Bytes::from(format!("data: {body}\n\n"))
}

async fn stream_turn(
    turn: Turn,
    tx: tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>,
    mut guard: AbortGuard,
) {
    macro_rules! send {
        ($bytes:expr) => {
            if tx.send(Ok($bytes)).await.is_err() {
                return;
            }
        };
    }
    send!(chunk(json!({"role": "assistant"})));
    for text in &turn.chunks {
        if turn.delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(turn.delay_ms)).await;
        }
        send!(chunk(json!({"content": text})));
    }
    for (index, call) in turn.calls.iter().enumerate() {
        let args = call.arguments.to_string();
        let (first, second) = args.split_at(args.len() / 2);
        send!(chunk(
            json!({"tool_calls": [{"index": index, "id": format!("sc_{index}"), "type": "function", "function": {"name": call.name, "arguments": first}}]})
        ));
        if turn.cut_off {
            continue;
        }
        send!(chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": second}}]})
        ));
    }
    if turn.garbage {
        send!(Bytes::from_static(b"data: {this is not json\n\n"));
    }
    if turn.stall {
        // Hold the stream open until the client goes away.
        tx.closed().await;
        return;
    }
    if turn.cut_off {
        // The body ends here, as when a model server dies mid-answer.
        guard.finished = true;
        return;
    }
    let reason = turn.finish_reason.as_deref().unwrap_or("stop");
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]});
    send!(Bytes::from(format!("data: {end}\n\ndata: [DONE]\n\n")));
    guard.finished = true;
}
