//! The browser's I/O capabilities, one per file, each returning a small
//! handle or struct of signals, stopped when dropped or aborted (by its
//! owner in `on_cleanup`, or when the user turns it off): speech in and
//! out, the microphone's audio, Echo's WebSocket, a reply's event stream
//! and the dashboard's. Any of them may be missing or refused (as in
//! headless browsers): callers say so and fall back to typing.

pub mod dashboard_events;
pub mod microphone;
pub mod reply_stream;
pub mod speech;
pub mod voice_socket;
