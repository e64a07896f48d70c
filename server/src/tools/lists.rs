//! A tool's list argument as a model writes it where the schema asks for
//! a list (`ask_user`'s options, `store`'s tags): a JSON list, or text
//! with one item a line (bullets and numbers stripped) or a comma between
//! them.

use serde_json::Value;

/// One item of a JSON list as text: a string, a number or a boolean as
/// written, an object by its `label` or `text`.
pub fn list_item(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Object(map) => map
            .get("label")
            .or_else(|| map.get("text"))
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

/// A list written as text: one item per line (bullets stripped), else
/// comma-separated; a JSON list is read as one.
pub fn split_list(text: &str) -> Vec<String> {
    let trimmed = text.trim();
    if trimmed.starts_with('[') {
        if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(trimmed) {
            return items.iter().filter_map(list_item).collect();
        }
    }
    let lines: Vec<&str> = trimmed.lines().filter(|l| !l.trim().is_empty()).collect();
    let items: Vec<&str> = if lines.len() > 1 {
        lines
    } else {
        trimmed.split(',').collect()
    };
    items
        .into_iter()
        .map(strip_bullet)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn strip_bullet(item: &str) -> &str {
    let item = item.trim();
    let item = item
        .strip_prefix("- ")
        .or_else(|| item.strip_prefix("* "))
        .or_else(|| item.strip_prefix("• "))
        .unwrap_or(item);
    // "1. " or "2) "
    let digits = item.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &item[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return rest.trim();
        }
    }
    item.trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_written_as_text_is_read_as_one() {
        assert_eq!(split_list("Imprint, Billing"), ["Imprint", "Billing"]);
        assert_eq!(
            split_list("- Imprint\n2) Billing\n"),
            ["Imprint", "Billing"]
        );
        assert_eq!(
            split_list(r#"["Imprint", 3, {"label": "Billing"}]"#),
            ["Imprint", "3", "Billing"]
        );
        assert_eq!(list_item(&json!({"text": "Home"})).as_deref(), Some("Home"));
        assert_eq!(list_item(&json!(null)), None);
    }
}
