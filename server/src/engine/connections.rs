//! The engine's side of [`ModelConnections`]: the Model page's calls. A
//! model chosen there is in use from the next reply ([`Engine::use_model`]).

use app::api::{ApiError, ModelConnections};
use app::protocol::{
    ConnectionChoice, Connections, CurrentConnection, KeyRef, ModelList, TestResult,
};

use super::Engine;

#[async_trait::async_trait]
impl ModelConnections for Engine {
    async fn connections(&self) -> Result<Connections, ApiError> {
        Ok(self.connections.view().await)
    }

    async fn choose_connection(
        &self,
        choice: ConnectionChoice,
    ) -> Result<CurrentConnection, ApiError> {
        self.connections
            .choose(choice, |chosen| self.use_model(chosen.settings.clone()))
            .await
    }

    async fn test_connection(&self, choice: ConnectionChoice) -> Result<TestResult, ApiError> {
        self.connections.test(choice).await
    }

    async fn list_models(&self, choice: ConnectionChoice) -> Result<ModelList, ApiError> {
        self.connections.list_models(choice).await
    }

    async fn forget_key(&self, key: KeyRef) -> Result<(), ApiError> {
        self.connections
            .forget_key(key, |current| self.use_model(current.settings.clone()))
            .await
    }
}
