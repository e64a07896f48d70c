//! Server-sent event streams: a reply's events (replayed, then live,
//! resumable with `Last-Event-ID`) and the dashboard-wide events.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::BytesMut;
use futures::{Stream, StreamExt};
use tokio_stream::wrappers::BroadcastStream;

use super::error::AppError;
use super::AppState;
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
    let cursor = reply.log.follow(after);
    let shutdown = engine.shutdown.clone();
    // Each event's frame is encoded once, when published, and every
    // watcher is handed that same buffer; a watcher that fell behind gets
    // everything ready in one write, not one write per event.
    let stream = futures::stream::unfold(cursor, |mut cursor| async move {
        let batch = tokio::select! {
            batch = cursor.next_batch(256) => batch?,
            _ = tokio::time::sleep(KEEP_ALIVE) => {
                return Some((Ok::<_, Infallible>(Bytes::from_static(b": keep-alive\n\n")), cursor));
            }
        };
        let frames = match batch.as_slice() {
            [one] => one.frame.clone(),
            many => {
                let mut frames = BytesMut::with_capacity(many.iter().map(|e| e.frame.len()).sum());
                for event in many {
                    frames.extend_from_slice(&event.frame);
                }
                frames.freeze()
            }
        };
        Some((Ok(frames), cursor))
    })
    .take_until(async move { shutdown.cancelled().await });
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response())
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
