//! A reminder set against an event the memories hold ("an hour before the
//! christmas concert", "a week before the nct is due, at 9am"): Imprint
//! finds the event among the memories that name it and say when it is,
//! asks which one when several do, and the reminder is due then, less
//! the lead. Nothing found leaves the time unsaid, and it is asked.

use crate::grounding::plan::Topic;
use crate::grounding::reference::{self, MAX_OPTIONS, SEARCH_LIMIT};
use crate::grounding::when::{self, Stated};
use crate::grounding::{Need, Resolved};
use crate::replies::run::{Interrupt, Run};
use crate::store::{Memory, MemoryQuery};
use crate::tools::run::MemoryLine;
use crate::tools::ASK_USER;

impl Run {
    /// When the request sets its reminder against an event a memory
    /// dates, that moment becomes the user's words' time (see
    /// [`crate::grounding::UserWords::when`]). A restored reply reads it
    /// again, its question about which one settled already.
    pub(super) async fn settle_the_event(&mut self) -> Result<(), Interrupt> {
        let Some(anchor) = when::before_an_event(self.talk.request()) else {
            return Ok(());
        };
        let projects = self.recent_projects().await;
        let topic = Topic::of(&anchor.event, &projects);
        if topic.is_empty() {
            return Ok(());
        }
        let query = MemoryQuery {
            query: topic.words().join(" "),
            limit: Some(SEARCH_LIMIT),
            ..MemoryQuery::default()
        };
        let hits = match self.reply.store.search_memories(query).await {
            Ok(hits) => hits,
            Err(error) => {
                tracing::warn!(%error, "could not search the memories for the event");
                return Ok(());
            }
        };
        let now = self.env.clock.now();
        // The memories that name the event and say when it is, still ahead.
        let dated: Vec<(Memory, Stated)> = hits
            .into_iter()
            .filter(|m| topic.named_in(&m.content))
            .filter_map(|m| {
                let moment = anchor.moment(&m.content, now)?;
                Some((m, moment))
            })
            .collect();
        let moment = match dated.as_slice() {
            [] => return Ok(()),
            [(_, moment)] => *moment,
            _ => match self.which_event(&anchor.event, &dated).await? {
                Some(moment) => moment,
                None => return Ok(()),
            },
        };
        tracing::info!(reply = %self.reply.id, event = %anchor.event, ?moment, "a reminder set against an event the memories date");
        self.talk.set_event(moment);
        Ok(())
    }

    /// Asks which of the `dated` events is meant: the chosen one's moment,
    /// or `None` when no answer came.
    async fn which_event(
        &mut self,
        event: &str,
        dated: &[(Memory, Stated)],
    ) -> Result<Option<Stated>, Interrupt> {
        if !self.talk.offers(ASK_USER) {
            return Ok(None);
        }
        let memories: Vec<Memory> = dated.iter().map(|(m, _)| m.clone()).collect();
        let mut candidates = reference::distinct_candidates(&memories);
        candidates.truncate(MAX_OPTIONS);
        let need = Need::Reference {
            question: format!("Which one do you mean by “{event}”?"),
            phrase: event.to_string(),
            candidates,
        };
        let Some(Resolved::Memory { memories, .. }) = self.ask_for(&need).await? else {
            return Ok(None);
        };
        let chosen: Vec<i64> = memories
            .iter()
            .filter_map(|line| MemoryLine::read(line).map(|m| m.id))
            .collect();
        Ok(dated
            .iter()
            .find(|(m, _)| chosen.contains(&m.id))
            .map(|(_, moment)| *moment))
    }
}
