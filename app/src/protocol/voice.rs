//! Echo's WebSocket messages (SPEC §6), `GET /api/voice/ws`. Reply events
//! are forwarded as in §4 with a `turn_id` (and `speech` on a question).
//!
//! Imprint's own recogniser hears audio sent on the same socket:
//! 1. the client sends `audio_start` (the format below is the only one);
//! 2. the server answers `audio_ready`, or `audio_unavailable` with why;
//! 3. the client sends **binary frames**: 16 kHz mono PCM, signed 16-bit
//!    little-endian, whole samples, at most [`MAX_AUDIO_FRAME_BYTES`] each
//!    (20–100 ms is usual);
//! 4. the server finds where speech starts and ends, and says so
//!    (`hearing`, `interim` text while it lasts, `thinking` when it ends),
//!    then `heard` with the final text, which takes the `utterance` path
//!    (noise, echo, the answer to a waiting question, "stop", the queue);
//! 5. `audio_end` stops listening; speech still in progress is heard.

use serde::{Deserialize, Serialize};

/// Why the server did not take an utterance or a piece of audio (an
/// `ignored` message's `reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IgnoredReason {
    /// Empty, filler-only or low-confidence speech.
    Noise,
    /// Echo hearing itself.
    Echo,
    /// Too much speech is already queued for the next turn.
    QueueFull,
    /// An audio frame over [`MAX_AUDIO_FRAME_BYTES`].
    FrameTooLarge,
    /// Speech longer than the recogniser takes at once (it was cut).
    AudioTooLong,
    /// The recogniser fell behind: audio was dropped.
    AudioBacklog,
    /// The recogniser was still busy with the utterance before.
    Busy,
    /// Speech while a question waits that names no choice and is not a
    /// short answer of its own: background talk.
    NotAnAnswer,
}

/// Client → server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum VoiceClientMessage {
    /// First message: join a conversation (none starts a new one).
    Hello {
        #[serde(default)]
        conversation_id: Option<String>,
        #[serde(default)]
        saving: Option<bool>,
        /// Echo may save memories and set reminders. Off by default:
        /// voice is read-only unless the user turns this on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        writes: Option<bool>,
    },
    /// Recognized speech.
    Utterance {
        text: String,
        #[serde(default)]
        confidence: Option<f64>,
    },
    Typed {
        text: String,
    },
    /// A tapped choice.
    Answer {
        question_id: String,
        text: String,
    },
    Stop,
    /// What the client is speaking now (for the echo filter).
    Speaking {
        text: String,
    },
    /// The client stopped speaking `text` (finished, cancelled or failed).
    Spoke {
        #[serde(default)]
        text: Option<String>,
    },
    /// Binary audio frames follow, in [`AUDIO_FORMAT`] at [`AUDIO_SAMPLE_RATE`].
    AudioStart {
        format: String,
        sample_rate: u32,
    },
    /// The microphone is off; speech in progress is still heard.
    AudioEnd,
}

/// The one audio format the socket takes: signed 16-bit little-endian PCM.
pub const AUDIO_FORMAT: &str = "s16le";
/// Samples per second of the socket's audio, mono.
pub const AUDIO_SAMPLE_RATE: u32 = 16_000;
/// The largest binary audio frame: 8,192 bytes, 256 ms.
pub const MAX_AUDIO_FRAME_BYTES: usize = 8_192;

/// A question as Echo shows and speaks it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VoiceQuestion {
    pub id: String,
    pub question: String,
    pub options: Vec<String>,
    pub allow_other: bool,
    pub speech: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VoiceTurn {
    pub id: String,
    pub text: String,
    pub reply_text: String,
    pub question: Option<VoiceQuestion>,
}

