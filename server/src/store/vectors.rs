//! The memories' vectors (finding by meaning, see `crate::meaning`): one
//! row a memory, removed with it, and removed when its content changes
//! (a trigger), so a vector never speaks for words it was not made from.
//! The labelled examples' vectors are kept too, under a key naming the
//! model and the examples, so a restart does not embed them again.

use rusqlite::{params, OptionalExtension};

use super::memories::{memory_by_id, Wanted};
use super::{Memory, MemoryQuery, Store, StoreError};

/// Vectors read from the database at once when the index is built.
const LOAD_PAGE: usize = 4096;

/// A vector as stored: little-endian f32s.
fn to_blob(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// A memory's vector to store: made from `content`, kept only if the
/// memory still says that.
pub struct MemoryVector {
    pub id: i64,
    pub content: String,
    pub vector: Vec<f32>,
}

impl Store {
    /// Up to `limit` memories with no vector from `model`, oldest first.
    pub async fn memories_without_vectors(
        &self,
        model: &str,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let model = model.to_string();
        self.call(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT m.id, m.content FROM memories m
                 LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.model = ?1
                 WHERE v.memory_id IS NULL ORDER BY m.id LIMIT ?2",
            )?;
            let rows =
                stmt.query_map(params![model, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// Stores vectors, each only where its memory still holds the content
    /// it was made from. Returns the ids stored.
    pub async fn put_vectors(
        &self,
        model: &str,
        vectors: Vec<MemoryVector>,
    ) -> Result<Vec<i64>, StoreError> {
        let model = model.to_string();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let mut stored = Vec::new();
            {
                let mut stmt = tx.prepare_cached(
                    "INSERT OR REPLACE INTO memory_vectors (memory_id, model, vector)
                     SELECT id, ?2, ?3 FROM memories WHERE id = ?1 AND content = ?4",
                )?;
                for v in &vectors {
                    if stmt.execute(params![v.id, model, to_blob(&v.vector), v.content])? == 1 {
                        stored.push(v.id);
                    }
                }
            }
            tx.commit()?;
            Ok(stored)
        })
        .await
    }

    /// Every vector from `model`, a page at a time (ids above `after`).
    pub async fn vectors_after(
        &self,
        model: &str,
        after: i64,
    ) -> Result<Vec<(i64, Vec<f32>)>, StoreError> {
        let model = model.to_string();
        self.call(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT memory_id, vector FROM memory_vectors
                 WHERE model = ?1 AND memory_id > ?2 ORDER BY memory_id LIMIT ?3",
            )?;
            let rows = stmt.query_map(params![model, after, LOAD_PAGE as i64], |r| {
                Ok((r.get::<_, i64>(0)?, from_blob(&r.get::<_, Vec<u8>>(1)?)))
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// Memories with a vector from `model`, and all memories.
    pub async fn vector_counts(&self, model: &str) -> Result<(u64, u64), StoreError> {
        let model = model.to_string();
        self.call(move |conn| {
            let embedded: i64 = conn.query_row(
                "SELECT COUNT(*) FROM memory_vectors WHERE model = ?1",
                [model],
                |r| r.get(0),
            )?;
            let total: i64 = conn.query_row("SELECT COUNT(*) FROM memories", [], |r| r.get(0))?;
            Ok((embedded.max(0) as u64, total.max(0) as u64))
        })
        .await
    }

    /// The ids of the memories a search's project and dates allow, or
    /// `None` when it names neither (every memory is allowed).
    pub async fn memory_ids_within(
        &self,
        query: &MemoryQuery,
    ) -> Result<Option<Vec<i64>>, StoreError> {
        let wanted = Wanted::of(query)?;
        if wanted.is_everything() {
            return Ok(None);
        }
        self.call(move |conn| {
            let Some(filter) = wanted.filter(conn)? else {
                return Ok(Some(Vec::new()));
            };
            let mut stmt = conn.prepare_cached(
                "SELECT id FROM memories
                 WHERE (?1 IS NULL OR project = ?1)
                   AND (?2 IS NULL OR created_at >= ?2)
                   AND (?3 IS NULL OR created_at < ?3)",
            )?;
            let rows = stmt
                .query_map(params![filter.project, filter.since, filter.until], |r| {
                    r.get(0)
                })?;
            Ok(Some(rows.collect::<Result<Vec<_>, _>>()?))
        })
        .await
    }

    /// The memories of `ids` that still exist, in that order.
    pub async fn memories_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Memory>, StoreError> {
        self.call(move |conn| {
            let mut found = Vec::with_capacity(ids.len());
            for id in ids {
                if let Some(memory) = memory_by_id(conn, id)? {
                    found.push(memory);
                }
            }
            Ok(found)
        })
        .await
    }

    /// The labelled examples' vectors kept under `key`, if any.
    pub async fn example_vectors(&self, key: &str) -> Result<Option<Vec<Vec<f32>>>, StoreError> {
        let key = key.to_string();
        self.call(move |conn| {
            let blob: Option<Vec<u8>> = conn
                .query_row(
                    "SELECT vectors FROM example_vectors WHERE key = ?1",
                    [key],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(blob.map(|blob| {
                let flat = from_blob(&blob);
                flat.chunks(crate::meaning::DIMENSIONS)
                    .map(<[f32]>::to_vec)
                    .collect()
            }))
        })
        .await
    }

    /// Keeps the vectors of one set of labelled lines (the example
    /// requests, the example answers) under `key`, which names its set
    /// as `{set}/…`: the set's vectors under any other key (an older file
    /// or model) are removed, and so are keys of no set (as kept before
    /// the sets had names), while another set's stay.
    pub async fn keep_example_vectors(
        &self,
        key: &str,
        vectors: &[Vec<f32>],
    ) -> Result<(), StoreError> {
        let set = match key.split_once('/') {
            Some((set, _)) => format!("{set}/"),
            None => key.to_string(),
        };
        let key = key.to_string();
        let blob: Vec<u8> = vectors.iter().flat_map(|v| to_blob(v)).collect();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            tx.execute(
                "DELETE FROM example_vectors WHERE substr(key, 1, length(?1)) = ?1 OR instr(key, '/') = 0",
                [&set],
            )?;
            tx.execute(
                "INSERT INTO example_vectors (key, vectors) VALUES (?1, ?2)",
                params![key, blob],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryChange, NewMemory};

    fn new(content: &str, project: Option<&str>) -> NewMemory {
        NewMemory {
            content: content.into(),
            project: project.map(str::to_string),
            ..NewMemory::default()
        }
    }

    #[tokio::test]
    async fn a_vector_is_kept_for_the_content_it_was_made_from_and_goes_when_it_changes() {
        let store = Store::open_in_memory().unwrap();
        let a = store
            .add_memory(new("Painter agreed £2,350", None))
            .await
            .unwrap();
        let b = store
            .add_memory(new("Yaris takes 0W-20", None))
            .await
            .unwrap();
        let missing = store.memories_without_vectors("m", 10).await.unwrap();
        assert_eq!(
            missing.iter().map(|m| m.0).collect::<Vec<_>>(),
            [a.id, b.id]
        );
        let stored = store
            .put_vectors(
                "m",
                vec![
                    MemoryVector {
                        id: a.id,
                        content: a.content.clone(),
                        vector: vec![0.5; 4],
                    },
                    // Made from words the memory no longer says: not kept.
                    MemoryVector {
                        id: b.id,
                        content: "old words".into(),
                        vector: vec![0.5; 4],
                    },
                ],
            )
            .await
            .unwrap();
        assert_eq!(stored, [a.id]);
        assert_eq!(store.vector_counts("m").await.unwrap(), (1, 2));
        assert_eq!(
            store.vectors_after("m", 0).await.unwrap(),
            [(a.id, vec![0.5; 4])]
        );
        // Another model's vectors are not these.
        assert_eq!(store.vector_counts("other").await.unwrap(), (0, 2));

        let change = MemoryChange {
            content: Some("Painter agreed £2,400".into()),
            ..MemoryChange::default()
        };
        store.update_memory(a.id, change).await.unwrap();
        assert_eq!(
            store.vector_counts("m").await.unwrap(),
            (0, 2),
            "an edit drops the vector"
        );
        store
            .put_vectors(
                "m",
                vec![MemoryVector {
                    id: b.id,
                    content: b.content.clone(),
                    vector: vec![1.0; 4],
                }],
            )
            .await
            .unwrap();
        store.delete_memory(b.id).await.unwrap();
        assert_eq!(
            store.vector_counts("m").await.unwrap(),
            (0, 1),
            "a delete drops it"
        );
    }

    #[tokio::test]
    async fn ids_within_a_project_or_none_when_nothing_narrows() {
        let store = Store::open_in_memory().unwrap();
        let a = store.add_memory(new("one", Some("Garden"))).await.unwrap();
        store.add_memory(new("two", None)).await.unwrap();
        let all = MemoryQuery::default();
        assert_eq!(store.memory_ids_within(&all).await.unwrap(), None);
        let garden = MemoryQuery {
            project: Some("garden".into()),
            ..MemoryQuery::default()
        };
        assert_eq!(
            store.memory_ids_within(&garden).await.unwrap(),
            Some(vec![a.id])
        );
        let unknown = MemoryQuery {
            project: Some("Nope".into()),
            ..MemoryQuery::default()
        };
        assert_eq!(
            store.memory_ids_within(&unknown).await.unwrap(),
            Some(vec![])
        );
    }

    #[tokio::test]
    async fn each_set_of_example_vectors_is_kept_under_one_key_beside_the_others() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(store.example_vectors("requests/k1").await.unwrap(), None);
        let dims = crate::meaning::DIMENSIONS;
        let vectors = vec![vec![0.25; dims], vec![-0.5; dims]];
        store
            .keep_example_vectors("requests/k1", &vectors)
            .await
            .unwrap();
        // Another set is kept beside it: both are read at every start.
        store
            .keep_example_vectors("answers/k9", &vectors[..1])
            .await
            .unwrap();
        assert_eq!(
            store.example_vectors("requests/k1").await.unwrap(),
            Some(vectors.clone())
        );
        assert_eq!(
            store.example_vectors("answers/k9").await.unwrap(),
            Some(vectors[..1].to_vec())
        );
        // A new file of the same set replaces its old vectors only.
        store
            .keep_example_vectors("requests/k2", &vectors[..1])
            .await
            .unwrap();
        assert_eq!(store.example_vectors("requests/k1").await.unwrap(), None);
        assert!(store.example_vectors("answers/k9").await.unwrap().is_some());
    }

    #[tokio::test]
    async fn a_write_to_the_memories_wakes_whoever_waits_for_one() {
        let store = Store::open_in_memory().unwrap();
        let changed = store.memories_changed();
        let woken = changed.notified();
        store.add_memory(new("wake up", None)).await.unwrap();
        // A stored permit or a waiting waiter: either way it resolves.
        tokio::time::timeout(std::time::Duration::from_secs(5), woken)
            .await
            .expect("the write woke the waiter");
    }
}
