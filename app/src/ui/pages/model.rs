//! The Model page (`/model`, the header's model status links here): the
//! model in use and where each setting came from; the model servers found
//! on this machine; a choice (a found model, an address typed by hand, or
//! a remote provider with its key) tested and saved. A saved model writes
//! the next reply; replies already running finish on theirs.

use crate::ui::calls::{action, resource, Act, Res};
use crate::ui::flow::Transition;
use crate::ui::handler::handler;
use leptos::ev::SubmitEvent;
use leptos::prelude::*;

use crate::api::{
    choose_connection, forget_key, get_connections, list_models, test_connection, ApiError,
};
use crate::logic::connections::{provider_label, test_summary, ModelForm, Setting};
use crate::protocol::{
    ConnectionChoice, Connections, CurrentConnection, FoundServer, KeyRef, SettingSource,
    StoredKey, TestResult, PROVIDERS, TOOL_FORMATS,
};
use crate::ui::shell::HeaderStatus;

/// What the page's parts share: what it read, the choice as typed, and
/// what it does (test, save, list a server's models, remove a key), each
/// an action.
#[derive(Clone, Copy)]
struct Page {
    /// `GET /api/connections` (the model in use, the servers found, the
    /// saved keys): read when the page opens, on "Look again", and after
    /// a save or a key removed.
    data: Res<Result<Connections, ApiError>>,
    /// Probing the loopback ports: a read is under way.
    looking: RwSignal<bool>,
    /// The choice as changed on the page; until then, the model in use.
    edited: RwSignal<Option<ModelForm>>,
    test: Act<ConnectionChoice, Option<TestResult>>,
    save: Act<ConnectionChoice, ()>,
    /// The models a typed address listed, offered in the model field.
    list: Act<ConnectionChoice, Option<Vec<String>>>,
    forget: Act<KeyRef, ()>,
    /// A test, a save or a listing is under way.
    busy: Memo<bool>,
    say: Messages,
}

/// The page's message line: a note, or an error (one replaces the other).
#[derive(Clone, Copy)]
struct Messages {
    note: RwSignal<String>,
    error: RwSignal<Option<String>>,
}

impl Messages {
    fn note(self, text: String) {
        self.error.set(None);
        self.note.set(text);
    }

    fn error(self, text: String) {
        self.note.set(String::new());
        self.error.set(Some(text));
    }
}

impl Page {
    fn new() -> Self {
        let say = Messages {
            note: RwSignal::new(String::new()),
            error: RwSignal::new(None),
        };
        let edited = RwSignal::new(None::<ModelForm>);
        let forget = action(move |key: &KeyRef| {
            let key = key.clone();
            async move {
                match forget_key(key).await {
                    Ok(()) => say.note("Key removed.".into()),
                    Err(e) => say.error(e.message),
                }
            }
        });
        let header = use_context::<HeaderStatus>();
        let save = action(move |choice: &ConnectionChoice| {
            let choice = choice.clone();
            async move {
                match choose_connection(choice).await {
                    Ok(current) => {
                        edited.update(|form| {
                            if let Some(form) = form {
                                form.api_key.clear();
                            }
                        });
                        say.note(format!(
                            "Saved. The next reply is written by {} ({}).",
                            current.model,
                            provider_label(&current.provider)
                        ));
                        // The header's status says the new model.
                        if let Some(header) = header {
                            header.0.refetch();
                        }
                    }
                    Err(e) => say.error(e.message),
                }
            }
        });
        let data = resource(move || {
            save.version().track();
            forget.version().track();
            get_connections()
        });
        let test = action(move |choice: &ConnectionChoice| {
            let choice = choice.clone();
            async move {
                match test_connection(choice).await {
                    Ok(result) => {
                        // A test that passed finds the tool format.
                        if result.ok && !untrack(|| fixed(data, Setting::ToolFormat)) {
                            let format = result.tool_format.clone();
                            edit(data, edited, |f| f.tool_format = format);
                        }
                        say.note(String::new());
                        Some(result)
                    }
                    Err(e) => {
                        say.error(e.message);
                        None
                    }
                }
            }
        });
        let list = action(move |choice: &ConnectionChoice| {
            let choice = choice.clone();
            async move {
                match list_models(choice).await {
                    Ok(list) if list.ok => {
                        let count = list.models.len();
                        say.note(format!(
                            "{count} models at {}: pick one in the Model field.",
                            list.base_url
                        ));
                        Some(list.models)
                    }
                    Ok(list) => {
                        say.error(list.error.unwrap_or_else(|| "No answer.".into()));
                        None
                    }
                    Err(e) => {
                        say.error(e.message);
                        None
                    }
                }
            }
        });
        let under_way = [test.pending(), save.pending(), list.pending()];
        Self {
            data,
            looking: RwSignal::new(false),
            edited,
            test,
            save,
            list,
            forget,
            busy: Memo::new(move |_| under_way.iter().any(|pending| pending.get())),
            say,
        }
    }

