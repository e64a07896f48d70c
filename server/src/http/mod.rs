//! The HTTP surface: the REST API of SPEC §4, the event streams, the
//! dashboard's server functions, and the built site with an SPA fallback.

mod chat;
pub mod error;
pub mod guard;
mod site;
mod streams;
mod voice;

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;

use crate::engine::Engine;
use app::api::DashboardHandle;

pub type AppState = Arc<Engine>;

/// The whole application: every route behind the guard.
pub fn app(engine: Arc<Engine>, dist: PathBuf) -> Router {
    let guard = guard::Guard::new(&engine.config.allowed_hosts, engine.config.token.clone());
    let api = Router::new()
        .merge(chat::router())
        .merge(streams::router())
        .merge(voice::router())
        .fallback(|| async { error::json_error(StatusCode::NOT_FOUND, "no such API route") });
    Router::new()
        // Not nested: server functions are registered under their full path.
        .route(
            "/api/dashboard/{*fn_name}",
            post(server_function).get(server_function),
        )
        .nest("/api", api)
        .fallback_service(site::service(dist))
        .layer(axum::middleware::from_fn(guard::json_errors))
        .layer(guard::body_limit())
        .layer(axum::middleware::from_fn_with_state(guard, guard::guard))
        .with_state(engine)
}

/// Runs a dashboard server function with the engine in its context. An
/// error's status is the one its `ApiError` carries.
async fn server_function(
    axum::extract::State(engine): axum::extract::State<AppState>,
    request: Request<Body>,
) -> Response {
    let handle: DashboardHandle = engine;
    let response = leptos_axum::handle_server_fns_with_context(
        move || leptos::prelude::provide_context(handle.clone()),
        request,
    )
    .await
    .into_response();
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, guard::MAX_BODY_BYTES)
        .await
        .unwrap_or_default();
    if let Ok(error) = serde_json::from_slice::<app::api::ApiError>(&bytes) {
        if let Ok(status) = StatusCode::from_u16(error.status) {
            if status.is_client_error() || status.is_server_error() {
                parts.status = status;
            }
        }
        parts.headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
    }
    Response::from_parts(parts, Body::from(bytes))
}
