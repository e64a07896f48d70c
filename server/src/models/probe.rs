//! Finding model servers: the usual loopback ports (Ollama 11434,
//! llama.cpp 8080, LM Studio 1234, vLLM 8000, any configured with
//! `IMPRINT_PROBE_PORTS`) and the built-in model, each asked in parallel
//! with a short timeout; and the models of a server the user typed, asked
//! only when they ask. Only 127.0.0.1 is probed on Imprint's own.

use std::time::Duration;

use app::protocol::FoundServer;
use futures::future::join_all;
use serde_json::Value;

use super::client::{clip, error_message, shown};
use crate::config::Provider;

/// The ports probed on loopback, and what usually answers there.
pub const USUAL_PORTS: [(u16, ServerKind); 4] = [
    (11434, ServerKind::Ollama),
    (8080, ServerKind::LlamaCpp),
    (1234, ServerKind::LmStudio),
    (8000, ServerKind::Vllm),
];

/// How long one probe of a loopback port may take, connection included.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(300);
/// How long connecting to a typed address or a model under test may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(700);
/// The most of a listing read (a hostile local server cannot flood us).
const MAX_LISTING_BYTES: usize = 1024 * 1024;
/// The most models listed for one server, and the longest name kept.
const MAX_MODELS: usize = 500;
const MAX_MODEL_NAME: usize = 256;

/// What answers on a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    Ollama,
    LlamaCpp,
    LmStudio,
    Vllm,
    /// The llama-server started for Imprint.
    BuiltIn,
    /// Something else that speaks the OpenAI-compatible API.
    OpenAiCompatible,
}

impl ServerKind {
    pub fn label(self) -> &'static str {
        match self {
            ServerKind::Ollama => "Ollama",
            ServerKind::LlamaCpp => "llama.cpp",
            ServerKind::LmStudio => "LM Studio",
            ServerKind::Vllm => "vLLM",
            ServerKind::BuiltIn => "Built-in model",
            ServerKind::OpenAiCompatible => "OpenAI-compatible server",
        }
    }

    /// The provider preset that reaches it: llama-server is what `local`
    /// speaks to (its grammar for planned turns); any other
    /// local OpenAI-compatible server is reached as `vllm` is (no key,
    /// native tool calls).
    pub fn provider(self) -> Provider {
        match self {
            ServerKind::Ollama => Provider::Ollama,
            ServerKind::LlamaCpp | ServerKind::BuiltIn => Provider::Local,
            ServerKind::LmStudio | ServerKind::Vllm | ServerKind::OpenAiCompatible => {
                Provider::Vllm
            }
        }
    }
}

/// The HTTP client of probes: no proxy (loopback is asked directly), no
/// redirects (a key never follows one), short timeouts.
pub fn probe_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(PROBE_TIMEOUT)
        .pool_max_idle_per_host(0)
        .build()
        .unwrap_or_default()
}

/// The HTTP client for an address the user chose (typed, or under test):
/// the system's proxy settings, no redirects, a bounded connect.
pub fn chosen_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .pool_max_idle_per_host(0)
        .build()
        .unwrap_or_default()
}

/// Every model server answering on the given loopback ports (the usual
/// ones and `extra`) and at the built-in model's addresses, in parallel.
/// Each answers within [`PROBE_TIMEOUT`] or is left out.
pub async fn find(http: &reqwest::Client, extra: &[u16], built_in: &[String]) -> Vec<FoundServer> {
    let mut ports: Vec<(u16, Option<ServerKind>)> = USUAL_PORTS
        .iter()
        .map(|(port, kind)| (*port, Some(*kind)))
        .collect();
    for port in extra {
        if !ports.iter().any(|(p, _)| p == port) {
            ports.push((*port, None));
        }
    }
    let by_port = join_all(
        ports
            .iter()
            .map(|(port, kind)| probe_port(http, *port, *kind)),
    );
    let built = join_all(built_in.iter().map(|url| probe_built_in(http, url)));
    let (by_port, built) = futures::join!(by_port, built);
    let mut found: Vec<FoundServer> = Vec::new();
    // The built-in model first, under its own name, once.
    for server in built
        .into_iter()
        .flatten()
        .chain(by_port.into_iter().flatten())
    {
        if !found.iter().any(|f| f.base_url == server.base_url) {
            found.push(server);
        }
    }
    found
}

