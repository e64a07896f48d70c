//! Whisper's log-mel spectrogram, computed for only the frames the encoder
//! will read (candle's `pcm_to_mel` always pads to 30 s).
//!
//! As Whisper: a 400-sample Hann window every 160 samples (25 ms / 10 ms at
//! 16 kHz), the signal reflected 200 samples at its start and followed by
//! silence; the power spectrum through 80 slaney mel filters; log10 floored
//! at 1e-10 and at 8 below the loudest value; then (x + 4) / 4. A frame
//! whose window holds only the silence after the audio is all floor, so
//! only frames that touch the audio go through the FFT.

use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use super::SAMPLE_RATE;

pub const N_FFT: usize = 400;
pub const HOP: usize = 160;
/// Mel frames per second of audio.
pub const FRAMES_PER_SECOND: usize = SAMPLE_RATE as usize / HOP;

/// The filters, window and FFT plan, made once per recogniser.
pub struct LogMel {
    n_mels: usize,
    /// n_mels × (N_FFT / 2 + 1), row by mel bin.
    filters: Vec<f32>,
    window: Vec<f32>,
    fft: Arc<dyn Fft<f32>>,
}

impl LogMel {
    pub fn new(n_mels: usize) -> Self {
        let window = (0..N_FFT)
            .map(|i| {
                let x = 2.0 * std::f64::consts::PI * i as f64 / N_FFT as f64;
                (0.5 - 0.5 * x.cos()) as f32
            })
            .collect();
        Self {
            n_mels,
            filters: mel_filters(n_mels, N_FFT, f64::from(SAMPLE_RATE)),
            window,
            fft: FftPlanner::new().plan_fft_forward(N_FFT),
        }
    }

    pub fn n_mels(&self) -> usize {
        self.n_mels
    }

    /// `frames` frames of `samples` (16 kHz mono) followed by silence, as
    /// n_mels rows of `frames` values.
    pub fn compute(&self, samples: &[f32], frames: usize) -> Vec<f32> {
        let bins = N_FFT / 2 + 1;
        let half = N_FFT / 2;
        // Frame t's window starts at t·HOP − 200 in the signal; past
        // `heard` frames it holds nothing but the silence after the audio.
        let heard = frames.min((samples.len() + half).div_ceil(HOP));
        let mut mel = vec![0f32; self.n_mels * frames];
        let mut buffer = vec![Complex::new(0f32, 0f32); N_FFT];
        let mut scratch = vec![Complex::new(0f32, 0f32); self.fft.get_inplace_scratch_len()];
        let mut power = vec![0f32; bins];
        for t in 0..heard {
            for (i, slot) in buffer.iter_mut().enumerate() {
                let at = (t * HOP + i) as isize - half as isize;
                *slot = Complex::new(sample(samples, at) * self.window[i], 0.0);
            }
            self.fft.process_with_scratch(&mut buffer, &mut scratch);
            for (p, c) in power.iter_mut().zip(&buffer) {
                *p = c.norm_sqr();
            }
            for m in 0..self.n_mels {
                let row = &self.filters[m * bins..(m + 1) * bins];
                mel[m * frames + t] = row.iter().zip(&power).map(|(f, p)| f * p).sum();
            }
        }
        let mut loudest = f32::NEG_INFINITY;
        for v in mel.iter_mut() {
            *v = v.max(1e-10).log10();
            loudest = loudest.max(*v);
        }
        let floor = loudest - 8.0;
        for v in mel.iter_mut() {
            *v = (v.max(floor) + 4.0) / 4.0;
        }
        mel
    }
}

/// The signal at `at`: reflected before its start (as numpy's "reflect"),
/// silence after its end.
fn sample(samples: &[f32], at: isize) -> f32 {
    samples.get(at.unsigned_abs()).copied().unwrap_or(0.0)
}

