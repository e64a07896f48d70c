//! Finding by meaning at size (issue 38's benchmarks). Prints figures,
//! asserts nothing.
//!
//! 1. Embedding one memory: 200 sentences one at a time on the model's
//!    one thread; p50 and p95.
//! 2. Filling in: memories imported with `import_memories`, then the
//!    filler embeds them all (batches of 16) while its progress is shown;
//!    memories a second. `IMPRINT_BENCH_FILL` memories (default 2,000;
//!    100,000 takes about as many times longer).
//! 3. Hybrid search over `IMPRINT_BENCH_MEMORIES` memories (default
//!    100,000): the filled-in ones, the rest given vectors of the same
//!    sentences' words shuffled (the scan's cost does not depend on what
//!    the vectors say); 100 queries, p50/p95, and the brute-force scan
//!    alone.
//! 4. Memory: the process's resident size before the model is loaded,
//!    after, and with the index of all memories.
//!
//! `scripts/embedding-model.sh ensure`, then
//! `cargo run --release -p imprint --example bench_meaning`
//! (targets: embedding p50 ≤ 15 ms; search p95 ≤ 50 ms; memory ≤ 120 MB)

mod bench_support;

use std::time::Instant;

use bench_support::{ms, rss_kib, Samples};
use imprint::meaning::{Meaning, MeaningState, MODEL_NAME};
use imprint::store::{MemoryQuery, MemoryVector, NewMemory, Store};
use tokio_util::sync::CancellationToken;

const SUBJECTS: [&str; 12] = [
    "The plumber",
    "Anna from work",
    "The dentist",
    "Our landlord",
    "The painter",
    "My sister",
    "The vet",
    "The garage",
    "The school office",
    "The gym",
    "The builder",
    "Dad",
];
const PARTS: [&str; 12] = [
    "quoted £{n} for the job",
    "has the phone number 07700 9{n}",
    "moved the appointment to the {d}th",
    "wants the spare key back by Friday",
    "said the boiler service is due in March",
    "gave us the code {n} for the side gate",
    "charges £{n} a visit, fortnightly",
    "sent the invoice INV-{n} for the hall",
    "prefers texts to calls after 6pm",
    "booked the MOT for the {d}th at 9:15",
    "lent us the ladder until the {d}th",
    "has the wifi password otter-{n}",
];

