//! Echo's WebSocket messages (SPEC §6), `GET /api/voice/ws`. Reply events
//! are forwarded as in §4 with a `turn_id` (and `speech` on a question).

use serde::{Deserialize, Serialize};

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
}

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
    /// `reason`: `noise` or `echo`.
    Ignored {
        text: String,
        reason: String,
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
                saving: None
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
                reason: "noise".into()
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
}
