//! The on-screen keyboard: where the browser lays the page out under the
//! keyboard (iOS Safari, Chrome without `interactive-widget`), the part of
//! the window the keyboard covers is kept in `--keyboard-inset` on the root
//! element, and the shell is that much shorter, so the message box stays
//! in sight above the keyboard.

use wasm_bindgen::prelude::*;

use crate::logic::numbers::fixed;
use web_sys::HtmlElement;

/// Starts following the visual viewport (for the page's whole life).
pub fn follow_on_screen_keyboard() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(viewport) = window.visual_viewport() else {
        return;
    };
    let update = {
        let viewport = viewport.clone();
        move || {
            let Some(root) = window
                .document()
                .and_then(|d| d.document_element())
                .and_then(|e| e.dyn_into::<HtmlElement>().ok())
            else {
                return;
            };
            let layout_height = window
                .inner_height()
                .ok()
                .and_then(|h| h.as_f64())
                .unwrap_or(0.0);
            // Zoomed in, the visual viewport is small for another reason.
            let inset = if viewport.scale() > 1.01 {
                0.0
            } else {
                (layout_height - viewport.height() - viewport.offset_top()).max(0.0)
            };
            let _ = root.style().set_property(
                "--keyboard-inset",
                &format!("{}px", fixed(inset.round(), 0)),
            );
        }
    };
    update();
    let listener = Closure::<dyn Fn()>::new(update);
    for event in ["resize", "scroll"] {
        let _ = viewport.add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
    }
    // Listens as long as the page lives.
    listener.forget();
}
