//! The page's one polite live region, owned by the shell: what a screen
//! reader is told without the focus moving — a question that arrives (once
//! each), a reply that ends, the number of questions waiting. The texts are
//! in [`crate::logic::announce`].

use leptos::prelude::*;

use crate::logic::announce;
use crate::protocol::Question;

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
}

pub fn provide_announcer() -> Announcer {
    let announcer = Announcer {
        messages: RwSignal::new(Vec::new()),
        next: StoredValue::new(0),
        said: StoredValue::new(Vec::new()),
    };
    provide_context(announcer);
    announcer
}

impl Announcer {
    /// Adds a message to the region; nothing while the page is hidden
    /// (a tab behind another): with several windows open, the one in
    /// front speaks, and the others do not say it again.
    pub fn say(self, text: String) {
        let hidden = web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.hidden());
        if hidden {
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
