//! Which model the next reply uses, and where each of its settings came
//! from. Precedence: a flag > the environment > the Model page's saved
//! choice > the config file > the provider's default.
//!
//! The page's choice is taken as a whole: it applies to every setting no
//! flag or variable fixes, and not at all when it disagrees with one that
//! is fixed (it was saved for another server). `chat_turns` and
//! `chat_tool_prompt`, unless fixed, follow the chosen provider. A key is
//! sent only to the server it belongs to (see [`key_for`]).

use app::protocol::{CurrentConnection, KeyShown, SettingSource, Sources};
use serde::{Deserialize, Serialize};

use super::keys::{mask, Keys};
use crate::config::{Config, ModelSettings, Provider, ToolFormat};

/// The Model page's saved choice (`connection.toml`), keyed as the config
/// file is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageChoice {
    pub chat_provider: Provider,
    pub chat_base_url: String,
    pub chat_model: String,
    pub chat_tool_format: ToolFormat,
}

/// The model in use: what replies are written with, and what the page shows.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub settings: ModelSettings,
    pub view: CurrentConnection,
}

/// Reads a variable of the process environment (a test gives its own).
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment, empty values counted as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// A key and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundKey {
    pub key: String,
    pub source: SettingSource,
    /// The variable or flag that gave it, for messages.
    pub name: &'static str,
}

/// Whether the page's choice agrees with every setting a flag or variable
/// fixes. One that does not was saved for another server and is not used.
pub fn page_applies(config: &Config, page: &PageChoice) -> bool {
    let base = config.model();
    let s = &config.sources;
    !(s.provider.is_fixed() && page.chat_provider != base.provider
        || s.base_url.is_fixed() && !same_url(&page.chat_base_url, &base.base_url)
        || s.model.is_fixed() && page.chat_model != base.model
        || s.tool_format.is_fixed() && page.chat_tool_format != base.tool_format)
}

/// The model in use, given the page's saved choice and keys.
pub fn resolve(
    config: &Config,
    page: Option<&PageChoice>,
    keys: &Keys,
    env: EnvLookup<'_>,
) -> Resolved {
    let base = config.model();
    let s = config.sources;
    let page = page.filter(|p| page_applies(config, p));
    let from_page = |fixed: SettingSource| match (page, fixed.is_fixed()) {
        (Some(_), false) => SettingSource::Page,
        _ => fixed,
    };
    let (provider, base_url, model, tool_format) = match page {
        Some(p) => (
            p.chat_provider,
            p.chat_base_url.clone(),
            p.chat_model.clone(),
            p.chat_tool_format,
        ),
        None => (
            base.provider,
            base.base_url.clone(),
            base.model.clone(),
            base.tool_format,
        ),
    };
    // Unless fixed, how replies are driven follows the chosen provider.
    let follows = |source: SettingSource| page.is_some() && !source.is_fixed();
    let tool_prompt = if follows(s.tool_prompt) {
        provider.default_tool_prompt()
    } else {
        base.tool_prompt
    };
    let (turns, turns_source) = if follows(s.turns) {
        (provider.default_turns(), SettingSource::Default)
    } else {
        (base.turns, s.turns)
    };
    let key = key_for(config, provider, &base_url, keys, env);
    let sources = Sources {
        provider: from_page(s.provider),
        base_url: from_page(s.base_url),
        model: from_page(s.model),
        tool_format: from_page(s.tool_format),
        turns: turns_source,
    };
    let chosen = [sources.provider, sources.base_url, sources.model];
    let source = if chosen.contains(&SettingSource::Page) {
        SettingSource::Page
    } else {
        strongest(&chosen)
    };
    let view = CurrentConnection {
        provider: provider.as_str().into(),
        base_url: base_url.clone(),
        model: model.clone(),
        tool_format: tool_format.as_str().into(),
        source,
        sources,
        key: key.as_ref().map(|k| KeyShown {
            masked: mask(&k.key),
            source: k.source,
        }),
        turns: turns.as_str().into(),
    };
    let settings = ModelSettings {
        provider,
        base_url,
        model,
        api_key: key.map(|k| k.key),
        tool_format,
        tool_prompt,
        idle_timeout: base.idle_timeout,
        max_tokens: base.max_tokens,
        turns,
    };
    Resolved { settings, view }
}

/// The key sent to `provider` at `base_url`, strongest first:
/// 1. `--chat-api-key` / `IMPRINT_CHAT_API_KEY`, for the server configured
///    by flags, the environment and the config file;
/// 2. the provider's usual variable (`OPENAI_API_KEY`, …), for the
///    provider's own base URL or the configured one;
/// 3. the key saved on the Model page for exactly this server;
/// 4. `chat_api_key` of the config file, for the configured server.
///
/// A key is never sent to a server it was not given for: a key for OpenAI
/// does not go to a base URL typed on the page.
pub fn key_for(
    config: &Config,
    provider: Provider,
    base_url: &str,
    keys: &Keys,
    env: EnvLookup<'_>,
) -> Option<FoundKey> {
    let base = config.model();
    let s = &config.sources;
    let configured = provider == base.provider && same_url(base_url, &base.base_url);
    let given = config.chat_api_key.clone().filter(|k| !k.is_empty());
    if let (true, true, Some(key)) = (s.api_key.is_fixed(), configured, given.clone()) {
        let name = match s.api_key {
            SettingSource::Flag => "--chat-api-key",
            _ => "IMPRINT_CHAT_API_KEY",
        };
        return Some(FoundKey {
            key,
            source: s.api_key,
            name,
        });
    }
    if let Some(variable) = provider.key_variable() {
        let own = same_url(base_url, &config.preset_base_url(provider));
        if let (true, Some(key)) = (own || configured, env(variable)) {
            return Some(FoundKey {
                key,
                source: SettingSource::Environment,
                name: variable,
            });
        }
    }
    if let Some(key) = keys.get(provider, base_url) {
        return Some(FoundKey {
            key: key.to_string(),
            source: SettingSource::Page,
            name: "the Model page",
        });
    }
    match (s.api_key, configured, given) {
        (SettingSource::ConfigFile, true, Some(key)) => Some(FoundKey {
            key,
            source: SettingSource::ConfigFile,
            name: "chat_api_key in the config file",
        }),
        _ => None,
    }
}

/// Whether two base URLs name the same server: compared as URLs (the
/// host's case and a trailing `/` do not count).
pub fn same_url(a: &str, b: &str) -> bool {
    let normal = |url: &str| match reqwest::Url::parse(url.trim()) {
        Ok(parsed) => parsed.as_str().trim_end_matches('/').to_string(),
        Err(_) => url.trim().trim_end_matches('/').to_string(),
    };
    normal(a) == normal(b)
}

/// The strongest of some sources (flag first, default last).
fn strongest(sources: &[SettingSource]) -> SettingSource {
    let rank = |s: &SettingSource| match s {
        SettingSource::Flag => 0,
        SettingSource::Environment => 1,
        SettingSource::Page => 2,
        SettingSource::ConfigFile => 3,
        SettingSource::Default => 4,
    };
    sources
        .iter()
        .copied()
        .min_by_key(rank)
        .unwrap_or(SettingSource::Default)
}

/// How a fixed setting was given, for messages: the flag or the variable.
pub fn fixed_by(source: SettingSource, flag: &str, variable: &str) -> String {
    match source {
        SettingSource::Flag => format!("the flag --{flag}"),
        _ => variable.to_string(),
    }
}

#[cfg(test)]
mod tests;
