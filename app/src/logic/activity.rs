//! Tool activity as one short line for people ("Searched memories for …").

use serde_json::Value;

use crate::protocol::tool_names::{LIST_PROJECTS, REMIND, SEARCH, STORE};

fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// What a tool call did (or is doing), in words.
pub fn describe(name: &str, args: &Value, done: bool) -> String {
    // (while running, once done, what): "Searching" / "Searched" "memories …".
    let (running, finished, what) = match name {
        SEARCH => {
            let query = arg(args, "query").unwrap_or("…");
            let project = arg(args, "project")
                .map(|p| format!(" in {p}"))
                .unwrap_or_default();
            (
                "Searching",
                "Searched",
                format!("memories for “{query}”{project}"),
            )
        }
        LIST_PROJECTS => ("Listing", "Listed", "projects".into()),
        STORE => {
            let content = arg(args, "content").unwrap_or("a memory");
            ("Saving", "Saved", format!("“{content}”"))
        }
        REMIND => {
            let text = arg(args, "text").unwrap_or("a reminder");
            let at = arg(args, "at")
                .map(|a| format!(" for {a}"))
                .unwrap_or_default();
            ("Setting", "Set", format!("a reminder{at}: {text}"))
        }
        other => ("Running", "Ran", other.to_string()),
    };
    format!("{} {what}", if done { finished } else { running })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn describes_each_tool() {
        assert_eq!(
            describe(SEARCH, &json!({"query": "tea", "project": "Home"}), true),
            "Searched memories for “tea” in Home"
        );
        assert_eq!(
            describe(SEARCH, &json!({"query": "tea"}), false),
            "Searching memories for “tea”"
        );
        assert_eq!(describe(LIST_PROJECTS, &json!({}), true), "Listed projects");
        assert_eq!(
            describe(
                REMIND,
                &json!({"text": "call Anna", "at": "2026-12-01T09:00"}),
                true
            ),
            "Set a reminder for 2026-12-01T09:00: call Anna"
        );
        assert_eq!(describe(STORE, &json!({}), true), "Saved “a memory”");
        assert_eq!(describe("mystery", &json!({}), true), "Ran mystery");
    }
}
