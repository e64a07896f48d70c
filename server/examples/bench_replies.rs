//! Benchmark (issue 3): the time a streamed token spends in Imprint, the
//! server's start time, and its idle memory. Prints figures; asserts
//! nothing. Run with
//!
//! ```sh
//! cargo build --release -p imprint --bin imprint   # for the start-time part
//! cargo run --release -p imprint --example bench_replies [TOKENS] [DELAY_MS]
//! ```
//!
//! # Token latency: method
//!
//! Everything runs in this process, on one clock (`Instant`): the
//! scripted stand-in model, a relay in front of it, the real server
//! (`imprint::serve::start`, pointed at the relay), and the readers.
//!
//! The stand-in streams `TOKENS` (default 2,000) content chunks, with a
//! `delay_ms` of `DELAY_MS` (default 1; tokio's timer makes that ~2 ms)
//! before each, each chunk's text a numbered mark `~000123~ `. The relay
//! forwards the stand-in's SSE response byte for byte (with `TCP_NODELAY`
//! on its side) and, as it hands each chunk on (when the next hop's
//! connection polls it), notes the instant of every mark in it:
//! `sent[k]`. The intervals between hand-offs are printed too, to show
//! the tokens reached the next hop paced, not in bursts. Each reader notes the
//! instant a chunk holding mark `k` arrives: `seen[k]`. A token's latency
//! is `seen[k] − sent[k]`, for:
//!
//! - **direct**: a client reading the stand-in's own SSE stream (through
//!   the relay): one loopback SSE hop, the floor any client sees;
//! - **through Imprint, 1 and 100 watchers**: Imprint reads the same stream
//!   from the relay (its model client: HTTP, SSE lines, JSON), publishes
//!   each token to the reply's event log, and every watcher of
//!   `GET /api/chat/sessions/{sid}/reply?reply_id=…` gets it as an SSE
//!   event over a second loopback hop.
//!
//! - **fan-out floor, 100 readers**: the relay reads one stand-in stream
//!   itself and hands each chunk, as it reads it, to 100 SSE readers of a
//!   minimal fan-out server (axum and hyper, `TCP_NODELAY`, a tokio
//!   broadcast channel; on the runtime Imprint runs on): what delivering
//!   a token to 100 loopback readers costs on this machine, with no
//!   Imprint in between.
//!
//! The relay's own cost is in both, so "added" (through Imprint − direct,
//! at the same percentile) is the time a token spends in Imprint, model →
//! watcher, including its second hop; "ratio" is through Imprint / direct.
//! With 100 watchers that also counts the fan-out itself (100 loopback
//! writes, 100 readers woken on the same two cores), which any server
//! pays: the target is also printed against the fan-out floor.
//! The watchers connect and read up to the reply's `question` event (the
//! script asks first) before the answer releases the tokens, so no token
//! is replayed to a late watcher. With 100 watchers every (token, watcher)
//! pair is a sample; "first of 100" and "last of 100" take, per token,
//! the watcher that got it first and the one that got it last (the
//! spread between them is the fan-out). A short warm-up run of each kind comes first and is not
//! counted.
//!
//! The stand-in and relay, Imprint (and the fan-out server), and the
//! readers each run on their own tokio runtime (1, 2 and 2 worker
//! threads), so the CPU each part uses during a run can be read per thread
//! from `/proc/self/task` and is printed per token ("server": Imprint, or
//! for the floor the fan-out server). They share the machine's cores: the readers' work
//! (100 streams to read) competes with Imprint's, as a browser's would on
//! the same machine.
//!
//! # Start time and idle memory
//!
//! `target/release/imprint` (or `IMPRINT_BIN`) is spawned with
//! `IMPRINT_ADDR=127.0.0.1:0`, a new temporary `IMPRINT_DATA_DIR` and a
//! missing `IMPRINT_DIST_DIR`; the time is from spawn to its stdout line
//! `imprint listening on http://…` (10 runs after one warm-up; also 10
//! restarts on an existing database). `VmRSS` of `/proc/PID/status` is read
//! right at that line, and again after one API request.

