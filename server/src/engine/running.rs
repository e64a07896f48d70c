//! Starting replies: a new request in a session (stored with the reply it
//! opens, in one write), the last request answered again, and at start
//! the replies that were open when Imprint last stopped (resumed when
//! they can be, else kept with their text, marked interrupted).

use std::sync::Arc;

use app::api::ApiError;
use app::protocol::{DashboardEvent, Role};

use super::{store_error, Engine, Restored};
use crate::models::ChatMessage;
use crate::replies::{
    history_to_messages, resume_reply, stream_reply, Checkpoint, Reply, ReplyJob,
};
use crate::store::{NewMessage, OpenReply, Store, StoreError};
use crate::tools::Offer;

impl Engine {
    /// Starts a reply to `message` in a stored session, for a caller that
    /// allows `offer`.
    pub async fn start_reply(
        &self,
        session_id: &str,
        message: &str,
        offer: Offer,
    ) -> Result<Arc<Reply>, ApiError> {
        self.start_reply_in(&self.store, session_id, message, offer)
            .await
    }

    /// Starts a reply in a session of `store`.
    pub async fn start_reply_in(
        &self,
        store: &Store,
        session_id: &str,
        message: &str,
        offer: Offer,
    ) -> Result<Arc<Reply>, ApiError> {
        let message = message.trim();
        if message.is_empty() {
            return Err(ApiError::bad_request("the message is empty"));
        }
        if message.len() > 32 * 1024 {
            return Err(ApiError::bad_request("the message is longer than 32 KiB"));
        }
        if store
            .get_session(session_id)
            .await
            .map_err(store_error)?
            .is_none()
        {
            return Err(ApiError::not_found("no such session"));
        }
        let reply = self
            .replies
            .start(session_id, store)
            .map_err(|_| ApiError::conflict("a reply is already being written in this session"))?;
        let user = NewMessage::user(message);
        // The user's message and the open reply are one write: a crash
        // after it leaves a reply to mark, never a message with no trace.
        let stored = async {
            store.open_reply(session_id, &reply.id, Some(user)).await?;
            store.get_session(session_id).await
        }
        .await;
        let history = match stored {
            Ok(Some((_, messages))) => history_to_messages(&messages),
            Ok(None) => {
                self.replies.abandon(&reply);
                return Err(ApiError::not_found("no such session"));
            }
            Err(e) => {
                self.replies.abandon(&reply);
                return Err(store_error(e));
            }
        };
        self.run_reply(reply.clone(), offer, history);
        Ok(reply)
    }

    /// Answers the session's last user message again as a new reply,
    /// whatever became of the last one (so it also regenerates).
    pub async fn retry_reply(&self, session_id: &str) -> Result<Arc<Reply>, ApiError> {
        let (_, messages) = self
            .store
            .get_session(session_id)
            .await
            .map_err(store_error)?
            .ok_or_else(|| ApiError::not_found("no such session"))?;
        let Some(last_user) = messages.iter().rposition(|m| m.role == Role::User) else {
            return Err(ApiError::not_found("this chat has no message to answer"));
        };
        let reply = self
            .replies
            .start(session_id, &self.store)
            .map_err(|_| ApiError::conflict("a reply is already being written in this session"))?;
        if let Err(e) = self.store.open_reply(session_id, &reply.id, None).await {
            self.replies.abandon(&reply);
            return Err(store_error(e));
        }
        // The same request: the conversation up to that message, without
        // what the earlier attempt wrote after it.
        let history = history_to_messages(&messages[..=last_user]);
        self.run_reply(reply.clone(), Offer::CHAT, history);
        Ok(reply)
    }

    /// Runs `reply` (which holds the store its history goes to).
    fn run_reply(&self, reply: Arc<Reply>, offer: Offer, history: Vec<ChatMessage>) {
        let _ = self.dashboard.send(DashboardEvent::ReplyStarted {
            session_id: reply.session_id.clone(),
            reply_id: reply.id.clone(),
        });
        let job = ReplyJob {
            env: self.reply_env(),
            replies: Arc::clone(&self.replies),
            reply: Arc::clone(&reply),
            offer,
            history,
        };
        crate::replies::spawn_guarded(
            &self.replies,
            &reply,
            self.dashboard.clone(),
            stream_reply(job),
        );
    }

    /// At start, before serving: every reply that was open when Imprint
    /// stopped either waits again for its question (resumed from its
    /// stored state, answered at once if the answer was stored) or, if it
    /// was writing, is kept with its text, marked interrupted.
    pub async fn restore(&self) -> Result<Restored, StoreError> {
        let open = self.store.open_replies().await?;
        let mut restored = Restored::default();
        let mut interrupted = Vec::new();
        for row in open {
            let checkpoint = row.checkpoint.as_deref().and_then(|json| {
                serde_json::from_str::<Checkpoint>(json)
                    .map_err(|e| tracing::warn!(reply = %row.reply_id, error = %e, "unreadable reply state"))
                    .ok()
            });
            match checkpoint.filter(Checkpoint::is_current) {
                Some(checkpoint) => match self.resume(&row, checkpoint) {
                    Ok(()) => restored.resumed += 1,
                    Err(()) => interrupted.push(row),
                },
                None => interrupted.push(row),
            }
        }
        restored.interrupted = interrupted.len();
        self.store.interrupt_replies(interrupted).await?;
        Ok(restored)
    }

    fn resume(&self, row: &OpenReply, checkpoint: Checkpoint) -> Result<(), ()> {
        let reply = self
            .replies
            .restore(
                &row.session_id,
                row.reply_id.clone(),
                &self.store,
                row.last_seq,
            )
            .map_err(|_| ())?;
        let job = ReplyJob {
            env: self.reply_env(),
            replies: Arc::clone(&self.replies),
            reply: Arc::clone(&reply),
            offer: checkpoint.offer(),
            history: Vec::new(),
        };
        // Registers the question (or takes the stored answer) now, so the
        // session shows it waiting from the first request on.
        let task = resume_reply(job, checkpoint, row.answer.clone());
        crate::replies::spawn_guarded(&self.replies, &reply, self.dashboard.clone(), task);
        Ok(())
    }
}
