//! A reply's resumable state: rebuilt at start from what was stored
//! before its question was shown, stored again with each step while it
//! waits, and dropped once it writes again.

use app::protocol::{Question, ReplyEvent, UnansweredReason};

use super::asking::questions::{Questions, Resumed, ResumedWait};
use super::asking::show_question;
use super::checkpoint::{self, Checkpoint, Step};
use super::env::ReplyJob;
use super::grounded::settled::Settling;
use super::policy::SmallModelPolicy;
use super::run::{Interrupt, Run};
use super::stream::turns::Turns;
use super::talk::Talk;
use crate::ask::UserAnswer;
use crate::research::Research;
use crate::store::{NewMessage, SavedState};

impl Run {
    /// A run rebuilt from its stored state. Registers the waiting question
    /// and posts it again in the reply's log (which goes on after the last
    /// stored `seq`), unless its answer was stored or it expired.
    pub(super) fn restore(job: ReplyJob, saved: Checkpoint, answer: Option<String>) -> Self {
        // Guards stored by another version may not read: the reply still
        // goes on (its question matters more), with fresh guards, said so.
        let offer = saved.offer();
        let policy = serde_json::from_value::<SmallModelPolicy>(saved.policy).unwrap_or_else(|error| {
            tracing::warn!(%error, reply = %job.reply.id, "a restored reply's guards could not be read; it goes on with fresh ones");
            SmallModelPolicy::default()
        });
        // The writes offered as when it began: its words' and its judged
        // kind's.
        let tools = job.env.tool_sets.get(
            offer,
            crate::grounding::writes_asked(&saved.request).or(policy.judged_writes()),
        );
        let resumed = saved.question.map(|question| {
            let left = question
                .expires_at
                .as_deref()
                .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
                .map(|at| {
                    (at.with_timezone(&chrono::Utc) - chrono::Utc::now())
                        .to_std()
                        .unwrap_or_default()
                })
                .unwrap_or(job.env.answer_timeout);
            let ended = match answer {
                Some(text) => Some(ResumedWait::Answered(UserAnswer::from_stored(&text))),
                None if left.is_zero() => Some(ResumedWait::Expired),
                None => None,
            };
            let wait = show_question(&job.reply, &job.env.dashboard, &question, left, ended);
            Resumed { question, wait }
        });
        let (settling, pending) = match saved.step {
            Step::Settle => (true, None),
            Step::Calls(pending) => (false, Some(pending)),
        };
        Self {
            talk: Talk::restored(
                saved.request,
                saved.answers,
                saved.messages,
                tools,
                offer,
                saved.text,
            ),
            policy,
            research: Research::restore(saved.research),
            turns: Turns::restored(saved.turns, pending),
            questions: Questions::restored(saved.asked, saved.asking, resumed),
            settling: Settling::restored(settling, saved.settled),
            env: job.env,
            reply: job.reply,
        }
    }

    /// The reply's state now, as stored to resume it; `question`: the one
    /// about to be posed.
    pub(super) fn saved_state(&self, question: Option<&Question>) -> SavedState {
        let offer = self.talk.offer();
        let saved = Checkpoint {
            version: checkpoint::VERSION,
            read_only: offer.read_only,
            can_answer: offer.can_answer,
            spoken: offer.spoken,
            messages: self.talk.messages().to_vec(),
            research: self.research.save(),
            request: self.talk.request().to_string(),
            answers: self.talk.answers().to_vec(),
            policy: serde_json::to_value(&self.policy).unwrap_or_default(),
            asked: self.questions.asked(),
            settled: self.settling.all().to_vec(),
            turns: self.turns.count(),
            text: self.talk.shown().to_string(),
            step: match self.turns.pending() {
                Some(pending) => Step::Calls(pending.clone()),
                None => Step::Settle,
            },
            asking: self.questions.own().cloned(),
            question: question.cloned(),
        };
        let last_seq = self.reply.log.last_seq() + u64::from(question.is_some());
        SavedState {
            checkpoint: serde_json::to_string(&saved).unwrap_or_default(),
            question_id: question.map(|q| q.id.clone()),
            last_seq,
        }
    }

    /// Appends history rows of the current step; while the reply's state is
    /// stored, the state after the step is stored with them, in one write.
    pub(super) async fn append_step(&mut self, rows: Vec<NewMessage>) -> Result<(), Interrupt> {
        let session = self.reply.session_id.clone();
        let result = if self.questions.is_stored() {
            let state = self.saved_state(None);
            self.reply
                .store
                .append_reply_step(&session, &self.reply.id, rows, Some(state))
                .await
        } else {
            self.reply
                .store
                .append_messages(&session, rows)
                .await
                .map(|_| ())
        };
        result.map_err(|e| {
            tracing::error!(error = %e, "could not store a message");
            Interrupt::failure("the reply could not be saved".into())
        })
    }

    /// The reply writes again (a model request is on its way): its stored
    /// state is no longer how to resume it.
    pub(super) fn leave_checkpoint(&mut self) {
        if let Some(resumed) = self.questions.take_resumed() {
            // The step that asked took another path after the restart.
            tracing::warn!(question = %resumed.question.id, "a restored question was not asked again");
            self.reply.log.publish(ReplyEvent::Unanswered {
                id: resumed.question.id,
                reason: UnansweredReason::Stopped,
                chosen: None,
            });
        }
        if self.questions.unstore() {
            self.reply.store.drop_reply_state(&self.reply.id);
        }
    }
}
