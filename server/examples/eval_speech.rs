//! Accuracy (issue 28): the local recogniser on the espeak-ng set made by
//! `scripts/speech-samples.sh`. Prints figures; asserts nothing. Run with
//!
//! ```sh
//! scripts/local-model.sh ensure && scripts/speech-samples.sh
//! cargo run --release -p imprint --example eval_speech -- [DIR] [THREADS] [MIN_FRAMES] [BEAM]
//! ```
//!
//! - Word error rate: (substitutions + deletions + insertions) / words
//!   said, after lower-casing, dropping punctuation and apostrophes, and
//!   writing the numbers 0–20 and the first five ordinals as words ("9"
//!   and "nine" are the same word).
//! - Option answers and ordinals are heard with the question's options as
//!   the hint, and matched by the app's own `match_option`.
//! - "Stop" must be the app's `is_stop` every time.

#[path = "speech_support/mod.rs"]
mod speech_support;

use std::path::PathBuf;
use std::time::Instant;

use app::logic::voice::{is_stop, match_option};
use imprint::speech::{Engine, Hint, Tuning, Whisper};

const NUMBERS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];
const ORDINALS: [(&str, &str); 5] = [
    ("1st", "first"),
    ("2nd", "second"),
    ("3rd", "third"),
    ("4th", "fourth"),
    ("5th", "fifth"),
];

/// Words as compared: lower case, no punctuation, small numbers as words.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace('\'', "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            if let Some(n) = w.parse::<usize>().ok().filter(|n| *n < NUMBERS.len()) {
                return NUMBERS[n].to_string();
            }
            ORDINALS
                .iter()
                .find(|(short, _)| *short == w)
                .map_or_else(|| w.to_string(), |(_, long)| long.to_string())
        })
        .collect()
}

/// Word-level edit distance.
fn errors(said: &[String], heard: &[String]) -> usize {
    let mut row: Vec<usize> = (0..=heard.len()).collect();
    for (i, s) in said.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, h) in heard.iter().enumerate() {
            let cost = usize::from(s != h);
            let next = (row[j] + 1).min(row[j + 1] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[heard.len()]
}

struct Tally {
    words: usize,
    errors: usize,
    right: usize,
    count: usize,
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().map(PathBuf::from).unwrap_or_else(|| {
        imprint::speech::cached_model_dir()
            .and_then(|d| d.parent()?.parent().map(|p| p.join("speech-samples")))
            .unwrap_or_default()
    });
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<usize>().ok());
    let defaults = Tuning::default();
    let tuning = Tuning {
        threads: number(1).unwrap_or(defaults.threads),
        min_frames: number(2).unwrap_or(defaults.min_frames),
        beam: number(3).unwrap_or(defaults.beam),
        ..defaults
    };
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).map_err(|e| {
        format!(
            "{}: {e} (make the set with scripts/speech-samples.sh)",
            dir.display()
        )
    })?;
    let mut whisper =
        Whisper::load_with(&speech_support::model_dir()?, tuning).map_err(|e| e.to_string())?;
    println!("eval_speech: {}, {tuning:?}", dir.display());
    println!("load average before: {}", speech_support::load_average());

    let mut tallies: std::collections::BTreeMap<&str, Tally> = Default::default();
    let mut times = Vec::new();
    for line in manifest.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [file, kind, text, options] = fields[..] else {
            return Err(format!("bad manifest line: {line:?}"));
        };
        let options: Vec<String> = options
            .split('|')
            .filter(|o| !o.is_empty())
            .map(String::from)
            .collect();
        let samples = speech_support::read_wav(&dir.join(file))?;
        let t = Instant::now();
        let heard = whisper.transcribe(
            &samples,
            &Hint {
                options: options.clone(),
                ..Hint::default()
            },
        )?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        let (said_words, heard_words) = (words(text), words(&heard.text));
        let wrong = errors(&said_words, &heard_words);
        let right = match kind {
            "stop" => is_stop(&heard.text),
            "option" => match_option(&heard.text, &options).as_deref() == Some(text),
            "ordinal" => {
                let expected = match said_words.get(1).map(String::as_str) {
                    Some("first") => options.first(),
                    Some("second") => options.get(1),
                    _ => options.last(),
                };
                match_option(&heard.text, &options).as_ref() == expected
            }
            _ => wrong == 0,
        };
        let tally = tallies.entry(kind_name(kind)).or_insert(Tally {
            words: 0,
            errors: 0,
            right: 0,
            count: 0,
        });
        tally.words += said_words.len();
        tally.errors += wrong;
        tally.right += usize::from(right);
        tally.count += 1;
        let mark = if right { "ok " } else { "MISS" };
        println!(
            "{mark} {file} {kind:8} said {text:?} heard {:?} ({wrong} errors, confidence {:.2})",
            heard.text,
            heard.confidence.unwrap_or(f32::NAN)
        );
    }
    let (mut all_words, mut all_errors) = (0, 0);
    println!();
    for (kind, t) in &tallies {
        all_words += t.words;
        all_errors += t.errors;
        println!(
            "{kind:9} {}/{} right; WER {:.1} % ({} errors in {} words)",
            t.right,
            t.count,
            100.0 * t.errors as f64 / t.words.max(1) as f64,
            t.errors,
            t.words
        );
    }
    println!(
        "all       WER {:.1} % ({all_errors} errors in {all_words} words); {} utterances, \
         transcription p50 {:.0} ms, p95 {:.0} ms",
        100.0 * all_errors as f64 / all_words.max(1) as f64,
        times.len(),
        speech_support::percentile(&times, 50.0),
        speech_support::percentile(&times, 95.0),
    );
    println!("load average after: {}", speech_support::load_average());
    Ok(())
}

fn kind_name(kind: &str) -> &'static str {
    match kind {
        "stop" => "stop",
        "option" => "option",
        "ordinal" => "ordinal",
        _ => "request",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_punctuation_do_not_count() {
        assert_eq!(
            words("At 9, the plumber's."),
            ["at", "nine", "the", "plumbers"]
        );
        assert_eq!(
            errors(&words("call Anna at nine"), &words("Call out at 9.")),
            1
        );
        assert_eq!(errors(&words("a b c"), &words("a c d e")), 3);
    }
}
