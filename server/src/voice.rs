//! Echo's conversations: the queue of speech heard during a reply, routing
//! the next utterance, typed text or tap to a waiting question, the noise
//! and self-hearing filters, the sentence that speaks a question, and the
//! snapshot a (re)connecting window starts from.
//!
//! A conversation is a chat session (channel `voice`). With saving off it
//! lives in an in-memory store and is never listed.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::logic::voice::{is_echo, is_noise, is_stop, match_option, question_speech};
use app::protocol::{ReplyEvent, VoiceClientMessage, VoiceQuestion, VoiceServerMessage, VoiceTurn};
use serde_json::Value;
use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::ask::AnswerError;
use crate::engine::Engine;
use crate::replies::Reply;
use crate::store::Store;
use crate::tools::Offer;

/// How long what Echo said counts for the self-hearing filter.
const SPOKEN_MEMORY: Duration = Duration::from_secs(30);

/// Every open voice conversation, by id.
#[derive(Default)]
pub struct VoiceHub {
    conversations: Mutex<HashMap<String, Arc<Conversation>>>,
}

pub struct Conversation {
    pub id: String,
    pub saving: bool,
    pub read_only: bool,
    store: Store,
    state: Mutex<State>,
    /// Messages for every window on this conversation, as JSON.
    out: broadcast::Sender<Arc<str>>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<String>,
    turn: Option<Turn>,
    /// What Echo said (or was told it is saying), newest last.
    spoken: VecDeque<(String, Instant)>,
}

struct Turn {
    reply: Arc<Reply>,
    text: String,
    reply_text: String,
    question: Option<VoiceQuestion>,
}

impl VoiceHub {
    /// Joins the conversation `id`, or starts a new one.
    pub async fn open(
        &self,
        engine: &Arc<Engine>,
        id: Option<String>,
        saving: bool,
    ) -> Result<Arc<Conversation>, String> {
        if let Some(id) = &id {
            if let Some(existing) = self.lock().get(id) {
                return Ok(Arc::clone(existing));
            }
            // A stored voice conversation from before: carry it on, with
            // the reply it had open (restored after a restart) if any.
            if let Ok(Some(_)) = engine.store.get_session(id).await {
                let conversation = self.insert(engine.store.clone(), id.clone(), true);
                if let Some(reply) = engine.replies.get(id) {
                    conversation.adopt(engine, reply);
                }
                return Ok(conversation);
            }
        }
        let store = if saving {
            engine.store.clone()
        } else {
            engine.ephemeral.clone()
        };
        let session = store
            .create_session(Some("Voice conversation".into()), "voice")
            .await
            .map_err(|e| e.to_string())?;
        Ok(self.insert(store, session.id, saving))
    }