    /// The connections read (tracked), once read.
    fn connections(self) -> Option<Connections> {
        self.data.get().and_then(Result::ok)
    }

    fn current(self) -> Option<CurrentConnection> {
        self.data
            .with(|d| Some(d.as_ref()?.as_ref().ok()?.current.clone()))
    }

    /// Whether a flag or the environment fixes `setting`.
    fn fixed(self, setting: Setting) -> bool {
        fixed(self.data, setting)
    }

    /// The form (tracked): as changed on the page, else the model in use.
    fn form<T>(self, read: impl FnOnce(&ModelForm) -> T) -> T {
        self.edited.with(|edited| match edited {
            Some(form) => read(form),
            None => read(&in_use(self.data)),
        })
    }

    fn edit(self, change: impl FnOnce(&mut ModelForm)) {
        edit(self.data, self.edited, change);
    }

    /// The choice the form makes now.
    fn choice(self) -> ConnectionChoice {
        untrack(|| self.form(ModelForm::choice))
    }

    /// What the last test found, unless the choice changed since.
    fn tested(self) -> Option<TestResult> {
        self.test.value().get().flatten()
    }

    /// The models the last listing found.
    fn listed(self) -> Vec<String> {
        self.list.value().get().flatten().unwrap_or_default()
    }

    /// The choice changed: the last test says nothing of it.
    fn untested(self) {
        self.test.clear();
    }
}

/// Whether a flag or the environment fixes `setting` (tracked).
fn fixed(data: Res<Result<Connections, ApiError>>, setting: Setting) -> bool {
    data.with(|d| matches!(d, Some(Ok(d)) if setting.fixed(&d.current)))
}

/// The form for the model in use (the default before it is read).
fn in_use(data: Res<Result<Connections, ApiError>>) -> ModelForm {
    data.with(|d| match d {
        Some(Ok(d)) => ModelForm::from_current(&d.current),
        _ => ModelForm::default(),
    })
}

/// Changes the form; the first change starts from the model in use.
fn edit(
    data: Res<Result<Connections, ApiError>>,
    edited: RwSignal<Option<ModelForm>>,
    change: impl FnOnce(&mut ModelForm),
) {
    let mut form = edited
        .get_untracked()
        .unwrap_or_else(|| untrack(|| in_use(data)));
    change(&mut form);
    edited.set(Some(form));
}

#[component]
pub fn ModelPage() -> impl IntoView {
    let page = Page::new();
    provide_context(page);
    // A read that failed says so, as a change that failed does.
    let error = move || {
        page.say.error.get().or_else(|| match page.data.get() {
            Some(Err(e)) => Some(e.message),
            _ => None,
        })
    };
    view! {
        <section class="model-page" data-testid="model-page" aria-labelledby="model-heading">
            <h1 id="model-heading">"Model"</h1>
            <p class="muted">
                "The model that writes Imprint's replies. A model saved here writes the next reply; "
                "replies already running finish on theirs."
            </p>
            {move || error().map(|text| view! {
                <p class="error" role="alert" data-testid="model-error">{text}</p>
            })}
            <p class="note" role="status" data-testid="model-message">{move || page.say.note.get()}</p>
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
            <dd data-testid=testid data-source=source.attribute()>
                <span class="setting-value">{value}</span>
                <span class="setting-source">{format!(" ({})", source.describe())}</span>
            </dd>
        }
    };
    view! {
        <section class="model-section" aria-labelledby="in-use-heading" data-testid="in-use">
            <h2 id="in-use-heading">"In use"</h2>
            <Transition fallback=reading_in_use>
            {move || match page.connections() {
                None => reading_in_use().into_any(),
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
            </Transition>
        </section>
    }
}

fn reading_in_use() -> impl IntoView {
    view! { <p class="muted">"Reading the model in use…"</p> }
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
                page.forget.dispatch(which.clone());
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
                    on:click={handler(move |_| page.data.refetch())}>"Look again"</button>
            </div>
            <p class="muted">
                "Imprint looks on this machine only: Ollama (port 11434), llama.cpp (8080), "
                "LM Studio (1234), vLLM (8000) and the built-in model."
            </p>
            <Transition fallback=looking set_pending=page.looking>
            {move || match page.connections().map(|d| d.found) {
                None => looking().into_any(),
                Some(found) if found.is_empty() => view! {
                    <p class="muted" data-testid="found-none">"No model server answered on this machine."</p>
                }.into_any(),
                Some(found) => view! {
                    <ul class="found-list">
                        {found.into_iter().map(|server| view! { <Found server locked=Signal::derive(locked)/> }).collect_view()}
                    </ul>
                }.into_any(),
            }}
            </Transition>
        </section>
    }
}

