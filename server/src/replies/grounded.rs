//! Grounded runs: a tool call runs only with the arguments the user gave
//! (see [`crate::grounding`]). A missing detail becomes Imprint's own
//! question before the call runs; "the project" among several is settled
//! before the model starts.

use app::protocol::ToolStatus;
use serde_json::Value;

use super::stream::{cut_result, Interrupt, Run};
use crate::grounding::{self, Verdict};
use crate::models::{ChatMessage, ToolCallRequest};
use crate::tools::{self, ToolOutput, ASK_USER, LIST_PROJECTS, REMIND, SEARCH, STORE};

impl Run {
    /// "The project" among several, unnamed: Imprint asks which before
    /// the model starts, and the model reads the answer with the request.
    pub(super) async fn settle_the_project(&mut self) -> Result<(), Interrupt> {
        if !tools::is_offered(&self.tools, ASK_USER) || !tools::is_offered(&self.tools, SEARCH) {
            return Ok(());
        }
        if !grounding::refers_to_a_project(&self.request) {
            return Ok(());
        }
        let projects = self.recent_projects().await;
        let Some(need) = grounding::unnamed_project(&self.request, &projects) else {
            return Ok(());
        };
        if let Some(grounding::Resolved::Project(project)) = self.ask_for(&need).await? {
            let note = if std::mem::take(&mut self.imprint_chose) {
                format!("the user left it to you, and Imprint took the project {project}; say so")
            } else {
                format!("the user means the project {project}")
            };
            if let Some(ChatMessage::User(text)) = self.messages.last_mut() {
                text.push_str(&format!("\n\n(Imprint asked which project; {note}.)"));
            }
        }
        Ok(())
    }

    /// Runs a call whose grounded arguments (see [`grounding`]) the user
    /// gave; when one is missing, Imprint asks the user itself first.
    /// Returns the output, the arguments it ran with and the content to
    /// store.
    pub(super) async fn grounded_run(
        &mut self,
        call: &ToolCallRequest,
    ) -> Result<(ToolOutput, Value, String), Interrupt> {
        if !tools::is_offered(&self.tools, &call.name) {
            let output = if matches!(call.name.as_str(), STORE | REMIND) && !self.read_only {
                // Left out of the offer because the user did not ask for it.
                ToolOutput {
                    text: format!(
                        "Not done: the user did not ask for it, so `{}` is not offered. Do not call it again; answer the user.",
                        call.name
                    ),
                    status: ToolStatus::Refused,
                    ..ToolOutput::default()
                }
            } else {
                ToolOutput {
                    text: format!("Error: the tool `{}` is not available here", call.name),
                    error: true,
                    ..ToolOutput::default()
                }
            };
            let content = cut_result(&output.text);
            return Ok((output, call.arguments.clone(), content));
        }
        let projects = if matches!(call.name.as_str(), SEARCH | STORE | LIST_PROJECTS) {
            self.recent_projects().await
        } else {
            Vec::new()
        };
        let words = grounding::UserWords {
            request: &self.request,
            answers: &self.answers,
        };
        let verdict = grounding::check(
            &call.name,
            &call.arguments,
            &words,
            &projects,
            self.env.clock.now(),
        );
        let (args, chosen) = match verdict {
            Verdict::Run(args) => (args, None),
            Verdict::Refuse(reason) => {
                let output = ToolOutput {
                    text: format!("Not done: {reason}. Do not call it again; answer the user."),
                    status: ToolStatus::Refused,
                    ..ToolOutput::default()
                };
                let content = output.text.clone();
                return Ok((output, call.arguments.clone(), content));
            }
            Verdict::Ask(need) => match self.ask_for(&need).await? {
                Some(resolved) => (resolved.apply(&call.arguments), Some(resolved)),
                None => return Ok(self.without_answer(call, &need).await),
            },
        };
        if let Some(output) = self
            .policy
            .repeated_write(&call.name, &args, self.env.clock.now())
            .or_else(|| self.policy.repeated_read(&call.name, &args))
        {
            let content = output.text.clone();
            return Ok((output, args, content));
        }
        let mut output = self.run_tool(&call.name, &args).await;
        self.policy.record(&call.name, &args, &output);
        if let Some(resolved) = chosen {
            output.text = if std::mem::take(&mut self.imprint_chose) {
                format!(
                    "The user left the choice to Imprint, which chose {}; say what was chosen. {}",
                    resolved.describe(),
                    output.text
                )
            } else {
                format!("The user chose {}. {}", resolved.describe(), output.text)
            };
            output.wrote = true;
        }
        let content = cut_result(&output.text);
        Ok((output, args, content))
    }

    /// The user's projects, most recently used first.
    async fn recent_projects(&self) -> Vec<String> {
        match self.store.list_projects().await {
            Ok(mut projects) => {
                projects.sort_by(|a, b| b.last_at.cmp(&a.last_at));
                projects.into_iter().map(|p| p.name).collect()
            }
            Err(error) => {
                tracing::warn!(%error, "could not list projects for grounding");
                Vec::new()
            }
        }
    }
}
