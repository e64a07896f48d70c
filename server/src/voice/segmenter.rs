//! Where speech starts and ends in a socket's audio. earshot's
//! voice-activity network scores each 16 ms frame; a run of voiced frames
//! starts an utterance (with the moment before it, so its first sound is
//! not clipped), and a run of quiet frames ends it. An utterance longer
//! than [`MAX_UTTERANCE_SAMPLES`] is cut there, and the rest of that speech
//! is let go.

use std::collections::VecDeque;

use earshot::Detector;

/// Samples per second of the audio segmented (the socket's rate).
pub const SAMPLE_RATE: usize = 16_000;
/// earshot's frame: 256 samples, 16 ms.
pub const FRAME_SAMPLES: usize = 256;
/// A frame scoring at least this is voiced (earshot's suggested threshold).
const VOICED_SCORE: f32 = 0.5;
/// Voiced frames in a row that start speech: 192 ms. earshot's score stays
/// up for about 100 ms after a sound stops, so a 50 ms click or knock
/// scores ten voiced frames and is not speech.
pub const START_FRAMES: usize = 12;
/// Quiet frames in a row that end it: 704 ms (a pause between words is
/// shorter).
pub const END_FRAMES: usize = 44;
/// Audio kept from before speech started: 200 ms.
pub const PREROLL_SAMPLES: usize = SAMPLE_RATE / 5;
/// Quiet kept after the last voiced frame: 200 ms of the ending pause.
const TAIL_SAMPLES: usize = SAMPLE_RATE / 5;
/// The longest utterance: 15 s. What is past it is not heard.
pub const MAX_UTTERANCE_SECONDS: usize = 15;
pub const MAX_UTTERANCE_SAMPLES: usize = MAX_UTTERANCE_SECONDS * SAMPLE_RATE;

/// What a piece of audio changed.
#[derive(Debug, PartialEq)]
pub enum Segment {
    /// Speech started.
    Started,
    /// Speech ended: the utterance's samples, and whether it was cut at
    /// [`MAX_UTTERANCE_SAMPLES`].
    Ended { samples: Vec<i16>, cut: bool },
}

enum State {
    /// No speech: the last moment kept as pre-roll, and how many voiced
    /// frames in a row it ends with.
    Quiet {
        recent: VecDeque<i16>,
        voiced: usize,
    },
    /// Speech: what was heard so far, and how many quiet frames in a row
    /// it ends with.
    Speaking { samples: Vec<i16>, quiet: usize },
    /// Past the longest utterance: nothing is kept until the speech ends.
    Overlong { quiet: usize },
}

/// One socket's segmenter. Holds at most [`MAX_UTTERANCE_SAMPLES`] samples,
/// plus one partial frame.
pub struct Segmenter {
    detector: Box<Detector>,
    /// Samples short of a whole frame, carried to the next piece.
    partial: Vec<i16>,
    state: State,
}

impl Default for Segmenter {
    fn default() -> Self {
        Self {
            detector: Detector::default_boxed(),
            partial: Vec::with_capacity(FRAME_SAMPLES),
            state: quiet(),
        }
    }
}

fn quiet() -> State {
    State::Quiet {
        recent: VecDeque::with_capacity(PREROLL_SAMPLES + START_FRAMES * FRAME_SAMPLES),
        voiced: 0,
    }
}

impl Segmenter {
    /// Takes the next piece of audio (any length); says where speech
    /// started and ended in it.
    pub fn push(&mut self, samples: &[i16]) -> Vec<Segment> {
        let mut segments = Vec::new();
        let mut rest = samples;
        while !rest.is_empty() {
            let wanted = FRAME_SAMPLES - self.partial.len();
            let (take, after) = rest.split_at(wanted.min(rest.len()));
            self.partial.extend_from_slice(take);
            rest = after;
            if self.partial.len() == FRAME_SAMPLES {
                let frame = std::mem::take(&mut self.partial);
                segments.extend(self.frame(&frame));
                self.partial = frame;
                self.partial.clear();
            }
        }
        segments
    }

