//! A reply's event log: every event in order, each with its sequence
//! number and its server-sent event frame written once, and a way for any
//! number of watchers to read it from any point and then follow it live.

use std::sync::{Arc, RwLock};

use app::protocol::ReplyEvent;
use bytes::Bytes;
use tokio::sync::watch;

/// One logged event; `seq` starts at 1.
#[derive(Clone, Debug)]
pub struct LoggedEvent {
    pub seq: u64,
    pub event: ReplyEvent,
    /// The event as a server-sent event, `id: SEQ\ndata: JSON\n\n`,
    /// encoded once: every watcher is handed the same buffer.
    pub frame: Bytes,
    /// Where the JSON lies in `frame`.
    json: std::ops::Range<usize>,
}

impl LoggedEvent {
    fn new(seq: u64, event: ReplyEvent) -> Self {
        let json = serde_json::to_string(&event)
            .unwrap_or_else(|_| r#"{"type":"error","error":"unserializable event"}"#.into());
        let head = format!("id: {seq}\ndata: ");
        let mut frame = String::with_capacity(head.len() + json.len() + 2);
        frame.push_str(&head);
        frame.push_str(&json);
        frame.push_str("\n\n");
        Self {
            seq,
            event,
            json: head.len()..head.len() + json.len(),
            frame: Bytes::from(frame),
        }
    }

    /// The event as JSON (serialized once, with the frame).
    pub fn json(&self) -> &str {
        // The frame was built from a String; the range is on char bounds.
        std::str::from_utf8(&self.frame[self.json.clone()]).unwrap_or_default()
    }
}

pub struct EventLog {
    /// The sequence number before the first event: 0, or for a reply
    /// restored after a restart the last one it had stored, so its events
    /// go on from there.
    base: u64,
    /// Read by every watcher at each event, written by the reply alone.
    events: RwLock<Vec<Arc<LoggedEvent>>>,
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
            events: RwLock::new(Vec::new()),
            len: watch::Sender::new(seq),
        }
    }

    /// The sequence number of the last event (the base when empty).
    pub fn last_seq(&self) -> u64 {
        self.base + self.read().len() as u64
    }

    /// Appends an event and wakes the watchers; returns its sequence number.
    pub fn publish(&self, event: ReplyEvent) -> u64 {
        let seq = {
            let mut events = self.events.write().unwrap_or_else(|e| e.into_inner());
            let seq = self.base + events.len() as u64 + 1;
            events.push(Arc::new(LoggedEvent::new(seq, event)));
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
        // Subscribed first: an event published from here on wakes it.
        let len = self.len.subscribe();
        let (last, done) = {
            let events = self.read();
            let done = events.last().is_some_and(|e| e.event.is_done());
            (self.base + events.len() as u64, done)
        };
        // Events before a restart are gone: start at the first kept.
        let next = after.clamp(self.base, last);
        Cursor {
            log: Arc::clone(self),
            next,
            len,
            // Nothing is published after `done`.
            finished: done && next == last,
        }
    }

    /// Whether `done` was published.
    pub fn is_done(&self) -> bool {
        self.read().last().is_some_and(|e| e.event.is_done())
    }

    pub fn snapshot(&self) -> Vec<Arc<LoggedEvent>> {
        self.read().clone()
    }

    /// The event with sequence number `seq + 1`.
    fn get(&self, seq: u64) -> Option<Arc<LoggedEvent>> {
        let index = seq.checked_sub(self.base)?;
        self.read().get(index as usize).cloned()
    }

    /// The events after sequence number `seq`, at most `max`, under one
    /// read lock.
    fn after(&self, seq: u64, max: usize) -> Vec<Arc<LoggedEvent>> {
        let Some(index) = seq.checked_sub(self.base) else {
            return Vec::new();
        };
        let events = self.read();
        let start = (index as usize).min(events.len());
        let end = start.saturating_add(max).min(events.len());
        events[start..end].to_vec()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<LoggedEvent>>> {
        self.events.read().unwrap_or_else(|e| e.into_inner())
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
        if self.finished {
            return Vec::new();
        }
        let mut batch = self.log.after(self.next, max);
        // Nothing after `done` is handed out.
        if let Some(done) = batch.iter().position(|e| e.event.is_done()) {
            batch.truncate(done + 1);
            self.finished = true;
        }
        self.next += batch.len() as u64;
        batch
    }

    /// Waits until an event after the last one handed out is published;
    /// false at once when `done` was handed out. Hands nothing out: take
    /// the events with [`Cursor::ready`].
    pub async fn wait(&mut self) -> bool {
        if self.finished {
            return false;
        }
        let next = self.next;
        self.len.wait_for(|len| *len > next).await.is_ok()
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
    fn the_frame_is_written_once_with_the_event() {
        let log = Arc::new(EventLog::continuing_after(4));
        log.publish(token("hi"));
        let event = &log.snapshot()[0];
        assert_eq!(event.json(), r#"{"type":"token","text":"hi"}"#);
        assert_eq!(
            &event.frame[..],
            b"id: 5\ndata: {\"type\":\"token\",\"text\":\"hi\"}\n\n"
        );
        // Every watcher is handed the same buffer, not a copy.
        let again = &log.follow(4).ready(1)[0];
        assert_eq!(again.frame.as_ptr(), event.frame.as_ptr());
    }

    #[tokio::test]
    async fn a_batch_is_everything_ready_and_stops_at_done() {
        let log = Arc::new(EventLog::default());
        let mut cursor = log.follow(0);
        assert!(cursor.ready(256).is_empty());
        for t in ["a", "b", "c"] {
            log.publish(token(t));
        }
        log.publish(ReplyEvent::Done);
        let seqs = |batch: Vec<Arc<LoggedEvent>>| batch.iter().map(|e| e.seq).collect::<Vec<_>>();
        assert!(cursor.wait().await, "events are ready");
        assert_eq!(seqs(cursor.ready(2)), [1, 2]);
        assert_eq!(seqs(cursor.ready(256)), [3, 4]);
        assert!(!cursor.wait().await, "nothing follows done");
        assert!(cursor.ready(256).is_empty());
    }

    #[tokio::test]
    async fn waiting_wakes_on_the_next_event_and_not_before() {
        let log = Arc::new(EventLog::default());
        log.publish(token("a"));
        let mut cursor = log.follow(1);
        let mut waiting = Box::pin(cursor.wait());
        assert!(
            futures::poll!(waiting.as_mut()).is_pending(),
            "nothing after seq 1 yet"
        );
        log.publish(token("b"));
        assert!(waiting.await);
        assert_eq!(cursor.ready(256)[0].event, token("b"));
    }

    #[tokio::test]
    async fn a_cursor_started_at_done_ends_without_waiting() {
        let log = Arc::new(EventLog::default());
        log.publish(token("a"));
        log.publish(ReplyEvent::Done);
        for after in [2, 99] {
            let mut cursor = log.follow(after);
            assert!(!cursor.wait().await, "after {after}");
            assert!(cursor.ready(256).is_empty());
            assert!(cursor.next().await.is_none());
        }
        // One started before done still gets it.
        let mut cursor = log.follow(1);
        assert!(cursor.wait().await);
        assert_eq!(cursor.ready(256)[0].event, ReplyEvent::Done);
    }
}
