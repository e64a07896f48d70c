//! How history entries and reply items are drawn.

use leptos::prelude::*;

use super::question_card::QuestionCard;
use crate::logic::activity::Activity;
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
        HistoryEntry::Item(item @ ReplyItem::Tool { .. }) => match item.activity() {
            Some(activity) => activity_line(activity).into_any(),
            None => ().into_any(),
        },
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

/// One tool call's line; muted when the call did nothing.
pub fn activity_line(activity: Activity) -> impl IntoView {
    let class = if activity.muted {
        "activity muted-activity"
    } else {
        "activity"
    };
    let text = match activity.link {
        Some(href) => {
            view! { <a href=href data-testid="activity-link">{activity.text}</a> }.into_any()
        }
        None => activity.text.into_any(),
    };
    match activity.why {
        // A call that did nothing says why when its line is opened.
        Some(why) => view! {
            <details class=format!("{class} activity-why")>
                <summary data-testid="tool-activity">{text}</summary>
                <p data-testid="activity-why">{why}</p>
            </details>
        }
        .into_any(),
        None => view! { <p class=class data-testid="tool-activity">{text}</p> }.into_any(),
    }
}
