//! The Memories page (`/memories`): what Imprint keeps, to browse, search,
//! correct and export. Memories are listed newest first in pages, searched
//! with the `search` tool's ranking, filtered by project, added, edited in
//! place, deleted with a 10-second undo; projects are renamed or merged;
//! JSON Lines go out and come in. Reminders are the page's second tab
//! (`reminders.rs`). A link from a chat (`?memory=7`, `?reminder=7`) shows
//! that row.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::reminders::RemindersView;
use crate::api::{
    create_memory, delete_memory, get_meaning_status, get_memory, list_memories, list_projects,
    move_project, update_memory,
};
use crate::io::dashboard_events::DashboardEvents;
use crate::logic::records::{
    day, focus, meaning_line, parse_tags, project_field, tags_text, Deleted, Focus, MemoryList,
    UNDO_MS,
};
use crate::protocol::{
    Memory, MemoryInput, MemoryListQuery, MemoryPatch, ProjectInfo, ProjectMove,
};

#[component]
pub fn MemoriesPage() -> impl IntoView {
    let focus = focus(&window().location().search().unwrap_or_default());
    // The Reminders tab is shown, else the Memories tab.
    let reminders = RwSignal::new(matches!(focus, Some(Focus::Reminder(_))));
    let tab_button = move |which: bool, label: &'static str, testid: &'static str| {
        view! {
            <button role="tab" data-testid=testid aria-selected=move || (reminders.get() == which).to_string()
                on:click=move |_| reminders.set(which)>{label}</button>
        }
    };
    view! {
        <section class="memories-page" data-testid="memories-page">
            <div class="tabs" role="tablist" aria-label="What Imprint keeps">
                {tab_button(false, "Memories", "memories-tab")}
                {tab_button(true, "Reminders", "reminders-tab")}
            </div>
            {move || if reminders.get() {
                let shown = match focus {
                    Some(Focus::Reminder(id)) => Some(id),
                    _ => None,
                };
                view! { <RemindersView focus=shown/> }.into_any()
            } else {
                let only = match focus {
                    Some(Focus::Memory(id)) => Some(id),
                    _ => None,
                };
                view! { <MemoryBrowser only=only/> }.into_any()
            }}
        </section>
    }
}

/// What the browser shares with its parts.
#[derive(Clone, Copy)]
struct Browser {
    list: RwSignal<MemoryList>,
    projects: RwSignal<Vec<ProjectInfo>>,
    error: RwSignal<Option<String>>,
    note: RwSignal<Option<String>>,
    undo: RwSignal<Option<Deleted>>,
    /// Bumped to load the first page again.
    reload: RwSignal<u64>,
}

impl Browser {
    fn error(&self, text: String) {
        self.note.set(None);
        self.error.set(Some(text));
    }
    fn note(&self, text: String) {
        self.error.set(None);
        self.note.set(Some(text));
    }
    fn clear(&self) {
        self.error.set(None);
        self.note.set(None);
    }
    fn refresh_projects(&self) {
        let projects = self.projects;
        spawn_local(async move {
            if let Ok(list) = list_projects().await {
                projects.try_set(list.projects);
            }
        });
    }
}

