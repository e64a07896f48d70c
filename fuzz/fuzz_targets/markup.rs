//! The tool-markup parser (`imprint::models::markup`): any text, in any
//! chunks, parses without a panic, to the same events (adjacent texts
//! merged) as the text fed whole; no text event is empty, every call's
//! arguments are an object.
//!
//! Input: one byte choosing the format (bit 0) and the chunk length
//! (1 + the other bits), then the text (invalid UTF-8 replaced).

#![no_main]

use imprint::models::markup::{MarkupEvent, MarkupFormat, MarkupParser};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {
            "name": "search",
            "parameters": {"type": "object", "properties": {
                "query": {"type": "string"},
                "options": {"type": "array", "items": {"type": "string"}},
                "limit": {"type": "integer"},
                "weight": {"type": "number"},
                "exact": {"type": "boolean"},
                "filters": {"type": "object"}
            }}
        }}),
        json!({"type": "function", "function": {
            "name": "read_file",
            "parameters": {"type": "object", "properties": {
                "lines": {"type": "array", "items": {"type": "integer"}}
            }}
        }}),
        json!({"type": "function", "function": {"name": "get_time"}}),
    ]
}

fn run(format: MarkupFormat, tools: &[Value], chunks: &[&str]) -> Vec<MarkupEvent> {
    let mut parser = MarkupParser::new(format, tools);
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.push(chunk));
    }
    events.extend(parser.finish());
    let mut merged: Vec<MarkupEvent> = Vec::new();
    for event in events {
        match &event {
            MarkupEvent::Text(t) => assert!(!t.is_empty(), "an empty text event"),
            MarkupEvent::Call(call) => assert!(call.arguments.is_object(), "{call:?}"),
            MarkupEvent::Malformed(_) => {}
        }
        match (merged.last_mut(), event) {
            (Some(MarkupEvent::Text(last)), MarkupEvent::Text(t)) => last.push_str(&t),
            (_, event) => merged.push(event),
        }
    }
    merged
}

/// `text` in chunks of `len` characters.
fn chunks(text: &str, len: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.char_indices().nth(len).map_or(rest.len(), |(i, _)| i);
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&select, text)) = data.split_first() else {
        return;
    };
    let format = if select & 1 == 0 {
        MarkupFormat::Hermes
    } else {
        MarkupFormat::QwenXml
    };
    let len = 1 + usize::from(select >> 1);
    let text = String::from_utf8_lossy(text);
    let tools = tools();
    let whole = run(format, &tools, &[&text]);
    let split = run(format, &tools, &chunks(&text, len));
    assert_eq!(split, whole, "{text:?} in chunks of {len}");
});
