//! Configuration: one documented struct. Every field is a command-line flag
//! and an `IMPRINT_*` variable; the same names in a config file (TOML,
//! deserialized into [`FileConfig`], unknown keys refused by name) fill what
//! neither gives (flags > environment > file > defaults). Every duration has
//! a maximum, checked at start by [`Config::validate`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use serde::Deserialize;

mod file;

pub use file::FileConfig;

#[derive(Parser, Clone, Debug)]
#[command(
    name = "imprint",
    version,
    about = "Imprint: a personal memory assistant with a browser dashboard"
)]
pub struct Config {
    /// Address to serve the dashboard and API on. Anything but loopback
    /// requires IMPRINT_TOKEN.
    #[arg(long, env = "IMPRINT_ADDR", default_value = "127.0.0.1:8420")]
    pub addr: SocketAddr,

    /// Where the database lives (default: the user's data directory).
    #[arg(long, env = "IMPRINT_DATA_DIR")]
    pub data_dir: Option<PathBuf>,

    /// Where the built dashboard is (default: `dist` beside the working
    /// directory or the repository the binary was built in).
    #[arg(long, env = "IMPRINT_DIST_DIR")]
    pub dist_dir: Option<PathBuf>,

    /// A config file of `key = value` lines with these settings' names
    /// (e.g. `chat_provider = "ollama"`). Default: `config.toml` in the data
    /// directory, when it exists.
    #[arg(long, env = "IMPRINT_CONFIG")]
    pub config: Option<PathBuf>,

    /// Token required from clients (Authorization: Bearer, or a cookie set by
    /// visiting `/?token=…`). Required when not bound to loopback.
    #[arg(long, env = "IMPRINT_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// Extra host names the server answers to (comma-separated), besides
    /// the loopback names; with a port (`imprint.home:8420`) only on that
    /// port. Requests for any other `Host` are refused.
    #[arg(long, env = "IMPRINT_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,

    /// Origins besides Imprint's own whose pages may drive it
    /// (comma-separated, e.g. `http://127.0.0.1:8421` for the Trunk dev
    /// server). A browser request from any other origin is refused.
    #[arg(long, env = "IMPRINT_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Behind a reverse proxy that terminates TLS: trust its
    /// `X-Forwarded-Proto`, so the page's origin is `https://…` and the
    /// token cookie is `Secure`. Leave off when clients reach Imprint
    /// directly (they could then claim https themselves).
    #[arg(long, env = "IMPRINT_TRUST_PROXY", default_value_t = false, action = clap::ArgAction::Set)]
    pub trust_proxy: bool,

    /// Chat model provider preset.
    #[arg(long, env = "IMPRINT_CHAT_PROVIDER", value_enum, default_value_t = Provider::Local)]
    pub chat_provider: Provider,

    /// The provider's OpenAI-compatible base URL (default: the preset's).
    #[arg(long, env = "IMPRINT_CHAT_BASE_URL")]
    pub chat_base_url: Option<String>,

    /// Model name (default: the preset's).
    #[arg(long, env = "IMPRINT_CHAT_MODEL")]
    pub chat_model: Option<String>,

    /// API key (default: the provider's usual variable).
    #[arg(long, env = "IMPRINT_CHAT_API_KEY", hide_env_values = true)]
    pub chat_api_key: Option<String>,

    /// How the model writes tool calls (default: `native`, or the
    /// preset's own for the local model).
    #[arg(long, env = "IMPRINT_CHAT_TOOL_FORMAT", value_enum)]
    pub chat_tool_format: Option<ToolFormat>,

    /// With a text markup format, who describes the tools to the model:
    /// `template` sends them in the request's `tools` field for the
    /// server's chat template to render as the model was trained
    /// (llama-server with `--jinja`, Ollama), `imprint` writes them into
    /// the system prompt itself. Default: `template` for the local model,
    /// else `imprint`.
    #[arg(long, env = "IMPRINT_CHAT_TOOL_PROMPT", value_enum)]
    pub chat_tool_prompt: Option<ToolPrompt>,

    /// Most tokens the model may write in one turn (sent as `max_tokens`
    /// with every request; at most 32768).
    #[arg(long, env = "IMPRINT_CHAT_MAX_TOKENS", default_value_t = 2048)]
    pub chat_max_tokens: u32,