#[component]
fn MemoryBrowser(only: Option<i64>) -> impl IntoView {
    let browser = Browser {
        list: RwSignal::new(MemoryList::default()),
        projects: RwSignal::new(Vec::new()),
        error: RwSignal::new(None),
        note: RwSignal::new(None),
        undo: RwSignal::new(None),
        reload: RwSignal::new(0),
    };
    provide_context(browser);
    let query = RwSignal::new(String::new());
    let project = RwSignal::new(String::new());
    let only = RwSignal::new(only);
    let loading = RwSignal::new(false);
    // The latest request wins: a slow answer to an older query is dropped.
    let latest = StoredValue::new(0u64);
    let load = move |first: bool| {
        let request = latest.get_value() + 1;
        latest.set_value(request);
        let cursor = if first {
            None
        } else {
            browser.list.with_untracked(|l| l.next_cursor.clone())
        };
        let ask = MemoryListQuery {
            q: Some(query.get_untracked()).filter(|q| !q.trim().is_empty()),
            project: project_field(&project.get_untracked()),
            cursor,
            limit: None,
        };
        loading.set(true);
        spawn_local(async move {
            let result = list_memories(ask).await;
            if latest.try_get_value() != Some(request) {
                return;
            }
            loading.try_set(false);
            match result {
                Ok(page) if first => browser.list.update(|l| l.replace(page)),
                Ok(page) => browser.list.update(|l| l.append(page)),
                Err(e) => browser.error(e.message),
            }
        });
    };
    Effect::new(move |_| {
        query.track();
        project.track();
        browser.reload.track();
        match only.get() {
            None => load(true),
            Some(id) => spawn_local(async move {
                match get_memory(id).await {
                    Ok(memory) => browser.list.update(|l| {
                        l.items = vec![memory];
                        l.next_cursor = None;
                    }),
                    Err(e) => browser.error(e.message),
                }
            }),
        }
    });
    browser.refresh_projects();
    view! {
        <div class="memory-browser">
            <div class="memory-toolbar">
                <input type="search" class="memory-search" placeholder="Search memories" aria-label="Search memories"
                    data-testid="memory-search"
                    prop:value=move || query.get()
                    on:input=move |ev| { only.set(None); query.set(event_target_value(&ev)); }/>
                <select aria-label="Project" data-testid="project-filter"
                    on:change=move |ev| { only.set(None); project.set(event_target_value(&ev)); }>
                    <option value="">"All projects"</option>
                    {move || browser.projects.get().into_iter().map(|p| {
                        let name = p.name.clone();
                        let selected = project.get() == name;
                        view! { <option value=name.clone() selected=selected>{format!("{} ({})", p.name, p.count)}</option> }
                    }).collect_view()}
                </select>
                <a class="button" href="/api/memories/export" download="imprint-memories.jsonl" data-testid="export">"Export"</a>
                <ImportButton/>
            </div>
            <MeaningLine/>
            {move || browser.error.get().map(|text| view! {
                <p class="error" role="alert" data-testid="memories-message">{text}</p>
            })}
            {move || browser.note.get().map(|text| view! {
                <p class="note" role="status" data-testid="memories-message">{text}</p>
            })}
            {move || only.get().map(|id| view! {
                <p class="note">{format!("Showing memory #{id} from a chat. ")}
                    <button class="link" on:click=move |_| only.set(None)>"Show all memories"</button></p>
            })}
            <AddMemory/>
            <ProjectMover/>
            <UndoBar/>
            <ul class="memory-list" data-testid="memory-list">
                // Redrawn whole when the list changes: a page is short.
                {move || browser.list.get().items.into_iter().map(|memory| view! {
                    <MemoryRow memory=memory/>
                }).collect_view()}
            </ul>
            {move || (!loading.get() && browser.list.with(|l| l.items.is_empty())).then(|| view! {
                <p class="muted" data-testid="no-memories">"No memories here."</p>
            })}
            {move || browser.list.with(|l| l.next_cursor.is_some()).then(|| view! {
                <button data-testid="load-more" disabled=move || loading.get() on:click=move |_| load(false)>"Load more"</button>
            })}
        </div>
    }
}

/// How search finds memories: by meaning and words, the filling in of the
/// memories kept before (live, from the dashboard's events), or words only
/// and why.
#[component]
fn MeaningLine() -> impl IntoView {
    let loaded = LocalResource::new(get_meaning_status);
    let events: Option<DashboardEvents> = use_context();
    let line = move || {
        let status = loaded.get()?.ok()?;
        let latest = events.and_then(|e| e.meaning.get());
        let (state, embedded, total) =
            latest.unwrap_or((status.state, status.embedded, status.total));
        meaning_line(state, embedded, total, status.reason.as_deref())
    };
    view! {
        <Transition fallback=|| ()>
            {move || line().map(|text| view! {
                <p class="muted" role="status" data-testid="meaning-status">{text}</p>
            })}
        </Transition>
    }
}

