//! Configuration: one documented struct. Every field is a command-line flag
//! and an `IMPRINT_*` variable; the same names in a config file fill what
//! neither gives (flags > environment > file > defaults).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

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
    /// the loopback names. Requests for any other `Host` are refused.
    #[arg(long, env = "IMPRINT_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,

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

    /// Seconds of research (the tool loop) before the reserved answer.
    #[arg(long, env = "IMPRINT_RESEARCH_BUDGET_S", default_value_t = 300.0)]
    pub research_budget_s: f64,

    /// Tool iterations before the reserved answer.
    #[arg(long, env = "IMPRINT_MAX_TOOL_ITERS", default_value_t = 12)]
    pub max_tool_iters: u32,

    /// Seconds a question waits for an answer before the reply goes on.
    #[arg(long, env = "IMPRINT_ANSWER_TIMEOUT_S", default_value_t = 1800.0)]
    pub answer_timeout_s: f64,

    /// Replies written at once (model calls in flight).
    #[arg(long, env = "IMPRINT_WRITING_SLOTS", default_value_t = 1)]
    pub writing_slots: usize,

    /// Seconds a voice turn may go without any reply event before Echo
    /// stops it (extended by the answer wait while a question waits).
    #[arg(long, env = "IMPRINT_VOICE_TURN_TIMEOUT_S", default_value_t = 120.0)]
    pub voice_turn_timeout_s: f64,

    /// Seconds without a byte from the model before its stream counts as
    /// stalled.
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

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    Local,
    Openai,
    Anthropic,
    Gemini,
    Ollama,
    Vllm,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Parses flags and environment, after filling unset variables from
    /// the config file.
    pub fn load() -> Result<Self, String> {
        let first = Config::parse();
        let file = first
            .config
            .clone()
            .or_else(|| first.data_dir().ok().map(|d| d.join("config.toml")))
            .filter(|p| p.exists());
        let Some(file) = file else {
            return Ok(first);
        };
        let pairs = read_config_file(&file)?;
        for (key, value) in pairs {
            let var = format!("IMPRINT_{}", key.to_ascii_uppercase());
            if std::env::var_os(&var).is_none() {
                // Start-up, before any other thread exists.
                std::env::set_var(var, value);
            }
        }
        Ok(Config::parse())
    }

    pub fn data_dir(&self) -> Result<PathBuf, String> {
        match &self.data_dir {
            Some(dir) => Ok(dir.clone()),
            None => dirs::data_dir()
                .map(|d| d.join("imprint"))
                .ok_or_else(|| "no data directory: set IMPRINT_DATA_DIR".to_string()),
        }
    }

    pub fn database_path(&self) -> Result<PathBuf, String> {
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

    /// One line for the log, without secrets.
    pub fn summary(&self) -> String {
        let m = self.model();
        format!(
            "addr={} provider={} base_url={} model={} tool_format={} key={} token={} slots={} budget={}s iters={} answer_timeout={}s",
            self.addr,
            m.provider.as_str(),
            m.base_url,
            m.model,
            m.tool_format.as_str(),
            if m.api_key.is_some() { "set" } else { "none" },
            if self.token.is_some() { "set" } else { "none" },
            self.writing_slots,
            self.research_budget_s,
            self.max_tool_iters,
            self.answer_timeout_s,
        )
    }

    /// Checks the settings that clap cannot.
    pub fn validate(&self) -> Result<(), String> {
        if !self.addr.ip().is_loopback() && self.token.as_deref().unwrap_or("").is_empty() {
            return Err(format!(
                "IMPRINT_ADDR {} is not a loopback address: set IMPRINT_TOKEN so only you can reach Imprint",
                self.addr
            ));
        }
        if self.writing_slots == 0 {
            return Err("IMPRINT_WRITING_SLOTS must be at least 1".into());
        }
        for (name, value) in [
            ("IMPRINT_RESEARCH_BUDGET_S", self.research_budget_s),
            ("IMPRINT_ANSWER_TIMEOUT_S", self.answer_timeout_s),
            ("IMPRINT_MODEL_IDLE_TIMEOUT_S", self.model_idle_timeout_s),
            ("IMPRINT_VOICE_TURN_TIMEOUT_S", self.voice_turn_timeout_s),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{name} must be a positive number of seconds"));
            }
        }
        Ok(())
    }
}

fn secs(value: f64) -> Duration {
    Duration::try_from_secs_f64(value).unwrap_or(Duration::MAX)
}

/// Reads `key = value` pairs (TOML) from the config file.
fn read_config_file(path: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("config file {} is not valid TOML: {e}", path.display()))?;
    table
        .into_iter()
        .map(|(key, value)| {
            let value = match value {
                toml::Value::String(s) => s,
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(format!(
                        "config file {}: `{key}` must be a string, number or boolean, not {}",
                        path.display(),
                        other.type_str()
                    ))
                }
            };
            Ok((key, value))
        })
        .collect()
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

    #[test]
    fn config_file_values_become_strings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "chat_provider = \"ollama\"\nwriting_slots = 2\n").unwrap();
        let pairs = read_config_file(&path).unwrap();
        assert!(pairs.contains(&("chat_provider".into(), "ollama".into())));
        assert!(pairs.contains(&("writing_slots".into(), "2".into())));
        std::fs::write(&path, "chat_provider = [1]\n").unwrap();
        assert!(read_config_file(&path)
            .unwrap_err()
            .contains("chat_provider"));
        std::fs::write(&path, "not toml").unwrap();
        assert!(read_config_file(&path).is_err());
    }
}
