//! Where the pages make their resources and actions: `resource` is
//! `LocalResource::new` (as a [`Res`], its value boxed too) and `action`
//! is `Action::new_local` (as an [`Act`], its input and output boxed too),
//! with the future each returns boxed.
//!
//! Why: Leptos compiles its machinery around a resource's or an action's
//! future (the scoped, send-wrapped future, the task that runs it, the
//! action's dispatch) once for each distinct future type, and every
//! `async` block is a type of its own. Boxed, the futures of one value type
//! share one copy; the Wasm is then kilobytes smaller for each resource and
//! action, for the cost of one allocation per read or dispatch.

use futures::future::{BoxFuture, FutureExt, LocalBoxFuture};
use leptos::prelude::*;
use std::any::Any;
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::rc::Rc;

/// A resource ([`Res`]) read by `fetcher`, its future boxed.
pub fn resource<T, Fu>(fetcher: impl Fn() -> Fu + 'static) -> Res<T>
where
    T: 'static,
    Fu: Future<Output = T> + 'static,
{
    Res {
        inner: shared_resource(Box::new(move || {
            fetcher()
                .map(|value| Rc::new(value) as Shared)
                .boxed_local()
        })),
        types: PhantomData,
    }
}

/// Not generic at all: Leptos's resource code is compiled once.
fn shared_resource(fetcher: Fetcher) -> LocalResource<Shared> {
    LocalResource::new(fetcher)
}

/// A resource's value, type-erased (`Rc`: a `LocalResource` clones it).
type Shared = Rc<dyn Any>;

/// A resource's fetcher, boxed.
type Fetcher = Box<dyn Fn() -> LocalBoxFuture<'static, Shared>>;

/// A Leptos `LocalResource<T>` whose value is boxed inside it, so that
/// every resource of the dashboard shares one copy of Leptos's resource
/// code (about 5 KB of wasm per value type otherwise). Reads are
/// `LocalResource`'s: tracked or not, and `.await` inside `Suspense` or
/// `Transition`, which then waits for it.
pub struct Res<T> {
    inner: LocalResource<Shared>,
    types: PhantomData<fn() -> T>,
}

impl<T> Clone for Res<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Res<T> {}

/// The value a resource holds, as its own type.
fn typed<T: 'static>(shared: &Shared) -> &T {
    shared
        .downcast_ref::<T>()
        .expect("a Res only holds its own value type")
}

impl<T: 'static> Res<T> {
    /// Reads the value (`None` while the first read runs), tracked.
    pub fn with<R>(&self, read: impl FnOnce(Option<&T>) -> R) -> R {
        self.inner
            .with(|value| read(value.as_ref().map(typed::<T>)))
    }

    /// Reads the value, untracked.
    pub fn with_untracked<R>(&self, read: impl FnOnce(Option<&T>) -> R) -> R {
        self.inner
            .with_untracked(|value| read(value.as_ref().map(typed::<T>)))
    }

    /// Reads the value, untracked; `None` once the resource is disposed.
    pub fn try_with_untracked<R>(&self, read: impl FnOnce(Option<&T>) -> R) -> Option<R> {
        self.inner
            .try_with_untracked(|value| read(value.as_ref().map(typed::<T>)))
    }

    /// The value, cloned, tracked.
    pub fn get(&self) -> Option<T>
    where
        T: Clone,
    {
        self.with(|value| value.cloned())
    }

    /// `LocalResource::refetch`: reads again.
    pub fn refetch(&self) {
        self.inner.refetch();
    }
}

impl<T: Clone + Send + 'static> IntoFuture for Res<T> {
    type Output = T;
    type IntoFuture = BoxFuture<'static, T>;

    /// `LocalResource`'s `.await`: the value once it is read (told to the
    /// `Suspense` or `Transition` around, as Leptos does, when called).
    fn into_future(self) -> Self::IntoFuture {
        let value = self.inner.into_future();
        async move { typed::<T>(&value.await).clone() }.boxed()
    }
}

/// An action ([`Act`]) running `run`, its future boxed.
pub fn action<I, O, Fu>(run: impl Fn(&I) -> Fu + 'static) -> Act<I, O>
where
    I: 'static,
    O: 'static,
    Fu: Future<Output = O> + 'static,
{
    Act {
        inner: erased_action(Box::new(move |input: &Erased| {
            let input = input
                .downcast_ref::<I>()
                .expect("an Act is only dispatched with its own input type");
            run(input)
                .map(|output| Box::new(output) as Erased)
                .boxed_local()
        })),
        types: PhantomData,
    }
}

/// Not generic at all: Leptos's action code is compiled once.
fn erased_action(run: Run) -> Action<Erased, Erased> {
    Action::new_local(run)
}

/// An input or an output of an action, type-erased.
type Erased = Box<dyn Any>;

/// An action's work, boxed.
type Run = Box<dyn Fn(&Erased) -> LocalBoxFuture<'static, Erased>>;

/// A Leptos `Action<I, O>` whose input and output are boxed inside it, so
/// that every action of the dashboard shares one copy of Leptos's action
/// code (dispatch, the task, the input, value and version signals; about
/// 3 KB of wasm per input and output pair otherwise). It runs as a Leptos
/// action does: in its owner, untracked, on this thread.
pub struct Act<I, O> {
    inner: Action<Erased, Erased>,
    types: PhantomData<fn(I) -> O>,
}

impl<I, O> Clone for Act<I, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I, O> Copy for Act<I, O> {}

impl<I: 'static, O: 'static> Act<I, O> {
    /// `Action::dispatch`. Every action runs on this thread (the only one
    /// a page has), so an input need not be `Send`.
    pub fn dispatch(&self, input: I) {
        self.inner.dispatch_local(Box::new(input));
    }

    /// `Action::clear`: the latest output is `None` again.
    pub fn clear(&self) {
        self.inner.clear();
    }

    /// `Action::version`: how many times it finished.
    pub fn version(&self) -> RwSignal<usize> {
        self.inner.version()
    }

    /// `Action::pending`: whether a dispatch is under way.
    pub fn pending(&self) -> Memo<bool> {
        self.inner.pending()
    }

    /// `Action::value`: the latest output, read (and tracked) with
    /// [`Latest::with`] or [`Latest::get`].
    pub fn value(&self) -> Latest<O> {
        Latest {
            value: self.inner.value(),
            types: PhantomData,
        }
    }
}

/// An [`Act`]'s latest output, as `Action::value` gives it.
pub struct Latest<O> {
    value: MappedSignal<Option<Erased>>,
    types: PhantomData<fn() -> O>,
}

impl<O: 'static> Latest<O> {
    /// Reads the latest output (`None` before the first one), tracked.
    pub fn with<R>(&self, read: impl FnOnce(Option<&O>) -> R) -> R {
        self.value
            .with(|value| read(value.as_ref().and_then(|output| output.downcast_ref::<O>())))
    }

    /// The latest output, cloned, tracked.
    pub fn get(&self) -> Option<O>
    where
        O: Clone,
    {
        self.with(|output| output.cloned())
    }
}
