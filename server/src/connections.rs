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

    /// Saves `choice` and hands the model it resolves to `apply` (the
    /// engine's switch), both before returning: the next reply uses it.
    pub async fn choose(
        &self,
        choice: ConnectionChoice,
        apply: impl FnOnce(&Resolved),
    ) -> Result<CurrentConnection, ApiError> {
        let checked = self.check(&choice)?;
        let model = checked.model.clone().ok_or_else(no_model)?;
        let configured = self.config.model();
        let s = self.config.sources;
        let fixed = |what: &str, source, flag: &str, variable: &str, value: &str| {
            ApiError::bad_request(format!(
                "the {what} is fixed by {} ({value}); the Model page cannot change it",
                fixed_by(source, flag, variable)
            ))
        };
        if s.provider.is_fixed() && checked.provider != configured.provider {
            let name = configured.provider.as_str();
            return Err(fixed(
                "provider",
                s.provider,
                "chat-provider",
                "IMPRINT_CHAT_PROVIDER",
                name,
            ));
        }
        if s.base_url.is_fixed() && !same_url(&checked.base_url, &configured.base_url) {
            let url = &configured.base_url;
            return Err(fixed(
                "base URL",
                s.base_url,
                "chat-base-url",
                "IMPRINT_CHAT_BASE_URL",
                url,
            ));
        }
        if s.model.is_fixed() && model != configured.model {
            let name = &configured.model;
            return Err(fixed(
                "model",
                s.model,
                "chat-model",
                "IMPRINT_CHAT_MODEL",
                name,
            ));
        }
        let tool_format = match checked.tool_format {
            Some(format) if s.tool_format.is_fixed() && format != configured.tool_format => {
                let name = configured.tool_format.as_str();
                return Err(fixed(
                    "tool format",
                    s.tool_format,
                    "chat-tool-format",
                    "IMPRINT_CHAT_TOOL_FORMAT",
                    name,
                ));
            }
            Some(format) => format,
            None if s.tool_format.is_fixed() => configured.tool_format,
            None => checked.provider.default_tool_format(),
        };
        let _one_at_a_time = self.changing.lock().await;
        let mut saved = self.saved().clone();
        let keys_changed = match &checked.key {
            KeyChange::Keep => false,
            change => {
                // A key a flag, the environment or the config file gives
                // for this server stays what it is.
                let given = key_for(
                    &self.config,
                    checked.provider,
                    &checked.base_url,
                    &Keys::default(),
                    &process_env,
                );
                if let Some(given) = given.filter(|k| k.source.is_fixed()) {
                    return Err(ApiError::bad_request(format!(
                        "the key for this server is set by {}; the Model page cannot change it",
                        given.name
                    )));
                }
                match change {
                    KeyChange::Set(key) => {
                        if !saved.keys.set(checked.provider, &checked.base_url, key) {
                            return Err(ApiError::bad_request(format!(
                                "no room for another key: remove one first (at most {})",
                                keys::MAX_KEYS
                            )));
                        }
                        true
                    }
                    _ => saved.keys.remove(checked.provider, &checked.base_url),
                }
            }
        };
        saved.choice = Some(PageChoice {
            chat_provider: checked.provider,
            chat_base_url: checked.base_url,
            chat_model: model,
            chat_tool_format: tool_format,
        });
        self.write(&saved, keys_changed).await?;
        *self.saved() = saved;
        let resolved = self.current();
        apply(&resolved);
        tracing::info!(
            provider = resolved.settings.provider.as_str(),
            base_url = %resolved.settings.base_url,
            model = %resolved.settings.model,
            tool_format = resolved.settings.tool_format.as_str(),
            turns = resolved.settings.turns.as_str(),
            key = if resolved.settings.api_key.is_some() { "set" } else { "none" },
            "the Model page chose the model for the next replies"
        );
        Ok(resolved.view)
    }

    /// Removes the key saved for a server; the model in use is handed to
    /// `apply` again (it may have been sent that key).
    pub async fn forget_key(
        &self,
        key: KeyRef,
        apply: impl FnOnce(&Resolved),
    ) -> Result<(), ApiError> {
        let provider = provider_named(&key.provider)?;
        let base_url = base_url_of(&key.base_url)?;
        let _one_at_a_time = self.changing.lock().await;
        let mut saved = self.saved().clone();
        if !saved.keys.remove(provider, &base_url) {
            return Err(ApiError::not_found("no key is saved for that server"));
        }
        self.write_keys(&saved.keys).await?;
        *self.saved() = saved;
        apply(&self.current());
        Ok(())
    }

    /// One short request to the chosen model (see [`check::check`]).
    pub async fn test(&self, choice: ConnectionChoice) -> Result<TestResult, ApiError> {
        let checked = self.check(&choice)?;
        let model = checked.model.clone().ok_or_else(no_model)?;
        let settings = ModelSettings {
            provider: checked.provider,
            api_key: self.key_to_send(&checked),
            model,
            tool_format: checked
                .tool_format
                .unwrap_or_else(|| checked.provider.default_tool_format()),
            tool_prompt: checked.provider.default_tool_prompt(),
            idle_timeout: check::FIRST_TOKEN_LIMIT,
            max_tokens: 128,
            turns: checked.provider.default_turns(),
            base_url: checked.base_url,
        };
        Ok(check::check(&self.chosen, &settings).await)
    }

    /// The models the server of `choice` lists (an address the user typed).
    pub async fn list_models(&self, choice: ConnectionChoice) -> Result<ModelList, ApiError> {
        let checked = self.check(&choice)?;
        let key = self.key_to_send(&checked);
        let auth = key.as_deref().map(|k| (k, checked.provider));
        let listed = probe::list_at(&self.chosen, &checked.base_url, auth).await;
        let hide = |text: String| crate::models::hiding::hide(&text, key.as_deref());
        Ok(match listed {
            Ok(models) => ModelList {
                ok: true,
                base_url: checked.base_url,
                models,
                error: None,
            },
            Err(unanswered) => ModelList {
                ok: false,
                error: Some(hide(format!("{}: {}", checked.base_url, unanswered.why))),
                base_url: checked.base_url,
                models: Vec::new(),
            },
        })
    }

    /// The key a test or a listing sends: the one typed, none when it is
    /// being removed, else the one the server already has.
    fn key_to_send(&self, checked: &Checked) -> Option<String> {
        match &checked.key {
            KeyChange::Set(key) => Some(key.clone()),
            KeyChange::Remove => None,
            KeyChange::Keep => {
                let keys = self.saved().keys.clone();
                key_for(
                    &self.config,
                    checked.provider,
                    &checked.base_url,
                    &keys,
                    &process_env,
                )
                .map(|k| k.key)
            }
        }
    }

    /// Reads a choice: a known provider, a base URL (the provider's own
    /// when none is given), a model name, a key fit for a header, a known
    /// tool format. Every fault is a 400 that says what to change.
    fn check(&self, choice: &ConnectionChoice) -> Result<Checked, ApiError> {
        let provider = provider_named(&choice.provider)?;
        let base_url = match choice.base_url.as_deref().map(str::trim) {
            Some(url) if !url.is_empty() => base_url_of(url)?,
            _ => self.default_base_url(provider),
        };
        let own = reqwest::Url::parse(&base_url)
            .is_ok_and(|url| crate::config::is_own_address(&url, self.config.addr));
        if own {
            return Err(ApiError::bad_request(format!(
                "{base_url} is Imprint's own address, not a model server"
            )));
        }
        let model = match choice.model.as_deref().map(str::trim) {
            Some(model) if !model.is_empty() => {
                if model.chars().count() > MAX_MODEL_CHARS || model.chars().any(char::is_control) {
                    return Err(ApiError::bad_request(format!(
                        "the model name must be one line of at most {MAX_MODEL_CHARS} characters"
                    )));
                }
                Some(model.to_string())
            }
            _ => None,
        };
        let key = match choice.api_key.as_deref().map(str::trim) {
            None => KeyChange::Keep,
            Some("") => KeyChange::Remove,
            Some(key) => {
                keys::check_key(key).map_err(ApiError::bad_request)?;
                KeyChange::Set(key.to_string())
            }
        };
        let tool_format = match choice.tool_format.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(name) => Some(ToolFormat::named(name).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "unknown tool format `{}`: use one of {}",
                    clip(name),
                    TOOL_FORMATS.join(", ")
                ))
            })?),
        };
        Ok(Checked {
            provider,
            base_url,
            model,
            key,
            tool_format,
        })
    }

    /// A provider's base URL when a choice gives none: the one a flag or
    /// the environment fixes for it, else its preset's.
    fn default_base_url(&self, provider: Provider) -> String {
        let configured = self.config.model();
        if self.config.sources.base_url.is_fixed() && provider == configured.provider {
            configured.base_url
        } else {
            self.config.preset_base_url(provider)
        }
    }

    async fn write(&self, saved: &Saved, keys_changed: bool) -> Result<(), ApiError> {
        if keys_changed {
            self.write_keys(&saved.keys).await?;
        }
        let Some(choice) = &saved.choice else {
            return Ok(());
        };
        let text = format!(
            "# The model chosen on Imprint's Model page (written by Imprint).\n\
             # A flag or an IMPRINT_* variable wins over it; it wins over config.toml.\n{}",
            toml::to_string(choice).map_err(|e| ApiError::internal(e.to_string()))?
        );
        self.write_file(CHOICE_FILE, text).await
    }

    async fn write_keys(&self, keys: &Keys) -> Result<(), ApiError> {
        self.write_file(KEYS_FILE, keys.to_json()).await
    }

    async fn write_file(&self, name: &'static str, text: String) -> Result<(), ApiError> {
        let path = self.dir.join(name);
        let target = path.clone();
        let written =
            tokio::task::spawn_blocking(move || files::write_private(&target, text.as_bytes()))
                .await;
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => {
                tracing::error!(file = %path.display(), %error, "cannot save the Model page's choice");
                Err(ApiError::internal(format!(
                    "cannot save {}: {error}",
                    path.display()
                )))
            }
            Err(error) => Err(ApiError::internal(error.to_string())),
        }
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
