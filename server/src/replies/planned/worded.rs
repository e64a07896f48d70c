//! What a planned write keeps, worded by the model under a schema: the
//! fact a save asks to keep, or what a reminder is for; kept only when it
//! is the user's own words (see `writes`).

use serde_json::{json, Value};

use super::writes::{after_a_colon_closing_the_time, in_the_users_words, Digits};
use crate::grounding::capitalized;
use crate::models::{ChatMessage, StepRequest};
use crate::replies::run::{Interrupt, Run};

impl Run {
    /// The fact a request judged a save asks to keep, worded by the model;
    /// `None` unless it is the user's own words (see [`in_the_users_words`]):
    /// a request judged a save wrongly ("nhs no. pls") has no fact of
    /// theirs to keep, and nothing is written unasked.
    pub(super) async fn fact_from_the_model(&mut self) -> Result<Option<String>, Interrupt> {
        let fact = self.worded_by_the_model(KEEP_PROMPT, "fact").await?;
        // The built-in model may run on past the fact ("… is G4K 99120.
        // This is a common serial number …"): its first sentence may
        // still be the user's words.
        let kept = fact.and_then(|fact| {
            let first = fact.split_inclusive(". ").next().unwrap_or(&fact).trim();
            [fact.as_str(), first]
                .into_iter()
                .find(|f| in_the_users_words(f, self.talk.request(), Digits::AllKept))
                .map(str::to_string)
        });
        if kept.is_none() {
            tracing::info!(reply = %self.reply.id, "the model's fact is not the user's words: nothing is kept unasked");
        }
        Ok(kept)
    }

    /// What a reminder request, with no "remind me" to read it
    /// from ("nudge me at half six re the bins"), asks to be reminded of:
    /// worded by the model, in the user's words (its time is read by the
    /// time grammar, not here); else the request without its time.
    pub(super) async fn reminder_text_from_the_model(
        &mut self,
    ) -> Result<Option<String>, Interrupt> {
        let text = self.worded_by_the_model(REMIND_PROMPT, "text").await?;
        let now = self.env.clock.now();
        let text = text
            .filter(|t| in_the_users_words(t, self.talk.request(), Digits::Theirs))
            .or_else(|| {
                after_a_colon_closing_the_time(self.talk.request(), now).map(str::to_string)
            })
            .unwrap_or_else(|| {
                crate::grounding::when::without_the_time(self.talk.request().trim())
            });
        // "remind me tomorrow at 5pm" leaves "remind me", and the model's
        // "set a reminder for 6" of "set a reminder for 6 tomorrow
        // evening" its words of asking and of when: nothing to be
        // reminded of, so no reminder is set rather than one saying so.
        let names_something = crate::grounding::names_something_to_remind(&text);
        // A note, as the rules' texts are: "Putting the bins out".
        Ok(Some(capitalized(text.trim())).filter(|_| names_something))
    }

    /// One constrained step: the string `field` of the model's answer to
    /// the request under `prompt`; `None` when the model could not say.
    async fn worded_by_the_model(
        &mut self,
        prompt: &str,
        field: &str,
    ) -> Result<Option<String>, Interrupt> {
        let schema = json!({
            "type": "object",
            "properties": {field: {"type": "string", "maxLength": 400}},
            "required": [field],
            "additionalProperties": false,
        });
        let Some(value) = self.step_on_the_request(prompt, schema, 160, field).await? else {
            return Ok(None);
        };
        let worded = value
            .get(field)
            .and_then(Value::as_str)
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty());
        tracing::info!(reply = %self.reply.id, ?worded, field, "worded by the model");
        Ok(worded)
    }

    /// The model's answer to the request alone under `prompt`, held to
    /// `schema`; `None` when no slot is free or the model fails (`what`
    /// names the step in the log). A stop during it stops the reply.
    pub(super) async fn step_on_the_request(
        &mut self,
        prompt: &str,
        schema: Value,
        max_tokens: u32,
        what: &str,
    ) -> Result<Option<Value>, Interrupt> {
        if self.ensure_slot().await.is_err() {
            return Ok(None);
        }
        let step = StepRequest {
            messages: vec![
                ChatMessage::System(prompt.into()),
                ChatMessage::User(self.talk.request().to_string()),
            ],
            schema,
            max_tokens,
        };
        let stop = self.reply.stop_token().child_token();
        match self.env.model.constrained(step, stop).await {
            Ok(value) => Ok(Some(value)),
            Err(_) if self.reply.stop_token().is_cancelled() => Err(Interrupt::Stopped),
            Err(error) => {
                tracing::warn!(%error, what, "the model's step failed; the user's words and the rules stand");
                Ok(None)
            }
        }
    }
}

/// What the model is told when it words a fact to keep.
const KEEP_PROMPT: &str = "The user's message gives a fact for their personal memory notes. Reply in JSON. \"fact\": that fact as a short note, in the user's own words, with every name, number and code exactly as written, and without the words said to the assistant (asking it to save or note, greetings, \"fyi\", \"btw\").";

/// What the model is told when it words what to remind of.
const REMIND_PROMPT: &str = "The user's message asks to be reminded of something. Reply in JSON. \"text\": what to remind them of, as a short note in the user's own words, without the date or time, and without the words said to the assistant (\"remind me\", \"nudge me\", \"set a reminder\", \"please\").";
