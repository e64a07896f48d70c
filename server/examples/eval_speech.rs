//! Accuracy (issues 28, 41): the local recogniser on the sets made by
//! `scripts/speech-samples.sh` (espeak-ng, Piper's natural voice, the
//! natural voice under noise at 10 and 5 dB SNR, background babble, and
//! babble under the speaker).
//! Prints figures; with `--check` it also fails (exit 1) when a set
//! misses its targets. Run with
//!
//! ```sh
//! scripts/local-model.sh ensure && scripts/speech-samples.sh
//! cargo run --release -p imprint --example eval_speech -- [--check] [DIR|SET...] [THREADS] [MIN_FRAMES] [BEAM]
//! ```
//!
//! DIR is the samples' folder (its sets are read in turn) or one set's
//! folder; a bare set name (`natural`) is a set of the default folder.
//!
//! - Word error rate: (substitutions + deletions + insertions) / words
//!   said, after lower-casing, dropping punctuation and apostrophes, and
//!   writing the numbers 0–20 and the first five ordinals as words ("9"
//!   and "nine" are the same word).
//! - Option answers and ordinals are heard with the question's options as
//!   the hint, and matched by the app's own `match_option`.
//! - "Stop" is heard with "Stop" in the hint (as while a reply runs) and
//!   must be the app's `heard_stop` every time; every request is heard that
//!   way too, and any `heard_stop` among them is a false stop.
//! - A transcript that says a sentence (or a run of four words) twice is
//!   a repeat.
//! - Babble (no answer, other people talking) is heard with a question's
//!   options as the hint, and counted: named an option, named none, or
//!   noise. Only the first may ever be taken as an answer (SPEC §6: the
//!   rest is `not_an_answer`).
//!
//! `--check` targets: the natural set's requests' WER ≤ 6 %, options,
//! ordinals and stops 100 %, no false stop, no repeat; at 10 dB SNR
//! options ≥ 95 % and WER ≤ 12 %; at 5 dB options ≥ 85 %; babble never
//! taken as an answer; with babble under the speaker, no false stop; and
//! in every set with answers, none heard as another choice sure enough to
//! be taken without a confirm.

#[path = "speech_support/mod.rs"]
mod speech_support;

use std::path::PathBuf;
use std::time::Instant;

use imprint::speech::{Engine, Hint, Tuning, Whisper};
use imprint_text::voice::{heard_stop, is_noise, judge_spoken_answer, match_option, SpokenAnswer};

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

#[derive(Default)]
struct Tally {
    words: usize,
    errors: usize,
    right: usize,
    count: usize,
    /// Confidences of what was heard right, and of what was not.
    sure_right: Vec<f64>,
    sure_wrong: Vec<f64>,
}

/// One set's figures.
#[derive(Default)]
struct SetFigures {
    tallies: std::collections::BTreeMap<&'static str, Tally>,
    false_stops: Vec<String>,
    repeats: Vec<String>,
    babble_taken: usize,
    babble_not_an_answer: usize,
    babble_noise: usize,
    /// Answers heard as another choice sure enough to be taken without a
    /// confirm: what Echo would wrongly give the reply.
    wrong_taken: Vec<String>,
    times: Vec<f64>,
}

/// Whether a transcript says something twice: a sentence, or a run of
/// four words.
fn says_twice(text: &str) -> bool {
    let sentences: Vec<Vec<String>> = text
        .split(['.', '!', '?'])
        .map(words)
        .filter(|w| !w.is_empty())
        .collect();
    let sentence_again = sentences
        .iter()
        .enumerate()
        .any(|(i, s)| sentences[..i].contains(s));
    let all = words(text);
    let runs: Vec<&[String]> = all.windows(4).collect();
    let run_again = runs
        .iter()
        .enumerate()
        .any(|(i, r)| runs[..i.saturating_sub(3)].contains(r));
    sentence_again || run_again
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => {
            println!("eval_speech --check: a set missed a target (above)");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool, String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    args.retain(|a| a != "--check");
    let default_dir = || {
        imprint::speech::cached_model_dir()
            .and_then(|d| d.parent()?.parent().map(|p| p.join("speech-samples")))
            .unwrap_or_default()
    };
    let (paths, numbers): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|a| a.parse::<usize>().is_err());
    let number = |i: usize| numbers.get(i).and_then(|a| a.parse::<usize>().ok());
    let mut sets: Vec<PathBuf> = Vec::new();
    for path in &paths {
        let given = PathBuf::from(path);
        let dir = if given.is_dir() {
            given
        } else {
            default_dir().join(path)
        };
        sets.extend(sets_in(&dir)?);
    }
    if paths.is_empty() {
        sets = sets_in(&default_dir())?;
    }
    let defaults = Tuning::default();
    let tuning = Tuning {
        threads: number(0).unwrap_or(defaults.threads),
        min_frames: number(1).unwrap_or(defaults.min_frames),
        beam: number(2).unwrap_or(defaults.beam),
        ..defaults
    };
    let mut whisper =
        Whisper::load_with(&speech_support::model_dir()?, tuning).map_err(|e| e.to_string())?;
    println!("eval_speech: {tuning:?}");
    println!("load average before: {}", speech_support::load_average());
    let mut passed = true;
    for set in &sets {
        let figures = eval_set(&mut whisper, set)?;
        report(set, &figures);
        let name = set.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if check {
            passed &= meets_targets(name, &figures);
        }
    }
    println!("load average after: {}", speech_support::load_average());
    if check && !sets.iter().any(|s| s.ends_with("natural")) {
        return Err("--check needs the natural set".into());
    }
    Ok(passed)
}

