//! Benchmark (issue 4): what replies waiting on a question cost the
//! server, and how fast an answer sets a reply going again. Prints
//! figures; asserts nothing. Run with
//!
//! ```sh
//! cargo build --release -p imprint --bin imprint
//! cargo run --release -p imprint --example bench_waiting [COUNT] [SECONDS]
//! ```
//!
//! (`COUNT` waiting replies, default 10,000; `SECONDS` idle, default 60.)
//!
//! # Method
//!
//! The server is the release binary (`target/release/imprint`, or
//! `IMPRINT_BIN`) as a child process, with a temporary data dir and the
//! scripted stand-in model running in this process. The stand-in's script:
//! the first turn calls `ask_user`, the second writes "done".
//! `IMPRINT_WRITING_SLOTS` is 64, as many as the setup has in flight: a
//! waiting reply gives up its slot, so this changes nothing once they
//! wait, but on a reused connection the stand-in's tool-call turn takes
//! ~40 ms on loopback (several small writes back to back from a server
//! without `TCP_NODELAY`, against delayed ACKs), and with one slot the
//! setup of 10,000 would take 7 minutes.
//!
//! 1. Setup, at most 64 sessions in flight: create a session, post a
//!    message, read the reply's SSE stream
//!    (`GET /api/chat/sessions/{sid}/reply?reply_id=…`) up to its
//!    `question` event, note the question's id, close the stream. When all
//!    `COUNT` have been read, every reply waits.
//! 2. CPU while they wait: utime + stime of the child (`/proc/PID/stat`,
//!    all threads, clock-tick resolution) at the start and the end of
//!    `SECONDS` of idleness. No connection of ours is open during it.
//! 3. Memory per waiting reply: (VmRSS with every reply waiting − VmRSS
//!    just after start, before any request) / `COUNT`. The difference also
//!    holds what serving the setup left behind (SQLite's page cache,
//!    allocator arenas), so it is an upper bound.
//! 4. Answer → next model request: for 500 of the waiting replies, one at a
//!    time, the time from just before `POST …/answer` is sent to the moment
//!    the stand-in has received (and parsed) the reply's next chat request
//!    (`StandIn::wait_for_requests`, woken by the stand-in's handler). The
//!    reply is then read to its `done` before the next answer, so answers
//!    do not overlap with the previous reply's end. Each answer is stored
//!    before its 200 (issue 15), so this includes that write.
//! 5. Restart: SIGKILL (nothing saved on the way out), then the binary is
//!    started again on the same data directory, where every reply still
//!    waiting is restored. Start time: spawn to the `imprint listening on`
//!    line, restore included; then the CPU over a short idle interval
//!    while the restored replies wait, the answer → next model request
//!    figures for 100 restored replies, and the time from SIGTERM to exit
//!    with the rest still waiting (they stay stored).

#[path = "../tests/support/standin.rs"]
mod standin;

mod bench_support;

use std::time::{Duration, Instant};

use bench_support::{ms, Samples, SseReader};
use futures::StreamExt;
use serde_json::{json, Value};
use standin::StandIn;

const IN_FLIGHT: usize = 64;
const ANSWERS: usize = 500;
const TRIGGER: &str = "bench-waiting";

struct Waiting {
    sid: String,
    reply_id: String,
    question: String,
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(10_000, |a| a.parse().expect("COUNT"));
    let seconds: u64 = args.next().map_or(60, |a| a.parse().expect("SECONDS"));
    let binary = match bench_support::imprint_binary() {
        Ok(binary) => binary,
        Err(message) => {
            eprintln!("bench_waiting: {message}");
            std::process::exit(2);
        }
    };
    println!(
        "bench_waiting (load average {})",
        bench_support::load_average()
    );

    let standin = StandIn::start(vec![standin::which_project(TRIGGER, "done")]).await;
    let data = tempfile::tempdir().unwrap();
    let env = [
        ("IMPRINT_ADDR", "127.0.0.1:0".into()),
        ("IMPRINT_DATA_DIR", data.path().to_str().unwrap().into()),
        ("IMPRINT_DIST_DIR", "/nonexistent/dist".into()),
        ("IMPRINT_CHAT_PROVIDER", "openai".into()),
        ("IMPRINT_CHAT_BASE_URL", standin.base_url()),
        ("IMPRINT_CHAT_MODEL", "standin".into()),
        ("IMPRINT_WRITING_SLOTS", IN_FLIGHT.to_string()),
    ];
    let child = bench_support::Child::spawn(&binary, &env).await;
    let pid = child.pid;
    let url = child.url.clone();
    let rss_before = bench_support::rss_kib(pid);
    println!(
        "server: {} (pid {pid}), started in {:.1} ms, VmRSS {:.1} MiB",
        binary.display(),
        ms(child.started_in),
        rss_before as f64 / 1024.0
    );

