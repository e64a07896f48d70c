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
    /// Storing failed part way, and what was stored could not be deleted
    /// yet: said, with how many, rather than "nothing was imported".
    #[error("the import failed part way ({error}); the {kept} memories it had stored could not be deleted yet, and are deleted when Imprint next starts")]
    PartlyKept {
        kept: usize,
        error: Box<ImportError>,
    },
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

/// The longest line an import reads: a memory's content at its limit
/// ([`crate::store::MAX_CONTENT_BYTES`]) written with JSON escapes, and
/// room for its project, tags and time. A longer line is refused without
/// being held whole.
pub const MAX_LINE_BYTES: usize = 512 * 1024;

/// The memories of JSON Lines read from `reader`, one at a time, each with
/// the number of its line (from 1); blank lines are skipped, and a byte
/// order mark before the first line (as Windows editors save) too.
pub fn numbered_lines<R: BufRead>(
    reader: R,
) -> impl Iterator<Item = Result<(usize, NewMemory), ImportError>> {
    let mut lines = BoundedLines { reader, number: 0 };
    std::iter::from_fn(move || loop {
        let (number, line) = lines.next_line()?;
        let line = match line {
            Ok(line) => line,
            Err(message) => return Some(Err(ImportError::Line { number, message })),
        };
        let line = if number == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(&line)
        } else {
            &line
        };
        if line.trim().is_empty() {
            continue;
        }
        return Some(memory_of(number, line));
    })
}

/// Lines of at most [`MAX_LINE_BYTES`]; the rest of a longer one is read
/// past, not kept.
struct BoundedLines<R> {
    reader: R,
    number: usize,
}

impl<R: BufRead> BoundedLines<R> {
    /// The next line with its number, `None` at the end.
    fn next_line(&mut self) -> Option<(usize, Result<String, String>)> {
        let mut bytes = Vec::new();
        let mut too_long = false;
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    self.number += 1;
                    return Some((self.number, Err(format!("cannot be read: {error}"))));
                }
            };
            if buffer.is_empty() {
                if bytes.is_empty() && !too_long {
                    return None;
                }
                break;
            }
            let (taken, ended) = match buffer.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (buffer.len(), false),
            };
            let part = &buffer[..if ended { taken - 1 } else { taken }];
            if !too_long && bytes.len() + part.len() <= MAX_LINE_BYTES {
                bytes.extend_from_slice(part);
            } else {
                too_long = true;
                bytes = Vec::new();
            }
            self.reader.consume(taken);
            if ended {
                break;
            }
        }
        self.number += 1;
        if too_long {
            return Some((
                self.number,
                Err(format!(
                    "the line is longer than {} KiB",
                    MAX_LINE_BYTES / 1024
                )),
            ));
        }
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        Some((
            self.number,
            String::from_utf8(bytes).map_err(|_| "cannot be read: it is not UTF-8".to_string()),
        ))
    }
}

