//! Planned acts that read no question: the project list, and an act
//! Imprint has no tool for ("move", "send"), said in a sentence with what
//! the memories hold about it.

use serde_json::json;

use crate::grounding::plan::Topic;
use crate::models::ToolCallRequest;
use crate::replies::own_answer;
use crate::replies::run::{Interrupt, Run};
use crate::tools::LIST_PROJECTS;

impl Run {
    /// The project list, read by the tool (its line shows on the page).
    pub(super) async fn list_projects(&mut self) -> Result<(), Interrupt> {
        let call = ToolCallRequest {
            id: "imprint_list_projects".into(),
            name: LIST_PROJECTS.into(),
            arguments: json!({}),
        };
        self.call_for_the_model(String::new(), call);
        self.run_pending_calls().await?;
        // What it found is said by `drive`'s fallback.
        Ok(())
    }

    /// An act Imprint has no tool for: said in a sentence, with what the
    /// memories hold about it.
    pub(super) async fn cannot_do(&mut self, verb: &str) -> Result<(), Interrupt> {
        let projects = self.recent_projects().await;
        // The memory the user chose when Imprint asked what "that" is, or
        // what their own words for it find, or the request's.
        let chosen = self.chosen_memories();
        let mut found = chosen;
        if let Some(meant) = self
            .settling
            .meant()
            .map(str::to_string)
            .filter(|_| found.is_empty())
        {
            found = self.search(&Topic::of(&meant, &projects), None).await;
        }
        if found.is_empty() {
            let topic = Topic::of(self.talk.request(), &projects);
            found = self.search(&topic, None).await;
        }
        // "I can't call anyone", "I can't book anything".
        let whom = match verb {
            "call" | "phone" | "text" | "email" | "e-mail" | "mail" | "message" | "invite"
            | "reply" => "anyone",
            _ => "anything",
        };
        let mut text = format!(
            "I can't {verb} {whom} for you: I can keep your memories, look them up and set reminders."
        );
        if !found.is_empty() {
            text.push_str("\n\n");
            text.push_str(&own_answer::from_found(&found.join("\n")));
        }
        self.say(&text).await;
        Ok(())
    }
}
