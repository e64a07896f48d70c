//! The sessions sidebar: new, open, rename, delete; a marker on chats
//! whose reply waits for an answer. A long list draws its most recent
//! chats first and more as the user scrolls down. On a phone the list is a
//! drawer under a "Chats" button.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{create_session, delete_session, list_sessions, rename_session};
use crate::io::dashboard_events::DashboardEvents;
use crate::protocol::SessionSummary;
use crate::ui::focus::Disclosure;
use crate::ui::router::{use_navigate, A};

/// Rows drawn when the list shows: more than a tall sidebar holds.
const FIRST_ROWS: usize = 50;
/// Rows added each time the user nears the end of the list.
const MORE_ROWS: usize = 200;
/// How close to the end (in pixels) a scroll draws more rows.
const NEAR_END: i32 = 300;

#[component]
pub fn SessionList(current: Memo<Option<String>>) -> impl IntoView {
    let events: DashboardEvents = expect_context();
    let refresh = RwSignal::new(0u64);
    // The list, reloaded whenever it may have changed; the latest request
    // wins. (A signal filled by tasks rather than a resource under
    // Transition: the same page, without the async machinery in the wasm.)
    let sessions = RwSignal::new(None);
    let latest = StoredValue::new(0u64);
    Effect::new(move |_| {
        events.sessions_version.track();
        refresh.track();
        let request = latest.get_value() + 1;
        latest.set_value(request);
        spawn_local(async move {
            let result = list_sessions().await;
            if latest.try_get_value() == Some(request) {
                sessions.try_set(Some(result));
            }
        });
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
    Effect::new(move |_| {
        current.track();
        drawer.open.set(false);
    });
    let waiting_chats = move || {
        sessions.with(|s| match s {
            Some(Ok(list)) => list.sessions.iter().filter(|s| s.waiting).count(),
            _ => 0,
        })
    };
    let navigate = use_navigate();
    let error = RwSignal::new(None::<String>);
    let create = move |_| {
        let navigate = navigate.clone();
        spawn_local(async move {
            match create_session(None).await {
                Ok(session) => {
                    refresh.update(|n| *n += 1);
                    navigate(&format!("/chat/{}", session.id));
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    view! {
        <aside class="sessions" class:drawer-open=move || drawer.open.get() aria-label="Chats"
            node_ref=aside on:scroll=on_scroll>
          <div class="sessions-inner" node_ref=drawer.container>
            <div class="sessions-bar">
                <button class="primary new-chat" data-testid="new-chat" on:click=create>"+ New chat"</button>
                <button class="drawer-toggle" data-testid="chats-toggle" node_ref=drawer.opener
                    aria-controls="session-drawer" aria-expanded=move || drawer.open.get().to_string()
                    on:click=move |_| drawer.toggle()>
                    "Chats"
                    {move || (waiting_chats() > 0).then(|| view! {
                        <span class="waiting-marker" aria-hidden="true">"?"</span>
                        <span class="sr-only">" (a question is waiting)"</span>
                    })}
                </button>
            </div>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="session-drawer" id="session-drawer">
            {move || match sessions.get() {
                    None => view! { <p class="muted">"Loading chats…"</p> }.into_any(),
                    Some(Ok(list)) if list.sessions.is_empty() => view! {
                        <p class="muted">"No chats yet."</p>
                    }.into_any(),
                    Some(Ok(list)) => {
                        let hidden = list.sessions.len().saturating_sub(shown.get());
                        view! {
                            <ul class="session-list" data-testid="session-list">
                                {list.sessions.into_iter().take(shown.get()).map(|s| view! {
                                    <SessionRow session=s current=current refresh=refresh/>
                                }).collect_view()}
                            </ul>
                            {(hidden > 0).then(|| view! {
                                <button class="more-chats" data-testid="more-chats" on:click=move |_| more()>
                                    {format!("Show more chats ({hidden})")}
                                </button>
                            })}
                        }.into_any()
                    }
                    Some(Err(e)) => view! { <p class="error" role="alert">{e.message}</p> }.into_any(),
            }}
            </div>
          </div>
        </aside>
    }
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
    refresh: RwSignal<u64>,
) -> impl IntoView {
    let id = StoredValue::new(session.id.clone());
    let title = RwSignal::new(session.title.clone());
    let mode = RwSignal::new(RowMode::Showing);
    let draft = RwSignal::new(session.title.clone());
    let navigate = use_navigate();
    let is_current = move || current.get().as_deref() == Some(id.get_value().as_str());
    let save = move || {
        let new_title = draft.get_untracked();
        if new_title.trim().is_empty() {
            return;
        }
        mode.set(RowMode::Showing);
        spawn_local(async move {
            if let Ok(renamed) = rename_session(id.get_value(), new_title).await {
                title.set(renamed.title);
            }
        });
    };
    let remove = move |_| {
        // Leave the chat before it goes, so nothing tries to load it.
        // (The row may be gone by the time the call is made.)
        let sid = id.get_value();
        if is_current() {
            navigate("/chat");
        }
        spawn_local(async move {
            if delete_session(sid).await.is_ok() {
                refresh.update(|n| *n += 1);
            }
        });
    };
    view! {
        <li class="session-row" class:current=is_current data-testid="session-row" data-session-id=session.id.clone()>
            {move || match mode.get() {
                RowMode::Renaming => view! {
                    <input type="text" class="rename-input" aria-label="Chat title" data-testid="rename-input"
                        prop:value=move || draft.get()
                        on:input=move |ev| draft.set(event_target_value(&ev))
                        on:keydown=move |ev| match ev.key().as_str() {
                            "Enter" => save(),
                            "Escape" => mode.set(RowMode::Showing),
                            _ => {}
                        }
                        autofocus
                    />
                }.into_any(),
                _ => view! {
                    <A href=format!("/chat/{}", id.get_value())>
                        <span class="session-title">{move || title.get()}</span>
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
                        <button on:click=move |_| mode.set(RowMode::Showing)>"Keep"</button>
                    }.into_any(),
                    _ => view! {
                        <button class="icon" aria-label="Rename chat" title="Rename" data-testid="rename-chat"
                            on:click=move |_| { draft.set(title.get_untracked()); mode.set(RowMode::Renaming) }>"✎"</button>
                        <button class="icon" aria-label="Delete chat" title="Delete" data-testid="delete-chat"
                            on:click=move |_| mode.set(RowMode::ConfirmingDelete)>"×"</button>
                    }.into_any(),
                }}
            </span>
        </li>
    }
}