    // 1. Setup.
    let http = reqwest::Client::new();
    let setup = Instant::now();
    let waiting: Vec<Waiting> = futures::stream::iter(0..count)
        .map(|_| make_waiting(&http, &url))
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let setup_took = setup.elapsed();
    let cpu_setup = bench_support::cpu_time(pid);
    drop(http);
    let rss_waiting = bench_support::rss_kib(pid);
    println!(
        "setup: {count} replies waiting after {:.1} s ({:.0} replies/s; server CPU so far {:.2} s)",
        setup_took.as_secs_f64(),
        count as f64 / setup_took.as_secs_f64(),
        cpu_setup.as_secs_f64()
    );

    // 2. CPU while every reply waits.
    let sockets_start = bench_support::sockets(pid);
    let threads_start = bench_support::threads(pid);
    let cpu_start = bench_support::cpu_time(pid);
    let idle_start = Instant::now();
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let cpu_end = bench_support::cpu_time(pid);
    let idle = idle_start.elapsed();
    let rss_end = bench_support::rss_kib(pid);
    let (sockets_end, threads_end) = (bench_support::sockets(pid), bench_support::threads(pid));
    let cpu = cpu_end.saturating_sub(cpu_start);

    // 3. Memory (read above, before the interval).
    let per_reply = (rss_waiting as f64 - rss_before as f64) / count as f64;

    // 4. Answer → next model request, one at a time.
    let answers = ANSWERS.min(count);
    let (latencies, round_trips) = answer_each(&standin, &url, &waiting[..answers]).await;

    // 5. Restart after a crash, with the rest still waiting.
    child.kill().await;
    let restored = count - answers;
    let child = bench_support::Child::spawn(&binary, &env).await;
    let url = child.url.clone();
    let restart_in = child.started_in;
    let idle_after = Duration::from_secs(seconds.min(10));
    let cpu_start_after = bench_support::cpu_time(child.pid);
    tokio::time::sleep(idle_after).await;
    let cpu_after = bench_support::cpu_time(child.pid).saturating_sub(cpu_start_after);
    let after = (count - answers).min(100);
    let (restored_latencies, _) =
        answer_each(&standin, &url, &waiting[answers..answers + after]).await;
    let terminated = Instant::now();
    child.stop().await;
    let terminate_took = terminated.elapsed();

    let first = latencies.first().copied().unwrap_or(f64::NAN);
    let latencies = Samples::new(latencies);
    let round_trips = Samples::new(round_trips);
    println!();
    println!(
        "CPU used by the server while {count} replies wait, over {:.1} s",
        idle.as_secs_f64()
    );
    println!(
        "  utime+stime: {:.3} s ({:.3} → {:.3} s; resolution {:.3} s)",
        cpu.as_secs_f64(),
        cpu_start.as_secs_f64(),
        cpu_end.as_secs_f64(),
        1.0 / bench_support::clock_ticks() as f64
    );
    println!(
        "  server sockets {sockets_start} → {sockets_end}, threads {threads_start} → {threads_end}"
    );
    println!(
        "  target: ≤ 0.05 s → {:.3} s ({})",
        cpu.as_secs_f64(),
        if cpu.as_secs_f64() <= 0.05 {
            "met"
        } else {
            "missed"
        }
    );
    println!("Memory per waiting reply");
    println!(
        "  VmRSS {:.1} MiB after start → {:.1} MiB with {count} waiting ({:.1} MiB after the interval)",
        rss_before as f64 / 1024.0,
        rss_waiting as f64 / 1024.0,
        rss_end as f64 / 1024.0
    );
    println!(
        "  per reply: {per_reply:.2} KiB; target ≤ 16 KiB ({})",
        if per_reply <= 16.0 { "met" } else { "missed" }
    );
    println!(
        "Answer → next model request ({} answers, one at a time)",
        latencies.len()
    );
    println!(
        "  p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms, mean {:.3} ms",
        latencies.pct(50.0),
        latencies.pct(99.0),
        latencies.max(),
        latencies.mean()
    );
    println!("  (the first, right after the idle interval: {first:.3} ms)");
    println!(
        "  (POST /answer round trip: p50 {:.3} ms, p99 {:.3} ms)",
        round_trips.pct(50.0),
        round_trips.pct(99.0)
    );
    println!(
        "  target: p99 ≤ 2 ms → {:.3} ms ({})",
        latencies.pct(99.0),
        if latencies.pct(99.0) <= 2.0 {
            "met"
        } else {
            "missed"
        }
    );
    println!("Restart after SIGKILL with {restored} replies waiting");
    println!(
        "  start (spawn → listening, restore included): {:.1} ms; target ≤ 1 s ({})",
        ms(restart_in),
        if restart_in <= Duration::from_secs(1) {
            "met"
        } else {
            "missed"
        }
    );
    println!(
        "  CPU while they wait again, over {:.0} s: {:.3} s",
        idle_after.as_secs_f64(),
        cpu_after.as_secs_f64()
    );
    let restored_latencies = Samples::new(restored_latencies);
    println!(
        "  answer → next model request for {} restored replies: p50 {:.3} ms, p99 {:.3} ms",
        restored_latencies.len(),
        restored_latencies.pct(50.0),
        restored_latencies.pct(99.0)
    );
    println!(
        "  SIGTERM → exit with {} still waiting (they stay stored): {:.1} ms",
        restored - after,
        ms(terminate_took)
    );
}

