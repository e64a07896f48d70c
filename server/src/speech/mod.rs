//! Echo's own ears: speech to text on this machine.
//!
//! A recogniser ([`Engine`]) is CPU-heavy and synchronous, so it runs on
//! one thread of its own, one utterance at a time, behind a short bounded
//! queue ([`Speech`]). Nothing here touches the async runtime's threads,
//! and a full queue is refused at once (`Busy`) rather than held: a client
//! cannot make the server keep audio it has no time to hear.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::thread;

use tokio::sync::oneshot;

mod beam;
pub mod ct2;
mod decode;
mod decoder;
pub mod mel;
mod weights;
pub mod whisper;

pub use whisper::{LoadError, Tuning, Whisper};

/// Samples per second of the audio an [`Engine`] hears: mono, f32 in −1..1.
pub const SAMPLE_RATE: u32 = 16_000;
/// Utterances waiting for the recogniser; one more is refused as busy.
pub const MAX_WAITING_JOBS: usize = 4;

/// What the recogniser is told about the moment it hears.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hint {
    /// The options of a waiting question: said to the recogniser as the
    /// words it is likely to hear, and matched afterwards.
    pub options: Vec<String>,
    /// An interim text while the user still speaks: a quick pass (one
    /// beam), since the final text comes soon after and replaces it.
    pub draft: bool,
    /// Echo is speaking or a reply runs: "Stop" is said to the
    /// recogniser with the options, as a word it may well hear.
    pub stop: bool,
}

/// What was heard.
#[derive(Clone, Debug, PartialEq)]
pub struct Transcript {
    pub text: String,
    /// 0–1 when the recogniser can tell; `None` when it cannot.
    pub confidence: Option<f32>,
}

/// Why nothing was heard.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpeechError {
    #[error("the recogniser is busy; try again")]
    Busy,
    #[error("the recogniser has stopped")]
    Stopped,
    #[error("the recogniser failed: {0}")]
    Failed(String),
}

/// A recogniser: 16 kHz mono samples in, text out. Runs on [`Speech`]'s thread.
pub trait Engine: Send + 'static {
    fn transcribe(&mut self, samples: &[f32], hint: &Hint) -> Result<Transcript, String>;

    /// The recogniser's name, for people and logs (e.g. "whisper-tiny.en").
    fn name(&self) -> &str {
        "recogniser"
    }
}

