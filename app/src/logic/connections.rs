//! The Model page as plain data: its form (filled from the model in use,
//! a found server's model or a provider's preset, read back as a choice),
//! what a test found in words, and what the page says of a setting a flag
//! or the environment fixes.

use crate::logic::numbers::fixed;
use crate::protocol::{
    ConnectionChoice, CurrentConnection, FoundServer, Preset, SettingSource, StoredKey, TestResult,
};

/// A setting the page shows, with the flag and variable that can fix it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Provider,
    BaseUrl,
    Model,
    ToolFormat,
}

impl Setting {
    pub fn flag(self) -> &'static str {
        match self {
            Setting::Provider => "--chat-provider",
            Setting::BaseUrl => "--chat-base-url",
            Setting::Model => "--chat-model",
            Setting::ToolFormat => "--chat-tool-format",
        }
    }

    pub fn variable(self) -> &'static str {
        match self {
            Setting::Provider => "IMPRINT_CHAT_PROVIDER",
            Setting::BaseUrl => "IMPRINT_CHAT_BASE_URL",
            Setting::Model => "IMPRINT_CHAT_MODEL",
            Setting::ToolFormat => "IMPRINT_CHAT_TOOL_FORMAT",
        }
    }

    /// Where the setting in use came from.
    pub fn source(self, current: &CurrentConnection) -> SettingSource {
        let s = &current.sources;
        match self {
            Setting::Provider => s.provider,
            Setting::BaseUrl => s.base_url,
            Setting::Model => s.model,
            Setting::ToolFormat => s.tool_format,
        }
    }

    /// Whether a flag or the environment fixes it.
    pub fn fixed(self, current: &CurrentConnection) -> bool {
        self.source(current).is_fixed()
    }

    /// Why the page cannot change it, when it cannot.
    pub fn fixed_note(self, current: &CurrentConnection) -> Option<String> {
        match self.source(current) {
            SettingSource::Flag => Some(format!(
                "Fixed by the flag {}: it can't be changed here.",
                self.flag()
            )),
            SettingSource::Environment => Some(format!(
                "Fixed by {} in the environment: it can't be changed here.",
                self.variable()
            )),
            _ => None,
        }
    }
}

/// The form of the Model page, as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelForm {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    /// A new key for this server; empty keeps the one it has.
    pub api_key: String,
    /// Empty: the provider's own.
    pub tool_format: String,
}

impl ModelForm {
    /// The model in use, as a form to change.
    pub fn from_current(current: &CurrentConnection) -> Self {
        Self {
            provider: current.provider.clone(),
            base_url: current.base_url.clone(),
            model: current.model.clone(),
            api_key: String::new(),
            tool_format: current.tool_format.clone(),
        }
    }

    /// A model of a found server: its provider, address and name; its tool
    /// format is for the test to find.
    pub fn pick(&mut self, server: &FoundServer, model: &str) {
        self.provider = server.provider.clone();
        self.base_url = server.base_url.clone();
        self.model = model.to_string();
        self.api_key.clear();
        self.tool_format.clear();
    }

    /// Whether the form names this model of this server.
    pub fn is_picked(&self, server: &FoundServer, model: &str) -> bool {
        self.base_url == server.base_url && self.model == model
    }

    /// Another provider: its own address and model, to change or keep.
    pub fn choose_provider(&mut self, provider: &str, presets: &[Preset]) {
        if provider == self.provider {
            return;
        }
        self.provider = provider.to_string();
        if let Some(preset) = presets.iter().find(|p| p.provider == provider) {
            self.base_url = preset.base_url.clone();
            self.model = preset.model.clone();
        }
        self.api_key.clear();
        self.tool_format.clear();
    }

    /// The choice to test or save: blank fields left out (the server fills
    /// the provider's own), a key only when one was typed.
    pub fn choice(&self) -> ConnectionChoice {
        let given = |text: &str| Some(text.trim().to_string()).filter(|t| !t.is_empty());
        ConnectionChoice {
            provider: self.provider.trim().to_string(),
            base_url: given(&self.base_url),
            model: given(&self.model),
            api_key: given(&self.api_key),
            tool_format: given(&self.tool_format),
        }
    }

    /// The key saved on the page for the form's server, if any.
    pub fn saved_key<'a>(&self, keys: &'a [StoredKey]) -> Option<&'a StoredKey> {
        let base_url = self.base_url.trim().trim_end_matches('/');
        keys.iter()
            .find(|k| k.provider == self.provider && k.base_url == base_url)
    }
}

/// A test's outcome in a sentence or two.
pub fn test_summary(result: &TestResult) -> String {
    if !result.ok {
        let error = result.error.as_deref().unwrap_or("no answer");
        return format!("The test failed: {error}");
    }
    let time = match result.first_token_ms {
        Some(ms) if ms >= 10_000 => format!("{} s", fixed(ms as f64 / 1000.0, 0)),
        Some(ms) if ms >= 1_000 => format!("{} s", fixed(ms as f64 / 1000.0, 1)),
        Some(ms) => format!("{ms} ms"),
        None => "some time".into(),
    };
    let reply = if result.reply.is_empty() {
        "It wrote no text.".to_string()
    } else {
        format!("It said: “{}”", result.reply)
    };
    let tools = if result.tool_calls {
        "It returns native tool calls, so the tool format is native.".to_string()
    } else if result.tool_format == "qwen-xml" {
        "It wrote its tool call as qwen-xml text, so the tool format is qwen-xml.".to_string()
    } else {
        format!(
            "It returned no native tool call; Imprint will read calls written as text ({}).",
            result.tool_format
        )
    };
    format!("First token after {time}. {reply} {tools}")
}

