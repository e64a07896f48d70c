//! The sessions sidebar: new, open, rename, delete; a marker on chats
//! whose reply waits for an answer. A long list draws its most recent
//! chats first and more as the user scrolls down. On a phone the list is a
//! drawer under a "Chats" button.
//!
//! The list is a resource; a new chat, a rename and a delete are actions.

use crate::ui::calls::{action, resource, Act};
use crate::ui::effect::effect;
use crate::ui::flow::Show;
use crate::ui::flow::Transition;
use crate::ui::handler::handler;
use leptos::html;
use leptos::prelude::*;

use crate::api::{create_session, delete_session, list_sessions, rename_session, ApiError};
use crate::io::dashboard_events::DashboardEvents;
use crate::protocol::{SessionList, SessionSummary};
use crate::ui::focus::Disclosure;
use crate::ui::read_errors::read_errors;
use crate::ui::router::{use_navigate, A};

/// Rows drawn when the list shows: more than a tall sidebar holds.
const FIRST_ROWS: usize = 50;
/// Rows added each time the user nears the end of the list.
const MORE_ROWS: usize = 200;
/// How close to the end (in pixels) a scroll draws more rows.
const NEAR_END: i32 = 300;

/// What a row changes: its chat's title, or the chat itself.
#[derive(Clone, Copy)]
struct RowActions {
    rename: Act<(String, String), Result<SessionSummary, ApiError>>,
    delete: Act<String, Result<(), ApiError>>,
}

/// The one row being renamed or asked to confirm a delete, and the title
/// typed so far. It lives with the list, not the row: the list is drawn
/// again whenever any window changes a chat, and a row's own state would
/// be lost mid-rename or between "×" and "Delete".
#[derive(Clone, Copy)]
struct RowEditing {
    row: RwSignal<Option<(String, RowMode)>>,
    draft: RwSignal<String>,
}

impl RowEditing {
    fn new() -> Self {
        Self {
            row: RwSignal::new(None),
            draft: RwSignal::new(String::new()),
        }
    }

    fn mode_of(self, id: StoredValue<String>) -> Memo<RowMode> {
        Memo::new(move |_| {
            self.row.with(|row| match row {
                Some((sid, mode)) if id.with_value(|id| id == sid) => *mode,
                _ => RowMode::Showing,
            })
        })
    }

    fn set(self, id: StoredValue<String>, mode: RowMode) {
        self.row.set(match mode {
            RowMode::Showing => None,
            _ => Some((id.get_value(), mode)),
        });
    }
}

