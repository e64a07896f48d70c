//! `stream_reply`: the tool loop of one reply.
//!
//! Each model turn streams text and may call tools; every call of a turn
//! runs in order and the next turn starts. A turn without calls is the
//! answer. `ask_user` parks the reply on a waiter (giving up its writing
//! slot) until the answer, a stop, the end of the reply or the timeout
//! (see `asking`); other calls run grounded (see `grounded`); the guards
//! against a small model's habits are the `policy`.

use std::sync::Arc;
use std::time::Duration;

use app::protocol::{DashboardEvent, ReplyEvent, ToolStatus};
use serde_json::Value;
use tokio::sync::{broadcast, OwnedSemaphorePermit, Semaphore};

use super::policy::{self, SmallModelPolicy};
use super::{Replies, Reply};
use crate::clock::Clock;
use crate::grounding::{self, Need};
use crate::models::shown_text::without_markup;
use crate::models::{ChatMessage, ModelClient, ModelEvent, ToolCallRequest, TurnRequest};
use crate::research::Research;
use crate::store::{NewMessage, Store, ToolOutcome};
use crate::tools::{
    self, run::ToolEnv, Offer, ToolOutput, WritesAsked, ASK_USER, MAX_RESULT_CHARS,
};

/// What every reply needs from the server.
pub struct ReplyEnv {
    pub model: ModelClient,
    /// The tool sets, built once and shared by every reply (a set is ~20 KB
    /// of JSON values; thousands of waiting replies must not each hold one).
    pub tool_sets: ToolSets,
    /// The writing slots: a fair (FIFO) semaphore around model work.
    pub slots: Arc<Semaphore>,
    pub research_budget: Duration,
    pub max_tool_iters: u32,
    pub answer_timeout: Duration,
    pub dashboard: broadcast::Sender<DashboardEvent>,
    pub reminder_added: Arc<dyn Fn() + Send + Sync>,
    /// "Now", for every date a reply works out.
    pub clock: Clock,
}

/// The tool schemas for each kind of caller and each set of writes a
/// request may ask for (16 sets, built once).
pub struct ToolSets {
    sets: Vec<Arc<Vec<Value>>>,
}

impl ToolSets {
    pub fn new(format: crate::config::ToolFormat) -> Self {
        let sets = (0..16usize)
            .map(|index| {
                let bit = |b: usize| index & (1 << b) != 0;
                let offer = Offer {
                    read_only: bit(3),
                    can_answer: bit(2),
                };
                let writes = WritesAsked {
                    save: bit(1),
                    remind: bit(0),
                };
                Arc::new(tools::offered_for(format, offer, writes))
            })
            .collect();
        Self { sets }
    }

    /// The tools a caller may offer, with only the writes the request asks
    /// for.
    pub fn get(&self, offer: Offer, writes: WritesAsked) -> Arc<Vec<Value>> {
        let index = usize::from(offer.read_only) * 8
            + usize::from(offer.can_answer) * 4
            + usize::from(writes.save) * 2
            + usize::from(writes.remind);
        Arc::clone(&self.sets[index])
    }
}

/// One reply to run.
pub struct ReplyJob {
    pub env: Arc<ReplyEnv>,
    pub replies: Arc<Replies>,
    pub reply: Arc<Reply>,
    /// Where the reply's history is written (an in-memory store for a
    /// voice conversation that is not saved).
    pub store: Store,
    pub offer: Offer,
    /// The conversation so far, the new user message last.
    pub history: Vec<ChatMessage>,
}

/// Why the loop ended before an answer.
#[derive(Debug)]
pub(super) enum Interrupt {
    Stopped,
    Ended,
    Failed(String),
}

