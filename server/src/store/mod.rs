//! Imprint's durable store: sessions and their messages, memories (with an
//! FTS5 index), reminders, and the replies open now, in one SQLite
//! database.
//!
//! rusqlite is blocking, so the [`Store`] owns one dedicated OS thread that
//! holds the only `Connection`. Async callers send closures to it over a
//! channel and await the answer on a `tokio::sync::oneshot`, so SQLite is
//! never touched on the async runtime. `Store` is a cheap `Clone + Send +
//! Sync` handle; when the last handle is dropped the thread ends and the
//! connection closes.
//!
//! Every time stored is an RFC 3339 UTC string with millisecond precision
//! (`2024-05-01T09:30:00.000Z`), so that text order is time order.
//!
//! This file is the worker thread and its handle; the typed methods live
//! beside the tables they own: `sessions` (sessions and messages; appending
//! in `messages`), `memories` (memories and their FTS5 search; `export`
//! and `transfer` in bulk), `reminders` (as the timer reads them: `firing`), `open_replies` (what a reply being
//! written or waiting keeps, so nothing is lost when Imprint stops; its
//! resumable state in `reply_state`); `schema` holds the migrations and
//! `time` the stored form of a time.

mod export;
mod firing;
mod memories;
mod messages;
mod open_replies;
pub mod private;
mod projects;
mod reminders;
mod reply_state;
mod schema;
mod sessions;
mod time;
mod transfer;
mod vectors;
mod vocabulary;

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use rusqlite::Connection;
use tokio::sync::{oneshot, Notify};

pub use memories::{
    check_memory, Listed, Memory, MemoryChange, MemoryHit, MemoryPageQuery, MemoryQuery, NewMemory,
    ProjectInfo, DEFAULT_PAGE_SIZE, DEFAULT_SEARCH_LIMIT, MAX_CONTENT_BYTES, MAX_PAGE_SIZE,
    MAX_PROJECT_CHARS, MAX_SEARCH_LIMIT, MAX_TAGS, MAX_TAG_CHARS,
};
pub use open_replies::{OpenReply, SavedState};
pub use reminders::{next_time, ReminderChange};
pub use sessions::{NewMessage, ToolOutcome, DEFAULT_CHANNEL, DEFAULT_TITLE, TITLE_MAX_CHARS};
pub use transfer::{ExportCursor, ImportId};
pub use vectors::MemoryVector;

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The store's thread is gone (or a closure sent to it panicked).
    #[error("the store is closed")]
    Closed,
    /// Bad input; the message names what is wrong.
    #[error("{0}")]
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> StoreError {
    StoreError::Invalid(msg.into())
}

type Job = Box<dyn FnOnce(&mut Connection) + Send + 'static>;

/// The handle to the store's thread. Clone it freely.
#[derive(Clone, Debug)]
pub struct Store {
    jobs: mpsc::Sender<Job>,
    /// Woken after every commit that wrote to the memories (a store, an
    /// edit, a delete, an import): what keeps derived data, such as the
    /// memories' vectors, in step waits on it.
    memories_changed: Arc<Notify>,
    /// Held by the import running (see [`Store::import_turn`]).
    import_turn: Arc<tokio::sync::Mutex<()>>,
}

