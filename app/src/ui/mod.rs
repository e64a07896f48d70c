//! The dashboard's components (browser only).

mod announcer;
mod calls;
mod chat;
mod dialog;
mod echo;
mod effect;
mod flow;
mod focus;
mod handler;
mod inbox;
mod notifications;
mod pages;
mod read_errors;
mod router;
mod shell;
mod theme;
mod viewport;

use crate::logic::route::Route;
use crate::ui::effect::effect;
use leptos::prelude::*;

/// The whole dashboard: the shell around the routed page.
#[component]
pub fn App() -> impl IntoView {
    router::provide_router();
    theme::provide_theme();
    announcer::provide_announcer();
    viewport::follow_on_screen_keyboard();
    let inbox = inbox::provide_inbox();
    crate::io::dashboard_events::provide_dashboard_events(
        notifications::notify_if_hidden,
        move |event| inbox.on_event(event),
    );
    echo::provide_echo();
    let location = expect_context::<router::Location>();
    let route = Memo::new(move |_| Route::of(&location.pathname.get()));
    // `/` is the Chat page's address too.
    effect(move || {
        if route.get() == Route::Root {
            router::navigate_with(location, "/chat");
        }
    });
    view! {
        <shell::Shell>
            {move || match route.get() {
                Route::Root => ().into_any(),
                Route::Chat | Route::ChatSession => view! { <pages::ChatPage/> }.into_any(),
                Route::Voice => view! { <pages::VoicePage/> }.into_any(),
                Route::Memories => view! { <pages::MemoriesPage/> }.into_any(),
                Route::Model => view! { <pages::ModelPage/> }.into_any(),
                Route::NotFound => view! { <pages::NotFound/> }.into_any(),
            }}
        </shell::Shell>
    }
}
