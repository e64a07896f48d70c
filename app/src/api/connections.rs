//! The calls of the Model page: the model in use and the servers found,
//! a choice tested, saved, or its server's models listed, and a saved key
//! removed, as server functions with stable endpoints
//! (`/api/dashboard/...`).
//!
//! Each body is a thin door onto [`ModelConnections`], which the server
//! implements; the REST routes under `/api/connections` call the same
//! trait, so there is one implementation behind both.

use super::WireHttp;
use leptos::prelude::*;

use super::ApiError;
use crate::protocol::{
    ConnectionChoice, Connections, CurrentConnection, KeyRef, ModelList, TestResult,
};

/// The model connections, as the page and the REST API reach them.
/// Implemented by the server's engine and provided to server functions as
/// context (through [`super::Dashboard`], which requires it).
#[cfg(feature = "ssr")]
#[async_trait::async_trait]
pub trait ModelConnections: Send + Sync + 'static {
    /// The model in use, and the model servers found on loopback now.
    async fn connections(&self) -> Result<Connections, ApiError>;
    /// Saves a choice; the next reply is written with it.
    async fn choose_connection(
        &self,
        choice: ConnectionChoice,
    ) -> Result<CurrentConnection, ApiError>;
    /// One short request to the chosen model.
    async fn test_connection(&self, choice: ConnectionChoice) -> Result<TestResult, ApiError>;
    /// The models a server the user typed lists.
    async fn list_models(&self, choice: ConnectionChoice) -> Result<ModelList, ApiError>;
    /// Removes the key saved for a server.
    async fn forget_key(&self, key: KeyRef) -> Result<(), ApiError>;
}

#[server(endpoint = "dashboard/connections", protocol = WireHttp)]
pub async fn get_connections() -> Result<Connections, ApiError> {
    super::dashboard()?.connections().await
}

#[server(endpoint = "dashboard/choose_connection", protocol = WireHttp)]
pub async fn choose_connection(choice: ConnectionChoice) -> Result<CurrentConnection, ApiError> {
    super::dashboard()?.choose_connection(choice).await
}

#[server(endpoint = "dashboard/test_connection", protocol = WireHttp)]
pub async fn test_connection(choice: ConnectionChoice) -> Result<TestResult, ApiError> {
    super::dashboard()?.test_connection(choice).await
}

#[server(endpoint = "dashboard/list_models", protocol = WireHttp)]
pub async fn list_models(choice: ConnectionChoice) -> Result<ModelList, ApiError> {
    super::dashboard()?.list_models(choice).await
}

#[server(endpoint = "dashboard/forget_key", protocol = WireHttp)]
pub async fn forget_key(key: KeyRef) -> Result<(), ApiError> {
    super::dashboard()?.forget_key(key).await
}