#[component]
pub fn SessionList(current: Memo<Option<String>>) -> impl IntoView {
    let events: DashboardEvents = expect_context();
    let navigate = use_navigate();
    let create = action(move |_: &()| {
        let navigate = navigate.clone();
        async move {
            let session = create_session(None).await?;
            navigate(&format!("/chat/{}", session.id));
            Ok::<_, ApiError>(())
        }
    });
    let actions = RowActions {
        rename: action(|(sid, title): &(String, String)| {
            rename_session(sid.clone(), title.clone())
        }),
        delete: action(|sid: &String| delete_session(sid.clone())),
    };
    let editing = RowEditing::new();
    // Read again whenever the list may have changed: an event (another
    // window's change too), or a chat made, renamed or deleted here.
    let sessions = resource(move || {
        events.sessions_version.track();
        create.version().track();
        actions.rename.version().track();
        actions.delete.version().track();
        list_sessions()
    });
    // How many rows are drawn; drawing 600 at once held up the open chat.
    let shown = RwSignal::new(FIRST_ROWS);
    let more = move || shown.update(|n| *n += MORE_ROWS);
    let aside = NodeRef::<html::Aside>::new();
    let on_scroll = move |_| {
        let near_end = aside
            .get_untracked()
            .is_some_and(|el| el.scroll_top() + el.client_height() > el.scroll_height() - NEAR_END);
        let hidden = sessions.with_untracked(
            |s| matches!(s, Some(Ok(list)) if list.sessions.len() > shown.get_untracked()),
        );
        if near_end && hidden {
            more();
        }
    };
    // The drawer (phone only: on a wide screen the list is always shown)
    // closes when a chat is opened.
    let drawer = Disclosure::closed();
    effect(move || {
        current.track();
        drawer.open.set(false);
    });
    let waiting_chats = move || {
        sessions.with(|s| match s {
            Some(Ok(list)) => list.sessions.iter().filter(|s| s.waiting).count(),
            _ => 0,
        })
    };
    let error = move || match create.value().get() {
        Some(Err(e)) => Some(e.message),
        _ => None,
    };
    view! {
        <aside class="sessions" class:drawer-open=move || drawer.open.get() aria-label="Chats"
            node_ref=aside on:scroll=on_scroll>
          <div class="sessions-inner" node_ref=drawer.container>
            <div class="sessions-bar">
                <button class="primary new-chat" data-testid="new-chat" on:click={handler(move |_| { create.dispatch(()); })}>"+ New chat"</button>
                <button class="drawer-toggle" data-testid="chats-toggle" node_ref=drawer.opener
                    aria-controls="session-drawer" aria-expanded=move || drawer.open.get().to_string()
                    on:click={handler(move |_| drawer.toggle())}>
                    "Chats"
                    {move || (waiting_chats() > 0).then(|| view! {
                        <span class="waiting-marker" aria-hidden="true">"?"</span>
                        <span class="sr-only">" (a question is waiting)"</span>
                    })}
                </button>
            </div>
            {move || error().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="session-drawer" id="session-drawer">
                <Transition fallback=|| view! { <p class="muted">"Loading chats…"</p> }>
                    <ErrorBoundary fallback=read_errors>
                        {move || Suspend::new(async move {
                            sessions.await.map(|list| view! {
                                <Sessions list shown current actions editing/>
                            })
                        })}
                    </ErrorBoundary>
                </Transition>
            </div>
          </div>
        </aside>
    }
}

/// The chats read, the first `shown` of them drawn.
#[component]
fn Sessions(
    list: SessionList,
    shown: RwSignal<usize>,
    current: Memo<Option<String>>,
    actions: RowActions,
    editing: RowEditing,
) -> impl IntoView {
    if list.sessions.is_empty() {
        return view! { <p class="muted">"No chats yet."</p> }.into_any();
    }
    let sessions = StoredValue::new(list.sessions);
    let drawn = move || {
        let count = shown.get();
        let hidden = sessions.with_value(|s| s.len().saturating_sub(count));
        view! {
            <ul class="session-list" data-testid="session-list">
                {sessions.with_value(|s| s.iter().take(count).cloned().map(|s| view! {
                    <SessionRow session=s current=current actions=actions editing=editing/>
                }).collect_view())}
            </ul>
            {(hidden > 0).then(|| view! {
                <button class="more-chats" data-testid="more-chats"
                    on:click={handler(move |_| shown.update(|n| *n += MORE_ROWS))}>
                    {format!("Show more chats ({hidden})")}
                </button>
            })}
        }
    };
    drawn.into_any()
}

#[derive(Clone, Copy, PartialEq)]
enum RowMode {
    Showing,
    Renaming,
    ConfirmingDelete,
}

#[component]
fn SessionRow(
    session: SessionSummary,
    current: Memo<Option<String>>,
    actions: RowActions,
    editing: RowEditing,
) -> impl IntoView {
    let id = StoredValue::new(session.id.clone());
    // Renamed here, the row shows the new title once the list is read
    // again.
    let title = StoredValue::new(session.title.clone());
    let mode = editing.mode_of(id);
    let set_mode = move |to: RowMode| editing.set(id, to);
    let draft = editing.draft;
    let navigate = use_navigate();
    let is_current = move || current.get().as_deref() == Some(id.get_value().as_str());
    let save = move || {
        let new_title = draft.get_untracked();
        if new_title.trim().is_empty() {
            return;
        }
        set_mode(RowMode::Showing);
        actions.rename.dispatch((id.get_value(), new_title));
    };
    let remove = move |_| {
        // Leave the chat before it goes, so nothing tries to load it.
        // (The row may be gone by the time the call is made.)
        let sid = id.get_value();
        if is_current() {
            navigate("/chat");
        }
        set_mode(RowMode::Showing);
        actions.delete.dispatch(sid);
    };
    view! {
        <li class="session-row" class:current=is_current data-testid="session-row" data-session-id=session.id.clone()>
            {move || match mode.get() {
                RowMode::Renaming => view! {
                    <input type="text" class="rename-input" aria-label="Chat title" data-testid="rename-input"
                        prop:value=move || draft.get()
                        on:input={handler(move |ev: leptos::ev::Event| draft.set(event_target_value(&ev)))}
                        on:keydown={handler(move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
                            "Enter" => save(),
                            "Escape" => set_mode(RowMode::Showing),
                            _ => {}
                        })}
                        autofocus
                    />
                }.into_any(),
                _ => view! {
                    <A href=format!("/chat/{}", id.get_value())>
                        <span class="session-title">{title.get_value()}</span>
                    </A>
                }.into_any(),
            }}
            <Show when=move || session.waiting>
                <span class="waiting-marker" data-testid="waiting-marker" title="Waiting for your answer" aria-label="waiting for your answer">"?"</span>
            </Show>
            <span class="row-actions">
                {move || match mode.get() {
                    RowMode::ConfirmingDelete => view! {
                        <button class="danger" data-testid="confirm-delete" on:click=remove.clone()>"Delete"</button>
                        <button on:click={handler(move |_| set_mode(RowMode::Showing))}>"Keep"</button>
                    }.into_any(),
                    _ => view! {
                        <button class="icon" aria-label="Rename chat" title="Rename" data-testid="rename-chat"
                            on:click={handler(move |_| { draft.set(title.get_value()); set_mode(RowMode::Renaming) })}>"✎"</button>
                        <button class="icon" aria-label="Delete chat" title="Delete" data-testid="delete-chat"
                            on:click={handler(move |_| set_mode(RowMode::ConfirmingDelete))}>"×"</button>
                    }.into_any(),
                }}
            </span>
        </li>
    }
}
