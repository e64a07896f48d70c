//! Event handlers, boxed: `on:click={handler(move |_| …)}`.
//!
//! Why: with the views type-erased (`--cfg erase_components`), Leptos
//! compiles an event listener's attribute code (made shareable, made
//! "any", added to its element) once per handler type, and every closure
//! is a type of its own: about 300 bytes of wasm per `on:` in the views.
//! Boxed, every handler of one event shares one copy.

/// `on_event`, boxed.
pub fn handler<E: 'static>(on_event: impl FnMut(E) + 'static) -> Box<dyn FnMut(E)> {
    Box::new(on_event)
}
