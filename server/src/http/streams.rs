//! Server-sent event streams: a reply's events (replayed, then live,
//! resumable with `Last-Event-ID`) and the dashboard-wide events.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
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

fn keep_alive() -> KeepAlive {
    KeepAlive::new().interval(Duration::from_secs(15))
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
    let stream = futures::stream::unfold(cursor, |mut cursor| async move {
        let event = cursor.next().await?;
        let sse = Event::default()
            .id(event.seq.to_string())
            .data(&*event.json);
        Some((Ok::<_, Infallible>(sse), cursor))
    })
    .take_until(async move { shutdown.cancelled().await });
    Ok(Sse::new(stream).keep_alive(keep_alive()).into_response())
}

async fn dashboard_events(
    State(engine): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let shutdown = engine.shutdown.clone();
    let stream = BroadcastStream::new(engine.dashboard.subscribe())
        // A watcher too slow to keep up misses events rather than stalling
        // the others; every event here is also readable from the API.
        .filter_map(|event| futures::future::ready(event.ok()))
        .map(|event| {
            let json = serde_json::to_string(&event).unwrap_or_default();
            Ok(Event::default().data(json))
        })
        .take_until(async move { shutdown.cancelled().await });
    Sse::new(stream).keep_alive(keep_alive())
}
