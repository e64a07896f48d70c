//! A planned save or reminder: Imprint makes the call from the user's
//! words (asking for what a save names without saying), runs it, and says
//! what was done, or plainly that nothing was written.

use serde_json::{json, Value};

use crate::grounding::plan;
use crate::meaning::route::Routed;
use crate::models::{ChatMessage, StepRequest, ToolCallRequest};
use crate::replies::own_answer;
use crate::replies::stream::{Interrupt, Run};
use crate::tools::{self, REMIND, STORE};

impl Run {
    /// A save or a reminder: Imprint makes the call from the user's words
    /// (its grounding asks for a missing project or time), then says what
    /// was done.
    pub(super) async fn planned_write(&mut self, tool: &str) -> Result<(), Interrupt> {
        if !self.has_pending_calls() {
            if !tools::is_offered(&self.tools, tool) {
                self.say("I can't change anything from here: this conversation only reads your memories. Use Chat to save or set reminders.");
                return Ok(());
            }
            let details_asked = self.details_asked();
            let call = if tool == REMIND {
                self.policy
                    .reminder_at_the_end(&self.tools, &self.request, details_asked)
            } else if details_asked {
                None
            } else {
                return self.save_the_users_words().await;
            };
            let Some(call) = call else {
                self.say(&self.nothing_written(tool));
                return Ok(());
            };
            self.call_for_the_model(String::new(), call);
        }
        self.finish_write(tool).await
    }

    /// A save: what the user said to keep, in their words. A detail named
    /// and not given ("Save the allotment gate code") is asked for first.
    async fn save_the_users_words(&mut self) -> Result<(), Interrupt> {
        let projects = self.recent_projects().await;
        let mut arguments = json!({});
        if let Some(project) = self.project_meant(&projects) {
            arguments["project"] = json!(project);
        }
        let mut row = None;
        let content = match crate::grounding::what_to_save(&self.request) {
            Some(content) => Some(content),
            None => match crate::grounding::content_to_save(&self.request) {
                Some(named)
                    if tools::is_offered(&self.tools, tools::ASK_USER)
                        && plan::names_a_detail_without_it(&self.request, &named) =>
                {
                    let label = named.trim_end_matches(['.', '!', '?']).to_string();
                    let question = format!("What is the {}?", lower_first(&label));
                    let reason = "Your request names it, but does not say it".to_string();
                    let (answer, asked) = self.ask_open(question, reason).await?;
                    row = Some(asked);
                    answer.map(|answer| format!("{label}: {}", the_value(&answer)))
                }
                // "fyi my gym number is CLB-00482-7": judged a save with no
                // verb of keeping, the fact is the model's, in the user's
                // words.
                None if self.policy.judged() == Some(Routed::Save) => {
                    self.fact_from_the_model().await?
                }
                other => other,
            },
        };
        match content {
            Some(content) => {
                arguments["content"] = json!(content);
                let call = ToolCallRequest {
                    id: "imprint_store".into(),
                    name: STORE.into(),
                    arguments,
                };
                // The call is in the reply's state before the question's
                // row is stored: a restart now saves, not asks again.
                self.call_for_the_model(String::new(), call);
                if let Some(row) = row {
                    self.append_step(vec![row]).await?;
                }
            }
            None => {
                if let Some(row) = row {
                    self.append_step(vec![row]).await?;
                }
                self.say(&self.nothing_written(STORE));
                return Ok(());
            }
        }
        self.finish_write(STORE).await
    }

    /// The fact a request judged a save asks to keep, written by the model
    /// under a schema and kept only when it is the user's own words (see
    /// [`in_the_users_words`]); else the request as said.
    async fn fact_from_the_model(&mut self) -> Result<Option<String>, Interrupt> {
        let said = self.request.trim().to_string();
        if self.ensure_slot().await.is_err() {
            return Ok(Some(said));
        }
        let schema = json!({
            "type": "object",
            "properties": {"fact": {"type": "string", "maxLength": 400}},
            "required": ["fact"],
            "additionalProperties": false,
        });
        let step = StepRequest {
            messages: vec![
                ChatMessage::System(KEEP_PROMPT.into()),
                ChatMessage::User(self.request.clone()),
            ],
            schema,
            max_tokens: 160,
            slot: self.slot_index(),
        };
        let stop = self.reply.stop_token().child_token();
        let fact = match self.env.model.constrained(step, stop).await {
            Ok(value) => value
                .get("fact")
                .and_then(Value::as_str)
                .map(|f| f.trim().to_string())
                .unwrap_or_default(),
            Err(_) if self.reply.stop_token().is_cancelled() => return Err(Interrupt::Stopped),
            Err(error) => {
                tracing::warn!(%error, "the model could not word the fact; the user's words are kept");
                String::new()
            }
        };
        if in_the_users_words(&fact, &self.request) {
            Ok(Some(fact))
        } else {
            tracing::info!(reply = %self.reply.id, %fact, "the model's fact is not the user's words; the request is kept as said");
            Ok(Some(said))
        }
    }

