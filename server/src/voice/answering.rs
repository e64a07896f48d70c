//! Speech or text while a voice turn's question waits: a yes or no
//! settling a confirm, a choice named (heard surely enough) taken as the
//! answer, an unsure one or a short answer of its own confirmed first
//! ("Did you say Billing?"), and the answer delivered to the reply.

use super::*;

impl Conversation {
    pub(super) fn waiting_question(&self) -> Option<VoiceQuestion> {
        self.lock().turn.as_ref().and_then(|t| t.question.clone())
    }

    /// Speech while `question` waits: a yes or no settles a confirm; a
    /// choice named sure enough is the answer; an unsure or free answer
    /// is confirmed first; background talk is not an answer.
    pub(super) async fn spoken_answer(
        self: &Arc<Self>,
        question: VoiceQuestion,
        text: String,
        confidence: Option<f64>,
    ) {
        if self.settle_confirm(&question, &text).await {
            return;
        }
        let judged = if crate::ask::leaves_it_to_imprint(&text) {
            SpokenAnswer::Take(text.clone())
        } else {
            judge_spoken_answer(&text, confidence, &question.options, question.allow_other)
        };
        match judged {
            SpokenAnswer::Take(answer) => {
                self.send(VoiceServerMessage::Answering {
                    question_id: question.id.clone(),
                    text: answer.clone(),
                });
                self.answer(&question.id, &answer).await
            }
            SpokenAnswer::Confirm(answer) => self.confirm(question.id, answer),
            SpokenAnswer::NotAnAnswer => self.send(VoiceServerMessage::Ignored {
                text,
                reason: IgnoredReason::NotAnAnswer,
            }),
        }
    }

    /// Asks "Did you say …?", and drops the answer if no yes or no comes
    /// within the settings' `confirm_wait`.
    pub(super) fn confirm(self: &Arc<Self>, question_id: String, text: String) {
        let serial = {
            let mut state = self.lock();
            state.confirms += 1;
            let serial = state.confirms;
            state.confirming = Some(Confirm {
                question_id: question_id.clone(),
                text: text.clone(),
                serial,
            });
            serial
        };
        self.send(VoiceServerMessage::Confirming {
            question_id,
            speech: confirm_speech(&text),
            text,
        });
        let conversation = Arc::downgrade(self);
        let wait = self.settings.confirm_wait;
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let Some(conversation) = conversation.upgrade() else {
                return;
            };
            let expired = {
                let mut state = conversation.lock();
                match &state.confirming {
                    Some(c) if c.serial == serial => state.confirming.take(),
                    _ => None,
                }
            };
            if let Some(c) = expired {
                conversation.send(VoiceServerMessage::Unconfirmed {
                    question_id: c.question_id,
                    text: c.text,
                });
            }
        });
    }

    /// A yes or no to the confirm waiting on `question`: the answer taken
    /// or dropped (`true`: `text` is used up). Other words drop the
    /// confirm and are heard afresh (`false`).
    pub(super) async fn settle_confirm(&self, question: &VoiceQuestion, text: &str) -> bool {
        let pending = self.lock().confirming.take();
        let Some(pending) = pending.filter(|c| c.question_id == question.id) else {
            return false;
        };
        match yes_or_no(text) {
            Some(true) => {
                self.send(VoiceServerMessage::Answering {
                    question_id: pending.question_id.clone(),
                    text: pending.text.clone(),
                });
                self.answer(&pending.question_id, &pending.text).await;
                true
            }
            answer => {
                self.send(VoiceServerMessage::Unconfirmed {
                    question_id: pending.question_id,
                    text: pending.text,
                });
                answer.is_some()
            }
        }
    }

    pub(super) async fn answer(&self, question_id: &str, text: &str) {
        let reply = self.lock().turn.as_ref().map(|t| Arc::clone(&t.reply));
        let result = match reply {
            Some(reply) => reply.answer(question_id, Some(text)).await,
            None => Err(AnswerError::NotWaiting),
        };
        match result {
            Ok(answer) => self.send(VoiceServerMessage::Answered {
                question_id: question_id.into(),
                text: answer.shown(),
            }),
            Err(error) => self.send(VoiceServerMessage::AnswerRejected {
                question_id: question_id.into(),
                text: text.into(),
                error: error.to_string(),
            }),
        }
    }
}