/// Runs the reply to its end: the answer, a stop, or a failure. Always
/// ends the log with `done`, after the reply has left the registry.
pub async fn stream_reply(job: ReplyJob) {
    let reply = Arc::clone(&job.reply);
    let replies = Arc::clone(&job.replies);
    let env = Arc::clone(&job.env);
    let store = job.store.clone();
    let mut run = Run::new(job);
    let outcome = run.run().await;
    run.release_slot();
    // Markup never reaches the user, even in the stored answer.
    let text = without_markup(&run.text);
    let session = reply.session_id.clone();
    // A small model may write nothing readable after its tools ran (see
    // the policy): Imprint answers from what was done or found.
    let fallback = run.policy.fallback(env.clock.now());
    let text = match (&outcome, text.is_empty(), fallback) {
        (Ok(()), true, Some(fallback)) => {
            reply.log.publish(ReplyEvent::Token {
                text: fallback.clone(),
            });
            fallback
        }
        _ => text,
    };
    let final_event = match outcome {
        Ok(()) if text.is_empty() => ReplyEvent::Error {
            error: "the model gave no answer".into(),
        },
        Ok(()) => match append(&store, &session, assistant(&text, false)).await {
            Ok(()) => ReplyEvent::AssistantMessage {
                html: Some(crate::markdown::to_html(&text)),
                text,
            },
            Err(error) => ReplyEvent::Error { error },
        },
        Err(interrupt) => {
            if !text.is_empty() {
                if let Err(error) = append(&store, &session, assistant(&text, true)).await {
                    tracing::warn!(%error, "could not keep the stopped reply's text");
                }
            }
            match interrupt {
                Interrupt::Stopped | Interrupt::Ended => ReplyEvent::Stopped,
                Interrupt::Failed(error) => ReplyEvent::Error { error },
            }
        }
    };
    let (outcome, error) = match &final_event {
        ReplyEvent::AssistantMessage { .. } => ("answered", None),
        ReplyEvent::Error { error } => ("error", Some(error.clone())),
        _ => ("stopped", None),
    };
    reply.log.publish(final_event);
    replies.finish(&reply);
    let _ = env.dashboard.send(DashboardEvent::ReplyFinished {
        session_id: session,
        reply_id: reply.id.clone(),
        outcome: outcome.into(),
        error,
    });
    reply.log.publish(ReplyEvent::Done);
}

fn assistant(text: &str, stopped: bool) -> NewMessage {
    let mut message = NewMessage::assistant(text);
    message.stopped = stopped;
    message
}

pub(super) async fn append(
    store: &Store,
    session: &str,
    message: NewMessage,
) -> Result<(), String> {
    store
        .append_message(session, message)
        .await
        .map(|_| ())
        .map_err(|e| {
            tracing::error!(error = %e, "could not store a message");
            "the reply could not be saved".to_string()
        })
}

pub(super) struct Run {
    pub(super) env: Arc<ReplyEnv>,
    pub(super) store: Store,
    pub(super) reply: Arc<Reply>,
    pub(super) messages: Vec<ChatMessage>,
    pub(super) tools: Arc<Vec<Value>>,
    pub(super) research: Research,
    permit: Option<OwnedSemaphorePermit>,
    /// Everything the user has been shown, across turns.
    text: String,
    /// The user's message this reply answers, and the answers given
    /// during it: the words grounded arguments must come from.
    pub(super) request: String,
    pub(super) answers: Vec<String>,
    /// The guards against a small model's habits.
    pub(super) policy: SmallModelPolicy,
    /// The caller allows no writes (writes are then not offered at all).
    pub(super) read_only: bool,
    /// Questions put to the user in this reply (the model's and Imprint's).
    pub(super) asked: usize,
    /// The details Imprint asked for in this reply, and what came of it.
    pub(super) settled: Vec<(std::mem::Discriminant<Need>, Option<grounding::Resolved>)>,
    turns: u32,
}

/// One finished model turn.
struct Turn {
    text: String,
    calls: Vec<ToolCallRequest>,
    malformed: usize,
}

impl Run {
    fn new(job: ReplyJob) -> Self {
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
        let mut messages = vec![ChatMessage::System(tools::system_prompt(
            &tools,
            job.env.clock.now(),
        ))];
        messages.extend(job.history);
        Self {
            request,
            answers: Vec::new(),
            policy: SmallModelPolicy::default(),
            read_only: job.offer.read_only,
            asked: 0,
            settled: Vec::new(),
            research: Research::new(job.env.research_budget, job.env.max_tool_iters),
            env: job.env,
            store: job.store,
            reply: job.reply,
            messages,
            tools,
            permit: None,
            text: String::new(),
            turns: 0,
        }
    }

