//! The model's own answer in a planned reply, with no tools: general
//! knowledge (a sum or a unit conversion worked out by Imprint instead),
//! or a reply to small talk.

use std::sync::Arc;

use crate::grounding::plan;
use crate::models::{note, ChatMessage};
use crate::replies::run::{Interrupt, Run};

/// What the model is told in a general answer: it knows nothing of the
/// user's life.
const GENERAL_PROMPT: &str = "You are a helpful assistant. Answer the question briefly and correctly, in the user's language, in one or two plain sentences, without code or formulas.";

/// The user's earlier messages a general answer is told at most.
const EARLIER_ASKED: usize = 4;

impl Run {
    /// The model's own answer, with no tools: general knowledge (marked so
    /// when `marked`), or a reply to small talk.
    pub(super) async fn general(&mut self, marked: bool) -> Result<(), Interrupt> {
        // A sum or a unit conversion is worked out, not guessed.
        if let Some(worked_out) = plan::compute::answer(self.talk.request()).filter(|_| marked) {
            tracing::info!(reply = %self.reply.id, "worked out by Imprint");
            self.say(&worked_out).await;
            return Ok(());
        }
        let before = self.talk.messages().len().saturating_sub(1);
        let earlier = &self.talk.messages()[..before];
        // A general answer and small talk alike read only the user's
        // earlier words, in their instructions: given Imprint's answers,
        // the built-in model wrote its own as one ("From your memories:
        // The river runs through Paris. (saved …)"), or said it had saved
        // what it had not ("Done: saved \"…\"" after a save, to a remark
        // about a power cut: session 36).
        let asked: Vec<&str> = earlier
            .iter()
            .filter_map(|message| match message {
                ChatMessage::User(text) if !note::is_note(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let recent = &asked[asked.len().saturating_sub(EARLIER_ASKED)..];
        let mut prompt = GENERAL_PROMPT.to_string();
        if !recent.is_empty() {
            prompt.push_str("\n\nThe user's earlier messages, for context only:");
            for text in recent {
                prompt.push_str("\n- ");
                prompt.push_str(text);
            }
        }
        let mut messages = vec![ChatMessage::System(prompt)];
        let request = self.talk.request();
        let asked = if marked {
            question_asked(request)
        } else {
            request
        };
        messages.push(ChatMessage::User(asked.to_string()));
        let turn = self.turn_on(messages, Arc::new(Vec::new()), false).await?;
        if marked && !turn.text.trim().is_empty() {
            self.say("\n\n*General knowledge, from the model, not from your memories.*")
                .await;
        }
        Ok(())
    }
}

/// What a general question gives the model to answer: the clause that
/// asks, without the story told around it ("craig was asking, whats the
/// capital of the falklands"; the built-in model echoed the whole as
/// "Craig asked, …"), unless that clause points back at the story ("…,
/// what year was that").
fn question_asked(request: &str) -> &str {
    let clause = plan::asking_clause(request);
    let points_back = imprint_text::words::plain(clause).iter().any(|w| {
        imprint_text::pronouns::is_third_person(w)
            || crate::grounding::reference::is_demonstrative(w)
    });
    if points_back || clause.trim().is_empty() {
        request
    } else {
        clause
    }
}

#[cfg(test)]
mod tests {
    use super::question_asked;

    #[test]
    fn a_general_question_is_asked_without_the_story_around_it() {
        assert_eq!(
            question_asked("my son was asking, why is the sea salty"),
            "why is the sea salty"
        );
        // A clause that points back at the story needs it.
        let napoleon = "napoleon died on the island didnt he, what year was that";
        assert_eq!(question_asked(napoleon), napoleon);
        let plain = "what is the boiling point of water?";
        assert_eq!(question_asked(plain), plain);
    }
}
