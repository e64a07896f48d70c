//! Memories and their search: storing one, the FTS5 search with project
//! and time filters, listing in pages (keyset paging newest first, or by
//! rank), editing, deleting and putting back. Bulk import and export are
//! in `transfer`, projects in `projects`.

use std::collections::HashSet;

use rusqlite::types::Type;
use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};

use super::projects::{project_name, ProjectNames};
use super::time::{fmt_ts, next_now, parse_bound, parse_stored_ts, parse_user_time};
use super::{invalid, Store, StoreError};

/// `search_memories` returns this many hits when no limit is given.
pub const DEFAULT_SEARCH_LIMIT: usize = 10;

/// `search_memories` never returns more than this many hits.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// At most this many words of a search query are used.
pub(super) const MAX_QUERY_TERMS: usize = 32;

/// The most a memory's content may hold, in bytes of UTF-8: what a REST
/// body can carry. Every route that stores one (REST, import, the `store`
/// tool) checks it.
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;

/// The longest project name, in characters.
pub const MAX_PROJECT_CHARS: usize = 200;

/// The most tags a memory may have, and the longest tag, in characters.
pub const MAX_TAGS: usize = 64;
pub const MAX_TAG_CHARS: usize = 200;

/// The content, project and tags within their limits, or why not (the
/// message quotes none of them).
fn check_sizes(
    content: Option<&str>,
    project: Option<&str>,
    tags: Option<&[String]>,
) -> Result<(), StoreError> {
    if content.is_some_and(|c| c.len() > MAX_CONTENT_BYTES) {
        return Err(invalid(format!(
            "the memory's content is longer than {} KiB",
            MAX_CONTENT_BYTES / 1024
        )));
    }
    if project.is_some_and(|p| p.chars().count() > MAX_PROJECT_CHARS) {
        return Err(invalid(format!(
            "the project's name is longer than {MAX_PROJECT_CHARS} characters"
        )));
    }
    if let Some(tags) = tags {
        if tags.len() > MAX_TAGS {
            return Err(invalid(format!("a memory has at most {MAX_TAGS} tags")));
        }
        if tags.iter().any(|t| t.chars().count() > MAX_TAG_CHARS) {
            return Err(invalid(format!(
                "a tag is longer than {MAX_TAG_CHARS} characters"
            )));
        }
    }
    Ok(())
}

/// A memory to store. `created_at`, when given, is RFC 3339 or a plain
/// `YYYY-MM-DD` date (midnight UTC); it defaults to now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewMemory {
    pub content: String,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub created_at: Option<String>,
}

/// A stored memory (the wire type: the store's rows are what the API shows).
pub use app::protocol::Memory;

/// One result of [`Store::search_memories`], best first.
pub type MemoryHit = Memory;

/// A memory search. `query` is free text (no FTS syntax: every word is
/// matched literally, any word may match). `since`/`until` are RFC 3339 or
/// plain dates; a plain-date `until` includes that whole day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MemoryQuery {
    pub query: String,
    pub project: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub limit: Option<usize>,
}

/// A page of memories is this long when no limit is given.
pub const DEFAULT_PAGE_SIZE: usize = 20;

/// A page of memories is never longer than this.
pub const MAX_PAGE_SIZE: usize = 200;

/// What [`Store::list_memories`] lists: `query` (free text, as for
/// search), a project, the cursor of the page before, a page size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryPageQuery {
    pub query: Option<String>,
    pub project: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<usize>,
}

/// One page of memories and the cursor of the next.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed {
    pub memories: Vec<Memory>,
    pub next_cursor: Option<String>,
}

/// A change to a memory: what is `Some` changes (`project: Some(None)`
/// takes it out of its project).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryChange {
    pub content: Option<String>,
    pub project: Option<Option<String>>,
    pub tags: Option<Vec<String>>,
}

/// Where the next page starts. Listing newest first pages by key (the
/// last row's time and id), so no row is lost or repeated when rows come
/// and go; a ranked search pages by position.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cursor {
    Before(String, i64),
    Offset(usize),
}

