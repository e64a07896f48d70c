//! Memories in bulk: the export, read a page at a time so that a large
//! store is never held in memory nor the store's thread held for long;
//! and the import, in chunks of one transaction each, listed under the
//! import until it is done so that it is all or nothing even if the
//! process ends part way.

use chrono::Utc;
use rusqlite::{params, Connection};

use super::memories::{insert_memory, ValidMemory};
use super::projects::ProjectNames;
use super::time::fmt_ts;
use super::{invalid, NewMemory, Store, StoreError};

/// How many rows one transaction of an import's clean-up deletes: the
/// memories of one taken back, the list of one done.
const DELETE_CHUNK: usize = 5_000;

/// An import under way (see [`Store::begin_import`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportId(i64);

/// Settles, at open, the imports a process left behind: one that was
/// not done is taken back (its memories deleted), one that was done has
/// its list cleared. An import whose process still runs (`imprint import`
/// beside the server) is left to it. One transaction, before the store
/// answers anything.
pub(super) fn settle_imports(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction()?;
    let imports = {
        let mut stmt = tx.prepare("SELECT id, pid, done FROM imports")?;
        let rows = stmt.query_map([], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, bool>(2)?,
            ))
        })?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    for (id, pid, done) in imports {
        if !done && importer_runs(pid) {
            continue;
        }
        if !done {
            tx.execute(
                "DELETE FROM memories WHERE id IN
                 (SELECT memory_id FROM import_rows WHERE import_id = ?1)",
                [id],
            )?;
            tracing::warn!(import = id, "an import cut short was taken back");
        }
        tx.execute("DELETE FROM import_rows WHERE import_id = ?1", [id])?;
        tx.execute("DELETE FROM imports WHERE id = ?1", [id])?;
    }
    tx.commit()?;
    Ok(())
}

