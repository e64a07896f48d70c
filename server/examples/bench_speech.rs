//! Benchmark (issue 28): how long the local recogniser takes from the end
//! of an utterance to its text, what loading it costs, and the memory it
//! adds. Prints figures; asserts nothing. Run with
//!
//! ```sh
//! scripts/local-model.sh ensure
//! cargo run --release -p imprint --example bench_speech -- [RUNS] [THREADS] [MIN_FRAMES] [BEAM]
//! ```
//!
//! (defaults: 20 runs, the recogniser's default threads, context and beam).
//!
//! # Method
//! - The utterance: "Remind me to call Anna tomorrow at nine", said by
//!   espeak-ng (en-us, 140 words a minute, about 3.1 s), resampled by sox.
//! - Latency: the whole utterance is handed to `Speech::transcribe` (the
//!   server's path: the speech thread and its queue) the moment it ends;
//!   the clock stops at the text. One utterance at a time, as the server
//!   hears them. The first run (warm-up) is counted in the memory, not in
//!   the latency.
//! - The same with the options of a question as the hint ("Billing" said,
//!   options Imprint, Billing, Garden).
//! - Memory: VmRSS before loading, and after the load and the first run.

#[path = "speech_support/mod.rs"]
mod speech_support;

use std::time::{Duration, Instant};

use imprint::speech::{mel::LogMel, Engine, Hint, Speech, Tuning, Whisper};
use speech_support::{load_average, percentile, rss_mb};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).and_then(|a| a.parse::<usize>().ok());
    let runs = arg(0).unwrap_or(20).max(1);
    let defaults = Tuning::default();
    let tuning = Tuning {
        threads: arg(1).unwrap_or(defaults.threads),
        min_frames: arg(2).unwrap_or(defaults.min_frames),
        beam: arg(3).unwrap_or(defaults.beam),
        ..defaults
    };
    let dir = speech_support::model_dir()?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let said = "Remind me to call Anna tomorrow at nine";
    let request = speech_support::speak(said, "en-us", 140, work.path(), "request")?;
    let request = speech_support::read_wav(&request)?;
    let billing = speech_support::speak("Billing", "en-us", 140, work.path(), "billing")?;
    let billing = speech_support::read_wav(&billing)?;
    let options = Hint {
        options: vec!["Imprint".into(), "Billing".into(), "Garden".into()],
        ..Hint::default()
    };

    println!(
        "bench_speech: {runs} runs, {tuning:?}, {} cores",
        num_cores()
    );
    println!("load average before: {}", load_average());
    let rss_before = rss_mb();
    let started = Instant::now();
    let mut whisper = Whisper::load_with(&dir, tuning).map_err(|e| e.to_string())?;
    let load = started.elapsed();
    let first = Instant::now();
    let heard = whisper.transcribe(&request, &Hint::default())?;
    let first = first.elapsed();
    let rss_after = rss_mb();
    println!("load: {:.0} ms; first run: {:.0} ms", ms(load), ms(first));
    println!(
        "RSS: {rss_before:.0} MB before, {rss_after:.0} MB after load and first run: +{:.0} MB",
        rss_after - rss_before
    );
    println!(
        "audio {:.2} s, {} encoder frames → {:?} (confidence {:?})",
        request.len() as f32 / 16_000.0,
        tuning.frames_for(request.len()),
        heard.text,
        heard.confidence
    );

    let mel = LogMel::new(80);
    let t = Instant::now();
    for _ in 0..10 {
        std::hint::black_box(mel.compute(&request, tuning.frames_for(request.len())));
    }
    println!("log-mel alone: {:.2} ms", ms(t.elapsed()) / 10.0);

    let speech = Speech::start(whisper).map_err(|e| e.to_string())?;
    println!("recogniser: {}", speech.recogniser());
    for (case, samples, hint) in [
        ("3 s request, no hint", &request, Hint::default()),
        ("\"Billing\" with 3 options", &billing, options),
    ] {
        let mut times = Vec::new();
        let mut texts = std::collections::BTreeMap::<String, usize>::new();
        for _ in 0..runs {
            let t = Instant::now();
            let heard = speech
                .transcribe(samples.clone(), hint.clone())
                .await
                .map_err(|e| e.to_string())?;
            times.push(ms(t.elapsed()));
            *texts.entry(heard.text).or_default() += 1;
        }
        println!(
            "{case}: p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms; heard {texts:?}",
            percentile(&times, 50.0),
            percentile(&times, 95.0),
            percentile(&times, 100.0),
        );
    }
    println!("load average after: {}", load_average());
    Ok(())
}

fn num_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
