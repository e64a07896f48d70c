//! The memories' vectors in memory, for a brute-force scan: one byte a
//! dimension (each vector scaled so its largest part is ±127), so 100,000
//! memories take about 38 MB and a scan is a run of small integer dot
//! products. The database keeps the full vectors; this is rebuilt from it
//! at start and kept in step as vectors are written.
//!
//! A brute-force scan was measured against a vector index
//! (`bench_meaning`); at the sizes a person's memories reach it is fast
//! enough and needs no second copy of the data to keep in step.

use std::collections::{BinaryHeap, HashMap};

use super::DIMENSIONS;

/// One memory's vector, as scanned.
#[derive(Clone, Debug, PartialEq)]
struct Packed {
    parts: Vec<i8>,
    /// What one step of `parts` is worth.
    scale: f32,
}

impl Packed {
    fn of(vector: &[f32]) -> Self {
        let largest = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
        Self {
            parts: vector
                .iter()
                .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
                .collect(),
            scale,
        }
    }
}

/// A query, packed once for a scan.
pub struct Query(Packed);

impl Query {
    pub fn new(vector: &[f32]) -> Self {
        Self(Packed::of(vector))
    }
}

/// The vectors of the memories, by memory id.
#[derive(Default)]
pub struct VectorIndex {
    ids: Vec<i64>,
    parts: Vec<i8>,
    scales: Vec<f32>,
    slot_of: HashMap<i64, usize>,
}

/// One memory found by meaning: its id and its cosine similarity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Near {
    pub id: i64,
    pub similarity: f32,
}

impl VectorIndex {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn contains(&self, id: i64) -> bool {
        self.slot_of.contains_key(&id)
    }

    /// Sets memory `id`'s vector (a unit vector of [`DIMENSIONS`]). A
    /// vector of another length is not kept.
    pub fn put(&mut self, id: i64, vector: &[f32]) {
        if vector.len() != DIMENSIONS {
            return;
        }
        let packed = Packed::of(vector);
        match self.slot_of.get(&id) {
            Some(&slot) => {
                self.parts[slot * DIMENSIONS..(slot + 1) * DIMENSIONS]
                    .copy_from_slice(&packed.parts);
                self.scales[slot] = packed.scale;
            }
            None => {
                self.slot_of.insert(id, self.ids.len());
                self.ids.push(id);
                self.parts.extend_from_slice(&packed.parts);
                self.scales.push(packed.scale);
            }
        }
    }

    /// Forgets memory `id` (the last slot moves into its place).
    pub fn remove(&mut self, id: i64) {
        let Some(slot) = self.slot_of.remove(&id) else {
            return;
        };
        let last = self.ids.len() - 1;
        if slot != last {
            let moved = self.ids[last];
            self.ids[slot] = moved;
            self.scales[slot] = self.scales[last];
            self.parts.copy_within(
                last * DIMENSIONS..(last + 1) * DIMENSIONS,
                slot * DIMENSIONS,
            );
            self.slot_of.insert(moved, slot);
        }
        self.ids.pop();
        self.scales.pop();
        self.parts.truncate(last * DIMENSIONS);
    }

    /// Memory `id`'s cosine similarity to `query`, if it has a vector.
    pub fn similarity_of(&self, id: i64, query: &Query) -> Option<f32> {
        let slot = *self.slot_of.get(&id)?;
        Some(self.score(slot, query))
    }

    fn score(&self, slot: usize, query: &Query) -> f32 {
        let parts = &self.parts[slot * DIMENSIONS..(slot + 1) * DIMENSIONS];
        let dot: i32 = parts
            .iter()
            .zip(&query.0.parts)
            .map(|(&a, &b)| i32::from(a) * i32::from(b))
            .sum();
        dot as f32 * self.scales[slot] * query.0.scale
    }