    /// Who drives a reply's steps: `planned` (Imprint plans the request's
    /// steps and the model fills each in under a JSON schema; for small
    /// local models) or `free` (the model's own tool loop, with native or
    /// markup calls). Default: `planned` for the local model, else `free`.
    #[arg(long, env = "IMPRINT_CHAT_TURNS", value_enum)]
    pub chat_turns: Option<Turns>,

    /// Seconds of research (the tool loop) before the reserved answer
    /// (at most 86400, a day).
    #[arg(long, env = "IMPRINT_RESEARCH_BUDGET_S", default_value_t = 300.0)]
    pub research_budget_s: f64,

    /// Tool iterations before the reserved answer (at most 100).
    #[arg(long, env = "IMPRINT_MAX_TOOL_ITERS", default_value_t = 12)]
    pub max_tool_iters: u32,

    /// Seconds a question waits for an answer before the reply goes on
    /// (at most 604800, a week).
    #[arg(long, env = "IMPRINT_ANSWER_TIMEOUT_S", default_value_t = 1800.0)]
    pub answer_timeout_s: f64,

    /// Replies written at once (model calls in flight).
    #[arg(long, env = "IMPRINT_WRITING_SLOTS", default_value_t = 1)]
    pub writing_slots: usize,

    /// Seconds a voice turn may go without any reply event before Echo
    /// stops it (extended by the answer wait while a question waits; at
    /// most 3600).
    #[arg(long, env = "IMPRINT_VOICE_TURN_TIMEOUT_S", default_value_t = 120.0)]
    pub voice_turn_timeout_s: f64,

    /// Seconds a voice conversation with no window open and no turn
    /// running is kept in memory (at most 86400).
    #[arg(long, env = "IMPRINT_VOICE_IDLE_S", default_value_t = 600.0)]
    pub voice_idle_s: f64,

    /// Seconds without a byte from the model before its stream counts as
    /// stalled (at most 3600).
    #[arg(long, env = "IMPRINT_MODEL_IDLE_TIMEOUT_S", default_value_t = 120.0)]
    pub model_idle_timeout_s: f64,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Clone, Debug)]
pub enum Command {
    /// Serve the dashboard and the API (the default).
    Serve,
    /// Import memories from a JSON Lines file: one object per line with
    /// `content` and optional `project`, `created_at`, `tags`.
    Import { file: PathBuf },
}

#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    Local,
    Openai,
    Anthropic,
    Gemini,
    Ollama,
    Vllm,
}

#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ToolFormat {
    Native,
    QwenXml,
    Hermes,
    None,
}

impl ToolFormat {
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

/// The chat model to use, after presets and keys are resolved.
#[derive(Clone, Debug)]
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

    fn default_base_url(self) -> &'static str {
        match self {
            Provider::Local => "http://127.0.0.1:8431/v1",
            Provider::Openai => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
            Provider::Gemini => "https://generativelanguage.googleapis.com/v1beta/openai",
            Provider::Ollama => "http://127.0.0.1:11434/v1",
            Provider::Vllm => "http://127.0.0.1:8000/v1",
        }
    }

    fn default_model(self) -> &'static str {
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
    fn key_variable(self) -> Option<&'static str> {
        match self {
            Provider::Openai => Some("OPENAI_API_KEY"),
            Provider::Anthropic => Some("ANTHROPIC_API_KEY"),
            Provider::Gemini => Some("GOOGLE_API_KEY"),
            _ => None,
        }
    }

    fn default_tool_format(self) -> ToolFormat {
        match self {
            // Small local models write tool calls as text (a bare JSON
            // object or hermes tags); Imprint parses them itself.
            Provider::Local => ToolFormat::Hermes,
            _ => ToolFormat::Native,
        }
    }
}

impl Config {
    /// Parses flags and environment, then fills what neither gave from the
    /// config file. Exits with clap's message on a bad flag or variable.
    pub fn load() -> Result<Self, ConfigError> {
        let matches = Config::command().get_matches();
        let config = Config::from_arg_matches(&matches).map_err(|e| e.exit())?;
        config.with_file(&matches)
    }

    /// Fills every setting that no flag or variable gave from the config
    /// file (`--config`, else `config.toml` in the data directory).
    pub fn with_file(mut self, matches: &ArgMatches) -> Result<Self, ConfigError> {
        let path = match &self.config {
            Some(path) => path.clone(),
            None => match self.data_dir() {
                Ok(dir) => dir.join("config.toml"),
                Err(_) => return Ok(self),
            },
        };
        if self.config.is_none() && !path.exists() {
            return Ok(self);
        }
        let file = FileConfig::read(&path)?;
        self.fill_from(file, matches);
        Ok(self)
    }