#[path = "../tests/support/standin.rs"]
mod standin;

mod bench_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;
use bench_support::{ms, Samples};
use clap::Parser;
use futures::StreamExt;
use serde_json::{json, Value};
use standin::{Scenario, StandIn, Turn};
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;

const WATCHERS: usize = 100;
const WARMUP_TOKENS: usize = 200;
const START_RUNS: usize = 10;
/// Chunks a fan-out reader may fall behind by (a whole run's worth).
const FANOUT_BACKLOG: usize = 8192;

fn main() {
    let mut args = std::env::args().skip(1);
    let tokens: usize = args.next().map_or(2000, |a| a.parse().expect("TOKENS"));
    let delay_ms: u64 = args.next().map_or(1, |a| a.parse().expect("DELAY_MS"));
    // Three runtimes, so the CPU each part uses can be told apart by
    // thread name: the stand-in and the relay; Imprint; the readers.
    let model = runtime(MODEL_THREADS, 1);
    let server = runtime(SERVER_THREADS, 2);
    let readers = runtime(READER_THREADS, 2);
    readers.block_on(async {
        println!(
            "bench_replies (load average {})",
            bench_support::load_average()
        );
        token_latency(model.handle(), server.handle(), tokens, delay_ms).await;
        println!();
        start_and_memory().await;
    });
    readers.shutdown_background();
    server.shutdown_background();
    model.shutdown_background();
}

const MODEL_THREADS: &str = "bench-model";
const SERVER_THREADS: &str = "bench-server";
const READER_THREADS: &str = "bench-reader";

fn runtime(name: &str, workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name(name)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// CPU used so far, (user, system), by: Imprint (its runtime and its
/// store thread), the readers (their runtime and the main thread), the
/// stand-in and relay.
fn cpu_by_part() -> Vec<(Duration, Duration)> {
    bench_support::thread_cpu(3, |name| match name {
        SERVER_THREADS | "imprint-store" => Some(0),
        READER_THREADS | "bench_replies" => Some(1),
        MODEL_THREADS => Some(2),
        _ => None,
    })
}

// ---------------------------------------------------------------------
// Token latency

/// Finds the marks `~NNNNNN~` in a byte stream, across chunk boundaries.
#[derive(Default)]
struct Marks {
    carry: Vec<u8>,
}

const MARK_LEN: usize = 8;

fn mark(k: usize) -> String {
    format!("~{k:06}~ ")
}

impl Marks {
    fn scan(&mut self, chunk: &[u8], mut found: impl FnMut(usize)) {
        let joined;
        let data: &[u8] = if self.carry.is_empty() {
            chunk
        } else {
            let mut v = std::mem::take(&mut self.carry);
            v.extend_from_slice(chunk);
            joined = v;
            &joined
        };
        let mut i = 0;
        while i < data.len() {
            if data[i] == b'~' {
                if i + MARK_LEN > data.len() {
                    self.carry = data[i..].to_vec();
                    return;
                }
                let digits = &data[i + 1..i + MARK_LEN - 1];
                if data[i + MARK_LEN - 1] == b'~' && digits.iter().all(u8::is_ascii_digit) {
                    let k = digits
                        .iter()
                        .fold(0usize, |n, d| n * 10 + usize::from(d - b'0'));
                    found(k);
                    i += MARK_LEN;
                    continue;
                }
            }
            i += 1;
        }
    }
}

type Arrivals = Vec<Option<Instant>>;

fn note(arrivals: &mut Arrivals, k: usize, at: Instant) {
    if let Some(slot) = arrivals.get_mut(k) {
        // The first arrival only (the final message repeats the text).
        slot.get_or_insert(at);
    }
}

/// Forwards `POST /v1/chat/completions` to the stand-in and notes when
/// each mark is handed on.
#[derive(Clone)]
struct Relay {
    upstream: String,
    http: reqwest::Client,
    sent: Arc<Mutex<Arrivals>>,
    /// The minimal fan-out's channel for the run under way: every chunk
    /// of one upstream stream, to every `GET /fanout` reader (`None`: the
    /// end).
    fanout: Arc<Mutex<broadcast::Sender<Option<Bytes>>>>,
}

/// `GET /fanout`: the chunks the relay broadcasts, as they come. Subscribed
/// before the response is returned, so a reader that has the headers
/// misses nothing.
async fn fanout_reader(State(relay): State<Relay>) -> Response {
    let chunks = BroadcastStream::new(relay.fanout.lock().unwrap().subscribe())
        .take_while(|chunk| futures::future::ready(!matches!(chunk, Ok(None))))
        .map(|chunk| {
            let chunk = chunk.expect("a fan-out reader keeps up");
            Ok::<_, std::convert::Infallible>(chunk.unwrap_or_default())
        });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(chunks))
        .unwrap()
}

