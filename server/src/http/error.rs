//! Errors as HTTP: every failure is `{"error": "<message>"}` with its
//! status, including the rejections of axum's extractors.

use app::api::ApiError;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

pub struct AppError(pub ApiError);

/// What a REST handler answers: a response, or an error with its status.
pub type ApiResult = Result<axum::response::Response, AppError>;

/// `value` as JSON with `status`.
pub fn ok<T: serde::Serialize>(status: axum::http::StatusCode, value: T) -> ApiResult {
    use axum::response::IntoResponse;
    Ok((status, axum::Json(value)).into_response())
}

impl From<ApiError> for AppError {
    fn from(error: ApiError) -> Self {
        Self(error)
    }
}

pub fn json_error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.0.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        json_error(status, &self.0.message)
    }
}

/// A JSON body whose rejection is the same error shape as every other.
/// The body must be one JSON object with only the route's fields: serde
/// would otherwise take `[]` for a struct of optional fields, and ignore a
/// misspelt one.
pub struct Json<T>(pub T);

/// Reads a JSON object body as `T`, refusing any other shape with 400.
pub fn from_object<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, AppError> {
    let bad = |message: String| AppError(ApiError::bad_request(message));
    if !value.is_object() {
        let shape = match value {
            serde_json::Value::Array(_) => "an array",
            serde_json::Value::String(_) => "a string",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::Bool(_) => "a boolean",
            _ => "null",
        };
        return Err(bad(format!("the body must be a JSON object, not {shape}")));
    }
    // serde quotes a value of the wrong type whole: cut to a few dozen
    // characters, so a 60,000-character value is not sent back.
    serde_json::from_value(value).map_err(|e| bad(not_valid(&e)))
}

/// A body serde could not read, its message cut (see [`crate::quoting`]).
pub fn not_valid(error: &serde_json::Error) -> String {
    format!(
        "the body is not valid: {}",
        crate::quoting::shortened(&error.to_string())
    )
}

impl<S, T> FromRequest<S> for Json<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<serde_json::Value>::from_request(req, state).await {
            Ok(axum::Json(value)) => from_object(value)
                .map(Json)
                .map_err(IntoResponse::into_response),
            Err(rejection) => Err(rejection_response(rejection)),
        }
    }
}

fn rejection_response(rejection: JsonRejection) -> Response {
    let status = match rejection.status() {
        // Not the route's shape is bad input like broken JSON (SPEC §4).
        StatusCode::UNPROCESSABLE_ENTITY => StatusCode::BAD_REQUEST,
        status => status,
    };
    let message = match &rejection {
        JsonRejection::MissingJsonContentType(_) => {
            "the body must be JSON (Content-Type: application/json)".to_string()
        }
        JsonRejection::BytesRejection(_) if status == StatusCode::PAYLOAD_TOO_LARGE => {
            "the request body is larger than 64 KiB".to_string()
        }
        _ => crate::quoting::shortened(&rejection.body_text()),
    };
    json_error(status, &message)
}
