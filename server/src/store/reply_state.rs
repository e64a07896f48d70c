//! A waiting reply's resumable state, as the store keeps it in its
//! `open_replies` row: stored (with its question) before the question is
//! shown, the answer once one is accepted, the reply's steps with the state
//! after each, and dropped when the reply writes again.

use rusqlite::params;

use super::sessions::{append_in, prepare, NewMessage};
use super::{SavedState, Store, StoreError};

impl Store {
    /// Stores the reply's resumable state (and the question it is about to
    /// wait on). Awaited before the question is shown to anyone.
    pub async fn save_reply_state(
        &self,
        reply_id: &str,
        state: SavedState,
    ) -> Result<(), StoreError> {
        let reply_id = reply_id.to_owned();
        self.call(move |conn| {
            let changed = conn
                .prepare_cached(
                    "UPDATE open_replies
                     SET checkpoint = ?2, question_id = ?3, answer = NULL, last_seq = ?4
                     WHERE reply_id = ?1",
                )?
                .execute(params![
                    reply_id,
                    state.checkpoint,
                    state.question_id,
                    state.last_seq as i64
                ])?;
            if changed == 0 {
                return Err(StoreError::Invalid("unknown reply".into()));
            }
            Ok(())
        })
        .await
    }

    /// Stores the answer to the question the reply waits on. An error if
    /// it waits on no such question.
    pub async fn save_answer(
        &self,
        reply_id: &str,
        question_id: &str,
        answer: &str,
    ) -> Result<(), StoreError> {
        let (reply_id, question_id, answer) = (
            reply_id.to_owned(),
            question_id.to_owned(),
            answer.to_owned(),
        );
        self.call(move |conn| {
            let changed = conn
                .prepare_cached(
                    "UPDATE open_replies SET answer = ?3
                     WHERE reply_id = ?1 AND question_id = ?2",
                )?
                .execute(params![reply_id, question_id, answer])?;
            if changed == 0 {
                return Err(StoreError::Invalid(
                    "no stored question with that id".into(),
                ));
            }
            Ok(())
        })
        .await
    }

    /// Appends the reply's messages and, in the same transaction, replaces
    /// its resumable state (`None`: it has none any more).
    pub async fn append_reply_step(
        &self,
        session_id: &str,
        reply_id: &str,
        messages: Vec<NewMessage>,
        state: Option<SavedState>,
    ) -> Result<(), StoreError> {
        let prepared = prepare(messages)?;
        let (session_id, reply_id) = (session_id.to_owned(), reply_id.to_owned());
        self.call(move |conn| {
            let tx = conn.transaction()?;
            append_in(&tx, &session_id, prepared)?;
            let (checkpoint, question_id, last_seq) = match state {
                Some(s) => (Some(s.checkpoint), s.question_id, Some(s.last_seq as i64)),
                None => (None, None, None),
            };
            tx.execute(
                "UPDATE open_replies
                 SET checkpoint = ?2, question_id = ?3, answer = NULL,
                     last_seq = COALESCE(?4, last_seq)
                 WHERE reply_id = ?1",
                params![reply_id, checkpoint, question_id, last_seq],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    /// Forgets the reply's resumable state: it is writing again (a model
    /// request is on its way). Queued, not awaited.
    pub fn drop_reply_state(&self, reply_id: &str) {
        let reply_id = reply_id.to_owned();
        self.enqueue(move |conn| {
            conn.prepare_cached(
                "UPDATE open_replies SET checkpoint = NULL, question_id = NULL, answer = NULL
                 WHERE reply_id = ?1",
            )?
            .execute([reply_id])?;
            Ok(())
        });
    }
}
