//! The wire types: defined once, compiled by the Wasm client and the server.
//!
//! The JSON shape of every type here is the contract of SPEC §4 (the `type`
//! tags and field names); the unit tests pin it.

mod connections;
mod events;
mod reasons;
mod records;
mod sessions;
pub mod tool_names;
mod voice;

pub use connections::*;
pub use events::*;
pub use reasons::*;
pub use records::*;
pub use sessions::*;
pub use voice::*;

/// The body of every error response: `{"error": "<message>"}`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ErrorBody {
    pub error: String,
}

/// `{ok: true}`: the answer of answer and stop.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ok {
    pub ok: bool,
}

impl Default for Ok {
    fn default() -> Self {
        Self { ok: true }
    }
}
