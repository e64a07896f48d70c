//! The model connection: which model the next reply is written with, where
//! each of its settings came from, and the Model page's choice of another.
//!
//! Precedence (see [`resolve`]): a flag > the environment > the choice
//! saved on the Model page > the config file > the provider's default.
//! The page's choice is kept in `connection.toml` and its keys in
//! `keys.json` (mode 0600), both in the data directory, each written whole
//! before the change is acknowledged. A saved choice is handed to the
//! engine at once and applies from the next reply; replies already
//! running finish on the model they started with.
//!
//! Here: the chooser and what is in use; a choice saved or a key
//! forgotten in `choosing`, checked and tried in `checking`.

mod checking;
mod choosing;
mod files;
mod keys;
mod resolve;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use app::api::ApiError;
use app::protocol::{
    ConnectionChoice, Connections, CurrentConnection, KeyRef, ModelList, Preset, TestResult,
    PROVIDERS, TOOL_FORMATS,
};

pub use keys::Keys;
pub use resolve::{key_for, page_applies, process_env, resolve, same_url, PageChoice, Resolved};

use crate::config::{Config, ModelSettings, Provider, ToolFormat};
use crate::models::{check, probe};
use resolve::fixed_by;

/// The page's choice, beside `config.toml` in the data directory.
pub const CHOICE_FILE: &str = "connection.toml";
/// The keys saved on the page (mode 0600).
pub const KEYS_FILE: &str = "keys.json";
/// The longest base URL and model name accepted.
const MAX_URL_CHARS: usize = 2048;
const MAX_MODEL_CHARS: usize = 256;

/// The model choice: what is in use, the page's saved choice and keys, and
/// the servers to choose from.
pub struct Chooser {
    config: Config,
    dir: PathBuf,
    saved: Mutex<Saved>,
    /// One change at a time, from its check to the engine's switch, so
    /// the files and the model in use never disagree.
    changing: tokio::sync::Mutex<()>,
    probes: reqwest::Client,
    chosen: reqwest::Client,
}

#[derive(Clone, Default)]
struct Saved {
    choice: Option<PageChoice>,
    keys: Keys,
}

/// A choice as read from a request.
struct Checked {
    provider: Provider,
    base_url: String,
    model: Option<String>,
    key: KeyChange,
    tool_format: Option<ToolFormat>,
}

/// What a choice does with the key saved for its server. Never printed.
enum KeyChange {
    Keep,
    Remove,
    Set(String),
}

impl Chooser {
    /// Reads the page's files from the data directory. A file that cannot
    /// be read is left aside with a warning: Imprint starts on the
    /// configured model, and the next save writes the file anew.
    pub fn load(config: &Config) -> Self {
        let dir = config.data_dir().unwrap_or_else(|_| PathBuf::from("."));
        let choice = read_choice(&dir.join(CHOICE_FILE));
        if let Some(choice) = &choice {
            if !page_applies(config, choice) {
                tracing::warn!(
                    file = %dir.join(CHOICE_FILE).display(),
                    "the model saved on the Model page disagrees with a setting given by a flag or the environment; it is not used"
                );
            }
        }
        let keys = read_keys(&dir.join(KEYS_FILE));
        Self {
            config: config.clone(),
            dir,
            saved: Mutex::new(Saved { choice, keys }),
            changing: tokio::sync::Mutex::new(()),
            probes: probe::probe_client(),
            chosen: probe::chosen_client(),
        }
    }

    fn saved(&self) -> MutexGuard<'_, Saved> {
        self.saved.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The model in use now.
    pub fn current(&self) -> Resolved {
        let saved = self.saved().clone();
        resolve(
            &self.config,
            saved.choice.as_ref(),
            &saved.keys,
            &process_env,
        )
    }

    /// What the Model page shows: the model in use, the servers answering
    /// on loopback now (probed in parallel, each within
    /// [`probe::PROBE_TIMEOUT`]), the presets and the saved keys (masked).
    pub async fn view(&self) -> Connections {
        let found = probe::find(&self.probes, &self.config.probe_ports, &self.built_in()).await;
        Connections {
            current: self.current().view,
            found,
            presets: self.presets(),
            keys: self.saved().keys.shown(),
        }
    }

