//! The message box: Enter sends, Shift+Enter starts a new line. While a
//! question waits, what is sent answers it.

use crate::ui::effect::effect;
use crate::ui::handler::handler;
use leptos::html;
use leptos::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ComposerMode {
    /// A new message starts a reply.
    Message,
    /// A question waits: the text answers it.
    Answer,
    /// A reply is being written; nothing can be sent now.
    Busy,
}

/// What was typed and not sent, per chat, while the page is open: a draft
/// stays with its chat when the user opens another (or a new one) and
/// comes back.
/// (A list, not a map: a few drafts at a time, and no hashing code in the
/// wasm.)
#[derive(Clone, Copy)]
pub struct Drafts(StoredValue<Vec<(String, String)>>);

impl Default for Drafts {
    fn default() -> Self {
        Self(StoredValue::new(Vec::new()))
    }
}

impl Drafts {
    fn of(self, chat: &str) -> String {
        self.0
            .with_value(|drafts| {
                drafts
                    .iter()
                    .find(|(id, _)| id == chat)
                    .map(|(_, text)| text.clone())
            })
            .unwrap_or_default()
    }

    fn keep(self, chat: &str, text: String) {
        self.0.update_value(|drafts| {
            drafts.retain(|(id, _)| id != chat);
            if !text.is_empty() {
                drafts.push((chat.to_string(), text));
            }
        });
    }
}

#[component]
pub fn Composer(
    /// The chat the box writes to (its draft is kept under its id).
    chat: String,
    #[prop(into)] mode: Signal<ComposerMode>,
    on_send: Callback<String>,
) -> impl IntoView {
    let drafts = use_context::<Drafts>().unwrap_or_default();
    let chat = StoredValue::new(chat);
    let text = RwSignal::new(chat.with_value(|c| drafts.of(c)));
    let set_text = move |value: String| {
        chat.with_value(|c| drafts.keep(c, value.clone()));
        text.set(value);
    };
    let area = NodeRef::<html::Textarea>::new();
    // A chat opened (a new one, too) is ready to type into.
    effect(move || {
        if let Some(area) = area.get() {
            let _ = area.focus();
        }
    });
    let send = move || {
        let value = text.get_untracked();
        if value.trim().is_empty() || mode.get_untracked() == ComposerMode::Busy {
            return;
        }
        on_send.run(value);
        set_text(String::new());
    };
    let placeholder = move || match mode.get() {
        ComposerMode::Message => "Message Imprint…",
        ComposerMode::Answer => "Answer the question above…",
        ComposerMode::Busy => "Imprint is writing…",
    };
    view! {
        <form class="composer" on:submit={handler(move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); send(); })}>
            <textarea node_ref=area id="message-box" data-testid="message-box" aria-label="Message" rows="2"
                placeholder=placeholder
                prop:value=move || text.get()
                on:input={handler(move |ev: leptos::ev::Event| set_text(event_target_value(&ev)))}
                on:keydown={handler(move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        send();
                    }
                })}></textarea>
            <button type="submit" class="primary" data-testid="send"
                disabled=move || mode.get() == ComposerMode::Busy>
                {move || if mode.get() == ComposerMode::Answer { "Answer" } else { "Send" }}
            </button>
        </form>
    }
}
