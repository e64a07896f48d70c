//! One model turn, streamed: its text shown as it comes (and queued for
//! the store first), its calls collected, ended early by a stop, the
//! research deadline, a repeated call or too many.

use std::sync::Arc;

use serde_json::Value;

use super::policy;
use super::run::{Interrupt, Run};
use crate::models::{ChatMessage, ModelEvent, ToolCallRequest, TurnRequest};

/// One finished model turn.
pub(super) struct Turn {
    pub(super) text: String,
    pub(super) calls: Vec<ToolCallRequest>,
    pub(super) malformed: usize,
    /// The research deadline passed while the model was still writing:
    /// the request was dropped and its calls are not run.
    pub(super) out_of_time: bool,
    /// The model wrote hidden markup longer than any call, and its turn
    /// was ended there ([`ModelEvent::Overlong`]).
    pub(super) overlong: bool,
}

impl Run {
    /// Streams one model turn; `allow_calls` false is the reserved answer
    /// (tools neither described nor run, markup still kept from the user).
    pub(super) async fn turn(&mut self, allow_calls: bool) -> Result<Turn, Interrupt> {
        let (messages, tools) = (self.talk.messages().to_vec(), Arc::clone(self.talk.tools()));
        self.turn_on(messages, tools, allow_calls).await
    }

    /// [`Self::turn`] on the given conversation and tools.
    pub(super) async fn turn_on(
        &mut self,
        messages: Vec<ChatMessage>,
        tools: Arc<Vec<Value>>,
        allow_calls: bool,
    ) -> Result<Turn, Interrupt> {
        self.ensure_slot().await?;
        self.leave_checkpoint();
        let number = self.turns.start();
        tracing::debug!(reply = %self.reply.id, turn = number, allow_calls, "model turn");
        let research_turn = allow_calls && !tools.is_empty();
        let request = TurnRequest {
            messages,
            tools,
            allow_calls,
            call_id_prefix: format!("t{number}_"),
        };
        // Dropped at the research deadline: a small model can write hidden
        // call markup until its token limit, minutes with nothing shown.
        let request_stop = self.reply.stop_token().child_token();
        let _drop_request = request_stop.clone().drop_guard();
        let mut events = self.env.model.stream_turn(request, request_stop);
        let mut turn = Turn {
            text: String::new(),
            calls: Vec::new(),
            malformed: 0,
            out_of_time: false,
            overlong: false,
        };
        let deadline = self.research.deadline();
        let mut ignored_calls = 0;
        loop {
            let event = tokio::select! {
                biased;
                _ = self.reply.stop_token().cancelled() => return Err(self.interrupted()),
                _ = tokio::time::sleep_until(deadline), if research_turn => {
                    tracing::info!(reply = %self.reply.id, "research time ran out while the model wrote");
                    turn.calls.clear();
                    turn.out_of_time = true;
                    break;
                }
                event = events.recv() => event,
            };
            match event {
                None => break,
                Some(Ok(ModelEvent::Text(text))) => {
                    turn.text.push_str(&text);
                    self.push_text(text).await;
                    // Going round: the request is dropped, so the model
                    // server stops writing.
                    if policy::says_it_again(&turn.text) {
                        tracing::info!(reply = %self.reply.id, "the model said a sentence again: the turn ends");
                        break;
                    }
                }
                Some(Ok(ModelEvent::LengthLimit)) => self.turns.reached_length_limit(),
                Some(Ok(ModelEvent::ToolCall(call))) if allow_calls => {
                    // A call the turn already wrote: a small model has
                    // begun to go round (search, list, ask, search…), and
                    // the rest would repeat too. The request is dropped,
                    // so the model server stops writing.
                    if turn.calls.iter().any(|c| policy::same_call(c, &call)) {
                        break;
                    }
                    turn.calls.push(call);
                    if turn.calls.len() > policy::MAX_CALLS_PER_TURN {
                        // The rest would not run.
                        break;
                    }
                }
                Some(Ok(ModelEvent::ToolCall(_))) => {
                    // Not run; only a native call gets here (markup is not
                    // read as calls in such a turn).
                    ignored_calls += 1;
                    if ignored_calls > policy::MAX_CALLS_PER_TURN {
                        break;
                    }
                }
                Some(Ok(ModelEvent::Malformed(raw))) => {
                    tracing::debug!(%raw, "unreadable tool markup");
                    if !allow_calls {
                        // The turn meant for the answer writes calls
                        // instead: what it said before stays, and a turn
                        // that said nothing gets Imprint's own answer.
                        break;
                    }
                    turn.malformed += 1;
                }
                Some(Ok(ModelEvent::Overlong)) => {
                    turn.malformed += usize::from(allow_calls);
                    turn.overlong = true;
                }
                Some(Err(error)) => return Err(Interrupt::model(error)),
            }
        }
        if self.reply.stop_token().is_cancelled() {
            return Err(self.interrupted());
        }
        Ok(turn)
    }
}
