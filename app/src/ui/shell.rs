//! The frame around every page: navigation, the theme toggle and the model
//! status.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::chat::Drafts;
use super::echo::Companion;
use super::inbox::InboxButton;
use super::notifications::{NotificationsButton, ReminderToasts};
use super::router::{Location, A};
use super::theme::ThemeToggle;
use crate::api::fetch_status;

#[component]
pub fn Shell(children: Children) -> impl IntoView {
    let location = expect_context::<Location>();
    let on_voice_page = move || location.pathname.get().starts_with("/voice");
    // Drafts outlive the Chat page: a visit to Memories keeps them.
    provide_context(Drafts::default());
    view! {
        <div class="shell">
            <header class="topbar">
                <span class="brand">"Imprint"</span>
                <nav aria-label="Main">
                    <A href="/chat">"Chat"</A>
                    <A href="/voice">"Voice"</A>
                    <A href="/memories">"Memories"</A>
                </nav>
                <ModelStatus/>
                <InboxButton/>
                <NotificationsButton/>
                <ThemeToggle/>
            </header>
            <main class="page">{children()}</main>
            <ReminderToasts/>
            <Show when=move || !on_voice_page()>
                <Companion/>
            </Show>
        </div>
    }
}

/// The configured model and whether it answers; when it does not, how to
/// connect one.
#[component]
fn ModelStatus() -> impl IntoView {
    // A signal filled by a task rather than a resource under Suspense: the
    // same page, without the async machinery in the wasm.
    let status = RwSignal::new(None);
    spawn_local(async move {
        let result = fetch_status().await;
        status.try_set(Some(result));
    });
    view! {
            {move || match status.get() {
                None => view! { <span class="model-status" data-testid="model-status">"…"</span> }.into_any(),
                Some(Ok(s)) => {
                    let title = s.hint.clone().unwrap_or_default();
                    let state = if s.ready { "ready" } else { "offline" };
                    view! {
                        <span class="model-status" data-testid="model-status" data-state=state title=title>
                            <span class="dot" aria-hidden="true"></span>
                            {format!("{} · {}", s.provider, s.model)}
                            {(!s.ready).then(|| view! { <span class="sr-hint">" (not connected)"</span> })}
                        </span>
                    }.into_any()
                }
                Some(Err(e)) => view! {
                    <span class="model-status" data-testid="model-status" data-state="error">{e.message}</span>
                }.into_any(),
            }}
    }
}
