//! The voice-activity detector's thread: every socket's audio is cut into
//! utterances there ([`Segmenter::push`]), one piece at a time, off the
//! async runtime. earshot scores each 16 ms frame with a small network; a
//! client sending audio faster than real time would otherwise hold a
//! runtime worker and stall every other request (measured before this
//! thread: `/api/chat/status` p99 2.4 s with four sockets streaming; see
//! `bench_voice_audio`).
//!
//! One thread for all sockets, not one each: the detector takes at most
//! one core, whatever the sockets send, and the other serves requests. A
//! socket waits for its piece before it reads its next frame, so the
//! queue holds at most one piece per open socket.

use std::sync::mpsc;
use std::thread;

use tokio::sync::oneshot;

use super::segmenter::{Segment, Segmenter};

type Job = Box<dyn FnOnce() + Send>;

/// The detector's thread. Cheap to clone; the thread ends when the last
/// clone is dropped.
#[derive(Clone)]
pub struct Detecting {
    /// `None` when the thread could not start: each piece then goes to
    /// the runtime's blocking pool instead (still off its workers).
    jobs: Option<mpsc::Sender<Job>>,
}

impl Detecting {
    pub fn start() -> Self {
        let (jobs, waiting) = mpsc::channel::<Job>();
        let started = thread::Builder::new()
            .name("voice-activity".into())
            .spawn(move || {
                for job in waiting {
                    job();
                }
            });
        if let Err(error) = &started {
            tracing::warn!(%error, "no voice-activity thread; using the blocking pool");
        }
        Self {
            jobs: started.ok().map(|_| jobs),
        }
    }

    /// `samples` pushed through `segmenter` on the detector's thread: the
    /// segmenter back, and where speech started and ended. `None` when the
    /// thread is gone.
    pub async fn push(
        &self,
        mut segmenter: Box<Segmenter>,
        samples: Vec<i16>,
    ) -> Option<(Box<Segmenter>, Vec<Segment>)> {
        let Some(jobs) = &self.jobs else {
            return tokio::task::spawn_blocking(move || {
                let segments = segmenter.push(&samples);
                (segmenter, segments)
            })
            .await
            .ok();
        };
        let (done, pushed) = oneshot::channel();
        let job: Job = Box::new(move || {
            let segments = segmenter.push(&samples);
            let _ = done.send((segmenter, segments));
        });
        jobs.send(job).ok()?;
        pushed.await.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voice::segmenter::synthetic::{silence, tone};

    #[tokio::test]
    async fn speech_is_segmented_on_the_detectors_thread_and_the_state_comes_back() {
        let detecting = Detecting::start();
        let (tx, rx) = oneshot::channel();
        detecting
            .jobs
            .as_ref()
            .unwrap()
            .send(Box::new(move || {
                let _ = tx.send(thread::current().name().map(String::from));
            }))
            .unwrap();
        assert_eq!(rx.await.unwrap().as_deref(), Some("voice-activity"));
        // Two pieces: the segmenter's state is carried across them.
        let segmenter = Box::<Segmenter>::default();
        let (segmenter, first) = detecting
            .push(segmenter, [silence(0.3), tone(1.0)].concat())
            .await
            .unwrap();
        assert_eq!(first, [Segment::Started]);
        let (_, second) = detecting.push(segmenter, silence(1.0)).await.unwrap();
        assert!(
            matches!(second.as_slice(), [Segment::Ended { cut: false, .. }]),
            "the speech begun in the first piece ends in the second"
        );
        // The blocking pool does the same when there is no thread.
        let pool = Detecting { jobs: None };
        let (_, segments) = pool
            .push(Box::default(), [silence(0.3), tone(1.0)].concat())
            .await
            .unwrap();
        assert_eq!(segments, [Segment::Started]);
    }
}
