//! Speech out: `speechSynthesis`.

use web_sys::SpeechSynthesisUtterance;

/// Speaks a sentence after whatever is being spoken; false if the browser
/// cannot speak.
pub fn speak(text: &str) -> bool {
    let Some(synth) = web_sys::window().and_then(|w| w.speech_synthesis().ok()) else {
        return false;
    };
    match SpeechSynthesisUtterance::new_with_text(text) {
        Ok(utterance) => {
            synth.speak(&utterance);
            true
        }
        Err(_) => false,
    }
}

/// Stops speaking at once.
pub fn cancel() {
    if let Some(synth) = web_sys::window().and_then(|w| w.speech_synthesis().ok()) {
        synth.cancel();
    }
}
