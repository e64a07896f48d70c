//! `stream_reply`: the tool loop of one reply.
//!
//! Each model turn streams text and may call tools; every call of a turn
//! runs in order and the next turn starts. A turn without calls is the
//! answer. `ask_user` parks the reply on a waiter (giving up its writing
//! slot) until the answer, a stop, the end of the reply or the timeout
//! (see `asking`); other calls run grounded (see `grounded`); the guards
//! against a small model's habits are the `policy`.

use std::sync::Arc;

use app::protocol::{Ended, ReplyEvent, ToolStatus};
use serde_json::Value;

use super::checkpoint::{Asking, Checkpoint, PendingCalls};
use super::ending::drive;
pub use super::env::{ReplyEnv, ReplyJob, ToolSets};
use super::policy::{self, SmallModelPolicy};
use super::resume::Resumed;
use super::slots::WritingSlot;
use super::{Replies, Reply};
use crate::grounding::{self, reference, NeedKind};
use crate::models::shown_text::without_markup;
use crate::models::{ChatMessage, ModelError, ToolCallRequest};
use crate::research::Research;
use crate::store::{NewMessage, Store, ToolOutcome};
use crate::tools::{
    self, run::MemoryLine, run::ToolEnv, ToolOutput, WritesAsked, ASK_USER, MAX_RESULT_CHARS,
};

/// Why the loop ended before an answer.
#[derive(Debug)]
pub(super) enum Interrupt {
    /// The user stopped the reply.
    Stopped,
    /// The reply's session was deleted.
    Ended,
    /// Imprint is shutting down: a reply that can resume stays stored.
    Shutdown,
    /// The model or the store failed; `ended` is how history marks it.
    Failed { error: String, ended: Ended },
}

impl Interrupt {
    pub(super) fn failure(error: String) -> Self {
        Interrupt::Failed {
            error,
            ended: Ended::Error,
        }
    }

    pub(super) fn model(error: ModelError) -> Self {
        let ended = match error {
            ModelError::CutOff => Ended::CutOff,
            _ => Ended::Error,
        };
        Interrupt::Failed {
            error: error.to_string(),
            ended,
        }
    }
}

/// Runs the reply to its end: the answer, a stop, or a failure. Always
/// ends the log with `done`, after the reply has left the registry (but
/// for a shutdown, which ends every stream anyway).
pub async fn stream_reply(job: ReplyJob) {
    drive(Run::new(job)).await
}

/// A reply restored at start from its stored state. Its question is
/// registered (or its stored answer taken) before this returns, so the
/// session shows it waiting from the first request on.
pub fn resume_reply(
    job: ReplyJob,
    checkpoint: Checkpoint,
    answer: Option<String>,
) -> impl std::future::Future<Output = ()> + Send {
    drive(Run::restore(job, checkpoint, answer))
}

pub(super) struct Run {
    pub(super) env: Arc<ReplyEnv>,
    pub(super) replies: Arc<Replies>,
    pub(super) store: Store,
    pub(super) reply: Arc<Reply>,
    pub(super) messages: Vec<ChatMessage>,
    pub(super) tools: Arc<Vec<Value>>,
    pub(super) research: Research,
    pub(super) permit: Option<WritingSlot>,
    /// Everything the user has been shown, across turns.
    pub(super) text: String,
    /// The user's message this reply answers, and the answers given
    /// during it: the words grounded arguments must come from.
    pub(super) request: String,
    pub(super) answers: Vec<String>,
    /// The guards against a small model's habits.
    pub(super) policy: SmallModelPolicy,
    /// The caller allows no writes (writes are then not offered at all).
    pub(super) read_only: bool,
    /// Turns ended for writing hidden markup past any call's length (not
    /// kept across a restart: it only shortens a failing reply).
    pub(super) overlong_turns: u32,
    /// Questions put to the user in this reply (the model's and Imprint's).
    pub(super) asked: usize,
    /// The details Imprint asked for in this reply, and what came of it.
    pub(super) settled: Vec<(NeedKind, Option<grounding::Resolved>)>,
    /// The detail just settled was Imprint's pick: the user chose "You
    /// decide" (taken by the call that asked, to say so).
    pub(super) imprint_chose: bool,
    pub(super) turns: u32,
    /// Before the first model turn (Imprint may ask which project, which
    /// thing, or when).
    pub(super) settling: bool,
    /// The current turn's calls not finished yet.
    pub(super) pending: Option<PendingCalls>,
    /// Imprint's own question across its attempts.
    pub(super) asking: Option<Asking>,
    /// The reply's resumable state is stored (from its question until
    /// its next model request).
    pub(super) checkpointed: bool,
    /// A restored reply's question, to take up where the step asks it.
    pub(super) resumed: Option<Resumed>,
    /// The first pending call was started before a restart: its
    /// `tool_call` event is not sent again.
    pub(super) replaying_call: bool,
    /// The last model turn stopped at the model's token limit.
    pub(super) length_limited: bool,
}