/// The sets under `dir` (its folders holding a manifest), or `dir` itself.
fn sets_in(dir: &std::path::Path) -> Result<Vec<PathBuf>, String> {
    if dir.join("manifest.tsv").is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut sets: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| {
            format!(
                "{}: {e} (make the sets with scripts/speech-samples.sh)",
                dir.display()
            )
        })?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.join("manifest.tsv").is_file())
        .collect();
    sets.sort();
    Ok(sets)
}

fn eval_set(whisper: &mut Whisper, dir: &std::path::Path) -> Result<SetFigures, String> {
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv"))
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    println!("\n== {}", dir.display());
    let mut figures = SetFigures::default();
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
        let hint = Hint {
            options: options.clone(),
            // Answers, stops and babble come while a reply runs.
            stop: kind != "request",
            ..Hint::default()
        };
        let t = Instant::now();
        let heard = whisper.transcribe(&samples, &hint)?;
        figures.times.push(t.elapsed().as_secs_f64() * 1000.0);
        let confidence = heard.confidence.map(f64::from);
        let (said_words, heard_words) = (words(text), words(&heard.text));
        let wrong = errors(&said_words, &heard_words);
        if says_twice(&heard.text) {
            figures.repeats.push(format!("{file}: {:?}", heard.text));
        }
        // The choice an answer means: the option said, or the one an
        // ordinal points at.
        let meant = match (kind, said_words.get(1).map(String::as_str)) {
            ("option", _) => Some(text.to_string()),
            ("ordinal", Some("first")) => options.first().cloned(),
            ("ordinal", Some("second")) => options.get(1).cloned(),
            ("ordinal", _) => options.last().cloned(),
            _ => None,
        };
        if let Some(meant) = &meant {
            if let SpokenAnswer::Take(taken) =
                judge_spoken_answer(&heard.text, confidence, &options, false)
            {
                if &taken != meant {
                    figures
                        .wrong_taken
                        .push(format!("{file}: {:?} taken as {taken:?}", heard.text));
                }
            }
        }
        let right = match kind {
            "stop" => heard_stop(&heard.text, confidence),
            "option" | "ordinal" => match_option(&heard.text, &options) == meant,
            "babble" => {
                if is_noise(&heard.text, confidence) {
                    figures.babble_noise += 1;
                } else if match_option(&heard.text, &options).is_some() {
                    figures.babble_taken += 1;
                } else {
                    figures.babble_not_an_answer += 1;
                }
                match_option(&heard.text, &options).is_none()
            }
            _ => wrong == 0,
        };
        if kind == "request" {
            // As while a reply runs: "Stop" in the hint, and a stop is false.
            let during_reply = whisper.transcribe(
                &samples,
                &Hint {
                    stop: true,
                    ..Hint::default()
                },
            )?;
            let sure = during_reply.confidence.map(f64::from);
            if heard_stop(&during_reply.text, sure) {
                figures
                    .false_stops
                    .push(format!("{file}: {:?}", during_reply.text));
            }
        }
        let tally = figures.tallies.entry(kind_name(kind)).or_default();
        tally.words += said_words.len();
        tally.errors += wrong;
        tally.right += usize::from(right);
        tally.count += 1;
        let sure = confidence.unwrap_or(f64::NAN);
        if right {
            tally.sure_right.push(sure);
        } else {
            tally.sure_wrong.push(sure);
        }
        let mark = if right { "ok " } else { "MISS" };
        println!(
            "{mark} {file} {kind:8} said {text:?} heard {:?} ({wrong} errors, confidence {sure:.2})",
            heard.text,
        );
    }
    Ok(figures)
}