    /// Runs the write made and says what was done.
    async fn finish_write(&mut self, tool: &str) -> Result<(), Interrupt> {
        self.run_pending_calls().await?;
        // "Done: …" from what was written (see `drive`); nothing written
        // is said plainly.
        if own_answer::from_writes(&self.policy.writes(), self.env.clock.now()).is_none() {
            self.say(&self.nothing_written(tool));
        }
        Ok(())
    }

    fn nothing_written(&self, tool: &str) -> String {
        match (tool, self.details_asked()) {
            (REMIND, true) => "I set no reminder, since I don't know when. Tell me when, and I'll set it.".into(),
            (REMIND, false) => "I set no reminder: I couldn't tell what to remind you of. Say it like “Remind me tomorrow at 9 to call the bank.”".into(),
            (_, true) => "I saved nothing, since I couldn't tell where it goes. Tell me again with the project's name.".into(),
            _ => "What should I save? Say it like “Save: the wifi password is on the router.”".into(),
        }
    }
}

/// What the model is told when it words a fact to keep.
const KEEP_PROMPT: &str = "The user's message gives a fact for their personal memory notes. Reply in JSON. \"fact\": that fact as a short note, in the user's own words, with every name, number and code exactly as written, and without the words said to the assistant (asking it to save or note, greetings, \"fyi\", \"btw\").";

/// True when `fact` is the user's own words: not empty, every word with a
/// digit is theirs and every one of theirs is kept (codes and numbers are
/// the point of a note), and most of its other words are theirs.
fn in_the_users_words(fact: &str, request: &str) -> bool {
    let tokens = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
            .map(|w| w.trim_matches(['-', '\'']).to_lowercase())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let theirs = tokens(request);
    let ours = tokens(fact);
    let digits = |w: &&String| w.chars().any(|c| c.is_ascii_digit());
    if ours.is_empty()
        || !ours.iter().filter(digits).all(|w| theirs.contains(w))
        || !theirs.iter().filter(digits).all(|w| ours.contains(w))
    {
        return false;
    }
    let held = ours.iter().filter(|w| theirs.contains(w)).count();
    held * 5 >= ours.len() * 4
}

/// "Allotment gate code" → "allotment gate code"; a name stays.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.clone().next()) {
        (Some(first), Some(second)) if second.is_lowercase() => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

/// The value in an answer to "What is the allotment gate code?": "it's
/// 8402" and "it is 8402" are "8402"; anything else stays as said.
fn the_value(answer: &str) -> &str {
    let answer = answer.trim();
    let lower = answer.to_lowercase().replace('’', "'");
    for lead in ["it's ", "it is ", "its ", "that's ", "that is "] {
        if lower.starts_with(lead) && answer.len() > lead.len() {
            // The leads are ASCII but "’" is not: skip as many characters.
            let skip = answer
                .char_indices()
                .nth(lead.chars().count())
                .map_or(answer.len(), |(i, _)| i);
            return answer[skip..].trim_start();
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::{in_the_users_words, the_value};

    #[test]
    fn a_fact_is_kept_only_in_the_users_words() {
        let request = "fyi my membership number at the climbing gym is CLB-00482-7";
        assert!(in_the_users_words(
            "Membership number at the climbing gym: CLB-00482-7",
            request
        ));
        // A code changed or dropped is no note of theirs.
        assert!(!in_the_users_words(
            "Membership number at the climbing gym: CLB-00482",
            request
        ));
        assert!(!in_the_users_words(
            "Membership number at the climbing gym",
            request
        ));
        // Words of the model's own are not the user's fact.
        assert!(!in_the_users_words(
            "The user has a premium climbing membership, number CLB-00482-7, renewed yearly",
            request
        ));
        assert!(!in_the_users_words("", request));
    }

    #[test]
    fn an_answer_that_says_its_value_keeps_only_the_value() {
        assert_eq!(the_value("it's 8402"), "8402");
        assert_eq!(the_value("It’s 8402 "), "8402");
        assert_eq!(the_value("that is 4471#"), "4471#");
        assert_eq!(the_value("8402"), "8402");
        // A value that only starts like the words stays whole.
        assert_eq!(the_value("itsy-bitsy-77"), "itsy-bitsy-77");
        assert_eq!(the_value("it's"), "it's");
    }
}