    async fn run(&mut self) -> Result<(), Interrupt> {
        self.settle_the_project().await?;
        loop {
            let exhausted = if self.tools.is_empty() {
                None
            } else {
                self.research.exhausted()
            };
            if let Some(why) = exhausted {
                return self.reserved_answer(why.note()).await;
            }
            let mut turn = self.turn(true).await?;
            if turn.calls.is_empty() && turn.malformed == 0 {
                let details_asked = !self.settled.is_empty();
                if let Some(call) =
                    self.policy
                        .reminder_for_the_model(&self.tools, &self.request, details_asked)
                {
                    // Nudged and still nothing set: Imprint makes the call.
                    self.messages.push(ChatMessage::Assistant {
                        content: turn.text,
                        tool_calls: vec![call.clone()],
                    });
                    let (progress, _) = self.call(call).await?;
                    self.research.finish_turn(progress);
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
            let mut progress = false;
            let cap_note = SmallModelPolicy::cap_calls(&mut turn.calls);
            if !turn.calls.is_empty() {
                self.messages.push(ChatMessage::Assistant {
                    content: turn.text,
                    tool_calls: turn.calls.clone(),
                });
                let mut statuses = Vec::with_capacity(turn.calls.len());
                for call in turn.calls {
                    let (made_progress, status) = self.call(call).await?;
                    progress |= made_progress;
                    statuses.push(status);
                }
                if policy::did_nothing(&statuses) && self.policy.job_done(&self.request) {
                    // The job is done and the model only repeats, asks
                    // or writes what was not asked: a small model looping.
                    return self
                        .reserved_answer("What the user asked for is done.")
                        .await;
                }
            }
            self.messages.extend(cap_note);
            if turn.malformed > 0 {
                self.messages.push(ChatMessage::User(
                    "(Imprint: a tool call you wrote could not be read. Write it again exactly in the format given, or answer without it.)".into(),
                ));
            }
            self.research.finish_turn(progress);
        }
    }

    /// One last turn without tools, told to answer from what it found.
    async fn reserved_answer(&mut self, why: &str) -> Result<(), Interrupt> {
        self.messages.push(ChatMessage::User(format!(
            "(Imprint: {why} Do not call any more tools. Answer the user now from what you found, and say what you could not find.)"
        )));
        self.turn(false).await.map(|_| ())
    }

    /// Streams one model turn; `allow_calls` false is the reserved answer
    /// (tools neither described nor run, markup still kept from the user).
    async fn turn(&mut self, allow_calls: bool) -> Result<Turn, Interrupt> {
        self.ensure_slot().await?;
        self.turns += 1;
        let request = TurnRequest {
            messages: self.messages.clone(),
            tools: Arc::clone(&self.tools),
            allow_calls,
            call_id_prefix: format!("t{}_", self.turns),
        };
        let mut events = self
            .env
            .model
            .stream_turn(request, self.reply.stop_token().clone());
        let mut turn = Turn {
            text: String::new(),
            calls: Vec::new(),
            malformed: 0,
        };
        loop {
            let event = tokio::select! {
                biased;
                _ = self.reply.stop_token().cancelled() => return Err(self.interrupted()),
                event = events.recv() => event,
            };
            match event {
                None => break,
                Some(Ok(ModelEvent::Text(text))) => {
                    turn.text.push_str(&text);
                    self.text.push_str(&text);
                    self.reply.log.publish(ReplyEvent::Token { text });
                }
                Some(Ok(ModelEvent::ToolCall(call))) if allow_calls => turn.calls.push(call),
                Some(Ok(ModelEvent::ToolCall(_))) => {}
                Some(Ok(ModelEvent::Malformed(raw))) => {
                    tracing::debug!(%raw, "unreadable tool markup");
                    turn.malformed += usize::from(allow_calls);
                }
                Some(Err(error)) => return Err(Interrupt::Failed(error.to_string())),
            }
        }
        if self.reply.stop_token().is_cancelled() {
            return Err(self.interrupted());
        }
        Ok(turn)
    }

    pub(super) fn interrupted(&self) -> Interrupt {
        if self.reply.end_token().is_cancelled() {
            Interrupt::Ended
        } else {
            Interrupt::Stopped
        }
    }

    /// Runs one call: publishes it, runs it, publishes and stores its
    /// result, and hands it to the model. Returns whether it made progress
    /// and what became of it.
    async fn call(&mut self, call: ToolCallRequest) -> Result<(bool, ToolStatus), Interrupt> {
        self.reply.log.publish(ReplyEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            args: call.arguments.clone(),
        });
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
        append(&self.store, &self.reply.session_id, row)
            .await
            .map_err(Interrupt::Failed)?;
        self.messages.push(ChatMessage::Tool {
            call_id: call.id,
            name: call.name,
            content: result,
        });
        // Refused, repeated and unasked calls are no progress.
        let progress = outcome.status == ToolStatus::Done
            && (output.wrote || self.research.learn(output.facts));
        Ok((progress, outcome.status))
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
            permit = slots.acquire_owned() => permit,
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