fn report(set: &std::path::Path, figures: &SetFigures) {
    let name = set.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    let (mut all_words, mut all_errors) = (0, 0);
    println!("\n-- {name}");
    let range = |values: &[f64]| {
        let known: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if known.is_empty() {
            return "-".to_string();
        }
        let min = known.iter().copied().fold(f64::INFINITY, f64::min);
        format!(
            "min {min:.2} median {:.2}",
            speech_support::percentile(&known, 50.0)
        )
    };
    for (kind, t) in &figures.tallies {
        all_words += t.words;
        all_errors += t.errors;
        println!(
            "{name:8} {kind:9} {}/{} right; WER {:.1} % ({} errors in {} words); confidence right: {}, wrong: {}",
            t.right,
            t.count,
            100.0 * t.errors as f64 / t.words.max(1) as f64,
            t.errors,
            t.words,
            range(&t.sure_right),
            range(&t.sure_wrong),
        );
    }
    let requests = figures.tallies.get("request").map_or(0, |t| t.count);
    println!(
        "{name:8} false stops {}/{requests} requests {:?}; transcripts with a repeat {} {:?}",
        figures.false_stops.len(),
        figures.false_stops,
        figures.repeats.len(),
        figures.repeats
    );
    println!(
        "{name:8} answers taken as another choice without a confirm: {} {:?}",
        figures.wrong_taken.len(),
        figures.wrong_taken
    );
    if figures.tallies.contains_key("babble") {
        println!(
            "{name:8} babble: {} named an option, {} named none, {} noise (SPEC 6: only a named option may be taken)",
            figures.babble_taken, figures.babble_not_an_answer, figures.babble_noise
        );
    }
    println!(
        "{name:8} all WER {:.1} % ({all_errors} errors in {all_words} words); {} utterances, \
         transcription p50 {:.0} ms, p95 {:.0} ms",
        100.0 * all_errors as f64 / all_words.max(1) as f64,
        figures.times.len(),
        speech_support::percentile(&figures.times, 50.0),
        speech_support::percentile(&figures.times, 95.0),
    );
}

/// A set's targets (issue 41), by its name; a set with none (espeak's
/// formant voice) passes.
fn meets_targets(name: &str, figures: &SetFigures) -> bool {
    let t = |kind| figures.tallies.get(kind);
    let wer = t("request").map_or(1.0, |t| t.errors as f64 / t.words.max(1) as f64);
    // The share of `kind` heard right, 0 when the set has none.
    let share = |kind| t(kind).map_or(0.0, |t| t.right as f64 / t.count.max(1) as f64);
    let never_wrong = figures.wrong_taken.is_empty();
    let checks: Vec<(&str, bool)> = match name {
        "natural" => vec![
            ("requests' WER <= 6 %", wer <= 0.06),
            ("every option matched", share("option") == 1.0),
            ("every ordinal matched", share("ordinal") == 1.0),
            ("every stop heard", share("stop") == 1.0),
            ("no false stop", figures.false_stops.is_empty()),
            ("no transcript with a repeat", figures.repeats.is_empty()),
            ("no answer taken as another choice", never_wrong),
        ],
        "snr10" => vec![
            ("requests' WER <= 12 %", wer <= 0.12),
            ("options >= 95 % matched", share("option") >= 0.95),
            ("no answer taken as another choice", never_wrong),
        ],
        "snr5" => vec![
            ("options >= 85 % matched", share("option") >= 0.85),
            ("no answer taken as another choice", never_wrong),
        ],
        // Two other voices talking 6 dB under the speaker: tiny.en hears
        // a third of the answers right (session 23); what must hold is
        // that none is taken as another choice without "Did you say…?",
        // and no request is heard as "stop".
        "babble-under" => vec![
            ("answers heard", t("option").is_some_and(|t| t.count > 0)),
            (
                "no answer taken as another choice without a confirm",
                never_wrong,
            ),
            ("no false stop", figures.false_stops.is_empty()),
        ],
        "babble" => vec![
            ("babble heard", t("babble").is_some_and(|t| t.count > 0)),
            ("no babble taken as an answer", figures.babble_taken == 0),
        ],
        _ => Vec::new(),
    };
    for (what, ok) in &checks {
        println!(
            "check {name}: {what}: {}",
            if *ok { "ok" } else { "MISSED" }
        );
    }
    checks.iter().all(|(_, ok)| *ok)
}

fn kind_name(kind: &str) -> &'static str {
    match kind {
        "stop" => "stop",
        "option" => "option",
        "ordinal" => "ordinal",
        "babble" => "babble",
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

    #[test]
    fn a_sentence_or_a_run_said_twice_is_a_repeat() {
        assert!(says_twice("Billing. Billing."));
        assert!(says_twice("call Anna at nine and call Anna at nine"));
        assert!(!says_twice("Remind me to call Anna. Remind me to pay."));
        assert!(
            !says_twice("no no no no no"),
            "overlapping runs are one run"
        );
        assert!(!says_twice(""));
    }
}