    fn insert(&self, store: Store, id: String, saving: bool) -> Arc<Conversation> {
        let (out, _) = broadcast::channel(512);
        let conversation = Arc::new(Conversation {
            id: id.clone(),
            saving,
            read_only: true,
            store,
            state: Mutex::new(State::default()),
            out,
        });
        self.lock().entry(id).or_insert(conversation).clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Conversation>>> {
        self.conversations.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn json(message: &VoiceServerMessage) -> Arc<str> {
    serde_json::to_string(message).unwrap_or_default().into()
}

impl Conversation {
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.out.subscribe()
    }

    fn send(&self, message: VoiceServerMessage) {
        let _ = self.out.send(json(&message));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What a (re)connecting window starts from.
    pub fn snapshot(&self) -> Arc<str> {
        let state = self.lock();
        json(&VoiceServerMessage::Snapshot {
            conversation_id: self.id.clone(),
            saving: self.saving,
            read_only: self.read_only,
            turn: state.turn.as_ref().map(|t| VoiceTurn {
                id: t.reply.id.clone(),
                text: t.text.clone(),
                reply_text: t.reply_text.clone(),
                question: t.question.clone(),
            }),
            queue: state.queue.iter().cloned().collect(),
        })
    }

    fn remember_spoken(&self, text: &str) {
        let mut state = self.lock();
        let now = Instant::now();
        state
            .spoken
            .retain(|(_, at)| now.duration_since(*at) < SPOKEN_MEMORY);
        state.spoken.push_back((text.to_string(), now));
    }

    fn recently_spoken(&self) -> Vec<String> {
        let state = self.lock();
        let now = Instant::now();
        let mut spoken: Vec<String> = state
            .spoken
            .iter()
            .filter(|(_, at)| now.duration_since(*at) < SPOKEN_MEMORY)
            .map(|(text, _)| text.clone())
            .collect();
        // What is being spoken now counts too.
        if let Some(turn) = &state.turn {
            spoken.push(turn.reply_text.clone());
            if let Some(q) = &turn.question {
                spoken.push(q.speech.clone());
            }
        }
        spoken
    }

    /// Handles one message from a window.
    pub async fn handle(self: &Arc<Self>, engine: &Arc<Engine>, message: VoiceClientMessage) {
        match message {
            VoiceClientMessage::Hello { .. } => {
                let _ = self.out.send(self.snapshot());
            }
            VoiceClientMessage::Utterance { text, confidence } => {
                if is_noise(&text, confidence) {
                    return self.send(VoiceServerMessage::Ignored {
                        text,
                        reason: "noise".into(),
                    });
                }
                if is_echo(&text, &self.recently_spoken()) {
                    return self.send(VoiceServerMessage::Ignored {
                        text,
                        reason: "echo".into(),
                    });
                }
                if is_stop(&text) {
                    return self.stop();
                }
                self.heard(engine, text.trim().to_string()).await;
            }
            VoiceClientMessage::Typed { text } => {
                if !text.trim().is_empty() {
                    self.heard(engine, text.trim().to_string()).await;
                }
            }
            VoiceClientMessage::Answer { question_id, text } => {
                self.answer(&question_id, &text).await
            }
            VoiceClientMessage::Stop => self.stop(),
            VoiceClientMessage::Speaking { text } => self.remember_spoken(&text),
        }
    }

    fn stop(&self) {
        if let Some(turn) = &self.lock().turn {
            turn.reply.stop();
        }
    }

    /// Speech or typing: the answer to a waiting question, else the next
    /// question (queued while a reply is written).
    async fn heard(self: &Arc<Self>, engine: &Arc<Engine>, text: String) {
        let waiting = self.lock().turn.as_ref().and_then(|t| t.question.clone());
        if let Some(question) = waiting {
            let answer = match_option(&text, &question.options).unwrap_or(text);
            self.send(VoiceServerMessage::Answering {
                question_id: question.id.clone(),
                text: answer.clone(),
            });
            return self.answer(&question.id, &answer).await;
        }
        let busy = {
            let mut state = self.lock();
            if state.turn.is_some() {
                state.queue.push_back(text.clone());
                true
            } else {
                false
            }
        };
        if busy {
            self.send(VoiceServerMessage::Queued { text });
        } else {
            self.start_turn(engine, text).await;
        }
    }

    async fn answer(&self, question_id: &str, text: &str) {
        let reply = self.lock().turn.as_ref().map(|t| Arc::clone(&t.reply));
        let result = match reply {
            Some(reply) => reply.answer(question_id, text).await,
            None => Err(AnswerError::NotWaiting),
        };
        match result {
            Ok(answer) => self.send(VoiceServerMessage::Answered {
                question_id: question_id.into(),
                text: answer,
            }),
            Err(error) => self.send(VoiceServerMessage::AnswerRejected {
                question_id: question_id.into(),
                text: text.into(),
                error: error.to_string(),
            }),
        }
    }

    fn start_turn<'a>(
        self: &'a Arc<Self>,
        engine: &'a Arc<Engine>,
        text: String,
    ) -> futures::future::BoxFuture<'a, ()> {
        Box::pin(async move {
            let offer = Offer {
                read_only: self.read_only,
                can_answer: true,
            };
            let reply = match engine
                .start_reply_in(&self.store, &self.id, &text, offer)
                .await
            {
                Ok(reply) => reply,
                Err(e) => {
                    return self.send(VoiceServerMessage::Error { error: e.message });
                }
            };
            self.lock().turn = Some(Turn {
                reply: Arc::clone(&reply),
                text: text.clone(),
                reply_text: String::new(),
                question: None,
            });
            self.send(VoiceServerMessage::TurnStarted {
                turn_id: reply.id.clone(),
                text,
            });
            let conversation = Arc::clone(self);
            let engine = Arc::clone(engine);
            tokio::spawn(async move { conversation.forward(&engine, reply).await });
        })
    }

    /// Takes on a reply that is already running in this conversation (one
    /// restored after a restart), with its waiting question and speech.
    fn adopt(self: &Arc<Self>, engine: &Arc<Engine>, reply: Arc<Reply>) {
        {
            let mut state = self.lock();
            if state.turn.is_some() {
                return;
            }
            let question = reply.waiters.current().map(|q| VoiceQuestion {
                speech: question_speech(&q.question, &q.options, q.allow_other),
                id: q.id,
                question: q.question,
                options: q.options,
                allow_other: q.allow_other,
            });
            state.turn = Some(Turn {
                reply: Arc::clone(&reply),
                text: String::new(),
                reply_text: String::new(),
                question,
            });
        }
        let conversation = Arc::clone(self);
        let engine = Arc::clone(engine);
        tokio::spawn(async move { conversation.forward(&engine, reply).await });
    }

    /// Relays a turn's reply events to the windows, stops a turn that goes
    /// quiet for too long (not counting the answer wait), and starts the
    /// next queued turn when it ends.
    async fn forward(self: Arc<Self>, engine: &Arc<Engine>, reply: Arc<Reply>) {
        let quiet_limit = engine.config.voice_turn_timeout();
        let answer_wait = engine.config.answer_timeout();
        let mut cursor = reply.log.follow(0);
        let mut deadline = Instant::now() + quiet_limit;
        loop {
            let event = tokio::select! {
                event = cursor.next() => event,
                _ = tokio::time::sleep_until(deadline) => {
                    tracing::info!(turn = %reply.id, "voice turn went quiet; stopping it");
                    reply.stop();
                    deadline = Instant::now() + quiet_limit;
                    continue;
                }
            };
            let Some(event) = event else { break };
            deadline = Instant::now() + quiet_limit;
            let mut value: Value = serde_json::from_str(&event.json).unwrap_or(Value::Null);
            value["turn_id"] = Value::String(reply.id.clone());
            match &event.event {
                ReplyEvent::Token { text } => {
                    if let Some(turn) = self.lock().turn.as_mut() {
                        turn.reply_text.push_str(text);
                    }
                }
                ReplyEvent::Question(q) => {
                    let speech = question_speech(&q.question, &q.options, q.allow_other);
                    value["speech"] = Value::String(speech.clone());
                    self.remember_spoken(&speech);
                    if let Some(turn) = self.lock().turn.as_mut() {
                        turn.question = Some(VoiceQuestion {
                            id: q.id.clone(),
                            question: q.question.clone(),
                            options: q.options.clone(),
                            allow_other: q.allow_other,
                            speech,
                        });
                    }
                    // The turn may wait for the answer as long as the reply does.
                    deadline = Instant::now() + quiet_limit + answer_wait;
                }
                ReplyEvent::Answer { .. } | ReplyEvent::Unanswered { .. } => {
                    if let Some(turn) = self.lock().turn.as_mut() {
                        turn.question = None;
                    }
                }
                ReplyEvent::AssistantMessage { text, .. } => self.remember_spoken(text),
                _ => {}
            }
            let _ = self.out.send(value.to_string().into());
        }
        let next = {
            let mut state = self.lock();
            state.turn = None;
            state.queue.pop_front()
        };
        if let Some(text) = next {
            self.start_turn(engine, text).await;
        }
    }
}