    fn frame(&mut self, frame: &[i16]) -> Option<Segment> {
        let voiced = self.detector.predict_i16(frame) >= VOICED_SCORE;
        match &mut self.state {
            State::Quiet {
                recent,
                voiced: run,
            } => {
                *run = if voiced { *run + 1 } else { 0 };
                recent.extend(frame);
                let keep = PREROLL_SAMPLES + *run * FRAME_SAMPLES;
                let excess = recent.len().saturating_sub(keep);
                recent.drain(..excess);
                if *run < START_FRAMES {
                    return None;
                }
                let samples = recent.drain(..).collect();
                self.state = State::Speaking { samples, quiet: 0 };
                Some(Segment::Started)
            }
            State::Speaking {
                samples,
                quiet: run,
            } => {
                *run = if voiced { 0 } else { *run + 1 };
                samples.extend_from_slice(frame);
                if samples.len() >= MAX_UTTERANCE_SAMPLES {
                    let mut samples = std::mem::take(samples);
                    samples.truncate(MAX_UTTERANCE_SAMPLES);
                    self.state = State::Overlong { quiet: *run };
                    return Some(Segment::Ended { samples, cut: true });
                }
                if *run < END_FRAMES {
                    return None;
                }
                let mut samples = std::mem::take(samples);
                let pause = END_FRAMES * FRAME_SAMPLES;
                samples.truncate(samples.len() - pause + TAIL_SAMPLES);
                self.state = quiet();
                Some(Segment::Ended {
                    samples,
                    cut: false,
                })
            }
            State::Overlong { quiet: run } => {
                *run = if voiced { 0 } else { *run + 1 };
                if *run >= END_FRAMES {
                    self.state = quiet();
                }
                None
            }
        }
    }

    /// The microphone stopped: speech in progress ends here.
    pub fn finish(&mut self) -> Option<Segment> {
        self.partial.clear();
        match std::mem::replace(&mut self.state, quiet()) {
            State::Speaking { samples, .. } => Some(Segment::Ended {
                samples,
                cut: false,
            }),
            State::Quiet { .. } | State::Overlong { .. } => None,
        }
    }

    /// The speech heard so far while it lasts, up to its last voiced frame
    /// (a pause adds nothing).
    pub fn speech(&self) -> Option<&[i16]> {
        match &self.state {
            State::Speaking { samples, quiet } => {
                Some(&samples[..samples.len() - quiet * FRAME_SAMPLES])
            }
            State::Quiet { .. } | State::Overlong { .. } => None,
        }
    }

    /// Samples held: the pre-roll or the speech so far, and a partial frame.
    pub fn held(&self) -> usize {
        self.partial.len()
            + match &self.state {
                State::Quiet { recent, .. } => recent.len(),
                State::Speaking { samples, .. } => samples.len(),
                State::Overlong { .. } => 0,
            }
    }
}

/// Test audio that earshot hears as speech or not: a voiced-sounding
/// harmonic tone (300, 600 and 900 Hz), silence, and white noise.
pub mod synthetic {
    use super::SAMPLE_RATE;

    fn samples(seconds: f32) -> usize {
        (seconds * SAMPLE_RATE as f32) as usize
    }

