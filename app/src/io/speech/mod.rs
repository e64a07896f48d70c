//! The browser's speech capabilities, one per file. Either may be missing
//! (or refuse, as in headless browsers): callers fall back to typing.

pub mod recognition;
pub mod synthesis;
