//! One file per route.

mod memories;
mod model;
mod reminders;
mod voice;

pub use super::chat::ChatPage;
pub use memories::MemoriesPage;
pub use model::ModelPage;
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
