//! How a planned question finds the memories it reads: by its words (all
//! of the topic's naming words, within a project), by meaning with what
//! the labelled examples say of it, and with its words respelt as the
//! memories hold them.

use crate::grounding::plan::Topic;
use crate::replies::run::Run;
use crate::store::MemoryQuery;
use crate::tools::run::memory_line;

use super::preferring;
use super::reads::{shared_pairs, MeaningRead, READ_LIMIT};

impl Run {
    /// The memories found by meaning and what the labelled examples say
    /// of the request; `None` with finding by meaning off (or busy), when
    /// the words' search alone decides. A follow-up ("and Dana's?") is
    /// too short to mean much alone, so it is left to the words.
    pub(super) async fn by_meaning(
        &self,
        words: &str,
        project: Option<String>,
        follows: bool,
    ) -> Option<MeaningRead> {
        let meaning = &self.env.meaning;
        if follows || !meaning.is_on() {
            return None;
        }
        let query = MemoryQuery {
            query: words.to_string(),
            project,
            limit: Some(crate::grounding::reference::SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        let findings = match meaning.search(&self.reply.store, query).await {
            Ok(findings) if findings.by_meaning => findings,
            Ok(_) => return None,
            Err(error) => {
                tracing::warn!(%error, "could not search the memories by meaning");
                return None;
            }
        };
        let route = findings
            .vector
            .as_deref()
            .and_then(|v| meaning.route_by_nearest(v));
        let classified = findings.vector.as_deref().and_then(|v| meaning.route(v));
        tracing::info!(reply = %self.reply.id, best = ?findings.best_similarity(), ?route, ?classified, "searched by meaning");
        tracing::debug!(
            reply = %self.reply.id,
            nearest = ?findings
                .found
                .iter()
                .take(6)
                .map(|f| (f.memory.id, f.similarity))
                .collect::<Vec<_>>(),
            "the memories nearest in meaning"
        );
        Some(MeaningRead {
            findings,
            route,
            classified,
        })
    }

    /// `words` with each naming word of `topic` the memories do not hold
    /// written as the word they hold one slip from; `None` when none is.
    pub(super) async fn respelt(&self, words: &str, topic: &Topic) -> Option<String> {
        let like = match self.reply.store.words_like(topic.names.clone()).await {
            Ok(like) => like,
            Err(error) => {
                tracing::warn!(%error, "could not read the memories' words");
                return None;
            }
        };
        let mut respelt = words.to_string();
        let mut changed = false;
        for (name, like) in topic.names.iter().zip(like) {
            let Some(like) = like else { continue };
            let lower = respelt.to_lowercase();
            // Offsets in the lower-case text are the text's own only when
            // lower-casing kept every length.
            if lower.len() != respelt.len() {
                break;
            }
            if let Some(at) = lower.find(name.as_str()) {
                respelt.replace_range(at..at + name.len(), &like);
                changed = true;
            }
        }
        changed.then_some(respelt)
    }

    /// The memories about `topic` (all of its naming words), within
    /// `project`; a project alone gives its newest memories.
    pub(super) async fn search(&mut self, topic: &Topic, project: Option<String>) -> Vec<String> {
        if topic.is_empty() && project.is_none() {
            return Vec::new();
        }
        let query = MemoryQuery {
            query: topic.words().join(" "),
            project,
            limit: Some(crate::grounding::reference::SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        let hits = match self.reply.store.search_memories(query).await {
            Ok(hits) => hits,
            Err(error) => {
                tracing::warn!(%error, "could not search the memories");
                return Vec::new();
            }
        };
        if topic.is_empty() {
            return hits.iter().take(READ_LIMIT).map(memory_line).collect();
        }
        // The memories that hold the most of what the request names
        // (the office wifi over the home one for "wifi pw at the office").
        let best = hits.iter().map(|hit| topic.score(&hit.content)).max();
        let best_hits: Vec<_> = hits
            .iter()
            .filter(|hit| best.is_some_and(|best| best > 0 && topic.score(&hit.content) == best))
            .collect();
        // Of those, the ones that hold what is asked: "the plate on the
        // clio" is the car's memory, not the Clio's insurance.
        let best_hits = preferring(best_hits, |hit| topic.asked_in(&hit.content));
        // "my NIF": not Rui's.
        let best_hits = preferring(best_hits, |hit| {
            !topic.mine || !topic.anothers_in(&hit.content)
        });
        // Of those, the ones that say it as the request does: "my flight
        // to Lisbon" is the memory "Flight to Lisbon: …", not "Flight back
        // from Lisbon: …".
        let said = |hit: &&crate::store::MemoryHit| shared_pairs(self.talk.request(), &hit.content);
        let most_said = best_hits.iter().map(said).max().unwrap_or(0);
        best_hits
            .into_iter()
            .filter(|hit| said(hit) == most_said)
            .take(READ_LIMIT)
            .map(memory_line)
            .collect()
    }
}