/// A deterministic sentence for memory `i`.
fn sentence(i: usize) -> String {
    let n = (i * 7919) % 9000 + 1000;
    let d = i % 27 + 1;
    let part = PARTS[(i / SUBJECTS.len()) % PARTS.len()]
        .replace("{n}", &n.to_string())
        .replace("{d}", &d.to_string());
    format!("{} {part}", SUBJECTS[i % SUBJECTS.len()])
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() {
    let fill = env_usize("IMPRINT_BENCH_FILL", 2_000);
    let total = env_usize("IMPRINT_BENCH_MEMORIES", 100_000).max(fill);
    if let Some(db) = std::env::var_os("IMPRINT_BENCH_MEASURE_DB") {
        return measure(std::path::Path::new(&db), total).await;
    }
    let dir = imprint::meaning::cached_model_dir().expect("a cache directory");
    if let Some(missing) = imprint::meaning::minilm::missing_file(&dir) {
        eprintln!(
            "no {missing} in {}: run scripts/embedding-model.sh ensure",
            dir.display()
        );
        std::process::exit(1);
    }
    let pid = std::process::id();
    let work = tempfile::tempdir().unwrap();
    let store = Store::open(&work.path().join("bench.sqlite3")).unwrap();
    let rss_before = rss_kib(pid);

    // 2. Filling in (the model loads first).
    let memories: Vec<NewMemory> = (0..fill)
        .map(|i| NewMemory {
            content: sentence(i),
            ..NewMemory::default()
        })
        .collect();
    store.import_memories(memories).await.unwrap();
    let started = Instant::now();
    let first = CancellationToken::new();
    let meaning = Meaning::start(Some(&dir), store.clone(), first.clone());
    let mut status = meaning.watch();
    let mut shown = 0;
    let mut loaded_at = None;
    loop {
        let s = status.borrow_and_update().clone();
        if loaded_at.is_none() && s.state != MeaningState::Loading {
            loaded_at = Some(started.elapsed());
        }
        if s.embedded >= shown + (fill as u64 / 5).max(1) {
            shown = s.embedded;
            println!(
                "  filling in: {} of {} ({:.1} s)",
                s.embedded,
                s.total,
                started.elapsed().as_secs_f64()
            );
        }
        if s.state == MeaningState::Ready && s.embedded == s.total {
            break;
        }
        assert_ne!(s.state, MeaningState::Off, "{s:?}");
        status.changed().await.unwrap();
    }
    let fill_time = started.elapsed() - loaded_at.unwrap_or_default();
    let rss_model = rss_kib(pid);
    println!(
        "fill: {fill} memories in {:.1} s after the model loaded in {:.2} s: {:.0} memories/s (100,000 ≈ {:.0} min)",
        fill_time.as_secs_f64(),
        loaded_at.unwrap_or_default().as_secs_f64(),
        fill as f64 / fill_time.as_secs_f64(),
        100_000.0 / (fill as f64 / fill_time.as_secs_f64()) / 60.0
    );

    // 1. One memory at a time.
    let mut one = Vec::new();
    for i in 0..200 {
        let text = sentence(100_000 + i * 13);
        let t = Instant::now();
        meaning.embed_one(&text).await.unwrap();
        one.push(ms(t.elapsed()));
    }
    let one = Samples::new(one);
    println!(
        "embedding one memory (one core): p50 {:.1} ms, p95 {:.1} ms (target p50 ≤ 15 ms)",
        one.pct(50.0),
        one.pct(95.0)
    );

    // 3. Search at size: the rest of the memories with stand-in vectors.
    let filled = store.vectors_after(MODEL_NAME, 0).await.unwrap();
    let rest: Vec<NewMemory> = (fill..total)
        .map(|i| NewMemory {
            content: sentence(i),
            ..NewMemory::default()
        })
        .collect();
    store.import_memories(rest).await.unwrap();
    let missing = store
        .memories_without_vectors(MODEL_NAME, total)
        .await
        .unwrap();
    let vectors: Vec<MemoryVector> = missing
        .into_iter()
        .enumerate()
        .map(|(i, (id, content))| MemoryVector {
            id,
            content,
            vector: filled[i % filled.len()].1.clone(),
        })
        .collect();
    for chunk in vectors.chunks(10_000) {
        let chunk = chunk
            .iter()
            .map(|v| MemoryVector {
                id: v.id,
                content: v.content.clone(),
                vector: v.vector.clone(),
            })
            .collect();
        store.put_vectors(MODEL_NAME, chunk).await.unwrap();
    }
    drop(vectors);
    // A fresh start reads them all into the index, as a restart does.
    // The first filler stops, and with it the first model's thread.
    first.cancel();
    drop(meaning);
    drop(store);
    // Searching and memory are measured in a process of their own that
    // opens this database, as Imprint does at a restart: this one holds
    // what setting it up took.
    let rss_model_mb = (rss_model as f64 - rss_before as f64) / 1024.0;
    println!(
        "memory: +{rss_model_mb:.0} MB with the model loaded ({fill} vectors), in this process"
    );
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .env(
            "IMPRINT_BENCH_MEASURE_DB",
            work.path().join("bench.sqlite3"),
        )
        .env("IMPRINT_BENCH_MEMORIES", total.to_string())
        .status()
        .expect("the measuring process runs");
    assert!(status.success());
}

/// Opens the prepared database, loads the model and the index of every
/// memory's vector, then searches.
async fn measure(db: &std::path::Path, total: usize) {
    let dir = imprint::meaning::cached_model_dir().expect("a cache directory");
    let pid = std::process::id();
    let store = Store::open(db).unwrap();
    let rss_before = rss_kib(pid);
    let meaning = Meaning::start(Some(&dir), store.clone(), CancellationToken::new());
    let mut status = meaning.watch();
    let _ = status
        .wait_for(|s| s.state == MeaningState::Ready || s.state == MeaningState::Off)
        .await;
    println!(
        "index: {} memories (status {:?})",
        meaning.status().embedded,
        meaning.status().state
    );
    let rss_index = rss_kib(pid);
    let mut search = Vec::new();
    let mut scan = Vec::new();
    for i in 0..100 {
        let query = format!(
            "what did {} say about {}",
            SUBJECTS[i % 12].to_lowercase(),
            ["the boiler", "the code", "the invoice", "the key"][i % 4]
        );
        let t = Instant::now();
        let found = meaning
            .search(
                &store,
                MemoryQuery {
                    query: query.clone(),
                    ..MemoryQuery::default()
                },
            )
            .await
            .unwrap();
        search.push(ms(t.elapsed()));
        assert!(found.by_meaning);
        let vector = found.vector.unwrap();
        let t = Instant::now();
        std::hint::black_box(meaning.nearest(&vector, 50, None));
        scan.push(ms(t.elapsed()));
    }
    let search = Samples::new(search);
    let scan = Samples::new(scan);
    println!(
        "hybrid search over {total} memories: p50 {:.1} ms, p95 {:.1} ms (target p95 ≤ 50 ms); the scan alone p50 {:.1} ms, p95 {:.1} ms",
        search.pct(50.0),
        search.pct(95.0),
        scan.pct(50.0),
        scan.pct(95.0)
    );
    println!(
        "memory: {:.0} MB before, +{:.0} MB with the model and the index of {total} memories (target ≤ 120 MB)",
        rss_before as f64 / 1024.0,
        (rss_index as f64 - rss_before as f64) / 1024.0,
    );
}
