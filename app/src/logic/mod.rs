//! The dashboard's logic as plain Rust with ordinary unit tests: the reply
//! reducer, question-card state, tool activity text, the inbox of waiting
//! questions. (Markdown is rendered by the server: see `imprint::markdown`.)

pub mod activity;
pub mod announce;
pub mod connections;
pub mod echo;
pub mod history;
pub mod inbox;
pub mod keys;
pub mod records;
pub mod reply;
pub mod route;
pub mod wire;

/// The tokenizer, now `imprint_text::words`: named here still only for the
/// server's `grounding::plan` and `replies::planned`, which are being
/// rewritten elsewhere and switch to `imprint_text::words` when that lands.
pub use imprint_text::words;
