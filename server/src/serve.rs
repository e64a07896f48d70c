//! Running the server: bind, restore the replies that were open when it
//! last stopped, serve until SIGINT/SIGTERM, then end every stream and
//! reply (waiting questions stay stored, replies being written are kept
//! marked interrupted) and drain the open sockets, within 2 s.

pub mod sockets;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, ConfigError};
use crate::engine::Engine;
use crate::store::{Store, StoreError};
use crate::voice::Recogniser;

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
    #[error("cannot restore the replies that were open: {0}")]
    Restore(StoreError),
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
    let speech = local_recogniser(&config);
    start_with_speech(config, speech).await
}

/// Imprint's own recogniser from the configured folder (loaded when a
/// microphone first starts), or `None` when there is no folder or it lacks
/// the model's files (then `audio_start` is answered `audio_unavailable`).
fn local_recogniser(config: &Config) -> Option<Recogniser> {
    let dir = config.speech_model_dir()?;
    if let Some(missing) = crate::speech::whisper::missing_file(&dir) {
        tracing::warn!(
            dir = %dir.display(),
            missing,
            "no speech model there: Echo can't use Imprint's recogniser (run scripts/local-model.sh ensure)"
        );
        return None;
    }
    Some(Recogniser::lazy(
        crate::speech::whisper::NAME,
        move || match crate::speech::start(Some(&dir)) {
            Ok(Some(speech)) => Ok(speech),
            Ok(None) => Err("no speech model folder".into()),
            Err(error) => Err(error.to_string()),
        },
    ))
}

/// Like [`start`], with `speech` hearing Echo's audio (`None`: no
/// recogniser; the voice socket answers `audio_start` with
/// `audio_unavailable`). Tests give a stand-in recogniser here.
pub async fn start_with_speech(
    config: Config,
    speech: Option<Recogniser>,
) -> Result<Running, ServeError> {
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
    // The address as bound (a port 0 becomes the one given): the Model
    // page refuses it as a model.
    let mut config = config;
    config.addr = addr;
    let dist = config.dist_dir();
    let shutdown = CancellationToken::new();
    let meaning = if config.embedding_model_off() {
        crate::meaning::Meaning::off(crate::meaning::WordsOnly::TurnedOff)
    } else {
        crate::meaning::Meaning::start(
            config.embedding_model_dir().as_deref(),
            store.clone(),
            shutdown.clone(),
        )
    };
    let engine = Engine::new(
        config,
        store.clone(),
        ephemeral,
        speech,
        meaning,
        shutdown.clone(),
    );
    let restored = engine.restore().await.map_err(ServeError::Restore)?;
    if restored != Default::default() {
        tracing::info!(
            waiting = restored.resumed,
            interrupted = restored.interrupted,
            "restored the replies open when Imprint last stopped"
        );
    }
    forward_meaning_progress(&engine, shutdown.clone());
    crate::reminders::spawn_timer(
        store,
        Arc::clone(&engine.reminders_changed),
        engine.dashboard.clone(),
        shutdown.clone(),
    );
    let app = crate::http::app(Arc::clone(&engine), dist);
    let cap = sockets::socket_cap(sockets::raise_file_limit());
    let fair = engine.config.token().is_some();
    let until = shutdown.clone();
    let stopping = shutdown.clone();
    let replies = Arc::clone(&engine.replies);
    let task = tokio::spawn(async move {
        let server = sockets::serve(listener, app, cap, fair, until);
        // Replies save their state as soon as the token is cancelled, in
        // parallel with the sockets draining; neither may hold the
        // exit past the grace period.
        tokio::select! {
            _ = server => {}
            _ = async {
                stopping.cancelled().await;
                tokio::time::sleep(DRAIN_LIMIT).await;
            } => {
                tracing::warn!("sockets still open at shutdown were cut");
            }
        }
        if !replies.settle(SAVE_LIMIT).await {
            tracing::warn!("a reply did not save its state in time");
        }
        Ok(())
    });
    Ok(Running {
        addr,
        engine,
        shutdown,
        task,
    })
}

/// Tells the dashboards how finding by meaning gets on (the Memories page
/// shows the filling in); a slow dashboard sees the latest only.
fn forward_meaning_progress(engine: &Engine, shutdown: CancellationToken) {
    let mut status = engine.meaning.watch();
    let dashboard = engine.dashboard.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                changed = status.changed() => if changed.is_err() { return },
                _ = shutdown.cancelled() => return,
            }
            let s = status.borrow_and_update().clone();
            let _ = dashboard.send(app::protocol::DashboardEvent::MeaningProgress {
                state: s.state,
                embedded: s.embedded,
                total: s.total,
            });
        }
    });
}

/// How long open sockets may take to close after a shutdown signal.
const DRAIN_LIMIT: Duration = Duration::from_millis(1200);
/// How much longer replies may take to save their state after that.
const SAVE_LIMIT: Duration = Duration::from_millis(600);

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
