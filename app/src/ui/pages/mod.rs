//! One file per route.

mod chat;
mod voice;

pub use chat::ChatPage;
pub use voice::VoicePage;

use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <section class="not-found">
            <h1>"Page not found"</h1>
            <a href="/chat">"Back to Chat"</a>
        </section>
    }
}
