//! The Model page's choice saved (refused when a flag or variable fixes
//! what it changes), a saved key forgotten, and the page's files written.

use super::*;

impl Chooser {
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

    pub(super) async fn write(&self, saved: &Saved, keys_changed: bool) -> Result<(), ApiError> {
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

    pub(super) async fn write_keys(&self, keys: &Keys) -> Result<(), ApiError> {
        self.write_file(KEYS_FILE, keys.to_json()).await
    }

    pub(super) async fn write_file(
        &self,
        name: &'static str,
        text: String,
    ) -> Result<(), ApiError> {
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
