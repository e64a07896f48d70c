//! Echo's self-hearing filter at its caps: an utterance of the longest
//! length allowed, checked against the most spoken texts the caps allow
//! (every `speaking` entry, the reply being spoken and the question, each
//! at its cap). Prints the median and 95th percentile of one check.
//!
//! `cargo run --release -p imprint --example bench_echo_filter` (target: ≤ 5 ms)

use std::time::{Duration, Instant};

use imprint::voice::{MAX_SPOKEN_CHARS, MAX_SPOKEN_ENTRIES, MAX_UTTERANCE_CHARS};
use imprint_text::voice::is_echo;

/// Text of about `chars` characters made of distinct words, so neither the
/// phrase test nor the word test finds a match early.
fn text(prefix: &str, chars: usize) -> String {
    let mut out = String::with_capacity(chars + 16);
    let mut i = 0;
    while out.len() < chars {
        out.push_str(&format!("{prefix}{i} "));
        i += 1;
    }
    out.truncate(chars);
    out
}

fn main() {
    let utterance = text("heard", MAX_UTTERANCE_CHARS);
    // The `speaking` entries, plus the reply being spoken and the question.
    let spoken: Vec<String> = (0..MAX_SPOKEN_ENTRIES + 2)
        .map(|n| text(&format!("said{n}x"), MAX_SPOKEN_CHARS))
        .collect();
    // The worst case for the word test: every word heard was said, too few
    // to count as echo; the last entry shares most words.
    let mut overlapping = spoken.clone();
    let half: String = utterance
        .split(' ')
        .step_by(2)
        .collect::<Vec<_>>()
        .join(" ");
    overlapping[MAX_SPOKEN_ENTRIES + 1] = format!(
        "{half} {}",
        text("more", MAX_SPOKEN_CHARS - half.len().min(MAX_SPOKEN_CHARS))
    );
    for (name, spoken) in [("disjoint", &spoken), ("half shared", &overlapping)] {
        assert!(!is_echo(&utterance, spoken, &[]));
        let mut times: Vec<Duration> = (0..200)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(is_echo(
                    std::hint::black_box(&utterance),
                    std::hint::black_box(spoken),
                    &[],
                ));
                start.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "echo filter, {name}: utterance {} chars vs {} texts of {} chars: median {:.3} ms, p95 {:.3} ms (target ≤ 5 ms)",
            utterance.chars().count(),
            spoken.len(),
            MAX_SPOKEN_CHARS,
            times[times.len() / 2].as_secs_f64() * 1000.0,
            times[times.len() * 95 / 100].as_secs_f64() * 1000.0,
        );
    }
}
