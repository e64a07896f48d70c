//! One call of a turn, run: published, run (asked, or grounded), its result
//! published, stored and handed to the model, and what it learned noted.

use std::sync::Arc;

use app::protocol::{ReplyEvent, ToolStatus};
use serde_json::Value;

use crate::grounding::reference;
use crate::models::{ChatMessage, ToolCallRequest};
use crate::replies::run::{Interrupt, Run};
use crate::store::{NewMessage, ToolOutcome};
use crate::tools::{self, run::MemoryLine, run::ToolEnv, ToolOutput, ASK_USER, MAX_RESULT_CHARS};

impl Run {
    /// Runs one call: publishes it, runs it, publishes and stores its
    /// result, and hands it to the model, and notes it in the turn's
    /// pending calls (its progress and what became of it).
    pub(super) async fn call(&mut self, call: ToolCallRequest) -> Result<(), Interrupt> {
        if !self.turns.take_replaying() {
            self.reply.log.publish(ReplyEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                args: call.arguments.clone(),
            });
        }
        // Browsing (the project list, or a search for "everything") once
        // Imprint's first search settled what the request is about.
        let browsing = call.name == tools::LIST_PROJECTS
            || (call.name == tools::SEARCH
                && call
                    .arguments
                    .get("query")
                    .and_then(Value::as_str)
                    .is_none_or(|q| q.trim().is_empty() || tools::run::is_generic_query(q)));
        let listing_again = browsing && self.policy.first_search_settled();
        let searched = call.name == tools::SEARCH;
        let (output, stored_args, stored_content) =
            if call.name == ASK_USER && self.talk.offers(ASK_USER) {
                self.ask(&call).await?
            } else {
                self.grounded_run(&call).await?
            };
        let result = cut_result(&output.text);
        // What happened, for the page: never the model's guess.
        let outcome = ToolOutcome {
            status: output.outcome(),
            row_id: output.row_id,
            found: output.found,
            reason: output.reason.clone(),
        };
        if let Some(reason) = &outcome.reason {
            tracing::info!(reply = %self.reply.id, tool = %call.name, status = outcome.status.as_str(), ?reason, "call did nothing");
        }
        let status = outcome.status;
        self.reply.log.publish(ReplyEvent::ToolResult {
            id: call.id.clone(),
            name: call.name.clone(),
            result: result.clone(),
            status,
            row_id: outcome.row_id,
            args: Some(stored_args.clone()),
            found: outcome.found,
            reason: outcome.reason.clone(),
        });
        let row =
            NewMessage::tool(call.name.clone(), stored_args, stored_content).with_outcome(outcome);
        self.talk.push(ChatMessage::Tool {
            call_id: call.id,
            name: call.name,
            content: result,
        });
        // Refused, repeated and unasked calls are no progress, nor is
        // browsing once Imprint's first search settled what the request is
        // about (a small model lists the projects or the newest memories
        // every turn).
        let progress = status == ToolStatus::Done
            && (output.wrote || self.learn(searched, &output))
            && !listing_again;
        self.turns.call_done(progress, status);
        self.append_step(vec![row]).await
    }

    /// Learns what a read found; true when it was news. Once Imprint's
    /// first search settled what the request is about, a search's news is
    /// only new memories about it: a small model searches other words
    /// ("pizza", "restaurant") and finds other memories, turn after turn.
    fn learn(&mut self, searched: bool, output: &ToolOutput) -> bool {
        let topic = self.policy.settled_topic();
        if !searched || topic.is_empty() {
            return self.research.learn(output.facts.iter().cloned());
        }
        let about: Vec<String> = output
            .text
            .lines()
            .filter_map(MemoryLine::read)
            .filter(|memory| reference::content_is_about(memory.content, topic))
            .map(|memory| memory.fact())
            .collect();
        let news = self.research.learn(about);
        self.research.learn(output.facts.iter().cloned());
        news
    }

    pub(in crate::replies) async fn run_tool(&self, name: &str, args: &Value) -> ToolOutput {
        let reminder_added = Arc::clone(&self.env.reminder_added);
        let env = ToolEnv {
            store: &self.reply.store,
            session_id: Some(&self.reply.session_id),
            reminder_added: &*reminder_added,
            now: self.env.clock.now(),
        };
        tools::run_tool(&env, name, args).await
    }
}

/// Cuts a tool result for the model, saying how much was cut.
pub(in crate::replies) fn cut_result(text: &str) -> String {
    let total = text.chars().count();
    if total <= MAX_RESULT_CHARS {
        return text.to_string();
    }
    let end = text
        .char_indices()
        .nth(MAX_RESULT_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}\n[… {} more characters cut]",
        &text[..end],
        total - MAX_RESULT_CHARS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_results_are_cut_with_a_note() {
        assert_eq!(cut_result("short"), "short");
        let long = "é".repeat(4100);
        let cut = cut_result(&long);
        assert!(cut.starts_with(&"é".repeat(4000)));
        assert!(
            cut.ends_with("[… 100 more characters cut]"),
            "{}",
            &cut[cut.len() - 40..]
        );
    }
}
