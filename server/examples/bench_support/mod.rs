//! Shared helpers of the benchmark examples (`bench_replies`,
//! `bench_waiting`): percentiles, an SSE reader, the release binary, and
//! what `/proc` says about a process. Benchmark support, not the product.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Milliseconds, as a float.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Sorted samples and their percentiles (nearest rank).
pub struct Samples(Vec<f64>);

impl Samples {
    pub fn new(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        Self(values)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The `p`th percentile (0–100), nearest rank; NaN when empty.
    pub fn pct(&self, p: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * self.0.len() as f64).ceil() as usize;
        self.0[rank.clamp(1, self.0.len()) - 1]
    }

    pub fn max(&self) -> f64 {
        self.0.last().copied().unwrap_or(f64::NAN)
    }

    pub fn mean(&self) -> f64 {
        self.0.iter().sum::<f64>() / self.0.len() as f64
    }
}

/// A server-sent event stream read message by message with the server's
/// own reader ([`imprint::sse`]), data parsed as JSON.
pub struct SseReader {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    messages: imprint::sse::SseMessages,
    ready: std::collections::VecDeque<String>,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            stream: response.bytes_stream().boxed(),
            messages: imprint::sse::SseMessages::default(),
            ready: std::collections::VecDeque::new(),
        }
    }

    /// The next message's data, or None at the end of the stream.
    pub async fn next(&mut self) -> Option<Value> {
        let data = self.next_raw().await?;
        Some(serde_json::from_str(&data).expect("an SSE data line is JSON"))
    }

    /// The next message's data as sent (a model's stream ends with
    /// `[DONE]`, which is not JSON), or None at the end of the stream.
    pub async fn next_raw(&mut self) -> Option<String> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Some(message);
            }
            let bytes = match self.stream.next().await {
                Some(Ok(bytes)) => bytes,
                _ => return None,
            };
            let messages = self.messages.push(&bytes).into_iter();
            self.ready
                .extend(messages.filter(|m| !m.data.is_empty()).map(|m| m.data));
        }
    }

    /// Reads until a message of type `kind` and returns it.
    pub async fn until(&mut self, kind: &str) -> Value {
        while let Some(message) = self.next().await {
            if message["type"] == kind {
                return message;
            }
        }
        panic!("the stream ended before a {kind} event");
    }
}

/// The release `imprint` binary beside this example's folder
/// (`target/release/examples/NAME` → `target/release/imprint`), or
/// `IMPRINT_BIN`. Refuses one older than the library it was built from
/// (`cargo run --example` does not rebuild binaries).
pub fn imprint_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("IMPRINT_BIN") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let release = exe
        .parent()
        .and_then(|examples| examples.parent())
        .ok_or("cannot find the target folder")?;
    let binary = release.join("imprint");
    if !binary.exists() {
        return Err(format!(
            "{} is missing: build it with `cargo build --release -p imprint --bin imprint`",
            binary.display()
        ));
    }
    let modified = |p: PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(bin), Some(lib)) = (
        modified(binary.clone()),
        modified(release.join("libimprint.rlib")),
    ) {
        // A stale binary measures old code under a new label (it happened:
        // three evaluations of session 15 ran the session's first build).
        if lib > bin {
            return Err(format!(
                "{} is older than libimprint.rlib: it is stale; build it with \
                 `cargo build --release -p imprint --bin imprint` (or name one with IMPRINT_BIN)",
                binary.display()
            ));
        }
    }
    Ok(binary)
}

/// A running `imprint` child process.
pub struct Child {
    pub child: tokio::process::Child,
    pub pid: u32,
    pub url: String,
    /// From spawn to the `imprint listening on` line.
    pub started_in: Duration,
}

/// Where the binary's log goes: the file `IMPRINT_BENCH_LOG` names (its
/// filter in `IMPRINT_BENCH_RUST_LOG`), to see what a slow run did.
fn log_file() -> Stdio {
    match std::env::var("IMPRINT_BENCH_LOG") {
        Ok(path) => std::fs::File::create(&path)
            .map(Stdio::from)
            .unwrap_or_else(|e| panic!("IMPRINT_BENCH_LOG {path}: {e}")),
        Err(_) => Stdio::null(),
    }
}

