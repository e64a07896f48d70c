//! The OpenAI-compatible chat completions client, streaming.
//!
//! Upstream bytes → SSE lines ([`crate::sse`]) → deltas → (native tool calls | markup
//! parser) → a channel of [`ModelEvent`]s. The producer task watches the
//! stop token, so a stop drops the upstream request at once.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::hiding::{hide, StreamHider};
use super::markup::{MarkupEvent, MarkupFormat, MarkupParser};
use super::shown_text::ShownText;
use super::{prompt, ChatMessage, ModelError, ModelEvent, ToolCallRequest, TurnRequest};
use crate::config::{ModelSettings, ToolFormat, ToolPrompt};
use crate::sse::{SseLine, SseLines};

mod events;

/// Reaches one configured model.
#[derive(Clone)]
pub struct ModelClient {
    pub(super) settings: ModelSettings,
    pub(super) http: reqwest::Client,
}

pub type TurnStream = mpsc::Receiver<Result<ModelEvent, ModelError>>;

/// Hidden text one call of ours needs at most, besides what it copies from
/// the user: an `ask_user` with five options of 80 characters, a search
/// with its dates, a reminder's keys and time.
const HIDDEN_RUN_BASE: usize = 768;

/// How much text a turn may write hidden in one run (since it last showed
/// text or made a call) before Imprint stops reading it. A small model can
/// write call markup that never closes until its token limit: minutes at
/// its speed, with nothing shown. No call of ours is longer than
/// [`HIDDEN_RUN_BASE`] plus what it copies from the user's words (a
/// `store`), JSON-escaped at most twice as long.
pub fn hidden_run_limit(messages: &[ChatMessage]) -> usize {
    let longest_user_text = messages
        .iter()
        .filter_map(|message| match message {
            // The user's own words: Imprint's notes after them (the
            // memories of its first search) are not copied into calls.
            ChatMessage::User(text) => {
                Some(text.split("\n\n(Imprint").next().unwrap_or(text).len())
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    HIDDEN_RUN_BASE + 2 * longest_user_text
}

impl ModelClient {
    pub fn new(settings: ModelSettings) -> Self {
        let mut http = reqwest::Client::builder()
            // A redirect would re-send the whole conversation elsewhere:
            // a 3xx is reported as the model's answer instead.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            // Below llama-server's 5 s keep-alive, so a pooled connection
            // is rarely one the server is closing.
            .pool_idle_timeout(Duration::from_secs(3));
        if settings.provider == crate::config::Provider::Local {
            // Rarely was not never: in the evaluation, 3 of 64 replies
            // failed with "error sending request" on a connection
            // llama-server closed as it was reused. On loopback a new
            // connection costs a fraction of a millisecond.
            http = http.pool_max_idle_per_host(0);
        }
        let http = http.build().unwrap_or_default();
        Self { settings, http }
    }

    pub fn settings(&self) -> &ModelSettings {
        &self.settings
    }

    pub fn tool_format(&self) -> ToolFormat {
        self.settings.tool_format
    }

    /// True when the model's endpoint answers `GET /models`.
    pub async fn is_ready(&self) -> bool {
        let request = self
            .authorized(self.http.get(format!("{}/models", self.settings.base_url)))
            .timeout(Duration::from_millis(1500));
        matches!(request.send().await, Ok(r) if r.status().is_success())
    }

    pub(super) fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.settings.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// Starts one streamed turn. Events arrive on the returned channel; the
    /// channel closes when the turn ends, fails (one `Err` first) or the
    /// token is cancelled.
    pub fn stream_turn(&self, turn: TurnRequest, stop: CancellationToken) -> TurnStream {
        let (tx, rx) = mpsc::channel(64);
        let body = self.request_body(&turn);
        let request = self
            .authorized(
                self.http
                    .post(format!("{}/chat/completions", self.settings.base_url)),
            )
            .json(&body);
        // A turn that may not call reads no calls: markup it writes anyway
        // is dropped by the last guard and counts as hidden text (a small
        // model writes calls for minutes in the turn meant for its answer).
        let calls_read = turn.allow_calls && !turn.tools.is_empty();
        let markup = match self.settings.tool_format {
            ToolFormat::Hermes if calls_read => Some(MarkupFormat::Hermes),
            ToolFormat::QwenXml if calls_read => Some(MarkupFormat::QwenXml),
            _ => None,
        };
        let parser = markup.map(|format| MarkupParser::new(format, &turn.tools));
        let producer = Producer {
            tx,
            base_url: self.settings.base_url.clone(),
            key: self.settings.api_key.clone(),
            hider: StreamHider::new(self.settings.api_key.as_deref()),
            idle: self.settings.idle_timeout,
            parser,
            shown: ShownText::new(),
            native_calls: BTreeMap::new(),
            call_counter: 0,
            call_id_prefix: turn.call_id_prefix.clone(),
            finish_reason: None,
            hidden_run: 0,
            hidden_run_limit: hidden_run_limit(&turn.messages),
            overlong: false,
            blank: String::new(),
            shown_text: false,
        };
        tokio::spawn(async move {
            tokio::select! {
                _ = stop.cancelled() => {}
                _ = producer.run(request) => {}
            }
        });
        rx
    }

    fn request_body(&self, turn: &TurnRequest) -> Value {
        let format = self.settings.tool_format;
        let described = turn.allow_calls && !turn.tools.is_empty();
        let native = format == ToolFormat::Native && described;
        let markup = matches!(format, ToolFormat::Hermes | ToolFormat::QwenXml);
        let in_template = markup && self.settings.tool_prompt == ToolPrompt::Template;
        let mut messages: Vec<Value> = turn
            .messages
            .iter()
            // A chat template renders the API's own tool shapes as the
            // model was trained; without one, Imprint writes them as text.
            .map(|m| prompt::wire_message(m, markup && !in_template))
            .collect();
        if markup && described && !in_template {
            let guide = prompt::render_tools_for_markup(format, &turn.tools);
            match messages.first_mut() {
                Some(first) if first["role"] == "system" => {
                    let text = first["content"].as_str().unwrap_or_default().to_string();
                    first["content"] = Value::String(format!("{text}\n\n{guide}"));
                }
                _ => messages.insert(0, json!({"role": "system", "content": guide})),
            }
        }
        // Every request is capped, so one reply's event log is bounded.
        let mut body = json!({
            "model": self.settings.model,
            "messages": messages,
            "stream": true,
            "max_tokens": self.settings.max_tokens,
        });
        if native || (in_template && described) {
            body["tools"] = Value::Array(turn.tools.to_vec());
        }
        if self.settings.provider == crate::config::Provider::Local {
            // Small local models drift at higher temperatures; a narrow
            // nucleus and a light repeat penalty (Qwen2.5's own advice
            // for top_p, top_k and the penalty) keep tool calls on task.
            // A turn with no tools is a plain answer (a general question,
            // small talk): greedy decoding keeps its facts steadiest.
            let plain_answer = !turn.allow_calls && turn.tools.is_empty();
            body["temperature"] = json!(if plain_answer { 0.0 } else { 0.2 });
            body["top_p"] = json!(0.8);
            body["top_k"] = json!(20);
            body["repeat_penalty"] = json!(1.05);
            // No `id_slot`: llama-server (0.6.0-dev) starts a request that
            // names a slot still busy with another (a stopped reply it has
            // not cancelled yet, another client) inside that one's context,
            // and the two answers mix: one user's memories in another's
            // reply. Unnamed, requests wait for a free slot, and the one
            // whose cached prompt is most alike is chosen.
        }
        body
    }
}

struct NativeCall {
    id: String,
    name: String,
    arguments: String,
}

struct Producer {
    tx: mpsc::Sender<Result<ModelEvent, ModelError>>,
    base_url: String,
    /// The key sent, hidden in whatever the server says back.
    key: Option<String>,
    /// The key hidden in the reply's text, which comes in parts.
    hider: StreamHider,
    idle: Duration,
    parser: Option<MarkupParser>,
    /// Every text passes this last guard, whatever the tool format.
    shown: ShownText,
    native_calls: BTreeMap<u64, NativeCall>,
    call_counter: u64,
    call_id_prefix: String,
    /// The `finish_reason` the model gave, if any: a stream that ends with
    /// neither it nor `[DONE]` was cut off, not finished.
    finish_reason: Option<String>,
    /// Bytes of text received since the last text shown (not blank) or
    /// call made.
    hidden_run: usize,
    /// Past this, the turn is ended as [`ModelEvent::Overlong`].
    hidden_run_limit: usize,
    /// The turn was ended for that: nothing held is flushed.
    overlong: bool,
    /// Blank text, or JSON punctuation, not sent yet (see
    /// [`Producer::send_shown`]).
    blank: String,
    /// Text was sent in this turn.
    shown_text: bool,
}

impl Producer {
    async fn run(mut self, request: reqwest::RequestBuilder) {
        if let Err(error) = self.read(request).await {
            let _ = self.tx.send(Err(error)).await;
        }
    }

    async fn read(&mut self, request: reqwest::RequestBuilder) -> Result<(), ModelError> {
        // No retry here: a pooled connection the model server closed
        // before the request was written is retried by hyper itself (its
        // `retry_canceled_requests`, on by default); a request that may
        // have been read is never sent twice.
        let sent = tokio::time::timeout(self.idle, request.send())
            .await
            .map_err(|_| ModelError::Stalled(self.idle.as_secs()))?;
        let response =
            sent.map_err(|e| ModelError::Unreachable(self.base_url.clone(), short_cause(&e)))?;
        let status = response.status();
        if !status.is_success() {
            let text = read_bounded(response, MAX_ERROR_BODY_BYTES)
                .await
                .unwrap_or_default();
            return Err(ModelError::Status {
                status: status.as_u16(),
                message: error_message(&text, self.key.as_deref()),
            });
        }
        let mut bytes = response.bytes_stream();
        let mut lines = SseLines::default();
        loop {
            let chunk = tokio::time::timeout(self.idle, bytes.next())
                .await
                .map_err(|_| ModelError::Stalled(self.idle.as_secs()))?;
            let Some(chunk) = chunk else { break };
            let chunk = chunk
                .map_err(|e| ModelError::Unreachable(self.base_url.clone(), short_cause(&e)))?;
            for line in lines.push(&chunk) {
                if self.line(&line).await? {
                    return self.end().await;
                }
            }
        }
        if let Some(line) = lines.finish() {
            if self.line(&line).await? {
                return self.end().await;
            }
        }
        if self.finish_reason.is_none() {
            // The connection ended mid-answer: the text already sent is
            // kept by the reply, but it is not an answer, and no
            // half-written call runs (held markup is dropped, not shown).
            let rest = self.hider.finish();
            self.hidden_text(&rest).await;
            return Err(ModelError::CutOff);
        }
        self.finish().await
    }

    /// The end of the turn: at `[DONE]`, or ended as overlong (what is held
    /// then is neither shown nor read as a call).
    async fn end(&mut self) -> Result<(), ModelError> {
        if self.overlong {
            return Ok(());
        }
        self.finish().await
    }

    /// Handles one SSE line; true at `[DONE]` or when the turn is ended.
    async fn line(&mut self, line: &SseLine) -> Result<bool, ModelError> {
        let SseLine::Field { name, value: data } = line else {
            return Ok(false);
        };
        if name != "data" {
            return Ok(false);
        }
        let data = data.trim();
        if data.is_empty() {
            return Ok(false);
        }
        if data == "[DONE]" {
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|_| {
            ModelError::Garbage(format!(
                "not JSON: {}",
                shown(data, 80, self.key.as_deref())
            ))
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(ModelError::Status {
                status: 502,
                message: error_message(&error.to_string(), self.key.as_deref()),
            });
        }
        if let Some(reason) = chunk
            .pointer("/choices/0/finish_reason")
            .and_then(Value::as_str)
        {
            self.finish_reason = Some(reason.to_string());
        }
        let Some(delta) = chunk.pointer("/choices/0/delta") else {
            return Ok(false);
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            if !text.is_empty() {
                self.text(text).await;
                if self.hidden_run > self.hidden_run_limit {
                    // What is held is dropped, not read as a call: the
                    // request is dropped with this task, so the model
                    // server stops writing.
                    tracing::info!(
                        bytes = self.hidden_run,
                        "the model wrote hidden markup past any call's length; its turn is ended"
                    );
                    self.send(ModelEvent::Overlong).await;
                    self.overlong = true;
                    return Ok(true);
                }
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.native_delta(call)?;
            }
        }
        Ok(false)
    }
}

/// The message of an error body (`{"error": {"message": …}}` or text).
/// True for text with nothing to read: whitespace and the punctuation of
/// JSON only.
fn is_debris(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || matches!(c, '{' | '}' | '[' | ']' | ',' | ':' | '"'))
}

/// The key is hidden (see [`hide`]) before the message is clipped.
pub(super) fn error_message(body: &str, key: Option<&str>) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    shown(message.as_deref().unwrap_or(body).trim(), 300, key)
}

/// Text a model server sent, as it may be shown: the key hidden first,
/// then clipped to `max` characters.
pub(super) fn shown(text: &str, max: usize, key: Option<&str>) -> String {
    clip(&hide(text, key), max)
}

/// The most read of a model server's error body (or of a constrained
/// step's whole reply): a server that sends more is not read further.
pub const MAX_ERROR_BODY_BYTES: usize = 1024 * 1024;

/// A response's body as text, at most `limit` bytes of it.
pub(super) async fn read_bounded(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<String, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = limit - body.len();
        if chunk.len() >= room {
            body.extend_from_slice(&chunk[..room]);
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

pub(super) fn short_cause(error: &reqwest::Error) -> String {
    if error.is_connect() {
        "connection refused".into()
    } else if error.is_timeout() {
        "timed out".into()
    } else {
        clip(&error.to_string(), 120)
    }
}

pub(super) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Provider;
    use crate::models::ChatMessage;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn body(tool_format: ToolFormat, tool_prompt: ToolPrompt, allow_calls: bool) -> Value {
        let client = ModelClient::new(ModelSettings {
            provider: Provider::Local,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key: None,
            tool_format,
            tool_prompt,
            idle_timeout: Duration::from_secs(1),
            max_tokens: 333,
            turns: crate::config::Turns::Free,
        });
        let tools = crate::tools::offered(tool_format, crate::tools::Offer::CHAT);
        client.request_body(&TurnRequest {
            messages: vec![
                ChatMessage::System("You are Imprint.".into()),
                ChatMessage::User("hi".into()),
            ],
            tools: Arc::new(tools),
            allow_calls,
            call_id_prefix: "t1_".into(),
        })
    }

    #[test]
    fn imprints_notes_do_not_lengthen_the_hidden_run_a_call_may_take() {
        let said = "Save this: the client approved the mockups.";
        let plain = hidden_run_limit(&[ChatMessage::User(said.into())]);
        let noted = hidden_run_limit(&[ChatMessage::User(format!(
            "{said}\n\n(Imprint searched the user's memories first. {})",
            "x".repeat(2000)
        ))]);
        assert_eq!(plain, HIDDEN_RUN_BASE + 2 * said.len());
        assert_eq!(noted, plain);
    }

    #[test]
    fn json_punctuation_alone_is_debris() {
        for debris in ["}", "]}", " \"]}\n", "", "  \n"] {
            assert!(is_debris(debris), "{debris:?}");
        }
        for text in ["Done.", "👍", "} ok", "(1)"] {
            assert!(!is_debris(text), "{text:?}");
        }
    }

    #[test]
    fn every_request_carries_max_tokens() {
        for format in [ToolFormat::Native, ToolFormat::Hermes, ToolFormat::None] {
            assert_eq!(body(format, ToolPrompt::Imprint, true)["max_tokens"], 333);
            assert_eq!(body(format, ToolPrompt::Template, false)["max_tokens"], 333);
        }
    }

    fn client(provider: Provider, tool_format: ToolFormat, tool_prompt: ToolPrompt) -> ModelClient {
        ModelClient::new(ModelSettings {
            provider,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key: None,
            tool_format,
            tool_prompt,
            idle_timeout: Duration::from_secs(1),
            max_tokens: 333,
            turns: crate::config::Turns::Free,
        })
    }

    /// A reply's first request as the model reads it, part by part: the
    /// tools (every mode puts them before the conversation: the chat
    /// template and remote providers render them with the system prompt),
    /// then each message, as sent.
    fn prompt_parts(
        client: &ModelClient,
        history: Vec<ChatMessage>,
        now: chrono::DateTime<chrono::Local>,
    ) -> Vec<String> {
        let format = client.tool_format();
        let tools = Arc::new(crate::tools::offered(format, crate::tools::Offer::CHAT));
        let body = client.request_body(&TurnRequest {
            messages: crate::tools::reply_messages(&tools, history, now),
            tools,
            allow_calls: true,
            call_id_prefix: "t1_".into(),
        });
        let mut parts = vec![body.get("tools").map(Value::to_string).unwrap_or_default()];
        parts.extend(
            body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(Value::to_string),
        );
        parts
    }

    /// The index of the first part that differs; everything before it is
    /// byte-identical.
    fn first_change(a: &[String], b: &[String]) -> usize {
        a.iter().zip(b).take_while(|(a, b)| a == b).count()
    }

    #[test]
    fn prompts_share_their_prefix_byte_for_byte_up_to_the_first_change() {
        use chrono::TimeZone;
        let now = chrono::Local
            .with_ymd_and_hms(2031, 3, 17, 15, 47, 0)
            .unwrap();
        let question = || ChatMessage::User("What is the capital of Japan?".into());
        let earlier = || {
            vec![
                ChatMessage::User("Hello".into()),
                ChatMessage::Assistant {
                    content: "Hi! How can I help?".into(),
                    tool_calls: Vec::new(),
                },
            ]
        };
        let modes = [
            (Provider::Local, ToolFormat::Hermes, ToolPrompt::Template),
            (Provider::Local, ToolFormat::Hermes, ToolPrompt::Imprint),
            (Provider::Vllm, ToolFormat::QwenXml, ToolPrompt::Imprint),
            (Provider::Openai, ToolFormat::Native, ToolPrompt::Imprint),
        ];
        for (provider, format, tool_prompt) in modes {
            let client = client(provider, format, tool_prompt);
            let mode = format!("{provider:?} {format:?} {tool_prompt:?}");
            let first = prompt_parts(&client, vec![question()], now);
            // [tools, system, time note, question]
            assert_eq!(first.len(), 4, "{mode}");
            assert!(
                first[2].contains("it is now Monday 2031-03-17 15:47"),
                "{mode}: {}",
                first[2]
            );

            // A minute later: only the time note differs.
            let later = prompt_parts(
                &client,
                vec![question()],
                now + chrono::Duration::minutes(1),
            );
            assert_eq!(
                first_change(&first, &later),
                2,
                "{mode}: the tools and system prompt are the same"
            );
            assert!(later[2].contains("15:48"), "{mode}");
            assert_eq!(
                first[3], later[3],
                "{mode}: the question after the note is the same"
            );
            assert!(
                !first[..2].concat().contains("2031"),
                "{mode}: no date before the conversation"
            );

            // Another conversation at the same minute: the same up to it.
            let mut history = earlier();
            history.push(question());
            let other = prompt_parts(&client, history, now);
            assert_eq!(first_change(&first, &other), 2, "{mode}");
            assert_eq!(
                other[2],
                format!("{}", wire(&client, &earlier()[0])),
                "{mode}"
            );

            // The second message of that conversation reads the first
            // exchange exactly as before, up to the new note.
            let mut longer = earlier();
            longer.push(question());
            longer.push(ChatMessage::Assistant {
                content: "Tokyo.".into(),
                tool_calls: Vec::new(),
            });
            longer.push(ChatMessage::User("And of France?".into()));
            let second = prompt_parts(&client, longer, now + chrono::Duration::minutes(1));
            assert_eq!(
                first_change(&other, &second),
                4,
                "{mode}: the same up to the first reply's note"
            );
        }
    }

    fn wire(client: &ModelClient, message: &ChatMessage) -> Value {
        let markup = matches!(
            client.tool_format(),
            ToolFormat::Hermes | ToolFormat::QwenXml
        ) && client.settings().tool_prompt == ToolPrompt::Imprint;
        prompt::wire_message(message, markup)
    }

    /// A request naming a llama-server slot that is still busy (a reply
    /// stopped a moment ago, another client) is started inside that
    /// slot's context, and the two answers mix: measured on llama-server
    /// 0.6.0-dev, 12 of 16 concurrent pairs did. No request names one.
    #[test]
    fn no_request_names_a_model_server_slot() {
        let turn = TurnRequest {
            messages: vec![ChatMessage::User("hi".into())],
            tools: Arc::new(Vec::new()),
            allow_calls: false,
            call_id_prefix: "t1_".into(),
        };
        let step = crate::models::StepRequest {
            messages: vec![ChatMessage::User("hi".into())],
            schema: json!({"type": "object"}),
            max_tokens: 8,
        };
        for provider in [Provider::Local, Provider::Ollama, Provider::Openai] {
            let client = client(provider, ToolFormat::Hermes, ToolPrompt::Template);
            assert!(client.request_body(&turn).get("id_slot").is_none());
            assert!(client.step_body(&step).get("id_slot").is_none());
        }
    }

    #[test]
    fn tools_go_where_the_tool_prompt_setting_says() {
        let templated = body(ToolFormat::Hermes, ToolPrompt::Template, true);
        assert_eq!(templated["tools"].as_array().map(Vec::len), Some(5));
        assert_eq!(templated["messages"][0]["content"], "You are Imprint.");
        let written = body(ToolFormat::Hermes, ToolPrompt::Imprint, true);
        assert!(written.get("tools").is_none());
        let system = written["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("# Tools") && system.contains("ask_user"));
        // The reserved answer describes no tools either way.
        assert!(body(ToolFormat::Hermes, ToolPrompt::Template, false)
            .get("tools")
            .is_none());
        assert!(body(ToolFormat::Native, ToolPrompt::Imprint, true)["tools"].is_array());
        // The local model's sampling settings.
        assert_eq!(templated["temperature"], 0.2);
        assert_eq!(templated["top_k"], 20);
        // A plain answer with no tools is decoded greedily.
        let plain = ModelClient::new(ModelSettings {
            provider: Provider::Local,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key: None,
            tool_format: ToolFormat::Hermes,
            tool_prompt: ToolPrompt::Template,
            idle_timeout: Duration::from_secs(1),
            max_tokens: 333,
            turns: crate::config::Turns::Planned,
        })
        .request_body(&TurnRequest {
            messages: vec![ChatMessage::User("thank you in spanish?".into())],
            tools: Arc::new(Vec::new()),
            allow_calls: false,
            call_id_prefix: "t1_".into(),
        });
        assert_eq!(plain["temperature"], 0.0);
    }

    /// A model server that, like llama-server at the end of its
    /// keep-alive, closes each connection after one response without
    /// saying so (no `Connection: close`). Counts the requests it read.
    async fn closing_server() -> (String, Arc<AtomicUsize>, mpsc::UnboundedReceiver<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let (closed_tx, closed) = mpsc::unbounded_channel();
        let seen = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                // The headers, then as many body bytes as they announce.
                let complete = loop {
                    let Ok(n) = socket.read(&mut buf).await else {
                        break false;
                    };
                    if n == 0 {
                        break false;
                    }
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request).to_lowercase();
                    let Some(end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let length = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|n| n.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break true;
                    }
                };
                if complete {
                    seen.fetch_add(1, Ordering::SeqCst);
                    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n";
                    let response = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = socket.write_all(response.as_bytes()).await;
                }
                drop(socket);
                let _ = closed_tx.send(());
            }
        });
        (url, requests, closed)
    }

    #[tokio::test]
    async fn a_connection_the_model_server_closed_is_not_reused_and_no_request_is_sent_twice() {
        let (url, requests, mut closed) = closing_server().await;
        let client = ModelClient::new(ModelSettings {
            provider: Provider::Local,
            base_url: url,
            model: "m".into(),
            api_key: None,
            tool_format: ToolFormat::Native,
            tool_prompt: ToolPrompt::Imprint,
            idle_timeout: Duration::from_secs(10),
            max_tokens: 2048,
            turns: crate::config::Turns::Free,
        });
        for turn in 1..=3 {
            let request = TurnRequest {
                messages: vec![ChatMessage::User("hello".into())],
                tools: Arc::new(Vec::new()),
                allow_calls: false,
                call_id_prefix: format!("t{turn}_"),
            };
            let mut events = client.stream_turn(request, CancellationToken::new());
            let mut text = String::new();
            while let Some(event) = events.recv().await {
                match event {
                    Ok(ModelEvent::Text(t)) => text.push_str(&t),
                    Ok(other) => panic!("turn {turn}: unexpected {other:?}"),
                    Err(error) => panic!("turn {turn} failed: {error}"),
                }
            }
            assert_eq!(text, "hi", "turn {turn}");
            // The server has closed this turn's connection before the next
            // turn starts: the pooled connection is a closed one.
            closed.recv().await.unwrap();
        }
        assert_eq!(requests.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn error_messages_are_read_from_common_shapes() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad key"}}"#, None),
            "bad key"
        );
        assert_eq!(
            error_message(r#"{"error":"overloaded"}"#, None),
            "overloaded"
        );
        assert_eq!(error_message("plain text", None), "plain text");
        assert!(error_message(&"x".repeat(1000), None).chars().count() <= 301);
    }
}
