//! The config file: the settings' names as TOML keys (unknown ones refused
//! by name), and how its values fill what neither a flag nor a variable
//! gave.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::parser::ValueSource;
use clap::ArgMatches;
use serde::Deserialize;

use super::{Config, ConfigError, Provider, ToolFormat, ToolPrompt, Turns};

/// The config file: the settings' names as keys, each optional. A key that
/// is not a setting is refused with its name.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    addr: Option<SocketAddr>,
    data_dir: Option<PathBuf>,
    dist_dir: Option<PathBuf>,
    token: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    trust_proxy: Option<bool>,
    chat_provider: Option<Provider>,
    chat_base_url: Option<String>,
    chat_model: Option<String>,
    chat_api_key: Option<String>,
    chat_tool_format: Option<ToolFormat>,
    chat_tool_prompt: Option<ToolPrompt>,
    chat_max_tokens: Option<u32>,
    chat_turns: Option<Turns>,
    research_budget_s: Option<f64>,
    max_tool_iters: Option<u32>,
    answer_timeout_s: Option<f64>,
    writing_slots: Option<usize>,
    voice_turn_timeout_s: Option<f64>,
    voice_confirm_timeout_s: Option<f64>,
    voice_idle_s: Option<f64>,
    model_idle_timeout_s: Option<f64>,
    local_model_url: Option<String>,
    probe_ports: Option<Vec<u16>>,
    speech_model_dir: Option<PathBuf>,
    embedding_model_dir: Option<PathBuf>,
}

impl FileConfig {
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::ReadFile {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text).map_err(|source| ConfigError::ParseFile {
            path: path.to_path_buf(),
            source: Box::new(source),
        })
    }

    pub fn parse(text: &str) -> Result<Self, toml::de::Error> {
        toml::from_str(text)
    }
}

impl Config {
    /// Takes each value of `file` whose setting no flag or variable gave.
    pub(super) fn fill_from(&mut self, file: FileConfig, matches: &ArgMatches) {
        let unset = |id: &str| {
            matches!(
                matches.value_source(id),
                None | Some(ValueSource::DefaultValue)
            )
        };
        // The model settings the file gives are marked as the file's.
        let from_file = |given: bool, id: &str| given && unset(id);
        let file_source = app::protocol::SettingSource::ConfigFile;
        let sources = &mut self.sources;
        for (given, id, source) in [
            (
                file.chat_provider.is_some(),
                "chat_provider",
                &mut sources.provider,
            ),
            (
                file.chat_base_url.is_some(),
                "chat_base_url",
                &mut sources.base_url,
            ),
            (file.chat_model.is_some(), "chat_model", &mut sources.model),
            (
                file.chat_api_key.is_some(),
                "chat_api_key",
                &mut sources.api_key,
            ),
            (
                file.chat_tool_format.is_some(),
                "chat_tool_format",
                &mut sources.tool_format,
            ),
            (
                file.chat_tool_prompt.is_some(),
                "chat_tool_prompt",
                &mut sources.tool_prompt,
            ),
            (file.chat_turns.is_some(), "chat_turns", &mut sources.turns),
        ] {
            if from_file(given, id) {
                *source = file_source;
            }
        }
        macro_rules! fill {
            ($($field:ident),* $(,)?) => {$(
                if let Some(value) = file.$field {
                    if unset(stringify!($field)) {
                        self.$field = value;
                    }
                }
            )*};
        }
        macro_rules! fill_optional {
            ($($field:ident),* $(,)?) => {$(
                if let Some(value) = file.$field {
                    if unset(stringify!($field)) {
                        self.$field = Some(value);
                    }
                }
            )*};
        }
        fill!(
            addr,
            allowed_hosts,
            allowed_origins,
            trust_proxy,
            chat_provider,
            chat_max_tokens,
            research_budget_s,
            max_tool_iters,
            answer_timeout_s,
            writing_slots,
            voice_turn_timeout_s,
            voice_confirm_timeout_s,
            voice_idle_s,
            model_idle_timeout_s,
            probe_ports,
        );
        fill_optional!(
            data_dir,
            dist_dir,
            token,
            chat_base_url,
            chat_model,
            chat_api_key,
            chat_tool_format,
            chat_tool_prompt,
            chat_turns,
            local_model_url,
            speech_model_dir,
            embedding_model_dir,
        );
    }
}
