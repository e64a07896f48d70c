//! Speech out: `speechSynthesis`. Every sentence reports its end exactly
//! once, whether it was finished, cancelled or failed (a headless browser
//! fails at once with `synthesis-failed`), so nothing waits on speech
//! that never comes.

use std::cell::RefCell;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::SpeechSynthesisUtterance;

/// Speaks a sentence after whatever is being spoken; `on_end` is called
/// when it has been said, cancelled or has failed (at once if the browser
/// cannot speak).
pub fn speak(text: &str, on_end: impl FnOnce() + 'static) {
    let Some(synth) = web_sys::window().and_then(|w| w.speech_synthesis().ok()) else {
        on_end();
        return;
    };
    let Ok(utterance) = SpeechSynthesisUtterance::new_with_text(text) else {
        on_end();
        return;
    };
    // The closure holds the utterance until it ends: some browsers drop
    // an utterance nobody refers to, and with it its `end` event.
    let pending = RefCell::new(Some((utterance.clone(), on_end)));
    let ended = Closure::<dyn FnMut()>::new(move || {
        let Some((utterance, on_end)) = pending.borrow_mut().take() else {
            return;
        };
        utterance.set_onend(None);
        utterance.set_onerror(None);
        on_end();
    })
    .into_js_value();
    utterance.set_onend(Some(ended.unchecked_ref()));
    utterance.set_onerror(Some(ended.unchecked_ref()));
    synth.speak(&utterance);
}

/// Stops speaking at once (each sentence still reports its end).
pub fn cancel() {
    if let Some(synth) = web_sys::window().and_then(|w| w.speech_synthesis().ok()) {
        synth.cancel();
    }
}
