//! The Memories page (`/memories`): what Imprint keeps, to browse, search,
//! correct and export. Memories are listed newest first in pages, searched
//! with the `search` tool's ranking, filtered by project, added, edited in
//! place, deleted with a 10-second undo; projects are renamed or merged;
//! JSON Lines go out and come in. Reminders are the page's second tab
//! (`reminders.rs`). A link from a chat (`?memory=7`, `?reminder=7`) shows
//! that row.
//!
//! What is shown is read by resources (the list, the projects, how search
//! finds memories); what the page changes, it changes through actions, and
//! the projects are read again after each.

use crate::ui::calls::{action, resource, Act, Res};
use crate::ui::flow::Transition;
use crate::ui::handler::handler;
use leptos::prelude::*;

use super::reminders::RemindersView;
use crate::api::{
    create_memory, delete_memory, get_meaning_status, get_memory, list_memories, list_projects,
    move_project, update_memory, ApiError,
};
use crate::io::dashboard_events::DashboardEvents;
use crate::logic::records::{
    count_memories, day, focus, meaning_line, parse_tags, project_field, tags_text, Deleted, Focus,
    MemoryList, UNDO_MS,
};
use crate::protocol::{
    Memory, MemoryInput, MemoryListQuery, MemoryPatch, ProjectInfo, ProjectList, ProjectMove,
};

