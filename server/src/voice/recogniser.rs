//! The speech recogniser as every voice socket shares it: the [`Speech`]
//! thread, its name, and a gate of as many places as its queue holds.
//!
//! A job holds its place until the recogniser is done with it, in a task
//! of its own (so a socket that closes meanwhile still frees the place only
//! then): the queue behind the gate is never full, and waiting for the
//! recogniser is waiting for a place, woken when one frees. A final
//! transcript waits for a place; an interim one is skipped when none is
//! free.
//!
//! The model is loaded when a microphone first starts ([`Recogniser::lazy`],
//! [`Recogniser::warm`]), not when the server does: a server nobody talks
//! to keeps its start fast and its memory (about 210 MB for the model) free.

use std::sync::Arc;

use tokio::sync::{oneshot, OnceCell, OwnedSemaphorePermit, Semaphore};

use super::detecting::Detecting;
use crate::speech::{Hint, Speech, SpeechError, Transcript, MAX_WAITING_JOBS};

/// Loads the recogniser (blocking: reads and converts the weights).
type Load = Arc<dyn Fn() -> Result<Speech, String> + Send + Sync>;

/// What a socket's audio is heard with. Cheap to clone.
#[derive(Clone)]
pub struct Recogniser {
    name: Arc<str>,
    speech: Arc<OnceCell<Result<Speech, String>>>,
    load: Load,
    places: Arc<Semaphore>,
    /// Where every socket's audio is cut into utterances, off the runtime.
    detecting: Detecting,
}

impl Recogniser {
    /// `speech` as the voice sockets use it, said to them as `name`.
    pub fn new(name: impl Into<Arc<str>>, speech: Speech) -> Self {
        let recogniser = Self::lazy(name, || Err("already loaded".into()));
        let _ = recogniser.speech.set(Ok(speech));
        recogniser
    }

