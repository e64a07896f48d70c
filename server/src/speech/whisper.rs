//! Whisper tiny.en on the CPU: CTranslate2's weights read into candle's
//! Whisper layers, our own log-mel over only the frames an utterance needs,
//! a shortened encoder context, our decoder with its caches, and a beam
//! search with the options of a waiting question as the prompt.
//!
//! All of its arithmetic runs on a rayon pool of its own, so the number of
//! cores it takes is chosen here (see [`Tuning::threads`]), not by candle's
//! default of every core, which would starve the chat model beside it.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, IndexOp, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::whisper::model::{AudioEncoder, Whisper as Model};
use candle_transformers::models::whisper::Config;
use tokenizers::Tokenizer;

use super::beam::{self, Step};
use super::ct2::{Ct2Error, Ct2Model};
use super::decode::{self, Rules};
use super::decoder::{Audio, Cache, Decoder};
use super::mel::{LogMel, FRAMES_PER_SECOND};
use super::weights::{self, WeightsError};
use super::{Engine, Hint, Transcript, SAMPLE_RATE};
use imprint_text::voice::{heard_stop, is_stop, match_option};

/// The recogniser's name, as shown to people and logs.
pub const NAME: &str = "whisper-tiny.en";
/// The files [`Whisper::load`] reads from its folder.
pub const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.bin"];
/// The longest audio heard in one utterance: Whisper's window. Anything
/// after it is not heard.
pub const MAX_SECONDS: usize = 30;
/// Below this peak amplitude the audio is silence: nothing is decoded
/// (Whisper invents "you" or "Thank you." for silence).
const SILENCE_PEAK: f32 = 1e-3;
/// Above this probability of "no speech" with a low mean log-probability,
/// the transcript is empty (Whisper's own thresholds).
const NO_SPEECH_PROB: f32 = 0.6;
const NO_SPEECH_LOGPROB: f32 = -1.0;

/// Why the recogniser could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the speech model folder {0} does not exist (run scripts/local-model.sh ensure)")]
    NoFolder(PathBuf),
    #[error("cannot read {path}: {reason} (scripts/local-model.sh ensure sets the weights up)")]
    File { path: PathBuf, reason: String },
    #[error(transparent)]
    Ct2(#[from] Ct2Error),
    #[error(transparent)]
    Weights(#[from] WeightsError),
    #[error("the tokenizer has no {0}")]
    Token(&'static str),
    #[error("candle could not build the model: {0}")]
    Candle(#[from] candle_core::Error),
    #[error("cannot start the recogniser's threads: {0}")]
    Threads(String),
}

/// How much work the recogniser does per utterance, and on how many cores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// Cores for candle's arithmetic (its own rayon pool).
    pub threads: usize,
    /// The fewest mel frames the encoder reads (100 a second). Whisper was
    /// trained on 3000 (30 s); fewer and short answers gain stray words
    /// ("The next week."), but 600 measured no worse on requests than 1000
    /// with the beam, and is what keeps a 3 s request near 700 ms.
    pub min_frames: usize,
    /// Frames of silence the encoder reads after the audio, at least.
    pub pad_frames: usize,
    /// Beams of the search (Whisper's default 5); 1 is greedy decoding.
    pub beam: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            threads: 1,
            min_frames: 600,
            pad_frames: 300,
            beam: 5,
        }
    }
}

impl Tuning {
    /// Mel frames the encoder reads for `samples` samples: the audio, some
    /// silence after it, at least `min_frames`, at most 30 s; even, since
    /// the encoder halves it.
    pub fn frames_for(&self, samples: usize) -> usize {
        let audio = samples.div_ceil(SAMPLE_RATE as usize / FRAMES_PER_SECOND);
        let frames = (audio + self.pad_frames).max(self.min_frames);
        let frames = frames.min(MAX_SECONDS * FRAMES_PER_SECOND);
        frames + frames % 2
    }
}

/// Special tokens by id.
#[derive(Clone, Copy, Debug)]
struct Specials {
    start_of_transcript: u32,
    start_of_prev: u32,
    no_timestamps: u32,
    no_speech: Option<u32>,
}

/// The loaded recogniser: [`Engine`] for [`super::Speech`]'s thread.
pub struct Whisper {
    ears: Ears,
    /// Where candle's arithmetic runs (see the module's doc).
    pool: rayon::ThreadPool,
}

/// The model and everything decoding needs, apart from the threads.
struct Ears {
    encoder: AudioEncoder,
    decoder: Decoder,
    config: Config,
    tokenizer: Tokenizer,
    mel: LogMel,
    rules: Rules,
    specials: Specials,
    tuning: Tuning,
}

/// The first of the model's files missing from `dir`, if any.
pub fn missing_file(dir: &Path) -> Option<&'static str> {
    MODEL_FILES
        .into_iter()
        .find(|file| !dir.join(file).is_file())
}

