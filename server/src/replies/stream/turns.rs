//! The tool loop's own state ([`Turns`]): the model turns counted, how the
//! last one ended, the writing slot held, and the turn's calls still to
//! run. Changed only here.

use app::protocol::ToolStatus;

use crate::models::ToolCallRequest;
use crate::replies::checkpoint::PendingCalls;
use crate::replies::slots::WritingSlot;

#[derive(Default)]
pub(in crate::replies) struct Turns {
    /// Model turns so far (kept across a restart).
    count: u32,
    /// The last model turn stopped at the model's token limit.
    length_limited: bool,
    /// Turns ended for writing hidden markup past any call's length (not
    /// kept across a restart: it only shortens a failing reply).
    overlong: u32,
    /// The writing slot, held while the reply uses the model.
    slot: Option<WritingSlot>,
    /// The current turn's calls not finished yet.
    pending: Option<PendingCalls>,
    /// The first pending call was started before a restart: its
    /// `tool_call` event is not sent again.
    replaying: bool,
}

impl Turns {
    /// As stored with the reply's state: `count` turns, mid-turn when
    /// `pending`.
    pub(in crate::replies) fn restored(count: u32, pending: Option<PendingCalls>) -> Self {
        Self {
            count,
            replaying: pending.as_ref().is_some_and(|p| !p.calls.is_empty()),
            pending,
            ..Self::default()
        }
    }

    /// A model turn starts; returns its number.
    pub(in crate::replies) fn start(&mut self) -> u32 {
        self.length_limited = false;
        self.count += 1;
        self.count
    }

    pub(in crate::replies) fn count(&self) -> u32 {
        self.count
    }

    /// The turn stopped at the model's token limit.
    pub(in crate::replies) fn reached_length_limit(&mut self) {
        self.length_limited = true;
    }

    pub(in crate::replies) fn length_limited(&self) -> bool {
        self.length_limited
    }

    /// A turn was ended for overlong markup; true from the second on.
    pub(in crate::replies) fn overlong_again(&mut self) -> bool {
        self.overlong += 1;
        self.overlong > 1
    }

    pub(in crate::replies) fn holds_slot(&self) -> bool {
        self.slot.is_some()
    }

    pub(in crate::replies) fn hold(&mut self, slot: WritingSlot) {
        self.slot = Some(slot);
    }

    pub(in crate::replies) fn release(&mut self) {
        self.slot = None;
    }

    /// The calls to run from here (a turn's, or Imprint's own).
    pub(in crate::replies) fn run_calls(&mut self, pending: PendingCalls) {
        self.pending = Some(pending);
    }

    pub(in crate::replies) fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    pub(in crate::replies) fn pending(&self) -> Option<&PendingCalls> {
        self.pending.as_ref()
    }

    /// The next call to run, if any.
    pub(in crate::replies) fn next_call(&self) -> Option<ToolCallRequest> {
        self.pending.as_ref().and_then(|p| p.calls.first().cloned())
    }

    /// The first pending call ran: what became of it.
    pub(in crate::replies) fn call_done(&mut self, progress: bool, status: ToolStatus) {
        if let Some(pending) = self.pending.as_mut() {
            pending.calls.remove(0);
            pending.progress |= progress;
            pending.statuses.push(status);
        }
    }

    /// The turn's calls have all run: their bookkeeping.
    pub(in crate::replies) fn finish_calls(&mut self) -> Option<PendingCalls> {
        self.pending.take()
    }

    /// True once per restored call: its `tool_call` event was sent
    /// before the restart.
    pub(in crate::replies) fn take_replaying(&mut self) -> bool {
        std::mem::take(&mut self.replaying)
    }
}
