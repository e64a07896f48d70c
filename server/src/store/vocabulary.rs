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
