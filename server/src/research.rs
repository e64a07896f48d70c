//! The research budget of one reply: a deadline that waiting for the user
//! moves, an iteration cap, and the no-progress rule. When any runs out the
//! reply goes to the reserved answer (one last turn without tools).

use std::collections::HashSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::models::note::StopReason;

/// Model turns in a row without progress before research ends.
pub const MAX_TURNS_WITHOUT_PROGRESS: u32 = 3;

/// Why research ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    Deadline,
    Iterations,
    NoProgress,
}

#[derive(Debug)]
pub struct Research {
    deadline: Instant,
    iterations: u32,
    max_iterations: u32,
    turns_without_progress: u32,
    seen: HashSet<String>,
}

impl Research {
    pub fn new(budget: Duration, max_iterations: u32) -> Self {
        Self {
            deadline: Instant::now() + budget,
            iterations: 0,
            max_iterations,
            turns_without_progress: 0,
            seen: HashSet::new(),
        }
    }

    /// Whether research is over, and why.
    pub fn exhausted(&self) -> Option<Exhausted> {
        if Instant::now() >= self.deadline {
            Some(Exhausted::Deadline)
        } else if self.iterations >= self.max_iterations {
            Some(Exhausted::Iterations)
        } else if self.turns_without_progress >= MAX_TURNS_WITHOUT_PROGRESS {
            Some(Exhausted::NoProgress)
        } else {
            None
        }
    }

    /// Time spent waiting for the user does not count against research.
    pub fn extend(&mut self, waited: Duration) {
        self.deadline += waited;
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Records facts a tool result brought; true if any was new.
    pub fn learn<I: IntoIterator<Item = String>>(&mut self, facts: I) -> bool {
        let mut new = false;
        for fact in facts {
            new |= self.seen.insert(fact);
        }
        new
    }

    /// Ends a turn that called tools.
    pub fn finish_turn(&mut self, progress: bool) {
        self.iterations += 1;
        if progress {
            self.turns_without_progress = 0;
        } else {
            self.turns_without_progress += 1;
        }
    }
}

/// Research as it stands, to carry across a restart: the time left
/// rather than the deadline (an instant means nothing to another process).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedResearch {
    pub left_ms: u64,
    pub iterations: u32,
    pub max_iterations: u32,
    pub turns_without_progress: u32,
    pub seen: Vec<String>,
}

impl Research {
    pub fn save(&self) -> SavedResearch {
        let mut seen: Vec<String> = self.seen.iter().cloned().collect();
        seen.sort();
        SavedResearch {
            left_ms: self
                .deadline
                .saturating_duration_since(Instant::now())
                .as_millis() as u64,
            iterations: self.iterations,
            max_iterations: self.max_iterations,
            turns_without_progress: self.turns_without_progress,
            seen,
        }
    }

    /// Research resumed now with the time it had left.
    pub fn restore(saved: SavedResearch) -> Self {
        Self {
            deadline: Instant::now() + Duration::from_millis(saved.left_ms),
            iterations: saved.iterations,
            max_iterations: saved.max_iterations,
            turns_without_progress: saved.turns_without_progress,
            seen: saved.seen.into_iter().collect(),
        }
    }
}

impl Exhausted {
    /// Why the model is told to answer now.
    pub fn reason(self) -> StopReason {
        match self {
            Exhausted::Deadline => StopReason::Deadline,
            Exhausted::Iterations => StopReason::CallsUsed,
            Exhausted::NoProgress => StopReason::NoProgress,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_deadline_moves_by_the_time_waited() {
        let mut research = Research::new(Duration::from_secs(300), 12);
        tokio::time::advance(Duration::from_secs(3600)).await;
        assert_eq!(research.exhausted(), Some(Exhausted::Deadline));
        research.extend(Duration::from_secs(3600));
        assert_eq!(research.exhausted(), None);
        tokio::time::advance(Duration::from_secs(300)).await;
        assert_eq!(research.exhausted(), Some(Exhausted::Deadline));
    }

    #[tokio::test(start_paused = true)]
    async fn iterations_and_stalls_end_research() {
        let mut research = Research::new(Duration::from_secs(300), 2);
        research.finish_turn(true);
        assert_eq!(research.exhausted(), None);
        research.finish_turn(true);
        assert_eq!(research.exhausted(), Some(Exhausted::Iterations));

        let mut research = Research::new(Duration::from_secs(300), 12);
        for _ in 0..MAX_TURNS_WITHOUT_PROGRESS - 1 {
            research.finish_turn(false);
        }
        research.finish_turn(true);
        assert_eq!(research.exhausted(), None, "progress resets the count");
        for _ in 0..MAX_TURNS_WITHOUT_PROGRESS {
            research.finish_turn(false);
        }
        assert_eq!(research.exhausted(), Some(Exhausted::NoProgress));
    }

    #[tokio::test(start_paused = true)]
    async fn saved_research_resumes_with_the_time_it_had_left() {
        let mut research = Research::new(Duration::from_secs(300), 12);
        research.finish_turn(false);
        research.learn(["memory:1".to_string()]);
        tokio::time::advance(Duration::from_secs(100)).await;
        let saved = research.save();
        assert_eq!(saved.left_ms, 200_000);
        // A restart hours later: the time down does not count.
        tokio::time::advance(Duration::from_secs(7200)).await;
        let restored = Research::restore(saved.clone());
        assert_eq!(restored.save(), saved);
        assert!(!Research::restore(saved).learn(["memory:1".to_string()]));
        tokio::time::advance(Duration::from_secs(199)).await;
        assert_eq!(restored.exhausted(), None);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(restored.exhausted(), Some(Exhausted::Deadline));
    }

    #[test]
    fn only_new_facts_are_progress() {
        let mut research = Research::new(Duration::from_secs(1), 1);
        assert!(research.learn(["memory:1".to_string()]));
        assert!(!research.learn(["memory:1".to_string()]));
        assert!(research.learn(["memory:1".to_string(), "memory:2".to_string()]));
        assert!(!research.learn(Vec::<String>::new()));
    }
}
