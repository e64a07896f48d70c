//! Accepting connections with bounds a slow or hostile client cannot get
//! past: a cap on open connections (below the process's file limit, so
//! accepting never fails for want of one), a deadline for a request's
//! headers (which also ends an idle keep-alive connection), and a deadline
//! between a request body's chunks. HTTP/1.1 only: browsers reach a plain
//! `http://` server no other way, and a connection that never says which
//! version it speaks would otherwise wait unbounded.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long a client may take to send a request's headers, from when the
/// connection opens or its previous response ends.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request body may pause between chunks.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections open at once, when the file limit allows.
pub const MAX_CONNECTIONS: usize = 1024;
/// How long to wait after accepting fails for want of resources.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// Files kept free for the database, the model's connections and logs.
const RESERVED_FILES: u64 = 128;

/// The cap on open connections under a file limit of `files`.
pub fn connection_cap(files: u64) -> usize {
    let usable = files.saturating_sub(RESERVED_FILES).max(16);
    usize::try_from(usable).map_or(MAX_CONNECTIONS, |usable| usable.min(MAX_CONNECTIONS))
}

/// Raises the soft limit on open files to the hard one where the OS
/// allows, and returns the limit in force.
pub fn raise_file_limit() -> u64 {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write `limit`.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return 1024;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    rlim_max: limit.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit = raised;
                }
            }
        }
        limit.rlim_cur
    }
    #[cfg(not(unix))]
    {
        1024
    }
}

/// Serves `app` on `listener` until `until` is cancelled, then lets open
/// connections finish their requests (the caller bounds how long).
pub async fn serve(listener: TcpListener, app: Router, cap: usize, until: CancellationToken) {
    let places = Arc::new(Semaphore::new(cap));
    let open = TaskTracker::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    loop {
        // A place first, then the connection: at the cap, new connections
        // wait in the kernel's queue instead of costing a file each.
        let place = tokio::select! {
            _ = until.cancelled() => break,
            place = Arc::clone(&places).acquire_owned() => match place {
                Ok(place) => place,
                Err(_) => break,
            },
        };
        let (stream, _) = tokio::select! {
            _ = until.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // A connection reset before it was taken is the
                    // client's business. Out of files (the cap keeps below
                    // the limit, but the model's connections count too):
                    // back off briefly rather than spin on the error.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        // Events are small and latency matters: no Nagle delay.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = http
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let until = until.clone();
        open.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            // At shutdown the request being served finishes, and the
            // connection is not kept alive for another.
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                _ = until.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = ended {
                tracing::debug!(%error, "connection ended with an error");
            }
            drop(place);
        });
    }
    drop(listener);
    open.close();
    open.wait().await;
}
