//! Imprint's dashboard: a Leptos app rendered in the browser, plus the wire
//! types and server-function declarations it shares with the server.

pub mod api;
pub mod logic;
pub mod protocol;

#[cfg(feature = "csr")]
mod io;
#[cfg(feature = "csr")]
mod ui;

/// Mounts the dashboard on the page's body when the wasm module starts.
#[cfg(feature = "csr")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn mount() {
    // A panic's message in the console, release builds too: without it a
    // release panic is only an uncaught `unreachable`, which says nothing
    // about where or why.
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(ui::App);
}
