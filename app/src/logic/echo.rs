//! Echo on the page is one reducer over the voice socket's messages: the
//! snapshot, turns, reply events (with `turn_id`), questions and their
//! answers. It also says what to speak aloud. Beside it, the microphone's
//! plain state: what the recogniser is doing ([`Ear`]), the status the page
//! says ([`Phase`]), which recogniser is chosen ([`Recogniser`]), the meter's
//! scale and the audio held until the server listens ([`AudioGate`]).

use std::collections::VecDeque;

use serde_json::Value;

use super::reply::CardState;
use crate::protocol::{
    IgnoredReason, ReplyEvent, VoiceQuestion, VoiceServerMessage, VoiceTurn, MAX_AUDIO_FRAME_BYTES,
};

#[derive(Clone, Debug, PartialEq)]
pub struct EchoTurn {
    pub id: String,
    pub text: String,
    pub reply_text: String,
    pub question: Option<(VoiceQuestion, CardState)>,
    pub finished: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct EchoState {
    pub conversation_id: Option<String>,
    pub saving: bool,
    /// Echo may save and set reminders here (the conversation is not
    /// read-only).
    pub writes: bool,
    pub turns: Vec<EchoTurn>,
    pub queue: Vec<String>,
    /// The last thing Echo chose not to take (noise, its own voice).
    pub notice: Option<String>,
    /// What Imprint's recogniser is doing with this socket's audio.
    pub ear: Ear,
    /// An unsure answer being confirmed: (question id, what was heard,
    /// "Did you say …?"), shown with Yes and No.
    pub confirming: Option<(String, String, String)>,
}

impl EchoState {
    /// The question waiting now, if any.
    pub fn waiting_question(&self) -> Option<&VoiceQuestion> {
        self.turns.iter().rev().find_map(|t| match &t.question {
            Some((q, CardState::Waiting)) if !t.finished => Some(q),
            _ => None,
        })
    }

    pub fn busy(&self) -> bool {
        self.turns.last().is_some_and(|t| !t.finished)
    }

    fn turn(&mut self, id: &str) -> Option<&mut EchoTurn> {
        self.turns.iter_mut().rev().find(|t| t.id == id)
    }

    /// Applies one socket message; returns the sentences to speak.
    pub fn apply(&mut self, message: &Value) -> Vec<String> {
        let kind = message["type"].as_str().unwrap_or_default();
        let text = |key: &str| message[key].as_str().unwrap_or_default().to_string();
        if let Some(known) = super::wire::voice_server_message(message) {
            return self.apply_known(known);
        }
        let turn_id = text("turn_id");
        let mut speak = Vec::new();
        match kind {
            "token" => {
                if let Some(turn) = self.turn(&turn_id) {
                    turn.reply_text.push_str(&text("text"));
                }
            }
            "question" => {
                let question = VoiceQuestion {
                    id: text("id"),
                    question: text("question"),
                    options: super::wire::strings(&message["options"]).unwrap_or_default(),
                    allow_other: message["allow_other"].as_bool().unwrap_or(true),
                    speech: text("speech"),
                };
                speak.push(question.speech.clone());
                if let Some(turn) = self.turn(&turn_id) {
                    turn.question = Some((question, CardState::Waiting));
                }
            }
            "answer" => self.close_question(&turn_id, CardState::Answered(text("text"))),
            "unanswered" => {
                if let Some(ReplyEvent::Unanswered { reason, chosen, .. }) =
                    super::wire::reply_event(message)
                {
                    self.close_question(&turn_id, CardState::closed(reason, chosen))
                }
            }
            "assistant_message" => {
                let answer = text("text");
                if let Some(turn) = self.turn(&turn_id) {
                    turn.reply_text = answer.clone();
                }
                speak.push(answer);
            }
            "error" => {
                if let Some(turn) = self.turn(&turn_id) {
                    turn.reply_text = format!("Something went wrong: {}", text("error"));
                }
            }
            "stopped" => {
                self.close_question(&turn_id, CardState::Stopped);
            }
            "done" => {
                if let Some(turn) = self.turn(&turn_id) {
                    turn.finished = true;
                }
            }
            _ => {}
        }
        speak
    }