/// One loopback port: Ollama's `/api/tags` and the OpenAI-compatible
/// `/v1/models`, asked together.
async fn probe_port(
    http: &reqwest::Client,
    port: u16,
    usual: Option<ServerKind>,
) -> Option<FoundServer> {
    let root = format!("http://127.0.0.1:{port}");
    let (tags_url, models_url) = (format!("{root}/api/tags"), format!("{root}/v1/models"));
    let tags = get_json(http, &tags_url, PROBE_TIMEOUT, None);
    let models = get_json(http, &models_url, PROBE_TIMEOUT, None);
    let (tags, models) = futures::join!(tags, models);
    let base_url = format!("{root}/v1");
    if let Some(names) = tags.ok().as_ref().and_then(ollama_models) {
        return Some(found(ServerKind::Ollama, base_url, names));
    }
    let listing = models.ok()?;
    let names = openai_models(&listing)?;
    Some(found(kind_of(&listing, usual), base_url, names))
}

async fn probe_built_in(http: &reqwest::Client, base_url: &str) -> Option<FoundServer> {
    let listing = get_json(http, &format!("{base_url}/models"), PROBE_TIMEOUT, None)
        .await
        .ok()?;
    let names = openai_models(&listing)?;
    Some(found(ServerKind::BuiltIn, base_url.to_string(), names))
}

fn found(kind: ServerKind, base_url: String, models: Vec<String>) -> FoundServer {
    FoundServer {
        provider: kind.provider().as_str().into(),
        base_url,
        models,
        server: kind.label().into(),
    }
}

/// What a server is, from what its model list says of itself, else from
/// the port it answers on.
fn kind_of(listing: &Value, usual: Option<ServerKind>) -> ServerKind {
    let owner = listing
        .pointer("/data/0/owned_by")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    match owner.as_str() {
        "llamacpp" => ServerKind::LlamaCpp,
        "vllm" => ServerKind::Vllm,
        // Ollama's own OpenAI-compatible listing.
        "library" | "ollama" => ServerKind::Ollama,
        _ => usual.unwrap_or(ServerKind::OpenAiCompatible),
    }
}

/// Ollama's `/api/tags`: `{"models": [{"name": …}]}` (an Ollama with no
/// model pulled yet lists none, and is still found).
pub fn ollama_models(tags: &Value) -> Option<Vec<String>> {
    let models = tags.get("models")?.as_array()?;
    Some(names(
        models.iter().map(|m| m.get("name").or(m.get("model"))),
    ))
}

/// An OpenAI-compatible `/models`: `{"data": [{"id": …}]}`.
pub fn openai_models(listing: &Value) -> Option<Vec<String>> {
    let data = listing.get("data")?.as_array()?;
    Some(names(data.iter().map(|m| m.get("id"))))
}

fn names<'a>(values: impl Iterator<Item = Option<&'a Value>>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in values.flatten().filter_map(Value::as_str) {
        let name = name.trim();
        let fits = !name.is_empty()
            && name.chars().count() <= MAX_MODEL_NAME
            && !name.chars().any(char::is_control);
        if fits && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        if names.len() == MAX_MODELS {
            break;
        }
    }
    names
}

/// Why a server could not be asked, in a few words for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unanswered {
    pub why: String,
    /// Something answered in HTTP (a refusal, a page that is not a model
    /// list): a server is there.
    pub reached: bool,
}

impl Unanswered {
    fn silent(why: impl Into<String>) -> Self {
        Self {
            why: why.into(),
            reached: false,
        }
    }

    fn answered(why: impl Into<String>) -> Self {
        Self {
            why: why.into(),
            reached: true,
        }
    }
}

/// GETs `url` and reads a JSON body of at most [`MAX_LISTING_BYTES`],
/// within `limit` for the whole exchange.
pub async fn get_json(
    http: &reqwest::Client,
    url: &str,
    limit: Duration,
    auth: Option<(&str, Provider)>,
) -> Result<Value, Unanswered> {
    let request = authorize(http.get(url), auth).timeout(limit);
    let exchange = async {
        let mut response = request.send().await.map_err(|e| cause(&e, limit))?;
        let status = response.status();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| cause(&e, limit))? {
            if body.len() + chunk.len() > MAX_LISTING_BYTES {
                return Err(Unanswered::answered("the server's answer is too long"));
            }
            body.extend_from_slice(&chunk);
        }
        let text = String::from_utf8_lossy(&body);
        if !status.is_success() {
            return Err(Unanswered::answered(format!(
                "the server answered {}: {}",
                status.as_u16(),
                error_message(&text, auth.map(|(key, _)| key))
            )));
        }
        serde_json::from_str(&text).map_err(|_| {
            Unanswered::answered(format!(
                "the server's answer is not a model list: {}",
                shown(text.trim(), 80, auth.map(|(key, _)| key))
            ))
        })
    };
    // reqwest's timeout covers the body too; this one also bounds a
    // server that trickles bytes forever.
    tokio::time::timeout(limit, exchange)
        .await
        .unwrap_or_else(|_| Err(Unanswered::silent(no_answer_within(limit))))
}

