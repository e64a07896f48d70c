//! The page's effects, boxed: `effect(move || …)` for `Effect::new`, and
//! `effect_with(move |previous| …)` for one that reads the value its last
//! run returned.
//!
//! Why: Leptos compiles an effect's machinery (the task that reruns it,
//! its owner and observer) once for each closure type, and every closure is
//! a type of its own: about 1 KB of wasm per `Effect::new`. Boxed, every
//! effect of the dashboard shares one copy.

use leptos::prelude::*;

/// `Effect::new(move |_| run())`, boxed.
pub fn effect(run: impl FnMut() + 'static) {
    boxed(Box::new(run));
}

/// `Effect::new(run)`: `run` gets what its last run returned (`None` the
/// first time), as Leptos gives it.
pub fn effect_with<T: 'static>(mut run: impl FnMut(Option<T>) -> T + 'static) {
    let mut last = None;
    effect(move || last = Some(run(last.take())));
}

/// Not generic at all: Leptos's effect code is compiled once.
fn boxed(mut run: Box<dyn FnMut()>) {
    Effect::new(move |_| run());
}