    fn close_question(&mut self, turn_id: &str, state: CardState) {
        if let Some(turn) = self.turn(turn_id) {
            if let Some((_, current)) = turn.question.as_mut() {
                // "You decide" was confirmed as `answered` just before.
                let left = matches!(state, CardState::LeftToImprint(_));
                if *current == CardState::Waiting || left {
                    *current = state;
                }
            }
        }
    }

    fn apply_known(&mut self, message: VoiceServerMessage) -> Vec<String> {
        match message {
            VoiceServerMessage::Snapshot {
                conversation_id,
                saving,
                read_only,
                turn,
                queue,
            } => {
                if self.conversation_id.as_deref() != Some(conversation_id.as_str()) {
                    self.turns.clear();
                }
                self.confirming = None;
                self.conversation_id = Some(conversation_id);
                self.saving = saving;
                self.writes = !read_only;
                self.queue = queue;
                for turn in &mut self.turns {
                    turn.finished = true;
                }
                if let Some(VoiceTurn {
                    id,
                    text,
                    reply_text,
                    question,
                }) = turn
                {
                    self.turns.retain(|t| t.id != id);
                    self.turns.push(EchoTurn {
                        id,
                        text,
                        reply_text,
                        question: question.map(|q| (q, CardState::Waiting)),
                        finished: false,
                    });
                }
            }
            VoiceServerMessage::TurnStarted { turn_id, text } => {
                self.queue.retain(|q| *q != text);
                self.turns.push(EchoTurn {
                    id: turn_id,
                    text,
                    reply_text: String::new(),
                    question: None,
                    finished: false,
                });
            }
            VoiceServerMessage::Answering { text, .. } => {
                self.confirming = None;
                self.notice = Some(format!("Taking “{text}” as the answer."));
            }
            VoiceServerMessage::Confirming {
                question_id,
                text,
                speech,
            } => {
                self.confirming = Some((question_id, text, speech.clone()));
                return vec![speech];
            }
            VoiceServerMessage::Unconfirmed { text, .. } => {
                self.confirming = None;
                self.notice = Some(format!("Not taking “{text}”; the question still waits."));
            }
            VoiceServerMessage::Answered { question_id, text } => {
                self.confirming = None;
                for turn in &mut self.turns {
                    if let Some((q, state)) = turn.question.as_mut() {
                        if q.id == question_id {
                            *state = CardState::Answered(text.clone());
                        }
                    }
                }
            }
            VoiceServerMessage::AnswerRejected { error, .. } => self.notice = Some(error),
            VoiceServerMessage::Queued { text } => self.queue.push(text),
            VoiceServerMessage::Ignored { text, reason } => {
                self.ear.settle();
                self.notice = Some(ignored_notice(&text, reason));
            }
            VoiceServerMessage::Error { error } => self.notice = Some(error),
            VoiceServerMessage::AudioReady { recogniser } => {
                self.ear.ready = Some(recogniser);
                self.ear.unavailable = None;
            }
            VoiceServerMessage::AudioUnavailable { error } => {
                self.ear = Ear {
                    unavailable: Some(error),
                    ..Ear::default()
                };
            }
            VoiceServerMessage::Hearing => {
                self.ear.hearing = true;
                self.ear.thinking = false;
                self.ear.interim.clear();
            }
            VoiceServerMessage::Interim { text } => {
                self.ear.hearing = true;
                self.ear.interim = text;
            }
            VoiceServerMessage::Thinking => {
                self.ear.hearing = false;
                self.ear.thinking = true;
            }
            VoiceServerMessage::Heard { text, .. } => {
                self.ear.settle();
                self.ear.heard = Some(text);
            }
        }
        Vec::new()
    }
}

/// What the page says about an utterance it did not take.
fn ignored_notice(text: &str, reason: IgnoredReason) -> String {
    match reason {
        IgnoredReason::Noise => format!("Ignored “{text}”: it sounded like noise."),
        IgnoredReason::Echo => format!("Ignored “{text}”: that was Echo’s own voice."),
        IgnoredReason::QueueFull => format!("Ignored “{text}”: too much is waiting already."),
        IgnoredReason::FrameTooLarge => "Some audio was too large to take; it was dropped.".into(),
        IgnoredReason::AudioTooLong => {
            "That was too long to write down at once; say it in parts.".into()
        }
        IgnoredReason::AudioBacklog => {
            "Echo fell behind the microphone; some audio was dropped.".into()
        }
        IgnoredReason::Busy => {
            "Echo was still writing down what you said before; say it again.".into()
        }
        IgnoredReason::NotAnAnswer => {
            format!("Ignored “{text}”: it did not sound like an answer to the question.")
        }
    }
}

/// Imprint's recogniser as the server reports it on this socket.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ear {
    /// The recogniser's name, once the server listens (`audio_ready`).
    pub ready: Option<String>,
    /// Why the server cannot listen (`audio_unavailable`).
    pub unavailable: Option<String>,
    /// Speech is going on.
    pub hearing: bool,
    /// Speech ended; its text is being written down.
    pub thinking: bool,
    /// The words so far, while speech goes on.
    pub interim: String,
    /// The last final text.
    pub heard: Option<String>,
}