/// Why the recogniser did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot load the speech model: {0}")]
    Load(#[from] LoadError),
    #[error("cannot start the speech thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// The local recogniser for the server: Whisper from `dir` on its own
/// thread, or `None` when no folder is configured (speech is off). A
/// folder that is given but unreadable is an error, not a silent "off".
pub fn start(dir: Option<&Path>) -> Result<Option<Speech>, StartError> {
    let Some(dir) = dir else {
        return Ok(None);
    };
    let whisper = Whisper::load(dir)?;
    Ok(Some(Speech::start(whisper)?))
}

/// Where `scripts/local-model.sh ensure` puts the speech weights:
/// `${XDG_CACHE_HOME:-$HOME/.cache}/imprint/models/whisper-tiny.en`.
pub fn cached_model_dir() -> Option<PathBuf> {
    dirs::cache_dir().map(|d| d.join("imprint").join("models").join(whisper::NAME))
}

struct Job {
    samples: Vec<f32>,
    hint: Hint,
    done: oneshot::Sender<Result<Transcript, SpeechError>>,
}

/// The recogniser's thread and its queue. Cheap to clone; the thread ends
/// when the last clone is dropped.
#[derive(Clone)]
pub struct Speech {
    jobs: mpsc::SyncSender<Job>,
    name: Arc<str>,
}

impl Speech {
    /// Starts `engine` on a thread of its own.
    pub fn start(mut engine: impl Engine) -> std::io::Result<Self> {
        let name: Arc<str> = engine.name().into();
        let (jobs, waiting) = mpsc::sync_channel::<Job>(MAX_WAITING_JOBS);
        thread::Builder::new()
            .name("speech".into())
            .spawn(move || {
                for job in waiting {
                    // A caller that went away (its socket closed) is not heard.
                    if job.done.is_closed() {
                        continue;
                    }
                    let heard = engine
                        .transcribe(&job.samples, &job.hint)
                        .map_err(SpeechError::Failed);
                    let _ = job.done.send(heard);
                }
            })?;
        Ok(Self { jobs, name })
    }

    /// The recogniser's name (e.g. "whisper-tiny.en").
    pub fn recogniser(&self) -> &str {
        &self.name
    }

    /// Hears `samples` (16 kHz mono). Refused at once when
    /// [`MAX_WAITING_JOBS`] utterances already wait.
    pub async fn transcribe(
        &self,
        samples: Vec<f32>,
        hint: Hint,
    ) -> Result<Transcript, SpeechError> {
        let (done, heard) = oneshot::channel();
        self.jobs
            .try_send(Job {
                samples,
                hint,
                done,
            })
            .map_err(|error| match error {
                mpsc::TrySendError::Full(_) => SpeechError::Busy,
                mpsc::TrySendError::Disconnected(_) => SpeechError::Stopped,
            })?;
        heard.await.map_err(|_| SpeechError::Stopped)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Says how many samples it heard, and the options it was told.
    struct Counting;
    impl Engine for Counting {
        fn transcribe(&mut self, samples: &[f32], hint: &Hint) -> Result<Transcript, String> {
            if samples.is_empty() {
                return Err("no audio".into());
            }
            Ok(Transcript {
                text: format!("{} {}", samples.len(), hint.options.join("|")),
                confidence: None,
            })
        }
    }

    #[tokio::test]
    async fn an_utterance_is_heard_on_the_speech_thread_with_its_hint() {
        let speech = Speech::start(Counting).unwrap();
        let hint = Hint {
            options: vec!["Billing".into(), "Imprint".into()],
            ..Hint::default()
        };
        assert_eq!(speech.recogniser(), "recogniser");
        let heard = speech.transcribe(vec![0.0; 160], hint).await.unwrap();
        assert_eq!(heard.text, "160 Billing|Imprint");
        let failed = speech.transcribe(Vec::new(), Hint::default()).await;
        assert_eq!(failed, Err(SpeechError::Failed("no audio".into())));
    }

    /// Says when it starts, then holds the thread until the test lets it go.
    struct Held {
        started: mpsc::Sender<()>,
        release: mpsc::Receiver<()>,
    }
    impl Engine for Held {
        fn transcribe(&mut self, _: &[f32], _: &Hint) -> Result<Transcript, String> {
            let _ = self.started.send(());
            self.release.recv().unwrap();
            Ok(Transcript {
                text: "heard".into(),
                confidence: None,
            })
        }
    }

    #[tokio::test]
    async fn a_full_queue_is_refused_at_once_not_held() {
        let (started, on_start) = mpsc::channel();
        let (release, release_rx) = mpsc::channel();
        let speech = Speech::start(Held {
            started,
            release: release_rx,
        })
        .unwrap();
        let first = tokio::spawn({
            let speech = speech.clone();
            async move { speech.transcribe(vec![0.0], Hint::default()).await }
        });
        // The thread holds the first utterance; fill the queue behind it.
        tokio::task::spawn_blocking(move || on_start.recv().unwrap())
            .await
            .unwrap();
        let mut queued = Vec::new();
        for _ in 0..MAX_WAITING_JOBS {
            let (done, heard) = oneshot::channel();
            speech
                .jobs
                .try_send(Job {
                    samples: vec![0.0],
                    hint: Hint::default(),
                    done,
                })
                .unwrap();
            queued.push(heard);
        }
        let refused = speech.transcribe(vec![0.0], Hint::default()).await;
        assert_eq!(refused, Err(SpeechError::Busy));
        for _ in 0..=MAX_WAITING_JOBS {
            release.send(()).unwrap();
        }
        assert_eq!(first.await.unwrap().unwrap().text, "heard");
        for heard in queued {
            assert_eq!(heard.await.unwrap().unwrap().text, "heard");
        }
    }
}
