//! `stream_reply`: the tool loop of one reply, and the reply's state as it
//! runs ([`Run`]).
//!
//! Each model turn streams text and may call tools; every call of a turn
//! runs in order and the next turn starts. A turn without calls is the
//! answer. `ask_user` parks the reply on a waiter (giving up its writing
//! slot) until the answer, a stop, the end of the reply or the timeout
//! (see `asking`); other calls run grounded (see `grounded`); the guards
//! against a small model's habits are the `policy`.
//!
//! Here: the loop and how it judges a turn. A turn's calls still to run
//! are in `pending`, one call's run in `call`, the writing slot in `slot`.

mod call;
mod pending;
mod slot;

pub(super) use call::cut_result;

use std::sync::Arc;

use app::protocol::{Ended, ReplyEvent};
use serde_json::Value;

use super::checkpoint::{Asking, Checkpoint, PendingCalls};
use super::ending::drive;
pub use super::env::{ReplyEnv, ReplyJob, ToolSets};
use super::policy::SmallModelPolicy;
use super::resume::Resumed;
use super::slots::WritingSlot;
use super::turn::Turn;
use super::{Replies, Reply};
use crate::grounding::{self, NeedKind};
use crate::models::note::{Note, StopReason};
use crate::models::shown_text::without_markup;
use crate::models::{ChatMessage, ModelError};
use crate::research::Research;
use crate::store::Store;
use crate::tools;

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
        let tools = job
            .env
            .tool_sets
            .get(job.offer, grounding::writes_asked(&request));
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
                return self.reserved_answer(why.reason()).await;
            }
            let turn = self.turn(true).await?;
            if let Some(why) = self.cut_short(&turn) {
                // What it had written counts as its turn (without the
                // markup of a call that never finished).
                self.messages.push(ChatMessage::Assistant {
                    content: without_markup(&turn.text),
                    tool_calls: Vec::new(),
                });
                return self.reserved_answer(why).await;
            }
            if turn.calls.is_empty() && turn.malformed == 0 {
                if self.turn_without_calls(turn.text).await {
                    return Ok(());
                }
                continue;
            }
            self.take_calls(turn);
        }
    }

    /// Why research ends right after this turn, if it does: the deadline
    /// passed while the model wrote, or the model wrote hidden markup
    /// past any call's length a second time (twice is a habit: another
    /// try would cost as much).
    fn cut_short(&mut self, turn: &Turn) -> Option<StopReason> {
        if turn.out_of_time {
            if let Some(why) = self.research.exhausted() {
                return Some(why.reason());
            }
        }
        if turn.overlong && turn.calls.is_empty() {
            self.overlong_turns += 1;
            if self.overlong_turns > 1 {
                return Some(StopReason::Overlong);
            }
        }
        None
    }

    /// A turn without calls (its `text` written) is the answer, unless a
    /// write the user asked for was not made: Imprint makes it, or nudges
    /// the model once. True when it is the answer.
    async fn turn_without_calls(&mut self, mut text: String) -> bool {
        // Answered as if saved, and nothing stored: Imprint stores what
        // the user said to keep, after the model's text.
        if grounding::writes_asked(&self.request).save
            && self.write_for_the_model_of(false, &mut text).await
        {
            return false;
        }
        // A detail asked for that never came: no nudge (a time asked
        // before the model started and given still is one).
        let details_asked = self.details_asked();
        if let Some(call) =
            self.policy
                .reminder_for_the_model(&self.tools, &self.request, details_asked)
        {
            // Nudged and still nothing set: Imprint makes the call.
            self.call_for_the_model(text, call);
            return false;
        }
        let Some(nudge) = self
            .policy
            .reminder_nudge(&self.tools, &self.request, details_asked)
        else {
            return true;
        };
        self.messages.push(ChatMessage::Assistant {
            content: text,
            tool_calls: Vec::new(),
        });
        self.messages.push(nudge);
        self.research.finish_turn(false);
        false
    }

    /// One last turn without tools, told to answer from what it found.
    async fn reserved_answer(&mut self, why: StopReason) -> Result<(), Interrupt> {
        self.messages.push(Note::AnswerNow(why).message());
        self.turn(false).await.map(|_| ())
    }

    /// Shows `text` as part of the answer.
    pub(super) fn push_text(&mut self, text: String) {
        self.text.push_str(&text);
        // Queued before it is shown: if Imprint dies now, the text shown
        // so far is kept, marked interrupted.
        self.store.add_reply_text(&self.reply.id, &text);
        self.reply.log.publish(ReplyEvent::Token { text });
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
}