fn looking() -> impl IntoView {
    view! { <p class="muted">"Looking…"</p> }
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
            page.form(|f| f.is_picked(&picked_server, &picked_model))
                .to_string()
        };
        let pick = move |_| {
            page.edit(|f| f.pick(&pick_server, &pick_model));
            page.untested();
            page.say
                .note(format!("{pick_model} chosen: test it, then save it."));
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
    let test = move |_| {
        page.untested();
        page.say.note("Testing…".into());
        page.test.dispatch(page.choice());
    };
    let save = move |ev: SubmitEvent| {
        ev.prevent_default();
        page.save.dispatch(page.choice());
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
                data-ok=move || page.tested().map(|t| t.ok.to_string())>
                {move || page.tested().map(|t| test_summary(&t))}
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
        let presets = untrack(|| page.connections().map(|d| d.presets).unwrap_or_default());
        page.edit(|f| f.choose_provider(&provider, &presets));
        page.untested();
    };
    view! {
        <div class="field">
            <label for="model-provider">"Provider"</label>
            <select id="model-provider" data-testid="model-provider" on:change=change
                disabled=move || page.fixed(Setting::Provider)
                aria-describedby=move || page.fixed(Setting::Provider).then_some("model-provider-note")>
                {PROVIDERS.iter().map(|p| view! {
                    <option value=*p selected=move || page.form(|f| f.provider == *p)>{provider_label(p)}</option>
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
        page.list.dispatch(page.choice());
    };
    view! {
        <div class="field">
            <label for="model-base-url">"Base URL"</label>
            <div class="with-button">
                <input id="model-base-url" type="text" inputmode="url" spellcheck="false" data-testid="model-base-url"
                    aria-describedby=move || page.fixed(Setting::BaseUrl).then_some("model-base-url-note")
                    disabled=move || page.fixed(Setting::BaseUrl)
                    prop:value=move || page.form(|f| f.base_url.clone())
                    on:input={handler(move |ev: leptos::ev::Event| page.edit(|f| f.base_url = event_target_value(&ev)))}/>
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
                prop:value=move || page.form(|f| f.model.clone())
                on:input={handler(move |ev: leptos::ev::Event| page.edit(|f| f.model = event_target_value(&ev)))}/>
            <datalist id="model-options">
                {move || page.listed().into_iter().map(|m| view! { <option value=m/> }).collect_view()}
            </datalist>
            {fixed_note(page, Setting::Model, "model-name-note")}
        </div>
    }
}

#[component]
fn KeyField() -> impl IntoView {
    let page: Page = expect_context();
    let help = move || {
        let form = page.form(ModelForm::clone);
        let data = page.connections();
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
                prop:value=move || page.form(|f| f.api_key.clone())
                on:input={handler(move |ev: leptos::ev::Event| page.edit(|f| f.api_key = event_target_value(&ev)))}/>
            <p class="field-note" id="model-key-help">{help}</p>
        </div>
    }
}

#[component]
fn ToolFormatField() -> impl IntoView {
    let page: Page = expect_context();
    let change = move |ev| page.edit(|f| f.tool_format = event_target_value(&ev));
    view! {
        <div class="field">
            <label for="model-tool-format">"Tool format"</label>
            <select id="model-tool-format" data-testid="model-tool-format" on:change=change
                disabled=move || page.fixed(Setting::ToolFormat) aria-describedby="model-tool-format-note">
                <option value="" selected=move || page.form(|f| f.tool_format.is_empty())>"The provider's own"</option>
                {TOOL_FORMATS.iter().map(|t| view! {
                    <option value=*t selected=move || page.form(|f| f.tool_format == *t)>{*t}</option>
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
