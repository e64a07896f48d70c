//! A voice conversation's turns: an utterance with no question waiting (a
//! stop, or a request), the session row written at the first one, a turn
//! started (or queued behind the one running), a reply
//! adopted, and its events forwarded to every window of the conversation.

use super::*;

impl Conversation {
    /// Speech or typing: the answer to a waiting question, else the next
    /// question (queued while a reply is written).
    pub(super) async fn heard(self: &Arc<Self>, starter: &Starter, text: String) {
        let waiting = self.waiting_question();
        if let Some(question) = waiting {
            // Typed or tapped: a yes or no settles a confirm; anything else
            // is the answer as it is.
            if self.settle_confirm(&question, &text).await {
                return;
            }
            let answer = match_option(&text, &question.options).unwrap_or(text);
            self.send(VoiceServerMessage::Answering {
                question_id: question.id.clone(),
                text: answer.clone(),
            });
            return self.answer(&question.id, &answer).await;
        }
        enum Next {
            Start,
            Queued,
            Full,
        }
        let next = {
            let mut state = self.lock();
            if state.turn.is_none() {
                Next::Start
            } else if state.queue.len() >= MAX_QUEUE {
                Next::Full
            } else {
                state.queue.push_back(text.clone());
                Next::Queued
            }
        };
        match next {
            Next::Start => self.start_turn(starter, text).await,
            Next::Queued => self.send(VoiceServerMessage::Queued { text }),
            Next::Full => self.send(VoiceServerMessage::Ignored {
                text,
                reason: IgnoredReason::QueueFull,
            }),
        }
    }

    /// Writes the session row with the reserved id, once.
    pub(super) async fn ensure_stored(&self) -> Result<(), StoreError> {
        if self.lock().stored {
            return Ok(());
        }
        self.store.create_voice_session(&self.id).await?;
        self.lock().stored = true;
        Ok(())
    }

    pub(super) fn start_turn<'a>(
        self: &'a Arc<Self>,
        starter: &'a Starter,
        text: String,
    ) -> futures::future::BoxFuture<'a, ()> {
        Box::pin(async move {
            let offer = Offer {
                read_only: self.read_only,
                can_answer: true,
                spoken: true,
            };
            if let Err(e) = self.ensure_stored().await {
                tracing::error!(error = %e, "could not store a voice conversation");
                return self.send(VoiceServerMessage::Error {
                    error: "the conversation could not be stored; see the server log".into(),
                });
            }
            let reply = match starter
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
            let starter = Arc::clone(starter);
            tokio::spawn(async move { conversation.forward(&starter, reply).await });
        })
    }

    /// Takes on a reply that is already running in this conversation (one
    /// restored after a restart), with its waiting question and speech.
    pub fn adopt(self: &Arc<Self>, starter: &Starter, reply: Arc<Reply>) {
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
        let starter = Arc::clone(starter);
        tokio::spawn(async move { conversation.forward(&starter, reply).await });
    }

    /// Relays a turn's reply events to the windows, stops a turn that goes
    /// quiet for too long (not counting the answer wait), and starts the
    /// next queued turn when it ends.
    pub(super) async fn forward(self: Arc<Self>, starter: &Starter, reply: Arc<Reply>) {
        let quiet_limit = self.settings.turn_timeout;
        let answer_wait = self.settings.answer_wait;
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
            let mut value: Value = serde_json::from_str(event.json()).unwrap_or(Value::Null);
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
        match next {
            Some(text) => self.start_turn(starter, text).await,
            None => {
                if let Some(hub) = self.hub.upgrade() {
                    hub.left(&self);
                }
            }
        }
    }
}
