//! What the speech benchmark, the accuracy run and the speech test share:
//! where the weights are, speech made by espeak-ng and sox, WAVs read back
//! as 16 kHz samples, and the process's memory and load.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The speech weights: `IMPRINT_SPEECH_MODEL_DIR`, else the cached folder.
pub fn model_dir() -> Result<PathBuf, String> {
    let dir = std::env::var_os("IMPRINT_SPEECH_MODEL_DIR")
        .map(PathBuf::from)
        .or_else(imprint::speech::cached_model_dir)
        .ok_or("no cache directory: set IMPRINT_SPEECH_MODEL_DIR")?;
    if !dir.join("model.bin").is_file() {
        return Err(format!(
            "no speech weights in {}: run scripts/local-model.sh ensure \
             (or scripts/speech-model.sh ensure)",
            dir.display()
        ));
    }
    Ok(dir)
}

/// `text` said by espeak-ng (`voice`, `speed` words a minute) into
/// `dir/name`, resampled by sox to 16 kHz mono 16-bit.
pub fn speak(
    text: &str,
    voice: &str,
    speed: u32,
    dir: &Path,
    name: &str,
) -> Result<PathBuf, String> {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
    run(Command::new("espeak-ng")
        .args(["-v", voice, "-s", &speed.to_string(), "-w"])
        .arg(&raw)
        .arg(text))?;
    run(Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16"])
        .arg(&out))?;
    let _ = std::fs::remove_file(&raw);
    Ok(out)
}

fn run(command: &mut Command) -> Result<(), String> {
    let name = command.get_program().to_string_lossy().into_owned();
    match command.output() {
        Ok(done) if done.status.success() => Ok(()),
        Ok(done) => Err(format!(
            "{name} failed ({}): {}",
            done.status,
            String::from_utf8_lossy(&done.stderr)
        )),
        Err(e) => Err(format!(
            "cannot run {name} ({e}): install espeak-ng and sox with scripts/setup.sh"
        )),
    }
}

/// A 16 kHz mono 16-bit WAV as samples in −1..1.
pub fn read_wav(path: &Path) -> Result<Vec<f32>, String> {
    let reader = hound::WavReader::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let spec = reader.spec();
    if spec.sample_rate != imprint::speech::SAMPLE_RATE
        || spec.channels != 1
        || spec.bits_per_sample != 16
        || spec.sample_format != hound::SampleFormat::Int
    {
        return Err(format!(
            "{}: not 16 kHz mono 16-bit: {spec:?}",
            path.display()
        ));
    }
    reader
        .into_samples::<i16>()
        .map(|s| s.map(|v| f32::from(v) / 32768.0))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The process's resident memory, in MB (Linux).
pub fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// The 1, 5 and 15 minute load averages (Linux).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The p-th percentile (0–100, nearest rank) of `values`.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
