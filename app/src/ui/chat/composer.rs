//! The message box: Enter sends, Shift+Enter starts a new line. While a
//! question waits, what is sent answers it.

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

#[component]
pub fn Composer(
    #[prop(into)] mode: Signal<ComposerMode>,
    on_send: Callback<String>,
) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let area = NodeRef::<html::Textarea>::new();
    let send = move || {
        let value = text.get_untracked();
        if value.trim().is_empty() || mode.get_untracked() == ComposerMode::Busy {
            return;
        }
        on_send.run(value);
        text.set(String::new());
    };
    let placeholder = move || match mode.get() {
        ComposerMode::Message => "Message Imprint…",
        ComposerMode::Answer => "Answer the question above…",
        ComposerMode::Busy => "Imprint is writing…",
    };
    view! {
        <form class="composer" on:submit=move |ev| { ev.prevent_default(); send(); }>
            <textarea node_ref=area data-testid="message-box" aria-label="Message" rows="2"
                placeholder=placeholder
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        send();
                    }
                }></textarea>
            <button type="submit" class="primary" data-testid="send"
                disabled=move || mode.get() == ComposerMode::Busy>
                {move || if mode.get() == ComposerMode::Answer { "Answer" } else { "Send" }}
            </button>
        </form>
    }
}