/// Server → client (besides the forwarded reply events).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum VoiceServerMessage {
    Snapshot {
        conversation_id: String,
        saving: bool,
        read_only: bool,
        turn: Option<VoiceTurn>,
        #[serde(default)]
        queue: Vec<String>,
    },
    TurnStarted {
        turn_id: String,
        text: String,
    },
    /// An utterance or typed text was taken as the answer.
    Answering {
        question_id: String,
        text: String,
    },
    Answered {
        question_id: String,
        text: String,
    },
    /// An unsure answer (low confidence, or naming no choice): the next
    /// yes or no (spoken, typed or tapped) takes it or drops it.
    Confirming {
        question_id: String,
        text: String,
        /// The sentence to speak: "Did you say Billing?"
        speech: String,
    },
    /// The answer being confirmed was dropped (a no, other words, or no
    /// reply in time): the question keeps waiting.
    Unconfirmed {
        question_id: String,
        text: String,
    },
    /// The answer was refused (e.g. not one of the choices).
    AnswerRejected {
        question_id: String,
        text: String,
        error: String,
    },
    /// Speech during a reply, kept for the next turn.
    Queued {
        text: String,
    },
    /// Imprint's recogniser is listening to this socket's audio.
    AudioReady {
        /// The recogniser's name, e.g. `whisper-tiny.en`.
        recogniser: String,
    },
    /// No recogniser here (no weights set up, or it failed to load).
    AudioUnavailable {
        error: String,
    },
    /// Speech started in the audio.
    Hearing,
    /// The words so far, while speech lasts.
    Interim {
        text: String,
    },
    /// Speech ended; the recogniser is writing it down.
    Thinking,
    /// The final text of an utterance, before it takes the utterance path.
    Heard {
        text: String,
        #[serde(default)]
        confidence: Option<f64>,
    },
    /// Speech or audio not taken (`text` is empty for audio).
    Ignored {
        text: String,
        reason: IgnoredReason,
    },
    /// A message the server could not take.
    Error {
        error: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_messages_have_the_spec_shape() {
        let hello: VoiceClientMessage = serde_json::from_value(json!({"type": "hello"})).unwrap();
        assert_eq!(
            hello,
            VoiceClientMessage::Hello {
                conversation_id: None,
                saving: None,
                writes: None,
            }
        );
        let utterance: VoiceClientMessage =
            serde_json::from_value(json!({"type": "utterance", "text": "hi", "confidence": 0.9}))
                .unwrap();
        assert_eq!(
            utterance,
            VoiceClientMessage::Utterance {
                text: "hi".into(),
                confidence: Some(0.9)
            }
        );
        let answer: VoiceClientMessage =
            serde_json::from_value(json!({"type": "answer", "question_id": "q", "text": "A"}))
                .unwrap();
        assert_eq!(
            answer,
            VoiceClientMessage::Answer {
                question_id: "q".into(),
                text: "A".into()
            }
        );
        assert_eq!(
            serde_json::to_value(VoiceClientMessage::Stop).unwrap(),
            json!({"type": "stop"})
        );
    }

    #[test]
    fn server_messages_have_the_spec_shape() {
        assert_eq!(
            serde_json::to_value(VoiceServerMessage::Ignored {
                text: "um".into(),
                reason: IgnoredReason::Noise
            })
            .unwrap(),
            json!({"type": "ignored", "text": "um", "reason": "noise"})
        );
        assert_eq!(
            serde_json::to_value(VoiceServerMessage::Snapshot {
                conversation_id: "c".into(),
                saving: true,
                read_only: true,
                turn: None,
                queue: vec![],
            })
            .unwrap(),
            json!({"type": "snapshot", "conversation_id": "c", "saving": true, "read_only": true, "turn": null, "queue": []})
        );
        assert_eq!(
            serde_json::to_value(VoiceServerMessage::Answering {
                question_id: "q".into(),
                text: "A".into()
            })
            .unwrap(),
            json!({"type": "answering", "question_id": "q", "text": "A"})
        );
    }

    #[test]
    fn ignored_reasons_have_the_spec_names() {
        for (reason, name) in [
            (IgnoredReason::Noise, "noise"),
            (IgnoredReason::Echo, "echo"),
            (IgnoredReason::QueueFull, "queue_full"),
            (IgnoredReason::FrameTooLarge, "frame_too_large"),
            (IgnoredReason::AudioTooLong, "audio_too_long"),
            (IgnoredReason::AudioBacklog, "audio_backlog"),
            (IgnoredReason::Busy, "busy"),
        ] {
            let message = VoiceServerMessage::Ignored {
                text: "um".into(),
                reason,
            };
            let written = json!({"type": "ignored", "text": "um", "reason": name});
            assert_eq!(serde_json::to_value(&message).unwrap(), written);
            let back: VoiceServerMessage = serde_json::from_value(written).unwrap();
            assert_eq!(back, message);
        }
        assert!(serde_json::from_value::<VoiceServerMessage>(
            json!({"type": "ignored", "text": "um", "reason": "mumbling"})
        )
        .is_err());
    }
}
