//! The words the memories hold, as the search index keeps them: what a
//! misspelt word of a question ("dentsit") was meant to be.

use rusqlite::params;

use super::{Store, StoreError};

/// Words the index holds at most are read for one word: all those with
/// its first letter and about its length.
const MAX_CANDIDATES: usize = 5_000;

impl Store {
    /// For each of `words`, the word the memories hold that it is one slip
    /// from (a letter wrong, missing, extra, or two swapped: one slip
    /// only, since "passport" is two from "password"), the most used first; `None` when the
    /// memories hold the word itself, or nothing near it. Words of fewer
    /// than 5 letters are not corrected ("cat" is one slip from too many).
    /// The index keeps stems ("appointment" as "appoint"), so a word found
    /// here is matched as a prefix.
    pub async fn words_like(&self, words: Vec<String>) -> Result<Vec<Option<String>>, StoreError> {
        self.call(move |conn| {
            conn.execute_batch(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocabulary \
                 USING fts5vocab(main, memories_fts, row);",
            )?;
            let mut nearest = Vec::with_capacity(words.len());
            let mut terms = conn.prepare_cached(
                "SELECT term FROM temp.memories_vocabulary \
                 WHERE term >= ?1 AND term < ?2 AND length(term) BETWEEN ?3 AND ?4 \
                 ORDER BY doc DESC LIMIT ?5",
            )?;
            for word in &words {
                let word = word.to_lowercase();
                let len = word.chars().count();
                let Some(first) = word.chars().next().filter(|_| len >= 5) else {
                    nearest.push(None);
                    continue;
                };
                let allowed = 1;
                let next = char::from_u32(first as u32 + 1).unwrap_or(first);
                let candidates: Vec<String> = terms
                    .query_map(
                        params![
                            first.to_string(),
                            next.to_string(),
                            (len - allowed - 3) as i64,
                            (len + allowed) as i64,
                            MAX_CANDIDATES as i64
                        ],
                        |row| row.get(0),
                    )?
                    .collect::<Result<_, _>>()?;
                // A stem is a prefix of the word as written ("appoint").
                let held = candidates
                    .iter()
                    .any(|t| t.chars().count() >= 4 && word.starts_with(t.as_str()));
                let like = (!held)
                    .then(|| {
                        candidates.into_iter().find(|t| {
                            strsim::damerau_levenshtein(&word, t) <= allowed
                                // "dentsit" is one slip from the stem "dentist".
                                || (t.chars().count() >= 4
                                    && strsim::damerau_levenshtein(
                                        &word.chars().take(t.chars().count()).collect::<String>(),
                                        t,
                                    ) <= allowed
                                    && len - t.chars().count() <= 3)
                        })
                    })
                    .flatten();
                nearest.push(like);
            }
            Ok(nearest)
        })
        .await
    }
}

/// A word held by more than this share of the memories says little about
/// which one is meant (its BM25 weight is near nothing), and ranking every
/// memory that holds it is most of a search's time at size.
pub const COMMON_SHARE: f64 = 0.05;

impl Store {
    /// The words of `text` that single out memories: those the index
    /// holds (by their stem: the longest prefix of the word it holds) in
    /// at most [`COMMON_SHARE`] of the memories, or in under 50; words it
    /// does not hold stay (a code, a name, a slip). When every word is
    /// common, the least common one. Read from the index's own counts, so
    /// no list of common words is kept.
    pub async fn telling_words(&self, text: &str) -> Result<String, StoreError> {
        let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        self.call(move |conn| {
            conn.execute_batch(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocabulary \
                 USING fts5vocab(main, memories_fts, row);",
            )?;
            let total: i64 = conn.query_row("SELECT COUNT(*) FROM memories", [], |r| r.get(0))?;
            let limit = ((total as f64) * COMMON_SHARE).max(50.0) as i64;
            let mut doc =
                conn.prepare_cached("SELECT doc FROM temp.memories_vocabulary WHERE term = ?1")?;
            let mut counted = Vec::with_capacity(words.len());
            for word in &words {
                let plain: String = word
                    .to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric())
                    .collect();
                let lengths: Vec<usize> = plain.char_indices().map(|(i, _)| i).skip(3).collect();
                let mut held = None;
                for end in lengths.into_iter().chain([plain.len()]).rev() {
                    let found: Option<i64> = doc
                        .query_row([&plain[..end]], |r| r.get(0))
                        .map(Some)
                        .or_else(|e| match e {
                            rusqlite::Error::QueryReturnedNoRows => Ok(None),
                            e => Err(e),
                        })?;
                    if found.is_some() {
                        held = found;
                        break;
                    }
                }
                counted.push((word.clone(), held));
            }
            let telling: Vec<&str> = counted
                .iter()
                .filter(|(_, held)| held.is_none_or(|n| n <= limit))
                .map(|(w, _)| w.as_str())
                .collect();
            if !telling.is_empty() {
                return Ok(telling.join(" "));
            }
            Ok(counted
                .iter()
                .min_by_key(|(_, held)| held.unwrap_or(0))
                .map(|(w, _)| w.clone())
                .unwrap_or_default())
        })
        .await
    }
}

#[cfg(test)]
mod telling_tests {
    use crate::store::{NewMemory, Store};

    #[tokio::test]
    async fn words_most_memories_hold_are_left_out_and_rare_ones_kept() {
        let store = Store::open_in_memory().unwrap();
        for i in 0..120 {
            let content = if i == 7 {
                "The painter agreed the price for the hall".to_string()
            } else {
                format!("The note number {i} for the day")
            };
            store
                .add_memory(NewMemory {
                    content,
                    ..NewMemory::default()
                })
                .await
                .unwrap();
        }
        let telling = store
            .telling_words("what did the painter say about the hall CLB-004")
            .await
            .unwrap();
        assert_eq!(telling, "what did painter say about hall CLB-004");
        // Every word common: the least common one stays.
        assert_eq!(store.telling_words("the note").await.unwrap(), "note");
        assert_eq!(store.telling_words("").await.unwrap(), "");
    }
}
