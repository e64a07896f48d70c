//! A reply's event log: every event in order, each with its sequence
//! number and its JSON written once, and a way for any number of watchers
//! to read it from any point and then follow it live.

use std::sync::{Arc, Mutex};

use app::protocol::ReplyEvent;
use tokio::sync::watch;

/// One logged event; `seq` starts at 1.
#[derive(Clone, Debug)]
pub struct LoggedEvent {
    pub seq: u64,
    pub event: ReplyEvent,
    /// The event as JSON, serialized once for every watcher.
    pub json: Arc<str>,
}

pub struct EventLog {
    /// The sequence number before the first event: 0, or for a reply
    /// restored after a restart the last one it had stored, so its events
    /// go on from there.
    base: u64,
    events: Mutex<Vec<Arc<LoggedEvent>>>,
    /// The number of events; watchers wake when it changes.
    len: watch::Sender<u64>,
}

impl Default for EventLog {
    fn default() -> Self {
        Self::continuing_after(0)
    }
}

impl EventLog {
    /// A log whose first event gets `seq + 1`.
    pub fn continuing_after(seq: u64) -> Self {
        Self {
            base: seq,
            events: Mutex::new(Vec::new()),
            len: watch::Sender::new(seq),
        }
    }

    /// The sequence number of the last event (the base when empty).
    pub fn last_seq(&self) -> u64 {
        self.base + self.lock().len() as u64
    }