    /// A recogniser `load` makes the first time it is needed.
    pub fn lazy(
        name: impl Into<Arc<str>>,
        load: impl Fn() -> Result<Speech, String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            speech: Arc::new(OnceCell::new()),
            load: Arc::new(load),
            places: Arc::new(Semaphore::new(MAX_WAITING_JOBS)),
            detecting: Detecting::start(),
        }
    }

    /// Starts loading the model, if it is not loaded, without waiting:
    /// a microphone started, and speech will follow.
    pub fn warm(&self) {
        if !self.speech.initialized() {
            let this = self.clone();
            tokio::spawn(async move {
                if let Err(error) = this.speech().await {
                    tracing::warn!(%error, "the speech recogniser did not load");
                }
            });
        }
    }

    /// The loaded recogniser, loading it off the runtime's threads once.
    async fn speech(&self) -> Result<Speech, SpeechError> {
        self.speech
            .get_or_init(|| async {
                let load = Arc::clone(&self.load);
                tokio::task::spawn_blocking(move || load())
                    .await
                    .unwrap_or_else(|e| Err(format!("the loader stopped: {e}")))
            })
            .await
            .clone()
            .map_err(SpeechError::Failed)
    }

    /// The voice-activity detector's thread the sockets share.
    pub fn detecting(&self) -> &Detecting {
        &self.detecting
    }

    /// The recogniser's name, as `audio_ready` says it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Places free now (all of them when nothing is being heard).
    pub fn free_places(&self) -> usize {
        self.places.available_permits()
    }

    /// Hears `samples`, waiting for a place first. `Busy` only when the
    /// recogniser refuses all the same (its queue filled by work that did
    /// not come through this gate).
    pub async fn hear(&self, samples: Vec<f32>, hint: Hint) -> Result<Transcript, SpeechError> {
        let place = Arc::clone(&self.places)
            .acquire_owned()
            .await
            .map_err(|_| SpeechError::Stopped)?;
        self.run(place, samples, hint).await
    }

    /// Hears `samples` if a place is free now; `None` when the recogniser
    /// is behind.
    pub fn try_hear(
        &self,
        samples: Vec<f32>,
        hint: Hint,
    ) -> Option<impl std::future::Future<Output = Result<Transcript, SpeechError>> + Send + 'static>
    {
        let place = Arc::clone(&self.places).try_acquire_owned().ok()?;
        Some(self.run(place, samples, hint))
    }

    fn run(
        &self,
        place: OwnedSemaphorePermit,
        samples: Vec<f32>,
        hint: Hint,
    ) -> impl std::future::Future<Output = Result<Transcript, SpeechError>> + Send + 'static {
        let this = self.clone();
        let (done, heard) = oneshot::channel();
        tokio::spawn(async move {
            let transcript = match this.speech().await {
                Ok(speech) => speech.transcribe(samples, hint).await,
                Err(error) => Err(error),
            };
            drop(place);
            let _ = done.send(transcript);
        });
        async move { heard.await.unwrap_or(Err(SpeechError::Stopped)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speech::Engine;
    use std::sync::mpsc;

    /// Holds each job until the test lets it go, and says when it starts.
    struct Held {
        started: mpsc::Sender<usize>,
        release: mpsc::Receiver<()>,
    }
    impl Engine for Held {
        fn transcribe(&mut self, samples: &[f32], _: &Hint) -> Result<Transcript, String> {
            let _ = self.started.send(samples.len());
            self.release.recv().map_err(|e| e.to_string())?;
            Ok(Transcript {
                text: format!("{} samples", samples.len()),
                confidence: None,
            })
        }
    }

    #[tokio::test]
    async fn a_final_waits_for_a_place_and_an_interim_is_skipped() {
        let (started, on_start) = mpsc::channel();
        let (release, held) = mpsc::channel();
        let speech = Speech::start(Held {
            started,
            release: held,
        })
        .unwrap();
        let recogniser = Recogniser::new("held", speech);
        let mut finals = Vec::new();
        for n in 1..=MAX_WAITING_JOBS {
            let recogniser = recogniser.clone();
            finals.push(tokio::spawn(async move {
                recogniser.hear(vec![0.0; n], Hint::default()).await
            }));
        }
        let on_start = Arc::new(std::sync::Mutex::new(on_start));
        let next_start = || {
            let on_start = Arc::clone(&on_start);
            tokio::task::spawn_blocking(move || on_start.lock().unwrap().recv().unwrap())
        };
        next_start().await.unwrap();
        assert_eq!(recogniser.free_places(), 0);
        assert!(
            recogniser.try_hear(vec![0.0], Hint::default()).is_none(),
            "an interim is skipped while every place is taken"
        );
        // One more final waits (it is not refused) and is heard in turn.
        let waiting = tokio::spawn({
            let recogniser = recogniser.clone();
            async move { recogniser.hear(vec![0.0; 99], Hint::default()).await }
        });
        for _ in 0..=MAX_WAITING_JOBS {
            release.send(()).unwrap();
        }
        for job in finals {
            assert!(job.await.unwrap().is_ok());
        }
        assert_eq!(waiting.await.unwrap().unwrap().text, "99 samples");
        assert_eq!(recogniser.free_places(), MAX_WAITING_JOBS);
    }

    /// Says what it heard, and counts the loads.
    struct Echoing;
    impl Engine for Echoing {
        fn transcribe(&mut self, samples: &[f32], _: &Hint) -> Result<Transcript, String> {
            Ok(Transcript {
                text: format!("{} samples", samples.len()),
                confidence: None,
            })
        }
    }

    #[tokio::test]
    async fn a_lazy_recogniser_loads_once_when_first_needed_and_says_why_it_cannot() {
        let loads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let recogniser = Recogniser::lazy("lazy", {
            let loads = Arc::clone(&loads);
            move || {
                loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Speech::start(Echoing).map_err(|e| e.to_string())
            }
        });
        assert_eq!(
            loads.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "not loaded at start"
        );
        let (a, b) = tokio::join!(
            recogniser.hear(vec![0.0; 3], Hint::default()),
            recogniser.hear(vec![0.0; 5], Hint::default())
        );
        assert_eq!(a.unwrap().text, "3 samples");
        assert_eq!(b.unwrap().text, "5 samples");
        assert_eq!(loads.load(std::sync::atomic::Ordering::SeqCst), 1);

        let broken = Recogniser::lazy("broken", || Err("model.bin is truncated".into()));
        let heard = broken.hear(vec![0.0], Hint::default()).await;
        assert_eq!(
            heard,
            Err(SpeechError::Failed("model.bin is truncated".into()))
        );
        assert_eq!(
            broken.free_places(),
            MAX_WAITING_JOBS,
            "a failed load frees its place"
        );
    }
}
