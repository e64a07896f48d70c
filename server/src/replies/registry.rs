//! The registry of replies: the reply being written in each session (its
//! event log, waiters, store and stop scopes), the replies that ended
//! moments ago (their logs still readable), and the guarded task each
//! reply runs on.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use app::protocol::{DashboardEvent, ReplyEvent, ReplyPhase, ReplyState};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::log::EventLog;
use crate::ask::{AnswerError, UserAnswer, Waiters};
use crate::store::Store;

/// One reply being written.
pub struct Reply {
    pub id: String,
    pub session_id: String,
    pub log: Arc<EventLog>,
    pub waiters: Arc<Waiters>,
    /// Where the reply's history and resumable state are written.
    pub store: Store,
    /// The user's stop. A child of `end`.
    stop: CancellationToken,
    /// The end of the reply for any other reason (session deleted, server
    /// shutting down). A child of the server's token.
    end: CancellationToken,
}

impl Reply {
    pub fn stop(&self) {
        self.stop.cancel();
    }

    pub fn end(&self) {
        self.end.cancel();
    }

    /// Delivers an answer to a waiting question, after storing it: an
    /// answer that was accepted survives a crash before the reply goes on.
    /// Exactly one of several concurrent answers is accepted.
    pub async fn answer(
        &self,
        question_id: &str,
        given: Option<&str>,
    ) -> Result<UserAnswer, AnswerError> {
        let claimed = self.waiters.claim(question_id, given)?;
        if let Err(error) = self
            .store
            .save_answer(&self.id, question_id, claimed.answer().stored())
            .await
        {
            tracing::error!(%error, "could not store an answer");
            self.waiters.unclaim(claimed);
            return Err(AnswerError::Unsaved);
        }
        claimed.deliver()
    }

    pub fn stop_token(&self) -> &CancellationToken {
        &self.stop
    }

    pub fn end_token(&self) -> &CancellationToken {
        &self.end
    }

    pub fn state(&self) -> ReplyState {
        let question = self.waiters.current();
        ReplyState {
            id: self.id.clone(),
            state: if question.is_some() {
                ReplyPhase::Waiting
            } else {
                ReplyPhase::Writing
            },
            question,
        }
    }
}

/// The session already has a reply being written.
#[derive(Debug, PartialEq, Eq)]
pub struct Busy;

/// Finished replies whose logs stay readable by id, so a client that asks
/// for its reply just after a fast one ended still gets every event.
const RECENT_REPLIES: usize = 32;

/// The reply being written in each session (one per session at a time).
pub struct Replies {
    by_session: Mutex<HashMap<String, Arc<Reply>>>,
    recent: Mutex<VecDeque<Arc<Reply>>>,
    shutdown: CancellationToken,
    /// Every reply task, so a shutdown can wait for each to save its state.
    tasks: TaskTracker,
}

impl Replies {
    pub fn new(shutdown: CancellationToken) -> Self {
        Self {
            by_session: Mutex::new(HashMap::new()),
            recent: Mutex::new(VecDeque::new()),
            shutdown,
            tasks: TaskTracker::new(),
        }
    }

    /// Registers a new reply for the session, unless one is being written.
    pub fn start(&self, session_id: &str, store: &Store) -> Result<Arc<Reply>, Busy> {
        self.register(session_id, crate::ids::new_id("r"), store, 0)
    }

    /// Registers a reply restored after a restart: its own id, and its
    /// events going on after the last one it stored.
    pub fn restore(
        &self,
        session_id: &str,
        reply_id: String,
        store: &Store,
        last_seq: u64,
    ) -> Result<Arc<Reply>, Busy> {
        self.register(session_id, reply_id, store, last_seq)
    }

    fn register(
        &self,
        session_id: &str,
        id: String,
        store: &Store,
        last_seq: u64,
    ) -> Result<Arc<Reply>, Busy> {
        let mut map = self.lock();
        if map.contains_key(session_id) {
            return Err(Busy);
        }
        let end = self.shutdown.child_token();
        let reply = Arc::new(Reply {
            id,
            session_id: session_id.to_string(),
            log: Arc::new(EventLog::continuing_after(last_seq)),
            waiters: Arc::new(Waiters::default()),
            store: store.clone(),
            stop: end.child_token(),
            end,
        });
        map.insert(session_id.to_string(), Arc::clone(&reply));
        Ok(reply)
    }

    /// After the shutdown token: waits until every reply task has saved
    /// what it must (a waiting question stays stored, a reply being
    /// written is kept marked interrupted), at most `limit`. True if all
    /// finished in time.
    pub async fn settle(&self, limit: std::time::Duration) -> bool {
        self.tasks.close();
        tokio::time::timeout(limit, self.tasks.wait()).await.is_ok()
    }

    pub fn get(&self, session_id: &str) -> Option<Arc<Reply>> {
        self.lock().get(session_id).cloned()
    }

    /// Removes a reply that never ran (nothing was logged).
    pub fn abandon(&self, reply: &Reply) {
        let mut map = self.lock();
        if map.get(&reply.session_id).is_some_and(|r| r.id == reply.id) {
            map.remove(&reply.session_id);
        }
    }

