//! The page's one polite live region, owned by the shell: what a screen
//! reader is told without the focus moving — a question that arrives (once
//! each), a reply that ends, the number of questions waiting. The texts are
//! in [`crate::logic::announce`].

use crate::ui::flow::For;
use leptos::prelude::*;

use crate::logic::announce;
use crate::protocol::Question;

/// Where the window that speaks writes its id: several windows of the
/// dashboard hear the same events, and one of them says each.
const SPEAKER_KEY: &str = "imprint.speaking-window";

/// Messages kept in the region: the newest few (each one is read as it is
/// added; older ones only stay so a burst is not cut short).
const KEPT: usize = 3;

/// The live region's messages, shared through context.
#[derive(Clone, Copy)]
pub struct Announcer {
    /// Newest last, each with a key of its own so a repeated text is a new
    /// node (and read again).
    messages: RwSignal<Vec<(u64, String)>>,
    next: StoredValue<u64>,
    /// Questions announced already: each is said once in this window.
    said: StoredValue<Vec<String>>,
    /// This window's id, stored under [`SPEAKER_KEY`] while it is the one
    /// that speaks (the last one loaded or focused).
    window_id: StoredValue<String>,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

pub fn provide_announcer() -> Announcer {
    let announcer = Announcer {
        messages: RwSignal::new(Vec::new()),
        next: StoredValue::new(0),
        said: StoredValue::new(Vec::new()),
        window_id: StoredValue::new(format!("{:x}", (js_sys::Math::random() * 1e15) as u64)),
    };
    provide_context(announcer);
    // The window the user came to last is the one that speaks: decided
    // before any event arrives, so two windows never race to say one.
    announcer.claim();
    let focus = window_event_listener(leptos::ev::focus, move |_| announcer.claim());
    on_cleanup(move || focus.remove());
    announcer
}

impl Announcer {
    /// Adds a message to the region; nothing while the page is hidden (a
    /// tab behind another) or another window speaks: with several windows
    /// open, each message is said once.
    pub fn say(self, text: String) {
        let hidden = web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.hidden());
        if hidden || !self.speaks() {
            return;
        }
        let key = self.next.get_value();
        self.next.set_value(key + 1);
        self.messages.update(|m| {
            m.push((key, text));
            let extra = m.len().saturating_sub(KEPT);
            m.drain(..extra);
        });
    }

    /// Makes this window the one that speaks.
    fn claim(self) {
        if let Some(storage) = storage() {
            let _ = storage.set_item(SPEAKER_KEY, &self.window_id.get_value());
        }
    }

    /// Whether this window is the one that speaks (any window does when
    /// there is no storage to agree through).
    fn speaks(self) -> bool {
        match storage().map(|s| s.get_item(SPEAKER_KEY)) {
            Some(Ok(Some(id))) => id == self.window_id.get_value(),
            _ => true,
        }
    }

    /// Announces a question with its choices, unless it was announced.
    pub fn question(self, question: &Question) {
        if self.said.with_value(|s| s.contains(&question.id)) {
            return;
        }
        self.said.update_value(|s| s.push(question.id.clone()));
        self.say(announce::question(question));
    }
}

/// The region itself: visually hidden, read politely.
#[component]
pub fn LiveRegion() -> impl IntoView {
    let announcer: Announcer = expect_context();
    view! {
        <div class="sr-only" role="status" aria-live="polite" data-testid="announcer">
            <For each=move || announcer.messages.get() key=|(key, _)| *key let:message>
                <p>{message.1}</p>
            </For>
        </div>
    }
}
