//! The chat REST API (SPEC §4): thin doors onto the engine's calls.

use app::api::ApiError;
use app::api::Dashboard;
use app::protocol::{AnswerRequest, CreateSession, MessagePage, PostMessage, RenameSession};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;

use super::error::{ok, ApiResult, Json};
use super::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/chat/status", get(status))
        .route("/chat/sessions", get(list).post(create))
        .route(
            "/chat/sessions/{sid}",
            get(session).patch(rename).delete(delete),
        )
        .route("/chat/sessions/{sid}/messages", post(message))
        .route("/chat/sessions/{sid}/answer", post(answer))
        .route("/chat/sessions/{sid}/stop", post(stop))
        .route("/chat/sessions/{sid}/retry", post(retry))
}

async fn status(State(engine): State<AppState>) -> ApiResult {
    ok(StatusCode::OK, engine.status().await)
}

async fn list(State(engine): State<AppState>) -> ApiResult {
    ok(StatusCode::OK, engine.list_sessions().await?)
}

/// The body is optional: none (or an empty one) creates an untitled chat.
async fn create(State(engine): State<AppState>, body: axum::body::Bytes) -> ApiResult {
    let request: CreateSession = if body.iter().all(u8::is_ascii_whitespace) {
        CreateSession::default()
    } else {
        let value = serde_json::from_slice(&body)
            .map_err(|e| app::api::ApiError::bad_request(super::error::not_valid(&e)))?;
        super::error::from_object(value)?
    };
    ok(
        StatusCode::CREATED,
        engine.create_session(request.title).await?,
    )
}

/// `?before=&limit=` as given, read here so a bad number is the same
/// `{"error"}` 400 as any other bad input.
#[derive(serde::Deserialize)]
struct PageQuery {
    before: Option<String>,
    limit: Option<String>,
}

/// The whole session (SPEC §4), or with `before` or `limit` one page of
/// its messages and `older`, how many come before it.
async fn session(
    State(engine): State<AppState>,
    Path(sid): Path<String>,
    Query(query): Query<PageQuery>,
) -> ApiResult {
    let page = match (query.before, query.limit) {
        (None, None) => None,
        (before, limit) => Some(MessagePage {
            before: before.map(|b| number(&b, "before")).transpose()?,
            limit: limit.map(|l| number(&l, "limit")).transpose()?,
        }),
    };
    ok(StatusCode::OK, engine.get_session(sid, page).await?)
}

fn number<T: std::str::FromStr>(text: &str, name: &str) -> Result<T, ApiError> {
    text.trim().parse().map_err(|_| {
        ApiError::bad_request(format!(
            "{name} must be a whole number, not {}",
            crate::quoting::quoted(text)
        ))
    })
}

async fn rename(
    State(engine): State<AppState>,
    Path(sid): Path<String>,
    Json(body): Json<RenameSession>,
) -> ApiResult {
    ok(
        StatusCode::OK,
        engine.rename_session(sid, body.title).await?,
    )
}

async fn delete(State(engine): State<AppState>, Path(sid): Path<String>) -> ApiResult {
    engine.delete_session(sid).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn message(
    State(engine): State<AppState>,
    Path(sid): Path<String>,
    Json(body): Json<PostMessage>,
) -> ApiResult {
    ok(
        StatusCode::ACCEPTED,
        engine.send_message(sid, body.message).await?,
    )
}

async fn answer(
    State(engine): State<AppState>,
    Path(sid): Path<String>,
    Json(body): Json<AnswerRequest>,
) -> ApiResult {
    engine
        .answer(sid, body.id, body.answer, body.you_decide)
        .await?;
    ok(StatusCode::OK, app::protocol::Ok::default())
}

async fn stop(State(engine): State<AppState>, Path(sid): Path<String>) -> ApiResult {
    engine.stop(sid).await?;
    ok(StatusCode::OK, app::protocol::Ok::default())
}

/// The last user message answered again as a new reply (SPEC §4).
async fn retry(State(engine): State<AppState>, Path(sid): Path<String>) -> ApiResult {
    ok(StatusCode::ACCEPTED, engine.retry(sid).await?)
}
