//! One file per route.

mod voice;

pub use super::chat::ChatPage;
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