#[component]
fn AddMemory() -> impl IntoView {
    let browser: Browser = expect_context();
    let content = RwSignal::new(String::new());
    let project = RwSignal::new(String::new());
    let tags = RwSignal::new(String::new());
    let add = Callback::new(move |()| {
        let input = MemoryInput {
            content: content.get_untracked(),
            project: project_field(&project.get_untracked()),
            tags: parse_tags(&tags.get_untracked()),
            id: None,
            created_at: None,
        };
        spawn_local(async move {
            match create_memory(input).await {
                Ok(memory) => {
                    browser.list.update(|l| l.add(memory));
                    content.set(String::new());
                    browser.clear();
                    browser.refresh_projects();
                }
                Err(e) => browser.error(e.message),
            }
        });
    });
    view! {
        <MemoryForm content project tags prefix="new" action="Add" on_save=add on_cancel=None/>
    }
}

/// A memory's fields (content, project, tags) as a form: adding one, or
/// editing one in place.
#[component]
fn MemoryForm(
    content: RwSignal<String>,
    project: RwSignal<String>,
    tags: RwSignal<String>,
    /// Names the fields' test ids: `{prefix}-content`, `-project`, `-tags`.
    prefix: &'static str,
    action: &'static str,
    on_save: Callback<()>,
    on_cancel: Option<Callback<()>>,
) -> impl IntoView {
    let field = move |signal: RwSignal<String>, label: &'static str, name: &'static str| {
        view! {
            <input type="text" placeholder=label aria-label=label data-testid=format!("{prefix}-{name}")
                prop:value=move || signal.get() on:input=move |ev| signal.set(event_target_value(&ev))/>
        }
    };
    view! {
        <form class="memory-form" data-testid=format!("{prefix}-memory")
            on:submit=move |ev| { ev.prevent_default(); on_save.run(()); }>
            <textarea rows="2" placeholder="Something to remember" aria-label="Memory" data-testid=format!("{prefix}-content")
                prop:value=move || content.get() on:input=move |ev| content.set(event_target_value(&ev))></textarea>
            {field(project, "Project", "project")}
            {field(tags, "Tags, comma-separated", "tags")}
            <button type="submit" class="primary" data-testid=format!("save-{prefix}")>{action}</button>
            {on_cancel.map(|cancel| view! {
                <button type="button" on:click=move |_| cancel.run(())>"Cancel"</button>
            })}
        </form>
    }
}

/// One memory: shown, or edited in place.
#[component]
fn MemoryRow(memory: Memory) -> impl IntoView {
    let browser: Browser = expect_context();
    let editing = RwSignal::new(false);
    let id = memory.id;
    let content = RwSignal::new(memory.content.clone());
    let project = RwSignal::new(memory.project.clone().unwrap_or_default());
    let tags = RwSignal::new(tags_text(&memory.tags));
    let save = Callback::new(move |()| {
        let patch = MemoryPatch {
            content: Some(content.get_untracked()),
            project: Some(project_field(&project.get_untracked())),
            tags: Some(parse_tags(&tags.get_untracked())),
        };
        spawn_local(async move {
            match update_memory(id, patch).await {
                Ok(memory) => {
                    browser.list.update(|l| l.update(memory));
                    browser.clear();
                    browser.refresh_projects();
                }
                Err(e) => browser.error(e.message),
            }
        });
    });
    let remove = move |_| {
        spawn_local(async move {
            match delete_memory(id).await {
                Ok(_) => {
                    let Some(deleted) = browser.list.try_update(|l| l.remove(id)).flatten() else {
                        return;
                    };
                    browser.undo.set(Some(deleted));
                    browser.refresh_projects();
                    // The undo is offered for UNDO_MS, then this one is gone.
                    set_timeout(
                        move || {
                            if browser
                                .undo
                                .try_with_untracked(|u| u.as_ref().map(|d| d.memory.id))
                                == Some(Some(id))
                            {
                                browser.undo.try_set(None);
                            }
                        },
                        std::time::Duration::from_millis(UNDO_MS.into()),
                    );
                }
                Err(e) => browser.error(e.message),
            }
        });
    };
    let shown = memory.clone();
    view! {
        <li class="memory-row" data-testid="memory-row" data-memory-id=id>
            {move || if editing.get() {
                view! {
                    <MemoryForm content project tags prefix="edit" action="Save" on_save=save
                        on_cancel=Some(Callback::new(move |()| editing.set(false)))/>
                }.into_any()
            } else {
                let m = shown.clone();
                view! {
                    <p class="memory-content" data-testid="memory-content">{m.content.clone()}</p>
                    <p class="memory-meta">
                        {m.project.clone().map(|p| view! { <span class="memory-project" data-testid="memory-project">{p}</span> })}
                        {m.tags.iter().map(|t| view! { <span class="tag">{t.clone()}</span> }).collect_view()}
                        <time datetime=m.created_at.clone()>{day(&m.created_at).to_string()}</time>
                    </p>
                    <div class="row-actions">
                        <button data-testid="edit-memory" on:click=move |_| editing.set(true)>"Edit"</button>
                        <button data-testid="delete-memory" on:click=remove>"Delete"</button>
                    </div>
                }.into_any()
            }}
        </li>
    }
}