impl Ear {
    /// Back to listening: an utterance was heard or dropped.
    fn settle(&mut self) {
        self.hearing = false;
        self.thinking = false;
        self.interim.clear();
    }

    /// Words heard so far by the browser's own recogniser.
    pub fn browser_interim(&mut self, text: String) {
        self.hearing = !text.is_empty();
        self.interim = text;
    }

    /// A final result of the browser's own recogniser.
    pub fn browser_heard(&mut self, text: String) {
        self.settle();
        self.heard = Some(text);
    }

    /// The microphone went off or the socket was opened again: nothing is
    /// heard or being written down any more. Why the server cannot listen
    /// is kept until it is asked again.
    pub fn stopped(&mut self) {
        self.settle();
        self.ready = None;
    }

    /// What the page says Echo is doing now.
    pub fn phase(&self, mic_on: bool, speaking: bool) -> Phase {
        // The user's own speech first: it may talk over Echo.
        if mic_on && self.hearing {
            Phase::Hearing
        } else if self.thinking {
            Phase::Thinking
        } else if speaking {
            Phase::Speaking
        } else if mic_on {
            Phase::Listening
        } else {
            Phase::Off
        }
    }
}

/// Echo's status, said in words (never by colour alone).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    #[default]
    Off,
    Listening,
    Hearing,
    Thinking,
    Speaking,
}

impl Phase {
    /// The word in `data-state`.
    pub fn key(self) -> &'static str {
        match self {
            Phase::Off => "off",
            Phase::Listening => "listening",
            Phase::Hearing => "hearing",
            Phase::Thinking => "thinking",
            Phase::Speaking => "speaking",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Phase::Off => "Microphone off",
            Phase::Listening => "Listening",
            Phase::Hearing => "Hearing you…",
            Phase::Thinking => "Writing it down…",
            Phase::Speaking => "Speaking…",
        }
    }
}

/// Which recogniser turns the microphone into text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recogniser {
    /// Imprint's own, on this machine: audio goes over the voice socket.
    #[default]
    Imprint,
    /// The browser's Web Speech API (which sends audio to its maker).
    Browser,
}

impl Recogniser {
    /// How the choice is remembered.
    pub fn key(self) -> &'static str {
        match self {
            Recogniser::Imprint => "imprint",
            Recogniser::Browser => "browser",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Recogniser::Imprint => "Imprint (on this machine)",
            Recogniser::Browser => "Browser (Web Speech)",
        }
    }

    /// The remembered choice, where this browser can make it.
    pub fn remembered(stored: Option<&str>, browser_has_web_speech: bool) -> Self {
        match stored {
            Some("browser") if browser_has_web_speech => Recogniser::Browser,
            _ => Recogniser::Imprint,
        }
    }
}

/// The meter's value (0–1) for a frame's RMS (full scale 1): −60 dBFS and
/// below is empty, 0 dBFS full, so quiet speech still moves it.
pub fn meter_level(rms: f64) -> f64 {
    // NaN and silence alike.
    if rms.is_nan() || rms <= 0.0 {
        return 0.0;
    }
    let db = 20.0 * rms.log10();
    ((db + 60.0) / 60.0).clamp(0.0, 1.0)
}

