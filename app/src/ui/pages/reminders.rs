//! The Memories page's Reminders tab: upcoming and done reminders, each
//! edited in place (text, and the time in the grounding grammar: "tomorrow
//! at 9"), marked done, deleted, and linked to the chat that set it.
//!
//! The list is a resource; every row's changes go through the tab's one
//! action, after each change the server made the list is read again, and a
//! row shows why a change of its own was refused.

use crate::ui::calls::{action, resource, Act};
use crate::ui::effect::effect;
use crate::ui::flow::Transition;
use crate::ui::handler::handler;
use leptos::prelude::*;

use crate::api::{delete_reminder, list_reminders, update_reminder, ApiError};
use crate::io::dashboard_events::DashboardEvents;
use crate::logic::records::repeat_label;
use crate::protocol::{Reminder, ReminderList, ReminderPatch, ReminderStatus, UnreadableReminder};
use crate::ui::read_errors::read_errors;
use imprint_text::days::local_time;

/// A change made from a row.
#[derive(Clone)]
enum Change {
    Edit(i64, ReminderPatch),
    Delete(i64),
}

/// A change's outcome, with the reminder it was about.
type Outcome = (i64, Result<(), ApiError>);

impl Change {
    async fn make(self) -> Outcome {
        match self {
            Change::Edit(id, patch) => (id, update_reminder(id, patch).await.map(drop)),
            Change::Delete(id) => (id, delete_reminder(id).await),
        }
    }
}

/// The tab's changes, one action for every row.
type Changes = Act<Change, Outcome>;

/// The one reminder being edited and what is typed so far. It lives with
/// the tab, not the row: the list is drawn again whenever any reminder
/// comes due or a notice is dismissed, and a row's own form would be lost
/// mid-edit.
#[derive(Clone, Copy)]
struct Editing {
    row: RwSignal<Option<i64>>,
    text: RwSignal<String>,
    when: RwSignal<String>,
}

impl Editing {
    fn new(changes: Changes) -> Self {
        let editing = Self {
            row: RwSignal::new(None),
            text: RwSignal::new(String::new()),
            when: RwSignal::new(String::new()),
        };
        // A change the server made to the edited reminder ends its edit; a
        // refused one keeps the form open, with the reason.
        effect(move || {
            changes.value().with(|latest| {
                if let Some((id, Ok(()))) = latest {
                    editing.row.update(|row| {
                        if *row == Some(*id) {
                            *row = None;
                        }
                    });
                }
            })
        });
        editing
    }

    fn open(self, reminder: &Reminder) {
        self.text.set(reminder.text.clone());
        self.when.set(String::new());
        self.row.set(Some(reminder.id));
    }
}

/// Why the latest change was refused, when it was `id`'s.
fn refused(changes: Changes, id: i64) -> impl Fn() -> Option<String> + Copy {
    move || {
        changes.value().with(|latest| match latest {
            Some((about, Err(e))) if *about == id => Some(e.message.clone()),
            _ => None,
        })
    }
}

#[component]
pub fn RemindersView(focus: Option<i64>) -> impl IntoView {
    let events: DashboardEvents = expect_context();
    // The done ones are shown, else the upcoming ones.
    let done = RwSignal::new(false);
    let changes: Changes = action(|change: &Change| change.clone().make());
    // How many changes the server made. A refused one leaves the list as
    // it is: its row keeps the form open, with the reason.
    let made = Memo::new(move |made: Option<&usize>| {
        let took = changes
            .value()
            .with(|latest| matches!(latest, Some((_, Ok(())))));
        made.copied().unwrap_or(0) + usize::from(took)
    });
    let editing = Editing::new(changes);
    let list = resource(move || {
        // A reminder that fires moves from upcoming to done.
        events.due_reminders.track();
        made.track();
        let asked = if done.get() {
            ReminderStatus::Done
        } else {
            ReminderStatus::Upcoming
        };
        list_reminders(Some(asked))
    });
    let choice = move |which: bool, label: &'static str, testid: &'static str| {
        view! {
            <button data-testid=testid aria-pressed=move || (done.get() == which).to_string()
                on:click={handler(move |_| done.set(which))}>{label}</button>
        }
    };
    view! {
        <div class="reminders-view" data-testid="reminders-view">
            <div class="reminder-status" role="group" aria-label="Which reminders">
                {choice(false, "Upcoming", "upcoming-reminders")}
                {choice(true, "Done", "done-reminders")}
            </div>
            <Transition fallback=|| view! { <p class="muted">"Loading reminders…"</p> }>
                <ErrorBoundary fallback=read_errors>
                    {move || Suspend::new(async move {
                        list.await.map(|list| view! { <Reminders list focus changes editing/> })
                    })}
                </ErrorBoundary>
            </Transition>
        </div>
    }
}