/// A provider, for people.
pub fn provider_label(provider: &str) -> &str {
    match provider {
        "local" => "Built-in or llama.cpp (local)",
        "openai" => "OpenAI or OpenAI-compatible",
        "anthropic" => "Anthropic",
        "gemini" => "Gemini",
        "ollama" => "Ollama",
        "vllm" => "vLLM or another local server",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Sources;

    fn current(provider: SettingSource) -> CurrentConnection {
        CurrentConnection {
            provider: "openai".into(),
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o-mini".into(),
            tool_format: "native".into(),
            source: provider,
            sources: Sources {
                provider,
                base_url: SettingSource::Default,
                model: SettingSource::Page,
                tool_format: SettingSource::Default,
                turns: SettingSource::Default,
            },
            key: None,
            turns: "free".into(),
        }
    }

    fn server() -> FoundServer {
        FoundServer {
            provider: "ollama".into(),
            base_url: "http://127.0.0.1:11434/v1".into(),
            models: vec!["qwen2.5:7b".into()],
            server: "Ollama".into(),
        }
    }

    #[test]
    fn a_picked_model_fills_the_form_and_reads_back_as_a_choice() {
        let mut form = ModelForm::from_current(&current(SettingSource::Default));
        form.api_key = "typed".into();
        form.pick(&server(), "qwen2.5:7b");
        assert!(form.is_picked(&server(), "qwen2.5:7b"));
        let choice = form.choice();
        assert_eq!(choice.provider, "ollama");
        assert_eq!(
            choice.base_url.as_deref(),
            Some("http://127.0.0.1:11434/v1")
        );
        assert_eq!(choice.model.as_deref(), Some("qwen2.5:7b"));
        assert_eq!(choice.api_key, None, "a pick drops a key typed for another");
        assert_eq!(choice.tool_format, None, "for the test to find");
    }

    #[test]
    fn another_provider_brings_its_preset() {
        let presets = [Preset {
            provider: "anthropic".into(),
            base_url: "https://api.anthropic.com/v1".into(),
            model: "claude-3-5-haiku-latest".into(),
            remote: true,
        }];
        let mut form = ModelForm::from_current(&current(SettingSource::Default));
        form.choose_provider("anthropic", &presets);
        assert_eq!(form.base_url, "https://api.anthropic.com/v1");
        assert_eq!(form.model, "claude-3-5-haiku-latest");
        form.model = "  ".into();
        assert_eq!(form.choice().model, None);
    }

    #[test]
    fn a_fixed_setting_says_what_fixes_it() {
        let env = current(SettingSource::Environment);
        assert!(Setting::Provider.fixed(&env));
        let note = Setting::Provider.fixed_note(&env).unwrap();
        assert!(note.contains("IMPRINT_CHAT_PROVIDER"), "{note}");
        let flag = current(SettingSource::Flag);
        assert!(Setting::Provider
            .fixed_note(&flag)
            .unwrap()
            .contains("--chat-provider"));
        assert_eq!(Setting::Model.fixed_note(&flag), None);
        assert!(!Setting::Model.fixed(&flag));
    }

    #[test]
    fn the_key_saved_for_the_forms_server_is_found() {
        let keys = [StoredKey {
            provider: "openai".into(),
            base_url: "https://api.openai.com/v1".into(),
            masked: "••••WXYZ".into(),
        }];
        let mut form = ModelForm::from_current(&current(SettingSource::Default));
        assert_eq!(
            form.saved_key(&keys).map(|k| k.masked.as_str()),
            Some("••••WXYZ")
        );
        form.base_url = "https://proxy.example/v1".into();
        assert!(form.saved_key(&keys).is_none());
    }

    #[test]
    fn a_test_is_told_in_words() {
        let mut result = TestResult {
            ok: true,
            first_token_ms: Some(420),
            tool_calls: true,
            error: None,
            reply: "Hello!".into(),
            tool_format: "native".into(),
        };
        let text = test_summary(&result);
        assert!(
            text.contains("420 ms") && text.contains("“Hello!”") && text.contains("native"),
            "{text}"
        );
        result.tool_calls = false;
        result.tool_format = "hermes".into();
        result.first_token_ms = Some(2500);
        let text = test_summary(&result);
        assert!(
            text.contains("2.5 s") && text.contains("(hermes)"),
            "{text}"
        );
        result.ok = false;
        result.error = Some("http://127.0.0.1:9/v1: nothing answers there".into());
        assert!(test_summary(&result).starts_with("The test failed: http://127.0.0.1:9/v1"));
    }
}
