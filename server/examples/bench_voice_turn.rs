//! Issue 41: a voice turn, from the end of a spoken request to the first
//! word of the reply, with the built-in model. A request is said in
//! Piper's natural voice (`scripts/piper-voice.sh`), sent over Echo's
//! socket as the page's microphone sends it (16 kHz s16le, 80 ms frames,
//! paced at real time, then silence as a quiet room gives), and the clock
//! runs from the last voiced sample to the first `token` of the reply (a
//! memory read) or to the `question` (a question asked back), as the page
//! receives them. Also printed: when the server said the speech ended
//! (`thinking`) and what it heard (`heard`). Target: p50 ≤ 1.5 s for a
//! memory read.
//!
//! ```sh
//! cargo build --release -p imprint --bins --examples
//! target/release/examples/bench_voice_turn [ROUNDS]
//! ```
//!
//! The model comes from `IMPRINT_CHAT_*` (else the built-in one is
//! started, as `bench_replies` does). Needs the speech and embedding
//! weights (`scripts/local-model.sh ensure`) and Piper
//! (`scripts/piper-voice.sh ensure`).

#[path = "bench_support/mod.rs"]
mod bench_support;
#[path = "speech_support/mod.rs"]
mod speech_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use app::protocol::{AUDIO_FORMAT, AUDIO_SAMPLE_RATE};
use bench_support::{ms, Child, Samples};
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// What the page's microphone sends at once: 80 ms.
const FRAME_SAMPLES: usize = 1_280;

/// The memories the requests are about, near misses among them.
const MEMORIES: &[&str] = &[
    "The front door keypad code is 4817.",
    "The garage keypad code is 4871.",
    "Miso (the cat) has a vet appointment on Tuesday 8 December at 5.20pm.",
    "Biscuit (the dog) has a vet appointment on Thursday 17 December, drop-off by 8am.",
    "The plumber is Jan Novak, 0176 555 1234.",
    "Dana's birthday is 22 January.",
    "The bins go out on Monday night.",
    "Car insurance with RAA renews on 1 March.",
];

/// The spoken requests: a memory read, and one that two memories fit.
const REQUESTS: &[(&str, &str)] = &[
    ("read", "What's the code for the front door?"),
    ("read", "When do the bins go out?"),
    ("asked back", "What's the keypad code?"),
];

/// Says each request with Piper and resamples it to 16 kHz; the samples.
fn speak_all(dir: &Path) -> Result<Vec<Vec<i16>>, String> {
    let script = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/piper-voice.sh"
    ));
    let lines: String = REQUESTS
        .iter()
        .enumerate()
        .map(|(i, (_, text))| {
            format!(
                "1.0\t{}\t{text}\n",
                dir.join(format!("{i}.22k.wav")).display()
            )
        })
        .collect();
    let mut piper = std::process::Command::new(&script)
        .arg("speak")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    use std::io::Write;
    piper
        .stdin
        .take()
        .expect("piped")
        .write_all(lines.as_bytes())
        .map_err(|e| e.to_string())?;
    if !piper.wait().map_err(|e| e.to_string())?.success() {
        return Err("Piper failed: run scripts/piper-voice.sh ensure".into());
    }
    (0..REQUESTS.len())
        .map(|i| {
            let out = dir.join(format!("{i}.wav"));
            let status = std::process::Command::new("sox")
                .arg(dir.join(format!("{i}.22k.wav")))
                .args(["-r", "16000", "-c", "1", "-b", "16"])
                .arg(&out)
                .status()
                .map_err(|e| format!("cannot run sox: {e}"))?;
            if !status.success() {
                return Err("sox failed".into());
            }
            let samples = speech_support::read_wav(&out)?;
            Ok(samples.iter().map(|s| (s * 32767.0) as i16).collect())
        })
        .collect()
}

/// The last sample louder than a quiet room, as an index.
fn speech_end(samples: &[i16]) -> usize {
    let window = 160;
    samples
        .chunks(window)
        .rposition(|c| {
            let rms =
                (c.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / c.len() as f64).sqrt();
            rms > 300.0
        })
        .map_or(samples.len(), |i| (i + 1) * window)
}

