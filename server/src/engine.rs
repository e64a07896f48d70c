//! The shared context of the server: the store, the model, the replies and
//! the dashboard event bus. It implements the dashboard's calls; the REST
//! routes and the server functions are both thin doors onto it.

use std::sync::Arc;

use app::api::{ApiError, Dashboard};
use app::protocol::{
    ChatStatus, DashboardEvent, ReminderList, ReplyStarted, Role, Session, SessionList,
    SessionSummary,
};
use tokio::sync::{broadcast, Notify, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::Config;
use crate::models::ModelClient;
use crate::replies::{
    history_to_messages, stream_reply, Replies, Reply, ReplyEnv, ReplyJob, ToolSets,
};
use crate::store::{NewMessage, Store, StoreError};
use crate::tools::Offer;

pub struct Engine {
    pub config: Config,
    pub store: Store,
    /// For voice conversations with saving off: never written to disk.
    pub ephemeral: Store,
    pub voice: Arc<crate::voice::VoiceHub>,
    pub replies: Arc<Replies>,
    pub reply_env: Arc<ReplyEnv>,
    pub dashboard: broadcast::Sender<DashboardEvent>,
    /// Wakes the reminder timer when reminders change.
    pub reminders_changed: Arc<Notify>,
    pub shutdown: CancellationToken,
}

impl Engine {
    pub fn new(
        config: Config,
        store: Store,
        ephemeral: Store,
        shutdown: CancellationToken,
    ) -> Arc<Self> {
        let (dashboard, _) = broadcast::channel(256);
        let reminders_changed = Arc::new(Notify::new());
        let wake = Arc::clone(&reminders_changed);
        let model = config.model();
        let reply_env = Arc::new(ReplyEnv {
            tool_sets: ToolSets::new(model.tool_format),
            model: ModelClient::new(model),
            slots: Arc::new(Semaphore::new(config.writing_slots)),
            research_budget: config.research_budget(),
            max_tool_iters: config.max_tool_iters,
            answer_timeout: config.answer_timeout(),
            dashboard: dashboard.clone(),
            reminder_added: Arc::new(move || wake.notify_one()),
            clock: Clock::default(),
        });
        let voice = crate::voice::VoiceHub::new(
            store.clone(),
            ephemeral.clone(),
            crate::voice::VoiceSettings {
                turn_timeout: config.voice_turn_timeout(),
                answer_wait: config.answer_timeout(),
                idle: config.voice_idle(),
            },
        );
        Arc::new(Self {
            replies: Arc::new(Replies::new(shutdown.clone())),
            config,
            store,
            ephemeral,
            voice,
            reply_env,
            dashboard,
            reminders_changed,
            shutdown,
        })
    }

    /// The clock replies read "now" from (tests set it).
    pub fn clock(&self) -> &Clock {
        &self.reply_env.clock
    }

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
            .start(session_id)
            .map_err(|_| ApiError::conflict("a reply is already being written in this session"))?;
        let user = NewMessage::user(message);
        let stored = async {
            store.append_message(session_id, user).await?;
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
        let job = ReplyJob {
            env: Arc::clone(&self.reply_env),
            replies: Arc::clone(&self.replies),
            reply: Arc::clone(&reply),
            store: store.clone(),
            offer,
            history,
        };
        let _ = self.dashboard.send(DashboardEvent::ReplyStarted {
            session_id: session_id.to_string(),
            reply_id: reply.id.clone(),
        });
        crate::replies::spawn_guarded(
            &self.replies,
            &reply,
            self.dashboard.clone(),
            stream_reply(job),
        );
        Ok(reply)
    }

    fn reply(&self, session_id: &str) -> Result<Arc<Reply>, ApiError> {
        self.replies
            .get(session_id)
            .ok_or_else(|| ApiError::not_found("no reply is being written in this session"))
    }

    /// What to tell a user whose model does not answer.
    fn connect_hint(&self) -> String {
        let m = self.reply_env.model.settings();
        format!(
            "No model answers at {}. Start one there, or point Imprint at another: \
             IMPRINT_CHAT_PROVIDER=ollama (or openai, anthropic, gemini, vllm), \
             IMPRINT_CHAT_BASE_URL, IMPRINT_CHAT_MODEL and IMPRINT_CHAT_API_KEY.",
            m.base_url
        )
    }
}

#[async_trait::async_trait]
impl crate::voice::ReplyStarter for Engine {
    async fn start_reply_in(
        &self,
        store: &Store,
        session_id: &str,
        message: &str,
        offer: Offer,
    ) -> Result<Arc<Reply>, ApiError> {
        Engine::start_reply_in(self, store, session_id, message, offer).await
    }
}

/// Store faults are the server's; bad input is the caller's.
pub fn store_error(error: StoreError) -> ApiError {
    match error {
        StoreError::Invalid(message) => ApiError::bad_request(message),
        other => {
            tracing::error!(error = %other, "store failed");
            ApiError::internal("the database failed; see the server log")
        }
    }
}

#[async_trait::async_trait]
impl Dashboard for Engine {
    async fn status(&self) -> ChatStatus {
        let model = &self.reply_env.model;
        let settings = model.settings();
        let ready = model.is_ready().await;
        ChatStatus {
            provider: settings.provider.as_str().into(),
            model: settings.model.clone(),
            tool_format: settings.tool_format.as_str().into(),
            ready,
            hint: (!ready).then(|| self.connect_hint()),
        }
    }

    async fn list_sessions(&self) -> Result<SessionList, ApiError> {
        let waiting = self.replies.waiting_sessions();
        let mut sessions = self.store.list_sessions().await.map_err(store_error)?;
        for session in &mut sessions {
            session.waiting = waiting.contains(&session.id);
        }
        Ok(SessionList { sessions })
    }

    async fn create_session(&self, title: Option<String>) -> Result<SessionSummary, ApiError> {
        if title.as_deref().is_some_and(|t| t.chars().count() > 200) {
            return Err(ApiError::bad_request(
                "the title is longer than 200 characters",
            ));
        }
        let session = self
            .store
            .create_session(title, "chat")
            .await
            .map_err(store_error)?;
        let _ = self.dashboard.send(DashboardEvent::SessionsChanged);
        Ok(session)
    }

    async fn get_session(&self, sid: String) -> Result<Session, ApiError> {
        let (summary, mut messages) = self
            .store
            .get_session(&sid)
            .await
            .map_err(store_error)?
            .ok_or_else(|| ApiError::not_found("no such session"))?;
        // The dashboard shows assistant text as the server renders it: the
        // browser carries no Markdown parser.
        for message in &mut messages {
            if message.role == Role::Assistant {
                message.html = Some(crate::markdown::to_html(&message.content));
            }
        }
        Ok(Session {
            id: summary.id,
            title: summary.title,
            created_at: summary.created_at,
            updated_at: summary.updated_at,
            messages,
            reply: self.replies.get(&sid).map(|r| r.state()),
        })
    }

    async fn rename_session(&self, sid: String, title: String) -> Result<SessionSummary, ApiError> {
        if title.trim().is_empty() {
            return Err(ApiError::bad_request("the title is empty"));
        }
        if title.chars().count() > 200 {
            return Err(ApiError::bad_request(
                "the title is longer than 200 characters",
            ));
        }
        let mut session = self
            .store
            .rename_session(&sid, &title)
            .await
            .map_err(store_error)?
            .ok_or_else(|| ApiError::not_found("no such session"))?;
        session.waiting = self.replies.waiting_sessions().contains(&sid);
        let _ = self.dashboard.send(DashboardEvent::SessionsChanged);
        Ok(session)
    }

    async fn delete_session(&self, sid: String) -> Result<(), ApiError> {
        if let Some(reply) = self.replies.get(&sid) {
            // Stop the reply first, and let it finish, so it writes nothing
            // into a session that is gone.
            let mut cursor = reply.log.follow(0);
            reply.end();
            while cursor.next().await.is_some() {}
        }
        let deleted = self.store.delete_session(&sid).await.map_err(store_error)?;
        if !deleted {
            return Err(ApiError::not_found("no such session"));
        }
        let _ = self.dashboard.send(DashboardEvent::SessionsChanged);
        Ok(())
    }

    async fn send_message(&self, sid: String, message: String) -> Result<ReplyStarted, ApiError> {
        let reply = self.start_reply(&sid, &message, Offer::CHAT).await?;
        Ok(ReplyStarted {
            reply_id: reply.id.clone(),
        })
    }

    async fn answer(
        &self,
        sid: String,
        question_id: String,
        answer: String,
    ) -> Result<(), ApiError> {
        use crate::ask::AnswerError;
        let reply = self.reply(&sid)?;
        match reply.waiters.answer(&question_id, &answer) {
            Ok(_) => Ok(()),
            Err(AnswerError::NotWaiting) => {
                Err(ApiError::conflict("no question with that id is waiting"))
            }
            Err(AnswerError::Invalid(message)) => Err(ApiError::bad_request(message)),
        }
    }

    async fn stop(&self, sid: String) -> Result<(), ApiError> {
        self.reply(&sid)?.stop();
        Ok(())
    }

    async fn list_reminders(&self) -> Result<ReminderList, ApiError> {
        let reminders = self.store.list_reminders().await.map_err(store_error)?;
        Ok(ReminderList { reminders })
    }
}
