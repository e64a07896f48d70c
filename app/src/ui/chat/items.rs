//! How history entries and reply items are drawn.

use leptos::prelude::*;

use super::question_card::QuestionCard;
use crate::logic::activity::describe;
use crate::logic::reply::{ending_note, HistoryEntry, ReplyItem};
use crate::protocol::Ended;

/// One stored message.
#[component]
pub fn HistoryView(entry: HistoryEntry) -> impl IntoView {
    match entry {
        HistoryEntry::User(text) => view! {
            <div class="msg user" data-testid="user-message">{text}</div>
        }
        .into_any(),
        HistoryEntry::Assistant {
            text,
            html,
            ended,
            error,
        } => view! {
            <div class="msg assistant" data-testid="assistant-message">
                {(!text.is_empty()).then(|| message_body(text, html))}
                {ended.map(|ended| view! {
                    <p class="msg-note" class:error=ended == Ended::Error
                        data-testid="reply-ended" data-ended=ended.as_str()>
                        {ending_note(ended, error.as_deref())}
                    </p>
                })}
            </div>
        }
        .into_any(),
        HistoryEntry::Item(ReplyItem::Question { question, state }) => view! {
            <QuestionCard question=question state=Signal::stored(state)/>
        }
        .into_any(),
        HistoryEntry::Item(ReplyItem::Tool {
            name, args, result, ..
        }) => view! {
            <p class="activity" data-testid="tool-activity" title=result.unwrap_or_default()>
                {describe(&name, &args, true)}
            </p>
        }
        .into_any(),
        HistoryEntry::Item(ReplyItem::Text { text, html }) => view! {
            <div class="msg assistant">{message_body(text, html)}</div>
        }
        .into_any(),
    }
}

/// An assistant message's text: the server's HTML (its Markdown rendered
/// safely), or plain text keeping its line breaks when there is none yet.
pub fn message_body(text: String, html: Option<String>) -> AnyView {
    match html {
        Some(html) => view! { <div class="markdown" inner_html=html></div> }.into_any(),
        None => view! { <div class="plain">{text}</div> }.into_any(),
    }
}

/// Whether a live item is drawn at all (an `ask_user` call is drawn as its
/// question card instead).
pub fn is_drawn(item: &ReplyItem) -> bool {
    !matches!(item, ReplyItem::Tool { name, .. } if name == "ask_user")
}
