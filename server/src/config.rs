//! Configuration: one documented struct. Every field is a command-line flag
//! and an `IMPRINT_*` variable; the same names in a config file (TOML,
//! deserialized into [`FileConfig`], unknown keys refused by name) fill what
//! neither gives (flags > environment > file > defaults). Where each model
//! setting came from is recorded ([`ModelSources`]): the Model page's saved
//! choice goes between the environment and the file (see
//! [`crate::connections`]). Every duration has a maximum, checked at start
//! by [`Config::validate`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

mod checks;
mod file;
mod model;

pub use file::FileConfig;
pub use model::{ModelSettings, ModelSources, Provider, ToolFormat, ToolPrompt, Turns};

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

    /// Seconds Echo waits for a yes or no after "Did you say …?" before
    /// it drops the unsure answer and the question keeps waiting (at most
    /// 300).
    #[arg(long, env = "IMPRINT_VOICE_CONFIRM_TIMEOUT_S", default_value_t = 10.0)]
    pub voice_confirm_timeout_s: f64,

    /// Seconds a voice conversation with no window open and no turn
    /// running is kept in memory (at most 86400).
    #[arg(long, env = "IMPRINT_VOICE_IDLE_S", default_value_t = 600.0)]
    pub voice_idle_s: f64,

    /// Seconds without a byte from the model before its stream counts as
    /// stalled (at most 3600).
    #[arg(long, env = "IMPRINT_MODEL_IDLE_TIMEOUT_S", default_value_t = 120.0)]
    pub model_idle_timeout_s: f64,

    /// Where the built-in model (the llama-server started for Imprint)
    /// answers, e.g. `http://127.0.0.1:8431/v1`: the `local` provider's
    /// base URL unless IMPRINT_CHAT_BASE_URL says otherwise, and the
    /// "Built-in model" the Model page finds. Loopback only.
    #[arg(long, env = "IMPRINT_LOCAL_MODEL_URL")]
    pub local_model_url: Option<String>,

    /// Loopback ports the Model page also looks for model servers on
    /// (comma-separated, at most 32), besides Ollama's 11434, llama.cpp's
    /// 8080, LM Studio's 1234 and vLLM's 8000. Only 127.0.0.1 is probed.
    #[arg(long, env = "IMPRINT_PROBE_PORTS", value_delimiter = ',')]
    pub probe_ports: Vec<u16>,

    /// The local recogniser's weights: a folder holding Whisper tiny.en's
    /// CTranslate2 export (`config.json`, `tokenizer.json`, `model.bin`),
    /// as `scripts/local-model.sh ensure` sets it up. Default:
    /// `imprint/models/whisper-tiny.en` in the user's cache directory
    /// (`XDG_CACHE_HOME`, else `~/.cache`) when it exists; with neither,
    /// speech is off.
    #[arg(long, env = "IMPRINT_SPEECH_MODEL_DIR")]
    pub speech_model_dir: Option<PathBuf>,

    /// The sentence-embedding model that finds memories by meaning and
    /// routes requests by labelled examples: a folder holding
    /// all-MiniLM-L6-v2 (`config.json`, `tokenizer.json`,
    /// `model.safetensors`), as `scripts/embedding-model.sh ensure` sets it
    /// up. Default: `imprint/models/all-minilm-l6-v2` in the user's cache
    /// directory when it exists. `off`: memories are found by their words
    /// only.
    #[arg(long, env = "IMPRINT_EMBEDDING_MODEL_DIR")]
    pub embedding_model_dir: Option<PathBuf>,

    /// Where each model setting came from (flag, environment, config file
    /// or default); filled by [`Config::with_file`].
    #[arg(skip)]
    pub sources: ModelSources,

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
        self.sources = ModelSources::given(matches);
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

    /// The token, trimmed (a value pasted with a space or a line end is
    /// the token without it); `None` when it is blank.
    pub fn token(&self) -> Option<String> {
        self.token
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    }

    pub fn data_dir(&self) -> Result<PathBuf, ConfigError> {
        match &self.data_dir {
            Some(dir) => Ok(dir.clone()),
            None => dirs::data_dir()
                .map(|d| d.join("imprint"))
                .ok_or(ConfigError::NoDataDir),
        }
    }

    /// The speech weights' folder: the configured one, else the cached
    /// one when it exists (see [`Config::speech_model_dir`]'s flag).
    pub fn speech_model_dir(&self) -> Option<PathBuf> {
        self.speech_model_dir
            .clone()
            .or_else(|| crate::speech::cached_model_dir().filter(|dir| dir.is_dir()))
    }

    /// The embedding model's folder: the configured one (`off`: none),
    /// else the cached one when it exists.
    pub fn embedding_model_dir(&self) -> Option<PathBuf> {
        match &self.embedding_model_dir {
            Some(dir) if dir.as_os_str() == "off" || dir.as_os_str().is_empty() => None,
            Some(dir) => Some(dir.clone()),
            None => crate::meaning::cached_model_dir().filter(|dir| dir.is_dir()),
        }
    }

    /// True when finding by meaning is turned off (`off`).
    pub fn embedding_model_off(&self) -> bool {
        self.embedding_model_dir
            .as_ref()
            .is_some_and(|dir| dir.as_os_str() == "off")
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

    /// The provider's own base URL: the preset's, or for `local` the
    /// built-in model's address when one is given.
    pub fn preset_base_url(&self, provider: Provider) -> String {
        match (&self.local_model_url, provider) {
            (Some(url), Provider::Local) => url.trim_end_matches('/').to_string(),
            _ => provider.default_base_url().to_string(),
        }
    }

    /// The model as flags, the environment and the config file give it
    /// (the Model page's saved choice is applied by [`crate::connections`]).
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
                .unwrap_or_else(|| self.preset_base_url(provider))
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
            tool_prompt: self
                .chat_tool_prompt
                .unwrap_or_else(|| provider.default_tool_prompt()),
            idle_timeout: secs(self.model_idle_timeout_s),
            max_tokens: self.chat_max_tokens,
            turns: self.chat_turns.unwrap_or_else(|| provider.default_turns()),
        }
    }

    pub fn research_budget(&self) -> Duration {
        secs(self.research_budget_s)
    }

    pub fn voice_turn_timeout(&self) -> Duration {
        secs(self.voice_turn_timeout_s)
    }

    pub fn voice_confirm_timeout(&self) -> Duration {
        secs(self.voice_confirm_timeout_s)
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
            if self.token().is_some() { "set" } else { "none" },
            self.writing_slots,
            self.research_budget_s,
            self.max_tool_iters,
            self.chat_max_tokens,
            self.answer_timeout_s,
        )
    }
}

