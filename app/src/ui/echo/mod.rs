//! Echo in the browser: one voice conversation shared by the Voice page
//! and the floating companion, over `GET /api/voice/ws`, with the
//! microphone going to Imprint's recogniser (audio frames on the socket)
//! or to the browser's Web Speech, as chosen in this browser.

mod hearing;
mod panel;

pub use panel::{Companion, EchoPanel};

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::io::microphone::{self, Microphone};
use crate::io::speech::{recognition::Recognition, synthesis};
use crate::io::voice_socket::VoiceSocket;
use crate::logic::echo::{meter_level, AudioGate, EchoState, Phase, Recogniser};
use crate::protocol::{VoiceClientMessage, AUDIO_FORMAT, AUDIO_SAMPLE_RATE};

const CONVERSATION_KEY: &str = "imprint-echo-conversation";
/// The recogniser chosen in this browser.
const RECOGNISER_KEY: &str = "imprint-echo-recogniser";
/// "1" when the user let Echo save and set reminders in this browser.
const WRITES_KEY: &str = "imprint-echo-writes";

#[derive(Clone, Copy)]
pub struct Echo {
    pub state: RwSignal<EchoState>,
    pub connected: RwSignal<bool>,
    /// The microphone is on (the toggle), with either recogniser.
    pub listening: RwSignal<bool>,
    pub recogniser: RwSignal<Recogniser>,
    /// The microphone's level (0–1) while Imprint's recogniser listens.
    pub level: RwSignal<f64>,
    /// Sentences being spoken now.
    pub speaking: RwSignal<u32>,
    /// Why the microphone is not available, if it is not.
    pub mic_problem: RwSignal<Option<String>>,
    socket: StoredValue<Option<VoiceSocket>, LocalStorage>,
    recognition: StoredValue<Option<Recognition>, LocalStorage>,
    microphone: StoredValue<Option<Microphone>, LocalStorage>,
    gate: StoredValue<AudioGate, LocalStorage>,
    /// Counts the microphone's turns on and off: a capture that opens
    /// after the user turned it off again is dropped.
    mic_turn: StoredValue<u64>,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn provide_echo() {
    let stored = storage().and_then(|s| s.get_item(RECOGNISER_KEY).ok().flatten());
    let echo = Echo {
        state: RwSignal::new(EchoState {
            saving: true,
            writes: storage()
                .and_then(|s| s.get_item(WRITES_KEY).ok().flatten())
                .is_some_and(|v| v == "1"),
            ..Default::default()
        }),
        connected: RwSignal::new(false),
        listening: RwSignal::new(false),
        recogniser: RwSignal::new(Recogniser::remembered(
            stored.as_deref(),
            crate::io::speech::recognition::available(),
        )),
        level: RwSignal::new(0.0),
        speaking: RwSignal::new(0),
        mic_problem: RwSignal::new(None),
        socket: StoredValue::new_local(None),
        recognition: StoredValue::new_local(None),
        microphone: StoredValue::new_local(None),
        gate: StoredValue::new_local(AudioGate::default()),
        mic_turn: StoredValue::new(0),
    };
    // The socket, the microphone and the recogniser live in stored values
    // of the app's owner: dropped with it, each closes itself.
    provide_context(echo);
}

impl Echo {
    /// What the page says Echo is doing.
    pub fn phase(self) -> Phase {
        let mic_on = self.listening.get();
        let speaking = self.speaking.get() > 0;
        self.state.with(|s| s.ear.phase(mic_on, speaking))
    }

    fn streams_audio(self) -> bool {
        self.listening.get_untracked() && self.recogniser.get_untracked() == Recogniser::Imprint
    }

    /// Opens the socket if it is not open, joining the remembered
    /// conversation (or a new one when `fresh`).
    pub fn connect(self, fresh: bool) {
        if self.connected.get_untracked() && !fresh {
            return;
        }
        let (saving, writes) = self.state.with_untracked(|s| (s.saving, s.writes));
        let conversation = if fresh || !saving {
            None
        } else {
            storage().and_then(|s| s.get_item(CONVERSATION_KEY).ok().flatten())
        };
        let socket = VoiceSocket::open(
            move |message| self.receive(&message),
            move || self.disconnected(),
        );
        let Some(socket) = socket else {
            self.state
                .update(|s| s.notice = Some("Echo cannot reach the server.".into()));
            return;
        };
        socket.send(&VoiceClientMessage::Hello {
            conversation_id: conversation,
            saving: Some(saving),
            writes: Some(writes),
        });
        // A new socket is asked again whether the server listens.
        self.gate.update_value(AudioGate::close);
        self.state.update(|s| s.ear.stopped());
        if self.streams_audio() {
            socket.send(&audio_start());
        }
        // Replacing the old socket closes it.
        self.socket.set_value(Some(socket));
        self.connected.set(true);
    }

