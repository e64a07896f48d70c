//! `imprint import FILE.jsonl`: memories in, all or nothing.

use std::path::Path;

use serde::Deserialize;

use crate::store::{NewMemory, Store, StoreError};

/// Why nothing was imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// A line that is not a memory, named by its number (from 1).
    #[error("line {number}: {message}")]
    Line { number: usize, message: String },
    #[error("nothing was imported: {0}")]
    Store(#[from] StoreError),
}

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
pub fn parse(text: &str) -> Result<Vec<NewMemory>, ImportError> {
    let mut memories = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line = serde_json::from_str(line).map_err(|e| ImportError::Line {
            number,
            message: e.to_string(),
        })?;
        if parsed.content.trim().is_empty() {
            return Err(ImportError::Line {
                number,
                message: "`content` is empty".into(),
            });
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

pub async fn import_file(store: &Store, path: &Path) -> Result<usize, ImportError> {
    let text = tokio::fs::read_to_string(path)
        .await
        .map_err(|source| ImportError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    let memories = parse(&text)?;
    Ok(store.import_memories(memories).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_line_is_named() {
        let text = "{\"content\": \"a\"}\n\n{\"content\": 3}\n";
        assert!(matches!(
            parse(text).unwrap_err(),
            ImportError::Line { number: 3, .. }
        ));
        assert!(matches!(
            parse("{\"content\": \" \"}").unwrap_err(),
            ImportError::Line { number: 1, .. }
        ));
        assert!(parse("{\"content\": \"a\", \"colour\": 1}")
            .unwrap_err()
            .to_string()
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
        assert!(matches!(
            import_file(&store, &path).await,
            Err(ImportError::Store(_))
        ));
        assert!(store.list_projects().await.unwrap().is_empty());
        std::fs::write(&path, "{\"content\": \"tea with Anna\", \"project\": \"Home\", \"created_at\": \"2026-01-02\"}\n").unwrap();
        assert_eq!(import_file(&store, &path).await.unwrap(), 1);
    }
}
