//! The chat model: messages, the streamed turn's events, and the
//! OpenAI-compatible client every provider is reached through.

pub mod check;
mod client;
pub mod hiding;
pub mod markup;
pub mod note;
pub mod probe;
mod prompt;
pub mod shown_text;
mod step;

pub use client::ModelClient;
pub use prompt::render_tools_for_markup;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message of a model request. Serializable: a waiting reply stores
/// the messages it sent so far, to resume after a restart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatMessage {
    System(String),
    User(String),
    Assistant {
        content: String,
        tool_calls: Vec<ToolCallRequest>,
    },
    Tool {
        call_id: String,
        name: String,
        content: String,
    },
}

/// A tool call the model asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    pub id: String,
    pub name: String,
    /// The arguments object; a non-object here means the model wrote
    /// arguments that are not a JSON object (reported back as a tool error).
    pub arguments: Value,
}

/// What a streamed model turn yields, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelEvent {
    /// Text for the user.
    Text(String),
    /// A complete tool call.
    ToolCall(ToolCallRequest),
    /// Tool markup the parser could not read (never shown to the user).
    Malformed(String),
    /// The model stopped at its token limit (`finish_reason: "length"`):
    /// the text is its answer, but not all it meant to write. Last.
    LengthLimit,
    /// The model wrote more hidden markup than any call needs, and Imprint
    /// stopped reading (see [`client::hidden_run_limit`]). Last.
    Overlong,
}

/// Why a model turn failed. The message is shown to the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("the model at {0} cannot be reached ({1})")]
    Unreachable(String, String),
    #[error("the model answered {status}: {message}")]
    Status { status: u16, message: String },
    #[error("the model stopped sending (no data for {0} s)")]
    Stalled(u64),
    #[error("the model sent a stream Imprint cannot read: {0}")]
    Garbage(String),
    /// The stream ended with neither a `finish_reason` nor `[DONE]`.
    #[error("the model's answer was cut off")]
    CutOff,
}

/// One constrained step (see [`ModelClient::constrained`]).
#[derive(Clone, Debug)]
pub struct StepRequest {
    pub messages: Vec<ChatMessage>,
    /// The JSON schema the reply must match.
    pub schema: Value,
    /// Most tokens the step may write (a pick or a sentence).
    pub max_tokens: u32,
}

/// One model turn: the conversation so far and the tools offered.
#[derive(Clone, Debug, Default)]
pub struct TurnRequest {
    pub messages: Vec<ChatMessage>,
    /// Tool schemas in OpenAI format; empty when no tools are offered.
    /// Shared: every reply of a kind offers the same set.
    pub tools: std::sync::Arc<Vec<Value>>,
    /// False for the reserved answer: tools are neither described nor
    /// called, but markup is still kept from the user's text.
    pub allow_calls: bool,
    /// Prefix of ids given to calls written as markup (unique per turn).
    pub call_id_prefix: String,
}