/// The models listed at `base_url` (an address the user typed), with the
/// key for it if any.
pub async fn list_at(
    http: &reqwest::Client,
    base_url: &str,
    auth: Option<(&str, Provider)>,
) -> Result<Vec<String>, Unanswered> {
    let limit = reach_limit(base_url);
    let listing = get_json(http, &format!("{base_url}/models"), limit, auth).await?;
    openai_models(&listing)
        .or_else(|| ollama_models(&listing))
        .ok_or_else(|| Unanswered::answered("the server's answer is not a model list"))
}

/// How long a server at `base_url` has to answer before it counts as
/// dead: under a second on this machine, a few seconds across a network.
pub fn reach_limit(base_url: &str) -> Duration {
    let loopback = reqwest::Url::parse(base_url)
        .map(|url| crate::config::is_loopback_url(&url))
        .unwrap_or(false);
    if loopback {
        Duration::from_millis(900)
    } else {
        Duration::from_secs(3)
    }
}

/// The key as each provider reads it: a bearer token, and Anthropic's own
/// header too (its model list reads only that).
pub fn authorize(
    request: reqwest::RequestBuilder,
    auth: Option<(&str, Provider)>,
) -> reqwest::RequestBuilder {
    match auth {
        Some((key, Provider::Anthropic)) => request
            .bearer_auth(key)
            .header("x-api-key", key)
            .header("anthropic-version", "2023-06-01"),
        Some((key, _)) => request.bearer_auth(key),
        None => request,
    }
}

pub fn no_answer_within(limit: Duration) -> String {
    format!("no answer within {:.1} s", limit.as_secs_f64())
}

fn cause(error: &reqwest::Error, limit: Duration) -> Unanswered {
    if error.is_timeout() {
        Unanswered::silent(no_answer_within(limit))
    } else if error.is_connect() {
        Unanswered::silent("nothing answers there (connection refused or unreachable)")
    } else {
        Unanswered::silent(format!(
            "the request failed: {}",
            clip(&error.to_string(), 120)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn listings_are_read_in_both_shapes_and_bounded() {
        let tags = json!({"models": [{"name": "qwen2.5:7b"}, {"name": "llama3.2"}, {"name": "qwen2.5:7b"}]});
        assert_eq!(ollama_models(&tags).unwrap(), ["qwen2.5:7b", "llama3.2"]);
        assert_eq!(
            ollama_models(&json!({"models": []})).unwrap(),
            Vec::<String>::new()
        );
        let listing = json!({"object": "list", "data": [{"id": "m1"}, {"id": ""}, {"id": "bad\nname"}, {"id": 7}]});
        assert_eq!(openai_models(&listing).unwrap(), ["m1"]);
        assert!(openai_models(&json!({"error": "no"})).is_none());
        let many: Vec<Value> = (0..1000).map(|i| json!({"id": format!("m{i}")})).collect();
        assert_eq!(
            openai_models(&json!({"data": many})).unwrap().len(),
            MAX_MODELS
        );
    }

    #[test]
    fn a_server_says_what_it_is_or_its_port_does() {
        let of = |owner: &str| json!({"data": [{"id": "m", "owned_by": owner}]});
        assert_eq!(kind_of(&of("llamacpp"), None), ServerKind::LlamaCpp);
        assert_eq!(
            kind_of(&of("vllm"), Some(ServerKind::LmStudio)),
            ServerKind::Vllm
        );
        assert_eq!(kind_of(&of("library"), None), ServerKind::Ollama);
        assert_eq!(
            kind_of(&of("me"), Some(ServerKind::LmStudio)),
            ServerKind::LmStudio
        );
        assert_eq!(kind_of(&of("me"), None), ServerKind::OpenAiCompatible);
        assert_eq!(ServerKind::LlamaCpp.provider(), Provider::Local);
        assert_eq!(ServerKind::OpenAiCompatible.provider(), Provider::Vllm);
    }

    #[test]
    fn loopback_servers_have_under_a_second() {
        assert!(reach_limit("http://127.0.0.1:9/v1") < Duration::from_secs(1));
        assert!(reach_limit("http://localhost:9/v1") < Duration::from_secs(1));
        assert!(reach_limit("https://api.openai.com/v1") > Duration::from_secs(1));
    }
}
