//! Asking the user during a reply: how a question is put and waited on.
//! The model's `ask_user` call is in `ask_user`; Imprint's own questions
//! (for a missing detail, asked once more when the answer cannot be read,
//! and its open question) are in `details`.
//!
//! Every question goes through [`Run::pose`]: the reply's state is stored
//! and the waiter registered before the `question` event (one door for a
//! question shown, [`show_question`], also for one restored), the writing
//! slot is given up while it waits, and the research deadline moves by
//! the time waited. A reply restored after a restart takes up its stored
//! question there.

mod ask_user;
mod details;
pub(super) mod questions;

use app::protocol::{
    DashboardEvent, Question, QuestionOrigin, QuestionOutcome, ReplyEvent, UnansweredReason,
};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::ending::append;
use super::registry::Reply;
use super::run::{Interrupt, Run};
use crate::ask::{UserAnswer, WaitOutcome};
use crate::store::{NewMessage, ToolOutcome};
use crate::tools::ASK_USER;
use questions::ResumedWait;

pub(in crate::replies) use details::Which;

/// How a question ended, short of a stop.
enum Posed {
    Answered(String),
    /// "You decide".
    LeftToImprint,
    TimedOut,
}

impl Run {
    /// "30 minutes": the answer timeout, as the model reads it.
    fn answer_wait(&self) -> String {
        let minutes = (self.env.answer_timeout.as_secs_f64() / 60.0)
            .round()
            .max(1.0);
        format!("{minutes} minutes")
    }

    fn new_question(
        &self,
        text: String,
        options: Vec<String>,
        allow_other: bool,
        origin: QuestionOrigin,
    ) -> Question {
        Question {
            id: crate::ids::new_id("q"),
            question: text,
            options,
            allow_other,
            expires_at: chrono::Duration::from_std(self.env.answer_timeout)
                .ok()
                .and_then(|d| chrono::Utc::now().checked_add_signed(d))
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
            origin,
            reason: None,
            why: None,
        }
    }

    /// Puts a question to the user and waits for the answer, the timeout,
    /// a stop or the end of the reply. The reply's state is stored before
    /// anyone sees the question; a restored reply takes up its stored
    /// question instead. The writing slot is given up while it waits and
    /// the research deadline moves by the time waited. A stop stores the
    /// unanswered question and interrupts the reply; a shutdown leaves it
    /// stored, to wait again after the restart. Returns how it ended and
    /// the question actually posed.
    async fn pose(&mut self, question: Question) -> Result<(Posed, Question), Interrupt> {
        let (question, wait) = match self.questions.take_resumed() {
            Some(resumed) => (resumed.question, resumed.wait),
            None => self.post(question).await?,
        };
        self.questions.count_asked();
        // Not using the model while waiting: let other chats write.
        self.release_slot();
        let outcome = self.wait_for(wait).await;
        if outcome == WaitOutcome::ReplyEnded && self.env.shutdown.is_cancelled() {
            return Err(Interrupt::Shutdown);
        }
        let _ = self.env.dashboard.send(DashboardEvent::QuestionClosed {
            session_id: self.reply.session_id.clone(),
            question_id: question.id.clone(),
        });
        let posed = self.close(&question, outcome).await?;
        self.ensure_slot().await?;
        Ok((posed, question))
    }

    /// Stores the reply's state with the question, then shows it: its
    /// waiter is registered before the event goes out.
    async fn post(&mut self, question: Question) -> Result<(Question, ResumedWait), Interrupt> {
        let state = self.saved_state(Some(&question));
        if let Err(error) = self
            .reply
            .store
            .save_reply_state(&self.reply.id, state)
            .await
        {
            tracing::error!(%error, "could not store a waiting reply");
            return Err(Interrupt::failure("the question could not be saved".into()));
        }
        self.questions.mark_stored();
        let wait = show_question(
            &self.reply,
            &self.env.dashboard,
            &question,
            self.env.answer_timeout,
            None,
        );
        Ok((question, wait))
    }