    /// Appends an event and wakes the watchers; returns its sequence number.
    pub fn publish(&self, event: ReplyEvent) -> u64 {
        let json: Arc<str> = serde_json::to_string(&event)
            .unwrap_or_else(|_| r#"{"type":"error","error":"unserializable event"}"#.into())
            .into();
        let seq = {
            let mut events = self.lock();
            let seq = self.base + events.len() as u64 + 1;
            events.push(Arc::new(LoggedEvent { seq, event, json }));
            seq
        };
        self.len.send_replace(seq);
        seq
    }

    /// A cursor that yields the events after `after` (0: all), then waits
    /// for new ones; it ends after `done`. An `after` beyond the log (a
    /// resume from another reply, or a made-up id) replays nothing and
    /// follows from the end, so it still ends at `done`.
    pub fn follow(self: &Arc<Self>, after: u64) -> Cursor {
        let last = self.last_seq();
        Cursor {
            log: Arc::clone(self),
            // Events before a restart are gone: start at the first kept.
            next: after.clamp(self.base, last),
            len: self.len.subscribe(),
            finished: false,
        }
    }

    /// Whether `done` was published.
    pub fn is_done(&self) -> bool {
        self.lock().last().is_some_and(|e| e.event.is_done())
    }

    pub fn snapshot(&self) -> Vec<Arc<LoggedEvent>> {
        self.lock().clone()
    }

    /// The event with sequence number `seq + 1`.
    fn get(&self, seq: u64) -> Option<Arc<LoggedEvent>> {
        let index = seq.checked_sub(self.base)?;
        self.lock().get(index as usize).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<LoggedEvent>>> {
        self.events.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub struct Cursor {
    log: Arc<EventLog>,
    /// Sequence number of the last event handed out.
    next: u64,
    len: watch::Receiver<u64>,
    /// `done` was handed out (or lies behind the starting point).
    finished: bool,
}

impl Cursor {
    /// The next event, waiting for it if need be; `None` after `done`.
    pub async fn next(&mut self) -> Option<Arc<LoggedEvent>> {
        if self.finished {
            return None;
        }
        if self.next > self.log.base
            && self
                .log
                .get(self.next - 1)
                .is_some_and(|e| e.event.is_done())
        {
            self.finished = true;
            return None;
        }
        loop {
            if let Some(event) = self.log.get(self.next) {
                self.next += 1;
                self.finished = event.event.is_done();
                return Some(event);
            }
            // Wakes when an event is published. The sender lives in the log
            // this cursor holds, so it cannot be dropped while we wait.
            let next = self.next;
            if self.len.wait_for(|len| *len > next).await.is_err() {
                return None;
            }
        }
    }

    /// Every event available now without waiting (at most `max`); empty
    /// once `done` was handed out.
    pub fn ready(&mut self, max: usize) -> Vec<Arc<LoggedEvent>> {
        let mut batch = Vec::new();
        while !self.finished && batch.len() < max {
            match self.log.get(self.next) {
                Some(event) => {
                    self.next += 1;
                    self.finished = event.event.is_done();
                    batch.push(event);
                }
                None => break,
            }
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(text: &str) -> ReplyEvent {
        ReplyEvent::Token { text: text.into() }
    }

    #[tokio::test]
    async fn a_late_watcher_gets_the_whole_log_then_live_events() {
        let log = Arc::new(EventLog::default());
        log.publish(token("a"));
        log.publish(token("b"));
        let mut cursor = log.follow(0);
        assert_eq!(cursor.next().await.unwrap().seq, 1);
        assert_eq!(cursor.next().await.unwrap().seq, 2);
        let publisher = {
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                log.publish(token("c"));
                log.publish(ReplyEvent::Done);
            })
        };
        let third = cursor.next().await.unwrap();
        assert_eq!((third.seq, &third.event), (3, &token("c")));
        assert_eq!(cursor.next().await.unwrap().event, ReplyEvent::Done);
        assert!(cursor.next().await.is_none());
        publisher.await.unwrap();
    }

    #[tokio::test]
    async fn resuming_after_an_id_gives_exactly_the_events_after_it() {
        let log = Arc::new(EventLog::default());
        for t in ["a", "b", "c"] {
            log.publish(token(t));
        }
        log.publish(ReplyEvent::Done);
        let mut cursor = log.follow(2);
        let seqs: Vec<u64> = std::iter::from_fn(|| futures::executor::block_on(cursor.next()))
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, vec![3, 4]);
        let mut at_end = log.follow(4);
        assert!(at_end.next().await.is_none());
    }

    #[tokio::test]
    async fn resuming_past_the_end_replays_nothing_and_follows_live_or_ends() {
        let log = Arc::new(EventLog::default());
        log.publish(token("a"));
        let mut cursor = log.follow(1_000);
        log.publish(token("b"));
        assert_eq!(cursor.next().await.unwrap().event, token("b"));
        log.publish(ReplyEvent::Done);
        assert_eq!(cursor.next().await.unwrap().event, ReplyEvent::Done);
        assert!(cursor.next().await.is_none());
        let mut after_done = log.follow(u64::MAX);
        assert!(after_done.next().await.is_none(), "ends at once after done");
    }

    #[tokio::test]
    async fn a_restored_log_goes_on_after_its_stored_seq() {
        let log = Arc::new(EventLog::continuing_after(7));
        assert_eq!(log.last_seq(), 7);
        assert_eq!(log.publish(token("again")), 8);
        log.publish(ReplyEvent::Done);
        // A page that saw up to 7 before the restart gets 8 on.
        let mut resumed = log.follow(7);
        assert_eq!(resumed.next().await.unwrap().seq, 8);
        assert_eq!(resumed.next().await.unwrap().seq, 9);
        assert!(resumed.next().await.is_none());
        // One that saw less gets every event kept; one that saw 8, the rest.
        assert_eq!(log.follow(0).next().await.unwrap().seq, 8);
        assert_eq!(log.follow(8).next().await.unwrap().seq, 9);
    }

    #[tokio::test]
    async fn a_page_that_saw_past_the_stored_seq_gets_the_restored_events() {
        // Before the crash the page saw up to 12; the reply stored 7.
        let log = Arc::new(EventLog::continuing_after(7));
        let mut resumed = log.follow(12);
        log.publish(token("the question again"));
        assert_eq!(resumed.next().await.unwrap().seq, 8);
    }

    #[test]
    fn json_is_written_once_with_the_event() {
        let log = EventLog::default();
        log.publish(token("hi"));
        assert_eq!(&*log.snapshot()[0].json, r#"{"type":"token","text":"hi"}"#);
    }
}
