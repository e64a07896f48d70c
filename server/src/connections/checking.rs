//! A choice checked before it is used (provider, base URL, model, key,
//! tool format) and tried: a test request, and the models its server
//! lists; the key sent with it.

use super::*;

impl Chooser {
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
    pub(super) fn key_to_send(&self, checked: &Checked) -> Option<String> {
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
    pub(super) fn check(&self, choice: &ConnectionChoice) -> Result<Checked, ApiError> {
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
    pub(super) fn default_base_url(&self, provider: Provider) -> String {
        let configured = self.config.model();
        if self.config.sources.base_url.is_fixed() && provider == configured.provider {
            configured.base_url
        } else {
            self.config.preset_base_url(provider)
        }
    }
}
