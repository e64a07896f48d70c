//! The Model page (`/model`, the header's model status links here): the
//! model in use and where each setting came from; the model servers found
//! on this machine; a choice (a found model, an address typed by hand, or
//! a remote provider with its key) tested and saved. A saved model writes
//! the next reply; replies already running finish on theirs.

use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{choose_connection, forget_key, get_connections, list_models, test_connection};
use crate::logic::connections::{provider_label, test_summary, ModelForm, Setting};
use crate::protocol::{
    Connections, CurrentConnection, FoundServer, KeyRef, SettingSource, StoredKey, TestResult,
    PROVIDERS, TOOL_FORMATS,
};
use crate::ui::shell::StatusRefresh;

/// What the page's parts share.
#[derive(Clone, Copy)]
struct Page {
    /// The last answer of `GET /api/connections`.
    data: RwSignal<Option<Connections>>,
    /// Probing the loopback ports.
    looking: RwSignal<bool>,
    form: RwSignal<ModelForm>,
    test: RwSignal<Option<TestResult>>,
    /// A test, a save or a listing is under way.
    busy: RwSignal<bool>,
    note: RwSignal<String>,
    error: RwSignal<Option<String>>,
    /// Models a typed address listed, offered as the model field's options.
    listed: RwSignal<Vec<String>>,
}

impl Page {
    /// Reads the model in use and probes for servers; `fill` puts the
    /// model in use into the form (the first load).
    fn load(self, fill: bool) {
        self.looking.set(true);
        spawn_local(async move {
            let result = get_connections().await;
            self.looking.try_set(false);
            match result {
                Ok(connections) => {
                    if fill {
                        self.form
                            .try_set(ModelForm::from_current(&connections.current));
                    }
                    self.data.try_set(Some(connections));
                }
                Err(e) => {
                    self.error.try_set(Some(e.message));
                }
            }
        });
    }

    fn current(self) -> Option<CurrentConnection> {
        self.data.with(|d| d.as_ref().map(|d| d.current.clone()))
    }

    /// Whether a flag or the environment fixes `setting`.
    fn fixed(self, setting: Setting) -> bool {
        self.data
            .with(|d| d.as_ref().is_some_and(|d| setting.fixed(&d.current)))
    }

    fn say(self, text: String) {
        self.error.set(None);
        self.note.set(text);
    }

    fn fail(self, text: String) {
        self.note.set(String::new());
        self.error.set(Some(text));
    }
}

#[component]
pub fn ModelPage() -> impl IntoView {
    let page = Page {
        data: RwSignal::new(None),
        looking: RwSignal::new(false),
        form: RwSignal::new(ModelForm::default()),
        test: RwSignal::new(None),
        busy: RwSignal::new(false),
        note: RwSignal::new(String::new()),
        error: RwSignal::new(None),
        listed: RwSignal::new(Vec::new()),
    };
    provide_context(page);
    page.load(true);
    view! {
        <section class="model-page" data-testid="model-page" aria-labelledby="model-heading">
            <h1 id="model-heading">"Model"</h1>
            <p class="muted">
                "The model that writes Imprint's replies. A model saved here writes the next reply; "
                "replies already running finish on theirs."
            </p>
            {move || page.error.get().map(|text| view! {
                <p class="error" role="alert" data-testid="model-error">{text}</p>
            })}
            <p class="note" role="status" data-testid="model-message">{move || page.note.get()}</p>
            <InUse/>
            <FoundServers/>
            <ChooseModel/>
        </section>
    }
}

/// What is in use, where each setting came from, and the saved keys.
#[component]
fn InUse() -> impl IntoView {
    let page: Page = expect_context();
    let row = |label: &'static str, value: String, source: SettingSource, testid: &'static str| {
        view! {
            <dt>{label}</dt>
            <dd data-testid=testid data-source=format!("{source:?}").to_lowercase()>
                <span class="setting-value">{value}</span>
                <span class="setting-source">{format!(" ({})", source.describe())}</span>
            </dd>
        }
    };
    view! {
        <section class="model-section" aria-labelledby="in-use-heading" data-testid="in-use">
            <h2 id="in-use-heading">"In use"</h2>
            {move || match page.data.get() {
                None => view! { <p class="muted">"Reading the model in use…"</p> }.into_any(),
                Some(Connections { current: c, keys, .. }) => {
                    let fixed = [Setting::Provider, Setting::BaseUrl, Setting::Model, Setting::ToolFormat]
                        .iter()
                        .any(|s| s.fixed(&c));
                    let key = match &c.key {
                        Some(k) => format!("{} ({})", k.masked, k.source.describe()),
                        None => "none".into(),
                    };
                    let turns = if c.turns == "planned" {
                        "planned: Imprint plans each reply's steps, for a small model"
                    } else {
                        "free: the model runs its own tool loop"
                    };
                    view! {
                        <dl class="settings">
                            {row("Provider", provider_label(&c.provider).into(), c.sources.provider, "current-provider")}
                            {row("Base URL", c.base_url.clone(), c.sources.base_url, "current-base-url")}
                            {row("Model", c.model.clone(), c.sources.model, "current-model")}
                            {row("Tool format", c.tool_format.clone(), c.sources.tool_format, "current-tool-format")}
                            <dt>"Key"</dt><dd data-testid="current-key">{key}</dd>
                            {row("Turns", turns.into(), c.sources.turns, "current-turns")}
                        </dl>
                        {fixed.then(|| view! {
                            <p class="muted" data-testid="fixed-note">
                                "A setting given by a command-line flag or the environment can't be changed on this page."
                            </p>
                        })}
                        <SavedKeys keys=keys/>
                    }.into_any()
                }
            }}
        </section>
    }
}

