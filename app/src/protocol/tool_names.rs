//! The names of the tools a reply's model may call: the server offers and
//! runs them, the client describes them (`logic::activity`), the tests call
//! them. One spelling for all.

/// Full-text search over the memories.
pub const SEARCH: &str = "search";
/// The projects memories name.
pub const LIST_PROJECTS: &str = "list_projects";
/// Keeps a memory.
pub const STORE: &str = "store";
/// Sets a reminder.
pub const REMIND: &str = "remind";
/// Asks the user a question and waits for the answer.
pub const ASK_USER: &str = "ask_user";
