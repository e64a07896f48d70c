//! Running the server: bind, print where, serve until SIGINT/SIGTERM, then
//! end every stream and reply and drain connections.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, ConfigError};
use crate::engine::Engine;
use crate::store::{Store, StoreError};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot open the database at {}: {source}", path.display())]
    Database {
        path: std::path::PathBuf,
        source: StoreError,
    },
    #[error("cannot open an in-memory database: {0}")]
    Ephemeral(StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// A running server.
pub struct Running {
    pub addr: SocketAddr,
    pub engine: Arc<Engine>,
    pub shutdown: CancellationToken,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Opens the store, binds the address and starts serving.
pub async fn start(config: Config) -> Result<Running, ServeError> {
    let database = config.database_path()?;
    let store = Store::open(&database).map_err(|source| ServeError::Database {
        path: database.clone(),
        source,
    })?;
    let ephemeral = Store::open_in_memory().map_err(ServeError::Ephemeral)?;
    let listen_error = |source| ServeError::Listen {
        addr: config.addr,
        source,
    };
    let listener = TcpListener::bind(config.addr).await.map_err(listen_error)?;
    let addr = listener.local_addr().map_err(listen_error)?;
    let dist = config.dist_dir();
    let shutdown = CancellationToken::new();
    let engine = Engine::new(config, store.clone(), ephemeral, shutdown.clone());
    crate::reminders::spawn_timer(
        store,
        Arc::clone(&engine.reminders_changed),
        engine.dashboard.clone(),
        shutdown.clone(),
    );
    let app = crate::http::app(Arc::clone(&engine), dist);
    let until = shutdown.clone();
    // Events are small and latency matters: no Nagle delay.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { until.cancelled().await })
            .await
    });
    Ok(Running {
        addr,
        engine,
        shutdown,
        task,
    })
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
