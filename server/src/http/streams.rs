//! Server-sent event streams: a reply's events (replayed, then live,
//! resumable with `Last-Event-ID`) and the dashboard-wide events.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::BytesMut;
use futures::task::AtomicWaker;
use futures::{Stream, StreamExt};
use tokio_stream::wrappers::BroadcastStream;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::error::AppError;
use super::AppState;
use crate::replies::{Cursor, LoggedEvent};
use app::api::ApiError;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/chat/sessions/{sid}/reply", get(reply_events))
        .route("/events", get(dashboard_events))
}

const KEEP_ALIVE: Duration = Duration::from_secs(15);

fn keep_alive() -> KeepAlive {
    KeepAlive::new().interval(KEEP_ALIVE)
}

#[derive(serde::Deserialize)]
struct ReplyQuery {
    /// A specific reply (the `reply_id` POST /messages gave): readable
    /// also shortly after it ended.
    reply_id: Option<String>,
}

async fn reply_events(
    State(engine): State<AppState>,
    Path(sid): Path<String>,
    Query(query): Query<ReplyQuery>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let reply = match &query.reply_id {
        Some(id) => engine.replies.find(&sid, id),
        None => engine.replies.get(&sid),
    }
    .ok_or_else(|| ApiError::not_found("no reply is being written in this session"))?;
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let watcher = Watcher::new(reply.log.follow(after), &engine.shutdown);
    let stream = futures::stream::unfold(watcher, |mut watcher| async move {
        let frames = watcher.next_frames().await?;
        Some((Ok::<_, Infallible>(frames), watcher))
    });
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response())
}

/// The most events written at once to a watcher that fell behind.
const MAX_BATCH: usize = 256;

/// One watcher of a reply's events. Each event's frame was encoded once,
/// when published, and every watcher is handed that same buffer.
struct Watcher {
    cursor: Cursor,
    shutdown: PolledOnWake<WaitForCancellationFutureOwned>,
    /// Ticks every half [`KEEP_ALIVE`] for the whole stream: one timer,
    /// set once, rather than one set and cleared around every event (with
    /// 100 watchers, 100 timer changes per token).
    keep_alive: tokio::time::Interval,
    /// Something was written since the last tick.
    sent: bool,
}

impl Watcher {
    fn new(cursor: Cursor, shutdown: &CancellationToken) -> Self {
        Self {
            cursor,
            shutdown: PolledOnWake::new(shutdown.clone().cancelled_owned()),
            keep_alive: keep_alive_timer(),
            sent: false,
        }
    }

    /// What to write next: every event ready now in one write (a watcher
    /// that fell behind catches up at once), else a keep-alive comment
    /// at a tick with no write since the tick before (at most a
    /// [`KEEP_ALIVE`] of silence); `None` at the end.
    async fn next_frames(&mut self) -> Option<Bytes> {
        loop {
            // Ready events go out without touching the timer or the
            // shutdown token: the path every token takes.
            let batch = self.cursor.ready(MAX_BATCH);
            if !batch.is_empty() {
                self.sent = true;
                return Some(frames(&batch));
            }
            tokio::select! {
                biased;
                _ = &mut self.shutdown => return None,
                more = self.cursor.wait() => {
                    if !more {
                        return None;
                    }
                }
                _ = self.keep_alive.tick() => {
                    if !std::mem::take(&mut self.sent) {
                        self.sent = true;
                        return Some(Bytes::from_static(b": keep-alive\n\n"));
                    }
                }
            }
        }
    }
}

/// A future polled again only after it woke the task. A watcher goes to
/// sleep after every token; polling the shutdown token each time (its lock
/// and its waiter's) was a few percent of a token's fan-out.
struct PolledOnWake<F> {
    future: Pin<Box<F>>,
    signal: Arc<WakeSignal>,
    /// Hands the future's wake to `signal`.
    waker: Waker,
    polled: bool,
}

/// Set when the wrapped future wakes; wakes the task polling it.
#[derive(Default)]
struct WakeSignal {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for WakeSignal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<F: Future> PolledOnWake<F> {
    fn new(future: F) -> Self {
        let signal = Arc::new(WakeSignal::default());
        Self {
            future: Box::pin(future),
            waker: Waker::from(Arc::clone(&signal)),
            signal,
            polled: false,
        }
    }
}

impl<F: Future> Future for PolledOnWake<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        // Registered before the flag is read: a wake in between is seen.
        this.signal.task.register(cx.waker());
        if this.polled && !this.signal.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        this.polled = true;
        this.future
            .as_mut()
            .poll(&mut Context::from_waker(&this.waker))
    }
}

/// The events' frames as one buffer (the frame itself for one event).
fn frames(batch: &[Arc<LoggedEvent>]) -> Bytes {
    match batch {
        [one] => one.frame.clone(),
        many => {
            let mut frames = BytesMut::with_capacity(many.iter().map(|e| e.frame.len()).sum());
            for event in many {
                frames.extend_from_slice(&event.frame);
            }
            frames.freeze()
        }
    }
}

