//! Incremental parsers for tool calls written as text markup by local models
//! (hermes tags, bare JSON objects, qwen-xml).
//!
//! The reply text arrives in arbitrary chunks. [`MarkupParser`] separates the
//! user-visible text from the tool calls:
//!
//! * text is emitted as soon as it cannot be the start of markup; only a
//!   suffix that could still turn into markup is held back;
//! * markup (`<tool_call>` blocks, `<function=…>` blocks, bare JSON calls and
//!   the code fences wrapping them) is never emitted as text;
//! * whitespace between a call and the next call (or the end of the stream)
//!   is dropped, whitespace followed by real text is kept.
//!
//! Recognised markup:
//!
//! * both formats: `<tool_call> … </tool_call>`, whose content may be a JSON
//!   call (`{"name": …, "arguments": …}`, also several of them) or qwen-xml
//!   (`<function=NAME><parameter=ARG>value</parameter></function>`); a stray
//!   `</tool_call>` is dropped, and so are `<tool_response>` tags a model
//!   echoes from its prompt;
//! * [`MarkupFormat::Hermes`]: bare JSON calls `{"name": …, "arguments": …}`
//!   whose name is a known tool, optionally wrapped in a ```` ```json ````
//!   (or plain ```` ``` ````, or any language) fence, optionally with doubled
//!   braces `{{ … }}`. Inside a code block that is shown as text (a fence
//!   not directly followed by a call), bare JSON is left alone. A bare object
//!   counts only with the top-level keys `name`, `arguments`/`parameters`;
//!   anything else (unknown name, extra keys, invalid JSON) is text;
//! * [`MarkupFormat::QwenXml`]: a `<function=…>` block without the
//!   surrounding `<tool_call>`.
//!
//! The parts: `parser` is the incremental parser (text, tags, fences);
//! `scan` the byte-level recogniser of a bare JSON call; `lenient` reads a
//! block's content (JSON or qwen-xml, cut short or slightly wrong); `params`
//! types a qwen-xml parameter by its schema.

mod json_text;
mod lenient;
mod params;
mod parser;
mod scan;

use serde_json::Value;

pub use params::type_parameter;
pub use parser::MarkupParser;

const TOOL_OPEN: &str = "<tool_call>";
const TOOL_CLOSE: &str = "</tool_call>";
const FUNC_OPEN: &str = "<function=";
const FUNC_CLOSE: &str = "</function>";
const PARAM_OPEN: &str = "<parameter=";
const PARAM_CLOSE: &str = "</parameter>";
const FENCE: &str = "```";
const RESPONSE_OPEN: &str = "<tool_response>";
const RESPONSE_CLOSE: &str = "</tool_response>";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkupFormat {
    Hermes,
    QwenXml,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParsedCall {
    pub name: String,
    /// Always a JSON object.
    pub arguments: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MarkupEvent {
    Text(String),
    Call(ParsedCall),
    Malformed(String),
}

#[cfg(test)]
mod tests;
