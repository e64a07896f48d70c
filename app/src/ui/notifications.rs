//! Due reminders: toasts on any open page, and a browser notification when
//! the page is hidden and the user allowed it. The permission (asked once,
//! from the bell) also covers questions waiting unseen (see `inbox`).

use crate::ui::flow::{For, Show};
use crate::ui::handler::handler;
use leptos::prelude::*;
use web_sys::{Notification, NotificationOptions, NotificationPermission, VisibilityState};

use crate::io::dashboard_events::DashboardEvents;

pub fn notify_if_hidden(text: &str) {
    let hidden = web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.visibility_state() == VisibilityState::Hidden);
    if hidden && Notification::permission() == NotificationPermission::Granted {
        let options = NotificationOptions::new();
        options.set_body(text);
        let _ = Notification::new_with_options("Imprint reminder", &options);
    }
}

/// The toasts of due reminders, each dismissable.
#[component]
pub fn ReminderToasts() -> impl IntoView {
    let DashboardEvents { due_reminders, .. } = expect_context();
    let dismiss = move |id: i64| due_reminders.update(|list| list.retain(|r| r.id != id));
    view! {
        <div class="toasts" role="status" aria-live="polite">
            <For each=move || due_reminders.get() key=|r| r.id let:reminder>
                <div class="toast" data-testid="reminder-toast">
                    <span class="toast-title">"Reminder"</span>
                    <span class="toast-text">{reminder.text.clone()}</span>
                    <button aria-label="Dismiss reminder" on:click={handler(move |_| dismiss(reminder.id))}>"×"</button>
                </div>
            </For>
        </div>
    }
}

/// Asks for permission to notify while the page is hidden, when not yet
/// decided.
#[component]
pub fn NotificationsButton() -> impl IntoView {
    let undecided = RwSignal::new(Notification::permission() == NotificationPermission::Default);
    let ask = move |_| {
        if let Ok(promise) = Notification::request_permission() {
            let _ = promise;
        }
        undecided.set(false);
    };
    view! {
        <Show when=move || undecided.get()>
            <button class="notify-button" title="Notify me of reminders and waiting questions while I look elsewhere"
                aria-label="Enable notifications" data-testid="enable-notifications" on:click=ask>
                <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2">
                    <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9"/><path d="M10.3 21a1.94 1.94 0 0 0 3.4 0"/>
                </svg>
            </button>
        </Show>
    }
}