    pub fn data_dir(&self) -> Result<PathBuf, ConfigError> {
        match &self.data_dir {
            Some(dir) => Ok(dir.clone()),
            None => dirs::data_dir()
                .map(|d| d.join("imprint"))
                .ok_or(ConfigError::NoDataDir),
        }
    }

    pub fn database_path(&self) -> Result<PathBuf, ConfigError> {
        Ok(self.data_dir()?.join("imprint.sqlite3"))
    }

    /// The built dashboard: the configured folder, else `dist` in the
    /// working directory, else `dist` of the workspace the binary sits in.
    pub fn dist_dir(&self) -> PathBuf {
        if let Some(dir) = &self.dist_dir {
            return dir.clone();
        }
        let cwd = PathBuf::from("dist");
        if cwd.join("index.html").exists() {
            return cwd;
        }
        std::env::current_exe()
            .ok()
            .and_then(|exe| exe.ancestors().nth(3).map(|root| root.join("dist")))
            .filter(|d| d.join("index.html").exists())
            .unwrap_or(cwd)
    }

    pub fn model(&self) -> ModelSettings {
        let provider = self.chat_provider;
        let api_key = self.chat_api_key.clone().or_else(|| {
            provider
                .key_variable()
                .and_then(|var| std::env::var(var).ok())
                .filter(|k| !k.is_empty())
        });
        ModelSettings {
            provider,
            base_url: self
                .chat_base_url
                .clone()
                .unwrap_or_else(|| provider.default_base_url().to_string())
                .trim_end_matches('/')
                .to_string(),
            model: self
                .chat_model
                .clone()
                .unwrap_or_else(|| provider.default_model().to_string()),
            api_key,
            tool_format: self
                .chat_tool_format
                .unwrap_or_else(|| provider.default_tool_format()),
            tool_prompt: self.chat_tool_prompt.unwrap_or(match provider {
                // Small models follow the tool format they were trained
                // on, which their own chat template writes.
                Provider::Local => ToolPrompt::Template,
                _ => ToolPrompt::Imprint,
            }),
            idle_timeout: secs(self.model_idle_timeout_s),
            max_tokens: self.chat_max_tokens,
            turns: self.chat_turns.unwrap_or(match provider {
                // A 0.5B model driving its own loop invents the user's
                // facts and loops on tools (issue #26).
                Provider::Local => Turns::Planned,
                _ => Turns::Free,
            }),
        }
    }

    pub fn research_budget(&self) -> Duration {
        secs(self.research_budget_s)
    }

    pub fn voice_turn_timeout(&self) -> Duration {
        secs(self.voice_turn_timeout_s)
    }

    pub fn answer_timeout(&self) -> Duration {
        secs(self.answer_timeout_s)
    }

    pub fn voice_idle(&self) -> Duration {
        secs(self.voice_idle_s)
    }

    /// One line for the log, without secrets.
    pub fn summary(&self) -> String {
        let m = self.model();
        format!(
            "addr={} provider={} base_url={} model={} tool_format={} turns={} key={} token={} slots={} budget={}s iters={} max_tokens={} answer_timeout={}s",
            self.addr,
            m.provider.as_str(),
            m.base_url,
            m.model,
            m.tool_format.as_str(),
            m.turns.as_str(),
            if m.api_key.is_some() { "set" } else { "none" },
            if self.token.is_some() { "set" } else { "none" },
            self.writing_slots,
            self.research_budget_s,
            self.max_tool_iters,
            self.chat_max_tokens,
            self.answer_timeout_s,
        )
    }

