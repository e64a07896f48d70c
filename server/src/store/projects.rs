//! The projects memories name: one spelling per project, found
//! case-insensitively (the first one stored), listed most recently active
//! first, renamed or merged.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use super::{invalid, ProjectInfo, Store, StoreError};

impl Store {
    /// Moves every memory of project `from` (any case) to `to`: a rename, or
    /// a merge when `to` is already a project (which keeps its spelling).
    /// Returns how many moved; 0 when `from` names no project.
    pub async fn move_project(&self, from: &str, to: &str) -> Result<u64, StoreError> {
        let from = project_name(Some(from)).ok_or_else(|| invalid("name the project to move"))?;
        let to = project_name(Some(to)).ok_or_else(|| invalid("the new project name is blank"))?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let projects = ProjectNames::load(&tx)?;
            let Some(stored) = projects.find(&from).map(str::to_owned) else {
                return Ok(0);
            };
            // Into another project: its spelling; a rename (even of case
            // alone): the new one.
            let target = match projects.find(&to) {
                Some(other) if !other.eq_ignore_ascii_case(&stored) => other.to_owned(),
                _ => to,
            };
            let moved = tx
                .prepare_cached("UPDATE memories SET project = ?2 WHERE project = ?1")?
                .execute(params![stored, target])?;
            tx.commit()?;
            Ok(moved as u64)
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
pub(super) fn project_name(given: Option<&str>) -> Option<String> {
    given
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
}

/// The project names already stored, found case-insensitively, so that one
/// project keeps the spelling it was first stored with.
pub(super) struct ProjectNames {
    by_folded: HashMap<String, String>,
}

impl ProjectNames {
    pub(super) fn load(conn: &Connection) -> rusqlite::Result<Self> {
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

    pub(super) fn find(&self, name: &str) -> Option<&str> {
        self.by_folded.get(&name.to_lowercase()).map(String::as_str)
    }

    /// The stored spelling of `name`, remembering it if it is new.
    pub(super) fn canonical(&mut self, name: String) -> String {
        self.by_folded
            .entry(name.to_lowercase())
            .or_insert(name)
            .clone()
    }
}
