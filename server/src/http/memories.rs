//! `/api/memories` (SPEC §4): the paged list and search, add, edit,
//! delete, JSON Lines export and import; thin doors onto [`Records`].

use app::api::{ApiError, Records};
use app::protocol::{MemoryInput, MemoryListQuery, MemoryPatch};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use super::error::{AppError, Json};
use super::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/memories", get(list).post(create))
        .route("/memories/export", get(export))
        .route("/memories/import", post(import))
        .route(
            "/memories/{id}",
            axum::routing::patch(update).delete(delete),
        )
}

type ApiResult = Result<Response, AppError>;

fn ok<T: serde::Serialize>(status: StatusCode, value: T) -> ApiResult {
    Ok((status, axum::Json(value)).into_response())
}

/// An id in the path; one that is not a number names no memory.
fn memory_id(id: &str) -> Result<i64, ApiError> {
    id.parse()
        .map_err(|_| ApiError::not_found(format!("no memory with id {id}")))
}

async fn list(State(engine): State<AppState>, Query(query): Query<MemoryListQuery>) -> ApiResult {
    ok(StatusCode::OK, engine.list_memories(query).await?)
}

async fn create(State(engine): State<AppState>, Json(input): Json<MemoryInput>) -> ApiResult {
    ok(StatusCode::CREATED, engine.create_memory(input).await?)
}

async fn update(
    State(engine): State<AppState>,
    Path(id): Path<String>,
    Json(patch): Json<MemoryPatch>,
) -> ApiResult {
    let id = memory_id(&id)?;
    ok(StatusCode::OK, engine.update_memory(id, patch).await?)
}

async fn delete(State(engine): State<AppState>, Path(id): Path<String>) -> ApiResult {
    engine.delete_memory(memory_id(&id)?).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn export(State(engine): State<AppState>) -> ApiResult {
    let jsonl = engine.export_memories().await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/jsonl"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"imprint-memories.jsonl\"",
            ),
        ],
        jsonl,
    )
        .into_response())
}

/// The body is JSON Lines as sent (any content type), at most 64 KiB.
async fn import(State(engine): State<AppState>, body: String) -> ApiResult {
    ok(StatusCode::OK, engine.import_memories(body).await?)
}
