//! The Voice page (Echo).

use leptos::prelude::*;

#[component]
pub fn VoicePage() -> impl IntoView {
    view! {
        <section class="voice-page" data-testid="voice-page">
            <h1>"Voice"</h1>
        </section>
    }
}
