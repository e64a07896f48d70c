//! A read that failed, shown where its data would be: each error's message
//! as an alert (the fallback of the pages' `ErrorBoundary`s).

use leptos::error::Errors;
use leptos::prelude::*;

/// `ErrorBoundary`'s fallback: `<ErrorBoundary fallback=read_errors>`.
pub fn read_errors(errors: ArcRwSignal<Errors>) -> impl IntoView {
    move || {
        errors.with(|errors| {
            errors
                .iter()
                .map(|(_, e)| view! { <p class="error" role="alert">{e.to_string()}</p> })
                .collect_view()
        })
    }
}
