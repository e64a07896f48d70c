//! Echo on the page is one reducer over the voice socket's messages: the
//! snapshot, turns, reply events (with `turn_id`), questions and their
//! answers. It also says what to speak aloud.

use serde_json::Value;

use super::reply::CardState;
use crate::protocol::{VoiceQuestion, VoiceServerMessage, VoiceTurn};

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
    pub turns: Vec<EchoTurn>,
    pub queue: Vec<String>,
    /// The last thing Echo chose not to take (noise, its own voice).
    pub notice: Option<String>,
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
                let chosen = message["chosen"].as_str().map(str::to_string);
                self.close_question(&turn_id, CardState::closed(&text("reason"), chosen))
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
                self.close_question(&turn_id, CardState::Unanswered("stopped".into()));
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
                turn,
                queue,
                ..
            } => {
                if self.conversation_id.as_deref() != Some(conversation_id.as_str()) {
                    self.turns.clear();
                }
                self.conversation_id = Some(conversation_id);
                self.saving = saving;
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
                self.notice = Some(format!("Taking “{text}” as the answer."));
            }
            VoiceServerMessage::Answered { question_id, text } => {
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
                self.notice = Some(match reason.as_str() {
                    "echo" => format!("Ignored “{text}”: that was Echo’s own voice."),
                    _ => format!("Ignored “{text}”: it sounded like noise."),
                });
            }
            VoiceServerMessage::Error { error } => self.notice = Some(error),
            // The recogniser's states belong to the microphone's view.
            VoiceServerMessage::AudioReady { .. }
            | VoiceServerMessage::AudioUnavailable { .. }
            | VoiceServerMessage::Hearing
            | VoiceServerMessage::Interim { .. }
            | VoiceServerMessage::Thinking
            | VoiceServerMessage::Heard { .. } => {}
        }
        Vec::new()
    }
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
}
