//! The browser's I/O capabilities, one per file, each returning a small
//! handle that stops it when dropped (its owner drops it in `on_cleanup`
//! or when the user turns it off): speech in and out, the microphone's
//! audio, Echo's WebSocket. Any of them may be missing or refused (as in
//! headless browsers): callers say so and fall back to typing.

pub mod microphone;
pub mod speech;
pub mod voice_socket;
