//! Light and dark themes: the system's choice until the user toggles, then
//! the user's, remembered in local storage.

use crate::ui::effect::effect;
use leptos::prelude::*;

const STORAGE_KEY: &str = "imprint-theme";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
    fn parse(value: &str) -> Option<Self> {
        match value {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }
    pub fn toggled(self) -> Self {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn system_theme() -> Theme {
    let dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false);
    if dark {
        Theme::Dark
    } else {
        Theme::Light
    }
}

fn apply(theme: Theme) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("data-theme", theme.as_str());
    }
}

/// The theme in force, shared through context.
#[derive(Clone, Copy)]
pub struct ThemeSetting(pub RwSignal<Theme>);

pub fn provide_theme() {
    let stored = storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .and_then(|v| Theme::parse(&v));
    let theme = RwSignal::new(stored.unwrap_or_else(system_theme));
    // Touches the world outside (the root element), so an effect.
    effect(move || apply(theme.get()));
    provide_context(ThemeSetting(theme));
}

/// The toggle button in the header.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let ThemeSetting(theme) = expect_context();
    let toggle = move |_| {
        let next = theme.get_untracked().toggled();
        if let Some(s) = storage() {
            let _ = s.set_item(STORAGE_KEY, next.as_str());
        }
        theme.set(next);
    };
    let label = move || match theme.get() {
        Theme::Light => "Dark theme",
        Theme::Dark => "Light theme",
    };
    view! {
        <button class="theme-toggle" data-testid="theme-toggle" on:click=toggle
            aria-label=label title=label>
            {move || if theme.get() == Theme::Light { "☾" } else { "☀" }}
        </button>
    }
}
