//! The reply being written, drawn from its events item by item: streamed
//! text, tool activity, question cards, and how it is going.

use crate::ui::flow::For;
use leptos::prelude::*;

use super::super::items::{activity_line, message_body};
use super::super::question_card::QuestionCard;
use super::state::LiveReply;
use crate::logic::reply::{CardState, ReplyItem, ReplyStatus};

/// The reply being written, drawn item by item so a card keeps its state
/// (focus, typed text) while tokens stream around it.
#[component]
pub fn LiveReplyView(
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
