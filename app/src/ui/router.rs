//! The dashboard's own small router: the location, links marked
//! `aria-current`, and in-app navigation through the History API (the
//! routes themselves are in [`crate::logic::route`]).
//!
//! It does for this app what `leptos_router` did (same-origin link clicks
//! and back/forward stay in the page, a new page starts at the top, `/`
//! goes to `/chat`), at a fraction of the wasm size.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlAnchorElement;

use crate::logic::route::{self, is_active};

/// The current location, shared through context.
#[derive(Clone, Copy)]
pub struct Location {
    /// The path of the page shown (`/chat/abc`).
    pub pathname: RwSignal<String>,
}

fn current_path() -> String {
    window().location().pathname().unwrap_or_default()
}

fn current_full_path() -> String {
    let location = window().location();
    format!(
        "{}{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default(),
        location.hash().unwrap_or_default()
    )
}

/// The `:id` of `/chat/:id`, decoded.
pub fn chat_id(path: &str) -> Option<String> {
    let id = route::chat_id(path)?;
    Some(
        js_sys::decode_uri_component(id)
            .map(String::from)
            .unwrap_or_else(|_| id.to_string()),
    )
}

/// Starts the router: follows back/forward and keeps same-origin link
/// clicks in the page.
pub fn provide_router() {
    let location = Location {
        pathname: RwSignal::new(current_path()),
    };
    provide_context(location);
    let popstate = window_event_listener(ev::popstate, move |_| {
        location.pathname.set(current_path());
    });
    let click = window_event_listener(ev::click, move |ev| on_click(&ev, location));
    on_cleanup(move || {
        popstate.remove();
        click.remove();
    });
}

fn on_click(ev: &web_sys::MouseEvent, location: Location) {
    if ev.default_prevented()
        || ev.button() != 0
        || ev.meta_key()
        || ev.alt_key()
        || ev.ctrl_key()
        || ev.shift_key()
    {
        return;
    }
    let path = ev.composed_path();
    // The outermost link around the target, as leptos_router took it.
    let Some(a) = (0..path.length())
        .rev()
        .find_map(|i| path.get(i).dyn_into::<HtmlAnchorElement>().ok())
    else {
        return;
    };
    // The browser's own: another target, no href, a download, rel=external.
    if !a.target().is_empty() || a.href().is_empty() || a.has_attribute("download") {
        return;
    }
    let rel = a.get_attribute("rel").unwrap_or_default();
    if rel.split([' ', '\t']).any(|p| p == "external") {
        return;
    }
    // Leaving the site.
    if window().location().origin().ok().as_deref() != Some(a.origin().as_str()) {
        return;
    }
    ev.prevent_default();
    go(
        location,
        &format!("{}{}{}", a.pathname(), a.search(), a.hash()),
    );
}

/// Navigates in a task of its own, as leptos_router did: the handler that
/// asked for it finishes (and starts its own tasks) before the page changes.
fn go(location: Location, to: &str) {
    let to = to.to_string();
    // A task only to defer: no request is made, the history entry and the
    // location change once the current handler has run.
    leptos::task::spawn_local(async move {
        if let Ok(history) = window().history() {
            if current_full_path() != to {
                let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&to));
            }
        }
        location.pathname.try_set(current_path());
        scroll_to_target();
    });
}

/// After a navigation: the element named by the hash, else the top.
fn scroll_to_target() {
    let hash = window().location().hash().unwrap_or_default();
    if let Some(id) = hash.strip_prefix('#').filter(|id| !id.is_empty()) {
        let id = js_sys::decode_uri_component(id)
            .map(String::from)
            .unwrap_or_else(|_| id.to_string());
        if let Some(el) = document().get_element_by_id(&id) {
            el.scroll_into_view();
            return;
        }
    }
    window().scroll_to_with_x_and_y(0.0, 0.0);
}

/// Goes to a path of the dashboard (a new history entry).
pub fn navigate_with(location: Location, to: &str) {
    go(location, to);
}

/// A navigation function for use outside the component's setup.
pub fn use_navigate() -> impl Fn(&str) + Clone + 'static {
    let location = expect_context::<Location>();
    move |to: &str| go(location, to)
}

/// An in-app link, marked `aria-current="page"` while its page (or one
/// below it) is shown.
#[component]
pub fn A(#[prop(into)] href: String, children: Children) -> impl IntoView {
    let location = expect_context::<Location>();
    let active = {
        let href = href.clone();
        move || is_active(&href, &location.pathname.get()).then_some("page")
    };
    view! { <a href=href aria-current=active>{children()}</a> }
}