impl Child {
    /// Spawns the binary with `env` (on top of a cleared `IMPRINT_*`
    /// environment) and reads its stdout up to the listening line.
    pub async fn spawn(binary: &PathBuf, env: &[(&str, String)]) -> Child {
        let mut command = tokio::process::Command::new(binary);
        for (key, _) in std::env::vars() {
            if key.starts_with("IMPRINT_") || key == "RUST_LOG" {
                command.env_remove(key);
            }
        }
        command
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file())
            .kill_on_drop(true);
        if let Ok(filter) = std::env::var("IMPRINT_BENCH_RUST_LOG") {
            command.env("RUST_LOG", filter);
        }
        let started = Instant::now();
        let mut child = command.spawn().expect("the imprint binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let url = loop {
            match lines.next_line().await.expect("stdout is readable") {
                Some(line) => {
                    if let Some(url) = line.strip_prefix("imprint listening on ") {
                        break url.trim().to_string();
                    }
                }
                None => panic!("imprint exited before listening"),
            }
        };
        let started_in = started.elapsed();
        let pid = child.id().expect("the child is running");
        Child {
            child,
            pid,
            url,
            started_in,
        }
    }

    /// SIGKILL (a crash: nothing is saved on the way out), then waits for
    /// the exit.
    pub async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }

    /// SIGTERM (a graceful stop), then waits for the exit.
    pub async fn stop(mut self) {
        let _ = tokio::process::Command::new("kill")
            .arg("-TERM")
            .arg(self.pid.to_string())
            .status()
            .await;
        let _ = self.child.wait().await;
    }
}

/// Resident memory of a process, in KiB (`VmRSS` of `/proc/PID/status`).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc status")
}

/// CPU time used by a process so far (user + system, all its threads
/// including exited ones: fields 14 and 15 of `/proc/PID/stat`).
pub fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc stat");
    // The command name may hold spaces; the fields after it do not.
    let after = &stat[stat.rfind(')').expect("stat has a name") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // `after` starts at field 3 (state): utime is field 14, stime 15.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_secs_f64(ticks as f64 / clock_ticks() as f64)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 if unknown).
pub fn clock_ticks() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

/// Threads of a process.
pub fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count())
}

/// Open sockets of a process (file descriptors that are sockets).
pub fn sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter(|target| target.to_string_lossy().starts_with("socket:"))
                .count()
        })
        .unwrap_or(0)
}

/// Machine load, for context in the printed figures.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// CPU time used so far by this process's live threads, as (user,
/// system), summed by group: `group` maps a thread's name
/// (`/proc/self/task/*/comm`, at most 15 bytes) to a group's index, or
/// None to leave it out.
pub fn thread_cpu(
    groups: usize,
    group: impl Fn(&str) -> Option<usize>,
) -> Vec<(Duration, Duration)> {
    let ticks = clock_ticks() as f64;
    let mut sums = vec![(0u64, 0u64); groups];
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.filter_map(Result::ok) {
            let path = task.path();
            let (Ok(name), Ok(stat)) = (
                std::fs::read_to_string(path.join("comm")),
                std::fs::read_to_string(path.join("stat")),
            ) else {
                continue;
            };
            let Some(index) = group(name.trim()) else {
                continue;
            };
            let after = &stat[stat.rfind(')').unwrap_or(0) + 2..];
            let fields: Vec<&str> = after.split_whitespace().collect();
            let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok());
            sums[index].0 += field(11).unwrap_or(0);
            sums[index].1 += field(12).unwrap_or(0);
        }
    }
    let time = |t: u64| Duration::from_secs_f64(t as f64 / ticks);
    sums.into_iter().map(|(u, s)| (time(u), time(s))).collect()
}