impl Cursor {
    fn parse(text: &str, ranked: bool) -> Result<Self, StoreError> {
        let bad = || invalid(format!("{text:?} is not a cursor from this list"));
        if ranked {
            let n = text.strip_prefix('+').ok_or_else(bad)?;
            return n.parse().map(Cursor::Offset).map_err(|_| bad());
        }
        let (at, id) = text.rsplit_once('~').ok_or_else(bad)?;
        let id = id.parse().map_err(|_| bad())?;
        // Only a stored time: it is compared as text.
        parse_stored_ts(at, 0).map_err(|_| bad())?;
        Ok(Cursor::Before(at.to_owned(), id))
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cursor::Before(at, id) => write!(f, "{at}~{id}"),
            Cursor::Offset(n) => write!(f, "+{n}"),
        }
    }
}

/// A project named by memories: how many, and the first and last times.
pub use app::protocol::ProjectInfo;

/// The largest id a memory may be given back with: JavaScript's largest
/// exact integer, so the page can hold every id. New ids follow the
/// largest one, so an unbounded id would also run SQLite out of ids (past
/// `i64::MAX` it picks them at random).
pub const MAX_MEMORY_ID: i64 = (1 << 53) - 1;

impl Store {
    /// Stores one memory.
    pub async fn add_memory(&self, memory: NewMemory) -> Result<Memory, StoreError> {
        let memory = ValidMemory::new(memory)?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let mut projects = ProjectNames::load(&tx)?;
            let stored = insert_memory(&tx, &mut projects, memory)?;
            tx.commit()?;
            Ok(stored)
        })
        .await
    }

    /// Full-text search, most relevant first (bm25). Any word of the query
    /// may match; FTS syntax in it is taken literally. An empty query lists
    /// the newest memories that pass the filters.
    pub async fn search_memories(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, StoreError> {
        let limit = query
            .limit
            .unwrap_or(DEFAULT_SEARCH_LIMIT)
            .min(MAX_SEARCH_LIMIT);
        let wanted = Wanted::of(&query)?;
        let fts = fts_query(&query.query);
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let Some(filter) = wanted.filter(&tx)? else {
                return Ok(Vec::new());
            };
            let hits = match fts {
                Some(fts) => ranked(&tx, &fts, &filter, limit, 0)?,
                None => newest(&tx, &filter, None, limit)?,
            };
            tx.commit()?;
            Ok(hits)
        })
        .await
    }

    /// True when a memory's content holds `words` side by side, as the
    /// search index reads them ("file room" in "File room key: …"): the
    /// user's own name for a thing. Only letters and digits count.
    pub async fn holds_phrase(&self, words: Vec<String>) -> Result<bool, StoreError> {
        let words: Vec<String> = words
            .iter()
            .map(|w| {
                w.chars()
                    .filter(|c| c.is_alphanumeric())
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect();
        if words.len() < 2 {
            return Ok(false);
        }
        let phrase = format!("content : \"{}\"", words.join(" "));
        self.call(move |conn| {
            let held = conn
                .prepare_cached("SELECT 1 FROM memories_fts WHERE memories_fts MATCH ?1 LIMIT 1")?
                .exists([phrase])?;
            Ok(held)
        })
        .await
    }

    /// One page of memories: newest first, or ranked as
    /// [`Store::search_memories`] ranks them when `query` has a word. The
    /// page's cursor gives the next one (`None` at the end).
    pub async fn list_memories(&self, page: MemoryPageQuery) -> Result<Listed, StoreError> {
        let limit = page.limit.unwrap_or(DEFAULT_PAGE_SIZE);
        if !(1..=MAX_PAGE_SIZE).contains(&limit) {
            return Err(invalid(format!(
                "limit must be between 1 and {MAX_PAGE_SIZE}"
            )));
        }
        let fts = page.query.as_deref().and_then(fts_query);
        let cursor = page
            .cursor
            .as_deref()
            .filter(|c| !c.is_empty())
            .map(|c| Cursor::parse(c, fts.is_some()))
            .transpose()?;
        let project = project_name(page.project.as_deref());
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let mut filter = Filter::default();
            if let Some(p) = project {
                match ProjectNames::load(&tx)?.find(&p) {
                    Some(stored) => filter.project = Some(stored.to_owned()),
                    None => return Ok(Listed::default()),
                }
            }
            // One row past the page says whether another page follows.
            let (mut rows, next) = match (&fts, cursor) {
                (Some(fts), cursor) => {
                    let offset = match cursor {
                        Some(Cursor::Offset(n)) => n,
                        _ => 0,
                    };
                    let rows = ranked(&tx, fts, &filter, limit + 1, offset)?;
                    (rows, Cursor::Offset(offset + limit))
                }
                (None, cursor) => {
                    let before = match cursor {
                        Some(Cursor::Before(at, id)) => Some((at, id)),
                        _ => None,
                    };
                    let rows = newest(&tx, &filter, before.as_ref(), limit + 1)?;
                    let next = rows
                        .get(limit - 1)
                        .map(|m| Cursor::Before(m.created_at.clone(), m.id))
                        .unwrap_or(Cursor::Offset(0));
                    (rows, next)
                }
            };
            tx.commit()?;
            let more = rows.len() > limit;
            rows.truncate(limit);
            Ok(Listed {
                memories: rows,
                next_cursor: more.then(|| next.to_string()),
            })
        })
        .await
    }

    /// One memory by id.
    pub async fn get_memory(&self, id: i64) -> Result<Option<Memory>, StoreError> {
        self.call(move |conn| Ok(memory_by_id(conn, id)?)).await
    }

    /// Changes what `change` gives of a memory; `None` if there is no such
    /// memory.
    pub async fn update_memory(
        &self,
        id: i64,
        change: MemoryChange,
    ) -> Result<Option<Memory>, StoreError> {
        let content = match change.content {
            Some(c) if c.trim().is_empty() => {
                return Err(invalid("the memory's content must not be blank"))
            }
            other => other.map(|c| c.trim().to_owned()),
        };
        let tags = change.tags.map(|t| clean_tags(&t));
        let project = change.project.map(|p| project_name(p.as_deref()));
        check_sizes(
            content.as_deref(),
            project.as_ref().and_then(|p| p.as_deref()),
            tags.as_deref(),
        )?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let Some(mut memory) = memory_by_id(&tx, id)? else {
                return Ok(None);
            };
            if let Some(content) = content {
                memory.content = content;
            }
            if let Some(tags) = tags {
                memory.tags = tags;
            }
            if let Some(project) = project {
                let mut projects = ProjectNames::load(&tx)?;
                memory.project = project.map(|p| projects.canonical(p));
            }
            let tags_json = tags_json(&memory.tags)?;
            tx.prepare_cached(
                "UPDATE memories SET content = ?2, project = ?3, tags = ?4 WHERE id = ?1",
            )?
            .execute(params![id, memory.content, memory.project, tags_json])?;
            tx.commit()?;
            Ok(Some(memory))
        })
        .await
    }

    /// Deletes a memory and returns it (so it can be put back); `None` if
    /// there is no such memory.
    pub async fn delete_memory(&self, id: i64) -> Result<Option<Memory>, StoreError> {
        self.call(move |conn| {
            let mut stmt = conn.prepare_cached(
                "DELETE FROM memories WHERE id = ?1
                 RETURNING id, content, project, tags, created_at",
            )?;
            let mut rows = stmt.query_map([id], memory_from_row)?;
            Ok(rows.next().transpose()?)
        })
        .await
    }

    /// Puts a deleted memory back with its own id (undo). `Invalid` if a
    /// memory holds that id.
    pub async fn restore_memory(&self, id: i64, memory: NewMemory) -> Result<Memory, StoreError> {
        if !(1..=MAX_MEMORY_ID).contains(&id) {
            return Err(invalid(format!(
                "a memory id is a whole number from 1 to {MAX_MEMORY_ID}, not {id}"
            )));
        }
        let memory = ValidMemory::new(memory)?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            if memory_by_id(&tx, id)?.is_some() {
                return Err(invalid(format!("memory {id} exists")));
            }
            let mut projects = ProjectNames::load(&tx)?;
            let stored = insert_memory_as(&tx, &mut projects, memory, Some(id))?;
            tx.commit()?;
            Ok(stored)
        })
        .await
    }
}

