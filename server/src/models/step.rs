//! Constrained steps: one model reply decoded under a JSON schema the
//! model server enforces (llama-server turns it into a grammar), read
//! whole. Planned turns use it for the answer step.

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::client::{error_message, read_bounded, short_cause, shown, MAX_ERROR_BODY_BYTES};
use super::{prompt, ModelClient, ModelError, StepRequest};

impl ModelClient {
    /// One constrained step: the model's reply decoded under `schema` (a
    /// JSON schema the model server enforces with a grammar), read whole.
    /// A small model cannot write markup, notes or a second call in such a
    /// step: its only way out is a value of the schema.
    pub async fn constrained(
        &self,
        step: StepRequest,
        stop: CancellationToken,
    ) -> Result<Value, ModelError> {
        let body = self.step_body(&step);
        let request = self
            .authorized(
                self.http
                    .post(format!("{}/chat/completions", self.settings.base_url)),
            )
            .json(&body)
            .timeout(self.settings.idle_timeout);
        let response = tokio::select! {
            // Dropping the request stops the model server writing.
            _ = stop.cancelled() => return Err(ModelError::Unreachable(self.settings.base_url.clone(), "stopped".into())),
            response = request.send() => response,
        };
        let response = response.map_err(|e| {
            if e.is_timeout() {
                ModelError::Stalled(self.settings.idle_timeout.as_secs())
            } else {
                ModelError::Unreachable(self.settings.base_url.clone(), short_cause(&e))
            }
        })?;
        let status = response.status();
        let key = self.settings.api_key.as_deref();
        let text = tokio::select! {
            _ = stop.cancelled() => return Err(ModelError::Unreachable(self.settings.base_url.clone(), "stopped".into())),
            text = read_bounded(response, MAX_ERROR_BODY_BYTES) => text.map_err(|e| ModelError::Unreachable(self.settings.base_url.clone(), short_cause(&e)))?,
        };
        if !status.is_success() {
            return Err(ModelError::Status {
                status: status.as_u16(),
                message: error_message(&text, self.settings.api_key.as_deref()),
            });
        }
        let reply: Value = serde_json::from_str(&text)
            .map_err(|_| ModelError::Garbage(format!("not JSON: {}", shown(&text, 80, key))))?;
        let content = reply
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or_else(|| ModelError::Garbage("a reply without a message".into()))?;
        // What the step picked or copied may be shown: the key is hidden
        // first, should the model say it back.
        let content = super::hiding::hide(content, key);
        serde_json::from_str(content.trim()).map_err(|_| {
            ModelError::Garbage(format!(
                "not the schema's JSON: {}",
                shown(&content, 80, key)
            ))
        })
    }

    pub(super) fn step_body(&self, step: &StepRequest) -> Value {
        let messages: Vec<Value> = step
            .messages
            .iter()
            .map(|m| prompt::wire_message(m, true))
            .collect();
        let body = json!({
            "model": self.settings.model,
            "messages": messages,
            "stream": false,
            "max_tokens": step.max_tokens.min(self.settings.max_tokens),
            // The most likely value: a step picks or copies, it does not
            // invent.
            "temperature": 0.0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "step", "strict": true, "schema": step.schema},
            },
        });
        body
    }
}
