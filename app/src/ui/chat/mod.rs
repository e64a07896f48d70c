//! The Chat page: the sessions list beside the open chat.

mod composer;
mod conversation;
mod items;
mod message_window;
mod question_card;

pub use composer::Drafts;
pub use question_card::{local_time, QuestionCard};
mod sessions;

use leptos::prelude::*;

use crate::ui::router::{chat_id, Location};

#[component]
pub fn ChatPage() -> impl IntoView {
    let location = expect_context::<Location>();
    let session_id = Memo::new(move |_| chat_id(&location.pathname.get()));
    view! {
        <div class="chat-layout" data-testid="chat-page">
            <sessions::SessionList current=session_id/>
            <section class="chat-main">
                {move || match session_id.get() {
                    Some(id) => view! { <conversation::Conversation id=id/> }.into_any(),
                    None => view! { <EmptyChat/> }.into_any(),
                }}
            </section>
        </div>
    }
}

#[component]
fn EmptyChat() -> impl IntoView {
    view! {
        <div class="empty-chat">
            <h1>"Chat"</h1>
            // The list is beside the chat on a wide screen, a drawer above
            // it on a phone: CSS shows the words that fit.
            <p>
                <span class="wide-only">"Open a chat on the left, or start a new one."</span>
                <span class="narrow-only">"Open a chat from “Chats” above, or start a new one."</span>
                " Imprint searches your memories, sets reminders, and asks when something is unclear."
            </p>
        </div>
    }
}