/// What a search or a listing is narrowed to (stored forms; `until`
/// exclusive).
#[derive(Default)]
pub(super) struct Filter {
    pub(super) project: Option<String>,
    pub(super) since: Option<String>,
    pub(super) until: Option<String>,
}

/// A search's limits as the caller gave them, checked: the bounds parsed,
/// the project's name cleaned (found among the stored ones by [`Wanted::filter`]).
pub(super) struct Wanted {
    project: Option<String>,
    since: Option<String>,
    until: Option<String>,
}

impl Wanted {
    pub(super) fn of(query: &MemoryQuery) -> Result<Self, StoreError> {
        // A blank bound is no bound.
        let bound = |text: &Option<String>, what, until| {
            text.as_deref()
                .filter(|s| !s.trim().is_empty())
                .map(|s| parse_bound(s, what, until))
                .transpose()
        };
        Ok(Self {
            since: bound(&query.since, "since", false)?,
            until: bound(&query.until, "until", true)?,
            project: project_name(query.project.as_deref()),
        })
    }

    /// True when nothing narrows the search.
    pub(super) fn is_everything(&self) -> bool {
        self.project.is_none() && self.since.is_none() && self.until.is_none()
    }

    /// The filter in stored forms; `None` when the project is none of the
    /// user's (nothing can match).
    pub(super) fn filter(self, conn: &Connection) -> Result<Option<Filter>, StoreError> {
        let project = match self.project {
            None => None,
            Some(p) => match ProjectNames::load(conn)?.find(&p) {
                Some(stored) => Some(stored.to_owned()),
                None => return Ok(None),
            },
        };
        Ok(Some(Filter {
            project,
            since: self.since,
            until: self.until,
        }))
    }
}

