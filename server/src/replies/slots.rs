//! The writing slots: how many replies talk to the model at once, taken in
//! line (FIFO), each with its number. A reply's model requests name the
//! slot it holds (llama-server's `id_slot`), so the model server keeps one
//! prompt cache per writing slot and a new reply starts from the prefix
//! the last reply on that slot left there.

use std::sync::{Arc, Mutex};

use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore};

/// The pool of writing slots.
pub struct WritingSlots {
    line: Arc<Semaphore>,
    /// The numbers of the slots nobody holds, the last freed on top: a
    /// new reply takes the slot used most recently, whose cache is warm.
    free: Arc<Mutex<Vec<usize>>>,
}

/// A slot held; given back when dropped.
pub struct WritingSlot {
    index: usize,
    free: Arc<Mutex<Vec<usize>>>,
    _permit: OwnedSemaphorePermit,
}

impl WritingSlots {
    pub fn new(count: usize) -> Self {
        Self {
            line: Arc::new(Semaphore::new(count)),
            // Reversed: slot 0 is on top, so one reply at a time always
            // uses slot 0.
            free: Arc::new(Mutex::new((0..count).rev().collect())),
        }
    }

    /// Waits in line for a slot.
    pub async fn take(&self) -> Result<WritingSlot, AcquireError> {
        let permit = Arc::clone(&self.line).acquire_owned().await?;
        // A permit guarantees a free number: numbers are pushed back
        // before their permit is released (field order of `WritingSlot`).
        let index = lock(&self.free).pop().unwrap_or_default();
        Ok(WritingSlot {
            index,
            free: Arc::clone(&self.free),
            _permit: permit,
        })
    }
}

impl WritingSlot {
    /// The slot's number, from 0.
    pub fn index(&self) -> usize {
        self.index
    }
}

impl Drop for WritingSlot {
    fn drop(&mut self) {
        // Runs before the permit (a field) is dropped.
        lock(&self.free).push(self.index);
    }
}

fn lock(free: &Mutex<Vec<usize>>) -> std::sync::MutexGuard<'_, Vec<usize>> {
    free.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_holder_has_its_own_number_and_a_freed_one_is_taken_next() {
        let slots = WritingSlots::new(3);
        let a = slots.take().await.unwrap();
        let b = slots.take().await.unwrap();
        assert_eq!((a.index(), b.index()), (0, 1));
        drop(b);
        let c = slots.take().await.unwrap();
        assert_eq!(c.index(), 1, "the slot used last is warm");
        let d = slots.take().await.unwrap();
        assert_eq!(d.index(), 2);
        drop(a);
        assert_eq!(slots.take().await.unwrap().index(), 0);
    }

    #[tokio::test]
    async fn one_slot_is_always_slot_zero_and_waits_in_line() {
        let slots = Arc::new(WritingSlots::new(1));
        let first = slots.take().await.unwrap();
        let waiting = {
            let slots = Arc::clone(&slots);
            tokio::spawn(async move { slots.take().await.unwrap().index() })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(first);
        assert_eq!(waiting.await.unwrap(), 0);
    }
}
