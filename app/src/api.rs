//! The dashboard's own calls, as Leptos server functions with stable
//! endpoints (`/api/dashboard/...`).
//!
//! Each body is a thin door onto [`Dashboard`], the trait the server
//! implements; the public REST routes of SPEC §4 call the same trait, so
//! there is one implementation behind both.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use server_fn::error::{FromServerFnError, ServerFnErrorErr};

use crate::protocol::{
    ChatStatus, MessagePage, QuestionList, ReplyStarted, Said, Session, SessionList, SessionSummary,
};

pub mod answers;
mod connections;
mod records;
mod wire_http;
#[cfg(feature = "ssr")]
pub use connections::ModelConnections;
pub use connections::{
    choose_connection, forget_key, get_connections, list_models, test_connection,
};
#[cfg(feature = "ssr")]
pub use records::Records;
pub use records::{
    create_memory, delete_memory, delete_reminder, get_meaning_status, get_memory, list_memories,
    list_projects, list_reminders, move_project, update_memory, update_reminder,
};
pub use wire_http::WireHttp;

/// A failed call: the HTTP status it maps to and a message for the user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub status: u16,
    /// Named `error` on the wire, like every other error body.
    #[serde(rename = "error")]
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(404, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(409, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, message)
    }
}

impl FromServerFnError for ApiError {
    type Encoder = server_fn::codec::JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        let status = match &value {
            // A body that cannot be decoded (not UTF-8, not the form) is
            // the caller's fault, never the server's.
            ServerFnErrorErr::Args(_)
            | ServerFnErrorErr::MissingArg(_)
            | ServerFnErrorErr::Deserialization(_) => 400,
            // The request never reached the server (status 0 is never sent).
            ServerFnErrorErr::Request(_) => 0,
            _ => 500,
        };
        Self::new(status, value.to_string())
    }
}

/// What the server does for the dashboard. Implemented by the server's
/// engine and provided to server functions as context.
#[cfg(feature = "ssr")]
#[async_trait::async_trait]
pub trait Dashboard: Records + ModelConnections + Send + Sync + 'static {
    async fn status(&self) -> ChatStatus;
    async fn list_sessions(&self) -> Result<SessionList, ApiError>;
    async fn create_session(&self, title: Option<String>) -> Result<SessionSummary, ApiError>;
    /// A session with all its messages, or (with `page`) one page of them
    /// and how many come before it.
    async fn get_session(
        &self,
        sid: String,
        page: Option<MessagePage>,
    ) -> Result<Session, ApiError>;
    async fn rename_session(&self, sid: String, title: String) -> Result<SessionSummary, ApiError>;
    async fn delete_session(&self, sid: String) -> Result<(), ApiError>;
    async fn send_message(&self, sid: String, message: String) -> Result<ReplyStarted, ApiError>;
    /// An answer, or "You decide" when `you_decide` (then `answer` is
    /// not needed).
    async fn answer(
        &self,
        sid: String,
        question_id: String,
        answer: Option<String>,
        you_decide: bool,
    ) -> Result<(), ApiError>;
    /// Text typed in the chat while the question `question_id` waits: its
    /// answer, or a new request when it reads as one (the waiting reply
    /// then stops and a new one starts with it).
    async fn say(&self, sid: String, question_id: String, text: String) -> Result<Said, ApiError>;
    /// Every question waiting now, oldest first.
    async fn list_questions(&self) -> Result<QuestionList, ApiError>;
    async fn stop(&self, sid: String) -> Result<(), ApiError>;
    /// Answers the session's last user message again, as a new reply.
    async fn retry(&self, sid: String) -> Result<ReplyStarted, ApiError>;
}

/// The server's [`Dashboard`], as server functions find it in context.
#[cfg(feature = "ssr")]
pub type DashboardHandle = std::sync::Arc<dyn Dashboard>;

#[cfg(feature = "ssr")]
fn dashboard() -> Result<DashboardHandle, ApiError> {
    use_context::<DashboardHandle>()
        .ok_or_else(|| ApiError::internal("the dashboard is not set up"))
}

#[server(endpoint = "dashboard/status", protocol = WireHttp)]
pub async fn fetch_status() -> Result<ChatStatus, ApiError> {
    Ok(dashboard()?.status().await)
}

#[server(endpoint = "dashboard/list_sessions", protocol = WireHttp)]
pub async fn list_sessions() -> Result<SessionList, ApiError> {
    dashboard()?.list_sessions().await
}

#[server(endpoint = "dashboard/create_session", protocol = WireHttp)]
pub async fn create_session(title: Option<String>) -> Result<SessionSummary, ApiError> {
    dashboard()?.create_session(title).await
}

/// A session with one page of its messages: the chat opens with the
/// newest, and older pages come as the user scrolls up.
#[server(endpoint = "dashboard/get_session_page", protocol = WireHttp)]
pub async fn get_session_page(sid: String, page: MessagePage) -> Result<Session, ApiError> {
    dashboard()?.get_session(sid, Some(page)).await
}

#[server(endpoint = "dashboard/rename_session", protocol = WireHttp)]
pub async fn rename_session(sid: String, title: String) -> Result<SessionSummary, ApiError> {
    dashboard()?.rename_session(sid, title).await
}

#[server(endpoint = "dashboard/delete_session", protocol = WireHttp)]
pub async fn delete_session(sid: String) -> Result<(), ApiError> {
    dashboard()?.delete_session(sid).await
}

#[server(endpoint = "dashboard/send_message", protocol = WireHttp)]
pub async fn send_message(sid: String, message: String) -> Result<ReplyStarted, ApiError> {
    dashboard()?.send_message(sid, message).await
}

#[server(endpoint = "dashboard/answer", protocol = WireHttp)]
pub async fn answer_question(
    sid: String,
    question_id: String,
    answer: Option<String>,
    you_decide: bool,
) -> Result<(), ApiError> {
    dashboard()?
        .answer(sid, question_id, answer, you_decide)
        .await
}

#[server(endpoint = "dashboard/say", protocol = WireHttp)]
pub async fn say(sid: String, question_id: String, text: String) -> Result<Said, ApiError> {
    dashboard()?.say(sid, question_id, text).await
}

#[server(endpoint = "dashboard/list_questions", protocol = WireHttp)]
pub async fn list_questions() -> Result<QuestionList, ApiError> {
    dashboard()?.list_questions().await
}

#[server(endpoint = "dashboard/stop", protocol = WireHttp)]
pub async fn stop_reply(sid: String) -> Result<(), ApiError> {
    dashboard()?.stop(sid).await
}

#[server(endpoint = "dashboard/retry", protocol = WireHttp)]
pub async fn retry_reply(sid: String) -> Result<ReplyStarted, ApiError> {
    dashboard()?.retry(sid).await
}
