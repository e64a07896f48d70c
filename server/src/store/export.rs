//! Memories read out in bulk, a page at a time by key (the last memory's
//! `created_at` and id), so that a large store is never held in memory
//! nor the store's thread held for long.

use rusqlite::params;

use super::memories::memory_from_row;
use super::{ExportCursor, Memory, Store, StoreError};

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

    /// Every memory's content, oldest first.
    #[cfg(test)]
    pub async fn all_contents(&self) -> Result<Vec<String>, StoreError> {
        let all = self.all_memories().await?;
        Ok(all.into_iter().map(|m| m.content).collect())
    }
}
