//! Memories and their search: storing one or many (all or nothing), the
//! FTS5 search with project and time filters, and the projects memories
//! name (one spelling per project, found case-insensitively).

use std::collections::{HashMap, HashSet};

use rusqlite::types::Type;
use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};

use super::time::{fmt_ts, next_now, parse_bound, parse_user_time};
use super::{invalid, Store, StoreError};

/// `search_memories` returns this many hits when no limit is given.
pub const DEFAULT_SEARCH_LIMIT: usize = 10;

/// `search_memories` never returns more than this many hits.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// At most this many words of a search query are used.
pub(super) const MAX_QUERY_TERMS: usize = 32;

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

/// A stored memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub id: i64,
    pub content: String,
    pub project: Option<String>,
    pub tags: Vec<String>,
    pub created_at: String,
}

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

/// A project named by memories: how many, and the first and last times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectInfo {
    pub name: String,
    pub count: u64,
    pub first_at: String,
    pub last_at: String,
}

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

    /// Stores many memories in one transaction: all of them, or (on the
    /// first bad one, named by its index) none. Returns how many.
    pub async fn import_memories(&self, memories: Vec<NewMemory>) -> Result<usize, StoreError> {
        let valid = memories
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                ValidMemory::new(m).map_err(|e| match e {
                    StoreError::Invalid(msg) => invalid(format!("memory {i}: {msg}")),
                    other => other,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let mut projects = ProjectNames::load(&tx)?;
            let count = valid.len();
            for memory in valid {
                insert_memory(&tx, &mut projects, memory)?;
            }
            tx.commit()?;
            Ok(count)
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
        // A blank bound is no bound.
        let bound = |text: &Option<String>, what, until| {
            text.as_deref()
                .filter(|s| !s.trim().is_empty())
                .map(|s| parse_bound(s, what, until))
                .transpose()
        };
        let since = bound(&query.since, "since", false)?;
        let until = bound(&query.until, "until", true)?;
        let project = project_name(query.project.as_deref());
        let fts = fts_query(&query.query);
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let project = match project {
                None => None,
                Some(p) => match ProjectNames::load(&tx)?.find(&p) {
                    Some(stored) => Some(stored.to_owned()),
                    None => return Ok(Vec::new()),
                },
            };
            let limit = i64::try_from(limit).unwrap_or(MAX_SEARCH_LIMIT as i64);
            let hits = match fts {
                Some(fts) => {
                    let mut stmt = tx.prepare_cached(
                        "SELECT m.id, m.content, m.project, m.tags, m.created_at
                         FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
                         WHERE memories_fts MATCH ?1
                           AND (?2 IS NULL OR m.project = ?2)
                           AND (?3 IS NULL OR m.created_at >= ?3)
                           AND (?4 IS NULL OR m.created_at < ?4)
                         ORDER BY bm25(memories_fts, 1.0, 0.5, 0.5), m.created_at DESC, m.id DESC
                         LIMIT ?5",
                    )?;
                    let rows =
                        stmt.query_map(params![fts, project, since, until, limit], memory_from_row);
                    match rows.and_then(|rows| rows.collect::<Result<Vec<_>, _>>()) {
                        Ok(hits) => hits,
                        // The query is built to be valid; should FTS5 still
                        // reject it, the user's text matched nothing.
                        Err(e) if is_fts_query_error(&e) => Vec::new(),
                        Err(e) => return Err(e.into()),
                    }
                }
                None => {
                    let mut stmt = tx.prepare_cached(
                        "SELECT id, content, project, tags, created_at FROM memories
                         WHERE (?1 IS NULL OR project = ?1)
                           AND (?2 IS NULL OR created_at >= ?2)
                           AND (?3 IS NULL OR created_at < ?3)
                         ORDER BY created_at DESC, id DESC
                         LIMIT ?4",
                    )?;
                    let rows =
                        stmt.query_map(params![project, since, until, limit], memory_from_row)?;
                    rows.collect::<Result<Vec<_>, _>>()?
                }
            };
            tx.commit()?;
            Ok(hits)
        })
        .await
    }

    /// The projects named by memories, most recently active first.
    pub async fn list_projects(&self) -> Result<Vec<ProjectInfo>, StoreError> {
        self.call(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT MIN(project), COUNT(*), MIN(created_at), MAX(created_at)
                 FROM memories WHERE project IS NOT NULL
                 GROUP BY project COLLATE NOCASE
                 ORDER BY MAX(created_at) DESC, MIN(project)",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok(ProjectInfo {
                    name: row.get(0)?,
                    count: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    first_at: row.get(2)?,
                    last_at: row.get(3)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }
}

/// A project name as given: trimmed, and none when blank.
fn project_name(given: Option<&str>) -> Option<String> {
    given
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
}

/// A checked [`NewMemory`]: trimmed text, clean tags, a stored-format time.
struct ValidMemory {
    content: String,
    project: Option<String>,
    tags: Vec<String>,
    tags_json: String,
    created_at: Option<String>,
}

impl ValidMemory {
    fn new(m: NewMemory) -> Result<Self, StoreError> {
        let content = m.content.trim().to_owned();
        if content.is_empty() {
            return Err(invalid("the memory's content must not be blank"));
        }
        let project = project_name(m.project.as_deref());
        let mut seen = HashSet::new();
        let tags: Vec<String> = m
            .tags
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty() && seen.insert(t.to_lowercase()))
            .map(str::to_owned)
            .collect();
        let tags_json = serde_json::to_string(&tags)
            .map_err(|e| invalid(format!("the tags cannot be stored: {e}")))?;
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

/// The project names already stored, found case-insensitively, so that one
/// project keeps the spelling it was first stored with.
struct ProjectNames {
    by_folded: HashMap<String, String>,
}

impl ProjectNames {
    fn load(conn: &Connection) -> rusqlite::Result<Self> {
        let mut stmt =
            conn.prepare_cached("SELECT DISTINCT project FROM memories WHERE project IS NOT NULL")?;
        let names = stmt.query_map([], |row| row.get::<_, String>(0))?;
        let mut by_folded = HashMap::new();
        for name in names {
            let name = name?;
            by_folded.entry(name.to_lowercase()).or_insert(name);
        }
        Ok(Self { by_folded })
    }

    fn find(&self, name: &str) -> Option<&str> {
        self.by_folded.get(&name.to_lowercase()).map(String::as_str)
    }

    /// The stored spelling of `name`, remembering it if it is new.
    fn canonical(&mut self, name: String) -> String {
        self.by_folded
            .entry(name.to_lowercase())
            .or_insert(name)
            .clone()
    }
}

fn insert_memory(
    conn: &Connection,
    projects: &mut ProjectNames,
    m: ValidMemory,
) -> Result<Memory, StoreError> {
    let project = m.project.map(|p| projects.canonical(p));
    let created_at = m.created_at.unwrap_or_else(|| fmt_ts(next_now()));
    conn.prepare_cached(
        "INSERT INTO memories (content, project, tags, created_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![m.content, project, m.tags_json, created_at])?;
    Ok(Memory {
        id: conn.last_insert_rowid(),
        content: m.content,
        project,
        tags: m.tags,
        created_at,
    })
}

fn memory_from_row(row: &Row<'_>) -> rusqlite::Result<Memory> {
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
