//! `stream_reply`: the tool loop of one reply (the reply's state as it
//! runs is [`Run`], in `run`).
//!
//! Each model turn streams text and may call tools; every call of a turn
//! runs in order and the next turn starts. A turn without calls is the
//! answer. `ask_user` parks the reply on a waiter (giving up its writing
//! slot) until the answer, a stop, the end of the reply or the timeout
//! (see `asking`); other calls run grounded (see `grounded`); the guards
//! against a small model's habits are the `policy`.
//!
//! Here: the loop and how it judges a turn. A turn's calls still to run
//! are in `pending`, one call's run in `call`, the writing slot in `slot`;
//! the loop's own state (turns, slot, calls pending) in `turns`.

mod call;
mod pending;
mod slot;
pub(super) mod turns;

pub(super) use call::cut_result;

use std::sync::Arc;

use super::checkpoint::Checkpoint;
use super::ending::drive;
use super::env::ReplyJob;
use super::run::{Interrupt, Run};
use super::turn::Turn;
use crate::grounding;
use crate::models::note::{Note, StopReason};
use crate::models::shown_text::without_markup;
use crate::models::ChatMessage;

/// Runs the reply to its end: the answer, a stop, or a failure. Always
/// ends the log with `done`, after the reply has left the registry (but
/// for a shutdown, which ends every stream anyway).
pub async fn stream_reply(job: ReplyJob) {
    let replies = Arc::clone(&job.replies);
    drive(Run::new(job), replies).await
}

/// A reply restored at start from its stored state. Its question is
/// registered (or its stored answer taken) before this returns, so the
/// session shows it waiting from the first request on.
pub fn resume_reply(
    job: ReplyJob,
    checkpoint: Checkpoint,
    answer: Option<String>,
) -> impl std::future::Future<Output = ()> + Send {
    let replies = Arc::clone(&job.replies);
    drive(Run::restore(job, checkpoint, answer), replies)
}

impl Run {
    pub(super) async fn run(&mut self) -> Result<(), Interrupt> {
        if self.questions.is_stored() && (self.env.planned || self.settling.is_open()) {
            // Restored at a start, with its steps up to its question to
            // take again (a planned reply's, or the settling before a
            // model's first turn): they must find what they found before
            // it (the events and namesakes found by meaning it asked
            // between), not what the words alone find while the model
            // loads. A model's own question resumes at once.
            self.env.meaning.settled(crate::meaning::START_WAIT).await;
        }
        if self.env.planned {
            return self.planned().await;
        }
        if self.settling.is_open() {
            self.settle().await?;
            self.settling.close();
        }
        loop {
            if self.turns.has_pending() {
                if self.run_pending().await? {
                    return Ok(());
                }
                continue;
            }
            let exhausted = if self.talk.tools().is_empty() {
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
                self.talk.push(ChatMessage::Assistant {
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
        if turn.overlong && turn.calls.is_empty() && self.turns.overlong_again() {
            return Some(StopReason::Overlong);
        }
        None
    }

    /// A turn without calls (its `text` written) is the answer, unless a
    /// write the user asked for was not made: Imprint makes it, or nudges
    /// the model once. True when it is the answer.
    async fn turn_without_calls(&mut self, mut text: String) -> bool {
        // Answered as if saved, and nothing stored: Imprint stores what
        // the user said to keep, after the model's text.
        if grounding::writes_asked(self.talk.request()).save
            && self.write_for_the_model_of(false, &mut text).await
        {
            return false;
        }
        // A detail asked for that never came: no nudge (a time asked
        // before the model started and given still is one).
        let details_asked = self.settling.details_asked();
        if let Some(call) = self.policy.reminder_for_the_model(
            self.talk.tools(),
            self.talk.request(),
            details_asked,
        ) {
            // Nudged and still nothing set: Imprint makes the call.
            self.call_for_the_model(text, call);
            return false;
        }
        let Some(nudge) =
            self.policy
                .reminder_nudge(self.talk.tools(), self.talk.request(), details_asked)
        else {
            return true;
        };
        self.talk.push(ChatMessage::Assistant {
            content: text,
            tool_calls: Vec::new(),
        });
        self.talk.push(nudge);
        self.research.finish_turn(false);
        false
    }

    /// One last turn without tools, told to answer from what it found.
    async fn reserved_answer(&mut self, why: StopReason) -> Result<(), Interrupt> {
        self.talk.push(Note::AnswerNow(why).message());
        self.turn(false).await.map(|_| ())
    }
}