    /// The `limit` memories nearest `query`, nearest first; only those
    /// `allowed` passes when it is given (a project or dates the request
    /// named).
    pub fn nearest(&self, query: &Query, limit: usize, allowed: Option<&[i64]>) -> Vec<Near> {
        let score = |slot: usize| self.score(slot, query);
        // A min-heap of the best `limit` so far.
        let mut best: BinaryHeap<std::cmp::Reverse<(Ordered, i64)>> = BinaryHeap::new();
        let mut consider = |slot: usize| {
            let near = (Ordered(score(slot)), self.ids[slot]);
            if best.len() < limit {
                best.push(std::cmp::Reverse(near));
            } else if best.peek().is_some_and(|worst| worst.0 < near) {
                best.pop();
                best.push(std::cmp::Reverse(near));
            }
        };
        match allowed {
            Some(ids) => ids
                .iter()
                .filter_map(|id| self.slot_of.get(id))
                .for_each(|&slot| consider(slot)),
            None => (0..self.ids.len()).for_each(&mut consider),
        }
        let mut found: Vec<Near> = best
            .into_iter()
            .map(|std::cmp::Reverse((Ordered(similarity), id))| Near { id, similarity })
            .collect();
        found.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then(b.id.cmp(&a.id)));
        found
    }
}

/// An f32 ordered totally (a similarity is never NaN, but a heap needs Ord).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ordered(f32);
impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit vector leaning on dimensions `a` and `b`.
    fn unit(a: usize, b: usize, lean: f32) -> Vec<f32> {
        let mut v = vec![0.0; DIMENSIONS];
        v[a] = lean;
        v[b] = (1.0 - lean * lean).sqrt();
        v
    }

    #[test]
    fn the_nearest_come_first_with_their_cosine() {
        let mut index = VectorIndex::default();
        index.put(1, &unit(0, 1, 0.9));
        index.put(2, &unit(0, 1, 0.2));
        index.put(3, &unit(2, 3, 1.0));
        let found = index.nearest(&Query::new(&unit(0, 5, 1.0)), 2, None);
        assert_eq!(found.iter().map(|n| n.id).collect::<Vec<_>>(), [1, 2]);
        assert!((found[0].similarity - 0.9).abs() < 0.01, "{found:?}");
        assert!((found[1].similarity - 0.2).abs() < 0.01, "{found:?}");
        let q = Query::new(&unit(0, 5, 1.0));
        assert!((index.similarity_of(3, &q).unwrap()).abs() < 0.01);
        assert_eq!(index.similarity_of(4, &q), None);
    }

    #[test]
    fn a_filter_keeps_only_the_memories_it_allows() {
        let mut index = VectorIndex::default();
        index.put(1, &unit(0, 1, 0.9));
        index.put(2, &unit(0, 1, 0.2));
        let found = index.nearest(&Query::new(&unit(0, 5, 1.0)), 5, Some(&[2, 99]));
        assert_eq!(found.iter().map(|n| n.id).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn a_vector_replaced_or_removed_is_not_found_as_it_was() {
        let mut index = VectorIndex::default();
        index.put(1, &unit(0, 1, 0.9));
        index.put(2, &unit(2, 3, 0.9));
        index.put(3, &unit(4, 5, 0.9));
        index.put(1, &unit(6, 7, 1.0));
        index.remove(2);
        assert_eq!(index.len(), 2);
        assert!(!index.contains(2));
        let q = Query::new(&unit(0, 5, 1.0));
        let found = index.nearest(&q, 5, None);
        assert!(found.iter().all(|n| n.id != 1 || n.similarity.abs() < 0.01));
        // The last slot moved into the removed one and is still found.
        let found = index.nearest(&Query::new(&unit(4, 9, 1.0)), 1, None);
        assert_eq!(found[0].id, 3);
        index.remove(42);
        assert_eq!(index.len(), 2);
    }

    #[test]
    fn a_vector_of_the_wrong_length_is_not_kept() {
        let mut index = VectorIndex::default();
        index.put(1, &[1.0, 0.0]);
        assert!(index.is_empty());
    }
}