/// The memories matching an FTS5 query, most relevant first (bm25), ties
/// newest first: the one ranking of the `search` tool and the page.
fn ranked(
    conn: &Connection,
    fts: &str,
    filter: &Filter,
    limit: usize,
    offset: usize,
) -> Result<Vec<Memory>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.id, m.content, m.project, m.tags, m.created_at
         FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
         WHERE memories_fts MATCH ?1
           AND (?2 IS NULL OR m.project = ?2)
           AND (?3 IS NULL OR m.created_at >= ?3)
           AND (?4 IS NULL OR m.created_at < ?4)
         ORDER BY bm25(memories_fts, 1.0, 0.5, 0.5), m.created_at DESC, m.id DESC
         LIMIT ?5 OFFSET ?6",
    )?;
    let rows = stmt.query_map(
        params![
            fts,
            filter.project,
            filter.since,
            filter.until,
            sql_count(limit),
            sql_count(offset)
        ],
        memory_from_row,
    );
    match rows.and_then(|rows| rows.collect::<Result<Vec<_>, _>>()) {
        Ok(hits) => Ok(hits),
        // The query is built to be valid; should FTS5 still reject it, the
        // user's text matched nothing.
        Err(e) if is_fts_query_error(&e) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

/// The newest memories passing `filter`, after `before` (a row's
/// `(created_at, id)`: keyset paging, so rows added or deleted meanwhile
/// neither repeat nor skip one).
fn newest(
    conn: &Connection,
    filter: &Filter,
    before: Option<&(String, i64)>,
    limit: usize,
) -> Result<Vec<Memory>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, content, project, tags, created_at FROM memories
         WHERE (?1 IS NULL OR project = ?1)
           AND (?2 IS NULL OR created_at >= ?2)
           AND (?3 IS NULL OR created_at < ?3)
           AND (?4 IS NULL OR created_at < ?4 OR (created_at = ?4 AND id < ?5))
         ORDER BY created_at DESC, id DESC
         LIMIT ?6",
    )?;
    let (before_at, before_id) = match before {
        Some((at, id)) => (Some(at.as_str()), *id),
        None => (None, 0),
    };
    let rows = stmt.query_map(
        params![
            filter.project,
            filter.since,
            filter.until,
            before_at,
            before_id,
            sql_count(limit)
        ],
        memory_from_row,
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn sql_count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A checked [`NewMemory`]: trimmed text, clean tags, a stored-format time.
pub(super) struct ValidMemory {
    content: String,
    project: Option<String>,
    tags: Vec<String>,
    tags_json: String,
    created_at: Option<String>,
}

impl ValidMemory {
    pub(super) fn new(m: NewMemory) -> Result<Self, StoreError> {
        let content = m.content.trim().to_owned();
        if content.is_empty() {
            return Err(invalid("the memory's content must not be blank"));
        }
        let project = project_name(m.project.as_deref());
        let tags = clean_tags(&m.tags);
        check_sizes(Some(&content), project.as_deref(), Some(&tags))?;
        let tags_json = tags_json(&tags)?;
        let created_at = m
            .created_at
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .map(|s| parse_user_time(s, "created_at"))
            .transpose()?;
        Ok(Self {
            content,
            project,
            tags,
            tags_json,
            created_at,
        })
    }
}

/// Whether the store would take `memory` (its content, sizes and time),
/// checked without storing it: an import checks every line first.
pub fn check_memory(memory: NewMemory) -> Result<(), StoreError> {
    ValidMemory::new(memory).map(|_| ())
}

/// Tags trimmed, blank ones dropped, each once (any case).
fn clean_tags(tags: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    tags.iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty() && seen.insert(t.to_lowercase()))
        .map(str::to_owned)
        .collect()
}