/// Keys saved on this page, masked, each with its Remove button.
#[component]
fn SavedKeys(keys: Vec<StoredKey>) -> impl IntoView {
    let page: Page = expect_context();
    (!keys.is_empty()).then(|| {
        let rows = keys.into_iter().map(|key| {
            let name = format!("Remove the key for {}", key.base_url);
            let which = KeyRef { provider: key.provider.clone(), base_url: key.base_url.clone() };
            let remove = move |_| {
                let which = which.clone();
                spawn_local(async move {
                    match forget_key(which).await {
                        Ok(()) => {
                            page.say("Key removed.".into());
                            page.load(false);
                        }
                        Err(e) => page.fail(e.message),
                    }
                });
            };
            view! {
                <li data-testid="saved-key">
                    <span>{format!("{} · {} · {}", provider_label(&key.provider), key.base_url, key.masked)}</span>
                    <button type="button" aria-label=name on:click=remove>"Remove"</button>
                </li>
            }
        });
        view! {
            <h3 class="keys-heading">"Keys saved on this page"</h3>
            <ul class="saved-keys">{rows.collect_view()}</ul>
        }
    })
}

/// The servers answering on this machine, their models to pick.
#[component]
fn FoundServers() -> impl IntoView {
    let page: Page = expect_context();
    // A found server can't be chosen while a flag or variable fixes the
    // provider or the address.
    let locked = move || page.fixed(Setting::Provider) || page.fixed(Setting::BaseUrl);
    view! {
        <section class="model-section" aria-labelledby="found-heading" data-testid="found"
            aria-busy=move || page.looking.get().to_string()>
            <div class="section-head">
                <h2 id="found-heading">"Servers on this machine"</h2>
                <button type="button" data-testid="look-again" disabled=move || page.looking.get()
                    on:click=move |_| page.load(false)>"Look again"</button>
            </div>
            <p class="muted">
                "Imprint looks on this machine only: Ollama (port 11434), llama.cpp (8080), "
                "LM Studio (1234), vLLM (8000) and the built-in model."
            </p>
            {move || match page.data.get().map(|d| d.found) {
                None => view! { <p class="muted">"Looking…"</p> }.into_any(),
                Some(found) if found.is_empty() => view! {
                    <p class="muted" data-testid="found-none">"No model server answered on this machine."</p>
                }.into_any(),
                Some(found) => view! {
                    <ul class="found-list">
                        {found.into_iter().map(|server| view! { <Found server locked=Signal::derive(locked)/> }).collect_view()}
                    </ul>
                }.into_any(),
            }}
        </section>
    }
}

#[component]
fn Found(server: FoundServer, locked: Signal<bool>) -> impl IntoView {
    let page: Page = expect_context();
    let group = format!("Models on {} at {}", server.server, server.base_url);
    let models = server.models.clone();
    let empty = models.is_empty();
    let buttons = models.into_iter().map(|model| {
        let (picked_server, pick_server) = (server.clone(), server.clone());
        let (picked_model, pick_model) = (model.clone(), model.clone());
        let pressed = move || {
            page.form
                .with(|f| f.is_picked(&picked_server, &picked_model))
                .to_string()
        };
        let pick = move |_| {
            page.form.update(|f| f.pick(&pick_server, &pick_model));
            page.test.set(None);
            page.say(format!("{pick_model} chosen: test it, then save it."));
        };
        view! {
            <button type="button" data-testid="found-model" aria-pressed=pressed
                disabled=move || locked.get() on:click=pick>{model}</button>
        }
    });
    view! {
        <li class="found-server" data-testid="found-server" data-base-url=server.base_url.clone()>
            <p class="found-name"><strong>{server.server.clone()}</strong>" "<span class="muted">{server.base_url.clone()}</span></p>
            {empty.then(|| view! { <p class="muted">"It lists no models yet."</p> })}
            <div class="found-models" role="group" aria-label=group>{buttons.collect_view()}</div>
        </li>
    }
}

