//! Benchmark (issue 17): how long a person waits for the first word of a
//! reply from the built-in local model, against the model's own floor.
//! Prints figures; asserts nothing. Run with
//!
//! ```sh
//! scripts/local-model.sh ensure
//! cargo run --release -p imprint --example bench_first_token [CHATS]
//! ```
//!
//! (`CHATS` per case, default 10.)
//!
//! # Method
//!
//! - The model: `scripts/local-model.sh start PORT` (its flags are the
//!   product's), read through a pass-through proxy in this process that
//!   records, for every chat request, the `timings` llama-server puts in
//!   its last streamed chunk: `prompt_n` is the prompt tokens evaluated
//!   for it (the rest came from the cache, `cache_n`). The proxy adds one
//!   loopback hop (well under a millisecond).
//! - Imprint: the library's server (`imprint::serve::start`, the code the
//!   binary runs) in this process with a temporary data dir, on the proxy,
//!   with its defaults for the `local` provider. In process, so the third
//!   case can move the reply clock a minute on (`Engine::clock`) rather
//!   than wait a real minute.
//! - First token: from just before `POST …/messages` to the first `token`
//!   or `tool_call` event of the reply's stream; each reply is then read to
//!   its `done`, so replies never overlap.
//! - The floor: the bare question, alone (no system prompt, no tools),
//!   streamed straight to llama-server with `cache_prompt: false`, to its
//!   first content: what the model itself needs to read the question and
//!   write a word. It runs first, so its slot holds nothing of Imprint's.
//! - Cases, `CHATS` new chats each, run in this order:
//!   1. new chat: "What is the capital of Japan?";
//!   2. second message: a new chat gets the question above (read to its
//!      end, not timed), then "And of France?" is timed;
//!   3. a minute later: as 1, with Imprint's clock set to 61 s after the
//!      previous chat's before each chat.
//!
//!   For each: p50, p95 and max of the first token, the ratio p50 /
//!   floor p50, and the prompt tokens evaluated by each model request of
//!   the timed message (`first request` is the one that yields the first
//!   token).

#[path = "bench_support/mod.rs"]
mod bench_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use bench_support::{ms, Samples, SseReader};
use clap::Parser;
use futures::StreamExt;
use serde_json::{json, Value};

const QUESTION: &str = "What is the capital of Japan?";
const FOLLOW_UP: &str = "And of France?";

/// What llama-server said it did for one chat request.
#[derive(Clone, Copy, Debug, Default)]
struct Timing {
    /// Prompt tokens evaluated.
    prompt_n: u64,
    /// Prompt tokens taken from the cache.
    cache_n: u64,
    prompt_ms: f64,
}

/// The pass-through proxy's state: where to forward, and the timings read.
#[derive(Clone)]
struct Proxy {
    upstream: String,
    http: reqwest::Client,
    timings: Arc<Mutex<Vec<Timing>>>,
}

#[tokio::main]
async fn main() {
    let chats: usize = std::env::args()
        .nth(1)
        .map_or(10, |a| a.parse().expect("CHATS"));
    println!(
        "bench_first_token (load average {}, {} chats per case)",
        bench_support::load_average(),
        chats
    );
    let (_model, model_url) = bench_support::start_local_model().await;
    let proxy = Proxy {
        upstream: model_url.clone(),
        http: reqwest::Client::new(),
        timings: Arc::new(Mutex::new(Vec::new())),
    };
    let proxy_url = serve_proxy(proxy.clone()).await;

    let http = reqwest::Client::new();
    // A new connection for each bare question: llama-server closes idle
    // ones after 5 s, and a pooled one it is closing fails the request.
    let fresh = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("an HTTP client");
    let floor = floor(&fresh, &model_url, chats).await;
    println!(
        "floor (bare question to llama-server): p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
        floor.pct(50.0),
        floor.pct(95.0),
        floor.max()
    );

    let data = tempfile::tempdir().expect("a temporary dir");
    let data_dir = data.path().to_str().expect("utf-8 path").to_string();
    let base_url = format!("{proxy_url}/v1");
    let config = imprint::config::Config::try_parse_from([
        "imprint",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &data_dir,
        "--dist-dir",
        "/nonexistent",
        "--chat-provider",
        "local",
        "--chat-base-url",
        &base_url,
    ])
    .expect("a valid configuration");
    config.validate().expect("a valid configuration");
    let running = imprint::serve::start(config).await.expect("imprint starts");
    let url = format!("http://{}", running.addr);
    let clock = running.engine.clock().clone();

    let mut results = Vec::new();
    for case in [Case::NewChat, Case::SecondMessage, Case::MinuteLater] {
        let mut firsts = Vec::new();
        let mut evaluated = Vec::new();
        let mut at = chrono::Local::now();
        for _ in 0..chats {
            let sid = bench_support::new_session(&http, &url).await;
            let text = match case {
                Case::SecondMessage => {
                    send(&http, &url, &sid, QUESTION).await;
                    FOLLOW_UP
                }
                Case::MinuteLater => {
                    at += chrono::Duration::seconds(61);
                    clock.set(at);
                    QUESTION
                }
                Case::NewChat => QUESTION,
            };
            let before = proxy.timings.lock().unwrap().len();
            let (first, _) = send(&http, &url, &sid, text).await;
            let timings = proxy.timings.lock().unwrap()[before..].to_vec();
            firsts.push(ms(first));
            evaluated.push(timings);
        }
        results.push((case, Samples::new(firsts), evaluated));
    }

    println!();
    println!(
        "{:<16} {:>8} {:>8} {:>8} {:>12}  prompt tokens evaluated (cached) per request, by chat",
        "case", "p50 ms", "p95 ms", "max ms", "p50 / floor"
    );
    for (case, firsts, evaluated) in &results {
        println!(
            "{:<16} {:>8.0} {:>8.0} {:>8.0} {:>12.1}",
            case.name(),
            firsts.pct(50.0),
            firsts.pct(95.0),
            firsts.max(),
            firsts.pct(50.0) / floor.pct(50.0)
        );
        for (index, timings) in evaluated.iter().enumerate() {
            let shown: Vec<String> = timings
                .iter()
                .map(|t| format!("{} ({}) {:.0} ms", t.prompt_n, t.cache_n, t.prompt_ms))
                .collect();
            println!("    chat {:>2}: {}", index + 1, shown.join(" · "));
        }
    }
    println!(
        "\nload average at the end: {}",
        bench_support::load_average()
    );
    running.shutdown.cancel();
    let _ = running.task.await;
}