/// Ticks every half [`KEEP_ALIVE`]; a tick with no write (keep-alives
/// included) since the one before sends a keep-alive: an idle stream gets
/// one per [`KEEP_ALIVE`], and no stream is silent longer.
fn keep_alive_timer() -> tokio::time::Interval {
    let half = KEEP_ALIVE / 2;
    let mut timer = tokio::time::interval_at(tokio::time::Instant::now() + half, half);
    timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    timer
}

async fn dashboard_events(
    State(engine): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let shutdown = engine.shutdown.clone();
    let live = BroadcastStream::new(engine.dashboard.subscribe())
        // A watcher too slow to keep up misses events rather than stalling
        // the others; every event here is also readable from the API.
        .filter_map(|event| futures::future::ready(event.ok()));
    // A page that connects late (or after a restart) first learns what
    // waits now; subscribed first, so nothing falls in between.
    let waiting: Vec<_> = engine
        .replies
        .waiting_questions()
        .into_iter()
        .map(
            |(session_id, question)| app::protocol::DashboardEvent::QuestionWaiting {
                session_id,
                question_id: question.id,
            },
        )
        .collect();
    let stream = futures::stream::iter(waiting)
        .chain(live)
        .map(|event| {
            let json = serde_json::to_string(&event).unwrap_or_default();
            Ok(Event::default().data(json))
        })
        .take_until(async move { shutdown.cancelled().await });
    Sse::new(stream).keep_alive(keep_alive())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replies::EventLog;
    use app::protocol::ReplyEvent;

    fn token(text: &str) -> ReplyEvent {
        ReplyEvent::Token { text: text.into() }
    }

    const KEEP_ALIVE_FRAME: &[u8] = b": keep-alive\n\n";

    #[tokio::test(start_paused = true)]
    async fn an_idle_watcher_gets_a_keep_alive_and_a_busy_one_does_not() {
        let log = Arc::new(EventLog::default());
        let shutdown = CancellationToken::new();
        let mut watcher = Watcher::new(log.follow(0), &shutdown);
        let started = tokio::time::Instant::now();
        assert_eq!(&watcher.next_frames().await.unwrap()[..], KEEP_ALIVE_FRAME);
        assert_eq!(started.elapsed(), KEEP_ALIVE / 2);
        let first = tokio::time::Instant::now();
        assert_eq!(&watcher.next_frames().await.unwrap()[..], KEEP_ALIVE_FRAME);
        assert_eq!(first.elapsed(), KEEP_ALIVE, "one per period while idle");

        // An event a quarter period after that: the next tick (a quarter
        // period later) is skipped, the one after sends the keep-alive,
        // within a period of the event.
        tokio::time::sleep(KEEP_ALIVE / 4).await;
        log.publish(token("a"));
        assert!(watcher.next_frames().await.unwrap().ends_with(b"\n\n"));
        let sent = tokio::time::Instant::now();
        assert_eq!(&watcher.next_frames().await.unwrap()[..], KEEP_ALIVE_FRAME);
        assert_eq!(sent.elapsed(), KEEP_ALIVE / 4 + KEEP_ALIVE / 2);
    }

    #[tokio::test]
    async fn ready_events_go_out_in_one_buffer_in_order_and_the_stream_ends_after_done() {
        let log = Arc::new(EventLog::default());
        let shutdown = CancellationToken::new();
        let mut watcher = Watcher::new(log.follow(0), &shutdown);
        for t in ["a", "b"] {
            log.publish(token(t));
        }
        log.publish(ReplyEvent::Done);
        let all = watcher.next_frames().await.unwrap();
        let frames: Vec<u8> = log
            .snapshot()
            .iter()
            .flat_map(|e| e.frame.to_vec())
            .collect();
        assert_eq!(&all[..], &frames[..]);
        assert!(watcher.next_frames().await.is_none());
    }

    #[tokio::test]
    async fn a_shutdown_ends_a_waiting_watcher() {
        let log = Arc::new(EventLog::default());
        let shutdown = CancellationToken::new();
        let mut watcher = Watcher::new(log.follow(0), &shutdown);
        // Asleep, woken by events, asleep again many times: the shutdown
        // still ends it.
        for t in ["a", "b", "c"] {
            let mut next = Box::pin(watcher.next_frames());
            assert!(futures::poll!(next.as_mut()).is_pending());
            log.publish(token(t));
            assert!(next.await.is_some());
        }
        let mut next = Box::pin(watcher.next_frames());
        assert!(futures::poll!(next.as_mut()).is_pending());
        shutdown.cancel();
        assert!(next.await.is_none());
    }

    #[tokio::test]
    async fn a_watcher_that_connects_after_the_shutdown_ends_at_once() {
        let log = Arc::new(EventLog::default());
        let shutdown = CancellationToken::new();
        shutdown.cancel();
        let mut watcher = Watcher::new(log.follow(0), &shutdown);
        assert!(watcher.next_frames().await.is_none());
    }
}
