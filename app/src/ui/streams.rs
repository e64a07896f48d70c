//! Event streams from the server, one capability each: a reply's events
//! (SSE; the browser reconnects with `Last-Event-ID` by itself) and the
//! dashboard-wide events. Each closes when its owner is cleaned up.

use futures::future::{AbortHandle, Abortable};
use futures::StreamExt;
use gloo_net::eventsource::futures::EventSource;
use gloo_net::eventsource::State;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::logic::wire;
use crate::protocol::{DashboardEvent, ReplyEvent};

/// How following a reply ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// `done` arrived.
    Done,
    /// The server has no such reply (it ended while we were away).
    Gone,
}

/// Follows one reply's events until `done`. The returned handle stops it.
pub fn follow_reply(
    session_id: &str,
    reply_id: &str,
    on_event: impl Fn(u64, ReplyEvent) + 'static,
    on_end: impl FnOnce(StreamEnd) + 'static,
) -> AbortHandle {
    let url = format!("/api/chat/sessions/{session_id}/reply?reply_id={reply_id}");
    let (handle, registration) = AbortHandle::new_pair();
    let task = async move {
        let Ok(mut source) = EventSource::new(&url) else {
            on_end(StreamEnd::Gone);
            return;
        };
        let Ok(mut messages) = source.subscribe("message") else {
            on_end(StreamEnd::Gone);
            return;
        };
        while let Some(item) = messages.next().await {
            match item {
                Ok((_, message)) => {
                    let seq = message.last_event_id().parse().unwrap_or(0);
                    let Some(data) = message.data().as_string() else {
                        continue;
                    };
                    let Some(event) = serde_json::from_slice(data.as_bytes())
                        .ok()
                        .and_then(|value| wire::reply_event(&value))
                    else {
                        continue;
                    };
                    let done = event.is_done();
                    on_event(seq, event);
                    if done {
                        source.close();
                        on_end(StreamEnd::Done);
                        return;
                    }
                }
                // The browser retries a dropped connection on its own
                // (resuming after the last id); a refused one is closed.
                Err(_) if source.state() == State::Closed => {
                    on_end(StreamEnd::Gone);
                    return;
                }
                Err(_) => {}
            }
        }
        on_end(StreamEnd::Gone);
    };
    spawn_local(async move {
        let _ = Abortable::new(task, registration).await;
    });
    handle
}

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
        DashboardEvent::ReminderDue { .. } => None,
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
    provide_context(DashboardEvents {
        sessions_version,
        session_touched,
        due_reminders,
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
