//! Replies: the registry of the reply being written in each session, each
//! reply's event log and stop scopes, and `stream_reply`, the tool loop.
//!
//! Here: the parts and what they export; the registry is `registry`.
//!
//! A reply belongs to the server, not to the connection that started it:
//! it runs on its own task, and watchers come and go. That task is spawned
//! with an [`EndGuard`], so even a panic ends the reply (`error`, then
//! `done`) and frees its session.

mod asking;
mod checkpoint;
mod ending;
mod env;
mod grounded;
mod history;
mod log;
mod on_a_day;
mod own_answer;
mod planned;
mod policy;
mod registry;
mod resume;
mod run;
mod slots;
mod stream;
mod talk;
mod turn;

pub use checkpoint::Checkpoint;
pub use env::{ReplyEnv, ReplyJob, ToolSets};
pub use history::history_to_messages;
pub use log::{Cursor, EventLog, LoggedEvent};
pub use registry::{spawn_guarded, Busy, EndGuard, Replies, Reply};
pub use slots::WritingSlots;
pub use stream::{resume_reply, stream_reply};
