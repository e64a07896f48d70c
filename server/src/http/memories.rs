//! `/api/memories` (SPEC §4): the paged list and search, add, edit,
//! delete, JSON Lines export and import; thin doors onto [`Records`].

use app::api::{ApiError, Records};
use app::protocol::{MemoryInput, MemoryListQuery, MemoryPatch};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use futures::StreamExt;
use tokio::io::AsyncWriteExt;

use super::error::{ok, ApiResult, Json};
use super::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/memories", get(list).post(create))
        .route("/memories/export", get(export))
        .route("/memories/meaning", get(meaning))
        .route("/memories/import", post(import))
        .route(
            "/memories/{id}",
            axum::routing::patch(update).delete(delete),
        )
}

/// An id in the path; one that is not a number names no memory.
fn memory_id(id: &str) -> Result<i64, ApiError> {
    id.parse()
        .map_err(|_| ApiError::not_found(format!("no memory with id {id}")))
}

async fn list(State(engine): State<AppState>, Query(query): Query<MemoryListQuery>) -> ApiResult {
    ok(StatusCode::OK, engine.list_memories(query).await?)
}

/// Whether memories are found by meaning, and how far the vectors of the
/// memories kept before are filled in.
async fn meaning(State(engine): State<AppState>) -> ApiResult {
    ok(StatusCode::OK, engine.meaning.status())
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

/// JSON Lines, written a page at a time as the client reads: a large
/// store is never held in memory, nor the store's thread for long.
async fn export(State(engine): State<AppState>) -> ApiResult {
    // `Some(cursor)`: a page to read next (`None` is the first);
    // `None`: the export is written.
    let pages = futures::stream::unfold(Some(None), move |next| {
        let engine = engine.clone();
        async move {
            let cursor = next?;
            match engine.export_page(cursor).await {
                Ok((text, next)) => Some((Ok(text), next.map(Some))),
                Err(error) => Some((Err(std::io::Error::other(error.message)), None)),
            }
        }
    });
    Ok((
        [
            (header::CONTENT_TYPE, "application/jsonl"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"imprint-memories.jsonl\"",
            ),
        ],
        axum::body::Body::from_stream(pages),
    )
        .into_response())
}

/// The body is JSON Lines as sent (any content type), at most 64 MiB. It
/// is written to a file in the data directory as it arrives, then read
/// line by line, checked whole and stored in chunks (see
/// [`crate::import::import_from`]): nothing large is held in memory, and
/// the store is held neither while a slow client uploads nor for the
/// whole import.
async fn import(State(engine): State<AppState>, body: axum::body::Body) -> ApiResult {
    let cannot_spool = |e: std::io::Error| {
        tracing::error!(error = %e, "cannot write an import to a file");
        ApiError::new(503, "the import cannot be written to a file now; try again")
    };
    let dir = engine
        .config
        .data_dir()
        .unwrap_or_else(|_| std::env::temp_dir());
    let spool = tempfile::NamedTempFile::new_in(&dir).map_err(cannot_spool)?;
    let mut file = tokio::fs::File::from_std(spool.reopen().map_err(cannot_spool)?);
    let mut chunks = body.into_data_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(error) => return Ok(super::body_error_on(&error, super::guard::IMPORT_PATH)),
        };
        file.write_all(&chunk).await.map_err(cannot_spool)?;
    }
    file.flush().await.map_err(cannot_spool)?;
    drop(file);
    // Read twice (checked whole, then stored in chunks): the spool lives
    // as long as the reads, and is deleted after.
    let imported: app::protocol::Imported = engine
        .import_memories(move || spool.reopen().map(std::io::BufReader::new))
        .await?;
    ok(StatusCode::OK, imported)
}