fn memory_of(number: usize, line: &str) -> Result<(usize, NewMemory), ImportError> {
    let bad = |message: String| ImportError::Line { number, message };
    let parsed: Line =
        serde_json::from_str(line).map_err(|e| bad(crate::quoting::shortened(&e.to_string())))?;
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

/// How many memories one transaction of an import stores; between two,
/// every other job of the store (chats, reminders, the timer) gets its turn.
pub const IMPORT_CHUNK: usize = 256;

/// Imports JSON Lines from the reader `open` gives, all or nothing, off
/// the store's thread: every line is read and checked first (one bad line
/// imports nothing and is named), then the lines are read again and
/// stored [`IMPORT_CHUNK`] at a time, each chunk a transaction of its own.
/// Should storing fail part way (a full disk), what was stored is deleted
/// again; should the process end part way, the next start deletes it (see
/// [`Store::begin_import`]). Lines are read one at a time, so a large file
/// is never held whole. `open` is called twice.
///
/// The import runs on a task of its own and this future only waits for
/// it: a caller that stops waiting (a client gone mid-import) does not cut
/// it short, and it still ends kept whole or taken back.
pub async fn import_from<F, R>(store: &Store, open: F) -> Result<usize, ImportError>
where
    F: Fn() -> std::io::Result<R> + Send + Sync + 'static,
    R: BufRead,
{
    let store = store.clone();
    tokio::spawn(async move { import_whole(&store, open).await })
        .await
        .map_err(|e| StoreError::Invalid(format!("the import stopped: {e}")))?
}

/// [`import_from`]'s work, on its task; one import at a time.
async fn import_whole<F, R>(store: &Store, open: F) -> Result<usize, ImportError>
where
    F: Fn() -> std::io::Result<R> + Send + Sync + 'static,
    R: BufRead,
{
    let _turn = store.import_turn().await;
    let open = std::sync::Arc::new(open);
    let checking = std::sync::Arc::clone(&open);
    tokio::task::spawn_blocking(move || check_all(checking()))
        .await
        .map_err(|e| StoreError::Invalid(format!("the import stopped: {e}")))??;
    let import = store.begin_import().await?;
    let (chunks, mut received) = tokio::sync::mpsc::channel::<Vec<NewMemory>>(2);
    let reading = tokio::task::spawn_blocking(move || -> Result<(), ImportError> {
        let mut chunk = Vec::with_capacity(IMPORT_CHUNK);
        for line in numbered_lines(open().map_err(unreadable)?) {
            chunk.push(line?.1);
            if chunk.len() == IMPORT_CHUNK {
                let full = std::mem::replace(&mut chunk, Vec::with_capacity(IMPORT_CHUNK));
                if chunks.blocking_send(full).is_err() {
                    return Ok(());
                }
            }
        }
        if !chunk.is_empty() {
            let _ = chunks.blocking_send(chunk);
        }
        Ok(())
    });
    let mut stored = 0;
    let mut failed: Option<ImportError> = None;
    while let Some(chunk) = received.recv().await {
        match store.insert_chunk(import, chunk).await {
            Ok(count) => stored += count,
            Err(error) => {
                failed = Some(error.into());
                break;
            }
        }
    }
    drop(received);
    let read = reading
        .await
        .map_err(|e| ImportError::from(StoreError::Invalid(format!("the import stopped: {e}"))))
        .and_then(|read| read);
    let outcome = match failed.or(read.err()) {
        Some(error) => Err(error),
        None => store
            .finish_import(import)
            .await
            .map(|()| stored)
            .map_err(ImportError::from),
    };
    match outcome {
        Err(error) => match store.take_back_import(import).await {
            Ok(()) => Err(error),
            Err(undo) => {
                tracing::error!(%undo, stored, "an import failed part way and its memories could not all be deleted: the next start deletes them");
                Err(ImportError::PartlyKept {
                    kept: stored,
                    error: Box::new(error),
                })
            }
        },
        ok => ok,
    }
}

/// Reads and checks every line as the store would, storing nothing; the
/// number of memories, or the first bad line.
fn check_all<R: BufRead>(reader: std::io::Result<R>) -> Result<usize, ImportError> {
    let mut count = 0;
    for line in numbered_lines(reader.map_err(unreadable)?) {
        let (number, memory) = line?;
        crate::store::check_memory(memory).map_err(|error| match error {
            StoreError::Invalid(message) => ImportError::Line { number, message },
            other => ImportError::Store(other),
        })?;
        count += 1;
    }
    Ok(count)
}

fn unreadable(error: std::io::Error) -> ImportError {
    ImportError::Store(StoreError::Invalid(format!(
        "the import cannot be read: {error}"
    )))
}

/// [`import_from`] over text already in memory.
pub async fn import_text(store: &Store, text: &str) -> Result<usize, ImportError> {
    let bytes: std::sync::Arc<[u8]> = text.as_bytes().into();
    import_from(store, move || {
        Ok(std::io::Cursor::new(std::sync::Arc::clone(&bytes)))
    })
    .await
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
    let opened = |path: &Path| {
        std::fs::File::open(path).map_err(|source| ImportError::Read {
            path: path.to_path_buf(),
            source,
        })
    };
    // Refused here when it cannot be opened at all, with its name.
    opened(path)?;
    let path = path.to_path_buf();
    import_from(store, move || {
        std::fs::File::open(&path).map(std::io::BufReader::new)
    })
    .await
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

    #[test]
    fn a_byte_order_mark_and_windows_line_ends_are_read() {
        let memories = parse("\u{feff}{\"content\": \"a\"}\r\n{\"content\": \"b\"}\r\n").unwrap();
        let contents: Vec<_> = memories.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["a", "b"]);
    }

    #[test]
    fn a_long_line_or_value_is_refused_without_being_quoted() {
        let long = "z".repeat(MAX_LINE_BYTES + 10);
        let text = format!("{{\"content\": \"a\"}}\n{{\"content\": \"{long}\"}}\n");
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.starts_with("line 2:") && error.len() < 200, "{error}");
        let text = format!(
            "{{\"content\": \"a\", \"tags\": \"{}\"}}",
            "t".repeat(100_000)
        );
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.starts_with("line 1:") && error.len() < 200, "{error}");
    }

    #[tokio::test]
    async fn a_memory_over_the_size_limit_imports_nothing() {
        let store = Store::open_in_memory().unwrap();
        let big = "w".repeat(crate::store::MAX_CONTENT_BYTES + 1);
        let text = format!("{{\"content\": \"ok\"}}\n{{\"content\": \"{big}\"}}\n");
        let error = import_text(&store, &text).await.unwrap_err().to_string();
        assert!(error.starts_with("line 2:") && error.len() < 200, "{error}");
        assert!(store.all_memories().await.unwrap().is_empty());
        let error = import_text(&store, "{\"content\": \"a\", \"created_at\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}")
            .await
            .unwrap_err()
            .to_string();
        assert!(error.len() < 200, "{error}");
    }

    /// Lines enough for several chunks.
    fn many_lines(count: usize) -> String {
        (0..count)
            .map(|i| format!("{{\"content\": \"memory {i}\"}}\n"))
            .collect()
    }

    /// An import's reader that is good when the import checks it whole,
    /// and read again differently: the second read fails after its first
    /// chunk was stored.
    fn good_then_bad() -> impl Fn() -> std::io::Result<std::io::Cursor<String>> + Send + Sync {
        let reads = std::sync::atomic::AtomicUsize::new(0);
        let good = many_lines(2 * IMPORT_CHUNK);
        let bad = format!("{}{{\"content\": 3}}\n", many_lines(IMPORT_CHUNK + 1));
        move || {
            let first = reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
            let text = if first { good.clone() } else { bad.clone() };
            Ok(std::io::Cursor::new(text))
        }
    }

    #[tokio::test]
    async fn an_import_whose_caller_stops_waiting_is_still_kept_whole() {
        let store = Store::open_in_memory().unwrap();
        let lines = 4 * IMPORT_CHUNK + 3;
        let text = many_lines(lines);
        let first_chunk = store.memories_changed();
        // The caller waits only until the first chunk is committed, then
        // drops the import's future (as a request whose client left).
        tokio::select! {
            biased;
            () = first_chunk.notified() => {}
            done = import_text(&store, &text) => panic!("the import ended before its first chunk was seen: {done:?}"),
        }
        store.imports_settled().await;
        assert_eq!(store.all_memories().await.unwrap().len(), lines);
        assert!(store.pending_imports().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn an_import_that_fails_part_way_keeps_nothing_and_is_not_left_pending() {
        let store = Store::open_in_memory().unwrap();
        store
            .add_memory(NewMemory {
                content: "kept before".into(),
                project: None,
                tags: vec![],
                created_at: None,
            })
            .await
            .unwrap();
        let error = import_from(&store, good_then_bad()).await.unwrap_err();
        assert!(
            matches!(error, ImportError::Line { number, .. } if number == IMPORT_CHUNK + 2),
            "{error}"
        );
        assert_eq!(store.all_contents().await.unwrap(), ["kept before"]);
        assert!(store.pending_imports().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn an_import_that_cannot_be_taken_back_says_what_it_kept() {
        let store = Store::open_in_memory().unwrap();
        // Deleting fails (as on a disk that went bad).
        store
            .call(|c| {
                Ok(c.execute_batch(
                    "CREATE TRIGGER no_delete BEFORE DELETE ON memories
                     BEGIN SELECT RAISE(ABORT, 'cannot delete'); END;",
                )?)
            })
            .await
            .unwrap();
        let error = import_from(&store, good_then_bad()).await.unwrap_err();
        assert!(
            matches!(error, ImportError::PartlyKept { kept, .. } if kept == IMPORT_CHUNK),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains(&format!("line {}", IMPORT_CHUNK + 2))
                && message.contains(&format!("the {IMPORT_CHUNK} memories"))
                && !message.starts_with("nothing was imported"),
            "{message}"
        );
        assert_eq!(store.all_memories().await.unwrap().len(), IMPORT_CHUNK);
        // Still listed under the import: the next start deletes them.
        assert_eq!(store.pending_imports().await.unwrap().len(), 1);
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
