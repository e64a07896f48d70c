//! The frame around every page: the skip link, navigation, the theme
//! toggle and the model status (in a menu on a phone; a link to the Model
//! page), and the page's live region.

use crate::ui::calls::{resource, Res};
use crate::ui::flow::Show;
use crate::ui::handler::handler;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::announcer::LiveRegion;
use super::chat::Drafts;
use super::echo::Companion;
use super::focus::Disclosure;
use super::inbox::InboxButton;
use super::notifications::{NotificationsButton, ReminderToasts};
use super::router::{Location, A};
use super::theme::ThemeToggle;
use crate::api::{fetch_status, ApiError};
use crate::logic::route::is_active;
use crate::protocol::ChatStatus;

/// The model in use as the header shows it: read when the dashboard opens,
/// and again (`refetch`) when another model is chosen on the Model page.
#[derive(Clone, Copy)]
pub struct HeaderStatus(pub Res<Result<ChatStatus, ApiError>>);

#[component]
pub fn Shell(children: Children) -> impl IntoView {
    let location = expect_context::<Location>();
    let on_voice_page = move || location.pathname.get().starts_with("/voice");
    // Drafts outlive the Chat page: a visit to Memories keeps them.
    provide_context(Drafts::default());
    provide_context(HeaderStatus(resource(fetch_status)));
    view! {
        <div class="shell">
            <a class="skip-link" href="#message-box" data-testid="skip-link" on:click=skip_to_message_box>
                "Skip to the message box"
            </a>
            <header class="topbar">
                <span class="brand">"Imprint"</span>
                <nav aria-label="Main">
                    <A href="/chat">"Chat"</A>
                    <A href="/voice">"Voice"</A>
                    <A href="/memories">"Memories"</A>
                </nav>
                <InboxButton/>
                <HeaderMenu/>
            </header>
            <main class="page" id="main" tabindex="-1">{children()}</main>
            <LiveRegion/>
            <ReminderToasts/>
            <Show when=move || !on_voice_page()>
                <Companion/>
            </Show>
        </div>
    }
}

/// Focuses the message box; where there is none, the control that leads to
/// one (New chat), Echo's text box, or the page's content.
fn skip_to_message_box(ev: web_sys::MouseEvent) {
    ev.prevent_default();
    let doc = document();
    let target = doc
        .get_element_by_id("message-box")
        .or_else(|| {
            doc.query_selector("main [data-testid=echo-input]")
                .ok()
                .flatten()
        })
        .or_else(|| doc.query_selector("[data-testid=new-chat]").ok().flatten())
        .or_else(|| doc.get_element_by_id("main"));
    if let Some(el) = target.and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}

/// The less-used controls: in the header on a wide screen, behind a
/// "More" button on a phone (CSS decides which).
#[component]
fn HeaderMenu() -> impl IntoView {
    let menu = Disclosure::closed();
    view! {
        <div class="header-more" node_ref=menu.container>
            <button class="more-button" data-testid="more-button" node_ref=menu.opener
                aria-label="More" title="More" aria-controls="header-extras"
                aria-expanded=move || menu.open.get().to_string() on:click={handler(move |_| menu.toggle())}>
                <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="currentColor">
                    <circle cx="5" cy="12" r="2"/><circle cx="12" cy="12" r="2"/><circle cx="19" cy="12" r="2"/>
                </svg>
            </button>
            <div class="header-extras" id="header-extras" class:open=move || menu.open.get()>
                <ModelStatus/>
                <NotificationsButton/>
                <ThemeToggle/>
            </div>
        </div>
    }
}

/// The model in use and whether it answers; when it does not, how to
/// connect one. A link to the Model page, where another is chosen.
#[component]
fn ModelStatus() -> impl IntoView {
    let location = expect_context::<Location>();
    // Read directly, not under Suspense: the link is drawn at once, with
    // "…" until the status is in, and keeps the last status while it is
    // read again.
    let status = expect_context::<HeaderStatus>().0;
    let current = move || is_active("/model", &location.pathname.get()).then_some("page");
    view! {
        <a class="model-status" href="/model" data-testid="model-status" aria-current=current
            data-state=move || match status.get() {
                None => "loading",
                Some(Ok(s)) if s.ready => "ready",
                Some(Ok(_)) => "offline",
                Some(Err(_)) => "error",
            }
            title=move || match status.get() {
                Some(Ok(s)) => s.hint.unwrap_or_else(|| "Choose the model on the Model page".into()),
                _ => String::new(),
            }>
            {move || match status.get() {
                None => view! { "…" }.into_any(),
                Some(Ok(s)) => view! {
                    <span class="dot" aria-hidden="true"></span>
                    {format!("{} · {}", s.provider, s.model)}
                    {(!s.ready).then(|| view! { <span class="sr-hint">" (not connected)"</span> })}
                }.into_any(),
                Some(Err(e)) => view! { <span>{e.message}</span> }.into_any(),
            }}
        </a>
    }
}
