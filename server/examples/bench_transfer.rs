//! Import and export at size, against the release binary.
//!
//! Starts `target/release/imprint` on a fresh data directory, imports
//! 100,000 memories (one JSON Lines file of about 20 MB, as the page
//! sends it), then runs 8 exports at once, and prints the times and the
//! server's resident memory (VmRSS before, VmHWM: its peak) read from
//! `/proc`.
//!
//! `cargo build --release -p imprint --bin imprint && cargo run --release -p imprint --example bench_transfer`
//! (target: 8 exports of 100k memories at once add ≤ 50 MB to the peak)

mod bench_support;

use std::time::Instant;

use bench_support::{imprint_binary, Child};

const MEMORIES: usize = 100_000;
const EXPORTS: usize = 8;

/// A `/proc/PID/status` memory field, in KiB.
fn memory_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

#[tokio::main]
async fn main() {
    let binary = imprint_binary().unwrap_or_else(|e| panic!("{e}"));
    let data = tempfile::tempdir().unwrap();
    let child = Child::spawn(
        &binary,
        &[
            ("IMPRINT_ADDR", "127.0.0.1:0".to_string()),
            ("IMPRINT_DATA_DIR", data.path().display().to_string()),
            ("IMPRINT_DIST_DIR", "/nonexistent".to_string()),
        ],
    )
    .await;
    let pid = child.pid;
    let url = child.url.clone();
    let http = reqwest::Client::new();

    let file: String = (0..MEMORIES)
        .map(|i| {
            serde_json::json!({
                "content": format!("memory {i}: the quick brown fox jumps over the lazy dog, note {}", i * 7919 % 100_003),
                "project": format!("Project {}", i % 40),
                "created_at": format!("2026-{:02}-{:02}T10:00:00Z", 1 + i % 12, 1 + i % 28),
                "tags": ["bench"],
            })
            .to_string()
                + "\n"
        })
        .collect();
    let rss_start = memory_kib(pid, "VmRSS:");
    let started = Instant::now();
    let response = http
        .post(format!("{url}/api/memories/import"))
        .header("content-type", "application/jsonl")
        .body(file.clone())
        .send()
        .await
        .unwrap();
    let import_time = started.elapsed();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let hwm_after_import = memory_kib(pid, "VmHWM:");
    let rss_after_import = memory_kib(pid, "VmRSS:");

    let started = Instant::now();
    let exports = (0..EXPORTS).map(|_| {
        let http = http.clone();
        let url = url.clone();
        tokio::spawn(async move {
            let body = http
                .get(format!("{url}/api/memories/export"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            body.lines().count()
        })
    });
    let counts = futures::future::join_all(exports).await;
    let export_time = started.elapsed();
    for count in counts {
        assert_eq!(count.unwrap(), MEMORIES);
    }
    let hwm_after_exports = memory_kib(pid, "VmHWM:");
    child.stop().await;

    let mb = |kib: u64| kib as f64 / 1024.0;
    println!(
        "import of {MEMORIES} memories ({:.1} MB): {:.2} s",
        file.len() as f64 / 1e6,
        import_time.as_secs_f64()
    );
    println!(
        "{EXPORTS} exports at once: {:.2} s",
        export_time.as_secs_f64()
    );
    println!("server RSS at start: {:.1} MB", mb(rss_start));
    println!(
        "server RSS after the import: {:.1} MB (peak so far {:.1} MB)",
        mb(rss_after_import),
        mb(hwm_after_import)
    );
    println!(
        "server peak RSS after {EXPORTS} exports: {:.1} MB (+{:.1} MB over the peak before them)",
        mb(hwm_after_exports),
        mb(hwm_after_exports.saturating_sub(hwm_after_import))
    );
}
