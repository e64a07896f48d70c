//! `GET /api/questions` (SPEC §4): every question waiting now, across all
//! chats and Echo, for the "Waiting for you" inbox.

use app::api::Dashboard;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::error::AppError;
use super::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/questions", get(list))
}

async fn list(State(engine): State<AppState>) -> Result<Response, AppError> {
    Ok(axum::Json(engine.list_questions().await?).into_response())
}
