//! The reply's hold on a writing slot (see [`crate::replies::WritingSlots`]):
//! taken, in line, before model work; given up while the reply waits for
//! the user and when it ends.

use std::sync::Arc;

use crate::replies::run::{Interrupt, Run};

impl Run {
    /// Takes a writing slot, waiting in line (FIFO) behind other replies.
    pub(in crate::replies) async fn ensure_slot(&mut self) -> Result<(), Interrupt> {
        if self.turns.holds_slot() {
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
                self.turns.hold(permit);
                Ok(())
            }
            Err(_) => Err(Interrupt::Ended),
        }
    }

    pub(in crate::replies) fn release_slot(&mut self) {
        self.turns.release();
    }
}
