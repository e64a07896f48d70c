//! A turn's calls still to run: taken from the model's turn (capped), or
//! made by Imprint in the model's place; run in order; and the turn closed
//! and judged once they have run. They are part of the reply's stored
//! state, so a restart resumes mid-turn.

use crate::models::note::{Note, StopReason};
use crate::models::{ChatMessage, ToolCallRequest};
use crate::replies::checkpoint::PendingCalls;
use crate::replies::policy::{self, SmallModelPolicy};
use crate::replies::run::{Interrupt, Run};
use crate::replies::turn::Turn;

impl Run {
    /// Takes the turn's calls (at most the cap) to run from here.
    pub(super) fn take_calls(&mut self, mut turn: Turn) {
        let cap_note = SmallModelPolicy::cap_calls(&mut turn.calls);
        if !turn.calls.is_empty() {
            self.talk.push(ChatMessage::Assistant {
                content: turn.text,
                tool_calls: turn.calls.clone(),
            });
        }
        // The turn's calls run from here; its state goes with a
        // question's stored state, so a restart resumes mid-turn.
        self.turns.run_calls(PendingCalls {
            in_turn: turn.calls.len(),
            calls: turn.calls,
            statuses: Vec::new(),
            progress: false,
            cap_note,
            malformed: turn.malformed,
            by_imprint: false,
        });
    }

    /// Research ended and a write the user asked for was not made (a
    /// memory to save, a reminder): Imprint makes the call itself. True
    /// when there is one to run.
    pub(super) async fn write_for_the_model(&mut self) -> bool {
        self.write_for_the_model_of(true, &mut String::new()).await
    }

    /// [`Self::write_for_the_model`]; a reminder only when `reminder`. The
    /// call goes after the model's `text` (taken when there is a call).
    pub(super) async fn write_for_the_model_of(
        &mut self,
        reminder: bool,
        text: &mut String,
    ) -> bool {
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects);
        // A detail asked for that never came: no write on a guess.
        let details_asked = self.settling.details_asked();
        let call = self
            .policy
            .memory_for_the_model(
                self.talk.tools(),
                self.talk.request(),
                project,
                details_asked,
            )
            .or_else(|| {
                reminder
                    .then(|| {
                        self.policy.reminder_at_the_end(
                            self.talk.tools(),
                            self.talk.request(),
                            details_asked,
                            None,
                        )
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
    pub(in crate::replies) fn call_for_the_model(&mut self, text: String, call: ToolCallRequest) {
        self.talk.push(ChatMessage::Assistant {
            content: text,
            tool_calls: vec![call.clone()],
        });
        self.turns.run_calls(PendingCalls {
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
    pub(super) async fn run_pending(&mut self) -> Result<bool, Interrupt> {
        while let Some(call) = self.turns.next_call() {
            self.call(call).await?;
        }
        let Some(pending) = self.turns.finish_calls() else {
            return Ok(false);
        };
        let asked =
            crate::grounding::writes_asked(self.talk.request()).or(self.policy.judged_writes());
        let job_done = self.policy.job_done(self.talk.request());
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
            self.reserved_answer(StopReason::Done).await?;
            return Ok(true);
        }
        self.talk.extend(pending.cap_note);
        if pending.malformed > 0 {
            self.talk.push(Note::UnreadableCall.message());
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

    /// True while a call Imprint made (or the model's turn wrote) has not
    /// run yet, as after a restart mid-call.
    pub(in crate::replies) fn has_pending_calls(&self) -> bool {
        self.turns.has_pending()
    }

    /// Runs the pending calls to their end, without the model loop's
    /// judgement of the turn (planned turns have none).
    pub(in crate::replies) async fn run_pending_calls(&mut self) -> Result<(), Interrupt> {
        while let Some(call) = self.turns.next_call() {
            self.call(call).await?;
        }
        self.turns.finish_calls();
        Ok(())
    }
}
