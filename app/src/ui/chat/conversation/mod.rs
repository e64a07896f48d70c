//! One open chat: its history, the reply being written (streamed, with its
//! tool activity and question cards), Stop, Retry, and the message box.
//! The state and actions are [`state::OpenChat`]; the live reply is drawn
//! by [`live`].

mod live;
mod state;

use crate::ui::effect::effect;
use crate::ui::effect::effect_with;
use crate::ui::flow::Show;
use crate::ui::handler::handler;
use leptos::html;
use leptos::prelude::*;

use super::composer::Composer;
use crate::io::dashboard_events::DashboardEvents;
use crate::logic::reply::history_entries;
use live::LiveReplyView;
use state::{ChatActions, OpenChat};

#[component]
pub fn Conversation(id: String) -> impl IntoView {
    // The scrolling list of messages.
    let scroller = NodeRef::<html::Div>::new();
    let chat = OpenChat::new(id.clone(), scroller);
    let act = ChatActions::new(chat);
    effect(move || {
        if let Some(id) = chat.ended.get() {
            chat.load(Some(id));
        }
    });
    on_cleanup(move || chat.close());
    chat.load(None);
    reload_on_others_events(chat);
    let on_scroll = keep_at_bottom(chat, scroller);

    let waiting_question = Memo::new(move |_| chat.waiting_question());
    let mode = Signal::derive(move || chat.mode(waiting_question.with(Option::is_some)));
    let answer =
        Callback::new(move |text: String| act.answer(waiting_question.get_untracked(), Some(text)));
    let you_decide = Callback::new(move |()| act.answer(waiting_question.get_untracked(), None));
    let on_send = Callback::new(move |text: String| {
        chat.send_error.set(None);
        match waiting_question.get_untracked() {
            Some(question) => act.say(question, text),
            None => act.send(text),
        }
    });

    view! {
        <div class="conversation" data-testid="conversation" data-session-id=id>
            <ConversationHeader chat=chat act=act/>
            <div class="messages" node_ref=scroller on:scroll=on_scroll data-testid="messages">
                <History chat=chat/>
                <Show when=move || chat.retryable()>
                    <div class="retry-row">
                        <button class="retry" data-testid="retry" on:click={handler(move |_| act.retry())}>"↻ Retry"</button>
                    </div>
                </Show>
                <Show when=move || chat.live.with(Option::is_some)>
                    <LiveReplyView live=chat.live answer=answer you_decide=you_decide card_error=chat.card_error/>
                </Show>
            </div>
            {move || chat.send_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <Composer chat=chat.sid.get_value() mode=mode on_send=on_send/>
        </div>
    }
}

/// The chat's title, and Stop while a reply is written.
#[component]
fn ConversationHeader(chat: OpenChat, act: ChatActions) -> impl IntoView {
    let title = move || {
        chat.session.with(|s| match s {
            Some(Ok(s)) => s.title.clone(),
            _ => String::new(),
        })
    };
    view! {
        <header class="conversation-header">
            <h1 class="conversation-title">{title}</h1>
            <Show when=move || chat.writing()>
                <button class="danger stop" data-testid="stop" on:click={handler(move |_| act.stop())}>"■ Stop"</button>
            </Show>
        </header>
    }
}

/// The stored messages (while a reply is followed, up to its user
/// message: the rest is drawn from its events), or why there are none.
#[component]
fn History(chat: OpenChat) -> impl IntoView {
    move || {
        chat.session.with(|s| match s {
            Some(Ok(_)) => {
                let following = chat.live.with(Option::is_some);
                let entries = chat.window.history.with(|h| {
                    history_entries(if following { h.before_live_reply() } else { &h.messages })
                });
                chat.window.view(entries).into_any()
            }
            Some(Err(e)) if e.status == 404 => view! {
                <div class="empty-chat"><p>"This chat does not exist (any more)."</p><a href="/chat">"Back to chats"</a></div>
            }
            .into_any(),
            Some(Err(e)) => view! { <p class="error" role="alert">{e.message.clone()}</p> }.into_any(),
            None => view! { <p class="muted">"Loading…"</p> }.into_any(),
        })
    }
}

/// Another window may start or finish a reply here: reload on this chat's
/// own events (an event that names no session may be about any).
fn reload_on_others_events(chat: OpenChat) {
    let events: DashboardEvents = expect_context();
    effect_with(move |previous: Option<u64>| {
        let (count, about) = events.session_touched.get();
        let ours = about.is_none_or(|about| about == chat.sid.get_value());
        if previous.is_some_and(|p| p != count) && ours && chat.live.with_untracked(Option::is_none)
        {
            chat.load(None);
        }
        count
    });
}

/// Follows the reply at the bottom unless the user scrolled up; returns
/// the list's scroll handler, which moves the pin.
fn keep_at_bottom(chat: OpenChat, scroller: NodeRef<html::Div>) -> impl Fn(web_sys::Event) + Copy {
    let pinned = StoredValue::new(true);
    effect(move || {
        chat.live.track();
        chat.session.track();
        chat.window.history.track();
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
    move |_| {
        chat.window.scrolled();
        if let Some(el) = scroller.get() {
            let distance = el.scroll_height() - el.scroll_top() - el.client_height();
            pinned.set_value(distance < 48);
        }
    }
}
