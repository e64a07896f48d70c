//! The Voice page: Echo, full size. While it listens, Echo says once per
//! question when one starts waiting in another chat.

use crate::ui::effect::effect;
use leptos::prelude::*;

use crate::logic::inbox::{spoken_nudge, Waiting};
use crate::ui::echo::{Echo, EchoPanel};
use crate::ui::inbox::Inbox;

#[component]
pub fn VoicePage() -> impl IntoView {
    let echo: Echo = expect_context();
    let inbox: Inbox = expect_context();
    let spoken = StoredValue::new(Vec::<String>::new());
    effect(move || {
        if !echo.listening.get() {
            return;
        }
        // Echo's own question is spoken as a question already.
        let own = echo.state.with(|s| s.conversation_id.clone());
        let sentences: Vec<String> = inbox.waiting.with(|w: &Waiting| {
            w.questions
                .iter()
                .filter(|q| own.as_deref() != Some(q.session_id.as_str()))
                .filter(|q| !spoken.with_value(|s| s.contains(&q.id)))
                .map(|q| {
                    spoken.update_value(|s| s.push(q.id.clone()));
                    spoken_nudge(&q.session_title)
                })
                .collect()
        });
        for sentence in sentences {
            echo.say(sentence);
        }
    });
    view! {
        <section class="voice-page" data-testid="voice-page">
            <h1>"Echo"</h1>
            <EchoPanel/>
        </section>
    }
}