    /// Waits for the answer (or takes the one stored before a restart);
    /// the research deadline moves by the time waited.
    async fn wait_for(&mut self, wait: ResumedWait) -> WaitOutcome {
        let started = Instant::now();
        let outcome = match wait {
            ResumedWait::Waiting(ticket, timeout) => {
                ticket
                    .wait(self.reply.stop_token(), self.reply.end_token(), timeout)
                    .await
            }
            ResumedWait::Answered(UserAnswer::Text(text)) => WaitOutcome::Answered(text),
            ResumedWait::Answered(UserAnswer::LeftToImprint) => WaitOutcome::LeftToImprint,
            ResumedWait::Expired => WaitOutcome::TimedOut,
        };
        self.research.extend(started.elapsed());
        outcome
    }

    /// Publishes how the wait for `question` ended (an answer is kept
    /// among the user's words). A stop, or the end of the reply, stores
    /// the unanswered question and interrupts the reply.
    async fn close(
        &mut self,
        question: &Question,
        outcome: WaitOutcome,
    ) -> Result<Posed, Interrupt> {
        let question_id = question.id.clone();
        let posed = match outcome {
            WaitOutcome::Answered(text) => {
                self.reply.log.publish(ReplyEvent::Answer {
                    id: question_id,
                    text: text.clone(),
                });
                self.talk.add_answer(text.clone());
                Posed::Answered(text)
            }
            // Its `unanswered` event goes out once the caller knows what
            // was chosen (see `closed_left_to_imprint`).
            WaitOutcome::LeftToImprint => Posed::LeftToImprint,
            WaitOutcome::TimedOut => {
                self.reply.log.publish(ReplyEvent::Unanswered {
                    id: question_id,
                    reason: UnansweredReason::TimedOut,
                    chosen: None,
                });
                Posed::TimedOut
            }
            WaitOutcome::Stopped | WaitOutcome::ReplyEnded => {
                self.reply.log.publish(ReplyEvent::Unanswered {
                    id: question_id,
                    reason: UnansweredReason::Stopped,
                    chosen: None,
                });
                let mut stored_args = question_args(question);
                stored_args["outcome"] = json!(QuestionOutcome::Stopped);
                // The card's `outcome: "stopped"` says it; `ended` marks
                // assistant messages only (SPEC §4).
                let row =
                    NewMessage::tool(ASK_USER, stored_args, "No answer: the reply was stopped.")
                        .with_outcome(ToolOutcome::default());
                if let Err(error) = append(&self.reply.store, &self.reply.session_id, row).await {
                    tracing::warn!(%error, "could not keep the unanswered question");
                }
                return Err(self.interrupted());
            }
        };
        Ok(posed)
    }

    /// Closes a question the user left to Imprint, naming the option
    /// Imprint took for its own question, if any.
    fn closed_left_to_imprint(&self, question_id: String, chosen: Option<String>) {
        self.reply.log.publish(ReplyEvent::Unanswered {
            id: question_id,
            reason: UnansweredReason::LeftToImprint,
            chosen,
        });
    }
}

/// Shows `question` to the reply's watchers and the dashboard. Its waiter
/// is registered first, so an answer posted the moment the `question`
/// event arrives finds it; it then waits up to `timeout`. A question
/// restored after a restart whose wait ended while Imprint was down
/// (`ended`: its stored answer, or its expiry) is shown again with
/// nothing registered, and `ended` is how its wait goes on.
pub(super) fn show_question(
    reply: &Reply,
    dashboard: &broadcast::Sender<DashboardEvent>,
    question: &Question,
    timeout: Duration,
    ended: Option<ResumedWait>,
) -> ResumedWait {
    let wait = ended
        .unwrap_or_else(|| ResumedWait::Waiting(reply.waiters.register(question.clone()), timeout));
    reply.log.publish(ReplyEvent::Question(question.clone()));
    let _ = dashboard.send(DashboardEvent::QuestionWaiting {
        session_id: reply.session_id.clone(),
        question_id: question.id.clone(),
    });
    wait
}

/// A question as its `ask_user` history row stores it (the outcome is
/// added when known).
fn question_args(question: &Question) -> Value {
    let mut args = json!({
        "question": question.question,
        "options": question.options,
        "allow_other": question.allow_other,
        "question_id": question.id,
    });
    if question.origin == QuestionOrigin::Imprint {
        args["origin"] = json!("imprint");
    }
    if let Some(reason) = &question.reason {
        args["reason"] = json!(reason);
    }
    if let Some(why) = &question.why {
        args["why"] = json!(why);
    }
    args
}