fn tags_json(tags: &[String]) -> Result<String, StoreError> {
    serde_json::to_string(tags).map_err(|e| invalid(format!("the tags cannot be stored: {e}")))
}

pub(super) fn insert_memory(
    conn: &Connection,
    projects: &mut ProjectNames,
    m: ValidMemory,
) -> Result<Memory, StoreError> {
    insert_memory_as(conn, projects, m, None)
}

/// Inserts with the given id, or the next free one.
fn insert_memory_as(
    conn: &Connection,
    projects: &mut ProjectNames,
    m: ValidMemory,
    id: Option<i64>,
) -> Result<Memory, StoreError> {
    let project = m.project.map(|p| projects.canonical(p));
    let created_at = m.created_at.unwrap_or_else(|| fmt_ts(next_now()));
    conn.prepare_cached(
        "INSERT INTO memories (id, content, project, tags, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![id, m.content, project, m.tags_json, created_at])?;
    Ok(Memory {
        id: conn.last_insert_rowid(),
        content: m.content,
        project,
        tags: m.tags,
        created_at,
    })
}

pub(super) fn memory_by_id(conn: &Connection, id: i64) -> rusqlite::Result<Option<Memory>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, content, project, tags, created_at FROM memories WHERE id = ?1",
    )?;
    let mut rows = stmt.query_map([id], memory_from_row)?;
    rows.next().transpose()
}

pub(super) fn memory_from_row(row: &Row<'_>) -> rusqlite::Result<Memory> {
    let tags: String = row.get(3)?;
    let tags = serde_json::from_str(&tags)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(3, Type::Text, Box::new(e)))?;
    Ok(Memory {
        id: row.get(0)?,
        content: row.get(1)?,
        project: row.get(2)?,
        tags,
        created_at: row.get(4)?,
    })
}

/// Free text as a safe FTS5 query: every whitespace-separated word that has
/// a letter or digit becomes a quoted string (so `"`, `*`, `OR`, `(`, `-`,
/// `:` and the like are plain text), and the words are ORed. `None` if no
/// word is left.
pub(super) fn fts_query(text: &str) -> Option<String> {
    let mut seen = HashSet::new();
    let mut terms = Vec::new();
    for word in text.split_whitespace() {
        let word: String = word.chars().filter(|c| !c.is_control()).collect();
        if !word.chars().any(char::is_alphanumeric) || !seen.insert(word.to_lowercase()) {
            continue;
        }
        terms.push(format!("\"{}\"", word.replace('"', "\"\"")));
        if terms.len() == MAX_QUERY_TERMS {
            break;
        }
    }
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

fn is_fts_query_error(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(_, Some(msg)) if msg.starts_with("fts5:"))
}