fn frame_bytes(samples: &[i16]) -> Vec<u8> {
    samples.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// One voice turn's times after the end of speech, in ms.
struct Turn {
    thinking: f64,
    heard: f64,
    first: f64,
    text: String,
    first_kind: String,
}

async fn turn(ws: &str, samples: &[i16], wanted: &str) -> Result<Turn, String> {
    let (socket, _) = tokio_tungstenite::connect_async(ws)
        .await
        .map_err(|e| format!("the voice socket: {e}"))?;
    let (mut sink, mut read) = socket.split();
    let send = |v: Value| Message::Text(v.to_string().into());
    sink.send(send(json!({"type": "hello"})))
        .await
        .map_err(|e| e.to_string())?;
    sink.send(send(
        json!({"type": "audio_start", "format": AUDIO_FORMAT, "sample_rate": AUDIO_SAMPLE_RATE}),
    ))
    .await
    .map_err(|e| e.to_string())?;
    loop {
        let Some(Ok(Message::Text(text))) = read.next().await else {
            return Err("the socket closed before audio_ready".into());
        };
        let message: Value = serde_json::from_str(&text).unwrap_or_default();
        match message["type"].as_str() {
            Some("audio_ready") => break,
            Some("audio_unavailable") => return Err(format!("audio refused: {message}")),
            _ => {}
        }
    }
    // The microphone: the request, then silence, each frame at its time.
    let end = speech_end(samples);
    let started = Instant::now();
    let spoken_end = started + Duration::from_secs_f64(end as f64 / f64::from(AUDIO_SAMPLE_RATE));
    let owned = samples.to_vec();
    let microphone = tokio::spawn(async move {
        let silence = vec![0i16; FRAME_SAMPLES];
        let mut sent = 0usize;
        let mut at = tokio::time::Instant::from_std(started);
        loop {
            let frame = owned
                .get(sent..(sent + FRAME_SAMPLES).min(owned.len()))
                .filter(|f| !f.is_empty());
            let bytes = frame_bytes(frame.unwrap_or(&silence));
            if sink.send(Message::Binary(bytes.into())).await.is_err() {
                break;
            }
            sent += FRAME_SAMPLES;
            at += Duration::from_secs_f64(FRAME_SAMPLES as f64 / f64::from(AUDIO_SAMPLE_RATE));
            tokio::time::sleep_until(at).await;
        }
    });
    let after = |t: Instant| ms(t.saturating_duration_since(spoken_end));
    let (mut thinking, mut heard, mut text) = (f64::NAN, f64::NAN, String::new());
    let result = loop {
        let Some(Ok(message)) = read.next().await else {
            break Err("the socket closed before the reply began".to_string());
        };
        let Message::Text(raw) = message else {
            continue;
        };
        let message: Value = serde_json::from_str(&raw).unwrap_or_default();
        let now = Instant::now();
        match message["type"].as_str().unwrap_or_default() {
            "thinking" => thinking = after(now),
            "heard" => {
                heard = after(now);
                text = message["text"].as_str().unwrap_or_default().to_string();
            }
            kind @ ("token" | "question") => {
                break Ok(Turn {
                    thinking,
                    heard,
                    first: after(now),
                    text: text.clone(),
                    first_kind: kind.to_string(),
                })
            }
            "ignored" | "error" => break Err(format!("not taken: {message}")),
            _ => {}
        }
    };
    microphone.abort();
    let turn = result?;
    if turn.first_kind != wanted {
        return Err(format!(
            "“{}” began with a {} where a {wanted} was expected",
            turn.text, turn.first_kind
        ));
    }
    Ok(turn)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), String> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let binary = bench_support::imprint_binary()?;
    let speech = speech_support::model_dir()?;
    let audio = tempfile::tempdir().map_err(|e| e.to_string())?;
    let spoken = speak_all(audio.path())?;
    let (mut env, _model) = bench_support::model_env().await;
    let data = tempfile::tempdir().map_err(|e| e.to_string())?;
    env.push(("IMPRINT_ADDR", "127.0.0.1:0".into()));
    env.push(("IMPRINT_DATA_DIR", data.path().display().to_string()));
    env.push(("IMPRINT_SPEECH_MODEL_DIR", speech.display().to_string()));
    let server = Child::spawn(&binary, &env).await;
    let http = reqwest::Client::new();
    for memory in MEMORIES {
        let response = http
            .post(format!("{}/api/memories", server.url))
            .json(&json!({"content": memory}))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("storing a memory: {}", response.status()));
        }
    }
    let ws = format!("{}/api/voice/ws", server.url.replace("http://", "ws://"));
    println!(
        "bench_voice_turn: {rounds} rounds of {} spoken requests (Piper, 16 kHz, 80 ms frames at real time), load average {}",
        REQUESTS.len(),
        bench_support::load_average()
    );
    let mut by_kind: Vec<(&str, Vec<Turn>)> = Vec::new();
    for round in 0..rounds {
        for ((kind, request), samples) in REQUESTS.iter().zip(&spoken) {
            let wanted = if *kind == "read" { "token" } else { "question" };
            // A new conversation each time: a question left waiting would
            // take the next request as its answer.
            let turn = turn(&ws, samples, wanted).await?;
            if round == 0 {
                println!("  “{request}” heard as “{}”", turn.text);
            }
            match by_kind.iter_mut().find(|(k, _)| k == kind) {
                Some((_, turns)) => turns.push(turn),
                None => by_kind.push((kind, vec![turn])),
            }
        }
    }
    for (kind, turns) in &by_kind {
        let pick = |f: fn(&Turn) -> f64| Samples::new(turns.iter().map(f).collect());
        let (thinking, heard, first) = (pick(|t| t.thinking), pick(|t| t.heard), pick(|t| t.first));
        println!(
            "{kind:>10}: {} turns; end of speech → speech ended p50 {:.0} ms; → heard p50 {:.0} ms; → first {} p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            turns.len(),
            thinking.pct(50.0),
            heard.pct(50.0),
            if *kind == "read" { "word" } else { "question" },
            first.pct(50.0),
            first.pct(95.0),
            first.max()
        );
    }
    println!("load average after: {}", bench_support::load_average());
    server.stop().await;
    Ok(())
}
