//! The typing of a qwen-xml parameter: its text becomes the JSON value its
//! schema asks for (string, number, boolean, object, array), falling back
//! to the text when it does not parse.

use serde_json::Value;

use super::json_text::parse_lenient;

/// Types one qwen-xml parameter's text by its JSON schema (exposed for reuse and tests).
///
/// One leading and one trailing line break (or whitespace character) is
/// removed from `raw` first. `string` keeps the text as is; `integer`,
/// `number` and `boolean` fall back to the (trimmed) string when the text does
/// not parse; `object` is parsed as JSON; `array` takes a JSON list, else one
/// item per non-empty line (bullets `- `, `* `, `1. ` stripped) or per comma,
/// each item typed by the `items` schema when it has a type (strings
/// otherwise). Without a known type, JSON is tried, else the string.
pub fn type_parameter(schema: Option<&Value>, raw: &str) -> Value {
    let raw = trim_one(raw);
    let text = raw.trim();
    let string = || Value::String(raw.to_string());
    match schema.and_then(schema_type) {
        Some("string") => string(),
        Some("integer") => parse_integer(text).unwrap_or_else(|| Value::String(text.to_string())),
        Some("number") => parse_number(text).unwrap_or_else(|| Value::String(text.to_string())),
        Some("boolean") => {
            if text.eq_ignore_ascii_case("true") {
                Value::Bool(true)
            } else if text.eq_ignore_ascii_case("false") {
                Value::Bool(false)
            } else {
                Value::String(text.to_string())
            }
        }
        Some("object") => parse_lenient(text).unwrap_or_else(string),
        Some("array") => parse_array(schema.and_then(|s| s.get("items")), text),
        Some("null") if text.is_empty() || text == "null" => Value::Null,
        _ => parse_lenient(text).unwrap_or_else(string),
    }
}

/// The main type of a schema (`"type"`, first non-null of a type list, or
/// guessed from the other keywords).
fn schema_type(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => return Some(t),
        Some(Value::Array(types)) => {
            let mut types = types.iter().filter_map(Value::as_str);
            let first = types.clone().next();
            return types.find(|t| *t != "null").or(first);
        }
        _ => {}
    }
    if schema.get("properties").is_some() {
        return Some("object");
    }
    if schema.get("items").is_some() {
        return Some("array");
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        if !values.is_empty() && values.iter().all(Value::is_string) {
            return Some("string");
        }
    }
    ["anyOf", "oneOf"].iter().find_map(|key| {
        schema
            .get(*key)?
            .as_array()?
            .iter()
            .filter_map(schema_type)
            .find(|t| *t != "null")
    })
}

fn trim_one(s: &str) -> &str {
    let s = s
        .strip_prefix("\r\n")
        .or_else(|| s.strip_prefix(|c: char| c.is_whitespace()))
        .unwrap_or(s);
    s.strip_suffix("\r\n")
        .or_else(|| s.strip_suffix(|c: char| c.is_whitespace()))
        .unwrap_or(s)
}

fn parse_integer(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::from(u));
    }
    let f = text.parse::<f64>().ok()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::from(f as i64))
}

fn parse_number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::from(u));
    }
    let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
    // Rust also accepts "inf"/"nan" spellings; those are excluded above.
    serde_json::Number::from_f64(f).map(Value::Number)
}

fn parse_array(items_schema: Option<&Value>, text: &str) -> Value {
    if text.is_empty() {
        return Value::Array(Vec::new());
    }
    if text.starts_with('[') {
        if let Some(Value::Array(items)) = parse_lenient(text) {
            return Value::Array(items);
        }
    }
    if text.starts_with('"') {
        // "a", "b" without the brackets.
        if let Some(Value::Array(items)) = parse_lenient(&format!("[{text}]")) {
            return Value::Array(items);
        }
    }
    let body = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    let items: Vec<&str> = if body.contains('\n') {
        body.lines().map(|line| strip_bullet(line.trim())).collect()
    } else {
        body.split(',').collect()
    };
    let item_type = items_schema.filter(|s| schema_type(s).is_some());
    Value::Array(
        items
            .into_iter()
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| match item_type {
                Some(schema) => type_parameter(Some(schema), item),
                None => Value::String(item.to_string()),
            })
            .collect(),
    )
}

/// Strips a list bullet: `- `, `* `, `+ `, `• `, `1. `, `1) `.
fn strip_bullet(line: &str) -> &str {
    for bullet in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return rest;
        }
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let rest = &line[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return rest;
        }
    }
    line
}
