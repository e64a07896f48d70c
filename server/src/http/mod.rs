//! The HTTP surface: the REST API of SPEC §4, the event streams, the
//! dashboard's server functions, and the built site with an SPA fallback,
//! all behind the guard and with the security headers on every response.

mod chat;
mod connections;
pub mod error;
pub mod guard;
mod memories;
mod questions;
mod reminders;
mod site;
mod streams;
pub mod voice;

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::engine::Engine;
use app::api::DashboardHandle;

pub type AppState = Arc<Engine>;

/// The whole application: every route behind the guard, every response
/// with the security headers.
pub fn app(engine: Arc<Engine>, dist: PathBuf) -> Router {
    let config = &engine.config;
    let guard = guard::Guard::new(
        &config.allowed_hosts,
        &config.allowed_origins,
        config.token(),
        config.trust_proxy,
    );
    let csp = site::ContentSecurityPolicy::new(&dist);
    let api = Router::new()
        .merge(chat::router())
        .merge(connections::router())
        .merge(questions::router())
        .merge(memories::router())
        .merge(reminders::router())
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
        .layer(axum::middleware::from_fn(guard::body_limit))
        // A body that stalls between chunks ends the request.
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            crate::serve::sockets::BODY_TIMEOUT,
        ))
        .layer(axum::middleware::from_fn_with_state(guard, guard::guard))
        // Outermost, so the guard's own refusals carry them too.
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            move |_: &Response| csp.header(),
        ))
        .layer(fixed_header(header::X_FRAME_OPTIONS, "DENY"))
        .layer(fixed_header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(fixed_header(header::REFERRER_POLICY, "no-referrer"))
        .with_state(engine)
}

fn fixed_header(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
}

/// The methods of the server function at this path (none: no such function).
fn server_function_methods(path: &str) -> Vec<Method> {
    server_fn::axum::server_fn_paths()
        .filter(|(p, _)| *p == path)
        .map(|(_, method)| method)
        .collect()
}

/// Runs a dashboard server function with the engine in its context. An
/// error's status is the one its `ApiError` carries.
async fn server_function(
    axum::extract::State(engine): axum::extract::State<AppState>,
    request: Request<Body>,
) -> Response {
    let methods = server_function_methods(request.uri().path());
    if methods.is_empty() {
        return error::json_error(StatusCode::NOT_FOUND, "no such server function");
    }
    if !methods.contains(request.method()) {
        return error::json_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "this server function takes another method",
        );
    }
    // The whole body is read here, so one sent in chunks past the limit is
    // a 413 and not a failure inside the server function.
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, guard::MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(error) => return body_error(&error),
    };
    let request = Request::from_parts(parts, Body::from(bytes));
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

/// A body that could not be read: too large, or broken off.
fn body_error(error: &axum::Error) -> Response {
    body_error_on(error, "")
}

/// A body that could not be read: 413 past the limit of `path`, else 400.
pub(crate) fn body_error_on(error: &axum::Error, path: &str) -> Response {
    let too_large = std::iter::successors(Some(error as &dyn std::error::Error), |e| e.source())
        .any(|e| e.is::<http_body_util::LengthLimitError>());
    if too_large {
        error::json_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &guard::too_large_message(path),
        )
    } else {
        error::json_error(
            StatusCode::BAD_REQUEST,
            "the request body could not be read",
        )
    }
}