/// The most extra loopback ports the Model page probes.
pub const MAX_PROBE_PORTS: usize = 32;
/// The shortest token accepted when Imprint listens off loopback.
pub const MIN_TOKEN_CHARS: usize = 16;
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
/// The longest "Did you say …?" waits for a yes or no: five minutes.
pub const MAX_VOICE_CONFIRM_TIMEOUT_S: f64 = 300.0;

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
    #[error("IMPRINT_TOKEN must be at least {MIN_TOKEN_CHARS} characters (spaces around it do not count) when Imprint is reachable from other machines")]
    TokenTooShort,
    #[error("IMPRINT_CHAT_BASE_URL is Imprint's own address: point it at a model server (e.g. http://127.0.0.1:8080/v1)")]
    OwnAddress,
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
    #[error("IMPRINT_PROBE_PORTS must be at most {MAX_PROBE_PORTS} ports from 1 to 65535")]
    ProbePorts,
    #[error("IMPRINT_LOCAL_MODEL_URL: `{0}` is not an http URL on loopback (e.g. http://127.0.0.1:8431/v1)")]
    LocalModelUrl(String),
}

/// Whether `url` names this machine (127.0.0.0/8, ::1, `localhost`).
pub fn is_loopback_url(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost") || host.ends_with(".localhost"),
    }
}

/// True when `url` names Imprint itself, served on `own`: its port, on a
/// loopback name or on the address it is bound to. (Asked as its own
/// model, Imprint would answer with its dashboard and call it ready.)
pub fn is_own_address(url: &reqwest::Url, own: SocketAddr) -> bool {
    if own.port() == 0 || url.port_or_known_default() != Some(own.port()) {
        return false;
    }
    let host = url.host_str().unwrap_or("");
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let bound = host.parse::<std::net::IpAddr>().ok() == Some(own.ip());
    bound || (is_loopback_url(url) && (own.ip().is_loopback() || own.ip().is_unspecified()))
}

