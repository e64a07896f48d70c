//! The model in use and the model servers around it, on the wire (SPEC §4,
//! `/api/connections`): what is in use and where each setting came from,
//! the servers found on this machine, a choice to test or save, and what a
//! test found. A key goes in (a choice), never out: only its masked form.

use serde::{Deserialize, Serialize};

/// The providers a choice may name (the presets of `IMPRINT_CHAT_PROVIDER`).
pub const PROVIDERS: [&str; 6] = ["local", "openai", "anthropic", "gemini", "ollama", "vllm"];

/// The tool formats a choice may name (`IMPRINT_CHAT_TOOL_FORMAT`).
pub const TOOL_FORMATS: [&str; 4] = ["native", "hermes", "qwen-xml", "none"];

/// Where a setting's value came from, strongest first: a flag, the
/// environment, the Model page, the config file, or Imprint's default. A
/// flag or the environment fixes it: the page cannot change it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingSource {
    Flag,
    Environment,
    Page,
    ConfigFile,
    Default,
}

impl SettingSource {
    /// Set by a flag or the environment: the page cannot change it.
    pub fn is_fixed(self) -> bool {
        matches!(self, SettingSource::Flag | SettingSource::Environment)
    }

    /// The page's `data-source` attribute: the variant's name in lower
    /// case ("configfile"), as tests and styles read it. A match, not
    /// `format!("{self:?}").to_lowercase()`: that compiled Unicode's case
    /// tables (about 18 KB) into the wasm for five fixed words.
    pub fn attribute(self) -> &'static str {
        match self {
            SettingSource::Flag => "flag",
            SettingSource::Environment => "environment",
            SettingSource::Page => "page",
            SettingSource::ConfigFile => "configfile",
            SettingSource::Default => "default",
        }
    }

    /// For people: "set by a flag", "saved on this page"…
    pub fn describe(self) -> &'static str {
        match self {
            SettingSource::Flag => "set by a command-line flag",
            SettingSource::Environment => "set by the environment",
            SettingSource::Page => "saved on this page",
            SettingSource::ConfigFile => "from the config file",
            SettingSource::Default => "Imprint's default",
        }
    }
}

/// `GET /api/connections`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connections {
    pub current: CurrentConnection,
    /// Model servers answering on this machine's loopback now.
    pub found: Vec<FoundServer>,
    /// Each provider's own base URL and model, used when a choice names
    /// none.
    #[serde(default)]
    pub presets: Vec<Preset>,
    /// Keys saved on the page (masked), each bound to its server.
    #[serde(default)]
    pub keys: Vec<StoredKey>,
}

/// The model in use: what the next reply is written with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentConnection {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub tool_format: String,
    /// Where the connection came from: `page` when a choice saved on the
    /// Model page is in use, else the strongest source of its provider,
    /// base URL and model.
    pub source: SettingSource,
    /// Where each setting came from.
    pub sources: Sources,
    /// The key sent with each request, masked; none when none is.
    #[serde(default)]
    pub key: Option<KeyShown>,
    /// `planned` (Imprint plans each reply's steps) or `free` (the model's
    /// own tool loop): follows the provider unless a flag or the
    /// environment fixes it.
    pub turns: String,
}

/// Where each setting of the connection in use came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sources {
    pub provider: SettingSource,
    pub base_url: SettingSource,
    pub model: SettingSource,
    pub tool_format: SettingSource,
    pub turns: SettingSource,
}

/// A key, as the browser may see it: its last four characters at most.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyShown {
    pub masked: String,
    pub source: SettingSource,
}

/// A model server that answered on loopback.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundServer {
    /// The provider preset that reaches it.
    pub provider: String,
    /// Its OpenAI-compatible base URL.
    pub base_url: String,
    pub models: Vec<String>,
    /// What it is, for people: "Ollama", "llama.cpp", "LM Studio", "vLLM",
    /// "Built-in model", "OpenAI-compatible server".
    #[serde(default)]
    pub server: String,
}

/// A provider's own base URL and model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preset {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    /// A remote service that needs a key.
    pub remote: bool,
}

/// A key saved on the Model page, masked, and the server it is sent to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredKey {
    pub provider: String,
    pub base_url: String,
    pub masked: String,
}

/// `PUT /api/connections/current`, `POST /api/connections/test` and
/// `POST /api/connections/models`: a connection to use, test or list.
///
/// `base_url` defaults to the provider's own. `api_key`: a new key for
/// this server, `""` to remove the one saved for it, absent to keep it.
/// `tool_format` defaults to the provider's own.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionChoice {
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_format: Option<String>,
}

/// Never prints the key (choices are logged on failure paths).
impl std::fmt::Debug for ConnectionChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionChoice")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(given)"))
            .field("tool_format", &self.tool_format)
            .finish()
    }
}

/// `POST /api/connections/test`: one short request to the chosen model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    pub ok: bool,
    /// From the request to the first token (text or a call); none when no
    /// token came.
    pub first_token_ms: Option<u64>,
    /// The server returned the test tool's call as a native tool call.
    pub tool_calls: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the model wrote (tool-call markup left out).
    #[serde(default)]
    pub reply: String,
    /// The tool format the test suggests: `native` when the server returned
    /// a native call, `qwen-xml` when the model wrote qwen-xml markup, else
    /// `hermes` (Imprint reads calls written as text).
    #[serde(default)]
    pub tool_format: String,
}

/// `POST /api/connections/models`: the models a server typed by the user
/// lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelList {
    pub ok: bool,
    pub base_url: String,
    pub models: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `DELETE /api/connections/keys?provider=…&base_url=…`: a saved key to
/// remove.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRef {
    pub provider: String,
    pub base_url: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_refuses_unknown_fields_and_never_prints_its_key() {
        let choice: ConnectionChoice =
            serde_json::from_str(r#"{"provider":"openai","model":"m","api_key":"sk-secret"}"#)
                .unwrap();
        assert_eq!(choice.api_key.as_deref(), Some("sk-secret"));
        assert!(!format!("{choice:?}").contains("sk-secret"));
        assert!(serde_json::from_str::<ConnectionChoice>(
            r#"{"provider":"openai","model":"m","key":"x"}"#
        )
        .is_err());
    }

    #[test]
    fn sources_are_snake_case_and_only_flags_and_the_environment_fix() {
        assert_eq!(
            serde_json::to_value(SettingSource::ConfigFile).unwrap(),
            "config_file"
        );
        assert!(SettingSource::Flag.is_fixed() && SettingSource::Environment.is_fixed());
        assert!(!SettingSource::Page.is_fixed() && !SettingSource::Default.is_fixed());
    }

    #[test]
    fn a_sources_attribute_is_its_name_in_lower_case() {
        for source in [
            SettingSource::Flag,
            SettingSource::Environment,
            SettingSource::Page,
            SettingSource::ConfigFile,
            SettingSource::Default,
        ] {
            assert_eq!(source.attribute(), format!("{source:?}").to_lowercase());
        }
    }

    #[test]
    fn a_test_result_leaves_out_an_absent_error() {
        let result = TestResult {
            ok: true,
            first_token_ms: Some(12),
            tool_calls: true,
            error: None,
            reply: "Hello".into(),
            tool_format: "native".into(),
        };
        let value = serde_json::to_value(&result).unwrap();
        assert!(value.get("error").is_none());
        assert_eq!(value["first_token_ms"], 12);
    }
}
