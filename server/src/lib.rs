//! Imprint's server: the engine behind the dashboard.
//!
//! - [`clock`]: the "now" a reply reads (the system's, or a test's)
//! - [`config`]: the one configuration struct
//! - [`connections`]: the model in use, where its settings came from, and the Model page's choice of another
//! - [`store`]: SQLite on its own thread (sessions, messages, memories, reminders)
//! - [`models`]: the OpenAI-compatible streaming client and the tool-markup parsers
//! - [`tools`]: tool schemas, the offered set, and their implementations
//! - [`research`]: a reply's research budget
//! - [`iso8601`]: the one reader of ISO 8601 dates and date-times
//! - [`plan`]: a reply's plan with planned turns: the kind of request, why, and the answer guard
//! - [`grounding`]: details a tool call must take from the user's words (a reminder's time, "the project"), else Imprint asks
//! - [`ask`]: asking the user: normalization, answer validation, the waiter
//! - [`replies`]: the registry of running replies, event logs, `stream_reply`
//! - [`reminders`]: the reminder timer
//! - [`engine`]: the shared context; implements the dashboard's calls
//! - [`memory_lines`]: a found memory as the one line the model reads, and read back
//! - [`markdown`]: assistant text to safe HTML, for history and finished replies
//! - [`meaning`]: memories found by meaning (a sentence-embedding model on its own thread, hybrid with the words' search) and requests routed by labelled examples
//! - [`speech`]: Echo's own ears: a local recogniser on its own thread, behind a bounded queue
//! - [`sse`]: the one reader of server-sent events (the model's stream, the tests')
//! - [`origin`]: web origins and host authorities, read one way for the guard and the configuration
//! - [`http`]: routes, streams, the guard
//! - [`import`]: `imprint import FILE.jsonl`

pub mod ask;
pub mod clock;
pub mod common_words;
pub mod config;
pub mod connections;
pub mod engine;
pub mod grounding;
pub mod http;
pub mod ids;
pub mod import;
pub mod iso8601;
pub mod markdown;
pub mod meaning;
pub mod memory_lines;
pub mod models;
pub mod origin;
pub mod quoting;
pub mod reminders;
pub mod replies;
pub mod research;
pub mod serve;
pub mod speech;
pub mod sse;
pub mod store;
pub mod tools;
pub mod voice;
