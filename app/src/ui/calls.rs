//! Where the pages make their resources and actions: `resource` is
//! `LocalResource::new` and `action` is `Action::new_local`, with the
//! future each returns boxed.
//!
//! Why: Leptos compiles its machinery around a resource's or an action's
//! future (the scoped, send-wrapped future, the task that runs it, the
//! action's dispatch) once for each distinct future type, and every
//! `async` block is a type of its own. Boxed, the futures of one value type
//! share one copy; the Wasm is then kilobytes smaller for each resource and
//! action, for the cost of one allocation per read or dispatch.

use futures::future::{FutureExt, LocalBoxFuture};
use leptos::prelude::*;
use std::future::Future;

/// `LocalResource::new(fetcher)`, with the fetcher's future boxed.
pub fn resource<T, Fu>(fetcher: impl Fn() -> Fu + 'static) -> LocalResource<T>
where
    T: 'static,
    Fu: Future<Output = T> + 'static,
{
    boxed_resource(Box::new(move || fetcher().boxed_local()))
}

/// Generic in the value alone: Leptos's code for the resource is compiled
/// once per `T`, whichever fetcher it calls.
fn boxed_resource<T: 'static>(
    fetcher: Box<dyn Fn() -> LocalBoxFuture<'static, T>>,
) -> LocalResource<T> {
    LocalResource::new(fetcher)
}

/// `Action::new_local(run)`, with the future `run` returns boxed.
pub fn action<I, O, Fu>(run: impl Fn(&I) -> Fu + 'static) -> Action<I, O>
where
    I: 'static,
    O: 'static,
    Fu: Future<Output = O> + 'static,
{
    boxed_action(Box::new(move |input| run(input).boxed_local()))
}

/// Generic in the input and output alone, as [`boxed_resource`].
fn boxed_action<I: 'static, O: 'static>(run: Run<I, O>) -> Action<I, O> {
    Action::new_local(run)
}

/// An action's work, boxed.
type Run<I, O> = Box<dyn Fn(&I) -> LocalBoxFuture<'static, O>>;