impl Whisper {
    /// Reads `config.json`, `tokenizer.json` and `model.bin` from `dir`
    /// (the CTranslate2 export), with the default [`Tuning`].
    pub fn load(dir: &Path) -> Result<Self, LoadError> {
        Self::load_with(dir, Tuning::default())
    }

    pub fn load_with(dir: &Path, tuning: Tuning) -> Result<Self, LoadError> {
        if !dir.is_dir() {
            return Err(LoadError::NoFolder(dir.to_path_buf()));
        }
        let file_error = |path: &Path, reason: String| LoadError::File {
            path: path.to_path_buf(),
            reason,
        };
        let config_path = dir.join("config.json");
        let text = std::fs::read_to_string(&config_path)
            .map_err(|e| file_error(&config_path, e.to_string()))?;
        let ct_config: Ct2Config =
            serde_json::from_str(&text).map_err(|e| file_error(&config_path, e.to_string()))?;
        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| file_error(&tokenizer_path, e.to_string()))?;
        let id = |token: &'static str| tokenizer.token_to_id(token).ok_or(LoadError::Token(token));
        let specials = Specials {
            start_of_transcript: id("<|startoftranscript|>")?,
            start_of_prev: id("<|startofprev|>")?,
            no_timestamps: id("<|notimestamps|>")?,
            no_speech: tokenizer
                .token_to_id("<|nocaptions|>")
                .or_else(|| tokenizer.token_to_id("<|nospeech|>")),
        };
        let rules = Rules {
            end: id("<|endoftext|>")?,
            suppress: ct_config.suppress_ids,
            suppress_begin: ct_config.suppress_ids_begin,
        };

        let ct = Ct2Model::read(&dir.join("model.bin"))?;
        // 75 MB of float16 become about 150 MB of float32 (candle's CPU
        // matmul is float32); the float16 copy is dropped once converted.
        let config = weights::config(&ct)?;
        let tensors = weights::candle_tensors(&ct, &config)?;
        drop(ct);
        let n_mels = config.num_mel_bins;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        // candle's encoder, our decoder (with its caches) over the same
        // tensors: candle's own decoder is dropped unused.
        let decoder = Decoder::load(vb.pp("model.decoder"), &config)?;
        let Model {
            encoder, config, ..
        } = Model::load(&vb, config)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(tuning.threads.max(1))
            .thread_name(|i| format!("speech-{i}"))
            .build()
            .map_err(|e| LoadError::Threads(e.to_string()))?;
        Ok(Self {
            ears: Ears {
                encoder,
                decoder,
                config,
                tokenizer,
                mel: LogMel::new(n_mels),
                rules,
                specials,
                tuning,
            },
            pool,
        })
    }

    pub fn tuning(&self) -> Tuning {
        self.ears.tuning
    }
}

impl Ears {
    /// The prompt before the transcript: the options (after
    /// `<|startofprev|>`, as if said just before), then the task.
    fn prompt(&self, hint: &Hint) -> Result<Vec<u32>, String> {
        let mut prompt = Vec::new();
        let options = choices(hint);
        if !options.is_empty() {
            let text = format!(" {}.", options.join(", "));
            let encoded = self
                .tokenizer
                .encode(text, false)
                .map_err(|e| format!("cannot encode the options: {e}"))?;
            let ids = encoded.get_ids();
            // At most half the decoder's context, the latest words kept (as Whisper).
            let room = self.config.max_target_positions / 2 - 1;
            prompt.push(self.specials.start_of_prev);
            prompt.extend_from_slice(&ids[ids.len().saturating_sub(room)..]);
        }
        prompt.push(self.specials.start_of_transcript);
        prompt.push(self.specials.no_timestamps);
        Ok(prompt)
    }