async fn relay_completions(State(relay): State<Relay>, body: Bytes) -> Response {
    let upstream = relay
        .http
        .post(format!("{}/chat/completions", relay.upstream))
        .header(header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await;
    let upstream = match upstream {
        Ok(response) => response,
        Err(e) => return (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    };
    let status = upstream.status();
    let sent = Arc::clone(&relay.sent);
    let mut marks = Marks::default();
    let stream = upstream.bytes_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            let now = Instant::now();
            let mut sent = sent.lock().unwrap();
            marks.scan(bytes, |k| note(&mut sent, k, now));
        }
        chunk
    });
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap()
}

impl Relay {
    async fn start(upstream: String) -> (String, Relay) {
        let relay = Relay {
            upstream,
            http: reqwest::Client::new(),
            sent: Arc::new(Mutex::new(Vec::new())),
            fanout: Arc::new(Mutex::new(broadcast::channel(FANOUT_BACKLOG).0)),
        };
        let app = Router::new()
            .route("/v1/chat/completions", post(relay_completions))
            .with_state(relay.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        // The relay should not hold small writes back (Nagle) for the
        // next hop; the stand-in's own server does not set this.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (url, relay)
    }

    fn reset(&self, tokens: usize) {
        *self.sent.lock().unwrap() = vec![None; tokens];
    }

    /// Serves `GET /fanout` on `server` (the runtime Imprint runs on, so
    /// the floor has the same threads): a minimal fan-out server, axum
    /// and hyper with `TCP_NODELAY` and nothing else.
    async fn serve_fanout(&self, server: &tokio::runtime::Handle) -> String {
        let app = Router::new()
            .route("/fanout", get(fanout_reader))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/fanout", listener.local_addr().unwrap());
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        server.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        url
    }

    /// Reads one upstream stream and hands each chunk to every fan-out
    /// reader at once, noting each mark's hand-off as the relay does.
    async fn broadcast(self, trigger: String) {
        let body = json!({
            "model": "standin",
            "stream": true,
            "messages": [{"role": "user", "content": trigger}],
        });
        let response = self
            .http
            .post(format!("{}/chat/completions", self.upstream))
            .json(&body)
            .send()
            .await
            .expect("the stand-in answers");
        let fanout = self.fanout.lock().unwrap().clone();
        let mut stream = response.bytes_stream();
        let mut marks = Marks::default();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.expect("the stand-in's stream reads");
            let now = Instant::now();
            {
                let mut sent = self.sent.lock().unwrap();
                marks.scan(&chunk, |k| note(&mut sent, k, now));
            }
            let _ = fanout.send(Some(chunk));
        }
        let _ = fanout.send(None);
    }

    /// Intervals (ms) between consecutive hand-offs: how the tokens were
    /// paced into the next hop.
    fn intervals(&self) -> Vec<f64> {
        let sent = self.sent.lock().unwrap();
        sent.windows(2)
            .filter_map(|w| Some(ms(w[1]?.saturating_duration_since(w[0]?))))
            .collect()
    }