    /// Checks the settings that clap cannot: a value past its documented
    /// maximum is refused here, at start, rather than failing a reply later.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.addr.ip().is_loopback() && self.token.as_deref().unwrap_or("").is_empty() {
            return Err(ConfigError::TokenRequired(self.addr));
        }
        let counts = [
            ("IMPRINT_WRITING_SLOTS", self.writing_slots as u64, 1, 1000),
            ("IMPRINT_MAX_TOOL_ITERS", self.max_tool_iters.into(), 0, 100),
            (
                "IMPRINT_CHAT_MAX_TOKENS",
                self.chat_max_tokens.into(),
                16,
                32_768,
            ),
        ];
        for (name, value, min, max) in counts {
            if !(min..=max).contains(&value) {
                return Err(ConfigError::OutOfRange { name, min, max });
            }
        }
        for (name, value, max) in [
            (
                "IMPRINT_RESEARCH_BUDGET_S",
                self.research_budget_s,
                MAX_RESEARCH_BUDGET_S,
            ),
            (
                "IMPRINT_ANSWER_TIMEOUT_S",
                self.answer_timeout_s,
                MAX_ANSWER_TIMEOUT_S,
            ),
            (
                "IMPRINT_MODEL_IDLE_TIMEOUT_S",
                self.model_idle_timeout_s,
                MAX_MODEL_IDLE_TIMEOUT_S,
            ),
            (
                "IMPRINT_VOICE_TURN_TIMEOUT_S",
                self.voice_turn_timeout_s,
                MAX_VOICE_TURN_TIMEOUT_S,
            ),
            ("IMPRINT_VOICE_IDLE_S", self.voice_idle_s, MAX_VOICE_IDLE_S),
        ] {
            if !(value.is_finite() && value > 0.0 && value <= max) {
                return Err(ConfigError::Duration { name, max });
            }
        }
        for origin in &self.allowed_origins {
            if crate::origin::Origin::parse(origin).is_none() {
                return Err(ConfigError::BadOrigin(origin.clone()));
            }
        }
        Ok(())
    }
}

/// The largest research budget: a day.
pub const MAX_RESEARCH_BUDGET_S: f64 = 86_400.0;
/// The longest a question may wait: a week.
pub const MAX_ANSWER_TIMEOUT_S: f64 = 604_800.0;
/// The longest silence from a model stream: an hour.
pub const MAX_MODEL_IDLE_TIMEOUT_S: f64 = 3_600.0;
/// The longest a voice turn may go quiet: an hour.
pub const MAX_VOICE_TURN_TIMEOUT_S: f64 = 3_600.0;
/// The longest an idle voice conversation is kept: a day.
pub const MAX_VOICE_IDLE_S: f64 = 86_400.0;

/// A configuration that cannot be used, with what to change.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {}: {source}", path.display())]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Also an unknown key: the message names it.
    #[error("config file {}: {source}", path.display())]
    ParseFile {
        path: PathBuf,
        source: Box<toml::de::Error>,
    },
    #[error("no data directory: set IMPRINT_DATA_DIR")]
    NoDataDir,
    #[error("IMPRINT_ADDR {0} is not a loopback address: set IMPRINT_TOKEN so only you can reach Imprint")]
    TokenRequired(SocketAddr),
    #[error("{name} must be a whole number from {min} to {max}")]
    OutOfRange {
        name: &'static str,
        min: u64,
        max: u64,
    },
    #[error("{name} must be a positive number of seconds, at most {max}")]
    Duration { name: &'static str, max: f64 },
    #[error("IMPRINT_ALLOWED_ORIGINS: `{0}` is not an origin (scheme://host[:port])")]
    BadOrigin(String),
}