    fn hear(&mut self, samples: &[f32], hint: &Hint) -> Result<Transcript, String> {
        // The first 30 s, with anything not a number heard as silence.
        let samples: Vec<f32> = samples
            .iter()
            .take(MAX_SECONDS * SAMPLE_RATE as usize)
            .map(|s| {
                if s.is_finite() {
                    s.clamp(-1.0, 1.0)
                } else {
                    0.0
                }
            })
            .collect();
        let samples = samples.as_slice();
        let peak = samples.iter().fold(0f32, |m, s| m.max(s.abs()));
        if peak < SILENCE_PEAK {
            return Ok(Transcript {
                text: String::new(),
                confidence: None,
            });
        }
        let frames = self.tuning.frames_for(samples.len());
        let mel = self.mel.compute(samples, frames);
        let mel = Tensor::from_vec(mel, (1, self.mel.n_mels(), frames), &Device::Cpu)
            .map_err(candle_error)?;
        let audio = self.encoder.forward(&mel, true).map_err(candle_error)?;
        let audio = self.decoder.audio(&audio).map_err(candle_error)?;

        let tokens = self.prompt(hint)?;
        let sot_at = tokens
            .iter()
            .position(|t| *t == self.specials.start_of_transcript)
            .unwrap_or(0);
        let room = self.decoder.context() - tokens.len();
        let cap = decode::token_cap(samples.len() as f32 / SAMPLE_RATE as f32, room);
        let mut cache = self.decoder.cache();
        // The prompt in one pass: the "no speech" probability is read at
        // its start of transcript, the first choice after its last token.
        let input = Tensor::new(tokens.as_slice(), &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .map_err(candle_error)?;
        let hidden = self
            .decoder
            .forward(&input, &audio, &mut cache)
            .map_err(candle_error)?;
        let mut no_speech = 0f32;
        if let Some(id) = self.specials.no_speech {
            let at_sot = self.logits(&hidden, sot_at)?;
            no_speech = probability(&at_sot, id as usize);
        }
        let first = self.logits(&hidden, tokens.len() - 1)?;
        let after_prompt = cache.clone();
        let mut model = Reader {
            decoder: &self.decoder,
            audio: &audio,
            cache,
        };
        let beams = if hint.draft { 1 } else { self.tuning.beam };
        let written = beam::search(&mut model, first.clone(), &self.rules, beams, cap)?;
        let Some(written) = written else {
            return Ok(Transcript {
                text: String::new(),
                confidence: None,
            });
        };
        let confidence = decode::confidence(written.sum_logprob, written.scored);
        if no_speech > NO_SPEECH_PROB && written.mean_logprob() < NO_SPEECH_LOGPROB {
            return Ok(Transcript {
                text: String::new(),
                confidence,
            });
        }
        let text = self
            .tokenizer
            .decode(&written.tokens, true)
            .map_err(|e| format!("cannot decode the tokens: {e}"))?;
        let text = decode::said_once(text.trim()).to_string();
        // "Maria" heard as "Berea.", "Stop" as "Let's start.": when the
        // text names no choice, the choices are read as the whole of what
        // was said, and one that reads nearly as well stands for it.
        let choices = choices(hint);
        if !hint.draft
            && !choices.is_empty()
            && match_option(&text, &hint.options).is_none()
            && !heard_stop(&text, confidence.map(f64::from))
        {
            let mut readings = Vec::with_capacity(choices.len());
            for choice in &choices {
                let mean = self.forced_mean(choice, &first, &audio, &after_prompt)?;
                readings.push((choice.clone(), mean));
            }
            if let Some((choice, ratio)) = decode::whole_choice(written.mean_logprob(), &readings) {
                tracing::debug!(heard = %text, %choice, ratio, "a choice read as the whole utterance");
                // A stop is obeyed as surely as the speech was heard: a
                // false one costs a repeat, a missed one talks over the
                // user. A choice is as sure as it reads beside the text,
                // so an unsure one is confirmed before it is used.
                let sure = if is_stop(choice) {
                    confidence
                } else {
                    Some(ratio)
                };
                return Ok(Transcript {
                    text: choice.to_string(),
                    confidence: sure,
                });
            }
        }
        Ok(Transcript { text, confidence })
    }

    /// The mean log-probability of `choice` as the whole transcript, read
    /// after the prompt (whose last logits are `first`): its tokens, then
    /// the end, with its full stop before the end ("Maria.") or without
    /// ("Maria"), the better. One pass reads both when the full stop is a
    /// token of its own after the choice's, as it is for words.
    fn forced_mean(
        &self,
        choice: &str,
        first: &[f32],
        audio: &Audio,
        after_prompt: &Cache,
    ) -> Result<f32, String> {
        let encode = |text: String| {
            self.tokenizer
                .encode(text, false)
                .map(|e| e.get_ids().to_vec())
                .map_err(|e| format!("cannot encode a choice: {e}"))
        };
        let bare = encode(format!(" {}", choice.trim()))?;
        let stopped = encode(format!(" {}.", choice.trim()))?;
        if bare.is_empty() {
            return Ok(f32::NEG_INFINITY);
        }
        let name = bare.len();
        let shares_its_tokens = stopped.len() == name + 1 && stopped.starts_with(&bare);
        let (read, stopped_too) = if shares_its_tokens {
            (stopped, true)
        } else {
            (bare, false)
        };
        let mut cache = after_prompt.clone();
        let input = Tensor::new(read.as_slice(), &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .map_err(candle_error)?;
        let hidden = self
            .decoder
            .forward(&input, audio, &mut cache)
            .map_err(candle_error)?;
        // The log-probability of each token after the one before it, and
        // of the end after the last.
        // One projection for every position, not one per token.
        let after: Vec<Vec<f32>> = hidden
            .i(0)
            .and_then(|rows| self.decoder.logits(&rows))
            .and_then(|logits| logits.to_vec2::<f32>())
            .map_err(candle_error)?;
        let mut sum = log_probability(first, read[0] as usize);
        for at in 1..name {
            sum += log_probability(&after[at - 1], read[at] as usize);
        }
        let end = self.rules.end as usize;
        let without = (sum + log_probability(&after[name - 1], end)) / (name + 1) as f32;
        if !stopped_too {
            return Ok(without);
        }
        let with = (sum
            + log_probability(&after[name - 1], read[name] as usize)
            + log_probability(&after[name], end))
            / (name + 2) as f32;
        Ok(with.max(without))
    }

    /// The logits after the token at `position` of the first row.
    fn logits(&self, hidden: &Tensor, position: usize) -> Result<Vec<f32>, String> {
        hidden
            .i((0, position..position + 1))
            .and_then(|h| self.decoder.logits(&h))
            .and_then(|l| l.i(0))
            .and_then(|l| l.to_vec1::<f32>())
            .map_err(candle_error)
    }
}

/// The choices a hint says the recogniser may hear: a waiting question's
/// options, and "Stop" while Echo speaks or a reply runs.
fn choices(hint: &Hint) -> Vec<String> {
    let mut choices: Vec<String> = hint
        .options
        .iter()
        .map(|o| o.trim().to_string())
        .filter(|o| !o.is_empty())
        .collect();
    if hint.stop && !choices.iter().any(|o| o.eq_ignore_ascii_case("stop")) {
        choices.push("Stop".to_string());
    }
    choices
}

/// The decoder and its cache as the search's [`Step`]: the beams are the
/// cache's rows.
struct Reader<'a> {
    decoder: &'a Decoder,
    audio: &'a Audio,
    cache: Cache,
}

impl Step for Reader<'_> {
    fn next(&mut self, rows: &[u32], last: &[u32]) -> Result<Vec<Vec<f32>>, String> {
        let same_rows = rows.iter().enumerate().all(|(i, r)| *r as usize == i)
            && rows.len() == self.cache.rows();
        if !same_rows {
            self.cache = self.cache.select(rows).map_err(candle_error)?;
        }
        let input = Tensor::new(last, &Device::Cpu)
            .and_then(|t| t.unsqueeze(1))
            .map_err(candle_error)?;
        self.decoder
            .forward(&input, self.audio, &mut self.cache)
            .and_then(|h| h.squeeze(1))
            .and_then(|h| self.decoder.logits(&h))
            .and_then(|l| l.to_vec2::<f32>())
            .map_err(candle_error)
    }
}

