//! Every open voice conversation, by id: opening or joining one, the caps
//! on sockets and conversations, and dropping a conversation left idle.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::{broadcast, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::{Conversation, Spoken, State, VoiceSettings, MAX_CONVERSATIONS, MAX_SOCKETS};
use crate::store::{Store, StoreError};

/// Every open voice conversation, by id.
pub struct VoiceHub {
    conversations: Mutex<HashMap<String, Arc<Conversation>>>,
    pub(super) store: Store,
    pub(super) ephemeral: Store,
    settings: VoiceSettings,
    sockets: Arc<Semaphore>,
    me: Weak<VoiceHub>,
}

/// Why a conversation could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum VoiceError {
    #[error("too many voice conversations are open; close one and try again")]
    Full,
    #[error("the conversation could not be loaded: {0}")]
    Store(#[from] StoreError),
}

impl VoiceHub {
    pub fn new(store: Store, ephemeral: Store, settings: VoiceSettings) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            conversations: Mutex::new(HashMap::new()),
            store,
            ephemeral,
            settings,
            sockets: Arc::new(Semaphore::new(MAX_SOCKETS)),
            me: me.clone(),
        })
    }

    /// A place for one more open socket, or `None` at [`MAX_SOCKETS`].
    pub fn admit_socket(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.sockets).try_acquire_owned().ok()
    }

    /// Joins the conversation `id`, or starts a new one (its id reserved,
    /// its session written at the first turn). `writes`: its replies may
    /// save and set reminders (else read-only, the default); a conversation
    /// already open keeps what it started with.
    pub async fn open(
        &self,
        id: Option<String>,
        saving: bool,
        writes: bool,
    ) -> Result<Arc<Conversation>, VoiceError> {
        if let Some(id) = &id {
            if let Some(existing) = self.lock().get(id) {
                return Ok(Arc::clone(existing));
            }
            // A stored voice conversation from before: carry it on (the
            // caller adopts the reply it had open, restored after a
            // restart, if any).
            if self.store.get_session(id).await?.is_some() {
                self.make_room().await;
                return self.insert(self.store.clone(), id.clone(), true, true, writes);
            }
        }
        self.make_room().await;
        let store = if saving {
            self.store.clone()
        } else {
            self.ephemeral.clone()
        };
        // The store's own id shape: a conversation id is a session id.
        let id = uuid::Uuid::new_v4().to_string();
        self.insert(store, id, saving, false, writes)
    }

    fn insert(
        &self,
        store: Store,
        id: String,
        saving: bool,
        stored: bool,
        writes: bool,
    ) -> Result<Arc<Conversation>, VoiceError> {
        let mut conversations = self.lock();
        if conversations.len() >= MAX_CONVERSATIONS {
            return Err(VoiceError::Full);
        }
        let (out, _) = broadcast::channel(512);
        let conversation = Arc::new(Conversation {
            id: id.clone(),
            saving,
            read_only: !writes,
            store,
            settings: self.settings,
            hub: self.me.clone(),
            state: Mutex::new(State {
                queue: VecDeque::new(),
                turn: None,
                spoken: Spoken::default(),
                stored,
                idle_since: Instant::now(),
                confirming: None,
                confirms: 0,
            }),
            out,
        });
        Ok(conversations.entry(id).or_insert(conversation).clone())
    }

    /// At [`MAX_CONVERSATIONS`], drops every idle conversation, and the
    /// rows of those that were not being saved.
    async fn make_room(&self) {
        let dropped: Vec<Arc<Conversation>> = {
            let mut conversations = self.lock();
            if conversations.len() < MAX_CONVERSATIONS {
                return;
            }
            let idle: Vec<String> = conversations
                .iter()
                .filter(|(_, c)| c.is_idle())
                .map(|(id, _)| id.clone())
                .collect();
            idle.iter()
                .filter_map(|id| conversations.remove(id))
                .collect()
        };
        for conversation in dropped {
            forget(conversation).await;
        }
    }

    /// Whether the conversation is held in memory.
    pub fn is_open(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    /// A window left the conversation, or its turn ended: if nothing else
    /// holds it, drop it once it has been idle for the idle time.
    fn schedule_eviction(&self, conversation: &Arc<Conversation>) {
        conversation.lock().idle_since = Instant::now();
        let (Some(hub), idle) = (self.me.upgrade(), self.settings.idle) else {
            return;
        };
        let id = conversation.id.clone();
        tokio::spawn(async move {
            tokio::time::sleep(idle).await;
            hub.evict_if_idle(&id).await;
        });
    }

    async fn evict_if_idle(&self, id: &str) {
        let evicted = {
            let mut conversations = self.lock();
            match conversations.get(id) {
                Some(c) if c.is_idle() && c.lock().idle_since.elapsed() >= self.settings.idle => {
                    conversations.remove(id)
                }
                _ => None,
            }
        };
        if let Some(conversation) = evicted {
            forget(conversation).await;
        }
    }

    /// Called when a window's socket closes.
    pub fn left(&self, conversation: &Arc<Conversation>) {
        if conversation.is_idle() {
            self.schedule_eviction(conversation);
        }
    }

    #[cfg(test)]
    pub(super) fn open_count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Conversation>>> {
        self.conversations.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A conversation dropped from the hub: an unsaved one lives only in
/// memory, so its rows go with it.
async fn forget(conversation: Arc<Conversation>) {
    let unsaved = !conversation.saving && conversation.lock().stored;
    if unsaved {
        if let Err(error) = conversation.store.delete_session(&conversation.id).await {
            tracing::warn!(%error, "an unsaved voice conversation's rows were not deleted");
        }
    }
}
