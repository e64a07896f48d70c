//! Other routes during a 64 MiB import.
//!
//! A JSON Lines file of short memories, just under the 64 MiB import limit,
//! is posted to `POST /api/memories/import` while two clients ask, one
//! request after another, `GET /api/chat/status` (no store) and `GET
//! /api/chat/sessions` (the store's thread, as chats and reminders need
//! it). Prints their latency percentiles during the import, and how long
//! the import took. Finding by meaning is off (it would embed every
//! memory after the import, which is its own benchmark).
//!
//! `cargo run --release -p imprint --example bench_import`
//! (target: `/api/chat/status` p99 ≤ 100 ms throughout)
//!
//! Measured (release, 2 shared cores, 594,158 memories in 64.0 MiB):
//!
//! | | import | status p99 / max | sessions p99 / max |
//! |---|---|---|---|
//! | one transaction on the store's thread (before) | 39.4 s | 4.3 / 25 ms | 1.6 ms / 38.5 s |
//! | checked, then 256 per transaction | 65.1 s | 0.7 / 16 ms | 42 / 170 ms |
//! | on a task of its own, its rows listed under a pending import until done (now) | 54.5 s | 0.41 / 20 ms | 38 / 196 ms |
//!
//! Before, every route that needs the store waited for the whole import.

mod bench_support;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use bench_support::{ms, Samples};
use imprint::serve::Running;

/// Just under the import limit.
const IMPORT_BYTES: usize = 64 * 1024 * 1024 - 4096;

async fn start(data_dir: &str) -> Running {
    use clap::Parser;
    let config = imprint::config::Config::try_parse_from([
        "imprint",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data_dir,
        "--dist-dir",
        "/nonexistent",
        "--chat-provider",
        "openai",
        "--chat-base-url",
        "http://127.0.0.1:9/v1",
        "--chat-model",
        "none",
        "--embedding-model-dir",
        "off",
    ])
    .expect("the config parses");
    config.validate().expect("the config is valid");
    imprint::serve::start(config).await.expect("imprint starts")
}

/// Writes the import file: numbered memories of about 100 bytes, some in
/// projects, with tags.
fn write_import(path: &std::path::Path) -> usize {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).expect("a file"));
    let mut written = 0;
    let mut count = 0;
    while written < IMPORT_BYTES - 256 {
        let line = format!(
            "{{\"content\": \"memory {count}: the meeting with Anna moved to room {} on floor {}\", \"project\": \"p{}\", \"tags\": [\"t{}\"]}}\n",
            count % 97,
            count % 7,
            count % 13,
            count % 5
        );
        file.write_all(line.as_bytes()).expect("written");
        written += line.len();
        count += 1;
    }
    file.flush().expect("flushed");
    count
}

/// Asks `path` one request after another until `done`; the latencies.
async fn ask_until(http: reqwest::Client, url: String, done: Arc<AtomicBool>) -> Vec<f64> {
    let mut latencies = Vec::new();
    while !done.load(Ordering::Relaxed) {
        let started = Instant::now();
        let response = http.get(&url).send().await.expect("an answer");
        assert!(
            response.status().is_success(),
            "{url}: {}",
            response.status()
        );
        let _ = response.bytes().await;
        latencies.push(ms(started.elapsed()));
    }
    latencies
}

fn report(name: &str, latencies: Vec<f64>) {
    let samples = Samples::new(latencies);
    println!(
        "{name:<24} n={:<6} p50={:7.2} ms  p99={:7.2} ms  max={:7.2} ms",
        samples.len(),
        samples.pct(50.0),
        samples.pct(99.0),
        samples.max()
    );
}

#[tokio::main]
async fn main() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let data_dir = data.path().to_str().expect("a UTF-8 path").to_string();
    let file = data.path().join("import.jsonl");
    let count = write_import(&file);
    let bytes = std::fs::metadata(&file).expect("the file").len();
    println!(
        "import: {count} memories, {:.1} MiB",
        bytes as f64 / 1024.0 / 1024.0
    );
    let running = start(&data_dir).await;
    let url = format!("http://{}", running.addr);
    let http = reqwest::Client::new();

    // Before: the same routes with nothing else running.
    let quiet = Arc::new(AtomicBool::new(false));
    let before = tokio::spawn(ask_until(
        http.clone(),
        format!("{url}/api/chat/status"),
        Arc::clone(&quiet),
    ));
    let mut idle = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        let _ = http
            .get(format!("{url}/api/chat/sessions"))
            .send()
            .await
            .expect("an answer")
            .bytes()
            .await;
        idle.push(ms(started.elapsed()));
    }
    quiet.store(true, Ordering::Relaxed);
    report("status, idle", before.await.expect("the client"));
    report("sessions, idle", idle);

    let done = Arc::new(AtomicBool::new(false));
    let status = tokio::spawn(ask_until(
        http.clone(),
        format!("{url}/api/chat/status"),
        Arc::clone(&done),
    ));
    let sessions = tokio::spawn(ask_until(
        http.clone(),
        format!("{url}/api/chat/sessions"),
        Arc::clone(&done),
    ));
    let body = tokio::fs::File::open(&file).await.expect("the file");
    let started = Instant::now();
    let response = http
        .post(format!("{url}/api/memories/import"))
        .header("content-type", "application/jsonl")
        .body(body)
        .send()
        .await
        .expect("the import answers");
    let took = started.elapsed();
    let answer = response.text().await.unwrap_or_default();
    done.store(true, Ordering::Relaxed);
    println!("import answered in {:.1} s: {answer}", took.as_secs_f64());
    report("status, importing", status.await.expect("the client"));
    report("sessions, importing", sessions.await.expect("the client"));
    running.shutdown.cancel();
    let _ = running.task.await;
}