    /// Latencies (ms) of every mark a reader saw; and how many it missed.
    fn latencies(&self, seen: &Arrivals) -> (Vec<f64>, usize) {
        let sent = self.sent.lock().unwrap();
        let mut out = Vec::with_capacity(seen.len());
        let mut missed = 0;
        for (s, r) in sent.iter().zip(seen) {
            match (s, r) {
                (Some(s), Some(r)) => out.push(ms(r.saturating_duration_since(*s))),
                _ => missed += 1,
            }
        }
        (out, missed)
    }
}

fn token_turn(tokens: usize, delay_ms: u64) -> Turn {
    Turn {
        chunks: (0..tokens).map(mark).collect(),
        delay_ms,
        ..Turn::default()
    }
}

fn ask_first(trigger: &str, tokens: usize, delay_ms: u64) -> Scenario {
    Scenario {
        trigger: trigger.into(),
        turns: vec![
            Turn::ask("Go?", &["Yes", "No"]),
            token_turn(tokens, delay_ms),
        ],
        once: false,
    }
}

struct Bench {
    http: reqwest::Client,
    relay_url: String,
    relay: Relay,
    imprint: String,
    fanout_url: String,
    model: tokio::runtime::Handle,
}

impl Bench {
    /// One client reading the stand-in's stream (through the relay).
    async fn direct(&self, trigger: &str, tokens: usize) -> (Vec<f64>, usize) {
        self.relay.reset(tokens);
        let body = json!({
            "model": "standin",
            "stream": true,
            "messages": [{"role": "user", "content": trigger}],
        });
        let response = self
            .http
            .post(format!("{}/v1/chat/completions", self.relay_url))
            .json(&body)
            .send()
            .await
            .expect("the relay answers");
        let mut stream = response.bytes_stream();
        let mut marks = Marks::default();
        let mut seen: Arrivals = vec![None; tokens];
        while let Some(chunk) = stream.next().await {
            let now = Instant::now();
            marks.scan(&chunk.expect("the stream reads"), |k| {
                note(&mut seen, k, now)
            });
        }
        self.relay.latencies(&seen)
    }

    /// The floor for many watchers: one upstream stream handed by a
    /// minimal fan-out server to `readers` SSE readers; each one's
    /// arrivals.
    async fn fanout(&self, trigger: &str, tokens: usize, readers: usize) -> Vec<Arrivals> {
        self.relay.reset(tokens);
        *self.relay.fanout.lock().unwrap() = broadcast::channel(FANOUT_BACKLOG).0;
        let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(readers);
        let mut tasks = Vec::with_capacity(readers);
        for _ in 0..readers {
            let request = self.http.get(&self.fanout_url);
            let ready = ready_tx.clone();
            tasks.push(tokio::spawn(read_fanout(request, tokens, ready)));
        }
        drop(ready_tx);
        for _ in 0..readers {
            ready_rx.recv().await.expect("every reader subscribes");
        }
        self.model
            .spawn(self.relay.clone().broadcast(trigger.to_string()))
            .await
            .unwrap();
        let mut all = Vec::with_capacity(readers);
        for task in tasks {
            all.push(task.await.unwrap());
        }
        all
    }

