//! `/api/reminders` (SPEC §4): list (upcoming or done), add, edit (the time
//! in the grounding grammar), delete; thin doors onto [`Records`].

use app::api::{ApiError, Records};
use app::protocol::{NewReminder, ReminderFilter, ReminderPatch};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use super::error::{ok, ApiResult, Json};
use super::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/reminders", get(list).post(create))
        .route(
            "/reminders/{id}",
            axum::routing::patch(update).delete(delete),
        )
}

/// An id in the path; one that is not a number names no reminder.
fn reminder_id(id: &str) -> Result<i64, ApiError> {
    id.parse()
        .map_err(|_| ApiError::not_found(format!("no reminder with id {id}")))
}

async fn list(State(engine): State<AppState>, Query(filter): Query<ReminderFilter>) -> ApiResult {
    ok(StatusCode::OK, engine.list_reminders(filter.status).await?)
}

async fn create(State(engine): State<AppState>, Json(body): Json<NewReminder>) -> ApiResult {
    ok(
        StatusCode::CREATED,
        engine.create_reminder(body, None).await?,
    )
}

async fn update(
    State(engine): State<AppState>,
    Path(id): Path<String>,
    Json(patch): Json<ReminderPatch>,
) -> ApiResult {
    let id = reminder_id(&id)?;
    ok(StatusCode::OK, engine.update_reminder(id, patch).await?)
}

async fn delete(State(engine): State<AppState>, Path(id): Path<String>) -> ApiResult {
    engine.delete_reminder(reminder_id(&id)?).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