impl Store {
    /// Opens (creating it and its parent folders if need be) the database
    /// at `path` and brings its schema up to date. The folder and the
    /// database files are its owner's only (see [`private`]). Blocks the
    /// calling thread until the database is ready: call it at startup.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() {
                private::private_dir(dir).map_err(|e| {
                    invalid(format!("cannot create the folder {}: {e}", dir.display()))
                })?;
            }
        }
        private::private_database(path).map_err(|e| {
            invalid(format!(
                "cannot make the database {} private: {e}",
                path.display()
            ))
        })?;
        let path = path.to_path_buf();
        let checkpoints = path.clone();
        Self::start(move || Ok(Connection::open(&path)?), Some(checkpoints))
    }

    /// A private database in memory, gone when the last handle is dropped.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Self::start(|| Ok(Connection::open_in_memory()?), None)
    }

    /// Starts the store's thread on the connection `open` makes. With a
    /// file's path, the WAL is checkpointed by [`checkpointer`] instead of
    /// by the writes themselves.
    fn start<O>(open: O, file: Option<std::path::PathBuf>) -> Result<Store, StoreError>
    where
        O: FnOnce() -> Result<Connection, StoreError> + Send + 'static,
    {
        let (jobs, queue) = mpsc::channel::<Job>();
        let memories_changed = Arc::new(Notify::new());
        let wake = Arc::clone(&memories_changed);
        let (ready_tx, ready_rx) = mpsc::sync_channel::<Result<(), StoreError>>(1);
        std::thread::Builder::new()
            .name("imprint-store".into())
            .spawn(move || {
                let opened = open().and_then(|mut conn| {
                    schema::configure(&conn)?;
                    schema::migrate(&mut conn)?;
                    // Not fatal: an import left pending is tried again
                    // at the next start, and Imprint still starts.
                    if let Err(error) = transfer::settle_imports(&mut conn) {
                        tracing::error!(%error, "the imports a process left behind could not be settled");
                    }
                    notify_memory_commits(&mut conn, wake)?;
                    if let Some(file) = file {
                        checkpointer(&mut conn, file)?;
                    }
                    Ok(conn)
                });
                let mut conn = match opened {
                    Ok(conn) => conn,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                drop(ready_tx);
                // Ends when every `Store` (every sender) is dropped.
                while let Ok(job) = queue.recv() {
                    // A panicking closure must not take the store down: its
                    // caller sees `Closed`, everyone else carries on.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job(&mut conn)));
                    if !conn.is_autocommit() {
                        // A closure left a transaction open: undo it.
                        let _ = conn.execute_batch("ROLLBACK");
                    }
                }
            })
            .map_err(|_| StoreError::Closed)?;
        ready_rx.recv().map_err(|_| StoreError::Closed)??;
        Ok(Store {
            jobs,
            memories_changed,
            import_turn: Arc::default(),
        })
    }

    /// Woken after each commit that wrote to the memories.
    pub fn memories_changed(&self) -> Arc<Notify> {
        Arc::clone(&self.memories_changed)
    }

    /// The turn to import, held for a whole import: one import at a time,
    /// so two never interleave their chunks, and whoever takes the turn
    /// next knows the one before has settled (kept or taken back).
    pub async fn import_turn(&self) -> tokio::sync::OwnedMutexGuard<()> {
        Arc::clone(&self.import_turn).lock_owned().await
    }

    /// Waits until no import is running on this store.
    pub async fn imports_settled(&self) {
        drop(self.import_turn().await);
    }

    /// Runs `f` on the store's thread with the connection and returns its
    /// answer. The escape hatch for anything this module does not offer.
    pub async fn call<R, F>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = tx.send(f(conn));
        });
        self.jobs.send(job).map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// Queues `f` on the store's thread without waiting for it. Jobs run
    /// in the order they were sent, so anything asked of the store later
    /// sees its effect; a failure is logged.
    pub fn enqueue<F>(&self, f: F)
    where
        F: FnOnce(&mut Connection) -> Result<(), StoreError> + Send + 'static,
    {
        let job: Job = Box::new(move |conn| {
            if let Err(error) = f(conn) {
                tracing::warn!(%error, "a queued store write failed");
            }
        });
        let _ = self.jobs.send(job);
    }
}

/// WAL pages after which the checkpointer is woken (SQLite's own default
/// for its automatic checkpoint).
/// Wakes `wake` after each commit that wrote a row of `memories`: the
/// update hook marks the transaction, the commit hook wakes, a rollback
/// forgets the mark.
fn notify_memory_commits(conn: &mut Connection, wake: Arc<Notify>) -> rusqlite::Result<()> {
    let touched = Arc::new(AtomicBool::new(false));
    let mark = Arc::clone(&touched);
    conn.update_hook(Some(
        move |_: rusqlite::hooks::Action, _: &str, table: &str, _: i64| {
            if table == "memories" {
                mark.store(true, Ordering::Relaxed);
            }
        },
    ))?;
    let committed = Arc::clone(&touched);
    conn.commit_hook(Some(move || {
        if committed.swap(false, Ordering::Relaxed) {
            wake.notify_one();
        }
        false
    }))?;
    conn.rollback_hook(Some(move || touched.store(false, Ordering::Relaxed)))?;
    Ok(())
}

const CHECKPOINT_PAGES: std::ffi::c_int = 1000;

/// Moves the WAL's checkpoints off the store's thread. SQLite's automatic
/// checkpoint runs inside the commit that crosses its threshold, fsyncing
/// the database while every write queued behind it waits (up to 12 ms on
/// this machine, in the middle of a reply's step). Here the commit only
/// wakes a thread of its own, which checkpoints passively from a second
/// connection while writes go on. Waking it is event-driven: the WAL hook
/// runs on each commit.
fn checkpointer(conn: &mut Connection, file: std::path::PathBuf) -> Result<(), StoreError> {
    let reader = Connection::open(&file)?;
    reader.busy_timeout(std::time::Duration::from_secs(5))?;
    let (wake, woken) = mpsc::sync_channel::<()>(1);
    std::thread::Builder::new()
        .name("imprint-checkpoint".into())
        .spawn(move || {
            // Ends when the store's connection (and its hook) is dropped.
            while woken.recv().is_ok() {
                let done = reader.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
                    row.get::<_, i64>(0)
                });
                if let Err(error) = done {
                    tracing::warn!(%error, "a WAL checkpoint failed");
                }
            }
        })
        .map_err(|_| StoreError::Closed)?;
    // Replaces SQLite's automatic checkpoint on this connection.
    conn.wal_hook(Some(
        move |_: &mut rusqlite::hooks::Wal, pages: std::ffi::c_int| {
            if pages >= CHECKPOINT_PAGES {
                // Already woken and not done yet: one wake is enough.
                let _ = wake.try_send(());
            }
            Ok(())
        },
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests;