    /// A reply watched by `watchers` SSE readers; each reader's arrivals.
    async fn through_imprint(
        &self,
        trigger: &str,
        tokens: usize,
        watchers: usize,
    ) -> Vec<Arrivals> {
        self.relay.reset(tokens);
        let (status, session) = post_json(
            &self.http,
            &format!("{}/api/chat/sessions", self.imprint),
            json!({}),
        )
        .await;
        assert_eq!(status, 201, "{session}");
        let sid = session["id"].as_str().unwrap().to_string();
        let (status, started) = post_json(
            &self.http,
            &format!("{}/api/chat/sessions/{sid}/messages", self.imprint),
            json!({"message": trigger}),
        )
        .await;
        assert_eq!(status, 202, "{started}");
        let reply_id = started["reply_id"].as_str().unwrap();
        let url = format!(
            "{}/api/chat/sessions/{sid}/reply?reply_id={reply_id}",
            self.imprint
        );
        let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(watchers);
        let mut tasks = Vec::with_capacity(watchers);
        for _ in 0..watchers {
            let request = self.http.get(&url);
            let ready = ready_tx.clone();
            tasks.push(tokio::spawn(watch(request, tokens, ready)));
        }
        drop(ready_tx);
        for _ in 0..watchers {
            ready_rx
                .recv()
                .await
                .expect("every watcher sees the question");
        }
        // Every watcher is caught up: the reply waits on its question.
        let (_, session) = get_json(
            &self.http,
            &format!("{}/api/chat/sessions/{sid}", self.imprint),
        )
        .await;
        let question = session["reply"]["question"]["id"]
            .as_str()
            .expect("the reply waits on a question")
            .to_string();
        let (status, body) = post_json(
            &self.http,
            &format!("{}/api/chat/sessions/{sid}/answer", self.imprint),
            json!({"id": question, "answer": "Yes"}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let mut all = Vec::with_capacity(watchers);
        for task in tasks {
            all.push(task.await.unwrap());
        }
        all
    }
}

/// One reader of the minimal fan-out: signals once subscribed (it has the
/// response), then notes every mark's arrival to the end.
async fn read_fanout(
    request: reqwest::RequestBuilder,
    tokens: usize,
    ready: tokio::sync::mpsc::Sender<()>,
) -> Arrivals {
    let response = request.send().await.expect("the fan-out answers");
    assert_eq!(response.status(), 200);
    let _ = ready.send(()).await;
    let mut stream = response.bytes_stream();
    let mut seen: Arrivals = vec![None; tokens];
    let mut marks = Marks::default();
    while let Some(chunk) = stream.next().await {
        let now = Instant::now();
        marks.scan(&chunk.expect("the stream reads"), |k| {
            note(&mut seen, k, now)
        });
    }
    seen
}

/// One watcher: reads the reply's SSE stream to its end, signals once it
/// has read the `question` event, and notes every mark's arrival.
async fn watch(
    request: reqwest::RequestBuilder,
    tokens: usize,
    ready: tokio::sync::mpsc::Sender<()>,
) -> Arrivals {
    let response = request.send().await.expect("the reply stream opens");
    assert_eq!(response.status(), 200);
    let mut stream = response.bytes_stream();
    let mut seen: Arrivals = vec![None; tokens];
    let mut before_question = Vec::new();
    let mut ready = Some(ready);
    let mut marks = Marks::default();
    while let Some(chunk) = stream.next().await {
        let now = Instant::now();
        let chunk = chunk.expect("the stream reads");
        if ready.is_some() {
            before_question.extend_from_slice(&chunk);
            let needle = br#""type":"question""#;
            if let Some(at) = before_question
                .windows(needle.len())
                .position(|w| w == needle)
            {
                let _ = ready.take().unwrap().send(()).await;
                let rest = before_question.split_off(at);
                marks.scan(&rest, |k| note(&mut seen, k, now));
            }
            continue;
        }
        marks.scan(&chunk, |k| note(&mut seen, k, now));
    }
    seen
}

async fn post_json(http: &reqwest::Client, url: &str, body: Value) -> (u16, Value) {
    let response = http.post(url).json(&body).send().await.expect("POST");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn get_json(http: &reqwest::Client, url: &str) -> (u16, Value) {
    let response = http.get(url).send().await.expect("GET");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

struct Row {
    name: String,
    samples: Samples,
    missed: usize,
    /// The hand-off intervals of the run (None: same run as the row above).
    pace: Option<Samples>,
    /// CPU per token (µs; user, system) of Imprint, the readers, the
    /// stand-in and relay.
    cpu: Option<Vec<(f64, f64)>>,
}

/// The rows of one run read by `seen.len()` readers: every (token,
/// reader) pair; and with more than one, per token the reader that got it
/// first and the one that got it last (the spread is the fan-out).
fn readers_rows(
    relay: &Relay,
    name: String,
    seen: &[Arrivals],
    cpu: Option<Vec<(f64, f64)>>,
) -> Vec<Row> {
    let tokens = seen.first().map_or(0, Vec::len);
    let mut all = Vec::new();
    let mut missed = 0;
    let mut first: Arrivals = vec![None; tokens];
    let mut last: Arrivals = vec![None; tokens];
    for arrivals in seen {
        let (latencies, m) = relay.latencies(arrivals);
        all.extend(latencies);
        missed += m;
        for ((f, l), a) in first.iter_mut().zip(last.iter_mut()).zip(arrivals) {
            if let Some(a) = a {
                *f = Some(f.map_or(*a, |f| f.min(*a)));
                *l = Some(l.map_or(*a, |l| l.max(*a)));
            }
        }
    }
    let mut rows = vec![Row {
        name,
        samples: Samples::new(all),
        missed,
        pace: Some(Samples::new(relay.intervals())),
        cpu,
    }];
    if seen.len() > 1 {
        for (which, arrivals) in [("first", &first), ("last", &last)] {
            let (latencies, m) = relay.latencies(arrivals);
            rows.push(Row {
                name: format!("  {which} of {}, per token", seen.len()),
                samples: Samples::new(latencies),
                missed: m,
                pace: None,
                cpu: None,
            });
        }
    }
    rows
}

/// CPU per token (µs) of each part since `before`: (user, system).
fn cpu_since(before: Vec<(Duration, Duration)>, tokens: usize) -> Option<Vec<(f64, f64)>> {
    let per_token =
        |a: Duration, b: Duration| a.saturating_sub(b).as_secs_f64() * 1e6 / tokens as f64;
    Some(
        cpu_by_part()
            .into_iter()
            .zip(before)
            .map(|((u, s), (bu, bs))| (per_token(u, bu), per_token(s, bs)))
            .collect(),
    )
}

async fn token_latency(
    model: &tokio::runtime::Handle,
    server: &tokio::runtime::Handle,
    tokens: usize,
    delay_ms: u64,
) {
    let standin = model
        .spawn(StandIn::start(vec![
            Scenario {
                trigger: "warmup-direct".into(),
                turns: vec![token_turn(WARMUP_TOKENS, delay_ms)],
                once: false,
            },
            Scenario {
                trigger: "measure-direct".into(),
                turns: vec![token_turn(tokens, delay_ms)],
                once: false,
            },
            ask_first("warmup-imprint", WARMUP_TOKENS, delay_ms),
            ask_first("measure-imprint", tokens, delay_ms),
            Scenario {
                trigger: "warmup-fanout".into(),
                turns: vec![token_turn(WARMUP_TOKENS, delay_ms)],
                once: false,
            },
            Scenario {
                trigger: "measure-fanout".into(),
                turns: vec![token_turn(tokens, delay_ms)],
                once: false,
            },
        ]))
        .await
        .unwrap();
    let (relay_url, relay) = model.spawn(Relay::start(standin.base_url())).await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap().to_string();
    let model_url = format!("{relay_url}/v1");
    let config = imprint::config::Config::try_parse_from([
        "imprint",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &data_dir,
        "--dist-dir",
        "/nonexistent",
        "--chat-provider",
        "openai",
        "--chat-base-url",
        &model_url,
        "--chat-model",
        "standin",
    ])
    .expect("the config parses");
    config.validate().expect("the config is valid");
    let running = server
        .spawn(imprint::serve::start(config))
        .await
        .unwrap()
        .expect("imprint starts");
    let fanout_url = relay.serve_fanout(server).await;
    let bench = Bench {
        http: reqwest::Client::new(),
        relay_url,
        relay,
        imprint: format!("http://{}", running.addr),
        fanout_url,
        model: model.clone(),
    };

    // Warm-up: connections, allocations, the database's first writes.
    bench.direct("warmup-direct", WARMUP_TOKENS).await;
    bench
        .through_imprint("warmup-imprint", WARMUP_TOKENS, 1)
        .await;
    bench
        .through_imprint("warmup-imprint", WARMUP_TOKENS, WATCHERS)
        .await;
    bench.fanout("warmup-fanout", WARMUP_TOKENS, WATCHERS).await;

    let mut rows = Vec::new();
    let cpu_before = cpu_by_part();
    let (direct, missed) = bench.direct("measure-direct", tokens).await;
    rows.push(Row {
        name: "direct (1 reader)".into(),
        samples: Samples::new(direct),
        missed,
        pace: Some(Samples::new(bench.relay.intervals())),
        cpu: cpu_since(cpu_before, tokens),
    });
    for watchers in [1, WATCHERS] {
        let cpu_before = cpu_by_part();
        let seen = bench
            .through_imprint("measure-imprint", tokens, watchers)
            .await;
        let cpu = cpu_since(cpu_before, tokens);
        let name = format!(
            "imprint, {watchers} watcher{}",
            if watchers == 1 { "" } else { "s" }
        );
        rows.extend(readers_rows(&bench.relay, name, &seen, cpu));
    }
    let cpu_before = cpu_by_part();
    let seen = bench.fanout("measure-fanout", tokens, WATCHERS).await;
    let cpu = cpu_since(cpu_before, tokens);
    let name = format!("fan-out floor, {WATCHERS} readers");
    rows.extend(readers_rows(&bench.relay, name, &seen, cpu));
    running.shutdown.cancel();

    let (d50, d99) = (rows[0].samples.pct(50.0), rows[0].samples.pct(99.0));
    println!();
    println!(
        "Token latency, model → reader ({tokens} tokens, {delay_ms} ms apart; ms from the relay's hand-off to arrival)"
    );
    println!(
        "{:<26} {:>9} {:>7} {:>7} {:>7} {:>7} {:>9} {:>9} {:>8} {:>8}",
        "", "samples", "p50", "p99", "max", "mean", "added p50", "added p99", "x p50", "x p99"
    );
    for row in &rows {
        let (p50, p99) = (row.samples.pct(50.0), row.samples.pct(99.0));
        println!(
            "{:<26} {:>9} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>9.3} {:>9.3} {:>8.2} {:>8.2}{}",
            row.name,
            row.samples.len(),
            p50,
            p99,
            row.samples.max(),
            row.samples.mean(),
            p50 - d50,
            p99 - d99,
            p50 / d50,
            p99 / d99,
            if row.missed > 0 {
                format!("  ({} missed)", row.missed)
            } else {
                String::new()
            }
        );
    }
    println!("Pacing: interval between consecutive tokens handed on by the relay (ms)");
    for row in &rows {
        if let Some(pace) = &row.pace {
            println!(
                "  {:<24} p50 {:.3}, p99 {:.3}, max {:.3}",
                row.name,
                pace.pct(50.0),
                pace.pct(99.0),
                pace.max()
            );
        }
    }
    println!(
        "CPU per token, µs, user + system (per thread, /proc/self/task; resolution {:.0} µs)",
        1e6 / bench_support::clock_ticks() as f64 / tokens as f64
    );
    println!(
        "  {:<24} {:>20} {:>20} {:>20}",
        "", "server", "readers", "stand-in + relay"
    );
    for row in &rows {
        if let Some(cpu) = &row.cpu {
            let cell = |(u, s): (f64, f64)| format!("{:.0} + {:.0} = {:.0}", u, s, u + s);
            println!(
                "  {:<24} {:>20} {:>20} {:>20}",
                row.name,
                cell(cpu[0]),
                cell(cpu[1]),
                cell(cpu[2])
            );
        }
    }
    let verdict = |added: f64| if added <= 0.5 { "met" } else { "missed" };
    let imprint = rows[2].samples.pct(99.0);
    let added = imprint - d99;
    println!(
        "target: ≤ 0.500 ms added per token at p99 with {WATCHERS} watchers → {added:.3} ms ({})",
        verdict(added)
    );
    // The same target against the floor with as many readers: what
    // Imprint adds to handing a token to 100 SSE readers on this machine.
    let floor = rows[5].samples.pct(99.0);
    let over_floor = imprint - floor;
    println!(
        "  against the fan-out floor ({WATCHERS} readers, p99 {floor:.3} ms) → {over_floor:.3} ms ({})",
        verdict(over_floor)
    );
}

// ---------------------------------------------------------------------
// Start time and idle memory

async fn start_and_memory() {
    let binary = match bench_support::imprint_binary() {
        Ok(binary) => binary,
        Err(message) => {
            println!("Server start time and idle RSS: skipped ({message})");
            return;
        }
    };
    let env = |data: &std::path::Path| {
        vec![
            ("IMPRINT_ADDR", "127.0.0.1:0".to_string()),
            ("IMPRINT_DATA_DIR", data.to_str().unwrap().to_string()),
            ("IMPRINT_DIST_DIR", "/nonexistent/dist".to_string()),
        ]
    };
    let http = reqwest::Client::new();
    let mut fresh = Vec::new();
    let mut rss_start = Vec::new();
    let mut rss_served = Vec::new();
    // One warm-up (page cache), then the measured runs.
    for run in 0..=START_RUNS {
        let data = tempfile::tempdir().unwrap();
        let child = bench_support::Child::spawn(&binary, &env(data.path())).await;
        let rss = bench_support::rss_kib(child.pid);
        let (status, _) = get_json(&http, &format!("{}/api/chat/sessions", child.url)).await;
        assert_eq!(status, 200);
        let served = bench_support::rss_kib(child.pid);
        if run > 0 {
            fresh.push(ms(child.started_in));
            rss_start.push(rss as f64 / 1024.0);
            rss_served.push(served as f64 / 1024.0);
        }
        child.stop().await;
    }
    let data = tempfile::tempdir().unwrap();
    let mut again = Vec::new();
    for run in 0..=START_RUNS {
        let child = bench_support::Child::spawn(&binary, &env(data.path())).await;
        if run > 0 {
            again.push(ms(child.started_in));
        }
        child.stop().await;
    }
    let (fresh, again) = (Samples::new(fresh), Samples::new(again));
    let (rss_start, rss_served) = (Samples::new(rss_start), Samples::new(rss_served));
    println!(
        "Server start time ({}, {START_RUNS} runs each, spawn → listening line)",
        binary.display()
    );
    println!(
        "  new data dir:      median {:.1} ms (min {:.1}, max {:.1})",
        fresh.pct(50.0),
        fresh.pct(0.0),
        fresh.max()
    );
    println!(
        "  existing database: median {:.1} ms (min {:.1}, max {:.1})",
        again.pct(50.0),
        again.pct(0.0),
        again.max()
    );
    println!(
        "  target: ≤ 100 ms → {:.1} ms ({})",
        fresh.pct(50.0),
        if fresh.pct(50.0) <= 100.0 {
            "met"
        } else {
            "missed"
        }
    );
    println!("Idle RSS (VmRSS; new data dir)");
    println!(
        "  at the listening line: median {:.1} MiB (max {:.1})",
        rss_start.pct(50.0),
        rss_start.max()
    );
    println!(
        "  after one API request: median {:.1} MiB (max {:.1})",
        rss_served.pct(50.0),
        rss_served.max()
    );
    let mb = rss_start.pct(50.0) * 1.048_576;
    println!(
        "  target: ≤ 30 MB → {mb:.1} MB ({})",
        if mb <= 30.0 { "met" } else { "missed" }
    );
}
