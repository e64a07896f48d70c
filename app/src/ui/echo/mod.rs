//! Echo in the browser: one voice conversation shared by the Voice page
//! and the floating companion, over `GET /api/voice/ws`.

mod panel;

pub use panel::{Companion, EchoPanel};

use futures::channel::mpsc::{unbounded, UnboundedSender};
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::Message;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::speech::{recognition::Recognition, synthesis};
use crate::logic::echo::EchoState;
use crate::protocol::VoiceClientMessage;

const CONVERSATION_KEY: &str = "imprint-echo-conversation";

#[derive(Clone, Copy)]
pub struct Echo {
    pub state: RwSignal<EchoState>,
    pub connected: RwSignal<bool>,
    pub listening: RwSignal<bool>,
    /// Words heard so far (interim), or the last utterance.
    pub transcript: RwSignal<String>,
    /// Why the microphone is not available, if it is not.
    pub mic_problem: RwSignal<Option<String>>,
    outbox: StoredValue<Option<UnboundedSender<String>>, LocalStorage>,
    recognition: StoredValue<Option<Recognition>, LocalStorage>,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn socket_url() -> Option<String> {
    let location = web_sys::window()?.location();
    let scheme = if location.protocol().ok()? == "https:" {
        "wss"
    } else {
        "ws"
    };
    Some(format!("{scheme}://{}/api/voice/ws", location.host().ok()?))
}

/// A message for the socket, as JSON.
fn encode(message: &VoiceClientMessage) -> String {
    serde_json::to_string(message).unwrap_or_default()
}

pub fn provide_echo() {
    let echo = Echo {
        state: RwSignal::new(EchoState {
            saving: true,
            ..Default::default()
        }),
        connected: RwSignal::new(false),
        listening: RwSignal::new(false),
        transcript: RwSignal::new(String::new()),
        mic_problem: RwSignal::new(None),
        outbox: StoredValue::new_local(None),
        recognition: StoredValue::new_local(None),
    };
    provide_context(echo);
}

impl Echo {
    /// Opens the socket if it is not open, joining the remembered
    /// conversation (or a new one when `fresh`).
    pub fn connect(self, fresh: bool) {
        if self.connected.get_untracked() && !fresh {
            return;
        }
        let saving = self.state.with_untracked(|s| s.saving);
        let conversation = if fresh || !saving {
            None
        } else {
            storage().and_then(|s| s.get_item(CONVERSATION_KEY).ok().flatten())
        };
        let Some(url) = socket_url() else { return };
        let Ok(socket) = WebSocket::open(&url) else {
            self.state
                .update(|s| s.notice = Some("Echo cannot reach the server.".into()));
            return;
        };
        let (mut write, mut read) = socket.split();
        let (outbox, mut outgoing) = unbounded::<String>();
        let hello = VoiceClientMessage::Hello {
            conversation_id: conversation,
            saving: Some(saving),
        };
        let _ = outbox.unbounded_send(encode(&hello));
        self.outbox.set_value(Some(outbox));
        self.connected.set(true);
        spawn_local(async move {
            while let Some(text) = outgoing.next().await {
                if write.send(Message::Text(text)).await.is_err() {
                    break;
                }
            }
        });
        spawn_local(async move {
            while let Some(Ok(Message::Text(text))) = read.next().await {
                let Ok(message) = serde_json::from_slice::<Value>(text.as_bytes()) else {
                    continue;
                };
                self.receive(&message);
            }
            self.connected.set(false);
            self.outbox.set_value(None);
        });
    }

    fn receive(self, message: &Value) {
        if message["type"] == "snapshot" {
            if let (Some(id), Some(s)) = (message["conversation_id"].as_str(), storage()) {
                if message["saving"] == true {
                    let _ = s.set_item(CONVERSATION_KEY, id);
                }
            }
        }
        let to_speak = self
            .state
            .try_update(|s| s.apply(message))
            .unwrap_or_default();
        for sentence in to_speak.into_iter().filter(|s| !s.trim().is_empty()) {
            self.say(sentence);
        }
    }

    /// Speaks a sentence, telling the server first so that hearing it back
    /// is recognized as Echo's own voice.
    pub fn say(self, sentence: String) {
        self.send(VoiceClientMessage::Speaking {
            text: sentence.clone(),
        });
        synthesis::speak(&sentence);
    }

    fn send(self, message: VoiceClientMessage) {
        self.connect(false);
        if let Some(outbox) = self.outbox.get_value() {
            let _ = outbox.unbounded_send(encode(&message));
        }
    }

    pub fn typed(self, text: String) {
        if !text.trim().is_empty() {
            self.send(VoiceClientMessage::Typed { text });
        }
    }

    pub fn answer(self, question_id: String, text: String) {
        self.send(VoiceClientMessage::Answer { question_id, text });
    }

    pub fn stop(self) {
        synthesis::cancel();
        self.send(VoiceClientMessage::Stop);
    }

    /// Saving off starts a conversation that is never stored.
    pub fn set_saving(self, saving: bool) {
        self.state.update(|s| {
            s.saving = saving;
            s.turns.clear();
        });
        self.connect(true);
    }

    pub fn toggle_listening(self) {
        if self.listening.get_untracked() {
            self.recognition.set_value(None);
            self.listening.set(false);
            return;
        }
        let recognition = Recognition::start(
            move |text, confidence| {
                self.transcript.set(text.clone());
                self.send(VoiceClientMessage::Utterance { text, confidence });
            },
            move |interim| self.transcript.set(interim),
            move |error| {
                self.listening.set(false);
                if let Some(error) = error {
                    self.mic_problem.set(Some(format!(
                        "The microphone is not available ({error}); type instead."
                    )));
                }
            },
        );
        match recognition {
            Some(recognition) => {
                self.recognition.set_value(Some(recognition));
                self.mic_problem.set(None);
                self.listening.set(true);
                self.connect(false);
            }
            None => self.mic_problem.set(Some(
                "This browser has no speech recognition; type instead.".into(),
            )),
        }
    }
}