/// Whether the process `pid` that began an import may still be running
/// it. This process's own id means a store opened again after its last
/// one closed, so no. Elsewhere than Unix it is not known: taken as no,
/// and an import still running is then refused at its next chunk and
/// takes itself back.
fn importer_runs(pid: i64) -> bool {
    if pid == i64::from(std::process::id()) {
        return false;
    }
    #[cfg(unix)]
    {
        let pid = match libc::pid_t::try_from(pid) {
            Ok(pid) if pid > 0 => pid,
            _ => return false,
        };
        // Signal 0 sends nothing; it only asks whether the process exists
        // (EPERM: it does, under another user).
        // SAFETY: kill with signal 0 has no effect on any process.
        let answer = unsafe { libc::kill(pid, 0) };
        answer == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Where an export page ends: the last memory's `created_at` and id.
pub type ExportCursor = (String, i64);

impl Store {
    /// Starts an import: its memories are stored a chunk at a time with
    /// [`Store::insert_chunk`] and kept only once [`Store::finish_import`]
    /// marks it done. Until then each is listed under the import, so that
    /// [`Store::take_back_import`] (or the next start, should the process
    /// end first) deletes them again.
    pub async fn begin_import(&self) -> Result<ImportId, StoreError> {
        let pid = i64::from(std::process::id());
        self.call(move |conn| {
            conn.execute(
                "INSERT INTO imports (pid, started_at) VALUES (?1, ?2)",
                params![pid, fmt_ts(Utc::now())],
            )?;
            Ok(ImportId(conn.last_insert_rowid()))
        })
        .await
    }

    /// Stores `memories` for `import` in one transaction and returns how
    /// many; on any fault, none of them. Refused once the import is done
    /// or taken back.
    pub async fn insert_chunk(
        &self,
        import: ImportId,
        memories: Vec<NewMemory>,
    ) -> Result<usize, StoreError> {
        let valid = memories
            .into_iter()
            .map(ValidMemory::new)
            .collect::<Result<Vec<_>, _>>()?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let pending: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM imports WHERE id = ?1 AND done = 0)",
                [import.0],
                |row| row.get(0),
            )?;
            if !pending {
                return Err(invalid("the import was taken back before it was done"));
            }
            let mut projects = ProjectNames::load(&tx)?;
            let count = valid.len();
            for memory in valid {
                let id = insert_memory(&tx, &mut projects, memory)?.id;
                tx.prepare_cached(
                    "INSERT INTO import_rows (memory_id, import_id) VALUES (?1, ?2)",
                )?
                .execute(params![id, import.0])?;
            }
            tx.commit()?;
            Ok(count)
        })
        .await
    }

    /// Keeps every memory `import` stored: one small write marks it done
    /// (the moment it is kept), then its list is cleared a chunk per
    /// transaction so that other jobs go between. A list left uncleared
    /// is cleared at the next start.
    pub async fn finish_import(&self, import: ImportId) -> Result<(), StoreError> {
        let marked = self
            .call(move |conn| {
                Ok(conn.execute(
                    "UPDATE imports SET done = 1 WHERE id = ?1 AND done = 0",
                    [import.0],
                )?)
            })
            .await?;
        if marked == 0 {
            return Err(invalid("the import was taken back before it was done"));
        }
        let cleared = self
            .clear_import(
                import,
                "DELETE FROM import_rows WHERE memory_id IN
                 (SELECT memory_id FROM import_rows WHERE import_id = ?1 LIMIT ?2)",
            )
            .await;
        if let Err(error) = cleared {
            tracing::warn!(%error, "an import is kept, but its list of memories is cleared only at the next start");
        }
        Ok(())
    }

    /// Deletes every memory `import` stored, a chunk per transaction, then
    /// the import itself. A done import is not touched.
    pub async fn take_back_import(&self, import: ImportId) -> Result<(), StoreError> {
        self.clear_import(
            import,
            "DELETE FROM memories WHERE id IN
             (SELECT r.memory_id FROM import_rows r JOIN imports i ON i.id = r.import_id
              WHERE r.import_id = ?1 AND i.done = 0 LIMIT ?2)",
        )
        .await
    }

    /// Runs `delete` (given the import and [`DELETE_CHUNK`]) until it
    /// deletes nothing, then deletes the import if nothing of it is left.
    async fn clear_import(&self, import: ImportId, delete: &'static str) -> Result<(), StoreError> {
        let chunk = DELETE_CHUNK as i64;
        while self
            .call(move |conn| Ok(conn.execute(delete, params![import.0, chunk])?))
            .await?
            > 0
        {}
        self.call(move |conn| {
            conn.execute(
                "DELETE FROM imports WHERE id = ?1
                 AND NOT EXISTS (SELECT 1 FROM import_rows WHERE import_id = ?1)",
                [import.0],
            )?;
            Ok(())
        })
        .await
    }

    /// The imports under way, as the next start would see them, with how
    /// many memories each has stored (for tests).
    pub async fn pending_imports(&self) -> Result<Vec<(ImportId, usize)>, StoreError> {
        self.call(|conn| {
            let mut stmt = conn.prepare(
                "SELECT i.id, COUNT(r.memory_id) FROM imports i
                 LEFT JOIN import_rows r ON r.import_id = i.id
                 WHERE i.done = 0 GROUP BY i.id ORDER BY i.id",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok((ImportId(row.get(0)?), row.get::<_, i64>(1)? as usize))
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// Stores many memories in one transaction: all of them, or (on the
    /// first bad one, named by its index) none. Returns how many.
    pub async fn import_memories(&self, memories: Vec<NewMemory>) -> Result<usize, StoreError> {
        let numbered = memories.into_iter().enumerate().map(Ok::<_, StoreError>);
        self.import_each(numbered, |index, message| {
            invalid(format!("memory {index}: {message}"))
        })
        .await
    }

    /// Stores the memories `each` yields, read one at a time on the
    /// store's thread, in one transaction: all of them, or none. Each comes
    /// with a number that names it; a memory the store refuses becomes
    /// `refused(number, why)`, and an `Err` from `each` ends the import.
    pub async fn import_each<I, E>(
        &self,
        each: I,
        refused: fn(usize, String) -> E,
    ) -> Result<usize, E>
    where
        I: IntoIterator<Item = Result<(usize, NewMemory), E>> + Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let imported = self
            .call(move |conn| {
                let run = || -> Result<usize, E> {
                    let tx = conn.transaction().map_err(StoreError::from)?;
                    let mut projects = ProjectNames::load(&tx).map_err(StoreError::from)?;
                    let mut count = 0;
                    for item in each {
                        let (number, memory) = item?;
                        let memory = ValidMemory::new(memory).map_err(|e| match e {
                            StoreError::Invalid(why) => refused(number, why),
                            other => E::from(other),
                        })?;
                        insert_memory(&tx, &mut projects, memory)?;
                        count += 1;
                    }
                    tx.commit().map_err(StoreError::from)?;
                    Ok(count)
                };
                Ok(run())
            })
            .await;
        imported.map_err(E::from)?
    }
}
