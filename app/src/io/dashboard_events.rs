//! The dashboard-wide events (`/api/events`, SSE), provided through
//! context for the whole page; closed in `on_cleanup`.

use futures::future::{AbortHandle, Abortable};
use futures::StreamExt;
use gloo_net::eventsource::futures::EventSource;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::logic::wire;
use crate::protocol::{DashboardEvent, MeaningState};

/// Dashboard-wide events, shared through context.
#[derive(Clone, Copy)]
pub struct DashboardEvents {
    /// Bumped whenever the sessions list may have changed (a reply started
    /// or ended, a question waits or closed, a session changed).
    pub sessions_version: ReadSignal<u64>,
    /// The session the latest such event was about, with a count that
    /// tells two events about one session apart: an open chat reloads for
    /// its own events only, not for every reply in every chat.
    pub session_touched: ReadSignal<(u64, Option<String>)>,
    /// Reminders that came due while the page was open, oldest first.
    pub due_reminders: RwSignal<Vec<DueReminder>>,
    /// Finding by meaning's latest progress (state, embedded, total).
    pub meaning: RwSignal<Option<(MeaningState, u64, u64)>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DueReminder {
    pub id: i64,
    pub text: String,
    pub due_at: String,
}

/// The session an event is about, if it names one.
fn session_of(event: &DashboardEvent) -> Option<&String> {
    match event {
        DashboardEvent::QuestionWaiting { session_id, .. }
        | DashboardEvent::QuestionClosed { session_id, .. }
        | DashboardEvent::ReplyStarted { session_id, .. }
        | DashboardEvent::ReplyFinished { session_id, .. } => Some(session_id),
        DashboardEvent::SessionsChanged { session_id } => session_id.as_ref(),
        DashboardEvent::ReminderDue { .. } | DashboardEvent::MeaningProgress { .. } => None,
    }
}

/// Opens `/api/events` for the whole dashboard and provides its events;
/// `on_due` is also told of each reminder as it comes due (the browser
/// notification, which this module knows nothing of), and `on_question` of
/// each question that starts waiting or closes (the inbox).
pub fn provide_dashboard_events(
    on_due: impl Fn(&str) + 'static,
    on_question: impl Fn(&DashboardEvent) + 'static,
) {
    let (sessions_version, set_version) = signal(0u64);
    let (session_touched, set_touched) = signal((0u64, None::<String>));
    let due_reminders = RwSignal::new(Vec::new());
    let meaning = RwSignal::new(None);
    provide_context(DashboardEvents {
        sessions_version,
        session_touched,
        due_reminders,
        meaning,
    });
    let touched = move |id: Option<&String>| {
        set_touched.update(|(count, session)| {
            *count += 1;
            *session = id.cloned();
        });
    };
    let (handle, registration) = AbortHandle::new_pair();
    let task = async move {
        let Ok(mut source) = EventSource::new("/api/events") else {
            return;
        };
        let Ok(mut messages) = source.subscribe("message") else {
            return;
        };
        while let Some(item) = messages.next().await {
            let Ok((_, message)) = item else { continue };
            let Some(event) = message
                .data()
                .as_string()
                .and_then(|d| serde_json::from_slice(d.as_bytes()).ok())
                .and_then(|value| wire::dashboard_event(&value))
            else {
                continue;
            };
            match event {
                DashboardEvent::ReminderDue { id, text, due_at } => {
                    on_due(&text);
                    due_reminders.update(|list| list.push(DueReminder { id, text, due_at }));
                }
                DashboardEvent::MeaningProgress {
                    state,
                    embedded,
                    total,
                } => meaning.set(Some((state, embedded, total))),
                question @ (DashboardEvent::QuestionWaiting { .. }
                | DashboardEvent::QuestionClosed { .. }) => {
                    on_question(&question);
                    set_version.update(|v| *v += 1);
                    touched(session_of(&question));
                }
                other => {
                    set_version.update(|v| *v += 1);
                    touched(session_of(&other));
                }
            }
        }
    };
    spawn_local(async move {
        let _ = Abortable::new(task, registration).await;
    });
    on_cleanup(move || handle.abort());
}
