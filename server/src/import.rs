//! `imprint import FILE.jsonl`: memories in, all or nothing.

use std::path::Path;

use serde::Deserialize;

use crate::store::{NewMemory, Store};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    content: String,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

/// Reads every line first; one bad line imports nothing and names itself.
pub fn parse(text: &str) -> Result<Vec<NewMemory>, String> {
    let mut memories = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line = serde_json::from_str(line).map_err(|e| format!("line {number}: {e}"))?;
        if parsed.content.trim().is_empty() {
            return Err(format!("line {number}: `content` is empty"));
        }
        memories.push(NewMemory {
            content: parsed.content.trim().to_string(),
            project: parsed.project.filter(|p| !p.trim().is_empty()),
            tags: parsed.tags,
            created_at: parsed.created_at,
        });
    }
    Ok(memories)
}

pub async fn import_file(store: &Store, path: &Path) -> Result<usize, String> {
    let text = tokio::fs::read_to_string(path)
        .await
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let memories = parse(&text)?;
    store
        .import_memories(memories)
        .await
        .map_err(|e| format!("nothing was imported: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_line_is_named() {
        let text = "{\"content\": \"a\"}\n\n{\"content\": 3}\n";
        assert!(parse(text).unwrap_err().starts_with("line 3:"));
        assert!(parse("{\"content\": \" \"}")
            .unwrap_err()
            .contains("line 1"));
        assert!(parse("{\"content\": \"a\", \"colour\": 1}")
            .unwrap_err()
            .contains("colour"));
    }

    #[tokio::test]
    async fn a_bad_date_imports_nothing() {
        let store = Store::open_in_memory().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.jsonl");
        std::fs::write(
            &path,
            "{\"content\": \"tea with Anna\", \"project\": \"Home\", \"tags\": [\"x\"]}\n{\"content\": \"b\", \"created_at\": \"not a date\"}\n",
        )
        .unwrap();
        assert!(import_file(&store, &path).await.is_err());
        assert!(store.list_projects().await.unwrap().is_empty());
        std::fs::write(&path, "{\"content\": \"tea with Anna\", \"project\": \"Home\", \"created_at\": \"2026-01-02\"}\n").unwrap();
        assert_eq!(import_file(&store, &path).await, Ok(1));
    }
}
