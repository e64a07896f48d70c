//! Finding by meaning: a small sentence-embedding model (all-MiniLM-L6-v2,
//! [`minilm`]) gives each memory and each request a vector, so a memory
//! is found by what it means ("how much are we paying the painter?" finds
//! "Painter (Dobrev Decor) agreed £2,350…"), fused with the words' search
//! so exact codes and names still count ([`search`]), and a request's
//! kind is decided by its nearest labelled examples ([`route`]).
//!
//! The model runs on a thread of its own (one core, its own rayon pool),
//! behind a short queue: nothing here runs on the async runtime's threads.
//! Each memory's vector is written when the memory is, by the filler that
//! wakes on every commit to the memories ([`Store::memories_changed`]); at
//! start it fills in the memories kept before, and the Memories page shows
//! how far it has got ([`MeaningStatus`]). Without the weights, search is
//! by words alone and says so; it never fails for want of them.

pub mod answers;
mod filling;
pub mod fusion;
pub mod index;
pub mod minilm;
pub mod route;
pub mod search;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use answers::{AnswerJudge, Reading};
pub use app::protocol::{MeaningState, MeaningStatus, WordsOnly};
use index::{Near, Query, VectorIndex};
use minilm::MiniLm;
use route::{Route, Routed, Router};

use crate::store::{MemoryVector, Store};

/// The vectors' length (all-MiniLM-L6-v2's hidden size).
pub const DIMENSIONS: usize = 384;

/// The model's name, stored with each vector.
pub const MODEL_NAME: &str = "all-minilm-l6-v2";

/// Memories embedded at once while filling in: a batch is one pass of the
/// model, and a request waits behind one batch at most.
const FILL_BATCH: usize = 16;

/// Texts waiting for the model; one more is refused as busy.
const MAX_WAITING: usize = 16;

/// Where `scripts/embedding-model.sh ensure` puts the weights:
/// `${XDG_CACHE_HOME:-$HOME/.cache}/imprint/models/all-minilm-l6-v2`.
pub fn cached_model_dir() -> Option<PathBuf> {
    dirs::cache_dir().map(|d| d.join("imprint").join("models").join(MODEL_NAME))
}

/// Why a text could not be embedded.
#[derive(Debug, thiserror::Error)]
pub enum MeaningError {
    #[error("finding by meaning is off: {0:?}")]
    Off(WordsOnly),
    #[error("the embedding model is busy")]
    Busy,
    #[error("the embedding model stopped: {0}")]
    Failed(String),
}

struct Job {
    texts: Vec<String>,
    done: oneshot::Sender<Result<Vec<Vec<f32>>, String>>,
}

/// Finding by meaning: the model's thread, the memories' vectors and the
/// router. Cheap to clone.
#[derive(Clone)]
pub struct Meaning {
    inner: Arc<Inner>,
}

struct Inner {
    jobs: Option<mpsc::Sender<Job>>,
    index: RwLock<VectorIndex>,
    router: OnceLock<Router>,
    answers: OnceLock<AnswerJudge>,
    status: watch::Sender<MeaningStatus>,
}

impl Meaning {
    /// Search by words only, for `reason`.
    pub fn off(reason: WordsOnly) -> Self {
        Self {
            inner: Arc::new(Inner {
                jobs: None,
                index: RwLock::default(),
                router: OnceLock::new(),
                answers: OnceLock::new(),
                status: watch::Sender::new(MeaningStatus {
                    state: MeaningState::Off,
                    model: None,
                    embedded: 0,
                    total: 0,
                    reason: Some(reason),
                }),
            }),
        }
    }

    /// Loads the model in `dir` on a thread of its own and starts filling
    /// in the vectors of `store`'s memories. A folder without the model's
    /// files is search by words only, said in the status.
    pub fn start(dir: Option<&Path>, store: Store, shutdown: CancellationToken) -> Self {
        let Some(dir) = dir else {
            return Self::off(WordsOnly::NotSetUp);
        };
        if let Some(missing) = minilm::missing_file(dir) {
            tracing::warn!(dir = %dir.display(), missing, "no embedding model there: memories are found by their words only");
            return Self::off(WordsOnly::FileMissing {
                file: missing.to_string(),
            });
        }
        let (jobs, waiting) = mpsc::channel::<Job>(MAX_WAITING);
        let (loaded, load_result) = oneshot::channel::<Result<(), String>>();
        let dir = dir.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("meaning".into())
            .spawn(move || run_model(&dir, waiting, loaded));
        if let Err(error) = spawned {
            return Self::off(WordsOnly::NotLoaded {
                error: format!("cannot start its thread: {error}"),
            });
        }
        let meaning = Self {
            inner: Arc::new(Inner {
                jobs: Some(jobs),
                index: RwLock::default(),
                router: OnceLock::new(),
                answers: OnceLock::new(),
                status: watch::Sender::new(MeaningStatus {
                    state: MeaningState::Loading,
                    model: Some(MODEL_NAME.into()),
                    embedded: 0,
                    total: 0,
                    reason: None,
                }),
            }),
        };
        tokio::spawn(meaning.clone().fill(store, load_result, shutdown));
        meaning
    }