/// Audio frames on their way to the socket: held (up to [`AudioGate::HELD_BYTES`],
/// the oldest dropped first) until the server says it listens, then sent
/// as they come, each at most [`MAX_AUDIO_FRAME_BYTES`] of whole samples.
#[derive(Debug, Default)]
pub struct AudioGate {
    open: bool,
    held: VecDeque<Vec<u8>>,
    held_bytes: usize,
}

impl AudioGate {
    /// Three seconds of 16 kHz s16le.
    pub const HELD_BYTES: usize = 96_000;

    /// A frame from the microphone; returns the frames to send now.
    pub fn frame(&mut self, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        let frames = split_frame(bytes);
        if self.open {
            return frames;
        }
        for frame in frames {
            self.held_bytes += frame.len();
            self.held.push_back(frame);
        }
        while self.held_bytes > Self::HELD_BYTES {
            match self.held.pop_front() {
                Some(old) => self.held_bytes -= old.len(),
                None => break,
            }
        }
        Vec::new()
    }

    /// The server listens: returns what was held, to send first.
    pub fn open(&mut self) -> Vec<Vec<u8>> {
        self.open = true;
        self.held_bytes = 0;
        self.held.drain(..).collect()
    }

    /// Closed again, nothing held (the microphone went off, or the
    /// socket is new and must be asked again).
    pub fn close(&mut self) {
        *self = Self::default();
    }
}

