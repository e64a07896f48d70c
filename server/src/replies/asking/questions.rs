//! The asking part's own state ([`Questions`]): how many questions this
//! reply put, Imprint's own question across its attempts, whether the
//! user left the last detail to Imprint, a question restored after a
//! restart, and whether the reply's resumable state is stored. Changed
//! only here.

use std::time::Duration;

use app::protocol::Question;

use crate::ask::{Ticket, UserAnswer};
use crate::replies::checkpoint::Asking;

/// A restored question and how its wait goes on.
pub(in crate::replies) struct Resumed {
    pub(in crate::replies) question: Question,
    pub(in crate::replies) wait: ResumedWait,
}

pub(in crate::replies) enum ResumedWait {
    /// Registered at restore; waits for the time it has left.
    Waiting(Ticket, Duration),
    /// The answer was stored before the restart.
    Answered(UserAnswer),
    /// It expired while Imprint was down.
    Expired,
}

#[derive(Default)]
pub(in crate::replies) struct Questions {
    /// Questions put to the user in this reply (the model's and Imprint's).
    asked: usize,
    /// Imprint's own question across its attempts.
    own: Option<Asking>,
    /// The detail just settled was Imprint's pick: the user chose "You
    /// decide" (taken by the call that asked, to say so).
    imprint_chose: bool,
    /// A restored reply's question, to take up where the step asks it.
    resumed: Option<Resumed>,
    /// The reply's resumable state is stored (from its question until
    /// its next model request).
    stored: bool,
}

impl Questions {
    /// As stored with the reply's state (which is stored, then).
    pub(in crate::replies) fn restored(
        asked: usize,
        own: Option<Asking>,
        resumed: Option<Resumed>,
    ) -> Self {
        Self {
            asked,
            own,
            resumed,
            stored: true,
            imprint_chose: false,
        }
    }

    pub(in crate::replies) fn asked(&self) -> usize {
        self.asked
    }

    /// One more question put.
    pub(in crate::replies) fn count_asked(&mut self) {
        self.asked += 1;
    }

    pub(in crate::replies) fn own(&self) -> Option<&Asking> {
        self.own.as_ref()
    }

    pub(in crate::replies) fn set_own(&mut self, own: Option<Asking>) {
        self.own = own;
    }

    /// The user left the detail to Imprint, which chose.
    pub(in crate::replies) fn imprint_chose_it(&mut self) {
        self.imprint_chose = true;
    }

    pub(in crate::replies) fn imprint_chose(&self) -> bool {
        self.imprint_chose
    }

    /// Whether Imprint chose the detail just settled, taken once.
    pub(in crate::replies) fn take_imprint_chose(&mut self) -> bool {
        std::mem::take(&mut self.imprint_chose)
    }

    pub(in crate::replies) fn take_resumed(&mut self) -> Option<Resumed> {
        self.resumed.take()
    }

    pub(in crate::replies) fn is_stored(&self) -> bool {
        self.stored
    }

    /// The reply's state was stored with its question.
    pub(in crate::replies) fn mark_stored(&mut self) {
        self.stored = true;
    }

    /// The reply writes again: its stored state is dropped. True when it
    /// was stored.
    pub(in crate::replies) fn unstore(&mut self) -> bool {
        std::mem::take(&mut self.stored)
    }
}
