//! JSON as a model writes it: raw control characters (newlines…) inside
//! strings tolerated, and where a character stands (in a string or not).
//! Read by the block readers (`lenient`), the parameters' types (`params`)
//! and the parser.

use serde_json::Value;

/// Parses JSON, tolerating raw control characters (newlines…) in strings.
pub(super) fn parse_lenient(s: &str) -> Option<Value> {
    serde_json::from_str(s)
        .ok()
        .or_else(|| serde_json::from_str(&escape_controls(s)).ok())
}

/// Where a character of JSON text stands: in a string or not, and after
/// a backslash there.
#[derive(Default)]
pub(super) struct JsonStrings {
    pub(super) in_str: bool,
    pub(super) esc: bool,
}

impl JsonStrings {
    /// Reads `c`; true when it is a raw character of a string's content
    /// (not a quote, a backslash or an escaped character).
    pub(super) fn read(&mut self, c: char) -> bool {
        if !self.in_str {
            self.in_str = c == '"';
            return false;
        }
        if self.esc {
            self.esc = false;
        } else if c == '\\' {
            self.esc = true;
        } else if c == '"' {
            self.in_str = false;
        } else {
            return true;
        }
        false
    }
}

/// Escapes raw control characters inside JSON strings.
pub(super) fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut strings = JsonStrings::default();
    for c in s.chars() {
        if strings.read(c) && (c as u32) < 0x20 {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                _ => out.push_str(&format!("\\u{:04x}", c as u32)),
            }
        } else {
            out.push(c);
        }
    }
    out
}