/// The choice: provider, address, model, key and tool format; tested and
/// saved.
#[component]
fn ChooseModel() -> impl IntoView {
    let page: Page = expect_context();
    let refresh = use_context::<StatusRefresh>();
    let test = move |_| {
        let choice = page.form.get_untracked().choice();
        page.busy.set(true);
        page.test.set(None);
        page.say("Testing…".into());
        spawn_local(async move {
            let result = test_connection(choice).await;
            page.busy.try_set(false);
            match result {
                Ok(result) => {
                    if result.ok && !page.fixed(Setting::ToolFormat) {
                        page.form
                            .update(|f| f.tool_format = result.tool_format.clone());
                    }
                    page.say(String::new());
                    page.test.set(Some(result));
                }
                Err(e) => page.fail(e.message),
            }
        });
    };
    let save = move |ev: SubmitEvent| {
        ev.prevent_default();
        let choice = page.form.get_untracked().choice();
        page.busy.set(true);
        spawn_local(async move {
            let result = choose_connection(choice).await;
            page.busy.try_set(false);
            match result {
                Ok(current) => {
                    page.form.update(|f| f.api_key.clear());
                    page.say(format!(
                        "Saved. The next reply is written by {} ({}).",
                        current.model,
                        provider_label(&current.provider)
                    ));
                    if let Some(refresh) = refresh {
                        refresh.bump();
                    }
                    page.load(false);
                }
                Err(e) => page.fail(e.message),
            }
        });
    };
    view! {
        <section class="model-section" aria-labelledby="choose-heading">
            <h2 id="choose-heading">"Choose a model"</h2>
            <form class="model-form" data-testid="model-form" on:submit=save>
                <ProviderField/>
                <AddressField/>
                <ModelField/>
                <KeyField/>
                <ToolFormatField/>
                <div class="form-actions">
                    <button type="button" data-testid="test-connection" disabled=move || page.busy.get()
                        on:click=test>"Test"</button>
                    <button type="submit" class="primary" data-testid="save-connection"
                        disabled=move || page.busy.get()>"Save"</button>
                </div>
            </form>
            <div class="test-result" role="status" data-testid="test-result"
                data-ok=move || page.test.get().map(|t| t.ok.to_string())>
                {move || page.test.get().map(|t| test_summary(&t))}
            </div>
        </section>
    }
}

/// A field's note when a flag or the environment fixes it.
fn fixed_note(page: Page, setting: Setting, id: &'static str) -> impl IntoView {
    move || {
        page.current()
            .and_then(|c| setting.fixed_note(&c))
            .map(|note| view! { <p class="field-note" id=id>{note}</p> })
    }
}

#[component]
fn ProviderField() -> impl IntoView {
    let page: Page = expect_context();
    let change = move |ev| {
        let provider = event_target_value(&ev);
        let presets = page
            .data
            .with_untracked(|d| d.as_ref().map(|d| d.presets.clone()).unwrap_or_default());
        page.form.update(|f| f.choose_provider(&provider, &presets));
        page.test.set(None);
    };
    view! {
        <div class="field">
            <label for="model-provider">"Provider"</label>
            <select id="model-provider" data-testid="model-provider" on:change=change
                disabled=move || page.fixed(Setting::Provider)
                aria-describedby=move || page.fixed(Setting::Provider).then_some("model-provider-note")>
                {PROVIDERS.iter().map(|p| view! {
                    <option value=*p selected=move || page.form.with(|f| f.provider == *p)>{provider_label(p)}</option>
                }).collect_view()}
            </select>
            {fixed_note(page, Setting::Provider, "model-provider-note")}
        </div>
    }
}