    /// Removes the reply (only that reply: a newer one stays) and keeps
    /// its log among the recent ones.
    pub fn finish(&self, reply: &Arc<Reply>) {
        self.abandon(reply);
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() == RECENT_REPLIES {
            recent.pop_front();
        }
        recent.push_back(Arc::clone(reply));
    }

    /// A reply by id, being written or recently finished.
    pub fn find(&self, session_id: &str, reply_id: &str) -> Option<Arc<Reply>> {
        if let Some(reply) = self.get(session_id).filter(|r| r.id == reply_id) {
            return Some(reply);
        }
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        recent
            .iter()
            .find(|r| r.id == reply_id && r.session_id == session_id)
            .cloned()
    }

    /// Sessions whose reply waits for an answer.
    pub fn waiting_sessions(&self) -> Vec<String> {
        self.lock()
            .values()
            .filter(|r| r.waiters.current().is_some())
            .map(|r| r.session_id.clone())
            .collect()
    }

    /// Every question waiting now, oldest first, with its session's id.
    pub fn waiting_questions(&self) -> Vec<(String, app::protocol::Question)> {
        let mut waiting: Vec<_> = self
            .lock()
            .values()
            .flat_map(|reply| {
                reply
                    .waiters
                    .waiting()
                    .into_iter()
                    .map(|(since, question)| (since, reply.session_id.clone(), question))
            })
            .collect();
        waiting.sort_by_key(|(since, _, _)| *since);
        waiting
            .into_iter()
            .map(|(_, session_id, question)| (session_id, question))
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Reply>>> {
        self.by_session.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Ends its reply when dropped, if the reply's task did not: a panic in
/// the tool loop unwinds through it, and so does an aborted task, so it
/// cannot be skipped. Without it a panicking reply would hold its session
/// (409 for every later message) and leave watchers waiting forever.
/// A task that ran to its end disarms it: a reply left by a shutdown ends
/// without `done` on purpose (its stored state resumes after the restart).
pub struct EndGuard {
    reply: Arc<Reply>,
    replies: Arc<Replies>,
    dashboard: broadcast::Sender<DashboardEvent>,
    /// The task returned instead of panicking or being dropped.
    returned: bool,
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        if self.returned || self.reply.log.is_done() {
            return;
        }
        let error = "the reply failed inside Imprint; see the server log".to_string();
        tracing::error!(reply = %self.reply.id, "a reply task ended without done");
        // Its text so far stays in history, marked with the error, and its
        // open row goes: the next start must not mark it interrupted.
        self.reply.store.fail_reply(&self.reply.id, &error);
        self.reply.log.publish(ReplyEvent::Error {
            error: error.clone(),
        });
        self.replies.finish(&self.reply);
        let _ = self.dashboard.send(DashboardEvent::ReplyFinished {
            session_id: self.reply.session_id.clone(),
            reply_id: self.reply.id.clone(),
            outcome: "error".into(),
            error: Some(error),
        });
        self.reply.log.publish(ReplyEvent::Done);
    }
}

/// Runs a reply's task under an [`EndGuard`], tracked so a shutdown can
/// wait for it.
pub fn spawn_guarded<F>(
    replies: &Arc<Replies>,
    reply: &Arc<Reply>,
    dashboard: broadcast::Sender<DashboardEvent>,
    task: F,
) -> tokio::task::JoinHandle<()>
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let guard = EndGuard {
        reply: Arc::clone(reply),
        replies: Arc::clone(replies),
        dashboard,
        returned: false,
    };
    replies.tasks.spawn(async move {
        // The whole guard moves in (not only the field set below).
        let mut guard = guard;
        task.await;
        guard.returned = true;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> Store {
        Store::open_in_memory().unwrap()
    }

    #[tokio::test]
    async fn a_panicking_reply_still_ends_with_error_then_done_and_frees_its_session() {
        let replies = Arc::new(Replies::new(CancellationToken::new()));
        let (dashboard, mut finished) = broadcast::channel(4);
        let reply = replies.start("s", &store()).unwrap();
        let mut cursor = reply.log.follow(0);
        let task = spawn_guarded(&replies, &reply, dashboard, async {
            panic!("a bug in the tool loop");
        });
        assert!(task.await.unwrap_err().is_panic());
        let first = cursor.next().await.unwrap();
        assert!(matches!(first.event, ReplyEvent::Error { .. }), "{first:?}");
        assert_eq!(cursor.next().await.unwrap().event, ReplyEvent::Done);
        assert!(cursor.next().await.is_none());
        assert!(replies.get("s").is_none(), "the session is free");
        assert!(replies.start("s", &store()).is_ok());
        assert!(matches!(
            finished.recv().await.unwrap(),
            DashboardEvent::ReplyFinished { .. }
        ));
    }

    #[tokio::test]
    async fn a_panicking_reply_keeps_its_text_with_the_error_and_closes_its_row() {
        let store = store();
        let sid = store.create_session(None, "chat").await.unwrap().id;
        let replies = Arc::new(Replies::new(CancellationToken::new()));
        let (dashboard, _) = broadcast::channel(4);
        let reply = replies.start(&sid, &store).unwrap();
        store
            .open_reply(&sid, &reply.id, Some(crate::store::NewMessage::user("hi")))
            .await
            .unwrap();
        store
            .keep_reply_text(&reply.id, "half an answer")
            .await
            .unwrap();
        let task = spawn_guarded(&replies, &reply, dashboard, async {
            panic!("a bug in the tool loop");
        });
        assert!(task.await.unwrap_err().is_panic());
        assert!(store.open_replies().await.unwrap().is_empty());
        let (_, messages) = store.get_session(&sid).await.unwrap().unwrap();
        assert_eq!(messages[1].content, "half an answer");
        assert_eq!(messages[1].ended, Some(app::protocol::Ended::Error));
    }

    #[tokio::test]
    async fn a_reply_that_ended_itself_is_left_alone() {
        let replies = Arc::new(Replies::new(CancellationToken::new()));
        let (dashboard, _) = broadcast::channel(4);
        let reply = replies.start("s", &store()).unwrap();
        let log = Arc::clone(&reply.log);
        let ending = {
            let (replies, reply) = (Arc::clone(&replies), Arc::clone(&reply));
            async move {
                reply.log.publish(ReplyEvent::Stopped);
                replies.finish(&reply);
                reply.log.publish(ReplyEvent::Done);
            }
        };
        spawn_guarded(&replies, &reply, dashboard, ending)
            .await
            .unwrap();
        let types: Vec<_> = log.snapshot().iter().map(|e| e.event.clone()).collect();
        assert_eq!(types, vec![ReplyEvent::Stopped, ReplyEvent::Done]);
    }

    #[test]
    fn one_reply_per_session() {
        let replies = Replies::new(CancellationToken::new());
        let first = replies.start("s1", &store()).unwrap();
        assert_eq!(replies.start("s1", &store()).err(), Some(Busy));
        assert!(replies.start("s2", &store()).is_ok());
        replies.finish(&first);
        assert!(replies.get("s1").is_none());
        assert!(replies.start("s1", &store()).is_ok());
    }

    #[test]
    fn finished_replies_stay_findable_by_id_for_a_while() {
        let replies = Replies::new(CancellationToken::new());
        let first = replies.start("s", &store()).unwrap();
        replies.finish(&first);
        assert!(replies.get("s").is_none());
        assert_eq!(replies.find("s", &first.id).unwrap().id, first.id);
        assert!(replies.find("other", &first.id).is_none());
        for _ in 0..RECENT_REPLIES {
            let r = replies.start("t", &store()).unwrap();
            replies.finish(&r);
        }
        assert!(
            replies.find("s", &first.id).is_none(),
            "only the most recent are kept"
        );
    }

    #[test]
    fn finishing_an_old_reply_leaves_a_newer_one() {
        let replies = Replies::new(CancellationToken::new());
        let old = replies.start("s", &store()).unwrap();
        replies.finish(&old);
        let new = replies.start("s", &store()).unwrap();
        replies.finish(&old);
        assert_eq!(replies.get("s").unwrap().id, new.id);
    }

    #[test]
    fn a_restored_reply_keeps_its_id_and_goes_on_after_its_stored_seq() {
        let replies = Replies::new(CancellationToken::new());
        let reply = replies.restore("s", "r-old".into(), &store(), 12).unwrap();
        assert_eq!(replies.get("s").unwrap().id, "r-old");
        assert_eq!(reply.log.last_seq(), 12);
        assert!(replies.restore("s", "r-other".into(), &store(), 0).is_err());
    }

    #[test]
    fn waiting_questions_are_listed_oldest_first_across_sessions() {
        let replies = Replies::new(CancellationToken::new());
        let question = |id: &str| app::protocol::Question {
            id: id.into(),
            question: format!("{id}?"),
            options: Vec::new(),
            allow_other: true,
            expires_at: None,
            origin: Default::default(),
            reason: None,
            why: None,
        };
        let b = replies.start("b", &store()).unwrap();
        let a = replies.start("a", &store()).unwrap();
        let _first = b.waiters.register(question("q1"));
        let _second = a.waiters.register(question("q2"));
        let listed: Vec<_> = replies
            .waiting_questions()
            .into_iter()
            .map(|(sid, q)| (sid, q.id))
            .collect();
        assert_eq!(
            listed,
            [
                ("b".to_string(), "q1".to_string()),
                ("a".into(), "q2".into())
            ]
        );
        drop(_first);
        assert_eq!(replies.waiting_questions().len(), 1);
    }

    #[test]
    fn shutdown_ends_and_stops_every_reply() {
        let shutdown = CancellationToken::new();
        let replies = Replies::new(shutdown.clone());
        let reply = replies.start("s", &store()).unwrap();
        shutdown.cancel();
        assert!(reply.end_token().is_cancelled() && reply.stop_token().is_cancelled());
    }
}
