//! Imprint's language logic, shared by the server and the Wasm client:
//! plain Rust with no I/O, no clock and no dependencies, so both sides
//! compile it and its unit tests run on the host.
//!
//! - [`words`]: the one tokenizer of the English rules (the server's and
//!   Echo's).
//! - [`voice`]: Echo's speech text, answer matching and its noise and
//!   self-hearing filters.
//! - [`days`]: calendar days in words ("Saturday 8 June", "Tue 1 Dec
//!   09:00"), for a reason's day and the page's times.
//! - [`numbers`]: numbers said in words ("seven", "the third").
//! - [`pronouns`]: the personal pronouns, whom each points at.

pub mod days;
pub mod numbers;
pub mod pronouns;
pub mod voice;
pub mod words;
