//! Lenient readers of a block's content: JSON calls (one, a list, several
//! in a row, doubled braces, raw newlines in strings, cut short) and
//! qwen-xml `<function=…><parameter=…>` calls.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::json_text::{escape_controls, parse_lenient, JsonStrings};
use super::params::type_parameter;
use super::{ParsedCall, FENCE, FUNC_CLOSE, FUNC_OPEN, PARAM_CLOSE, PARAM_OPEN};

/// Parses the content of a `<tool_call>` (or bare `<function=`) block.
pub(super) fn parse_block(
    schemas: &HashMap<String, Value>,
    inner: &str,
) -> Option<Vec<ParsedCall>> {
    let text = strip_inner_fence(inner.trim());
    if text.starts_with(FUNC_OPEN) {
        return parse_xml_calls(schemas, text);
    }
    if text.starts_with('{') || text.starts_with('[') {
        return parse_json_calls(text);
    }
    if text.contains(FUNC_OPEN) {
        return parse_xml_calls(schemas, text);
    }
    None
}

fn parse_xml_calls(schemas: &HashMap<String, Value>, text: &str) -> Option<Vec<ParsedCall>> {
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(FUNC_OPEN) {
        let after = &rest[i + FUNC_OPEN.len()..];
        let gt = after.find('>')?;
        let name = tag_name(&after[..gt])?;
        let (body, next) = split_element(&after[gt + 1..], FUNC_CLOSE, FUNC_OPEN);
        let arguments = parse_xml_params(schemas, name, body)?;
        calls.push(ParsedCall {
            name: name.to_string(),
            arguments,
        });
        rest = next;
    }
    (!calls.is_empty()).then_some(calls)
}

fn parse_xml_params(schemas: &HashMap<String, Value>, function: &str, body: &str) -> Option<Value> {
    let properties = schemas
        .get(function)
        .and_then(|schema| schema.get("properties"));
    let mut map = Map::new();
    let mut rest = body;
    let mut found = false;
    while let Some(i) = rest.find(PARAM_OPEN) {
        found = true;
        let after = &rest[i + PARAM_OPEN.len()..];
        let gt = after.find('>')?;
        let name = tag_name(&after[..gt])?;
        let (raw, next) = split_element(&after[gt + 1..], PARAM_CLOSE, PARAM_OPEN);
        let schema = properties.and_then(|p| p.get(name));
        map.insert(name.to_string(), type_parameter(schema, raw));
        rest = next;
    }
    if !found {
        // Some models put a JSON object in the function body.
        let body = body.trim();
        if body.starts_with('{') {
            return match parse_lenient(body)? {
                Value::Object(object) => Some(Value::Object(object)),
                _ => None,
            };
        }
    }
    Some(Value::Object(map))
}

/// Strips a ```` ``` ```` fence around the whole content of a block.
fn strip_inner_fence(s: &str) -> &str {
    let Some(rest) = s.strip_prefix(FENCE) else {
        return s;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    let rest = rest.strip_suffix(FENCE).unwrap_or(rest);
    rest.trim()
}

/// The name written in `<function=NAME>` / `<parameter=NAME>`.
fn tag_name(raw: &str) -> Option<&str> {
    let name = raw.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    (!name.is_empty() && !name.contains('<')).then_some(name)
}

/// Splits `s` at the end of an element: returns (content, rest after the
/// closing tag). A missing closing tag ends the element at the next opening
/// tag of the same kind, or at the end.
fn split_element<'a>(s: &'a str, close: &str, open: &str) -> (&'a str, &'a str) {
    match (s.find(close), s.find(open)) {
        (Some(c), Some(o)) if o < c => (&s[..o], &s[o..]),
        (Some(c), _) => (&s[..c], &s[c + close.len()..]),
        (None, Some(o)) => (&s[..o], &s[o..]),
        (None, None) => (s, ""),
    }
}

/// Closes unterminated strings, objects and arrays (stream cut short).
fn close_unbalanced(s: &str) -> String {
    let mut stack = Vec::new();
    let mut strings = JsonStrings::default();
    for c in s.chars() {
        let in_string = strings.in_str;
        strings.read(c);
        if in_string || c == '"' {
            continue;
        }
        match c {
            '{' | '[' => stack.push(c),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    let mut out = s.trim_end().to_string();
    if strings.in_str {
        if strings.esc {
            out.pop();
        }
        out.push('"');
    }
    while out.ends_with(',') {
        out.pop();
    }
    while let Some(c) = stack.pop() {
        out.push(if c == '{' { '}' } else { ']' });
    }
    out
}

/// Parses the JSON content of a block: one call, a list of calls, several
/// calls one after another, doubled braces, or a call cut short.
fn parse_json_calls(text: &str) -> Option<Vec<ParsedCall>> {
    let mut candidates = vec![text.to_string()];
    if let Some(rest) = text.strip_prefix('{') {
        if rest.trim_start().starts_with('{') {
            candidates.push(rest.to_string());
            if let Some(inner) = rest.trim_end().strip_suffix('}') {
                candidates.push(inner.to_string());
            }
        }
    }
    for candidate in &candidates {
        let escaped = escape_controls(candidate);
        for source in [candidate.as_str(), escaped.as_str()] {
            if let Some(calls) = json_values_calls(source) {
                return Some(calls);
            }
        }
    }
    let repaired = close_unbalanced(&escape_controls(text));
    json_values_calls(&repaired)
}

/// All JSON values in `s` (one after another), each a call or list of calls.
fn json_values_calls(s: &str) -> Option<Vec<ParsedCall>> {
    let mut calls = Vec::new();
    for value in serde_json::Deserializer::from_str(s).into_iter::<Value>() {
        match value.ok()? {
            Value::Array(items) => {
                for item in &items {
                    calls.push(call_from_value(item)?);
                }
            }
            other => calls.push(call_from_value(&other)?),
        }
    }
    (!calls.is_empty()).then_some(calls)
}

/// `{"name": …, "arguments"|"parameters": {…} | "<json>"}` as a call.
pub(super) fn call_from_value(value: &Value) -> Option<ParsedCall> {
    let object = value.as_object()?;
    if !object.contains_key("name") {
        // OpenAI style {"type": "function", "function": {…}}.
        return object
            .get("function")
            .filter(|f| f.is_object())
            .and_then(call_from_value);
    }
    let name = object.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(s)) => match parse_lenient(s)? {
            Value::Object(map) => Value::Object(map),
            _ => return None,
        },
        Some(_) => return None,
    };
    Some(ParsedCall {
        name: name.to_string(),
        arguments,
    })
}
