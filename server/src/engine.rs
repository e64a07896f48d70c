//! The shared context of the server: the store, the model, the replies and
//! the dashboard event bus. It implements the dashboard's calls; the REST
//! routes and the server functions are both thin doors onto it.
//!
//! The model in use is the reply environment in force: each reply takes it
//! when it starts and keeps it to its end; a model chosen on the Model page
//! replaces it for the replies that start after ([`Engine::use_model`]).

use std::sync::{Arc, PoisonError, RwLock};

use app::api::{ApiError, Dashboard};
use app::protocol::{
    ChatStatus, DashboardEvent, MessagePage, QuestionList, QuestionOrigin, ReplyStarted, Role,
    Said, Session, SessionList, SessionSummary, WaitingQuestion,
};
use tokio::sync::{broadcast, Notify};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::{Config, ModelSettings};
use crate::connections::Chooser;
use crate::models::ModelClient;
use crate::replies::{Replies, Reply, ReplyEnv, ToolSets, WritingSlots};
use crate::store::{Store, StoreError};
use crate::tools::Offer;

mod connections;
mod records;
mod running;

pub struct Engine {
    pub config: Config,
    pub store: Store,
    /// For voice conversations with saving off: never written to disk.
    pub ephemeral: Store,
    pub voice: Arc<crate::voice::VoiceHub>,
    /// Imprint's own speech recogniser for Echo's audio; `None` when none
    /// is set up (the voice socket then answers `audio_unavailable`).
    pub speech: Option<crate::voice::Recogniser>,
    /// Finding memories by meaning, and routing requests by examples.
    pub meaning: crate::meaning::Meaning,
    pub replies: Arc<Replies>,
    /// What the next reply starts with: replaced whole when another model
    /// is chosen, so a running reply keeps its own.
    reply_env: RwLock<Arc<ReplyEnv>>,
    /// The model choice: what is in use and where it came from, the Model
    /// page's saved choice and keys.
    pub connections: Chooser,
    clock: Clock,
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
        speech: Option<crate::voice::Recogniser>,
        meaning: crate::meaning::Meaning,
        shutdown: CancellationToken,
    ) -> Arc<Self> {
        let (dashboard, _) = broadcast::channel(256);
        let reminders_changed = Arc::new(Notify::new());
        let wake = Arc::clone(&reminders_changed);
        let connections = Chooser::load(&config);
        let model = connections.current();
        if model.view.source == app::protocol::SettingSource::Page {
            tracing::info!(
                provider = model.settings.provider.as_str(),
                base_url = %model.settings.base_url,
                model = %model.settings.model,
                turns = model.settings.turns.as_str(),
                "the model chosen on the Model page is in use"
            );
        }
        let clock = Clock::default();
        let reply_env = Arc::new(ReplyEnv {
            tool_sets: ToolSets::new(model.settings.tool_format),
            planned: model.settings.turns == crate::config::Turns::Planned,
            model: ModelClient::new(model.settings),
            slots: Arc::new(WritingSlots::new(config.writing_slots)),
            research_budget: config.research_budget(),
            max_tool_iters: config.max_tool_iters,
            answer_timeout: config.answer_timeout(),
            dashboard: dashboard.clone(),
            reminder_added: Arc::new(move || wake.notify_one()),
            meaning: meaning.clone(),
            clock: clock.clone(),
            shutdown: shutdown.clone(),
        });
        let voice = crate::voice::VoiceHub::new(
            store.clone(),
            ephemeral.clone(),
            crate::voice::VoiceSettings {
                turn_timeout: config.voice_turn_timeout(),
                confirm_wait: config.voice_confirm_timeout(),
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
            speech,
            meaning,
            reply_env: RwLock::new(reply_env),
            connections,
            clock,
            dashboard,
            reminders_changed,
            shutdown,
        })
    }

    /// The clock replies read "now" from (tests set it).
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// What a reply starting now runs with.
    pub fn reply_env(&self) -> Arc<ReplyEnv> {
        let env = self
            .reply_env
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(&env)
    }

    /// From now on, replies start on the model `settings` name; those
    /// running finish on theirs.
    pub fn use_model(&self, settings: ModelSettings) {
        let mut env = self
            .reply_env
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        *env = Arc::new(env.on_model(settings));
    }

    /// Every question waiting now, with its session's title (from either
    /// store: a voice conversation with saving off lives only in the
    /// in-memory one).
    async fn waiting_questions(&self) -> Result<QuestionList, ApiError> {
        let waiting = self.replies.waiting_questions();
        if waiting.is_empty() {
            return Ok(QuestionList {
                questions: Vec::new(),
            });
        }
        // Only the waiting sessions' titles, not every session's summary.
        let ids: Vec<String> = waiting.iter().map(|(sid, _)| sid.clone()).collect();
        let mut titles = std::collections::HashMap::new();
        for store in [&self.ephemeral, &self.store] {
            titles.extend(
                store
                    .session_titles(ids.clone())
                    .await
                    .map_err(store_error)?,
            );
        }
        let questions = waiting
            .into_iter()
            .map(|(session_id, question)| {
                let title = titles
                    .get(&session_id)
                    .cloned()
                    .unwrap_or_else(|| "Echo".to_string());
                WaitingQuestion::new(session_id, title, question)
            })
            .collect();
        Ok(QuestionList { questions })
    }

    fn reply(&self, session_id: &str) -> Result<Arc<Reply>, ApiError> {
        self.replies
            .get(session_id)
            .ok_or_else(|| ApiError::not_found("no reply is being written in this session"))
    }

    /// True when `text`, typed while `reply` waits on `question_id`, is a
    /// new request rather than its answer. Only Imprint's own questions
    /// with options are judged: an open question, or the model's own,
    /// takes whatever the user says. A chosen option, or words read as a
    /// time under a question for a time, answer; the rest is judged by meaning
    /// ([`crate::meaning::answers`]).
    async fn is_new_request(&self, reply: &Reply, question_id: &str, text: &str) -> bool {
        let text = text.trim();
        let Some(question) = reply.waiters.current().filter(|q| {
            q.id == question_id && q.origin == QuestionOrigin::Imprint && !q.options.is_empty()
        }) else {
            return false;
        };
        let now = self.clock.now();
        let reads_as_time = |words: &str| crate::grounding::when::answered(words, now).is_some();
        let asks_a_time = question.options.iter().all(|o| reads_as_time(o));
        if question
            .options
            .iter()
            .any(|o| o.eq_ignore_ascii_case(text))
            || (asks_a_time && reads_as_time(text))
        {
            return false;
        }
        self.meaning.is_new_request(text, &question.options).await == Some(true)
    }

    /// What to tell a user whose model does not answer.
    fn connect_hint(&self, base_url: &str) -> String {
        format!(
            "No model answers at {base_url}. Start one there, or choose another on the Model page, \
             or point Imprint at one: IMPRINT_CHAT_PROVIDER=ollama (or openai, anthropic, gemini, vllm), \
             IMPRINT_CHAT_BASE_URL, IMPRINT_CHAT_MODEL and IMPRINT_CHAT_API_KEY."
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

/// What [`Engine::restore`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restored {
    /// Replies waiting again (or going on with a stored answer).
    pub resumed: usize,
    /// Replies that were being written: kept, marked interrupted.
    pub interrupted: usize,
}

/// A page's cursor and size, or why they cannot be read.
fn checked_page(page: MessagePage) -> Result<(Option<i64>, u32), ApiError> {
    if let Some(before) = page.before {
        if before < 1 {
            return Err(ApiError::bad_request(
                "before must be a message's seq (1 or more)",
            ));
        }
    }
    let limit = page.limit.unwrap_or(MessagePage::DEFAULT_LIMIT);
    if !(1..=MessagePage::MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be 1 to {}",
            MessagePage::MAX_LIMIT
        )));
    }
    Ok((page.before, limit))
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
        let env = self.reply_env();
        let model = &env.model;
        let settings = model.settings();
        let ready = model.is_ready().await;
        ChatStatus {
            provider: settings.provider.as_str().into(),
            model: settings.model.clone(),
            tool_format: settings.tool_format.as_str().into(),
            ready,
            hint: (!ready).then(|| self.connect_hint(&settings.base_url)),
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
        let _ = self.dashboard.send(DashboardEvent::SessionsChanged {
            session_id: Some(session.id.clone()),
        });
        Ok(session)
    }

    async fn get_session(
        &self,
        sid: String,
        page: Option<MessagePage>,
    ) -> Result<Session, ApiError> {
        let (summary, mut messages, older) = match page {
            None => self
                .store
                .get_session(&sid)
                .await
                .map_err(store_error)?
                .map(|(summary, messages)| (summary, messages, None)),
            Some(page) => {
                let (before, limit) = checked_page(page)?;
                self.store
                    .get_session_page(&sid, before, limit)
                    .await
                    .map_err(store_error)?
                    .map(|(summary, messages, older)| (summary, messages, Some(older)))
            }
        }
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
            older,
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
        let _ = self.dashboard.send(DashboardEvent::SessionsChanged {
            session_id: Some(session.id.clone()),
        });
        Ok(session)
    }

    async fn delete_session(&self, sid: String) -> Result<(), ApiError> {
        if let Some(reply) = self.replies.get(&sid) {
            // Stop the reply first, and let it finish, so it writes nothing
            // into a session that is gone.
            ended_by(&reply, Reply::end).await;
        }
        let deleted = self.store.delete_session(&sid).await.map_err(store_error)?;
        if !deleted {
            return Err(ApiError::not_found("no such session"));
        }
        let _ = self.dashboard.send(DashboardEvent::SessionsChanged {
            session_id: Some(sid),
        });
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
        answer: Option<String>,
        you_decide: bool,
    ) -> Result<(), ApiError> {
        use crate::ask::AnswerError;
        let reply = self.reply(&sid)?;
        // No answer and no "You decide" is an empty answer.
        let given = if you_decide {
            None
        } else {
            Some(answer.as_deref().unwrap_or_default())
        };
        // Stored before the 200: see `Reply::answer`.
        match reply.answer(&question_id, given).await {
            Ok(_) => Ok(()),
            Err(AnswerError::NotWaiting) => {
                Err(ApiError::conflict("no question with that id is waiting"))
            }
            Err(AnswerError::Invalid(message)) => Err(ApiError::bad_request(message)),
            Err(error @ AnswerError::Unsaved) => Err(ApiError::internal(error.to_string())),
        }
    }

    async fn say(&self, sid: String, question_id: String, text: String) -> Result<Said, ApiError> {
        let reply = self.reply(&sid)?;
        // Still waiting once judged: an answer from another window in the
        // meantime is left to go on, and this text answers nothing (409).
        let still_waiting =
            |reply: &Reply| reply.waiters.current().is_some_and(|q| q.id == question_id);
        if self.is_new_request(&reply, &question_id, &text).await && still_waiting(&reply) {
            tracing::info!(reply = %reply.id, "a reply typed under a question is a new request");
            // The waiting reply ends (its question shows it was stopped)
            // and leaves the session free before the new request starts.
            ended_by(&reply, Reply::stop).await;
            let started = self.start_reply(&sid, &text, Offer::CHAT).await?;
            return Ok(Said::NewRequest {
                reply_id: started.id.clone(),
            });
        }
        self.answer(sid, question_id, Some(text), false).await?;
        Ok(Said::Answer)
    }

    async fn list_questions(&self) -> Result<QuestionList, ApiError> {
        self.waiting_questions().await
    }

    async fn stop(&self, sid: String) -> Result<(), ApiError> {
        self.reply(&sid)?.stop();
        Ok(())
    }

    async fn retry(&self, sid: String) -> Result<ReplyStarted, ApiError> {
        let reply = self.retry_reply(&sid).await?;
        Ok(ReplyStarted {
            reply_id: reply.id.clone(),
        })
    }
}

/// Ends `reply` with `end` (stop or end) and waits for its last event, so
/// its session is free and nothing more of it is written.
async fn ended_by(reply: &Reply, end: fn(&Reply)) {
    // Followed before it is ended: the end cannot be missed.
    let mut cursor = reply.log.follow(0);
    end(reply);
    while cursor.next().await.is_some() {}
}