    fn disconnected(self) {
        self.connected.set(false);
        self.socket.set_value(None);
        if self.streams_audio() {
            self.mic_off();
            self.mic_problem.set(Some(
                "Echo lost its connection to Imprint; the microphone is off.".into(),
            ));
        }
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
        match message["type"].as_str() {
            Some("audio_ready") if self.streams_audio() => {
                for frame in self
                    .gate
                    .try_update_value(AudioGate::open)
                    .unwrap_or_default()
                {
                    self.send_audio(frame);
                }
            }
            Some("audio_unavailable") if self.streams_audio() => self.mic_off(),
            _ => {}
        }
        for sentence in to_speak.into_iter().filter(|s| !s.trim().is_empty()) {
            self.say(sentence);
        }
    }

    /// Speaks a sentence, telling the server first (`speaking`) so that
    /// hearing it back is recognized as Echo's own voice, and after
    /// (`spoke`) however it ended. The microphone keeps streaming.
    pub fn say(self, sentence: String) {
        self.send(VoiceClientMessage::Speaking {
            text: sentence.clone(),
        });
        self.speaking.update(|n| *n += 1);
        let said = sentence.clone();
        synthesis::speak(&sentence, move || {
            self.speaking.update(|n| *n = n.saturating_sub(1));
            self.send(VoiceClientMessage::Spoke { text: Some(said) });
        });
    }

    fn send(self, message: VoiceClientMessage) {
        self.connect(false);
        self.socket.with_value(|socket| {
            if let Some(socket) = socket {
                socket.send(&message);
            }
        });
    }

    fn send_audio(self, frame: Vec<u8>) {
        self.socket.with_value(|socket| {
            if let Some(socket) = socket {
                socket.send_audio(frame);
            }
        });
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

    /// Lets Echo save and set reminders (or not), remembered in this
    /// browser; a new conversation starts with it.
    pub fn set_writes(self, writes: bool) {
        if let Some(s) = storage() {
            let _ = s.set_item(WRITES_KEY, if writes { "1" } else { "0" });
        }
        self.state.update(|s| {
            s.writes = writes;
            s.turns.clear();
        });
        self.connect(true);
    }

    /// Chooses the recogniser, remembered in this browser.
    pub fn choose(self, recogniser: Recogniser) {
        if recogniser == self.recogniser.get_untracked() {
            return;
        }
        self.mic_off();
        self.recogniser.set(recogniser);
        if let Some(s) = storage() {
            let _ = s.set_item(RECOGNISER_KEY, recogniser.key());
        }
    }

    pub fn toggle_listening(self) {
        if self.listening.get_untracked() {
            self.mic_off();
            return;
        }
        match self.recogniser.get_untracked() {
            Recogniser::Imprint => self.listen_with_imprint(),
            Recogniser::Browser => self.listen_with_web_speech(),
        }
    }

    /// Turns the microphone off, with either recogniser.
    fn mic_off(self) {
        self.mic_turn.update_value(|n| *n += 1);
        if self.streams_audio() {
            self.socket.with_value(|socket| {
                if let Some(socket) = socket {
                    socket.send(&VoiceClientMessage::AudioEnd);
                }
            });
        }
        self.microphone.set_value(None);
        self.recognition.set_value(None);
        self.gate.update_value(AudioGate::close);
        self.listening.set(false);
        self.level.set(0.0);
        self.state.update(|s| s.ear.stopped());
    }

    /// The microphone's audio to Imprint's recogniser: `audio_start`, then
    /// frames (held until `audio_ready`).
    fn listen_with_imprint(self) {
        self.mic_turn.update_value(|n| *n += 1);
        let turn = self.mic_turn.get_value();
        self.mic_problem.set(None);
        self.gate.update_value(AudioGate::close);
        self.listening.set(true);
        if self.connected.get_untracked() {
            self.send(audio_start());
        } else {
            // Asks for audio itself, the microphone being on.
            self.connect(false);
        }
        let opening = microphone::open(move |frame, rms| self.frame(frame, rms));
        // A task, not an action: opening the microphone (the permission
        // prompt, then getUserMedia) starts a live stream, kept in
        // `microphone` and dropped to stop it; nothing here is read data.
        spawn_local(async move {
            let opened = opening.await;
            if self.mic_turn.try_get_value() != Some(turn) {
                return; // turned off meanwhile: dropping it stops it
            }
            match opened {
                Ok(microphone) => self.microphone.set_value(Some(microphone)),
                Err(why) => {
                    self.mic_off();
                    self.mic_problem.set(Some(format!("{why}; type instead.")));
                }
            }
        });
    }

    fn frame(self, frame: Vec<u8>, rms: f64) {
        self.level.set(meter_level(rms));
        let ready = self
            .gate
            .try_update_value(|gate| gate.frame(frame))
            .unwrap_or_default();
        for frame in ready {
            self.send_audio(frame);
        }
    }

    fn listen_with_web_speech(self) {
        let recognition = Recognition::start(
            move |text, confidence| {
                self.state.update(|s| s.ear.browser_heard(text.clone()));
                self.send(VoiceClientMessage::Utterance { text, confidence });
            },
            move |interim| self.state.update(|s| s.ear.browser_interim(interim)),
            move |error| {
                self.listening.set(false);
                self.state.update(|s| s.ear.stopped());
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

fn audio_start() -> VoiceClientMessage {
    VoiceClientMessage::AudioStart {
        format: AUDIO_FORMAT.into(),
        sample_rate: AUDIO_SAMPLE_RATE,
    }
}
