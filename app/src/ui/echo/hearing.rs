//! What Echo is doing with the microphone, shown in words: the status
//! (listening, hearing, thinking, speaking) as a polite live region, the
//! words heard so far, the level meter, the recogniser setting, and what
//! to do when Imprint cannot listen.

use crate::ui::flow::Show;
use crate::ui::handler::handler;
use leptos::prelude::*;

use super::Echo;
use crate::io::speech::recognition;
use crate::logic::echo::{Phase, Recogniser};
use crate::logic::numbers::fixed;

/// The status line, the interim words and the level meter.
#[component]
pub fn EarStatus() -> impl IntoView {
    let echo: Echo = expect_context();
    let phase = Memo::new(move |_| echo.phase());
    let interim = move || echo.state.with(|s| s.ear.interim.clone());
    // The meter shows Imprint's own capture (Web Speech gives no level).
    let metered = move || echo.listening.get() && echo.recogniser.get() == Recogniser::Imprint;
    view! {
        <div class="echo-status" data-state=move || phase.get().key()>
            <p class="echo-phase" role="status" aria-live="polite" data-testid="echo-status"
                data-state=move || phase.get().key()>
                {move || phase.get().label()}
            </p>
            <Show when=metered>
                <meter class="echo-meter" data-testid="echo-meter" aria-label="Microphone level"
                    min="0" max="1" low="0.3" high="0.9" optimum="0.6"
                    value=move || fixed(echo.level.get(), 2)></meter>
            </Show>
        </div>
        <Show when=move || phase.get() == Phase::Hearing && !interim().is_empty()>
            <p class="echo-interim" data-testid="echo-interim">{interim}</p>
        </Show>
    }
}

/// Which recogniser listens: Imprint's by default; the browser's where it
/// has one, said plainly to send audio away.
#[component]
pub fn RecogniserSetting() -> impl IntoView {
    let echo: Echo = expect_context();
    let web_speech = recognition::available();
    let chosen = move |r: Recogniser| echo.recogniser.get() == r;
    let on_change = move |ev| {
        let recogniser = match event_target_value(&ev).as_str() {
            "browser" => Recogniser::Browser,
            _ => Recogniser::Imprint,
        };
        echo.choose(recogniser);
    };
    view! {
        <label class="recogniser">
            "Speech recognition "
            <select data-testid="echo-recogniser" on:change=on_change>
                <option value="imprint" prop:selected=move || chosen(Recogniser::Imprint)>
                    {Recogniser::Imprint.label()}
                </option>
                {web_speech.then(|| view! {
                    <option value="browser" prop:selected=move || chosen(Recogniser::Browser)>
                        {Recogniser::Browser.label()}
                    </option>
                })}
            </select>
        </label>
        <Show when=move || chosen(Recogniser::Browser)>
            <p class="muted" data-testid="web-speech-note">
                "The browser’s recognition sends what the microphone hears to the browser’s maker."
            </p>
        </Show>
    }
}

/// Imprint cannot listen here (no speech model, or it failed): said
/// plainly, with typing below and Web Speech offered where there is one.
#[component]
pub fn Unavailable() -> impl IntoView {
    let echo: Echo = expect_context();
    let web_speech = recognition::available();
    let error = move || {
        (echo.recogniser.get() == Recogniser::Imprint)
            .then(|| echo.state.with(|s| s.ear.unavailable.clone()))
            .flatten()
    };
    move || {
        error().map(|error| {
            let instead = if web_speech {
                "Type to Echo below, or use the browser’s speech recognition."
            } else {
                "Type to Echo below."
            };
            view! {
                <div class="echo-unavailable" role="alert" data-testid="echo-unavailable">
                    <p>{format!("Imprint cannot listen here: {error}. {instead}")}</p>
                    {web_speech.then(|| view! {
                        <button data-testid="use-web-speech" on:click={handler(move |_| echo.choose(Recogniser::Browser))}>
                            "Use the browser’s recognition"
                        </button>
                    })}
                </div>
            }
        })
    }
}
