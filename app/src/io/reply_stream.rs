//! One reply's events from the server (SSE; the browser reconnects with
//! `Last-Event-ID` by itself), until `done`. The returned handle stops it:
//! its owner aborts it in `on_cleanup`.

use futures::future::{AbortHandle, Abortable};
use futures::StreamExt;
use gloo_net::eventsource::futures::EventSource;
use gloo_net::eventsource::State;
use leptos::task::spawn_local;

use crate::logic::wire;
use crate::protocol::ReplyEvent;

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
