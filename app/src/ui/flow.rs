//! `Show` and `Transition` as the pages use them, each compiled once:
//! imported in place of Leptos's (`use crate::ui::flow::{Show, Transition}`),
//! with the same props, they hand Leptos's component a boxed condition and
//! type-erased children.
//!
//! Why: Leptos's `Show` compiles its memo and its render effect once per
//! condition closure, and `Transition` its suspense boundary (build,
//! rebuild, the fallback's swap) once per children type: kilobytes of wasm
//! for each use. Here every use shares one copy of each.

use leptos::prelude::*;

/// Leptos's `Show`: `children` while `when` is true, nothing otherwise.
#[component]
pub fn Show<W>(when: W, children: ChildrenFn) -> impl IntoView
where
    W: Fn() -> bool + Send + Sync + 'static,
{
    shown(Box::new(when), children)
}

/// Not generic at all: Leptos's `Show` is compiled once.
fn shown(when: Box<dyn Fn() -> bool + Send + Sync>, children: ChildrenFn) -> AnyView {
    view! { <leptos::control_flow::Show when=when>{children()}</leptos::control_flow::Show> }
        .into_any()
}

/// Leptos's `Transition`: `fallback` until the resources read inside are
/// first read, then `children`, kept while they are read again.
#[component]
pub fn Transition(
    #[prop(optional, into)] fallback: ViewFnOnce,
    #[prop(optional, into)] set_pending: Option<SignalSetter<bool>>,
    children: Children,
) -> impl IntoView {
    use leptos::suspense::{Transition, TransitionProps};
    Transition(TransitionProps {
        fallback,
        set_pending,
        children: TypedChildren::to_children(children),
    })
}
