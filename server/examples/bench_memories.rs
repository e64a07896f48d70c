//! The Memories page's reads at size.
//!
//! 1. Search: 100,000 generated memories of 20–60 words drawn from a
//!    5,000-word vocabulary; 50 queries of 1–3 words; the first page of 20,
//!    ranked as the `search` tool ranks (FTS5, bm25). Timed server-side (the
//!    engine's `list_memories`, as both `GET /api/memories?q=` and the page's
//!    server function call it) and over loopback HTTP. Two vocabularies:
//!    words drawn uniformly, and drawn as in natural text (Zipf, s = 1, so
//!    the common words are in most memories and queried most).
//! 2. The first list page with 10,000 memories, over loopback HTTP (the
//!    page's first request), cold and warm.
//!
//! `cargo run --release -p imprint --example bench_memories`
//! (targets: search p95 ≤ 20 ms server-side; first page ≤ 300 ms)

mod bench_support;

use std::time::Instant;

use app::api::Records;
use app::protocol::MemoryListQuery;
use bench_support::{ms, Samples};
use imprint::serve::Running;
use imprint::store::NewMemory;

const MEMORIES: usize = 100_000;
const VOCABULARY: usize = 5_000;
const QUERIES: usize = 50;
const PAGE: usize = 20;
const LIST_MEMORIES: usize = 10_000;

/// A small deterministic generator (xorshift64*): the same corpus each run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// 5,000 distinct pronounceable words ("kalomi", "tersu", …).
fn vocabulary(rng: &mut Rng) -> Vec<String> {
    const ONSETS: &[&str] = &[
        "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st", "tr",
        "pl",
    ];
    const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "ai", "ou"];
    let mut words = std::collections::BTreeSet::new();
    while words.len() < VOCABULARY {
        let syllables = 2 + rng.below(2);
        let word: String = (0..syllables)
            .map(|_| {
                format!(
                    "{}{}",
                    ONSETS[rng.below(ONSETS.len())],
                    VOWELS[rng.below(VOWELS.len())]
                )
            })
            .collect();
        words.insert(word);
    }
    let mut words: Vec<String> = words.into_iter().collect();
    // Shuffled, so a word's rank in the Zipf draw is not its spelling.
    for i in (1..words.len()).rev() {
        words.swap(i, rng.below(i + 1));
    }
    words
}

/// How words are drawn from the vocabulary.
#[derive(Clone, Copy)]
enum Draw {
    Uniform,
    Zipf,
}

struct Picker {
    draw: Draw,
    /// Cumulative Zipf weights.
    cumulative: Vec<f64>,
}

impl Picker {
    fn new(draw: Draw) -> Self {
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY)
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect::<Vec<_>>();
        let cumulative = cumulative.into_iter().map(|c| c / total).collect();
        Self { draw, cumulative }
    }
    fn pick<'a>(&self, rng: &mut Rng, words: &'a [String]) -> &'a str {
        let index = match self.draw {
            Draw::Uniform => rng.below(words.len()),
            Draw::Zipf => {
                let u = rng.unit();
                self.cumulative
                    .partition_point(|&c| c < u)
                    .min(words.len() - 1)
            }
        };
        &words[index]
    }
}

fn memories(rng: &mut Rng, words: &[String], picker: &Picker, count: usize) -> Vec<NewMemory> {
    (0..count)
        .map(|i| {
            let length = 20 + rng.below(41);
            let content = (0..length)
                .map(|_| picker.pick(rng, words))
                .collect::<Vec<_>>()
                .join(" ");
            NewMemory {
                content,
                project: Some(format!("project{}", i % 12)),
                tags: vec![],
                // Spread over a year, a few seconds apart.
                created_at: Some(format!(
                    "2025-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                    1 + (i / 9000) % 12,
                    1 + (i / 300) % 28,
                    (i / 60) % 24,
                    i % 60,
                    (i * 7) % 60
                )),
            }
        })
        .collect()
}

async fn start() -> (tempfile::TempDir, Running) {
    use clap::Parser;
    let data = tempfile::tempdir().expect("a temporary folder");
    let data_dir = data.path().to_str().expect("a UTF-8 path").to_string();
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
        "http://127.0.0.1:9/v1",
        "--chat-model",
        "none",
    ])
    .expect("the config parses");
    config.validate().expect("the config is valid");
    let running = imprint::serve::start(config).await.expect("imprint starts");
    (data, running)
}