/// "Memory deleted. Undo", for ten seconds after a delete.
#[component]
fn UndoBar() -> impl IntoView {
    let browser: Browser = expect_context();
    let undo = move |_| {
        let Some(deleted) = browser.undo.get_untracked() else {
            return;
        };
        browser.undo.set(None);
        let m = deleted.memory.clone();
        let input = MemoryInput {
            content: m.content,
            project: m.project,
            tags: m.tags,
            id: Some(m.id),
            created_at: Some(m.created_at),
        };
        spawn_local(async move {
            match create_memory(input).await {
                Ok(memory) => {
                    browser.list.update(|l| {
                        l.put_back(Deleted {
                            memory,
                            index: deleted.index,
                        })
                    });
                    browser.refresh_projects();
                }
                Err(e) => browser.error(e.message),
            }
        });
    };
    move || {
        browser.undo.get().map(|deleted| {
            view! {
                <div class="undo-bar" role="status" data-testid="undo-bar">
                    <span>{format!("Deleted “{}”.", deleted.memory.content)}</span>
                    <button class="primary" data-testid="undo" on:click=undo>"Undo"</button>
                </div>
            }
        })
    }
}

/// Renames a project, or merges it into another.
#[component]
fn ProjectMover() -> impl IntoView {
    let browser: Browser = expect_context();
    let from = RwSignal::new(String::new());
    let to = RwSignal::new(String::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let change = ProjectMove {
            from: from.get_untracked(),
            to: to.get_untracked(),
        };
        spawn_local(async move {
            match move_project(change.clone()).await {
                Ok(moved) => {
                    let what = if moved.moved == 1 {
                        "memory"
                    } else {
                        "memories"
                    };
                    browser.note(format!(
                        "Moved {} {what} from {} to {}.",
                        moved.moved, change.from, change.to
                    ));
                    to.set(String::new());
                    browser.refresh_projects();
                    browser.reload.update(|n| *n += 1);
                }
                Err(e) => browser.error(e.message),
            }
        });
    };
    view! {
        <details class="project-mover">
            <summary>"Rename or merge a project"</summary>
            <form on:submit=submit data-testid="move-project">
                <select aria-label="Project to move" data-testid="move-from"
                    on:change=move |ev| from.set(event_target_value(&ev))>
                    <option value="">"Project…"</option>
                    {move || browser.projects.get().into_iter().map(|p| view! {
                        <option value=p.name.clone()>{p.name.clone()}</option>
                    }).collect_view()}
                </select>
                <input type="text" placeholder="New name, or a project to merge into" aria-label="New project name"
                    data-testid="move-to" prop:value=move || to.get() on:input=move |ev| to.set(event_target_value(&ev))/>
                <button type="submit">"Move"</button>
            </form>
        </details>
    }
}