#[component]
pub fn MemoriesPage() -> impl IntoView {
    let focus = focus(&window().location().search().unwrap_or_default());
    // The Reminders tab is shown, else the Memories tab.
    let reminders = RwSignal::new(matches!(focus, Some(Focus::Reminder(_))));
    let tab_button = move |which: bool, label: &'static str, testid: &'static str| {
        view! {
            <button role="tab" data-testid=testid aria-selected=move || (reminders.get() == which).to_string()
                on:click={handler(move |_| reminders.set(which))}>{label}</button>
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

/// A read of the list: its own list, which the page then changes in place
/// (a page more, an add, an edit, a delete). A newer read replaces it
/// whole, and a change to the older one goes with it.
type Read = Result<ArcRwSignal<MemoryList>, ApiError>;

/// What the browser shares with its parts: what it shows, and the changes
/// it makes.
#[derive(Clone, Copy)]
struct Browser {
    query: RwSignal<String>,
    project: RwSignal<String>,
    /// The memory a link asked for, shown alone.
    only: RwSignal<Option<i64>>,
    shown: Res<Read>,
    projects: Res<Result<ProjectList, ApiError>>,
    say: Messages,
    undo: RwSignal<Option<Deleted>>,
    /// The new memory's text, cleared once it is added.
    draft: RwSignal<String>,
    /// The project a project is moved to, cleared once it is.
    move_to: RwSignal<String>,
    /// While an import runs: the share of the file sent, in percent.
    progress: RwSignal<Option<u32>>,
    changes: Changes,
}

/// The changes the page makes, each an action.
#[derive(Clone, Copy)]
struct Changes {
    add: Act<MemoryInput, ()>,
    edit: Act<(i64, MemoryPatch), ()>,
    delete: Act<i64, ()>,
    put_back: Act<Deleted, ()>,
    move_project: Act<ProjectMove, ()>,
    import: Act<web_sys::File, ()>,
    /// The next page of a read, appended to it.
    more: Act<(ArcRwSignal<MemoryList>, MemoryListQuery), ()>,
}

/// The page's messages: an error, or a note (one replaces the other).
#[derive(Clone, Copy)]
struct Messages {
    error: RwSignal<Option<String>>,
    note: RwSignal<Option<String>>,
}

impl Messages {
    fn error(self, text: String) {
        self.note.set(None);
        self.error.set(Some(text));
    }
    fn note(self, text: String) {
        self.error.set(None);
        self.note.set(Some(text));
    }
    fn clear(self) {
        self.error.set(None);
        self.note.set(None);
    }
}

/// The list shown now, to change in place.
fn current(shown: Res<Read>) -> Option<ArcRwSignal<MemoryList>> {
    shown
        .try_with_untracked(|read| read.as_ref()?.as_ref().ok().cloned())
        .flatten()
}

impl Browser {
    fn new(only: Option<i64>) -> Self {
        let say = Messages {
            error: RwSignal::new(None),
            note: RwSignal::new(None),
        };
        let move_to = RwSignal::new(String::new());
        let progress = RwSignal::new(None);
        let move_project = action(move |change: &ProjectMove| {
            let change = change.clone();
            async move {
                match self::move_project(change.clone()).await {
                    Ok(moved) => {
                        let (count, from, to) = (moved.moved, change.from, change.to);
                        say.note(format!(
                            "Moved {} from {from} to {to}.",
                            count_memories(count)
                        ));
                        move_to.set(String::new());
                    }
                    Err(e) => say.error(e.message),
                }
            }
        });
        let import = action(move |file: &web_sys::File| {
            let file = file.clone();
            async move {
                let result = import_file(file, progress).await;
                progress.try_set(None);
                match result {
                    Ok(count) => say.note(format!("Imported {}.", count_memories(count))),
                    Err(message) => say.error(message),
                }
            }
        });
        let (query, project, only) = (
            RwSignal::new(String::new()),
            RwSignal::new(String::new()),
            RwSignal::new(only),
        );
        // Read for each search, filter and link, and again after each move
        // or import (they change what a read finds).
        let shown = resource(move || {
            move_project.version().track();
            import.version().track();
            let only = only.get();
            let ask = MemoryListQuery {
                q: Some(query.get()).filter(|q| !q.trim().is_empty()),
                project: project_field(&project.get()),
                cursor: None,
                limit: None,
            };
            async move {
                let list = match only {
                    Some(id) => get_memory(id).await.map(MemoryList::one),
                    None => list_memories(ask).await.map(MemoryList::from),
                };
                list.map(ArcRwSignal::new)
            }
        });
        let undo = RwSignal::new(None);
        let draft = RwSignal::new(String::new());
        let changes = Changes {
            add: add(shown, say, draft),
            edit: edit(shown, say),
            delete: delete(shown, say, undo),
            put_back: put_back(shown, say),
            move_project,
            import,
            more: more(shown, say),
        };
        let projects = resource(move || {
            changes.add.version().track();
            changes.edit.version().track();
            changes.delete.version().track();
            changes.put_back.version().track();
            move_project.version().track();
            import.version().track();
            list_projects()
        });
        Self {
            query,
            project,
            only,
            shown,
            projects,
            say,
            undo,
            draft,
            move_to,
            progress,
            changes,
        }
    }

    /// The list shown (tracked).
    fn read(self) -> Option<ArcRwSignal<MemoryList>> {
        self.shown
            .with(|read| read.as_ref()?.as_ref().ok().cloned())
    }

    /// The memories shown.
    fn memories(self) -> Vec<Memory> {
        self.read()
            .map(|list| list.with(|l| l.items.clone()))
            .unwrap_or_default()
    }

    fn none_shown(self) -> bool {
        self.read()
            .is_none_or(|list| list.with(|l| l.items.is_empty()))
    }

    fn projects(self) -> Vec<ProjectInfo> {
        match self.projects.get() {
            Some(Ok(list)) => list.projects,
            _ => Vec::new(),
        }
    }

    /// What went wrong last: a change, else the read shown.
    fn error(self) -> Option<String> {
        self.say.error.get().or_else(|| match self.shown.get() {
            Some(Err(e)) => Some(e.message),
            _ => None,
        })
    }

    /// Reads the page after the list shown.
    fn read_more(self) {
        let Some(list) = current(self.shown) else {
            return;
        };
        let ask = MemoryListQuery {
            q: Some(self.query.get_untracked()).filter(|q| !q.trim().is_empty()),
            project: project_field(&self.project.get_untracked()),
            cursor: list.with_untracked(|l| l.next_cursor.clone()),
            limit: None,
        };
        self.changes.more.dispatch((list, ask));
    }
}

/// Adds a memory at the top of the list; the text box empties.
fn add(shown: Res<Read>, say: Messages, draft: RwSignal<String>) -> Act<MemoryInput, ()> {
    action(move |input: &MemoryInput| {
        let input = input.clone();
        async move {
            match create_memory(input).await {
                Ok(memory) => {
                    if let Some(list) = current(shown) {
                        list.update(|l| l.add(memory));
                    }
                    draft.set(String::new());
                    say.clear();
                }
                Err(e) => say.error(e.message),
            }
        }
    })
}

/// Saves an edited memory, in its place.
fn edit(shown: Res<Read>, say: Messages) -> Act<(i64, MemoryPatch), ()> {
    action(move |(id, patch): &(i64, MemoryPatch)| {
        let (id, patch) = (*id, patch.clone());
        async move {
            match update_memory(id, patch).await {
                Ok(memory) => {
                    if let Some(list) = current(shown) {
                        list.update(|l| l.update(memory));
                    }
                    say.clear();
                }
                Err(e) => say.error(e.message),
            }
        }
    })
}

/// Deletes a memory, offering to put it back for UNDO_MS.
fn delete(shown: Res<Read>, say: Messages, undo: RwSignal<Option<Deleted>>) -> Act<i64, ()> {
    action(move |id: &i64| {
        let id = *id;
        async move {
            if let Err(e) = delete_memory(id).await {
                return say.error(e.message);
            }
            let removed = current(shown).and_then(|list| list.try_update(|l| l.remove(id)));
            let Some(deleted) = removed.flatten() else {
                return;
            };
            undo.set(Some(deleted));
            // After UNDO_MS this one is gone for good.
            set_timeout(
                move || {
                    let offered = undo.try_with_untracked(|u| u.as_ref().map(|d| d.memory.id));
                    if offered == Some(Some(id)) {
                        undo.try_set(None);
                    }
                },
                std::time::Duration::from_millis(UNDO_MS.into()),
            );
        }
    })
}

/// Puts a deleted memory back as it was (the same id), where it stood.
fn put_back(shown: Res<Read>, say: Messages) -> Act<Deleted, ()> {
    action(move |deleted: &Deleted| {
        let Deleted { memory: m, index } = deleted.clone();
        let input = MemoryInput {
            content: m.content,
            project: m.project,
            tags: m.tags,
            id: Some(m.id),
            created_at: Some(m.created_at),
        };
        async move {
            match create_memory(input).await {
                Ok(memory) => {
                    if let Some(list) = current(shown) {
                        list.update(|l| l.put_back(Deleted { memory, index }));
                    }
                }
                Err(e) => say.error(e.message),
            }
        }
    })
}

/// Reads the next page of a read and appends it there.
fn more(shown: Res<Read>, say: Messages) -> Act<(ArcRwSignal<MemoryList>, MemoryListQuery), ()> {
    action(
        move |(read, ask): &(ArcRwSignal<MemoryList>, MemoryListQuery)| {
            let (read, ask) = (read.clone(), ask.clone());
            async move {
                match list_memories(ask).await {
                    Ok(page) => read.update(|l| l.append(page)),
                    // Said only while that read is still the one shown.
                    Err(e) if current(shown) == Some(read) => say.error(e.message),
                    Err(_) => {}
                }
            }
        },
    )
}

#[component]
fn MemoryBrowser(only: Option<i64>) -> impl IntoView {
    let browser = Browser::new(only);
    provide_context(browser);
    let Browser {
        query,
        project,
        only,
        ..
    } = browser;
    // A read under way, or a page more.
    let reading = RwSignal::new(false);
    let more_pending = browser.changes.more.pending();
    let loading =
        move || reading.get() || more_pending.get() || browser.shown.with(|read| read.is_none());
    let note = move || {
        browser
            .error()
            .is_none()
            .then(|| browser.say.note.get())
            .flatten()
    };
    view! {
        <div class="memory-browser">
            <div class="memory-toolbar">
                <input type="search" class="memory-search" placeholder="Search memories" aria-label="Search memories"
                    data-testid="memory-search"
                    prop:value=move || query.get()
                    on:input={handler(move |ev: leptos::ev::Event| { only.set(None); query.set(event_target_value(&ev)); })}/>
                <select aria-label="Project" data-testid="project-filter"
                    on:change={handler(move |ev: leptos::ev::Event| { only.set(None); project.set(event_target_value(&ev)); })}>
                    <option value="">"All projects"</option>
                    {move || browser.projects().into_iter().map(|p| {
                        let name = p.name.clone();
                        let selected = project.get() == name;
                        view! { <option value=name.clone() selected=selected>{format!("{} ({})", p.name, p.count)}</option> }
                    }).collect_view()}
                </select>
                <a class="button" href="/api/memories/export" download="imprint-memories.jsonl" data-testid="export">"Export"</a>
                <ImportButton/>
            </div>
            <MeaningLine/>
            {move || browser.error().map(|text| view! {
                <p class="error" role="alert" data-testid="memories-message">{text}</p>
            })}
            {move || note().map(|text| view! {
                <p class="note" role="status" data-testid="memories-message">{text}</p>
            })}
            {move || only.get().map(|id| view! {
                <p class="note">{format!("Showing memory #{id} from a chat. ")}
                    <button class="link" on:click={handler(move |_| only.set(None))}>"Show all memories"</button></p>
            })}
            <AddMemory/>
            <ProjectMover/>
            <UndoBar/>
            // The list read last stays while the next is read.
            <Transition set_pending=reading>
                <ul class="memory-list" data-testid="memory-list">
                    // Redrawn whole when the list changes: a page is short.
                    {move || browser.memories().into_iter().map(|memory| view! {
                        <MemoryRow memory=memory/>
                    }).collect_view()}
                </ul>
                {move || (!loading() && browser.none_shown()).then(|| view! {
                    <p class="muted" data-testid="no-memories">"No memories here."</p>
                })}
                {move || browser.read().is_some_and(|l| l.with(|l| l.next_cursor.is_some())).then(|| view! {
                    <button data-testid="load-more" disabled=loading on:click={handler(move |_| browser.read_more())}>"Load more"</button>
                })}
            </Transition>
        </div>
    }
}

/// How search finds memories: by meaning and words, the filling in of the
/// memories kept before (live, from the dashboard's events), or words only
/// and why.
#[component]
fn MeaningLine() -> impl IntoView {
    let loaded = resource(get_meaning_status);
    let events: Option<DashboardEvents> = use_context();
    let line = move || {
        let status = loaded.get()?.ok()?;
        let latest = events.and_then(|e| e.meaning.get());
        let (state, embedded, total) =
            latest.unwrap_or((status.state, status.embedded, status.total));
        meaning_line(state, embedded, total, status.reason.as_ref())
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
    let project = RwSignal::new(String::new());
    let tags = RwSignal::new(String::new());
    let add = Callback::new(move |()| {
        browser.changes.add.dispatch(MemoryInput {
            content: browser.draft.get_untracked(),
            project: project_field(&project.get_untracked()),
            tags: parse_tags(&tags.get_untracked()),
            id: None,
            created_at: None,
        });
    });
    view! {
        <MemoryForm content=browser.draft project tags prefix="new" action="Add" on_save=add on_cancel=None/>
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
                prop:value=move || signal.get() on:input={handler(move |ev: leptos::ev::Event| signal.set(event_target_value(&ev)))}/>
        }
    };
    view! {
        <form class="memory-form" data-testid=format!("{prefix}-memory")
            on:submit={handler(move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); on_save.run(()); })}>
            <textarea rows="2" placeholder="Something to remember" aria-label="Memory" data-testid=format!("{prefix}-content")
                prop:value=move || content.get() on:input={handler(move |ev: leptos::ev::Event| content.set(event_target_value(&ev)))}></textarea>
            {field(project, "Project", "project")}
            {field(tags, "Tags, comma-separated", "tags")}
            <button type="submit" class="primary" data-testid=format!("save-{prefix}")>{action}</button>
            {on_cancel.map(|cancel| view! {
                <button type="button" on:click={handler(move |_| cancel.run(()))}>"Cancel"</button>
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
        browser.changes.edit.dispatch((id, patch));
    });
    let remove = move |_| {
        browser.changes.delete.dispatch(id);
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
                        <button data-testid="edit-memory" on:click={handler(move |_| editing.set(true))}>"Edit"</button>
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
        browser.changes.put_back.dispatch(deleted);
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
    let to = browser.move_to;
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        browser.changes.move_project.dispatch(ProjectMove {
            from: from.get_untracked(),
            to: to.get_untracked(),
        });
    };
    view! {
        <details class="project-mover">
            <summary>"Rename or merge a project"</summary>
            <form on:submit=submit data-testid="move-project">
                <select aria-label="Project to move" data-testid="move-from"
                    on:change={handler(move |ev: leptos::ev::Event| from.set(event_target_value(&ev)))}>
                    <option value="">"Project…"</option>
                    {move || browser.projects().into_iter().map(|p| view! {
                        <option value=p.name.clone()>{p.name.clone()}</option>
                    }).collect_view()}
                </select>
                <input type="text" placeholder="New name, or a project to merge into" aria-label="New project name"
                    data-testid="move-to" prop:value=move || to.get() on:input={handler(move |ev: leptos::ev::Event| to.set(event_target_value(&ev)))}/>
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
    let progress = browser.progress;
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
        browser.changes.import.dispatch(file);
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
