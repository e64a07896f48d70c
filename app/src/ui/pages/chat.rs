//! The Chat page.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

#[component]
pub fn ChatPage() -> impl IntoView {
    let params = use_params_map();
    let session_id = move || params.read().get("id");
    view! {
        <section class="chat-page" data-testid="chat-page">
            <h1>"Chat"</h1>
            <p data-testid="open-session">{move || session_id().unwrap_or_default()}</p>
        </section>
    }
}
