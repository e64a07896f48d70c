use clap::{CommandFactory, FromArgMatches};

use super::*;
use crate::config::{ToolPrompt, Turns};

/// A configuration as `imprint` reads it (flags, then the file, if any),
/// with its sources recorded.
fn config(args: &[&str], file: Option<&str>) -> Config {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_string();
    let path = dir.path().join("config.toml");
    if let Some(text) = file {
        std::fs::write(&path, text).unwrap();
    }
    let argv: Vec<&str> = ["imprint", "--data-dir", &data]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let matches = Config::command().try_get_matches_from(argv).unwrap();
    Config::from_arg_matches(&matches)
        .unwrap()
        .with_file(&matches)
        .unwrap()
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn choice(provider: Provider, base_url: &str, model: &str) -> PageChoice {
    PageChoice {
        chat_provider: provider,
        chat_base_url: base_url.into(),
        chat_model: model.into(),
        chat_tool_format: ToolFormat::Native,
    }
}

#[test]
fn without_a_choice_the_model_is_the_configured_one() {
    let c = config(&["--chat-provider", "ollama"], None);
    let r = resolve(&c, None, &Keys::default(), &no_env);
    assert_eq!(r.settings.provider, Provider::Ollama);
    assert_eq!(r.settings.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(r.view.sources.provider, SettingSource::Flag);
    assert_eq!(r.view.sources.model, SettingSource::Default);
    assert_eq!(r.view.source, SettingSource::Flag);
    let c = config(&[], None);
    let r = resolve(&c, None, &Keys::default(), &no_env);
    assert_eq!(r.view.source, SettingSource::Default);
    assert_eq!(r.view.turns, "planned");
}

#[test]
fn the_pages_choice_wins_over_the_config_file_and_turns_follow_it() {
    let c = config(
        &[],
        Some("chat_provider = \"local\"\nchat_model = \"small\"\nchat_turns = \"planned\"\n"),
    );
    assert_eq!(c.sources.provider, SettingSource::ConfigFile);
    let before = resolve(&c, None, &Keys::default(), &no_env);
    assert_eq!(before.settings.turns, Turns::Planned);
    assert_eq!(before.view.source, SettingSource::ConfigFile);
    let page = choice(Provider::Vllm, "http://127.0.0.1:8000/v1", "big");
    let r = resolve(&c, Some(&page), &Keys::default(), &no_env);
    assert_eq!(r.settings.provider, Provider::Vllm);
    assert_eq!(r.settings.model, "big");
    assert_eq!(r.view.source, SettingSource::Page);
    assert_eq!(r.view.sources.model, SettingSource::Page);
    // A larger model drives its own loop, with Imprint's tool prompt.
    assert_eq!(r.settings.turns, Turns::Free);
    assert_eq!(r.settings.tool_prompt, ToolPrompt::Imprint);
    assert_eq!(r.view.turns, "free");
    // And back to the built-in model: planned again.
    let page = choice(Provider::Local, "http://127.0.0.1:8431/v1", "small");
    let r = resolve(&c, Some(&page), &Keys::default(), &no_env);
    assert_eq!(r.settings.turns, Turns::Planned);
    assert_eq!(r.settings.tool_prompt, ToolPrompt::Template);
}

#[test]
fn a_fixed_setting_is_kept_and_a_choice_that_disagrees_with_it_is_not_used() {
    let c = config(&["--chat-provider", "ollama"], None);
    let other = choice(Provider::Vllm, "http://127.0.0.1:8000/v1", "big");
    assert!(!page_applies(&c, &other));
    let r = resolve(&c, Some(&other), &Keys::default(), &no_env);
    assert_eq!(r.settings.provider, Provider::Ollama);
    assert_eq!(r.settings.model, "qwen2.5:0.5b");
    assert_eq!(r.view.source, SettingSource::Flag);
    // The same provider: the page's model is used beside the fixed one.
    let same = choice(Provider::Ollama, "http://127.0.0.1:11434/v1", "qwen2.5:7b");
    let r = resolve(&c, Some(&same), &Keys::default(), &no_env);
    assert_eq!(r.settings.model, "qwen2.5:7b");
    assert_eq!(r.view.sources.provider, SettingSource::Flag);
    assert_eq!(r.view.sources.model, SettingSource::Page);
    assert_eq!(r.view.source, SettingSource::Page);
}

#[test]
fn turns_fixed_by_a_flag_stay_whatever_the_page_chooses() {
    let c = config(&["--chat-turns", "planned"], None);
    let page = choice(Provider::Openai, "https://api.openai.com/v1", "gpt-4o");
    let r = resolve(&c, Some(&page), &Keys::default(), &no_env);
    assert_eq!(r.settings.turns, Turns::Planned);
    assert_eq!(r.view.sources.turns, SettingSource::Flag);
}

#[test]
fn a_key_goes_only_to_the_server_it_was_given_for() {
    let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-env".to_string());
    let c = config(&[], None);
    let keys = Keys::default();
    // The provider's variable: for its own base URL…
    let own = key_for(
        &c,
        Provider::Openai,
        "https://api.openai.com/v1",
        &keys,
        &env,
    )
    .unwrap();
    assert_eq!(
        (own.key.as_str(), own.source),
        ("sk-env", SettingSource::Environment)
    );
    // …never for an address typed on the page.
    assert!(key_for(
        &c,
        Provider::Openai,
        "https://proxy.example/v1",
        &keys,
        &env
    )
    .is_none());
    assert!(key_for(&c, Provider::Vllm, "http://127.0.0.1:8000/v1", &keys, &env).is_none());
    // A key saved on the page, for exactly its server.
    let mut keys = Keys::default();
    keys.set(Provider::Openai, "https://proxy.example/v1", "sk-page");
    let page = key_for(
        &c,
        Provider::Openai,
        "https://proxy.example/v1",
        &keys,
        &env,
    )
    .unwrap();
    assert_eq!(
        (page.key.as_str(), page.source),
        ("sk-page", SettingSource::Page)
    );
    assert!(key_for(
        &c,
        Provider::Ollama,
        "https://proxy.example/v1",
        &keys,
        &env
    )
    .is_none());
    // The environment wins over the page for the same server.
    keys.set(Provider::Openai, "https://api.openai.com/v1", "sk-page-2");
    let won = key_for(
        &c,
        Provider::Openai,
        "https://api.openai.com/v1",
        &keys,
        &env,
    )
    .unwrap();
    assert_eq!(won.key, "sk-env");
}

#[test]
fn a_configured_key_is_for_the_configured_server_only() {
    let c = config(
        &["--chat-provider", "vllm", "--chat-api-key", "sk-flag"],
        None,
    );
    let keys = Keys::default();
    let found = key_for(
        &c,
        Provider::Vllm,
        "http://127.0.0.1:8000/v1",
        &keys,
        &no_env,
    )
    .unwrap();
    assert_eq!(
        (found.key.as_str(), found.name),
        ("sk-flag", "--chat-api-key")
    );
    assert!(key_for(
        &c,
        Provider::Ollama,
        "http://127.0.0.1:11434/v1",
        &keys,
        &no_env
    )
    .is_none());
    // The config file's key, under the page's for the same server.
    let c = config(
        &[],
        Some("chat_provider = \"vllm\"\nchat_api_key = \"sk-file\"\n"),
    );
    let base = "http://127.0.0.1:8000/v1";
    let file = key_for(&c, Provider::Vllm, base, &keys, &no_env).unwrap();
    assert_eq!(file.source, SettingSource::ConfigFile);
    let mut keys = Keys::default();
    keys.set(Provider::Vllm, base, "sk-page");
    assert_eq!(
        key_for(&c, Provider::Vllm, base, &keys, &no_env)
            .unwrap()
            .key,
        "sk-page"
    );
    // The view shows it masked.
    let r = resolve(&c, None, &keys, &no_env);
    assert_eq!(r.settings.api_key.as_deref(), Some("sk-page"));
    let shown = serde_json::to_string(&r.view).unwrap();
    assert!(!shown.contains("sk-page"), "{shown}");
}

#[test]
fn base_urls_are_compared_as_urls() {
    assert!(same_url(
        "http://LOCALHOST:8080/v1/",
        "http://localhost:8080/v1"
    ));
    assert!(!same_url(
        "http://localhost:8080/v1",
        "http://localhost:8081/v1"
    ));
    let c = config(
        &[
            "--chat-provider",
            "vllm",
            "--chat-base-url",
            "http://LOCALHOST:8000/v1/",
        ],
        None,
    );
    let page = choice(Provider::Vllm, "http://localhost:8000/v1", "big");
    assert!(
        page_applies(&c, &page),
        "the same server, written another way"
    );
}