/// librosa's mel filterbank (slaney scale and norm), as Whisper's.
fn mel_filters(n_mels: usize, n_fft: usize, sample_rate: f64) -> Vec<f32> {
    let bins = n_fft / 2 + 1;
    let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(sample_rate / 2.0));
    let edges: Vec<f64> = (0..n_mels + 2)
        .map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (n_mels + 1) as f64))
        .collect();
    let mut out = vec![0f32; n_mels * bins];
    for i in 0..n_mels {
        let norm = 2.0 / (edges[i + 2] - edges[i]);
        for j in 0..bins {
            let f = j as f64 * sample_rate / n_fft as f64;
            let rising = (f - edges[i]) / (edges[i + 1] - edges[i]);
            let falling = (edges[i + 2] - f) / (edges[i + 2] - edges[i + 1]);
            out[i * bins + j] = (rising.min(falling).max(0.0) * norm) as f32;
        }
    }
    out
}

const F_SP: f64 = 200.0 / 3.0;
const MIN_LOG_HZ: f64 = 1000.0;
const MIN_LOG_MEL: f64 = MIN_LOG_HZ / F_SP;

fn log_step() -> f64 {
    6.4f64.ln() / 27.0
}

fn hz_to_mel(f: f64) -> f64 {
    if f < MIN_LOG_HZ {
        f / F_SP
    } else {
        MIN_LOG_MEL + (f / MIN_LOG_HZ).ln() / log_step()
    }
}

fn mel_to_hz(m: f64) -> f64 {
    if m < MIN_LOG_MEL {
        m * F_SP
    } else {
        MIN_LOG_HZ * ((m - MIN_LOG_MEL) * log_step()).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f32, seconds: f32) -> Vec<f32> {
        let n = (seconds * SAMPLE_RATE as f32) as usize;
        (0..n)
            .map(|i| 0.5 * (2.0 * std::f32::consts::PI * hz * i as f32 / SAMPLE_RATE as f32).sin())
            .collect()
    }

    /// The mel bin whose filter peaks nearest `hz`.
    fn bin_of(hz: f64) -> usize {
        let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(8000.0));
        let step = (hi - lo) / 81.0;
        ((hz_to_mel(hz) - lo) / step).round() as usize - 1
    }

    #[test]
    fn a_pure_tone_lands_in_its_mel_bin() {
        let mel = LogMel::new(80);
        for hz in [440.0, 1000.0, 2000.0] {
            let frames = 100;
            let out = mel.compute(&tone(hz, 1.0), frames);
            let t = 50; // a frame in the middle of the tone
            let loudest = (0..80)
                .max_by(|a, b| out[a * frames + t].total_cmp(&out[b * frames + t]))
                .unwrap();
            assert_eq!(loudest, bin_of(f64::from(hz)), "{hz} Hz");
        }
        assert_eq!(bin_of(1000.0), 26);
    }

    #[test]
    fn silence_is_the_floor_everywhere() {
        let mel = LogMel::new(80);
        let out = mel.compute(&vec![0.0; 16_000], 120);
        assert_eq!(out.len(), 80 * 120);
        // log10(1e-10) = −10, (−10 + 4) / 4
        assert!(
            out.iter().all(|v| (v + 1.5).abs() < 1e-5),
            "{:?}",
            &out[..4]
        );
    }

    #[test]
    fn frames_after_the_audio_are_floored_and_the_range_is_8() {
        let mel = LogMel::new(80);
        let frames = 300;
        let out = mel.compute(&tone(1000.0, 1.0), frames);
        let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let floor = max - 2.0; // 8 in log10, divided by 4
        let after = (0..80).map(|m| out[m * frames + 250]);
        assert!(after.into_iter().all(|v| (v - floor).abs() < 1e-6));
        assert!(out.iter().all(|v| *v >= floor - 1e-6));
    }

    #[test]
    fn a_short_input_and_a_long_frame_count_do_not_panic() {
        let mel = LogMel::new(80);
        assert_eq!(mel.compute(&[], 10).len(), 800);
        assert_eq!(mel.compute(&[0.3; 7], 2).len(), 160);
    }
}
