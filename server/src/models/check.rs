//! The Model page's test of a model: is anything there (an answer within
//! a second on this machine), then one short streamed request offering
//! one tool. It reports the reply, the time to its first token, whether
//! the server returned the tool's call natively, and the tool format that
//! follows: `native`, `qwen-xml` when the model wrote that markup, else
//! `hermes` (Imprint reads calls written as text).

use std::time::{Duration, Instant};

use app::protocol::TestResult;
use serde_json::{json, Value};

use super::client::{clip, error_message, shown};
use super::hiding::hide;
use super::markup::{MarkupEvent, MarkupFormat, MarkupParser};
use super::probe::{authorize, get_json, no_answer_within, reach_limit, Unanswered};
use crate::config::{ModelSettings, Provider, ToolFormat};
use crate::sse::{SseLine, SseLines};

/// The one tool the test offers.
pub const CHECK_TOOL: &str = "connection_check";
/// How long the first token may take: a model server may load the model
/// on its first request.
pub const FIRST_TOKEN_LIMIT: Duration = Duration::from_secs(60);
/// How long the whole test may take.
pub const TEST_LIMIT: Duration = Duration::from_secs(90);
/// The most the test reads of the reply.
const MAX_REPLY_BYTES: usize = 64 * 1024;

/// The test's request: short, and one tool it is asked to call.
pub fn check_body(settings: &ModelSettings) -> Value {
    json!({
        "model": settings.model,
        "messages": [
            {"role": "system", "content": "You are being connected to Imprint, a memory assistant. Keep replies short."},
            {"role": "user", "content": format!("Imprint connection test: say hello in a few words, then call the tool {CHECK_TOOL} with status \"ready\".")},
        ],
        "tools": [check_tool()],
        "stream": true,
        "max_tokens": 128,
    })
}

fn check_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": CHECK_TOOL,
            "description": "Tells Imprint that the connection works.",
            "parameters": {
                "type": "object",
                "properties": {"status": {"type": "string", "description": "Always \"ready\"."}},
                "required": ["status"],
            },
        },
    })
}

/// Tests the model `settings` name (base URL, model, key).
pub async fn check(http: &reqwest::Client, settings: &ModelSettings) -> TestResult {
    let key = settings.api_key.as_deref();
    let auth = key.map(|k| (k, settings.provider));
    // A server that says the key back must not put it on the page.
    let hidden = |text: String| hide(&text, key);
    let limit = reach_limit(&settings.base_url);
    let reached = get_json(http, &format!("{}/models", settings.base_url), limit, auth).await;
    // Any answer, even a refusal, shows a server is there.
    if let Err(Unanswered {
        why,
        reached: false,
    }) = &reached
    {
        return failed(hidden(format!("{}: {why}", settings.base_url)), None);
    }
    match tokio::time::timeout(TEST_LIMIT, request(http, settings, auth)).await {
        Ok(Ok(heard)) => heard.result(key),
        Ok(Err((why, first))) => failed(hidden(why), first),
        Err(_) => failed(
            format!("the test took longer than {} s", TEST_LIMIT.as_secs()),
            None,
        ),
    }
}

fn failed(error: String, first_token_ms: Option<u64>) -> TestResult {
    TestResult {
        ok: false,
        first_token_ms,
        tool_calls: false,
        error: Some(error),
        reply: String::new(),
        tool_format: String::new(),
    }
}

/// What the test heard.
#[derive(Default)]
struct Heard {
    text: String,
    native_calls: Vec<String>,
    first_token_ms: Option<u64>,
}

type Failure = (String, Option<u64>);

