//! The calls of the Memories page: memories (paged list and search, add,
//! edit, delete and put back, projects moved, import, export) and
//! reminders (list, add, edit, delete), as server functions with stable
//! endpoints (`/api/dashboard/...`).
//!
//! Each body is a thin door onto [`Records`], which the server implements;
//! the REST routes `/api/memories` and `/api/reminders` call the same
//! trait, so there is one implementation behind both.

use super::WireHttp;
use leptos::prelude::*;

use super::ApiError;
#[cfg(feature = "ssr")]
use crate::protocol::NewReminder;
use crate::protocol::{
    MeaningStatus, Memory, MemoryInput, MemoryListQuery, MemoryPage, MemoryPatch, Moved,
    ProjectList, ProjectMove, Reminder, ReminderList, ReminderPatch, ReminderStatus,
};

/// What the server keeps for the user, as the page and the REST API reach
/// it. Implemented by the server's engine and provided to server functions
/// as context (through [`super::Dashboard`], which requires it).
#[cfg(feature = "ssr")]
#[async_trait::async_trait]
pub trait Records: Send + Sync + 'static {
    async fn list_memories(&self, query: MemoryListQuery) -> Result<MemoryPage, ApiError>;
    async fn get_memory(&self, id: i64) -> Result<Memory, ApiError>;
    /// A new memory, or (with `id`) a deleted one put back as it was.
    async fn create_memory(&self, input: MemoryInput) -> Result<Memory, ApiError>;
    async fn update_memory(&self, id: i64, patch: MemoryPatch) -> Result<Memory, ApiError>;
    /// Returns the memory deleted, so the page can put it back.
    async fn delete_memory(&self, id: i64) -> Result<Memory, ApiError>;
    async fn list_projects(&self) -> Result<ProjectList, ApiError>;
    /// Whether memories are found by meaning, and how far the filling in is.
    async fn meaning_status(&self) -> Result<MeaningStatus, ApiError>;
    /// Renames a project, or merges it into another.
    async fn move_project(&self, change: ProjectMove) -> Result<Moved, ApiError>;
    async fn list_reminders(
        &self,
        status: Option<ReminderStatus>,
    ) -> Result<ReminderList, ApiError>;
    async fn create_reminder(
        &self,
        reminder: NewReminder,
        session_id: Option<String>,
    ) -> Result<Reminder, ApiError>;
    async fn update_reminder(&self, id: i64, patch: ReminderPatch) -> Result<Reminder, ApiError>;
    async fn delete_reminder(&self, id: i64) -> Result<(), ApiError>;
}

#[cfg(feature = "ssr")]
fn records() -> Result<super::DashboardHandle, ApiError> {
    super::dashboard()
}

#[server(endpoint = "dashboard/list_memories", protocol = WireHttp)]
pub async fn list_memories(query: MemoryListQuery) -> Result<MemoryPage, ApiError> {
    records()?.list_memories(query).await
}

#[server(endpoint = "dashboard/get_memory", protocol = WireHttp)]
pub async fn get_memory(id: i64) -> Result<Memory, ApiError> {
    records()?.get_memory(id).await
}

#[server(endpoint = "dashboard/create_memory", protocol = WireHttp)]
pub async fn create_memory(input: MemoryInput) -> Result<Memory, ApiError> {
    records()?.create_memory(input).await
}

#[server(endpoint = "dashboard/update_memory", protocol = WireHttp)]
pub async fn update_memory(id: i64, patch: MemoryPatch) -> Result<Memory, ApiError> {
    records()?.update_memory(id, patch).await
}

#[server(endpoint = "dashboard/delete_memory", protocol = WireHttp)]
pub async fn delete_memory(id: i64) -> Result<Memory, ApiError> {
    records()?.delete_memory(id).await
}

#[server(endpoint = "dashboard/list_projects", protocol = WireHttp)]
pub async fn list_projects() -> Result<ProjectList, ApiError> {
    records()?.list_projects().await
}

#[server(endpoint = "dashboard/meaning_status", protocol = WireHttp)]
pub async fn get_meaning_status() -> Result<MeaningStatus, ApiError> {
    records()?.meaning_status().await
}

#[server(endpoint = "dashboard/move_project", protocol = WireHttp)]
pub async fn move_project(change: ProjectMove) -> Result<Moved, ApiError> {
    records()?.move_project(change).await
}

#[server(endpoint = "dashboard/list_reminders", protocol = WireHttp)]
pub async fn list_reminders(status: Option<ReminderStatus>) -> Result<ReminderList, ApiError> {
    records()?.list_reminders(status).await
}

#[server(endpoint = "dashboard/update_reminder", protocol = WireHttp)]
pub async fn update_reminder(id: i64, patch: ReminderPatch) -> Result<Reminder, ApiError> {
    records()?.update_reminder(id, patch).await
}

#[server(endpoint = "dashboard/delete_reminder", protocol = WireHttp)]
pub async fn delete_reminder(id: i64) -> Result<(), ApiError> {
    records()?.delete_reminder(id).await
}
