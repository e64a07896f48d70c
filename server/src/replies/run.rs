//! A reply's state as it runs ([`Run`]): only what every part needs — the
//! reply (its ids, event log, stop scopes and store), the environment (the
//! model, the clock, the settings), the research budget and the
//! small-model guards — and one value for each part, which owns its own
//! fields and changes them in its own file:
//!
//! | field | type | changed in |
//! |---|---|---|
//! | `talk` | [`Talk`] | `talk.rs`: the request, the answers, the model's conversation, the tools offered, the text shown |
//! | `turns` | [`Turns`] | `stream/turns.rs`: the turns counted, the writing slot, the calls pending |
//! | `questions` | [`Questions`] | `asking/questions.rs`: questions asked, Imprint's own in progress, a restored one, whether the state is stored |
//! | `settling` | [`Settling`] | `grounded/settled.rs`: before the first model turn, and the details settled |
//! | `research` | [`Research`] | `research.rs` (the budget) |
//! | `policy` | [`SmallModelPolicy`] | `policy/` (the guards) |
//!
//! `env` and `reply` are never changed.

use std::sync::Arc;

use app::protocol::{Ended, ReplyEvent};

use super::asking::questions::Questions;
use super::env::{ReplyEnv, ReplyJob};
use super::grounded::settled::Settling;
use super::policy::SmallModelPolicy;
use super::registry::Reply;
use super::stream::turns::Turns;
use super::talk::Talk;
use crate::grounding;
use crate::models::{ChatMessage, ModelError};
use crate::research::Research;
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

pub(super) struct Run {
    pub(super) env: Arc<ReplyEnv>,
    pub(super) reply: Arc<Reply>,
    pub(super) research: Research,
    /// The guards against a small model's habits.
    pub(super) policy: SmallModelPolicy,
    pub(super) talk: Talk,
    pub(super) turns: Turns,
    pub(super) questions: Questions,
    pub(super) settling: Settling,
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
            talk: Talk::new(request, messages, tools, job.offer),
            policy: SmallModelPolicy::default(),
            research: Research::new(job.env.research_budget, job.env.max_tool_iters),
            turns: Turns::default(),
            questions: Questions::default(),
            settling: Settling::default(),
            env: job.env,
            reply: job.reply,
        }
    }

    /// Shows `text` as part of the answer.
    pub(super) async fn push_text(&mut self, text: String) {
        self.talk.show(&text);
        // Written before it is shown: if Imprint dies now, the text shown
        // so far is kept, marked interrupted.
        if let Err(error) = self
            .reply
            .store
            .keep_reply_text(&self.reply.id, &text)
            .await
        {
            tracing::warn!(%error, reply = %self.reply.id, "the text shown could not be kept");
        }
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
