//! `Show`, `Transition` and `For` as the pages use them, each compiled
//! once: imported in place of Leptos's (`use crate::ui::flow::Show`), with
//! the same props, they hand Leptos's component a boxed condition, and
//! type-erased children and list items.
//!
//! Why: Leptos's `Show` compiles its memo and its render effect once per
//! condition closure, `Transition` its suspense boundary (build, rebuild,
//! the fallback's swap) once per children type, and `For` its keyed diff
//! once per item, key and row type: kilobytes of wasm for each use. Here
//! every use shares one copy of each.

use std::hash::Hash;

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

/// Leptos's `For`: a row drawn by `children` for each item of `each`, kept
/// while its key stays in the list.
#[component]
pub fn For<IF, I, T, EF, N, KF, K>(each: IF, key: KF, children: EF) -> impl IntoView
where
    IF: Fn() -> I + Send + 'static,
    I: IntoIterator<Item = T>,
    EF: Fn(T) -> N + Send + Clone + 'static,
    N: IntoView + 'static,
    KF: Fn(&T) -> K + Send + 'static,
    K: Into<Key>,
    T: Send + 'static,
{
    listed(Box::new(move || {
        each()
            .into_iter()
            .map(|item| {
                let children = children.clone();
                Row {
                    key: key(&item).into(),
                    draw: Box::new(move || children(item).into_any()),
                }
            })
            .collect()
    }))
}

/// A row's key, whatever the list keys its items by.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Key {
    Number(i128),
    Text(String),
    /// A place in a list, and what is there.
    Placed(usize, String),
}

impl From<i64> for Key {
    fn from(key: i64) -> Self {
        Key::Number(key.into())
    }
}

impl From<u64> for Key {
    fn from(key: u64) -> Self {
        Key::Number(key.into())
    }
}

impl From<String> for Key {
    fn from(key: String) -> Self {
        Key::Text(key)
    }
}

impl From<(usize, String)> for Key {
    fn from((place, what): (usize, String)) -> Self {
        Key::Placed(place, what)
    }
}

/// An item of a list: its key, and its row, drawn when the key is new.
struct Row {
    key: Key,
    draw: Box<dyn FnOnce() -> AnyView + Send>,
}

/// Not generic at all: Leptos's `For` is compiled once.
fn listed(each: Box<dyn Fn() -> Vec<Row> + Send>) -> AnyView {
    use leptos::control_flow::{For, ForProps};
    For(ForProps {
        each,
        key: |row: &Row| row.key.clone(),
        children: |row: Row| (row.draw)(),
    })
    .into_any()
}