/// Starts `scripts/local-model.sh start PORT` and waits for llama-server's
/// "listening on" line (logged once the model is loaded).
pub async fn start_local_model() -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/local-model.sh");
    // Extra llama-server flags for a run, e.g. `-t 1` on a machine shared
    // with builds (its threads wait on each other when one is preempted).
    let extra = std::env::var("IMPRINT_BENCH_MODEL_ARGS").unwrap_or_default();
    let mut child = tokio::process::Command::new(script)
        .args(["start", &port.to_string()])
        .args(extra.split_whitespace())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("scripts/local-model.sh starts");
    let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) if line.contains("listening on") => break,
            Ok(Some(_)) => {}
            _ => {
                eprintln!("the local model did not start: run scripts/local-model.sh ensure");
                std::process::exit(1);
            }
        }
    }
    // Keep reading its log, so the pipe never fills; into the file
    // `IMPRINT_BENCH_MODEL_LOG` names, to see what a slow turn cost
    // (prompt tokens evaluated, generation).
    let mut model_log = std::env::var("IMPRINT_BENCH_MODEL_LOG").ok().map(|path| {
        std::fs::File::create(&path)
            .unwrap_or_else(|e| panic!("IMPRINT_BENCH_MODEL_LOG {path}: {e}"))
    });
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(file) = model_log.as_mut() {
                use std::io::Write;
                let _ = writeln!(file, "{line}");
            }
        }
    });
    (child, format!("http://127.0.0.1:{port}"))
}

/// The model settings a run takes from the environment
/// (`IMPRINT_CHAT_PROVIDER`, `_BASE_URL`, `_MODEL`, `_API_KEY`,
/// `_TOOL_FORMAT`, `_TOOL_PROMPT`), as variables for the server; with no
/// base URL named, the local model is started (and kept while the child
/// lives) and named.
pub async fn model_env() -> (Vec<(&'static str, String)>, Option<tokio::process::Child>) {
    let mut env: Vec<(&'static str, String)> = Vec::new();
    for key in [
        "IMPRINT_CHAT_PROVIDER",
        "IMPRINT_CHAT_BASE_URL",
        "IMPRINT_CHAT_MODEL",
        "IMPRINT_CHAT_API_KEY",
        "IMPRINT_CHAT_TOOL_FORMAT",
        "IMPRINT_CHAT_TOOL_PROMPT",
    ] {
        if let Ok(value) = std::env::var(key) {
            env.push((key, value));
        }
    }
    if env.iter().any(|(k, _)| *k == "IMPRINT_CHAT_BASE_URL") {
        return (env, None);
    }
    let (child, model_url) = start_local_model().await;
    env.push(("IMPRINT_CHAT_PROVIDER", "local".into()));
    env.push(("IMPRINT_CHAT_BASE_URL", format!("{model_url}/v1")));
    (env, Some(child))
}

/// A new chat session's id.
pub async fn new_session(http: &reqwest::Client, url: &str) -> String {
    let session: Value = http
        .post(format!("{url}/api/chat/sessions"))
        .json(&serde_json::json!({}))
        .send()
        .await
        .expect("session")
        .json()
        .await
        .expect("session JSON");
    session["id"].as_str().expect("a session id").to_string()
}

/// Posts a message in a session and opens its reply's event stream by id
/// (it can be read to its end even when the reply is quick).
pub async fn say(http: &reqwest::Client, url: &str, sid: &str, text: &str) -> SseReader {
    let sent: Value = http
        .post(format!("{url}/api/chat/sessions/{sid}/messages"))
        .json(&serde_json::json!({"message": text}))
        .send()
        .await
        .expect("message")
        .json()
        .await
        .expect("message JSON");
    let reply_id = sent["reply_id"].as_str().expect("a reply id");
    let response = http
        .get(format!(
            "{url}/api/chat/sessions/{sid}/reply?reply_id={reply_id}"
        ))
        .send()
        .await
        .expect("reply stream");
    SseReader::new(response)
}