    /// Where the built-in model answers: the `local` preset's address, and
    /// the configured one when `local` is configured. Loopback only.
    fn built_in(&self) -> Vec<String> {
        let mut urls = vec![self.config.preset_base_url(Provider::Local)];
        let configured = self.config.model();
        if configured.provider == Provider::Local {
            urls.push(configured.base_url);
        }
        urls.dedup();
        urls.retain(|url| {
            reqwest::Url::parse(url).is_ok_and(|u| crate::config::is_loopback_url(&u))
        });
        urls
    }

    fn presets(&self) -> Vec<Preset> {
        PROVIDERS
            .iter()
            .filter_map(|name| Provider::named(name))
            .map(|p| Preset {
                provider: p.as_str().into(),
                base_url: self.config.preset_base_url(p),
                model: p.default_model().into(),
                remote: p.is_remote(),
            })
            .collect()
    }
}

fn no_model() -> ApiError {
    ApiError::bad_request("choose a model: `model` is missing or empty")
}

fn provider_named(name: &str) -> Result<Provider, ApiError> {
    Provider::named(name.trim()).ok_or_else(|| {
        ApiError::bad_request(format!(
            "unknown provider `{}`: use one of {}",
            clip(name),
            PROVIDERS.join(", ")
        ))
    })
}

/// A base URL as given: `http(s)://host[:port][/path]`, without a key in
/// it, a query or a fragment; normalized (host lower-cased, no trailing
/// `/`) so a key saved for it is found again.
fn base_url_of(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    let bad = |why: &str| {
        ApiError::bad_request(format!(
            "the base URL `{}` {why}; give http(s)://host[:port]/path, e.g. http://127.0.0.1:11434/v1",
            clip(text)
        ))
    };
    if text.chars().count() > MAX_URL_CHARS {
        return Err(bad("is too long"));
    }
    let url = reqwest::Url::parse(text).map_err(|_| bad("is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad("is not an http or https address"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "holds a user name or password (give the key as the API key)",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("has a query or fragment"));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// A value quoted back in a message, cut short.
fn clip(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// The page's saved choice, if its file is there and reads.
fn read_choice(path: &Path) -> Option<PageChoice> {
    match files::read_optional(path) {
        Ok(Some(text)) => toml::from_str(&text)
            .map_err(|error| {
                tracing::warn!(file = %path.display(), %error, "the Model page's choice cannot be read; the configured model is used")
            })
            .ok(),
        Ok(None) => None,
        Err(error) => {
            tracing::warn!(file = %path.display(), %error, "the Model page's choice cannot be read");
            None
        }
    }
}

/// The page's saved keys; the file is made private if it was not.
fn read_keys(path: &Path) -> Keys {
    match files::read_optional(path) {
        Ok(Some(text)) => {
            if let Err(error) = files::make_private(path) {
                tracing::warn!(file = %path.display(), %error, "cannot make the keys file private");
            }
            Keys::parse(&text).unwrap_or_else(|error| {
                // Never the text: it holds keys.
                tracing::warn!(file = %path.display(), line = error.line(), "the keys file cannot be read; no saved key is used");
                Keys::default()
            })
        }
        Ok(None) => Keys::default(),
        Err(error) => {
            tracing::warn!(file = %path.display(), %error, "the keys file cannot be read");
            Keys::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_read_strictly_and_normalized() {
        assert_eq!(
            base_url_of(" http://LOCALHOST:11434/v1/ ").unwrap(),
            "http://localhost:11434/v1"
        );
        assert_eq!(
            base_url_of("https://api.openai.com/v1").unwrap(),
            "https://api.openai.com/v1"
        );
        for bad in [
            "localhost:11434",
            "ftp://host/v1",
            "http://user:pw@host/v1",
            "http://host/v1?key=1",
            "not a url",
            "",
        ] {
            let error = base_url_of(bad).unwrap_err();
            assert_eq!(error.status, 400, "{bad}");
        }
        assert!(base_url_of(&format!("http://h/{}", "a".repeat(3000))).is_err());
    }

    #[test]
    fn providers_are_named_as_the_setting_names_them() {
        for name in PROVIDERS {
            assert_eq!(provider_named(name).unwrap().as_str(), name);
        }
        let error = provider_named("openrouter").unwrap_err();
        assert!(error.message.contains("openrouter") && error.message.contains("ollama"));
        for name in TOOL_FORMATS {
            assert_eq!(ToolFormat::named(name).unwrap().as_str(), name);
        }
    }
}
