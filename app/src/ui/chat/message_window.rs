//! A chat's stored messages read and drawn as a window: a long chat opens
//! with only its newest page read from the server and drawn, and older
//! pages are read and drawn as the user scrolls up (or asks for them),
//! without moving what is on screen.

use crate::ui::calls::{action, Act};
use crate::ui::handler::handler;
use leptos::html;
use leptos::prelude::*;

use super::items::HistoryView;
use crate::api::{get_session_page, ApiError};
use crate::logic::history::LoadedHistory;
use crate::logic::reply::HistoryEntry;
use crate::protocol::MessagePage;

/// Messages read when a chat opens: more than a tall screen holds.
pub const FIRST: u32 = 60;
/// Messages read each time the user reaches the top.
const BATCH: u32 = 100;
/// How close to the top (in pixels) a scroll reads the next page, so it
/// is there before the user reaches the edge.
const NEAR_TOP: i32 = 400;

/// The part of a chat's history read so far, and the reading of more.
#[derive(Clone, Copy)]
pub struct MessageWindow {
    pub history: RwSignal<LoadedHistory>,
    /// Reads the page before a message (its seq) and draws it above.
    older: Act<i64, ()>,
    /// An older page is being read.
    reading: Memo<bool>,
    /// An older page is drawn, its scroll position not restored yet.
    drawing: StoredValue<bool>,
    /// Why the last older page could not be read.
    error: RwSignal<Option<String>>,
    /// The scrolling element holding the entries.
    scroller: NodeRef<html::Div>,
}

impl MessageWindow {
    pub fn new(sid: StoredValue<String>, scroller: NodeRef<html::Div>) -> Self {
        let history = RwSignal::new(LoadedHistory::default());
        let drawing = StoredValue::new(false);
        let error = RwSignal::new(None);
        let older = action(move |before: &i64| {
            let (sid, before) = (sid.get_value(), *before);
            async move {
                let page = get_session_page(sid, MessagePage::before(before, BATCH)).await;
                // The chat may have been left meanwhile.
                if drawing.try_get_value().is_none() {
                    return;
                }
                match page {
                    Ok(session) => {
                        let older = session.older.unwrap_or(0);
                        draw_older(scroller, drawing, || {
                            history.update(|h| h.take_older(session.messages, older))
                        });
                    }
                    Err(ApiError { message, .. }) => error.set(Some(message)),
                }
            }
        });
        Self {
            history,
            older,
            reading: older.pending(),
            drawing,
            error,
            scroller,
        }
    }

    /// `entries` (drawn from the history read), with a way to older ones
    /// above them.
    pub fn view(self, entries: Vec<HistoryEntry>) -> impl IntoView {
        let older = self.history.with(|h| h.older);
        let earlier = (older > 0).then(|| {
            view! {
                <button class="older-messages" data-testid="older-messages"
                    on:click={handler(move |_| self.read_older())}>
                    {format!("Show earlier messages ({older})")}
                </button>
            }
        });
        view! {
            {earlier}
            {move || self.error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {entries
                .into_iter()
                .map(|entry| view! { <HistoryView entry=entry/> })
                .collect_view()}
        }
    }

    /// For the scroller's `scroll` event: near the top, reads older entries.
    pub fn scrolled(self) {
        let near_top = self
            .scroller
            .get_untracked()
            .is_some_and(|el| el.scroll_top() < NEAR_TOP);
        if near_top {
            self.read_older();
        }
    }

    /// Reads the page before the first message read and draws it above,
    /// keeping the entries on screen where they are.
    fn read_older(self) {
        let next = self
            .history
            .with_untracked(|h| (h.older > 0).then(|| h.first_seq()).flatten());
        let Some(before) = next else {
            return;
        };
        if self.reading.get_untracked() || self.drawing.get_value() {
            return;
        }
        self.error.set(None);
        self.older.dispatch(before);
    }
}

/// Draws an older page (`draw`) above the entries, keeping them where they
/// are on screen: the distance to the bottom is unchanged.
fn draw_older(scroller: NodeRef<html::Div>, drawing: StoredValue<bool>, draw: impl FnOnce()) {
    let from_bottom = scroller
        .get_untracked()
        .map(|el| el.scroll_height() - el.scroll_top());
    draw();
    let Some(from_bottom) = from_bottom else {
        return;
    };
    drawing.set_value(true);
    // After the redraw, before the next paint.
    request_animation_frame(move || {
        if let Some(el) = scroller.get_untracked() {
            el.set_scroll_top(el.scroll_height() - from_bottom);
        }
        drawing.try_set_value(false);
    });
}
