//! The writing slots: how many replies talk to the model at once, taken in
//! line (FIFO). The model server is not told which one a reply holds: it
//! picks its own slot for each request (see `models::client`).

use std::sync::Arc;

use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore};

/// The pool of writing slots.
pub struct WritingSlots {
    line: Arc<Semaphore>,
}

/// A slot held; given back when dropped.
pub struct WritingSlot {
    _permit: OwnedSemaphorePermit,
}

impl WritingSlots {
    pub fn new(count: usize) -> Self {
        Self {
            line: Arc::new(Semaphore::new(count)),
        }
    }

    /// Waits in line for a slot.
    pub async fn take(&self) -> Result<WritingSlot, AcquireError> {
        let permit = Arc::clone(&self.line).acquire_owned().await?;
        Ok(WritingSlot { _permit: permit })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_reply_waits_in_line_until_a_slot_is_given_back() {
        let slots = Arc::new(WritingSlots::new(2));
        let first = slots.take().await.unwrap();
        let _second = slots.take().await.unwrap();
        let waiting = {
            let slots = Arc::clone(&slots);
            tokio::spawn(async move { slots.take().await.map(drop) })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "two slots are held");
        drop(first);
        waiting.await.unwrap().unwrap();
    }
}
