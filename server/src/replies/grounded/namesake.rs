//! Settling a first name the memories give two people ("Priya Naidoo",
//! the accountant, and "Priya Pillay", the piano teacher): for a note to
//! keep ("note that priya's rates go up"), a reminder ("remind me friday
//! to pay priya") and for a question whose other
//! words do not say which ("whats priya's number"), Imprint asks which, by
//! their full names, before the note is written or the question answered
//! (see [`crate::grounding::reference::namesakes`]).

use crate::grounding::plan::{self, Topic};
use crate::grounding::reference::Candidate;
use crate::grounding::{self, reference, Need};
use crate::replies::run::{Interrupt, Run};
use crate::store::MemoryQuery;
use crate::tools::run::MemoryLine;

/// Words of a note looked up at most for a first name two people share.
const NAMES_LOOKED_UP: usize = 6;

impl Run {
    /// A note to keep or a reminder that names someone by a first name
    /// the memories give two people ("note that priya's rates go up",
    /// with Priya Naidoo and Priya Pillay kept): Imprint asks which, with
    /// their full names as the options, and the note or the reminder is
    /// kept with the one chosen.
    pub(super) async fn settle_a_namesake(&mut self) -> Result<Option<String>, Interrupt> {
        let request = self.talk.request().to_string();
        let writes = grounding::writes_asked(&request).or(self.policy.judged_writes());
        let asks = !writes.save && !writes.remind && plan::is_a_question(&request);
        if !writes.save && !writes.remind && !asks {
            return Ok(None);
        }
        // What a question asks of the person ("number") and its other
        // words ("the piano teacher") may single one out; so may a
        // reminder's ("pay priya for the piano lessons").
        let topic = if asks {
            Some(Topic::of(plan::asked_part(&request), &[]))
        } else if writes.remind && !writes.save {
            Some(Topic::of(&request, &[]))
        } else {
            None
        };
        // A note filed under a project ("note for the attic project:
        // declan says…") means the one its memories name.
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects).or_else(|| {
            grounding::project_of_a_save(&request, &projects).map(|(project, _)| project)
        });
        // A question's names are those of the clause that asks, not of
        // the story around it ("what can't rui eat again? planning the
        // christmas menu" asks nothing of Christmas).
        let named_in = if asks {
            plan::asked_part(&request)
        } else {
            request.as_str()
        };
        // Nor of a story told after the question ("hey whats the safe
        // code, musu needs to lock the cash in tonight"): the topic reads
        // it as context, which says nothing of whose the thing is.
        let told_around = |word: &String| topic.as_ref().is_some_and(|t| t.context.contains(word));
        for word in reference::topic(named_in, &[])
            .into_iter()
            .filter(|word| !told_around(word))
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
            let mut people = match &topic {
                Some(topic) => fitting(people, topic),
                None => people,
            };
            if people.len() < 2 {
                continue;
            }
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

/// The people of a question's first name whose memories hold what it
/// asks ("number") and as many of its other words as any does: "whats
/// sanne's number" fits both Sannes with a number kept, "sanne the swim
/// teacher's number" only the one whose memories say swimming teacher.
fn fitting(people: Vec<Candidate>, topic: &Topic) -> Vec<Candidate> {
    let contents = |person: &Candidate| -> String {
        person
            .memories
            .iter()
            .filter_map(|line| MemoryLine::read(line).map(|m| m.content.to_string()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let holding: Vec<(Candidate, usize)> = people
        .into_iter()
        .filter_map(|person| {
            let held = contents(&person);
            let holds_asked = topic.asked.is_empty() || topic.asked_in(&held);
            holds_asked.then(|| (person, topic.score(&held)))
        })
        .collect();
    let most = holding.iter().map(|(_, score)| *score).max();
    holding
        .into_iter()
        .filter(|(_, score)| Some(*score) == most)
        .map(|(person, _)| person)
        .collect()
}
