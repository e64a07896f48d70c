//! The TCP layer: the accept loop and the bounds on the sockets it
//! accepts, which a slow or hostile client cannot get past: a cap on open
//! sockets (below the process's file limit, so accepting never fails for
//! want of one), a deadline for a request's headers (which also ends an
//! idle keep-alive socket), and a deadline between a request body's
//! chunks. HTTP/1.1 only: browsers reach a plain `http://` server no other
//! way, and a socket that never says which version it speaks would
//! otherwise wait unbounded. (Not the model's connection: that is
//! [`crate::connections`].)
//!
//! With a token, sockets are fair to the person who has it: a socket
//! counts as *unproven* until one of its requests carries the token (the
//! guard says so through [`Proof`]), and unproven sockets may hold at most
//! [`unproven_cap`] of the places. Past that, the oldest unproven socket
//! is closed to make room, so clients without the token, however many
//! sockets they hold open, cannot keep a request with it waiting.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long a client may take to send a request's headers, from when the
/// socket opens or its previous response ends.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request body may pause between chunks.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The most sockets open at once, when the file limit allows.
pub const MAX_OPEN: usize = 1024;
/// How long to wait after accepting fails for want of resources.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// Files kept free for the database, the model's connections and logs.
const RESERVED_FILES: u64 = 128;

/// The share of the places kept for sockets that carried the token:
/// one in [`RESERVED_SHARE`], at least one.
pub const RESERVED_SHARE: usize = 4;

/// The most places sockets without the token may hold, of `cap`.
pub fn unproven_cap(cap: usize) -> usize {
    cap.saturating_sub((cap / RESERVED_SHARE).max(1)).max(1)
}

/// One socket's standing, handed to its requests as an extension:
/// the guard calls [`Proof::prove`] when a request carries the token.
#[derive(Clone, Debug)]
pub struct Proof(Arc<Standing>);

#[derive(Debug, Default)]
struct Standing {
    proven: AtomicBool,
    ended: AtomicBool,
    evict: CancellationToken,
}

impl Proof {
    /// This socket carried the token: it is never closed to make room.
    pub fn prove(&self) {
        self.0.proven.store(true, Ordering::Relaxed);
    }

    fn unproven(&self) -> bool {
        !self.0.proven.load(Ordering::Relaxed) && !self.0.ended.load(Ordering::Relaxed)
    }
}

/// The unproven sockets, oldest first, and how many may stay.
struct Unproven {
    cap: usize,
    open: Mutex<VecDeque<Proof>>,
}

impl Unproven {
    /// Counts a new socket, closing the oldest unproven ones past the
    /// cap.
    fn admit(&self, proof: &Proof) {
        let Ok(mut open) = self.open.lock() else {
            return;
        };
        open.retain(Proof::unproven);
        open.push_back(proof.clone());
        while open.len() > self.cap {
            if let Some(oldest) = open.pop_front() {
                oldest.0.evict.cancel();
            }
        }
    }
}

/// The cap on open sockets under a file limit of `files`.
pub fn socket_cap(files: u64) -> usize {
    let usable = files.saturating_sub(RESERVED_FILES).max(16);
    usize::try_from(usable).map_or(MAX_OPEN, |usable| usable.min(MAX_OPEN))
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
/// sockets finish their requests (the caller bounds how long). With
/// `fair` (a token is required), sockets that have not carried the token
/// hold at most [`unproven_cap`] places.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    cap: usize,
    fair: bool,
    until: CancellationToken,
) {
    let places = Arc::new(Semaphore::new(cap));
    let unproven = Unproven {
        cap: unproven_cap(cap),
        open: Mutex::new(VecDeque::new()),
    };
    let open = TaskTracker::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    loop {
        // A place first, then the socket: at the cap, new connections
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
                    tracing::warn!(%error, "cannot accept a socket");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        // Events are small and latency matters: no Nagle delay.
        let _ = stream.set_nodelay(true);
        let proof = Proof(Arc::new(Standing {
            proven: AtomicBool::new(!fair),
            ..Standing::default()
        }));
        if fair {
            unproven.admit(&proof);
        }
        let app = app.clone();
        let marked = proof.clone();
        let service = TowerToHyperService::new(tower::service_fn(
            move |mut request: axum::http::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(marked.clone());
                tower::ServiceExt::oneshot(app.clone(), request)
            },
        ));
        let connection = http
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let until = until.clone();
        open.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            // At shutdown the request being served finishes, and the
            // socket is not kept alive for another. A socket closed to
            // make room is dropped at once.
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                _ = proof.0.evict.cancelled() => Ok(()),
                _ = until.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = ended {
                tracing::debug!(%error, "socket ended with an error");
            }
            proof.0.ended.store(true, Ordering::Relaxed);
            drop(place);
        });
    }
    drop(listener);
    open.close();
    open.wait().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::Request;
    use axum::http::StatusCode;
    use axum::middleware::{self, Next};
    use axum::response::IntoResponse;
    use axum::routing::get;
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    /// A router whose guard proves a socket as the real one does.
    fn guarded() -> Router {
        Router::new()
            .route("/", get(|| async { "ok" }))
            .layer(middleware::from_fn(
                |request: Request, next: Next| async move {
                    let good = request
                        .headers()
                        .get("authorization")
                        .is_some_and(|v| v == "Bearer good");
                    if !good {
                        return StatusCode::UNAUTHORIZED.into_response();
                    }
                    if let Some(proof) = request.extensions().get::<Proof>() {
                        proof.prove();
                    }
                    next.run(request).await
                },
            ))
    }

    async fn get_with(addr: std::net::SocketAddr, stream: &mut TcpStream, auth: &str) -> Vec<u8> {
        let request = format!(
            "GET / HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {auth}\r\nContent-Length: 0\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = vec![0u8; 1024];
        let read = stream.read(&mut response).await.unwrap();
        response.truncate(read);
        response
    }

    #[tokio::test]
    async fn clients_without_the_token_cannot_keep_one_with_it_waiting() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let until = CancellationToken::new();
        tokio::spawn(serve(listener, guarded(), 16, true, until.clone()));
        // A socket that carried the token keeps its place throughout.
        let mut kept = TcpStream::connect(addr).await.unwrap();
        assert!(get_with(addr, &mut kept, "Bearer good")
            .await
            .starts_with(b"HTTP/1.1 200"));
        // 200 sockets without the token that send nothing, held open.
        let mut idle = Vec::new();
        for _ in 0..200 {
            idle.push(TcpStream::connect(addr).await.unwrap());
        }
        let started = Instant::now();
        let mut fresh = TcpStream::connect(addr).await.unwrap();
        let answered = tokio::time::timeout(
            Duration::from_secs(5),
            get_with(addr, &mut fresh, "Bearer good"),
        )
        .await
        .expect("a request with the token is answered while others hold sockets");
        let took = started.elapsed();
        assert!(answered.starts_with(b"HTTP/1.1 200"), "{answered:?}");
        assert!(took < Duration::from_secs(1), "{took:?}");
        eprintln!("a request with the token beside 200 idle sockets: {took:?}");
        assert!(get_with(addr, &mut kept, "Bearer good")
            .await
            .starts_with(b"HTTP/1.1 200"));
        until.cancel();
    }

    #[test]
    fn a_quarter_of_the_places_is_kept_for_the_token() {
        assert_eq!(unproven_cap(1024), 768);
        assert_eq!(unproven_cap(16), 12);
        assert_eq!(unproven_cap(2), 1);
    }
}
