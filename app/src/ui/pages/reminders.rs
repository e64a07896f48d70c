//! The Memories page's Reminders tab: upcoming and done reminders, each
//! edited in place (text, and the time in the grounding grammar: "tomorrow
//! at 9"), marked done, deleted, and linked to the chat that set it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{delete_reminder, list_reminders, update_reminder};
use crate::io::dashboard_events::DashboardEvents;
use crate::logic::activity::local_time;
use crate::logic::records::repeat_label;
use crate::protocol::{Reminder, ReminderPatch, ReminderStatus, UnreadableReminder};

#[component]
pub fn RemindersView(focus: Option<i64>) -> impl IntoView {
    let events: DashboardEvents = expect_context();
    // The done ones are shown, else the upcoming ones.
    let done = RwSignal::new(false);
    let reminders = RwSignal::new(None::<Vec<Reminder>>);
    let unreadable = RwSignal::new(Vec::<UnreadableReminder>::new());
    let error = RwSignal::new(None::<String>);
    let reload = RwSignal::new(0u64);
    let latest = StoredValue::new(0u64);
    Effect::new(move |_| {
        // A reminder that fires moves from upcoming to done.
        events.due_reminders.track();
        reload.track();
        let asked = if done.get() {
            ReminderStatus::Done
        } else {
            ReminderStatus::Upcoming
        };
        let request = latest.get_value() + 1;
        latest.set_value(request);
        spawn_local(async move {
            let result = list_reminders(Some(asked)).await;
            if latest.try_get_value() == Some(request) {
                match result {
                    Ok(list) => {
                        unreadable.try_set(list.unreadable);
                        reminders.try_set(Some(list.reminders));
                    }
                    Err(e) => {
                        error.try_set(Some(e.message));
                    }
                }
            }
        });
    });
    let choice = move |which: bool, label: &'static str, testid: &'static str| {
        view! {
            <button data-testid=testid aria-pressed=move || (done.get() == which).to_string()
                on:click=move |_| done.set(which)>{label}</button>
        }
    };
    view! {
        <div class="reminders-view" data-testid="reminders-view">
            <div class="reminder-status" role="group" aria-label="Which reminders">
                {choice(false, "Upcoming", "upcoming-reminders")}
                {choice(true, "Done", "done-reminders")}
            </div>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || {
                let rows = unreadable.get();
                (!rows.is_empty()).then(|| view! {
                    <ul class="reminder-list unreadable" data-testid="unreadable-reminders"
                        aria-label="Reminders that cannot be read">
                        {rows.into_iter().map(|row| view! {
                            <UnreadableRow row=row reload=reload/>
                        }).collect_view()}
                    </ul>
                })
            }}
            {move || match reminders.get() {
                None => view! { <p class="muted">"Loading reminders…"</p> }.into_any(),
                Some(list) if list.is_empty() => view! {
                    <p class="muted" data-testid="no-reminders">"No reminders here."</p>
                }.into_any(),
                Some(list) => view! {
                    <ul class="reminder-list" data-testid="reminder-list">
                        {list.into_iter().map(|r| view! {
                            <ReminderRow focused=focus == Some(r.id) reminder=r reload=reload/>
                        }).collect_view()}
                    </ul>
                }.into_any(),
            }}
        </div>
    }
}

/// A stored reminder that cannot be read: it never fires, and says so,
/// with the one thing that can be done about it.
#[component]
fn UnreadableRow(row: UnreadableReminder, reload: RwSignal<u64>) -> impl IntoView {
    let id = row.id;
    let error = RwSignal::new(None::<String>);
    let remove = move |_| {
        spawn_local(async move {
            match delete_reminder(id).await {
                Ok(()) => reload.update(|n| *n += 1),
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
        });
    };
    view! {
        <li class="reminder-row" data-testid="unreadable-reminder" data-reminder-id=id>
            <p class="error">{format!("Reminder {id} cannot be read and will not fire: {}", row.problem)}</p>
            <div class="row-actions">
                <button data-testid="delete-unreadable-reminder" on:click=remove>"Delete it"</button>
            </div>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </li>
    }
}

/// A stored UTC time as the user's wall clock: "Tue 1 Dec 09:00".
fn shown_time(due_at: &str) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(due_at));
    let wall = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}",
        date.get_full_year(),
        date.get_month() + 1,
        date.get_date(),
        date.get_hours(),
        date.get_minutes()
    );
    local_time(&wall).unwrap_or_else(|| due_at.to_string())
}

#[component]
fn ReminderRow(reminder: Reminder, focused: bool, reload: RwSignal<u64>) -> impl IntoView {
    let id = reminder.id;
    let editing = RwSignal::new(false);
    let text = RwSignal::new(reminder.text.clone());
    let when = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let change = move |patch: ReminderPatch| {
        spawn_local(async move {
            match update_reminder(id, patch).await {
                Ok(_) => {
                    editing.try_set(false);
                    reload.update(|n| *n += 1);
                }
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
        });
    };
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let at = when.get_untracked();
        change(ReminderPatch {
            text: Some(text.get_untracked()),
            at: (!at.trim().is_empty()).then_some(at),
            ..Default::default()
        });
    };
    let mark_done = move |_| {
        change(ReminderPatch {
            done: Some(true),
            ..Default::default()
        })
    };
    let remove = move |_| {
        spawn_local(async move {
            match delete_reminder(id).await {
                Ok(()) => reload.update(|n| *n += 1),
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
        });
    };
    let shown = reminder.clone();
    view! {
        <li class="reminder-row" class:focused=focused data-testid="reminder-row" data-reminder-id=id>
            {move || if editing.get() {
                view! {
                    <form class="reminder-edit" on:submit=save>
                        <input type="text" aria-label="Reminder" data-testid="edit-reminder-text"
                            prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))/>
                        <input type="text" aria-label="When" placeholder="When, e.g. tomorrow at 9" data-testid="edit-reminder-when"
                            prop:value=move || when.get() on:input=move |ev| when.set(event_target_value(&ev))/>
                        <button type="submit" class="primary" data-testid="save-reminder">"Save"</button>
                        <button type="button" on:click=move |_| editing.set(false)>"Cancel"</button>
                    </form>
                }.into_any()
            } else {
                let r = shown.clone();
                view! {
                    <p class="reminder-text" data-testid="reminder-text">{r.text.clone()}</p>
                    <p class="reminder-meta">
                        <time datetime=r.due_at.clone() data-testid="reminder-when">{shown_time(&r.due_at)}</time>
                        {r.repeat.map(|repeat| view! { <span class="tag">{repeat_label(Some(repeat))}</span> })}
                        {r.session_id.clone().map(|sid| view! {
                            <a href=format!("/chat/{sid}") data-testid="reminder-chat">"From a chat"</a>
                        })}
                    </p>
                    <div class="row-actions">
                        <button data-testid="edit-reminder" on:click=move |_| editing.set(true)>"Edit"</button>
                        {(!r.done).then(|| view! {
                            <button data-testid="reminder-done" on:click=mark_done>"Done"</button>
                        })}
                        <button data-testid="delete-reminder" on:click=remove>"Delete"</button>
                    </div>
                }.into_any()
            }}
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="reminder-error">{e}</p> })}
        </li>
    }
}
