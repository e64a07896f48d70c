//! The dashboard's components (browser only).

mod chat;
mod echo;
mod notifications;
mod pages;
mod shell;
mod speech;
mod streams;
mod theme;

use leptos::prelude::*;
use leptos_router::components::{Redirect, Route, Router, Routes};
use leptos_router::path;

/// The whole dashboard: the shell around the routed page.
#[component]
pub fn App() -> impl IntoView {
    theme::provide_theme();
    streams::provide_dashboard_events();
    echo::provide_echo();
    view! {
        <Router>
            <shell::Shell>
                <Routes fallback=|| view! { <pages::NotFound/> }>
                    <Route path=path!("/") view=|| view! { <Redirect path="/chat"/> }/>
                    <Route path=path!("/chat") view=pages::ChatPage/>
                    <Route path=path!("/chat/:id") view=pages::ChatPage/>
                    <Route path=path!("/voice") view=pages::VoicePage/>
                </Routes>
            </shell::Shell>
        </Router>
    }
}
