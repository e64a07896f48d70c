//! What a turn's producer does with what the model streams: text (the
//! key hidden, then markup parsed or shown through the last guard), native
//! call deltas gathered, the end of the turn, and the events sent on.

use super::*;

impl Producer {
    pub(super) async fn text(&mut self, text: &str) {
        self.hidden_run += text.len();
        // A model may say the key back in a reply too: it is hidden before
        // anything reads, logs or shows the text.
        let text = self.hider.push(text);
        self.hidden_text(&text).await;
    }

    /// Text with the key hidden, to the markup parser or the user.
    pub(super) async fn hidden_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        tracing::trace!(text, "model text");
        match &mut self.parser {
            None => self.show(text).await,
            Some(parser) => {
                let events = parser.push(text);
                self.send_markup(events).await;
            }
        }
    }

    pub(super) fn native_delta(&mut self, call: &Value) -> Result<(), ModelError> {
        let index = call
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(self.native_calls.len() as u64);
        let entry = self
            .native_calls
            .entry(index)
            .or_insert_with(|| NativeCall {
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
            });
        if let Some(id) = call.get("id").and_then(Value::as_str) {
            entry.id.push_str(id);
        }
        if let Some(function) = call.get("function") {
            if let Some(name) = function.get("name").and_then(Value::as_str) {
                entry.name.push_str(name);
            }
            match function.get("arguments") {
                Some(Value::String(part)) => entry.arguments.push_str(part),
                Some(Value::Object(_)) => {
                    entry.arguments = function["arguments"].to_string();
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub(super) async fn finish(&mut self) -> Result<(), ModelError> {
        let rest = self.hider.finish();
        self.hidden_text(&rest).await;
        if let Some(parser) = &mut self.parser {
            let events = parser.finish();
            self.send_markup(events).await;
        }
        let rest = self.shown.finish();
        self.send_shown(rest).await;
        // Punctuation that ends an answer ("… the note says "hi"") is its
        // own; on its own it is what a mangled call left.
        let held = std::mem::take(&mut self.blank);
        if self.shown_text && !held.trim().is_empty() {
            self.send(ModelEvent::Text(held.trim_end().to_string()))
                .await;
        }
        if self.finish_reason.as_deref() == Some("length") {
            self.send(ModelEvent::LengthLimit).await;
        }
        let calls = std::mem::take(&mut self.native_calls);
        for (_, call) in calls {
            if call.name.is_empty() {
                self.send(ModelEvent::Malformed(call.arguments)).await;
                continue;
            }
            let arguments = if call.arguments.trim().is_empty() {
                json!({})
            } else {
                serde_json::from_str(&call.arguments).unwrap_or(Value::String(call.arguments))
            };
            let id = if call.id.is_empty() {
                self.next_id()
            } else {
                call.id
            };
            self.send(ModelEvent::ToolCall(ToolCallRequest {
                id,
                name: call.name,
                arguments,
            }))
            .await;
        }
        Ok(())
    }

    /// Text for the user, through the last markup guard.
    pub(super) async fn show(&mut self, text: &str) {
        let shown = self.shown.push(text);
        self.send_shown(shown).await;
    }

    /// Sends what the guard let through, and reports what it dropped as
    /// markup that could not be read.
    pub(super) async fn send_shown(&mut self, shown: String) {
        let dropped = self.shown.take_dropped();
        if is_debris(&shown) {
            // Held until text follows: blank lines between dropped calls,
            // or after the last, are not an answer, nor the brackets a
            // mangled call leaves (`]}` after `{"name": …, "options": [..]}`).
            self.blank.push_str(&shown);
        } else {
            self.shown_text = true;
            let text = std::mem::take(&mut self.blank) + &shown;
            self.send(ModelEvent::Text(text)).await;
        }
        if !dropped.trim().is_empty() {
            self.send(ModelEvent::Malformed(dropped)).await;
        }
    }

    pub(super) async fn send_markup(&mut self, events: Vec<MarkupEvent>) {
        for event in events {
            let event = match event {
                MarkupEvent::Text(text) => {
                    self.show(&text).await;
                    continue;
                }
                MarkupEvent::Malformed(raw) => ModelEvent::Malformed(raw),
                MarkupEvent::Call(call) => ModelEvent::ToolCall(ToolCallRequest {
                    id: self.next_id(),
                    name: call.name,
                    arguments: call.arguments,
                }),
            };
            self.send(event).await;
        }
    }

    pub(super) fn next_id(&mut self) -> String {
        self.call_counter += 1;
        format!("{}call_{}", self.call_id_prefix, self.call_counter)
    }

    pub(super) async fn send(&mut self, event: ModelEvent) {
        // Text sent is never blank (see `send_shown`).
        if matches!(event, ModelEvent::Text(_) | ModelEvent::ToolCall(_)) {
            self.hidden_run = 0;
        }
        // The receiver is gone only when the reply stopped; nothing to do.
        let _ = self.tx.send(Ok(event)).await;
    }
}
