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
        let mut messages = vec![ChatMessage::System(GENERAL_PROMPT.into())];
        // The conversation's words, without tools and Imprint's notes.
        let before = self.talk.messages().len().saturating_sub(1);
        for message in &self.talk.messages()[..before] {
            match message {
                ChatMessage::User(text) if !note::is_note(text) => {
                    messages.push(ChatMessage::User(text.clone()))
                }
                ChatMessage::Assistant { content, .. } if !content.trim().is_empty() => messages
                    .push(ChatMessage::Assistant {
                        content: content.clone(),
                        tool_calls: Vec::new(),
                    }),
                _ => {}
            }
        }
        messages.push(ChatMessage::User(self.talk.request().to_string()));
        let turn = self.turn_on(messages, Arc::new(Vec::new()), false).await?;
        if marked && !turn.text.trim().is_empty() {
            self.say("\n\n*General knowledge, from the model, not from your memories.*")
                .await;
        }
        Ok(())
    }
}
