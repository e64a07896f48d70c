//! A planned save or reminder: Imprint makes the call from the user's
//! words (asking for what a save names without saying), runs it, and says
//! what was done, or plainly that nothing was written.

use serde_json::json;

use crate::grounding::plan;
use crate::models::ToolCallRequest;
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
    use super::the_value;

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