    /// A tone earshot scores as voiced (above 0.9 after its first frames).
    pub fn tone(seconds: f32) -> Vec<i16> {
        (0..samples(seconds))
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                let wave = |hz: f32| (2.0 * std::f32::consts::PI * hz * t).sin();
                let mixed = (wave(300.0) + 0.5 * wave(600.0) + 0.3 * wave(900.0)) / 1.8;
                (mixed * 0.3 * f32::from(i16::MAX)) as i16
            })
            .collect()
    }

    pub fn silence(seconds: f32) -> Vec<i16> {
        vec![0; samples(seconds)]
    }

    /// White noise earshot scores as not voiced.
    pub fn noise(seconds: f32) -> Vec<i16> {
        let mut state = 0x2545_f491_u32;
        (0..samples(seconds))
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                ((state as f32 / u32::MAX as f32 - 0.5) * 0.6 * f32::from(i16::MAX)) as i16
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::synthetic::{noise, silence, tone};
    use super::*;

    fn segment(pieces: &[Vec<i16>], piece_samples: usize) -> (Segmenter, Vec<Segment>) {
        let audio: Vec<i16> = pieces.concat();
        let mut segmenter = Segmenter::default();
        let segments = audio
            .chunks(piece_samples)
            .flat_map(|piece| segmenter.push(piece))
            .collect();
        (segmenter, segments)
    }

    fn ended(segments: &[Segment]) -> Vec<(usize, bool)> {
        segments
            .iter()
            .filter_map(|s| match s {
                Segment::Ended { samples, cut } => Some((samples.len(), *cut)),
                Segment::Started => None,
            })
            .collect()
    }

    #[test]
    fn a_burst_of_speech_between_silences_is_one_utterance_with_its_preroll() {
        // Pieces of an odd size: frames are rebuilt across them.
        let (segmenter, segments) =
            segment(&[silence(0.5), tone(1.0), silence(1.0), tone(0.6)], 1_000);
        assert_eq!(segments.first(), Some(&Segment::Started));
        let lengths = ended(&segments);
        assert_eq!(lengths.len(), 1, "the second burst has not ended");
        let (length, cut) = lengths[0];
        assert!(!cut);
        // 1 s of tone, about 200 ms before it and 200 ms after it.
        let seconds = length as f32 / SAMPLE_RATE as f32;
        assert!((1.3..1.7).contains(&seconds), "{seconds} s");
        assert!(segmenter.speech().is_some(), "the second burst goes on");
    }

    #[test]
    fn noise_clicks_and_short_pauses_are_not_boundaries() {
        let (_, segments) = segment(&[silence(0.3), noise(1.0), silence(0.3)], 512);
        assert!(segments.is_empty(), "noise is not speech");
        let (_, segments) = segment(&[silence(0.3), tone(0.05), silence(1.0)], 512);
        assert!(segments.is_empty(), "a 50 ms click is not speech");
        let (_, segments) = segment(
            &[tone(0.8), silence(0.3), tone(0.8), silence(1.0)],
            FRAME_SAMPLES,
        );
        assert_eq!(ended(&segments).len(), 1, "a 300 ms pause is within speech");
    }

    #[test]
    fn a_long_utterance_is_cut_and_the_rest_of_it_let_go() {
        let long = MAX_UTTERANCE_SECONDS as f32 + 3.0;
        let (segmenter, segments) = segment(&[silence(0.3), tone(long), silence(1.0)], 4_096);
        assert_eq!(ended(&segments), [(MAX_UTTERANCE_SAMPLES, true)]);
        assert!(
            segmenter.held() <= PREROLL_SAMPLES + FRAME_SAMPLES,
            "only the pre-roll is held"
        );
        let (_, segments) = segment(&[tone(long), silence(1.0), tone(1.0), silence(1.0)], 4_096);
        let lengths = ended(&segments);
        assert_eq!(lengths.len(), 2, "speech after the pause is heard again");
        assert!(!lengths[1].1);
    }

    #[test]
    fn finishing_hears_speech_in_progress() {
        let (mut segmenter, segments) = segment(&[silence(0.2), tone(0.5)], 800);
        assert_eq!(segments, [Segment::Started]);
        let Some(Segment::Ended { samples, cut }) = segmenter.finish() else {
            panic!("speech in progress is heard");
        };
        assert!(!cut && samples.len() > SAMPLE_RATE / 2);
        assert_eq!(segmenter.finish(), None);
        assert_eq!(segmenter.held(), 0);
    }
}
