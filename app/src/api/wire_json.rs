//! The JSON the dashboard's server functions speak: the wire of
//! `server_fn`'s own `Json`, read differently in the browser.
//!
//! Why: `serde_json::from_slice::<T>` compiles serde_json's streaming
//! parser into every `T`'s derived reader, once per type read (about 120 KB
//! of the wasm for the dashboard's 30-odd types). The browser instead
//! parses each body once into a [`Value`] (one copy of the parser) and
//! reads `T` from that, whose per-type code is much smaller. The server
//! reads as `server_fn`'s `Json` does; both sides write the same bytes.

use serde::de::DeserializeOwned;
use serde::Serialize;
use server_fn::codec::Post;
use server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};

/// `server_fn::codec::JsonEncoding`'s wire, read through a [`Value`] in
/// the browser.
///
/// [`Value`]: serde_json::Value
pub struct WireJsonEncoding;

/// Arguments and results as JSON in the body of a `POST` request, like
/// `server_fn::codec::Json`.
pub type Json = Post<WireJsonEncoding>;

impl ContentType for WireJsonEncoding {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for WireJsonEncoding {
    const FORMAT_TYPE: Format = Format::Text;
}

impl<T: Serialize> Encodes<T> for WireJsonEncoding {
    type Error = serde_json::Error;

    fn encode(output: &T) -> Result<Bytes, Self::Error> {
        serde_json::to_vec(output).map(Bytes::from)
    }
}

impl<T: DeserializeOwned> Decodes<T> for WireJsonEncoding {
    type Error = serde_json::Error;

    fn decode(bytes: Bytes) -> Result<T, Self::Error> {
        if cfg!(feature = "ssr") {
            serde_json::from_slice(&bytes)
        } else {
            serde_json::from_slice::<serde_json::Value>(&bytes).and_then(T::deserialize)
        }
    }
}