async fn request(
    http: &reqwest::Client,
    settings: &ModelSettings,
    auth: Option<(&str, Provider)>,
) -> Result<Heard, Failure> {
    let started = Instant::now();
    let request = authorize(
        http.post(format!("{}/chat/completions", settings.base_url)),
        auth,
    )
    .json(&check_body(settings));
    let sent = tokio::time::timeout(FIRST_TOKEN_LIMIT, request.send()).await;
    let mut response = match sent {
        Err(_) => return Err((no_answer_within(FIRST_TOKEN_LIMIT), None)),
        Ok(Err(e)) if e.is_connect() => {
            return Err(("nothing answers there (connection refused)".into(), None))
        }
        Ok(Err(e)) => {
            return Err((
                format!("the request failed: {}", clip(&e.to_string(), 120)),
                None,
            ))
        }
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    let whole = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let mut heard = Heard::default();
    let mut lines = SseLines::default();
    let mut body = Vec::new();
    let mut read = 0usize;
    loop {
        let chunk = match tokio::time::timeout(FIRST_TOKEN_LIMIT, response.chunk()).await {
            Err(_) => return Err((no_answer_within(FIRST_TOKEN_LIMIT), heard.first_token_ms)),
            Ok(Err(e)) => {
                return Err((
                    format!("the answer broke off: {}", clip(&e.to_string(), 120)),
                    heard.first_token_ms,
                ))
            }
            Ok(Ok(None)) => break,
            Ok(Ok(Some(chunk))) => chunk,
        };
        read += chunk.len();
        if read > MAX_REPLY_BYTES {
            break;
        }
        if !status.is_success() || whole {
            body.extend_from_slice(&chunk);
            continue;
        }
        for line in lines.push(&chunk) {
            if heard.line(&line, started) {
                return Ok(heard);
            }
        }
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body);
        return Err((
            format!(
                "the server answered {}: {}",
                status.as_u16(),
                error_message(&text, auth.map(|(key, _)| key))
            ),
            None,
        ));
    }
    if whole {
        // A server that ignored `stream` and sent the reply whole.
        let reply: Value = serde_json::from_slice(&body)
            .map_err(|_| ("the server's answer is not JSON".to_string(), None))?;
        heard.first_token_ms = Some(elapsed_ms(started));
        if let Some(message) = reply.pointer("/choices/0/message") {
            heard.delta(message, started);
        }
        return Ok(heard);
    }
    if let Some(line) = lines.finish() {
        heard.line(&line, started);
    }
    Ok(heard)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Heard {
    /// One SSE line; true at `[DONE]`.
    fn line(&mut self, line: &SseLine, started: Instant) -> bool {
        let SseLine::Field { name, value } = line else {
            return false;
        };
        let data = value.trim();
        if name != "data" || data.is_empty() {
            return false;
        }
        if data == "[DONE]" {
            return true;
        }
        let Ok(chunk) = serde_json::from_str::<Value>(data) else {
            return false;
        };
        if let Some(delta) = chunk.pointer("/choices/0/delta") {
            self.delta(delta, started);
        }
        false
    }

    /// A delta (or a whole message): its text and the names of its calls.
    fn delta(&mut self, delta: &Value, started: Instant) {
        let text = delta.get("content").and_then(Value::as_str).unwrap_or("");
        let calls = delta.get("tool_calls").and_then(Value::as_array);
        if (!text.is_empty() || calls.is_some_and(|c| !c.is_empty()))
            && self.first_token_ms.is_none()
        {
            self.first_token_ms = Some(elapsed_ms(started));
        }
        self.text.push_str(text);
        for call in calls.into_iter().flatten() {
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                if !name.is_empty() {
                    self.native_calls.push(name.to_string());
                }
            }
        }
    }

    /// What the test reports; `key` is hidden in the reply before it is
    /// clipped (a server may say the Authorization header back).
    fn result(self, key: Option<&str>) -> TestResult {
        let tools = [check_tool()];
        let mut parser = MarkupParser::new(MarkupFormat::Hermes, &tools);
        let mut events = parser.push(&self.text);
        events.extend(parser.finish());
        let mut reply = String::new();
        let mut wrote_call = false;
        for event in events {
            match event {
                MarkupEvent::Text(text) => reply.push_str(&text),
                MarkupEvent::Call(_) | MarkupEvent::Malformed(_) => wrote_call = true,
            }
        }
        let native = !self.native_calls.is_empty();
        let format = if native {
            ToolFormat::Native
        } else if wrote_call && self.text.contains("<function=") {
            ToolFormat::QwenXml
        } else {
            ToolFormat::Hermes
        };
        let answered = self.first_token_ms.is_some();
        TestResult {
            ok: answered,
            first_token_ms: self.first_token_ms,
            tool_calls: native,
            error: (!answered).then(|| "the model answered with nothing".to_string()),
            reply: shown(reply.trim(), 500, key),
            tool_format: format.as_str().into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(text: &str, native: &[&str]) -> TestResult {
        Heard {
            text: text.into(),
            native_calls: native.iter().map(|s| s.to_string()).collect(),
            first_token_ms: Some(5),
        }
        .result(None)
    }

    #[test]
    fn the_format_follows_how_the_model_called_the_tool() {
        let native = heard("Hello!", &[CHECK_TOOL]);
        assert!(native.tool_calls && native.ok);
        assert_eq!(
            (native.tool_format.as_str(), native.reply.as_str()),
            ("native", "Hello!")
        );
        let hermes = heard(
            "Hi.\n<tool_call>{\"name\": \"connection_check\", \"arguments\": {\"status\": \"ready\"}}</tool_call>",
            &[],
        );
        assert!(!hermes.tool_calls);
        assert_eq!(
            (hermes.tool_format.as_str(), hermes.reply.as_str()),
            ("hermes", "Hi.")
        );
        let qwen = heard(
            "Hello <tool_call><function=connection_check><parameter=status>ready</parameter></function></tool_call>",
            &[],
        );
        assert_eq!(
            (qwen.tool_format.as_str(), qwen.reply.as_str()),
            ("qwen-xml", "Hello")
        );
        // A model that calls nothing gets Imprint's own reading of text.
        assert_eq!(heard("Hello there", &[]).tool_format, "hermes");
    }

    #[test]
    fn a_reply_that_says_the_key_back_hides_it_before_it_is_clipped() {
        let key = format!("sk-{}", "k".repeat(40) + &"0123456789".repeat(6));
        // The key starts at 480 characters: clipped first, 20 of it would show.
        let said = format!("{}Bearer {key}", "a".repeat(473));
        let result = Heard {
            text: said,
            native_calls: vec![],
            first_token_ms: Some(5),
        }
        .result(Some(&key));
        assert!(!result.reply.contains(&key[..8]), "{}", result.reply);
        assert!(result.reply.ends_with("Bearer [key]"), "{}", result.reply);
    }

    #[test]
    fn no_token_is_no_answer() {
        let silent = Heard::default().result(None);
        assert!(!silent.ok && silent.error.is_some());
    }

    #[test]
    fn the_request_is_short_and_offers_one_tool() {
        let settings = ModelSettings {
            provider: Provider::Vllm,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key: None,
            tool_format: ToolFormat::Native,
            tool_prompt: crate::config::ToolPrompt::Imprint,
            idle_timeout: Duration::from_secs(1),
            max_tokens: 2048,
            turns: crate::config::Turns::Free,
        };
        let body = check_body(&settings);
        assert_eq!(body["tools"][0]["function"]["name"], CHECK_TOOL);
        assert_eq!(body["max_tokens"], 128);
        assert_eq!(body["model"], "m");
    }
}