/// Whole samples, at most [`MAX_AUDIO_FRAME_BYTES`] a frame.
fn split_frame(mut bytes: Vec<u8>) -> Vec<Vec<u8>> {
    bytes.truncate(bytes.len() & !1);
    if bytes.is_empty() {
        return Vec::new();
    }
    if bytes.len() <= MAX_AUDIO_FRAME_BYTES {
        return vec![bytes];
    }
    bytes
        .chunks(MAX_AUDIO_FRAME_BYTES)
        .map(<[u8]>::to_vec)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_turn_with_a_question_is_spoken_and_answered() {
        let mut echo = EchoState::default();
        echo.apply(&json!({"type": "snapshot", "conversation_id": "c", "saving": true, "read_only": true, "turn": null}));
        echo.apply(&json!({"type": "turn_started", "turn_id": "t", "text": "find notes"}));
        assert!(echo.busy());
        let speak = echo.apply(&json!({"type": "question", "turn_id": "t", "id": "q", "question": "Which?",
            "options": ["A", "B"], "allow_other": true, "speech": "Which? You can say A or B, or something else."}));
        assert_eq!(speak, vec!["Which? You can say A or B, or something else."]);
        assert_eq!(echo.waiting_question().map(|q| q.id.as_str()), Some("q"));
        echo.apply(&json!({"type": "answered", "question_id": "q", "text": "B"}));
        assert!(echo.waiting_question().is_none());
        echo.apply(&json!({"type": "token", "turn_id": "t", "text": "Here"}));
        let speak =
            echo.apply(&json!({"type": "assistant_message", "turn_id": "t", "text": "Here."}));
        assert_eq!(speak, vec!["Here."]);
        echo.apply(&json!({"type": "done", "turn_id": "t"}));
        assert!(!echo.busy());
        assert_eq!(echo.turns.len(), 1, "an answer is not a turn");
    }

    #[test]
    fn an_unanswered_question_closes_its_card_with_its_reason() {
        let card = |unanswered: Value| {
            let mut echo = EchoState::default();
            echo.apply(&json!({"type": "turn_started", "turn_id": "t", "text": "remind me"}));
            echo.apply(
                &json!({"type": "question", "turn_id": "t", "id": "q", "question": "When?",
                "options": ["09:00"], "allow_other": true, "speech": "When?"}),
            );
            echo.apply(&unanswered);
            echo.turns[0].question.clone().map(|(_, state)| state)
        };
        assert_eq!(
            card(json!({"type": "unanswered", "turn_id": "t", "id": "q", "reason": "timed_out"})),
            Some(CardState::TimedOut)
        );
        // The old spelling.
        assert_eq!(
            card(json!({"type": "unanswered", "turn_id": "t", "id": "q", "reason": "timeout"})),
            Some(CardState::TimedOut)
        );
        assert_eq!(
            card(json!({"type": "unanswered", "turn_id": "t", "id": "q",
                "reason": "left_to_imprint", "chosen": "09:00"})),
            Some(CardState::LeftToImprint(Some("09:00".into())))
        );
        assert_eq!(
            card(json!({"type": "unanswered", "turn_id": "t", "id": "q", "reason": "stopped"})),
            Some(CardState::Stopped)
        );
    }

    #[test]
    fn a_snapshot_restores_the_waiting_question() {
        let mut echo = EchoState::default();
        echo.apply(&json!({"type": "snapshot", "conversation_id": "c", "saving": false, "read_only": true,
            "turn": {"id": "t", "text": "x", "reply_text": "", "question": {"id": "q", "question": "When?", "options": [], "allow_other": true, "speech": "When?"}}}));
        assert_eq!(
            echo.waiting_question().map(|q| q.question.as_str()),
            Some("When?")
        );
        assert!(!echo.saving);
    }

    #[test]
    fn queue_and_notices() {
        let mut echo = EchoState::default();
        echo.apply(&json!({"type": "queued", "text": "and tea?"}));
        assert_eq!(echo.queue, vec!["and tea?"]);
        echo.apply(&json!({"type": "turn_started", "turn_id": "t2", "text": "and tea?"}));
        assert!(echo.queue.is_empty());
        echo.apply(&json!({"type": "ignored", "text": "um", "reason": "noise"}));
        assert!(echo.notice.as_deref().unwrap().contains("noise"));
    }

    #[test]
    fn each_ignored_reason_has_its_own_words() {
        let notice = |reason: &str| {
            let mut echo = EchoState::default();
            echo.apply(&json!({"type": "ignored", "text": "um", "reason": reason}));
            echo.notice.unwrap()
        };
        assert_eq!(notice("noise"), "Ignored “um”: it sounded like noise.");
        assert_eq!(notice("echo"), "Ignored “um”: that was Echo’s own voice.");
        assert_eq!(
            notice("queue_full"),
            "Ignored “um”: too much is waiting already."
        );
        assert_eq!(
            notice("frame_too_large"),
            "Some audio was too large to take; it was dropped."
        );
        assert_eq!(
            notice("audio_too_long"),
            "That was too long to write down at once; say it in parts."
        );
        assert_eq!(
            notice("audio_backlog"),
            "Echo fell behind the microphone; some audio was dropped."
        );
        assert_eq!(
            notice("busy"),
            "Echo was still writing down what you said before; say it again."
        );
    }

    #[test]
    fn the_recogniser_states_follow_the_server() {
        let mut echo = EchoState::default();
        let ear = |echo: &EchoState| echo.ear.phase(true, false);
        echo.apply(&json!({"type": "audio_ready", "recogniser": "whisper-tiny.en"}));
        assert_eq!(echo.ear.ready.as_deref(), Some("whisper-tiny.en"));
        assert_eq!(ear(&echo), Phase::Listening);
        echo.apply(&json!({"type": "hearing"}));
        assert_eq!(ear(&echo), Phase::Hearing);
        echo.apply(&json!({"type": "interim", "text": "remind me"}));
        assert_eq!(echo.ear.interim, "remind me");
        echo.apply(&json!({"type": "thinking"}));
        assert_eq!(ear(&echo), Phase::Thinking);
        echo.apply(&json!({"type": "heard", "text": "remind me to call Anna"}));
        assert_eq!(ear(&echo), Phase::Listening);
        assert!(echo.ear.interim.is_empty());
        assert_eq!(echo.ear.heard.as_deref(), Some("remind me to call Anna"));
        echo.apply(&json!({"type": "hearing"}));
        echo.apply(&json!({"type": "ignored", "text": "", "reason": "audio_too_long"}));
        assert_eq!(ear(&echo), Phase::Listening);
        assert!(echo.notice.as_deref().unwrap().contains("too long"));
    }

    #[test]
    fn audio_unavailable_is_kept_until_asked_again() {
        let mut echo = EchoState::default();
        echo.apply(&json!({"type": "audio_unavailable", "error": "no speech model is set up"}));
        assert_eq!(
            echo.ear.unavailable.as_deref(),
            Some("no speech model is set up")
        );
        echo.ear.stopped();
        assert!(echo.ear.unavailable.is_some());
        echo.apply(&json!({"type": "audio_ready", "recogniser": "r"}));
        assert!(echo.ear.unavailable.is_none());
    }

    #[test]
    fn the_users_speech_outranks_echos_own() {
        let ear = Ear {
            hearing: true,
            ..Ear::default()
        };
        assert_eq!(ear.phase(true, true), Phase::Hearing);
        assert_eq!(Ear::default().phase(true, true), Phase::Speaking);
        assert_eq!(Ear::default().phase(false, false), Phase::Off);
        assert_eq!(Ear::default().phase(false, false).label(), "Microphone off");
    }

    #[test]
    fn web_speech_is_remembered_only_where_it_exists() {
        assert_eq!(Recogniser::remembered(None, true), Recogniser::Imprint);
        assert_eq!(
            Recogniser::remembered(Some("browser"), true),
            Recogniser::Browser
        );
        assert_eq!(
            Recogniser::remembered(Some("browser"), false),
            Recogniser::Imprint
        );
        assert_eq!(
            Recogniser::remembered(Some(Recogniser::Browser.key()), true),
            Recogniser::Browser
        );
    }

    #[test]
    fn the_meter_spans_sixty_decibels() {
        assert_eq!(meter_level(0.0), 0.0);
        assert_eq!(meter_level(f64::NAN), 0.0);
        assert_eq!(meter_level(1.0), 1.0);
        assert!((meter_level(0.001) - 0.0).abs() < 1e-9);
        assert!((meter_level(0.0316) - 0.5).abs() < 0.01);
    }

    #[test]
    fn audio_waits_for_the_server_then_flows_in_whole_samples() {
        let mut gate = AudioGate::default();
        assert!(gate.frame(vec![1; 2560]).is_empty());
        assert!(gate.frame(vec![2; 2560]).is_empty());
        let held = gate.open();
        assert_eq!(held.len(), 2);
        assert_eq!(held[0][0], 1);
        assert_eq!(gate.frame(vec![3; 2561]), vec![vec![3; 2560]]);
        let big = gate.frame(vec![4; 20_000]);
        assert_eq!(
            big.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![8192, 8192, 3616]
        );
        gate.close();
        assert!(gate.frame(vec![5; 2]).is_empty());
    }

    #[test]
    fn held_audio_keeps_the_newest_three_seconds() {
        let mut gate = AudioGate::default();
        for i in 0..100u8 {
            gate.frame(vec![i; 2560]);
        }
        let held = gate.open();
        assert!(held.iter().map(Vec::len).sum::<usize>() <= AudioGate::HELD_BYTES);
        assert_eq!(held.last().unwrap()[0], 99);
    }

    #[test]
    fn a_confirm_is_shown_and_spoken_until_it_is_answered_or_dropped() {
        let mut state = EchoState::default();
        let speak = state.apply(&serde_json::json!({
            "type": "confirming", "question_id": "q", "text": "Billing",
            "speech": "Did you say Billing?"
        }));
        assert_eq!(speak, ["Did you say Billing?"]);
        assert_eq!(
            state.confirming,
            Some(("q".into(), "Billing".into(), "Did you say Billing?".into()))
        );
        state.apply(
            &serde_json::json!({"type": "unconfirmed", "question_id": "q", "text": "Billing"}),
        );
        assert_eq!(state.confirming, None);
        assert!(state
            .notice
            .as_deref()
            .unwrap_or_default()
            .contains("still waits"));
        state.apply(&serde_json::json!({
            "type": "confirming", "question_id": "q", "text": "Garden", "speech": "Did you say Garden?"
        }));
        state
            .apply(&serde_json::json!({"type": "answering", "question_id": "q", "text": "Garden"}));
        assert_eq!(state.confirming, None);
    }
}