impl Run {
    pub(super) fn new(job: ReplyJob) -> Self {
        let request = job
            .history
            .iter()
            .rev()
            .find_map(|m| match m {
                ChatMessage::User(text) => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        // Writes the user did not ask for are not offered at all (rather
        // than refused after the model made them).
        let tools = job.env.tool_sets.get(job.offer, WritesAsked::of(&request));
        let messages = tools::reply_messages(&tools, job.history, job.env.clock.now());
        Self {
            request,
            answers: Vec::new(),
            policy: SmallModelPolicy::default(),
            read_only: job.offer.read_only,
            asked: 0,
            settled: Vec::new(),
            imprint_chose: false,
            overlong_turns: 0,
            research: Research::new(job.env.research_budget, job.env.max_tool_iters),
            env: job.env,
            store: job.store,
            reply: job.reply,
            messages,
            tools,
            permit: None,
            text: String::new(),
            turns: 0,
            settling: true,
            pending: None,
            asking: None,
            checkpointed: false,
            resumed: None,
            replaying_call: false,
            length_limited: false,
            replies: job.replies,
        }
    }

    pub(super) async fn run(&mut self) -> Result<(), Interrupt> {
        if self.env.planned {
            return self.planned().await;
        }
        if self.settling {
            self.settle().await?;
            self.settling = false;
        }
        loop {
            if self.pending.is_some() {
                if self.run_pending().await? {
                    return Ok(());
                }
                continue;
            }
            let exhausted = if self.tools.is_empty() {
                None
            } else {
                self.research.exhausted()
            };
            if let Some(why) = exhausted {
                if self.write_for_the_model().await {
                    continue;
                }
                return self.reserved_answer(why.note()).await;
            }
            let mut turn = self.turn(true).await?;
            if turn.out_of_time {
                if let Some(why) = self.research.exhausted() {
                    // What it had written counts as its turn (without the
                    // markup of a call that never finished).
                    self.messages.push(ChatMessage::Assistant {
                        content: without_markup(&turn.text),
                        tool_calls: Vec::new(),
                    });
                    return self.reserved_answer(why.note()).await;
                }
            }
            if turn.overlong && turn.calls.is_empty() {
                self.overlong_turns += 1;
                if self.overlong_turns > 1 {
                    // Twice is a habit: another try would cost as much.
                    self.messages.push(ChatMessage::Assistant {
                        content: without_markup(&turn.text),
                        tool_calls: Vec::new(),
                    });
                    return self
                        .reserved_answer("Your tool calls ran too long and were cut off.")
                        .await;
                }
            }
            if turn.calls.is_empty() && turn.malformed == 0 {
                // Answered as if saved, and nothing stored: Imprint stores
                // what the user said to keep, after the model's text.
                if WritesAsked::of(&self.request).save
                    && self.write_for_the_model_of(false, &mut turn.text).await
                {
                    continue;
                }
                // A detail asked for that never came: no nudge (a time
                // asked before the model started and given still is one).
                let details_asked = self.settled.iter().any(|(_, r)| r.is_none());
                if let Some(call) =
                    self.policy
                        .reminder_for_the_model(&self.tools, &self.request, details_asked)
                {
                    // Nudged and still nothing set: Imprint makes the call.
                    self.call_for_the_model(turn.text, call);
                    continue;
                }
                let Some(nudge) =
                    self.policy
                        .reminder_nudge(&self.tools, &self.request, details_asked)
                else {
                    return Ok(());
                };
                self.messages.push(ChatMessage::Assistant {
                    content: turn.text,
                    tool_calls: Vec::new(),
                });
                self.messages.push(nudge);
                self.research.finish_turn(false);
                continue;
            }
            let cap_note = SmallModelPolicy::cap_calls(&mut turn.calls);
            if !turn.calls.is_empty() {
                self.messages.push(ChatMessage::Assistant {
                    content: turn.text,
                    tool_calls: turn.calls.clone(),
                });
            }
            // The turn's calls run from here; its state goes with a
            // question's stored state, so a restart resumes mid-turn.
            self.pending = Some(PendingCalls {
                in_turn: turn.calls.len(),
                calls: turn.calls,
                statuses: Vec::new(),
                progress: false,
                cap_note,
                malformed: turn.malformed,
                by_imprint: false,
            });
        }
    }

    /// Research ended and a write the user asked for was not made (a
    /// memory to save, a reminder): Imprint makes the call itself. True
    /// when there is one to run.
    async fn write_for_the_model(&mut self) -> bool {
        self.write_for_the_model_of(true, &mut String::new()).await
    }

    /// [`Self::write_for_the_model`]; a reminder only when `reminder`. The
    /// call goes after the model's `text` (taken when there is a call).
    async fn write_for_the_model_of(&mut self, reminder: bool, text: &mut String) -> bool {
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects);
        // A detail asked for that never came: no write on a guess.
        let details_asked = self.settled.iter().any(|(_, r)| r.is_none());
        let call = self
            .policy
            .memory_for_the_model(&self.tools, &self.request, project, details_asked)
            .or_else(|| {
                reminder
                    .then(|| {
                        self.policy
                            .reminder_at_the_end(&self.tools, &self.request, details_asked)
                    })
                    .flatten()
            });
        let Some(call) = call else {
            return false;
        };
        self.call_for_the_model(std::mem::take(text), call);
        true
    }

    /// A call Imprint makes in the model's place, after the model's `text`:
    /// run as a turn's pending call, so a question its grounding asks
    /// resumes it after a restart.
    pub(super) fn call_for_the_model(&mut self, text: String, call: ToolCallRequest) {
        self.messages.push(ChatMessage::Assistant {
            content: text,
            tool_calls: vec![call.clone()],
        });
        self.pending = Some(PendingCalls {
            calls: vec![call],
            in_turn: 1,
            statuses: Vec::new(),
            progress: false,
            cap_note: None,
            malformed: 0,
            by_imprint: true,
        });
    }

    /// Runs the turn's calls still pending, then closes the turn. True
    /// when the reply has answered (a small model repeating itself).
    async fn run_pending(&mut self) -> Result<bool, Interrupt> {
        while let Some(call) = self.pending.as_ref().and_then(|p| p.calls.first().cloned()) {
            self.call(call).await?;
        }
        let Some(pending) = self.pending.take() else {
            return Ok(false);
        };
        let asked = WritesAsked::of(&self.request);
        let job_done = self.policy.job_done(&self.request);
        // Every write the request asked for is made: research is over (a
        // small model goes on listing and searching after it). Or the job
        // is done and the model only repeats, asks or writes what was not
        // asked: a small model looping.
        let writes_done = (asked.save || asked.remind) && job_done;
        // So is a turn that learned nothing new once Imprint's first search
        // settled what the request is about: a small model searches again
        // with other words for what it already has, turn after turn.
        let nothing_new = !pending.progress && self.policy.first_search_settled();
        let looping = !pending.by_imprint
            && job_done
            && (policy::did_nothing(&pending.statuses) || nothing_new);
        if writes_done || looping {
            self.reserved_answer("What the user asked for is done.")
                .await?;
            return Ok(true);
        }
        self.messages.extend(pending.cap_note);
        if pending.malformed > 0 {
            self.messages.push(ChatMessage::User(
                "(Imprint: a tool call you wrote could not be read. Write it again exactly in the format given, or answer without it.)".into(),
            ));
        }
        self.research.finish_turn(pending.progress);
        // A memory asked to be saved, and a turn that got nowhere: Imprint
        // saves it now rather than turns later (a small model lists the
        // projects again and again instead).
        if !pending.by_imprint && !pending.progress && asked.save && !job_done {
            self.write_for_the_model_of(false, &mut String::new()).await;
        }
        Ok(false)
    }

    /// One last turn without tools, told to answer from what it found.
    async fn reserved_answer(&mut self, why: &str) -> Result<(), Interrupt> {
        self.messages.push(ChatMessage::User(format!(
            "(Imprint: {why} Do not call any more tools. Answer the user now from what you found, and say what you could not find.)"
        )));
        self.turn(false).await.map(|_| ())
    }

    /// True while a call Imprint made (or the model's turn wrote) has not
    /// run yet, as after a restart mid-call.
    pub(super) fn has_pending_calls(&self) -> bool {
        self.pending.is_some()
    }

    /// Runs the pending calls to their end, without the model loop's
    /// judgement of the turn (planned turns have none).
    pub(super) async fn run_pending_calls(&mut self) -> Result<(), Interrupt> {
        while let Some(call) = self.pending.as_ref().and_then(|p| p.calls.first().cloned()) {
            self.call(call).await?;
        }
        self.pending = None;
        Ok(())
    }

    /// Shows `text` as part of the answer.
    pub(super) fn push_text(&mut self, text: String) {
        self.text.push_str(&text);
        // Queued before it is shown: if Imprint dies now, the text shown
        // so far is kept, marked interrupted.
        self.store.add_reply_text(&self.reply.id, &text);
        self.reply.log.publish(ReplyEvent::Token { text });
    }

    /// The model server's slot this reply writes on (see
    /// [`TurnRequest::slot`]).
    pub(super) fn slot_index(&self) -> Option<usize> {
        self.permit.as_ref().map(WritingSlot::index)
    }

    pub(super) fn interrupted(&self) -> Interrupt {
        if self.env.shutdown.is_cancelled() {
            Interrupt::Shutdown
        } else if self.reply.end_token().is_cancelled() {
            Interrupt::Ended
        } else {
            Interrupt::Stopped
        }
    }

    /// Runs one call: publishes it, runs it, publishes and stores its
    /// result, and hands it to the model, and notes it in the turn's
    /// pending calls (its progress and what became of it).
    pub(super) async fn call(&mut self, call: ToolCallRequest) -> Result<(), Interrupt> {
        if !std::mem::take(&mut self.replaying_call) {
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
            if call.name == ASK_USER && tools::is_offered(&self.tools, ASK_USER) {
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
        };
        self.reply.log.publish(ReplyEvent::ToolResult {
            id: call.id.clone(),
            name: call.name.clone(),
            result: result.clone(),
            status: outcome.status,
            row_id: outcome.row_id,
            args: Some(stored_args.clone()),
            found: outcome.found,
        });
        let row =
            NewMessage::tool(call.name.clone(), stored_args, stored_content).with_outcome(outcome);
        self.messages.push(ChatMessage::Tool {
            call_id: call.id,
            name: call.name,
            content: result,
        });
        // Refused, repeated and unasked calls are no progress, nor is
        // browsing once Imprint's first search settled what the request is
        // about (a small model lists the projects or the newest memories
        // every turn).
        let progress = outcome.status == ToolStatus::Done
            && (output.wrote || self.learn(searched, &output))
            && !listing_again;
        if let Some(pending) = self.pending.as_mut() {
            pending.calls.remove(0);
            pending.progress |= progress;
            pending.statuses.push(outcome.status);
        }
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

    pub(super) async fn run_tool(&self, name: &str, args: &Value) -> ToolOutput {
        let reminder_added = Arc::clone(&self.env.reminder_added);
        let env = ToolEnv {
            store: &self.store,
            session_id: Some(&self.reply.session_id),
            reminder_added: &*reminder_added,
            now: self.env.clock.now(),
        };
        tools::run_tool(&env, name, args).await
    }

    /// Takes a writing slot, waiting in line (FIFO) behind other replies.
    pub(super) async fn ensure_slot(&mut self) -> Result<(), Interrupt> {
        if self.permit.is_some() {
            return Ok(());
        }
        let slots = Arc::clone(&self.env.slots);
        let permit = tokio::select! {
            biased;
            _ = self.reply.stop_token().cancelled() => return Err(self.interrupted()),
            permit = slots.take() => permit,
        };
        match permit {
            Ok(permit) => {
                self.permit = Some(permit);
                Ok(())
            }
            Err(_) => Err(Interrupt::Ended),
        }
    }

    pub(super) fn release_slot(&mut self) {
        self.permit = None;
    }
}

/// Cuts a tool result for the model, saying how much was cut.
pub fn cut_result(text: &str) -> String {
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