/// Import of a JSON Lines file: all of it, or nothing and the bad line
/// named. The file goes as it is (the browser streams it, up to 64 MiB),
/// with its progress shown.
#[component]
fn ImportButton() -> impl IntoView {
    let browser: Browser = expect_context();
    // While an import runs: the share of the file sent, in percent.
    let progress = RwSignal::new(None::<u32>);
    let on_change = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        input.set_value("");
        progress.set(Some(0));
        spawn_local(async move {
            let result = import_file(file, progress).await;
            progress.try_set(None);
            match result {
                Ok(count) => {
                    let what = if count == 1 { "memory" } else { "memories" };
                    browser.note(format!("Imported {count} {what}."));
                    browser.refresh_projects();
                    browser.reload.update(|n| *n += 1);
                }
                Err(message) => browser.error(message),
            }
        });
    };
    view! {
        <label class="button import" class:busy=move || progress.get().is_some()>
            "Import"
            <input type="file" accept=".jsonl,.json,.txt,application/jsonl" class="visually-hidden"
                data-testid="import-file" on:change=on_change
                prop:disabled=move || progress.get().is_some()/>
        </label>
        {move || progress.get().map(|sent| {
            let label = if sent < 100 {
                format!("Sending the file: {sent}%")
            } else {
                "Importing…".to_string()
            };
            view! {
                <span class="import-progress" role="status" data-testid="import-progress">
                    <progress max="100" value=sent.to_string() aria-label="Import"></progress>
                    " " {label}
                </span>
            }
        })}
    }
}

/// Sends a file to `POST /api/memories/import` as it is (JSON Lines is not
/// a server function's argument), reporting the share sent in `progress`,
/// and reads `{imported}` or `{error}`. XMLHttpRequest, because fetch
/// reports no upload progress.
async fn import_file(file: web_sys::File, progress: RwSignal<Option<u32>>) -> Result<u64, String> {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let failed = |_| "The file could not be sent.".to_string();
    let request = web_sys::XmlHttpRequest::new().map_err(failed)?;
    request
        .open("POST", "/api/memories/import")
        .map_err(failed)?;
    request
        .set_request_header("content-type", "application/jsonl")
        .map_err(failed)?;
    let on_progress =
        Closure::<dyn FnMut(web_sys::ProgressEvent)>::new(move |ev: web_sys::ProgressEvent| {
            if ev.length_computable() && ev.total() > 0.0 {
                let sent = (ev.loaded() / ev.total() * 100.0).clamp(0.0, 100.0) as u32;
                progress.try_set(Some(sent));
            }
        });
    if let Ok(upload) = request.upload() {
        upload.set_onprogress(Some(on_progress.as_ref().unchecked_ref()));
    }
    let (ended_tx, ended) = futures::channel::oneshot::channel::<()>();
    let ended_tx = std::cell::Cell::new(Some(ended_tx));
    let on_end = Closure::<dyn FnMut()>::new(move || {
        if let Some(tx) = ended_tx.take() {
            let _ = tx.send(());
        }
    });
    request.set_onloadend(Some(on_end.as_ref().unchecked_ref()));
    request.send_with_opt_blob(Some(&file)).map_err(failed)?;
    let _ = ended.await;
    drop((on_progress, on_end));
    let status = request.status().unwrap_or(0);
    if status == 0 {
        return Err("The file could not be sent: the connection failed.".to_string());
    }
    let text = request.response_text().ok().flatten().unwrap_or_default();
    // Read as bytes, like the event streams and server functions: one JSON
    // reader (serde_json's slice reader) compiled into the Wasm, not two.
    let body: serde_json::Value =
        serde_json::from_slice(text.as_bytes()).map_err(|e| e.to_string())?;
    match body.get("imported").and_then(serde_json::Value::as_u64) {
        Some(count) if (200..300).contains(&status) => Ok(count),
        _ => Err(body
            .get("error")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("The import failed.")
            .to_string()),
    }
}
