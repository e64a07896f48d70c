//! Settling a first name the memories give two people, for a note to
//! keep ("note that priya's rates go up", with Priya Naidoo and Priya
//! Pillay kept): Imprint asks which, by their full names, before the note
//! is written (see [`crate::grounding::reference::namesakes`]).

use crate::grounding::{self, reference, Need};
use crate::replies::run::{Interrupt, Run};
use crate::store::MemoryQuery;

/// Words of a note looked up at most for a first name two people share.
const NAMES_LOOKED_UP: usize = 6;

impl Run {
    /// A note to keep that names someone by a first name the memories
    /// give two people ("note that priya's rates go up", with Priya Naidoo
    /// and Priya Pillay kept): Imprint asks which, with their full names
    /// as the options, and the note is kept with the one chosen.
    pub(super) async fn settle_a_namesake(&mut self) -> Result<Option<String>, Interrupt> {
        let request = self.talk.request().to_string();
        let writes = grounding::writes_asked(&request).or(self.policy.judged_writes());
        if !writes.save {
            return Ok(None);
        }
        // A note filed under a project ("note for the attic project:
        // declan says…") means the one its memories name.
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects).or_else(|| {
            grounding::project_of_a_save(&request, &projects).map(|(project, _)| project)
        });
        for word in reference::topic(&request, &[])
            .into_iter()
            .take(NAMES_LOOKED_UP)
        {
            let query = MemoryQuery {
                query: word.clone(),
                project: project.clone(),
                limit: Some(reference::SEARCH_LIMIT),
                ..MemoryQuery::default()
            };
            let Ok(hits) = self.reply.store.search_memories(query).await else {
                continue;
            };
            let Some(people) = reference::namesakes::namesakes(&word, &hits) else {
                continue;
            };
            // "priya naidoo's rates", "nick p can do it": the request says
            // which already.
            if reference::namesakes::says_which(&request, &word, &people) {
                continue;
            }
            let mut people = people;
            people.truncate(reference::MAX_OPTIONS);
            let first = people[0]
                .label
                .split(' ')
                .next()
                .unwrap_or(&word)
                .to_string();
            let need = Need::Reference {
                question: format!("Which {first} do you mean?"),
                phrase: word.clone(),
                candidates: people,
            };
            return self.ask_what_is_meant(&word, &need).await.map(Some);
        }
        Ok(None)
    }
}