#[derive(Clone, Copy)]
enum Case {
    NewChat,
    SecondMessage,
    MinuteLater,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::NewChat => "new chat",
            Case::SecondMessage => "second message",
            Case::MinuteLater => "a minute later",
        }
    }
}

/// Posts a message and reads its reply to the end: the time to the first
/// `token` or `tool_call` event, and to `done`.
async fn send(http: &reqwest::Client, url: &str, sid: &str, text: &str) -> (Duration, Duration) {
    let started = Instant::now();
    let mut events = bench_support::say(http, url, sid, text).await;
    let mut first = None;
    while let Some(event) = events.next().await {
        match event["type"].as_str() {
            Some("token") | Some("tool_call") if first.is_none() => {
                first = Some(started.elapsed());
            }
            Some("done") => break,
            _ => {}
        }
    }
    let total = started.elapsed();
    (first.unwrap_or(total), total)
}

/// The bare question to llama-server, `chats` times: to its first content.
async fn floor(http: &reqwest::Client, model_url: &str, chats: usize) -> Samples {
    let mut samples = Vec::new();
    for _ in 0..chats {
        let started = Instant::now();
        let response = http
            .post(format!("{model_url}/v1/chat/completions"))
            .json(&json!({
                "messages": [{"role": "user", "content": QUESTION}],
                "stream": true,
                "max_tokens": 32,
                "cache_prompt": false,
            }))
            .send()
            .await
            .expect("the model answers");
        let mut events = SseReader::new(response);
        let mut first = None;
        while let Some(chunk) = events.next_raw().await {
            if chunk == "[DONE]" {
                break;
            }
            let chunk: Value = serde_json::from_str(&chunk).expect("a JSON chunk");
            let content = chunk
                .pointer("/choices/0/delta/content")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if first.is_none() && !content.is_empty() {
                first = Some(started.elapsed());
            }
        }
        samples.push(ms(first.expect("the model wrote something")));
    }
    Samples::new(samples)
}

/// Serves the proxy on a free loopback port; its URL.
async fn serve_proxy(proxy: Proxy) -> String {
    let app = axum::Router::new().fallback(forward).with_state(proxy);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// Forwards one request to llama-server and streams its answer back,
/// noting the `timings` of every streamed chat answer.
async fn forward(State(proxy): State<Proxy>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let body = axum::body::to_bytes(request.into_body(), 1 << 24)
        .await
        .expect("a request body");
    let upstream = proxy
        .http
        .request(method, format!("{}{path}", proxy.upstream))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("llama-server answers");
    let status = upstream.status();
    let mut messages = imprint::sse::SseMessages::default();
    let timings = Arc::clone(&proxy.timings);
    let stream = upstream.bytes_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            for message in messages.push(bytes) {
                let Ok(value) = serde_json::from_str::<Value>(&message.data) else {
                    continue;
                };
                if let Some(t) = value.get("timings") {
                    let number = |k: &str| t[k].as_u64().unwrap_or(0);
                    timings.lock().unwrap().push(Timing {
                        prompt_n: number("prompt_n"),
                        cache_n: number("cache_n"),
                        prompt_ms: t["prompt_ms"].as_f64().unwrap_or(0.0),
                    });
                }
            }
        }
        chunk
    });
    Response::builder()
        .status(status.as_u16())
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .expect("a response")
}