/// The reminders read: those that cannot be read first, then the list.
#[component]
fn Reminders(
    list: ReminderList,
    focus: Option<i64>,
    changes: Changes,
    editing: Editing,
) -> impl IntoView {
    let ReminderList {
        reminders,
        unreadable,
    } = list;
    view! {
        {(!unreadable.is_empty()).then(|| view! {
            <ul class="reminder-list unreadable" data-testid="unreadable-reminders"
                aria-label="Reminders that cannot be read">
                {unreadable.into_iter().map(|row| view! {
                    <UnreadableRow row=row changes=changes/>
                }).collect_view()}
            </ul>
        })}
        {if reminders.is_empty() {
            view! { <p class="muted" data-testid="no-reminders">"No reminders here."</p> }.into_any()
        } else {
            view! {
                <ul class="reminder-list" data-testid="reminder-list">
                    {reminders.into_iter().map(|r| view! {
                        <ReminderRow focused=focus == Some(r.id) reminder=r changes=changes editing=editing/>
                    }).collect_view()}
                </ul>
            }.into_any()
        }}
    }
}

/// A stored reminder that cannot be read: it never fires, and says so,
/// with the one thing that can be done about it.
#[component]
fn UnreadableRow(row: UnreadableReminder, changes: Changes) -> impl IntoView {
    let id = row.id;
    let remove = move |_| {
        changes.dispatch(Change::Delete(id));
    };
    view! {
        <li class="reminder-row" data-testid="unreadable-reminder" data-reminder-id=id>
            <p class="error">{format!("Reminder {id} cannot be read and will not fire: {}", row.problem)}</p>
            <div class="row-actions">
                <button data-testid="delete-unreadable-reminder" on:click=remove>"Delete it"</button>
            </div>
            {move || refused(changes, id)().map(|e| view! { <p class="error" role="alert">{e}</p> })}
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
fn ReminderRow(
    reminder: Reminder,
    focused: bool,
    changes: Changes,
    editing: Editing,
) -> impl IntoView {
    let id = reminder.id;
    let Editing { text, when, .. } = editing;
    let is_editing = Memo::new(move |_| editing.row.get() == Some(id));
    // A change the server made redraws the list, this row with it.
    let change = move |patch: ReminderPatch| {
        changes.dispatch(Change::Edit(id, patch));
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
        changes.dispatch(Change::Delete(id));
    };
    let shown = reminder.clone();
    let edit = move |_| editing.open(&reminder);
    view! {
        <li class="reminder-row" class:focused=focused data-testid="reminder-row" data-reminder-id=id>
            {move || if is_editing.get() {
                view! {
                    <form class="reminder-edit" on:submit=save>
                        <input type="text" aria-label="Reminder" data-testid="edit-reminder-text"
                            prop:value=move || text.get() on:input={handler(move |ev: leptos::ev::Event| text.set(event_target_value(&ev)))}/>
                        <input type="text" aria-label="When" placeholder="When, e.g. tomorrow at 9" data-testid="edit-reminder-when"
                            prop:value=move || when.get() on:input={handler(move |ev: leptos::ev::Event| when.set(event_target_value(&ev)))}/>
                        <button type="submit" class="primary" data-testid="save-reminder">"Save"</button>
                        <button type="button" on:click={handler(move |_| editing.row.set(None))}>"Cancel"</button>
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
                        <button data-testid="edit-reminder" on:click=edit.clone()>"Edit"</button>
                        {(!r.done).then(|| view! {
                            <button data-testid="reminder-done" on:click=mark_done>"Done"</button>
                        })}
                        <button data-testid="delete-reminder" on:click=remove>"Delete"</button>
                    </div>
                }.into_any()
            }}
            {move || refused(changes, id)().map(|e| view! { <p class="error" role="alert" data-testid="reminder-error">{e}</p> })}
        </li>
    }
}