/// Answers each reply's question, one at a time; returns the times from
/// sending the answer to the stand-in receiving the next model request,
/// and the answer's round trips (ms).
async fn answer_each(standin: &StandIn, url: &str, waiting: &[Waiting]) -> (Vec<f64>, Vec<f64>) {
    let http = reqwest::Client::new();
    let before = standin.requests().len();
    let mut latencies = Vec::with_capacity(waiting.len());
    let mut round_trips = Vec::with_capacity(waiting.len());
    for (i, w) in waiting.iter().enumerate() {
        let body = json!({"id": w.question, "answer": "Imprint"});
        let answer = http
            .post(format!("{url}/api/chat/sessions/{}/answer", w.sid))
            .json(&body);
        let sent = Instant::now();
        let (status, asked) = tokio::join!(
            async {
                let response = answer.send().await.expect("the answer is posted");
                let status = response.status().as_u16();
                let _ = response.bytes().await;
                (status, Instant::now())
            },
            async {
                standin.wait_for_requests(before + i + 1).await;
                Instant::now()
            }
        );
        let (status, answered) = status;
        assert_eq!(status, 200, "the answer is taken");
        latencies.push(ms(asked - sent));
        round_trips.push(ms(answered - sent));
        // Let this reply end before the next answer.
        let response = http
            .get(format!(
                "{url}/api/chat/sessions/{}/reply?reply_id={}",
                w.sid, w.reply_id
            ))
            .send()
            .await
            .expect("the reply stream opens");
        let end = SseReader::new(response).until("done").await;
        assert_eq!(end["type"], "done");
    }
    (latencies, round_trips)
}

/// Creates a session whose reply waits on its question.
async fn make_waiting(http: &reqwest::Client, url: &str) -> Waiting {
    let session = json_of(
        http.post(format!("{url}/api/chat/sessions"))
            .json(&json!({}))
            .send()
            .await,
        201,
    )
    .await;
    let sid = session["id"].as_str().unwrap().to_string();
    let started = json_of(
        http.post(format!("{url}/api/chat/sessions/{sid}/messages"))
            .json(&json!({"message": format!("{TRIGGER} please")}))
            .send()
            .await,
        202,
    )
    .await;
    let reply_id = started["reply_id"].as_str().unwrap().to_string();
    let response = http
        .get(format!(
            "{url}/api/chat/sessions/{sid}/reply?reply_id={reply_id}"
        ))
        .send()
        .await
        .expect("the reply stream opens");
    assert_eq!(response.status(), 200);
    let question = SseReader::new(response).until("question").await;
    Waiting {
        sid,
        reply_id,
        question: question["id"].as_str().unwrap().to_string(),
    }
}

async fn json_of(response: reqwest::Result<reqwest::Response>, expected: u16) -> Value {
    let response = response.expect("the server answers");
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    assert_eq!(status, expected, "{body}");
    body
}
