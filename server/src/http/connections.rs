//! `/api/connections` (SPEC §4): the model in use and the servers found,
//! a choice saved (`PUT /current`) or tested, a typed server's models
//! listed, a saved key removed; thin doors onto [`ModelConnections`].

use app::api::ModelConnections;
use app::protocol::{ConnectionChoice, KeyRef};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{delete, get, post, put};
use axum::Router;

use super::error::{ok, ApiResult, Json};
use super::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/connections", get(list))
        .route("/connections/current", put(choose))
        .route("/connections/test", post(test))
        .route("/connections/models", post(models))
        .route("/connections/keys", delete(forget_key))
}

async fn list(State(engine): State<AppState>) -> ApiResult {
    ok(StatusCode::OK, engine.connections().await?)
}

/// Saved before the 200; the next reply is written with it.
async fn choose(State(engine): State<AppState>, Json(choice): Json<ConnectionChoice>) -> ApiResult {
    ok(
        StatusCode::OK,
        serde_json::json!({ "current": engine.choose_connection(choice).await? }),
    )
}

async fn test(State(engine): State<AppState>, Json(choice): Json<ConnectionChoice>) -> ApiResult {
    ok(StatusCode::OK, engine.test_connection(choice).await?)
}

async fn models(State(engine): State<AppState>, Json(choice): Json<ConnectionChoice>) -> ApiResult {
    ok(StatusCode::OK, engine.list_models(choice).await?)
}

/// `?provider=…&base_url=…`, read here so a missing one is the same
/// `{"error"}` 400 as any other bad input.
#[derive(serde::Deserialize)]
struct KeyQuery {
    provider: Option<String>,
    base_url: Option<String>,
}

async fn forget_key(State(engine): State<AppState>, Query(query): Query<KeyQuery>) -> ApiResult {
    let (Some(provider), Some(base_url)) = (query.provider, query.base_url) else {
        return Err(app::api::ApiError::bad_request(
            "name the key's server: ?provider=…&base_url=…",
        )
        .into());
    };
    engine.forget_key(KeyRef { provider, base_url }).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
