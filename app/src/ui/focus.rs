//! Where the keyboard focus goes: element ids that tie a label to its
//! group, whether the user is typing somewhere (a card must not take the
//! focus mid-sentence), and panels that close on Escape and give the focus
//! back to the control that opened them.

use std::sync::atomic::{AtomicU32, Ordering};

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlTextAreaElement};

/// An element id no other element of the page has (`prefix-N`). A counter,
/// not state anyone reads: it only keeps ids apart when one question is
/// drawn twice (in its chat and in the "Waiting for you" panel).
pub fn unique_id(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Whether the focus is in a text field outside `inside` that holds
/// typed text: the user is writing there, so nothing should take the
/// focus away.
pub fn typing_elsewhere(inside: Option<&Element>) -> bool {
    let Some(active) = document().active_element() else {
        return false;
    };
    if inside.is_some_and(|el| el.contains(Some(&active))) {
        return false;
    }
    let text = if let Some(input) = active.dyn_ref::<HtmlInputElement>() {
        match input.type_().as_str() {
            "text" | "search" | "email" | "url" | "tel" | "" => input.value(),
            _ => return false,
        }
    } else if let Some(area) = active.dyn_ref::<HtmlTextAreaElement>() {
        area.value()
    } else {
        return active.get_attribute("contenteditable").is_some();
    };
    !text.trim().is_empty()
}

/// Whether the focus is nowhere in particular (the page itself) or inside
/// `container`.
pub fn focus_in_or_lost(container: Option<&Element>) -> bool {
    match document().active_element() {
        None => true,
        Some(active) => {
            active.tag_name().eq_ignore_ascii_case("body")
                || container.is_some_and(|c| c.contains(Some(&active)))
        }
    }
}

/// A panel opened by a button: Escape (with the focus in it, on its
/// button, or nowhere) closes it, and closing gives the focus back to the
/// button.
#[derive(Clone, Copy)]
pub struct Disclosure {
    pub open: RwSignal<bool>,
    /// The control that opens and closes it.
    pub opener: NodeRef<html::Button>,
    /// The element holding both the control and the panel.
    pub container: NodeRef<html::Div>,
}

impl Disclosure {
    /// A closed panel, listening for Escape while its component lives.
    pub fn closed() -> Self {
        let disclosure = Self {
            open: RwSignal::new(false),
            opener: NodeRef::new(),
            container: NodeRef::new(),
        };
        let handle = window_event_listener(ev::keydown, move |ev| {
            if ev.key() != "Escape" || ev.default_prevented() || !disclosure.open.get_untracked() {
                return;
            }
            let container: Option<Element> = disclosure.container.get_untracked().map(Into::into);
            if focus_in_or_lost(container.as_ref()) {
                ev.prevent_default();
                disclosure.close();
            }
        });
        on_cleanup(move || handle.remove());
        disclosure
    }

    pub fn toggle(self) {
        if self.open.get_untracked() {
            self.close();
        } else {
            self.open.set(true);
        }
    }

    /// Closes the panel and puts the focus back on its control.
    pub fn close(self) {
        self.open.set(false);
        if let Some(opener) = self.opener.get_untracked() {
            let _ = opener.focus();
        }
    }
}