    /// Where finding by meaning stands.
    pub fn status(&self) -> MeaningStatus {
        self.inner.status.borrow().clone()
    }

    /// The status as it changes (the filler's progress).
    pub fn watch(&self) -> watch::Receiver<MeaningStatus> {
        self.inner.status.subscribe()
    }

    /// Waits, at most `limit`, while the model loads or the last few
    /// memories get their vectors; not through a long filling in (100,000
    /// old memories take minutes: questions meanwhile go on with what is
    /// there), nor when finding by meaning is off.
    pub async fn settled(&self, limit: std::time::Duration) {
        let mut status = self.watch();
        let _ = tokio::time::timeout(limit, status.wait_for(|s| !worth_waiting(s))).await;
    }

    fn set_status(&self, change: impl FnOnce(&mut MeaningStatus)) {
        self.inner.status.send_modify(change);
    }

    /// True when requests can be embedded (the model is loaded or loading).
    pub fn is_on(&self) -> bool {
        self.inner.jobs.is_some() && self.status().state != MeaningState::Off
    }

    /// One unit vector per text; refused at once as busy when
    /// [`MAX_WAITING`] jobs already wait (a request does not queue behind
    /// a crowd: it is answered by words instead).
    pub async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MeaningError> {
        self.embed_waiting(texts, false).await
    }

    /// Like [`Meaning::embed`]; with `wait`, waits for room in the queue
    /// instead (the filler, which has no one waiting on it).
    async fn embed_waiting(
        &self,
        texts: Vec<String>,
        wait: bool,
    ) -> Result<Vec<Vec<f32>>, MeaningError> {
        let stopped = || MeaningError::Off(self.status().reason.unwrap_or(WordsOnly::Stopped));
        let Some(jobs) = &self.inner.jobs else {
            return Err(stopped());
        };
        let (done, embedded) = oneshot::channel();
        let job = Job { texts, done };
        if wait {
            jobs.send(job).await.map_err(|_| stopped())?;
        } else {
            jobs.try_send(job).map_err(|error| match error {
                mpsc::error::TrySendError::Full(_) => MeaningError::Busy,
                mpsc::error::TrySendError::Closed(_) => stopped(),
            })?;
        }
        embedded
            .await
            .map_err(|_| stopped())?
            .map_err(MeaningError::Failed)
    }

    /// One text's vector.
    pub async fn embed_one(&self, text: &str) -> Result<Vec<f32>, MeaningError> {
        let mut vectors = self.embed(vec![text.to_string()]).await?;
        vectors
            .pop()
            .ok_or_else(|| MeaningError::Failed("no vector".into()))
    }

    /// The memories nearest `vector`, nearest first (of `allowed` only,
    /// when given).
    pub fn nearest(&self, vector: &[f32], limit: usize, allowed: Option<&[i64]>) -> Vec<Near> {
        let index = self.inner.index.read().unwrap_or_else(|p| p.into_inner());
        index.nearest(&Query::new(vector), limit, allowed)
    }

    /// Memory `id`'s cosine similarity to `vector`, if it has a vector.
    pub fn similarity_of(&self, id: i64, vector: &[f32]) -> Option<f32> {
        let index = self.inner.index.read().unwrap_or_else(|p| p.into_inner());
        index.similarity_of(id, &Query::new(vector))
    }

    /// What the labelled examples say of a request's vector; `None` until
    /// they are embedded (or with finding by meaning off).
    pub fn route(&self, vector: &[f32]) -> Option<Route> {
        self.inner.router.get()?.route(vector)
    }

    /// What the request's nearest labelled examples say (see
    /// [`Router::nearest`]).
    pub fn route_by_nearest(&self, vector: &[f32]) -> Option<Route> {
        self.inner.router.get()?.nearest(vector)
    }