#[component]
fn AddressField() -> impl IntoView {
    let page: Page = expect_context();
    let list = move |_| {
        let choice = page.form.get_untracked().choice();
        page.busy.set(true);
        spawn_local(async move {
            let result = list_models(choice).await;
            page.busy.try_set(false);
            match result {
                Ok(list) if list.ok => {
                    let count = list.models.len();
                    page.listed.set(list.models);
                    page.say(format!(
                        "{count} models at {}: pick one in the Model field.",
                        list.base_url
                    ));
                }
                Ok(list) => page.fail(list.error.unwrap_or_else(|| "No answer.".into())),
                Err(e) => page.fail(e.message),
            }
        });
    };
    view! {
        <div class="field">
            <label for="model-base-url">"Base URL"</label>
            <div class="with-button">
                <input id="model-base-url" type="text" inputmode="url" spellcheck="false" data-testid="model-base-url"
                    aria-describedby=move || page.fixed(Setting::BaseUrl).then_some("model-base-url-note")
                    disabled=move || page.fixed(Setting::BaseUrl)
                    prop:value=move || page.form.with(|f| f.base_url.clone())
                    on:input=move |ev| page.form.update(|f| f.base_url = event_target_value(&ev))/>
                <button type="button" data-testid="list-models" disabled=move || page.busy.get()
                    on:click=list>"List its models"</button>
            </div>
            {fixed_note(page, Setting::BaseUrl, "model-base-url-note")}
        </div>
    }
}

#[component]
fn ModelField() -> impl IntoView {
    let page: Page = expect_context();
    view! {
        <div class="field">
            <label for="model-name">"Model"</label>
            <input id="model-name" type="text" list="model-options" spellcheck="false" data-testid="model-name"
                aria-describedby=move || page.fixed(Setting::Model).then_some("model-name-note")
                disabled=move || page.fixed(Setting::Model)
                prop:value=move || page.form.with(|f| f.model.clone())
                on:input=move |ev| page.form.update(|f| f.model = event_target_value(&ev))/>
            <datalist id="model-options">
                {move || page.listed.get().into_iter().map(|m| view! { <option value=m/> }).collect_view()}
            </datalist>
            {fixed_note(page, Setting::Model, "model-name-note")}
        </div>
    }
}

#[component]
fn KeyField() -> impl IntoView {
    let page: Page = expect_context();
    let help = move || {
        let form = page.form.get();
        let data = page.data.get();
        let saved = data.as_ref().and_then(|d| form.saved_key(&d.keys).cloned());
        let current = data.as_ref().map(|d| d.current.clone());
        let same_server = current
            .as_ref()
            .is_some_and(|c| c.provider == form.provider && c.base_url == form.base_url);
        let from_env = current
            .as_ref()
            .and_then(|c| c.key.as_ref())
            .filter(|k| same_server && k.source.is_fixed());
        let remote = data.as_ref().is_some_and(|d| {
            d.presets
                .iter()
                .any(|p| p.provider == form.provider && p.remote)
        });
        match (from_env, saved) {
            (Some(k), _) => format!(
                "This server's key ({}) is {}; it can't be changed here.",
                k.masked,
                k.source.describe()
            ),
            (None, Some(k)) => format!(
                "A key is saved for this server ({}). Type a new one to replace it.",
                k.masked
            ),
            (None, None) if remote => {
                "Needed for this provider. It is kept on this machine and never shown again.".into()
            }
            (None, None) => "Servers on this machine usually need none.".into(),
        }
    };
    view! {
        <div class="field">
            <label for="model-key">"API key"</label>
            <input id="model-key" type="password" autocomplete="off" spellcheck="false" data-testid="model-key"
                aria-describedby="model-key-help"
                prop:value=move || page.form.with(|f| f.api_key.clone())
                on:input=move |ev| page.form.update(|f| f.api_key = event_target_value(&ev))/>
            <p class="field-note" id="model-key-help">{help}</p>
        </div>
    }
}

#[component]
fn ToolFormatField() -> impl IntoView {
    let page: Page = expect_context();
    let change = move |ev| {
        page.form
            .update(|f| f.tool_format = event_target_value(&ev))
    };
    view! {
        <div class="field">
            <label for="model-tool-format">"Tool format"</label>
            <select id="model-tool-format" data-testid="model-tool-format" on:change=change
                disabled=move || page.fixed(Setting::ToolFormat) aria-describedby="model-tool-format-note">
                <option value="" selected=move || page.form.with(|f| f.tool_format.is_empty())>"The provider's own"</option>
                {TOOL_FORMATS.iter().map(|t| view! {
                    <option value=*t selected=move || page.form.with(|f| f.tool_format == *t)>{*t}</option>
                }).collect_view()}
            </select>
            {move || match page.current().and_then(|c| Setting::ToolFormat.fixed_note(&c)) {
                Some(note) => view! { <p class="field-note" id="model-tool-format-note">{note}</p> }.into_any(),
                None => view! {
                    <p class="field-note" id="model-tool-format-note">
                        "How the model writes tool calls. A test sets it; change it if you know better."
                    </p>
                }.into_any(),
            }}
        </div>
    }
}
