//! The chat model's settings: the providers and their presets, the tool
//! format and prompt, planned or free turns, and where each setting came
//! from.

use std::time::Duration;

use app::protocol::SettingSource;
use clap::parser::ValueSource;
use clap::{ArgMatches, ValueEnum};
use serde::{Deserialize, Serialize};

#[derive(ValueEnum, Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    Local,
    Openai,
    Anthropic,
    Gemini,
    Ollama,
    Vllm,
}

#[derive(ValueEnum, Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ToolFormat {
    Native,
    QwenXml,
    Hermes,
    None,
}

impl ToolFormat {
    /// The tool format named `name` (`native`, `qwen-xml`, …), if any.
    pub fn named(name: &str) -> Option<Self> {
        <Self as ValueEnum>::from_str(name, false).ok()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ToolFormat::Native => "native",
            ToolFormat::QwenXml => "qwen-xml",
            ToolFormat::Hermes => "hermes",
            ToolFormat::None => "none",
        }
    }
}

/// Who describes the tools to a model that writes tool calls as text.
#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ToolPrompt {
    Template,
    Imprint,
}

/// Where each model setting's value came from before the Model page's
/// choice is applied (see [`crate::connections`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelSources {
    pub provider: SettingSource,
    pub base_url: SettingSource,
    pub model: SettingSource,
    pub api_key: SettingSource,
    pub tool_format: SettingSource,
    pub tool_prompt: SettingSource,
    pub turns: SettingSource,
}

impl Default for ModelSources {
    fn default() -> Self {
        let d = SettingSource::Default;
        Self {
            provider: d,
            base_url: d,
            model: d,
            api_key: d,
            tool_format: d,
            tool_prompt: d,
            turns: d,
        }
    }
}

impl ModelSources {
    /// The settings a flag or a variable gave; the rest stay defaults
    /// until the config file fills them.
    pub(super) fn given(matches: &ArgMatches) -> Self {
        let of = |id: &str| match matches.value_source(id) {
            Some(ValueSource::CommandLine) => SettingSource::Flag,
            Some(ValueSource::EnvVariable) => SettingSource::Environment,
            _ => SettingSource::Default,
        };
        Self {
            provider: of("chat_provider"),
            base_url: of("chat_base_url"),
            model: of("chat_model"),
            api_key: of("chat_api_key"),
            tool_format: of("chat_tool_format"),
            tool_prompt: of("chat_tool_prompt"),
            turns: of("chat_turns"),
        }
    }
}

/// The chat model to use, after presets and keys are resolved. Its Debug
/// never prints the key.
#[derive(Clone)]
pub struct ModelSettings {
    pub provider: Provider,
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub tool_format: ToolFormat,
    pub tool_prompt: ToolPrompt,
    pub idle_timeout: Duration,
    /// Sent as `max_tokens` with every request.
    pub max_tokens: u32,
    /// Who drives a reply's steps.
    pub turns: Turns,
}

impl std::fmt::Debug for ModelSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSettings")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("tool_format", &self.tool_format)
            .field("tool_prompt", &self.tool_prompt)
            .field("turns", &self.turns)
            .finish_non_exhaustive()
    }
}

/// Who drives a reply's steps (see [`Config::chat_turns`]).
#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Turns {
    /// Imprint plans; each model turn is decoded under a JSON schema.
    Planned,
    /// The model's own tool loop.
    Free,
}

impl Turns {
    pub fn as_str(self) -> &'static str {
        match self {
            Turns::Planned => "planned",
            Turns::Free => "free",
        }
    }
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Local => "local",
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Ollama => "ollama",
            Provider::Vllm => "vllm",
        }
    }

    /// The provider named `name` (`local`, `openai`, …), if there is one.
    pub fn named(name: &str) -> Option<Self> {
        <Self as ValueEnum>::from_str(name, false).ok()
    }

    /// A service on the internet, reached with a key.
    pub fn is_remote(self) -> bool {
        matches!(
            self,
            Provider::Openai | Provider::Anthropic | Provider::Gemini
        )
    }

    pub(crate) fn default_base_url(self) -> &'static str {
        match self {
            Provider::Local => "http://127.0.0.1:8431/v1",
            Provider::Openai => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
            Provider::Gemini => "https://generativelanguage.googleapis.com/v1beta/openai",
            Provider::Ollama => "http://127.0.0.1:11434/v1",
            Provider::Vllm => "http://127.0.0.1:8000/v1",
        }
    }

    pub(crate) fn default_model(self) -> &'static str {
        match self {
            Provider::Local => "qwen2.5-coder-0.5b-instruct",
            Provider::Openai => "gpt-4o-mini",
            Provider::Anthropic => "claude-3-5-haiku-latest",
            Provider::Gemini => "gemini-2.0-flash",
            Provider::Ollama => "qwen2.5:0.5b",
            Provider::Vllm => "default",
        }
    }

    /// The provider's usual key variable.
    pub(crate) fn key_variable(self) -> Option<&'static str> {
        match self {
            Provider::Openai => Some("OPENAI_API_KEY"),
            Provider::Anthropic => Some("ANTHROPIC_API_KEY"),
            Provider::Gemini => Some("GOOGLE_API_KEY"),
            _ => None,
        }
    }

    pub(crate) fn default_tool_prompt(self) -> ToolPrompt {
        match self {
            // Small models follow the tool format they were trained on,
            // which their own chat template writes.
            Provider::Local => ToolPrompt::Template,
            _ => ToolPrompt::Imprint,
        }
    }

    pub(crate) fn default_turns(self) -> Turns {
        match self {
            // A 0.5B model driving its own loop invents the user's facts
            // and loops on tools (issue #26).
            Provider::Local => Turns::Planned,
            _ => Turns::Free,
        }
    }

    pub(crate) fn default_tool_format(self) -> ToolFormat {
        match self {
            // Small local models write tool calls as text (a bare JSON
            // object or hermes tags); Imprint parses them itself.
            Provider::Local => ToolFormat::Hermes,
            _ => ToolFormat::Native,
        }
    }
}
