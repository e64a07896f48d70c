//! Errors as HTTP: every failure is `{"error": "<message>"}` with its
//! status, including the rejections of axum's extractors.

use app::api::ApiError;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

pub struct AppError(pub ApiError);

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
pub struct Json<T>(pub T);

impl<S, T> FromRequest<S> for Json<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(Json(value)),
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
        _ => rejection.body_text(),
    };
    json_error(status, &message)
}
