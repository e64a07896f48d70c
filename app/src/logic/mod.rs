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
pub mod numbers;
pub mod records;
pub mod reply;
pub mod route;
pub mod wire;