    /// How near a reply typed while Imprint's question waits is to the
    /// example answers and to the example requests (see [`answers`]);
    /// `None` until they are embedded (or with finding by meaning off).
    pub fn answer_or_request(&self, vector: &[f32]) -> Option<Reading> {
        self.inner.answers.get()?.read(vector)
    }

    /// True when `reply`, typed while Imprint's question with `options`
    /// waits, is a new request rather than the answer
    /// ([`answers::is_new_request`]); `None` when it cannot be judged
    /// (finding by meaning off, busy or still loading): then it is the
    /// answer, as the user was asked for one.
    pub async fn is_new_request(&self, reply: &str, options: &[String]) -> Option<bool> {
        let judge = self.inner.answers.get()?;
        let mut texts = vec![reply.to_string()];
        texts.extend(options.iter().cloned());
        let vectors = self.embed(texts).await.ok()?;
        let (reply_vector, option_vectors) = vectors.split_first()?;
        let reading = judge.read(reply_vector)?;
        // Unit vectors: their dot product is their cosine.
        let nearest_option = option_vectors
            .iter()
            .map(|option| option.iter().zip(reply_vector).map(|(a, b)| a * b).sum())
            .reduce(f32::max);
        let words = reply.split_whitespace().count();
        let new_request = answers::is_new_request(reading, nearest_option, words);
        tracing::debug!(
            reply,
            ?reading,
            ?nearest_option,
            new_request,
            "a reply to a question judged"
        );
        Some(new_request)
    }
}

/// How long a request waits for the model and the examples' classifier
/// at a start. At a new install's first start the examples are embedded
/// (about 8 s for 1,100 on one core; later starts read them kept):
/// routed by the rules alone, the first requests of a new install lost
/// their saves, and a reply restored at a start found by words alone
/// what it had found by meaning before its question.
pub const START_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Memories still without a vector that a question waits for: a few
/// batches, as after a save or at the start of a small collection.
const WAIT_FOR_AT_MOST: u64 = 4 * FILL_BATCH as u64;

/// True while a question is better off waiting for finding by meaning.
fn worth_waiting(status: &MeaningStatus) -> bool {
    match status.state {
        MeaningState::Loading => true,
        MeaningState::Filling => status.total.saturating_sub(status.embedded) <= WAIT_FOR_AT_MOST,
        MeaningState::Ready | MeaningState::Off => false,
    }
}

/// The model's thread: loads it, says so, then embeds job after job on a
/// one-thread rayon pool (candle's arithmetic runs on the current pool).
fn run_model(
    dir: &Path,
    mut jobs: mpsc::Receiver<Job>,
    loaded: oneshot::Sender<Result<(), String>>,
) {
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|_| "meaning-math".into())
        .build()
    {
        Ok(pool) => pool,
        Err(error) => {
            let _ = loaded.send(Err(error.to_string()));
            return;
        }
    };
    let started = std::time::Instant::now();
    let model = match pool.install(|| MiniLm::load(dir)) {
        Ok(model) => model,
        Err(error) => {
            let _ = loaded.send(Err(error.to_string()));
            return;
        }
    };
    tracing::info!(took = ?started.elapsed(), "the embedding model is loaded");
    let _ = loaded.send(Ok(()));
    while let Some(job) = jobs.blocking_recv() {
        if job.done.is_closed() {
            continue;
        }
        let texts: Vec<&str> = job.texts.iter().map(String::as_str).collect();
        let result = pool
            .install(|| model.embed(&texts))
            .map_err(|e| e.to_string());
        let _ = job.done.send(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(state: MeaningState, embedded: u64, total: u64) -> MeaningStatus {
        MeaningStatus {
            state,
            model: Some(MODEL_NAME.into()),
            embedded,
            total,
            reason: None,
        }
    }

    #[test]
    fn a_question_waits_for_the_model_and_the_last_few_vectors_only() {
        assert!(worth_waiting(&status(MeaningState::Loading, 0, 0)));
        assert!(worth_waiting(&status(MeaningState::Filling, 90, 100)));
        // 100,000 old memories filling in: minutes; go on with what is there.
        assert!(!worth_waiting(&status(
            MeaningState::Filling,
            2_000,
            100_000
        )));
        assert!(!worth_waiting(&status(MeaningState::Ready, 5, 5)));
        assert!(!worth_waiting(&status(MeaningState::Off, 0, 5)));
    }
}