fn secs(value: f64) -> Duration {
    Duration::try_from_secs_f64(value).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Config {
        Config::try_parse_from(std::iter::once("imprint").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn presets_fill_what_is_not_given() {
        let c = parse(&["--chat-provider", "ollama"]);
        let m = c.model();
        assert_eq!(m.base_url, "http://127.0.0.1:11434/v1");
        assert_eq!(m.tool_format, ToolFormat::Native);
        let c = parse(&[
            "--chat-provider",
            "vllm",
            "--chat-base-url",
            "http://127.0.0.1:9/v1/",
            "--chat-model",
            "m",
        ]);
        assert_eq!(c.model().base_url, "http://127.0.0.1:9/v1");
        assert_eq!(c.model().model, "m");
        assert_eq!(parse(&[]).model().tool_format, ToolFormat::Hermes);
        assert_eq!(parse(&[]).model().tool_prompt, ToolPrompt::Template);
        assert_eq!(c.model().tool_prompt, ToolPrompt::Imprint);
        assert_eq!(
            parse(&["--chat-tool-prompt", "imprint"])
                .model()
                .tool_prompt,
            ToolPrompt::Imprint
        );
        assert_eq!(
            parse(&["--chat-tool-format", "qwen-xml"])
                .model()
                .tool_format,
            ToolFormat::QwenXml
        );
    }

    #[test]
    fn off_loopback_requires_a_token() {
        assert!(parse(&["--addr", "0.0.0.0:8420"]).validate().is_err());
        assert!(parse(&["--addr", "0.0.0.0:8420", "--token", "t"])
            .validate()
            .is_ok());
        assert!(parse(&[]).validate().is_ok());
        assert!(parse(&["--writing-slots", "0"]).validate().is_err());
        assert!(parse(&["--answer-timeout-s=-1"]).validate().is_err());
    }

    #[test]
    fn the_summary_never_shows_secrets() {
        let c = parse(&["--token", "sekrit", "--chat-api-key", "sk-123"]);
        let s = c.summary();
        assert!(!s.contains("sekrit") && !s.contains("sk-123"), "{s}");
        assert!(s.contains("key=set") && s.contains("token=set"));
    }

    fn load_with_file(args: &[&str], file: &str) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, file).unwrap();
        let path_arg = path.to_str().unwrap().to_string();
        let argv: Vec<&str> = std::iter::once("imprint")
            .chain(["--config", &path_arg])
            .chain(args.iter().copied())
            .collect();
        let matches = Config::command().try_get_matches_from(argv).unwrap();
        Config::from_arg_matches(&matches)
            .unwrap()
            .with_file(&matches)
    }

    #[test]
    fn the_config_file_fills_what_flags_do_not_give() {
        let config = load_with_file(
            &["--writing-slots", "3"],
            "chat_provider = \"ollama\"\nwriting_slots = 2\nresearch_budget_s = 60\nallowed_origins = [\"http://127.0.0.1:8421\"]\nchat_tool_format = \"qwen-xml\"\n",
        )
        .unwrap();
        assert_eq!(config.chat_provider, Provider::Ollama);
        assert_eq!(config.writing_slots, 3, "a flag wins over the file");
        assert_eq!(config.research_budget_s, 60.0);
        assert_eq!(config.allowed_origins, vec!["http://127.0.0.1:8421"]);
        assert_eq!(config.chat_tool_format, Some(ToolFormat::QwenXml));
    }

    #[test]
    fn an_unknown_key_in_the_config_file_is_refused_by_name() {
        let error = load_with_file(&[], "chat_provder = \"ollama\"\n").unwrap_err();
        assert!(error.to_string().contains("chat_provder"), "{error}");
        let error = load_with_file(&[], "writing_slots = \"many\"\n").unwrap_err();
        assert!(matches!(error, ConfigError::ParseFile { .. }), "{error}");
        assert!(load_with_file(&[], "not toml").is_err());
    }

    #[test]
    fn every_duration_has_a_maximum() {
        for (flag, max) in [
            ("--research-budget-s", MAX_RESEARCH_BUDGET_S),
            ("--answer-timeout-s", MAX_ANSWER_TIMEOUT_S),
            ("--model-idle-timeout-s", MAX_MODEL_IDLE_TIMEOUT_S),
            ("--voice-turn-timeout-s", MAX_VOICE_TURN_TIMEOUT_S),
            ("--voice-idle-s", MAX_VOICE_IDLE_S),
        ] {
            assert!(
                parse(&[flag, &max.to_string()]).validate().is_ok(),
                "{flag}"
            );
            let error = parse(&[flag, "1e19"]).validate().unwrap_err();
            assert!(matches!(error, ConfigError::Duration { .. }), "{flag}");
            assert!(error.to_string().contains(&max.to_string()), "{error}");
            assert!(parse(&[flag, "NaN"]).validate().is_err(), "{flag}");
        }
        assert!(parse(&["--chat-max-tokens", "1000000"]).validate().is_err());
        assert!(parse(&["--max-tool-iters", "101"]).validate().is_err());
        assert!(parse(&["--allowed-origins", "localhost:3000"])
            .validate()
            .is_err());
        assert!(parse(&["--allowed-origins", "http://localhost:3000"])
            .validate()
            .is_ok());
    }

    #[test]
    fn every_model_request_carries_max_tokens() {
        assert_eq!(parse(&[]).model().max_tokens, 2048);
        assert_eq!(parse(&["--chat-max-tokens", "512"]).model().max_tokens, 512);
    }
}
