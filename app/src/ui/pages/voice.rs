//! The Voice page: Echo, full size.

use leptos::prelude::*;

use crate::ui::echo::EchoPanel;

#[component]
pub fn VoicePage() -> impl IntoView {
    view! {
        <section class="voice-page" data-testid="voice-page">
            <h1>"Echo"</h1>
            <EchoPanel/>
        </section>
    }
}
