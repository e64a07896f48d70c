//! Memories in bulk: the export, read a page at a time so that a large
//! store is never held in memory nor the store's thread held for long;
//! and the import, one transaction over memories read one at a time, all
//! or nothing.

use rusqlite::params;

use super::memories::{insert_memory, memory_from_row, ValidMemory};
use super::projects::ProjectNames;
use super::{invalid, Memory, NewMemory, Store, StoreError};

/// How many memories one transaction of a taken-back import deletes.
const DELETE_CHUNK: usize = 5_000;

/// Where an export page ends: the last memory's `created_at` and id.
pub type ExportCursor = (String, i64);

impl Store {
    /// Up to `limit` memories after `after` (from the first when `None`),
    /// oldest first, and the cursor for the next page (`None` at the end).
    pub async fn export_page(
        &self,
        after: Option<ExportCursor>,
        limit: usize,
    ) -> Result<(Vec<Memory>, Option<ExportCursor>), StoreError> {
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        self.call(move |conn| {
            let (at, id) = after.unwrap_or_default();
            let mut stmt = conn.prepare_cached(
                "SELECT id, content, project, tags, created_at FROM memories
                 WHERE (created_at, id) > (?1, ?2)
                 ORDER BY created_at, id LIMIT ?3",
            )?;
            let rows = stmt.query_map(params![at, id, limit], memory_from_row)?;
            let page = rows.collect::<Result<Vec<_>, _>>()?;
            let next = match page.last() {
                Some(last) if page.len() as i64 == limit => {
                    Some((last.created_at.clone(), last.id))
                }
                _ => None,
            };
            Ok((page, next))
        })
        .await
    }

    /// Every memory, oldest first (for tests and small exports).
    pub async fn all_memories(&self) -> Result<Vec<Memory>, StoreError> {
        let mut all = Vec::new();
        let mut after = None;
        loop {
            let (page, next) = self.export_page(after, 1000).await?;
            all.extend(page);
            match next {
                Some(next) => after = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// Stores `memories` in one transaction (a chunk of an import) and
    /// returns their ids; on any fault, none of them.
    pub async fn insert_chunk(&self, memories: Vec<NewMemory>) -> Result<Vec<i64>, StoreError> {
        let valid = memories
            .into_iter()
            .map(ValidMemory::new)
            .collect::<Result<Vec<_>, _>>()?;
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let mut projects = ProjectNames::load(&tx)?;
            let mut ids = Vec::with_capacity(valid.len());
            for memory in valid {
                ids.push(insert_memory(&tx, &mut projects, memory)?.id);
            }
            tx.commit()?;
            Ok(ids)
        })
        .await
    }

    /// Deletes the memories `ids` (an import that failed part way takes
    /// back what it stored), a chunk of them per transaction.
    pub async fn delete_memories(&self, ids: Vec<i64>) -> Result<(), StoreError> {
        for chunk in ids.chunks(DELETE_CHUNK) {
            let chunk = chunk.to_vec();
            self.call(move |conn| {
                let tx = conn.transaction()?;
                {
                    let mut stmt = tx.prepare_cached("DELETE FROM memories WHERE id = ?1")?;
                    for id in chunk {
                        stmt.execute([id])?;
                    }
                }
                tx.commit()?;
                Ok(())
            })
            .await?;
        }
        Ok(())
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