impl Engine for Whisper {
    fn transcribe(&mut self, samples: &[f32], hint: &Hint) -> Result<Transcript, String> {
        let ears = &mut self.ears;
        self.pool.install(|| ears.hear(samples, hint))
    }

    fn name(&self) -> &str {
        NAME
    }
}

/// The fields of CTranslate2's `config.json` that decoding uses.
#[derive(serde::Deserialize)]
struct Ct2Config {
    #[serde(default)]
    suppress_ids: Vec<u32>,
    #[serde(default)]
    suppress_ids_begin: Vec<u32>,
}

fn candle_error(e: candle_core::Error) -> String {
    format!("candle: {e}")
}

/// softmax(logits)[id].
fn log_probability(logits: &[f32], id: usize) -> f32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    logits
        .get(id)
        .map_or(f32::NEG_INFINITY, |l| l - max - sum.ln())
}

fn probability(logits: &[f32], id: usize) -> f32 {
    let Some(&at) = logits.get(id) else {
        return 0.0;
    };
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    (at - max).exp() / sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cover_the_audio_and_some_silence_within_bounds() {
        let tuning = Tuning {
            threads: 1,
            min_frames: 1000,
            pad_frames: 300,
            beam: 5,
        };
        assert_eq!(tuning.frames_for(3 * 16_000), 1000);
        assert_eq!(tuning.frames_for(9 * 16_000), 1200);
        assert_eq!(tuning.frames_for(8 * 16_000 + 1), 1102);
        assert_eq!(tuning.frames_for(60 * 16_000), 3000);
    }

    #[test]
    fn a_missing_folder_says_how_to_set_it_up() {
        let error = Whisper::load(Path::new("/nonexistent/whisper"))
            .err()
            .unwrap();
        assert!(
            error.to_string().contains("local-model.sh ensure"),
            "{error}"
        );
    }

    #[test]
    fn probability_is_a_softmax() {
        let p = probability(&[0.0, 0.0, 2f32.ln()], 2);
        assert!((p - 0.5).abs() < 1e-6);
        assert_eq!(probability(&[0.0], 3), 0.0);
    }
}