fn secs(value: f64) -> Duration {
    Duration::try_from_secs_f64(value).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::protocol::SettingSource;

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
    fn imprint_is_not_its_own_model() {
        let own = |url: &str, addr: &str| {
            is_own_address(&reqwest::Url::parse(url).unwrap(), addr.parse().unwrap())
        };
        assert!(own("http://127.0.0.1:8420/v1", "127.0.0.1:8420"));
        assert!(own("http://localhost:8420/v1", "127.0.0.1:8420"));
        assert!(own("http://[::1]:8420/v1", "0.0.0.0:8420"));
        assert!(own("http://192.168.1.5:8420/v1", "192.168.1.5:8420"));
        assert!(!own("http://127.0.0.1:8080/v1", "127.0.0.1:8420"));
        assert!(!own("http://10.0.0.2:8420/v1", "127.0.0.1:8420"));
        assert!(!own("http://127.0.0.1:8420/v1", "127.0.0.1:0"));
        assert!(matches!(
            parse(&["--chat-base-url", "http://localhost:8420/v1"]).validate(),
            Err(ConfigError::OwnAddress)
        ));
    }

    #[test]
    fn off_loopback_requires_a_token() {
        assert!(parse(&["--addr", "0.0.0.0:8420"]).validate().is_err());
        assert!(
            parse(&["--addr", "0.0.0.0:8420", "--token", "a-long-enough-token"])
                .validate()
                .is_ok()
        );
        // Blank, short, or short once trimmed: refused off loopback.
        for token in [" ", "   \n", "t", "fifteen-chars-x", "  fifteen-chars-x  "] {
            assert!(
                matches!(
                    parse(&["--addr", "0.0.0.0:8420", "--token", token]).validate(),
                    Err(ConfigError::TokenRequired(_) | ConfigError::TokenTooShort)
                ),
                "{token:?}"
            );
        }
        assert_eq!(
            parse(&["--token", "  a-long-enough-token\n"])
                .token()
                .as_deref(),
            Some("a-long-enough-token")
        );
        assert_eq!(parse(&["--token", " "]).token(), None);
        assert!(parse(&[]).validate().is_ok());
        assert!(parse(&["--writing-slots", "0"]).validate().is_err());
        assert!(parse(&["--answer-timeout-s=-1"]).validate().is_err());
    }

    #[test]
    fn the_speech_model_folder_is_the_one_given() {
        let c = parse(&["--speech-model-dir", "weights/whisper"]);
        assert_eq!(c.speech_model_dir(), Some(PathBuf::from("weights/whisper")));
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
            ("--voice-confirm-timeout-s", MAX_VOICE_CONFIRM_TIMEOUT_S),
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
    fn where_each_model_setting_came_from_is_recorded() {
        let config = load_with_file(
            &["--chat-model", "big"],
            "chat_provider = \"ollama\"\nchat_model = \"small\"\n",
        )
        .unwrap();
        let s = config.sources;
        assert_eq!(s.model, SettingSource::Flag);
        assert_eq!(s.provider, SettingSource::ConfigFile);
        assert_eq!(s.base_url, SettingSource::Default);
        assert_eq!(config.model().model, "big");
    }

    #[test]
    fn the_built_in_models_address_and_the_probed_ports_are_checked() {
        let c = parse(&["--local-model-url", "http://127.0.0.1:39999/v1/"]);
        assert!(c.validate().is_ok());
        assert_eq!(c.model().base_url, "http://127.0.0.1:39999/v1");
        assert_eq!(
            c.preset_base_url(Provider::Ollama),
            "http://127.0.0.1:11434/v1"
        );
        for bad in [
            "http://192.0.2.1:8431/v1",
            "127.0.0.1:8431",
            "ftp://localhost/v1",
        ] {
            let error = parse(&["--local-model-url", bad]).validate().unwrap_err();
            assert!(matches!(error, ConfigError::LocalModelUrl(_)), "{bad}");
        }
        assert!(parse(&["--probe-ports", "11435,9000"]).validate().is_ok());
        assert!(parse(&["--probe-ports", "0"]).validate().is_err());
        let many: Vec<String> = (1..=33).map(|p| p.to_string()).collect();
        assert!(parse(&["--probe-ports", &many.join(",")])
            .validate()
            .is_err());
    }

    #[test]
    fn model_settings_never_print_their_key() {
        let m = parse(&["--chat-api-key", "sk-hidden-123"]).model();
        assert!(!format!("{m:?}").contains("sk-hidden-123"));
    }

    #[test]
    fn every_model_request_carries_max_tokens() {
        assert_eq!(parse(&[]).model().max_tokens, 2048);
        assert_eq!(parse(&["--chat-max-tokens", "512"]).model().max_tokens, 512);
    }
}
