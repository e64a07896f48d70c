//! Memories as JSON Lines: `imprint import FILE.jsonl` and the page's
//! import (all or nothing, a bad line named by its number), and the export
//! that writes the same format back.

use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;

use crate::store::{Memory, NewMemory, Store, StoreError};

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
    numbered_lines(std::io::Cursor::new(text.to_owned()))
        .map(|line| line.map(|(_, memory)| memory))
        .collect()
}

/// The memories of JSON Lines read from `reader`, one at a time, each with
/// the number of its line (from 1); blank lines are skipped.
pub fn numbered_lines<R: BufRead>(
    reader: R,
) -> impl Iterator<Item = Result<(usize, NewMemory), ImportError>> {
    reader.lines().enumerate().filter_map(|(index, line)| {
        let number = index + 1;
        match line {
            Ok(line) if line.trim().is_empty() => None,
            Ok(line) => Some(memory_of(number, &line)),
            Err(error) => Some(Err(ImportError::Line {
                number,
                message: format!("cannot be read: {error}"),
            })),
        }
    })
}

fn memory_of(number: usize, line: &str) -> Result<(usize, NewMemory), ImportError> {
    let bad = |message: String| ImportError::Line { number, message };
    let parsed: Line = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
    if parsed.content.trim().is_empty() {
        return Err(bad("`content` is empty".into()));
    }
    Ok((
        number,
        NewMemory {
            content: parsed.content.trim().to_string(),
            project: parsed.project.filter(|p| !p.trim().is_empty()),
            tags: parsed.tags,
            created_at: parsed.created_at,
        },
    ))
}

/// Imports JSON Lines from `reader` in one transaction: every memory, or
/// none and the first bad line named (also one the store refuses, such as
/// an unreadable `created_at`). Lines are read one at a time, so a large
/// file is never held whole.
pub async fn import_reader<R>(store: &Store, reader: R) -> Result<usize, ImportError>
where
    R: BufRead + Send + 'static,
{
    store
        .import_each(numbered_lines(reader), |number, message| {
            ImportError::Line { number, message }
        })
        .await
}

/// [`import_reader`] over text already in memory.
pub async fn import_text(store: &Store, text: &str) -> Result<usize, ImportError> {
    import_reader(store, std::io::Cursor::new(text.to_owned())).await
}

/// One memory as a line of JSON Lines in the format [`parse`] reads.
pub fn export_line(memory: &Memory) -> String {
    let line = serde_json::json!({
        "content": memory.content,
        "project": memory.project,
        "created_at": memory.created_at,
        "tags": memory.tags,
    });
    format!("{line}\n")
}

/// Memories as JSON Lines, one a line.
pub fn export(memories: &[Memory]) -> String {
    memories.iter().map(export_line).collect()
}

pub async fn import_file(store: &Store, path: &Path) -> Result<usize, ImportError> {
    let file = std::fs::File::open(path).map_err(|source| ImportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    import_reader(store, std::io::BufReader::new(file)).await
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
            Err(ImportError::Line { number: 2, .. })
        ));
        assert!(store.list_projects().await.unwrap().is_empty());
        std::fs::write(&path, "{\"content\": \"tea with Anna\", \"project\": \"Home\", \"created_at\": \"2026-01-02\"}\n").unwrap();
        assert_eq!(import_file(&store, &path).await.unwrap(), 1);
    }

    #[tokio::test]
    async fn an_export_imports_back_unchanged() {
        let store = Store::open_in_memory().unwrap();
        let text = "{\"content\": \"tea\", \"project\": \"Home\", \"tags\": [\"a\", \"b\"], \"created_at\": \"2026-01-02T10:00:00Z\"}\n{\"content\": \"loose\"}\n";
        assert_eq!(import_text(&store, text).await.unwrap(), 2);
        let exported = export(&store.all_memories().await.unwrap());
        let fresh = Store::open_in_memory().unwrap();
        assert_eq!(import_text(&fresh, &exported).await.unwrap(), 2);
        let strip = |ms: Vec<Memory>| -> Vec<_> {
            ms.into_iter()
                .map(|m| (m.content, m.project, m.tags, m.created_at))
                .collect()
        };
        assert_eq!(
            strip(fresh.all_memories().await.unwrap()),
            strip(store.all_memories().await.unwrap())
        );
        assert_eq!(export(&fresh.all_memories().await.unwrap()), exported);
    }
}
