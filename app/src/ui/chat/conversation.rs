//! One open chat: its history, the reply being written (streamed, with its
//! tool activity and question cards), Stop, and the message box.

use futures::future::AbortHandle;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::composer::{Composer, ComposerMode};
use super::items::{activity_line, message_body};
use super::message_window::{MessageWindow, FIRST};
use super::question_card::QuestionCard;
use crate::api::{
    answer_question, get_session_page, retry_reply, send_message, stop_reply, ApiError,
};
use crate::logic::announce;
use crate::logic::reply::{
    history_entries, offers_retry, CardState, ReplyItem, ReplyStatus, ReplyView,
};
use crate::protocol::{Ended, MessagePage, Role, Session};
use crate::ui::announcer::Announcer;
use crate::io::dashboard_events::DashboardEvents;
use crate::io::reply_stream::follow_reply;

/// The reply being followed.
#[derive(Clone, Debug, PartialEq)]
struct LiveReply {
    id: String,
    view: ReplyView,
}

#[component]
pub fn Conversation(id: String) -> impl IntoView {
    let sid = StoredValue::new(id.clone());
    // The session as last read; its messages are the window's history.
    let session = RwSignal::new(None::<Result<Session, ApiError>>);
    // The scrolling list of messages.
    let scroller = NodeRef::<html::Div>::new();
    // A long chat reads and draws its newest messages first, older ones on
    // the way up.
    let window = MessageWindow::new(sid, scroller);
    let live = RwSignal::new(None::<LiveReply>);
    let stream = StoredValue::new(None::<AbortHandle>);
    let card_error = RwSignal::new(None::<String>);
    let send_error = RwSignal::new(None::<String>);

    // Set when a followed reply's stream ends.
    let ended = RwSignal::new(None::<String>);
    let announcer = use_context::<Announcer>();
    let follow = move |reply_id: String| {
        if let Some(old) = stream.get_value() {
            old.abort();
        }
        card_error.set(None);
        live.set(Some(LiveReply {
            id: reply_id.clone(),
            view: ReplyView::default(),
        }));
        let ended_id = reply_id.clone();
        let handle = follow_reply(
            &sid.get_value(),
            &reply_id,
            move |seq, event| {
                live.update(|l| {
                    if let Some(l) = l.as_mut() {
                        l.view.apply(seq, event);
                    }
                })
            },
            move |_| ended.set(Some(ended_id)),
        );
        stream.set_value(Some(handle));
    };
    // Loads the session with its newest messages; then follows its reply
    // if one is being written and not followed yet. `finished` clears a
    // reply that just ended.
    let load = move |finished: Option<String>| {
        spawn_local(async move {
            let mut result = get_session_page(sid.get_value(), MessagePage::newest(FIRST)).await;
            let active = result
                .as_ref()
                .ok()
                .and_then(|s| s.reply.as_ref())
                .map(|r| r.id.clone());
            if let Ok(read) = result.as_mut() {
                let page = std::mem::take(&mut read.messages);
                let older = read.older.unwrap_or(0);
                window.history.update(|h| h.take_newest(page, older));
            }
            session.set(Some(result));
            if let Some(done) = finished {
                let status = live.with_untracked(|l| {
                    l.as_ref()
                        .filter(|l| l.id == done)
                        .map(|l| l.view.status.clone())
                });
                if let Some(status) = status {
                    live.set(None);
                    // Said once the stored reply (and how it ended) is read.
                    if let Some(announcer) = announcer {
                        let last = window.history.with_untracked(|h| {
                            h.messages
                                .iter()
                                .rev()
                                .find(|m| m.role != Role::Tool)
                                .filter(|m| m.role == Role::Assistant)
                                .map(|m| (m.ended, m.error.clone()))
                        });
                        let (ending, error) = match (status, last) {
                            (_, Some((Some(ended), error))) => (Some(ended), error),
                            (ReplyStatus::Stopped, _) => (Some(Ended::Stopped), None),
                            (ReplyStatus::Failed(error), _) => (Some(Ended::Error), Some(error)),
                            _ => (None, None),
                        };
                        announcer.say(announce::reply_ended(ending, error.as_deref()));
                    }
                }
            }
            if let Some(reply_id) = active {
                if live.with_untracked(|l| l.as_ref().map(|l| l.id != reply_id).unwrap_or(true)) {
                    follow(reply_id);
                }
            }
        });
    };
    Effect::new(move |_| {
        if let Some(id) = ended.get() {
            load(Some(id));
        }
    });
    on_cleanup(move || {
        if let Some(handle) = stream.get_value() {
            handle.abort();
        }
    });
    load(None);

    // Another window may start or finish a reply here.
    let events: DashboardEvents = expect_context();
    Effect::new(move |previous: Option<u64>| {
        let (count, about) = events.session_touched.get();
        // Only this chat's own events (an event that names no session may
        // be about any).
        let ours = about.is_none_or(|about| about == sid.get_value());
        if previous.is_some_and(|p| p != count) && ours && live.with_untracked(Option::is_none) {
            load(None);
        }
        count
    });

    let waiting_question = Memo::new(move |_| {
        live.with(|l| l.as_ref().and_then(|l| l.view.waiting_question().cloned()))
    });
    let writing = move || live.with(|l| l.as_ref().is_some_and(|l| !l.view.done));
    let mode = Signal::derive(move || {
        if waiting_question.get().is_some() {
            ComposerMode::Answer
        } else if writing() {
            ComposerMode::Busy
        } else {
            ComposerMode::Message
        }
    });

    let answer = Callback::new(move |text: String| {
        let Some(question) = waiting_question.get_untracked() else {
            return;
        };
        card_error.set(None);
        spawn_local(async move {
            match answer_question(sid.get_value(), question.id, Some(text), false).await {
                Ok(()) => {}
                // Another window answered first: its answer arrives on the
                // stream and closes the card.
                Err(e) if e.status == 409 => {}
                Err(e) => card_error.set(Some(e.message)),
            }
        });
    });
    let you_decide = Callback::new(move |()| {
        let Some(question) = waiting_question.get_untracked() else {
            return;
        };
        card_error.set(None);
        spawn_local(async move {
            match answer_question(sid.get_value(), question.id, None, true).await {
                Ok(()) => {}
                Err(e) if e.status == 409 => {}
                Err(e) => card_error.set(Some(e.message)),
            }
        });
    });
    let on_send = Callback::new(move |text: String| {
        send_error.set(None);
        if waiting_question.get_untracked().is_some() {
            answer.run(text);
            return;
        }
        spawn_local(async move {
            match send_message(sid.get_value(), text).await {
                Ok(started) => {
                    follow(started.reply_id);
                    load(None);
                }
                Err(e) => send_error.set(Some(e.message)),
            }
        });
    });
    let stop = move |_| {
        spawn_local(async move {
            let _ = stop_reply(sid.get_value()).await;
        });
    };
    // The same request again, as a new reply.
    let retry = move |_| {
        send_error.set(None);
        spawn_local(async move {
            match retry_reply(sid.get_value()).await {
                Ok(started) => {
                    follow(started.reply_id);
                    load(None);
                }
                Err(e) => send_error.set(Some(e.message)),
            }
        });
    };
    let retryable = move || {
        live.with(Option::is_none)
            && session.with(|s| matches!(s, Some(Ok(_))))
            && window.history.with(|h| offers_retry(&h.messages))
    };

    // Follow the reply at the bottom unless the user scrolled up.
    let pinned = StoredValue::new(true);
    let on_scroll = move |_| {
        window.scrolled();
        if let Some(el) = scroller.get() {
            let distance = el.scroll_height() - el.scroll_top() - el.client_height();
            pinned.set_value(distance < 48);
        }
    };
    Effect::new(move |_| {
        live.track();
        session.track();
        window.history.track();
        if pinned.get_value() {
            // After the redraw (the history's view may run after this
            // effect), in the same frame.
            queue_microtask(move || {
                if let Some(el) = scroller.get_untracked() {
                    el.set_scroll_top(el.scroll_height());
                }
            });
        }
    });

    let history = move || {
        session.with(|s| match s {
            Some(Ok(_)) => {
                // While a reply is followed, its stored rows are drawn
                // from its events: history up to its user message.
                let following = live.with(Option::is_some);
                let entries = window.history.with(|h| {
                    history_entries(if following { h.before_live_reply() } else { &h.messages })
                });
                window.view(entries).into_any()
            }
            Some(Err(e)) if e.status == 404 => view! {
                <div class="empty-chat"><p>"This chat does not exist (any more)."</p><a href="/chat">"Back to chats"</a></div>
            }
            .into_any(),
            Some(Err(e)) => view! { <p class="error" role="alert">{e.message.clone()}</p> }.into_any(),
            None => view! { <p class="muted">"Loading…"</p> }.into_any(),
        })
    };
    let title = move || {
        session.with(|s| match s {
            Some(Ok(s)) => s.title.clone(),
            _ => String::new(),
        })
    };

    view! {
        <div class="conversation" data-testid="conversation" data-session-id=id>
            <header class="conversation-header">
                <h1 class="conversation-title">{title}</h1>
                <Show when=writing>
                    <button class="danger stop" data-testid="stop" on:click=stop>"■ Stop"</button>
                </Show>
            </header>
            <div class="messages" node_ref=scroller on:scroll=on_scroll data-testid="messages">
                {history}
                <Show when=retryable>
                    <div class="retry-row">
                        <button class="retry" data-testid="retry" on:click=retry>"↻ Retry"</button>
                    </div>
                </Show>
                <Show when=move || live.with(Option::is_some)>
                    <LiveReplyView live=live answer=answer you_decide=you_decide card_error=card_error/>
                </Show>
            </div>
            {move || send_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <Composer chat=sid.get_value() mode=mode on_send=on_send/>
        </div>
    }
}

/// The reply being written, drawn item by item so a card keeps its state
/// (focus, typed text) while tokens stream around it.
#[component]
fn LiveReplyView(
    live: RwSignal<Option<LiveReply>>,
    answer: Callback<String>,
    you_decide: Callback<()>,
    card_error: RwSignal<Option<String>>,
) -> impl IntoView {
    let keys = move || {
        live.with(|l| {
            l.as_ref()
                .map(|l| {
                    l.view
                        .items
                        .iter()
                        .enumerate()
                        .filter(|(_, item)| item.is_drawn())
                        .map(|(i, item)| (i, item_kind(item)))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let status = move || {
        live.with(|l| {
            l.as_ref()
                .map(|l| (l.view.status.clone(), l.view.waiting_question().is_some()))
        })
    };
    view! {
        <div class="live-reply" data-testid="live-reply">
            <For each=keys key=|k| k.clone() let:((index, _kind))>
                <LiveItem live=live index=index answer=answer you_decide=you_decide card_error=card_error/>
            </For>
            {move || match status() {
                Some((ReplyStatus::Writing, true)) => view! { <p class="writing">"Waiting for your answer."</p> }.into_any(),
                Some((ReplyStatus::Writing, false)) => view! { <p class="writing" aria-live="polite">"Writing…"</p> }.into_any(),
                Some((ReplyStatus::Stopped, _)) => view! { <p class="msg-note" data-testid="reply-stopped">"Stopped."</p> }.into_any(),
                Some((ReplyStatus::Failed(error), _)) => view! { <p class="error" role="alert" data-testid="reply-error">{error}</p> }.into_any(),
                _ => ().into_any(),
            }}
        </div>
    }
}

fn item_kind(item: &ReplyItem) -> String {
    match item {
        ReplyItem::Text { html: None, .. } => "text".into(),
        // A new key: the streamed text's view is replaced by the answer's.
        ReplyItem::Text { .. } => "answer".into(),
        ReplyItem::Tool { id, .. } => format!("tool:{id}"),
        ReplyItem::Question { question, .. } => format!("question:{}", question.id),
    }
}

#[component]
fn LiveItem(
    live: RwSignal<Option<LiveReply>>,
    index: usize,
    answer: Callback<String>,
    you_decide: Callback<()>,
    card_error: RwSignal<Option<String>>,
) -> impl IntoView {
    let item = Memo::new(move |_| {
        live.with(|l| l.as_ref().and_then(|l| l.view.items.get(index).cloned()))
    });
    match item.get_untracked() {
        Some(ReplyItem::Text { html: None, .. }) => view! {
            <div class="msg assistant streaming" data-testid="streaming-text">
                <div class="plain">{move || match item.get() {
                    Some(ReplyItem::Text { text, .. }) => text,
                    _ => String::new(),
                }}</div>
            </div>
        }
        .into_any(),
        // The answer, rendered by the server (it replaces the streamed text).
        Some(ReplyItem::Text { text, html }) => view! {
            <div class="msg assistant" data-testid="assistant-message">{message_body(text, html)}</div>
        }
        .into_any(),
        Some(ReplyItem::Tool { .. }) => {
            (move || item.get().and_then(|item| item.activity()).map(activity_line)).into_any()
        }
        Some(ReplyItem::Question { question, .. }) => {
            let state = Signal::derive(move || match item.get() {
                Some(ReplyItem::Question { state, .. }) => state,
                _ => CardState::Waiting,
            });
            view! {
                <QuestionCard question=question state=state on_answer=answer error=card_error on_you_decide=you_decide/>
            }
            .into_any()
        }
        None => ().into_any(),
    }
}
