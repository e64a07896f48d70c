//! The dashboard's logic as plain Rust with ordinary unit tests: the reply
//! reducer, question-card state, Markdown rendering, tool activity text.

pub mod activity;
pub mod echo;
pub mod markdown;
pub mod reply;
pub mod route;
pub mod voice;
pub mod wire;