async fn stop(running: Running) {
    running.shutdown.cancel();
    let _ = running.task.await;
}

async fn fill(running: &Running, batch: Vec<NewMemory>) {
    for chunk in batch.chunks(10_000) {
        running
            .engine
            .store
            .import_memories(chunk.to_vec())
            .await
            .expect("memories stored");
    }
}

fn row(what: &str, samples: &Samples, target: &str) {
    println!(
        "{what:<58} n={:<3} p50 {:>7.2} ms  p95 {:>7.2} ms  max {:>7.2} ms  {target}",
        samples.len(),
        samples.pct(50.0),
        samples.pct(95.0),
        samples.max()
    );
}

async fn search(draw: Draw, label: &str) {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let words = vocabulary(&mut rng);
    let picker = Picker::new(draw);
    let (_data, running) = start().await;
    let made = Instant::now();
    fill(&running, memories(&mut rng, &words, &picker, MEMORIES)).await;
    println!(
        "{label}: {MEMORIES} memories stored and indexed in {:.1} s",
        made.elapsed().as_secs_f64()
    );
    let queries: Vec<String> = (0..QUERIES)
        .map(|_| {
            let n = 1 + rng.below(3);
            (0..n)
                .map(|_| picker.pick(&mut rng, &words))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let query = |q: &str| MemoryListQuery {
        q: Some(q.to_string()),
        limit: Some(PAGE),
        ..Default::default()
    };
    // Warm-up: the page cache and prepared statements.
    for q in queries.iter().take(5) {
        running
            .engine
            .list_memories(query(q))
            .await
            .expect("a page");
    }
    let mut server_side = Vec::new();
    let mut found = 0;
    for q in &queries {
        let started = Instant::now();
        let page = running
            .engine
            .list_memories(query(q))
            .await
            .expect("a page");
        server_side.push(ms(started.elapsed()));
        found += page.memories.len();
    }
    let http = reqwest::Client::new();
    let url = format!("http://{}/api/memories", running.addr);
    let mut over_http = Vec::new();
    for q in &queries {
        let started = Instant::now();
        let response = http
            // The words are letters: only the spaces need escaping.
            .get(format!("{url}?limit=20&q={}", q.replace(' ', "%20")))
            .send()
            .await
            .expect("a response");
        assert!(response.status().is_success());
        response.bytes().await.expect("a body");
        over_http.push(ms(started.elapsed()));
    }
    row(
        &format!("search, {label}, first page of 20, server-side"),
        &Samples::new(server_side),
        "(target p95 ≤ 20 ms)",
    );
    row(
        &format!("search, {label}, first page of 20, loopback HTTP"),
        &Samples::new(over_http),
        "",
    );
    println!("  ({found} rows returned over {QUERIES} queries of 1–3 words)");
    stop(running).await;
}

async fn first_page() {
    let mut rng = Rng(0x5EED_0000_0000_0002);
    let words = vocabulary(&mut rng);
    let picker = Picker::new(Draw::Uniform);
    let (_data, running) = start().await;
    fill(&running, memories(&mut rng, &words, &picker, LIST_MEMORIES)).await;
    let http = reqwest::Client::new();
    let url = format!("http://{}/api/memories", running.addr);
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..50 {
        let started = Instant::now();
        let response = http.get(&url).send().await.expect("a response");
        let body: serde_json::Value = response.json().await.expect("a page");
        times.push(ms(started.elapsed()));
        rows = body["memories"].as_array().map_or(0, Vec::len);
    }
    println!(
        "first list page with {LIST_MEMORIES} memories: first request {:.2} ms ({rows} rows)",
        times[0]
    );
    row(
        "first list page, loopback HTTP",
        &Samples::new(times),
        "(target ≤ 300 ms)",
    );
    stop(running).await;
}

#[tokio::main]
async fn main() {
    search(Draw::Uniform, "uniform words").await;
    search(Draw::Zipf, "Zipf words").await;
    first_page().await;
}
