//! Appending messages to a session: all or nothing, in order (the rows
//! themselves are written by `sessions::append_in`).

use app::protocol::Message;

use super::sessions::{append_in, prepare, NewMessage};
use super::{Store, StoreError};

impl Store {
    /// Appends one message (next seq) and bumps the session's `updated_at`.
    /// While the title is still the default, the session's first user
    /// message names it. An unknown session is `Invalid("unknown session")`.
    pub async fn append_message(
        &self,
        session_id: &str,
        message: NewMessage,
    ) -> Result<Message, StoreError> {
        let mut appended = self.append_messages(session_id, vec![message]).await?;
        appended.pop().ok_or(StoreError::Closed)
    }

    /// Appends messages in order, all in one transaction: either all are
    /// written or none is.
    pub async fn append_messages(
        &self,
        session_id: &str,
        messages: Vec<NewMessage>,
    ) -> Result<Vec<Message>, StoreError> {
        let prepared = prepare(messages)?;
        let session_id = session_id.to_owned();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let out = append_in(&tx, &session_id, prepared)?;
            tx.commit()?;
            Ok(out)
        })
        .await
    }
}
