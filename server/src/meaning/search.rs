//! Hybrid search: the memories found by their words (FTS5, BM25) and by
//! their meaning (cosine similarity to the request), fused by reciprocal
//! rank ([`super::fusion`]) within the project and dates the request
//! names. With finding by meaning off or busy, the words alone answer.

use super::fusion::fuse;
use super::Meaning;
use crate::store::{Memory, MemoryQuery, Store, StoreError, MAX_SEARCH_LIMIT};

/// Memories found by meaning considered for the fusion.
const CANDIDATES: usize = 50;

/// The cosine similarity from which a memory speaks to a request. Measured
/// in `tests/meaning.rs`: answers score 0.37–0.70 against their questions
/// ("what does the bathroom tiling cost" 0.37, the painter 0.61, the
/// Yaris's oil 0.70), a code asked alone 0.43; a question sharing nothing
/// with the memories stays under 0.3.
pub const FOUND: f32 = 0.35;

/// How far below the best a memory may be and still speak to the request.
pub const NEAR_BEST: f32 = 0.08;

/// A similarity from which a memory answers even a request with no word
/// of the user's life in it ("wich oil does the yaris take agian?", 0.70),
/// and which a general question sharing a word with a memory does not
/// reach ("What is the capital of Australia?" against an Australia trip,
/// 0.44).
pub const STRONG: f32 = 0.5;

/// A similarity from which a memory names the thing asked about in its
/// own words, for the answer step: the painter's price (0.61), the
/// solicitor (0.63), the Yaris's oil (0.70); a near miss of another thing
/// of the same kind (another insurance, another person's number) stays
/// under it in the project's truth evaluation.
pub const VOUCHED: f32 = 0.6;

/// How far the nearest memory in meaning must lead the next to be the
/// thing asked about in other words (the answer step's clearly nearest
/// memory); two memories closer than this are two things of one kind to
/// ask between (two events a reminder may be set against). Measured on
/// fresh set 16 (session 27): "kari's concert" was 0.64 to the gig and
/// 0.48 to the next; "clinic bank account number" 0.76 to
/// the clinic's account and 0.50 to the next; two memories of one kind
/// ("the nurse's number", two nurses) lie within 0.1 of each other.
pub const CLEAR_LEAD: f32 = 0.12;

/// A memory found, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub memory: Memory,
    /// Its cosine similarity to the request, when found by meaning.
    pub similarity: Option<f32>,
    /// Its place among the memories found by words (0 is first).
    pub by_words: Option<usize>,
}

/// What a hybrid search found, best first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Findings {
    pub found: Vec<Found>,
    /// False when the words alone were searched (no model, or it was busy).
    pub by_meaning: bool,
    /// The request's vector, when it was embedded (to route it by).
    pub vector: Option<Vec<f32>>,
}

impl Findings {
    /// The memories that speak to the request: similar from [`FOUND`],
    /// and within [`NEAR_BEST`] of the best one (the painter's price, not
    /// every memory about the hall too).
    pub fn speaking(&self) -> Vec<&Memory> {
        let Some(best) = self.best_similarity().filter(|b| *b >= FOUND) else {
            return Vec::new();
        };
        let mut speaking: Vec<&Found> = self
            .found
            .iter()
            .filter(|f| {
                f.similarity
                    .is_some_and(|s| s >= FOUND && s >= best - NEAR_BEST)
            })
            .collect();
        speaking.sort_by(|a, b| {
            b.similarity
                .unwrap_or(0.0)
                .total_cmp(&a.similarity.unwrap_or(0.0))
        });
        speaking.into_iter().map(|f| &f.memory).collect()
    }

    /// The best cosine similarity found, if any was found by meaning.
    pub fn best_similarity(&self) -> Option<f32> {
        self.found
            .iter()
            .filter_map(|f| f.similarity)
            .max_by(f32::total_cmp)
    }
}

impl Meaning {
    /// The memories about `query.query`, by words and meaning, within its
    /// project and dates; at most `query.limit` (10 by default).
    pub async fn search(&self, store: &Store, query: MemoryQuery) -> Result<Findings, StoreError> {
        let limit = query
            .limit
            .unwrap_or(crate::store::DEFAULT_SEARCH_LIMIT)
            .min(MAX_SEARCH_LIMIT);
        // The words that single out memories: ranking every memory that
        // holds "the" or "what" is most of a search's time at size, and
        // says nothing the meaning does not.
        let telling = store.telling_words(&query.query).await?;
        let by_words = if telling.trim().is_empty() && !query.query.trim().is_empty() {
            Vec::new()
        } else {
            store
                .search_memories(MemoryQuery {
                    query: telling,
                    limit: Some(MAX_SEARCH_LIMIT),
                    ..query.clone()
                })
                .await?
        };
        let vector = if self.is_on() && !query.query.trim().is_empty() {
            match self.embed_one(&query.query).await {
                Ok(vector) => Some(vector),
                Err(error) => {
                    tracing::info!(%error, "searched by words only");
                    None
                }
            }
        } else {
            None
        };
        let Some(vector) = vector else {
            let found = by_words
                .into_iter()
                .take(limit)
                .enumerate()
                .map(|(rank, memory)| Found {
                    memory,
                    similarity: None,
                    by_words: Some(rank),
                })
                .collect();
            return Ok(Findings {
                found,
                by_meaning: false,
                vector: None,
            });
        };
        // Just after a start, the model loads and the memories kept
        // before are filled in: a question then waits a little for it
        // rather than miss what it would find.
        self.settled(super::START_WAIT).await;
        let allowed = store.memory_ids_within(&query).await?;
        let near = self.nearest(&vector, CANDIDATES, allowed.as_deref());
        let word_ids: Vec<i64> = by_words.iter().map(|m| m.id).collect();
        let fused: Vec<_> = fuse(&word_ids, &near).into_iter().take(limit).collect();
        let unread: Vec<i64> = fused
            .iter()
            .filter(|f| f.by_words.is_none())
            .map(|f| f.id)
            .collect();
        let mut memories = store.memories_by_ids(unread).await?;
        memories.extend(by_words);
        let found = fused
            .into_iter()
            .filter_map(|f| {
                // A memory deleted since its vector was read is not found.
                let memory = memories.iter().find(|m| m.id == f.id)?.clone();
                Some(Found {
                    memory,
                    // Found by its words only: how near it is all the same.
                    similarity: f.similarity.or_else(|| self.similarity_of(f.id, &vector)),
                    by_words: f.by_words,
                })
            })
            .collect();
        Ok(Findings {
            found,
            by_meaning: true,
            vector: Some(vector),
        })
    }
}
