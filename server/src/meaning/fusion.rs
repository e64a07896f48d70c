//! Reciprocal rank fusion: one ranking from the words' (FTS5's BM25) and
//! the meaning's (cosine similarity). Each list gives a memory
//! `1 / (K + rank)`; the sums order the result. Ranks, not scores, are
//! added, so BM25's unbounded scores and cosines in −1..1 need no common
//! scale, and an exact code or name found only by its words still counts.

use std::collections::HashMap;

use super::index::Near;

/// The fusion's constant: how much the first places outweigh the later
/// ones (60 is the value of the method's paper, and works across lists
/// of very different lengths).
pub const K: f32 = 60.0;

/// One memory in the fused ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct Fused {
    pub id: i64,
    pub score: f32,
    /// Its place among the memories found by words (0 is first).
    pub by_words: Option<usize>,
    /// Its cosine similarity to the request, when found by meaning.
    pub similarity: Option<f32>,
}

/// Fuses `by_words` (ids, best first) and `by_meaning` (best first).
pub fn fuse(by_words: &[i64], by_meaning: &[Near]) -> Vec<Fused> {
    let mut fused: HashMap<i64, Fused> = HashMap::new();
    fn entry(fused: &mut HashMap<i64, Fused>, id: i64) -> &mut Fused {
        fused.entry(id).or_insert_with(|| Fused {
            id,
            score: 0.0,
            by_words: None,
            similarity: None,
        })
    }
    for (rank, &id) in by_words.iter().enumerate() {
        let f = entry(&mut fused, id);
        if f.by_words.is_none() {
            f.by_words = Some(rank);
            f.score += 1.0 / (K + rank as f32 + 1.0);
        }
    }
    for (rank, near) in by_meaning.iter().enumerate() {
        let f = entry(&mut fused, near.id);
        if f.similarity.is_none() {
            f.similarity = Some(near.similarity);
            f.score += 1.0 / (K + rank as f32 + 1.0);
        }
    }
    let mut fused: Vec<Fused> = fused.into_values().collect();
    fused.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(
                b.similarity
                    .unwrap_or(-1.0)
                    .total_cmp(&a.similarity.unwrap_or(-1.0)),
            )
            .then(b.id.cmp(&a.id))
    });
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(id: i64, similarity: f32) -> Near {
        Near { id, similarity }
    }

    #[test]
    fn a_memory_high_in_both_lists_beats_one_first_in_only_one() {
        let fused = fuse(&[7, 3], &[near(3, 0.71), near(9, 0.74)]);
        let order: Vec<i64> = fused.iter().map(|f| f.id).collect();
        assert_eq!(order[0], 3, "{fused:?}");
        assert_eq!(fused[0].by_words, Some(1));
        assert_eq!(fused[0].similarity, Some(0.71));
        assert_eq!(fused.len(), 3);
    }

    #[test]
    fn an_exact_code_found_only_by_its_words_is_kept() {
        // "CLB-00482-7": no meaning to speak of, but the words match.
        let fused = fuse(&[42], &[near(1, 0.40), near(2, 0.38)]);
        let code = fused.iter().find(|f| f.id == 42).expect("kept");
        assert_eq!(code.by_words, Some(0));
        assert_eq!(code.similarity, None);
        // Ties in score go to the one with meaning behind it.
        assert_eq!(fused[0].id, 1);
    }

    #[test]
    fn scores_follow_the_reciprocal_ranks() {
        let fused = fuse(&[5], &[near(5, 0.9)]);
        let want = 2.0 / (K + 1.0);
        assert!((fused[0].score - want).abs() < 1e-6);
        assert!(fuse(&[], &[]).is_empty());
    }
}
