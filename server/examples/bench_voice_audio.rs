//! Issue 41: the server stays responsive while voice sockets stream audio.
//! Four sockets send microphone audio (16 kHz s16le, 4,096-sample frames)
//! as fast as the server takes it, each frame heard by the voice-activity
//! detector, while a client asks `/api/chat/status` over and over; then the
//! same requests with no audio, for comparison. Prints p50/p99/max of the
//! status requests and the audio the server took (seconds of audio per
//! second). Target: p99 ≤ 50 ms with the sockets streaming.
//!
//! The audio is noise (never voiced), so no utterance reaches the
//! recogniser: what is measured is the detector's cost and where it runs.
//!
//! ```sh
//! cargo build --release -p imprint --bins --examples
//! target/release/examples/bench_voice_audio [SECONDS] [SOCKETS]
//! ```
//!
//! Needs the speech weights (`scripts/local-model.sh ensure`): a server
//! without a recogniser refuses `audio_start`.

#[path = "bench_support/mod.rs"]
mod bench_support;
#[path = "speech_support/mod.rs"]
mod speech_support;

use std::time::{Duration, Instant};

use app::protocol::{AUDIO_FORMAT, AUDIO_SAMPLE_RATE};
use bench_support::{ms, Child, Samples};
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// Samples a frame: 256 ms.
const FRAME_SAMPLES: usize = 4_096;

/// White noise the detector scores as not voiced.
fn noise_frame(seed: u32) -> Vec<u8> {
    let mut state = seed | 1;
    (0..FRAME_SAMPLES)
        .flat_map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let s = ((state as f32 / u32::MAX as f32 - 0.5) * 0.3 * f32::from(i16::MAX)) as i16;
            s.to_le_bytes()
        })
        .collect()
}

/// Opens a socket, starts its microphone and sends frames until `until`;
/// returns the samples sent.
async fn stream(url: String, seed: u32, until: Instant) -> usize {
    let (mut socket, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("the voice socket opens");
    let send = |v: Value| Message::Text(v.to_string().into());
    socket.send(send(json!({"type": "hello"}))).await.unwrap();
    socket
        .send(send(json!({"type": "audio_start", "format": AUDIO_FORMAT, "sample_rate": AUDIO_SAMPLE_RATE})))
        .await
        .unwrap();
    // Wait for the answer to audio_start (ready, or why not).
    loop {
        let Some(Ok(Message::Text(text))) = socket.next().await else {
            panic!("the socket closed before audio_ready");
        };
        let message: Value = serde_json::from_str(&text).unwrap_or_default();
        match message["type"].as_str() {
            Some("audio_ready") => break,
            Some("audio_unavailable") => panic!("audio refused: {message}"),
            _ => {}
        }
    }
    let frame = noise_frame(seed);
    let (mut sink, mut read) = socket.split();
    // Read whatever the server says, so its sends never back up.
    let reader = tokio::spawn(async move { while read.next().await.is_some() {} });
    let mut sent = 0;
    while Instant::now() < until {
        if sink
            .send(Message::Binary(frame.clone().into()))
            .await
            .is_err()
        {
            break;
        }
        sent += FRAME_SAMPLES;
    }
    let _ = sink.close().await;
    reader.abort();
    sent
}

/// `/api/chat/status` asked one after another until `until`: each
/// request's time.
async fn ask_status(http: &reqwest::Client, url: &str, until: Instant) -> Vec<f64> {
    let mut times = Vec::new();
    while Instant::now() < until {
        let t = Instant::now();
        let response = http
            .get(format!("{url}/api/chat/status"))
            .send()
            .await
            .expect("status answers");
        assert!(response.status().is_success());
        let _ = response.bytes().await;
        times.push(ms(t.elapsed()));
    }
    times
}

fn line(label: &str, times: Vec<f64>) {
    let p = Samples::new(times);
    println!(
        "{label}: {} requests, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        p.len(),
        p.pct(50.0),
        p.pct(99.0),
        p.max()
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), String> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let seconds = args.first().copied().unwrap_or(10);
    let sockets = args.get(1).copied().unwrap_or(4) as u32;
    let binary = bench_support::imprint_binary()?;
    let model = speech_support::model_dir()?;
    let data = tempfile::tempdir().map_err(|e| e.to_string())?;
    let server = Child::spawn(
        &binary,
        &[
            ("IMPRINT_ADDR", "127.0.0.1:0".into()),
            ("IMPRINT_DATA_DIR", data.path().display().to_string()),
            ("IMPRINT_SPEECH_MODEL_DIR", model.display().to_string()),
        ],
    )
    .await;
    let url = server.url.clone();
    let ws = format!("{}/api/voice/ws", url.replace("http://", "ws://"));
    let http = reqwest::Client::new();
    println!(
        "bench_voice_audio: {sockets} sockets, {seconds} s each phase, load average {}",
        bench_support::load_average()
    );

    let quiet = ask_status(&http, &url, Instant::now() + Duration::from_secs(seconds)).await;
    line("status, no audio          ", quiet);

    let until = Instant::now() + Duration::from_secs(seconds);
    let streams: Vec<_> = (0..sockets)
        .map(|i| tokio::spawn(stream(ws.clone(), 0x2545_f491 + i, until)))
        .collect();
    let busy = ask_status(&http, &url, until).await;
    let mut samples = 0;
    for s in streams {
        samples += s.await.map_err(|e| e.to_string())?;
    }
    line(&format!("status, {sockets} sockets streaming"), busy);
    println!(
        "audio taken: {:.1} s of audio per second ({:.1}x real time per socket)",
        samples as f64 / f64::from(AUDIO_SAMPLE_RATE) / seconds as f64,
        samples as f64 / f64::from(AUDIO_SAMPLE_RATE) / seconds as f64 / f64::from(sockets)
    );
    println!("load average after: {}", bench_support::load_average());
    server.stop().await;
    Ok(())
}
