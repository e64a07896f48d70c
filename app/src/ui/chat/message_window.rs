//! A chat's stored messages drawn as a window: a long chat opens with only
//! its newest entries drawn, and older ones are drawn in batches as the
//! user scrolls up (or asks for them), without moving what is on screen.

use leptos::html;
use leptos::prelude::*;

use super::items::HistoryView;
use crate::logic::reply::HistoryEntry;

/// Entries drawn when a chat opens: more than a tall screen holds.
const FIRST: usize = 60;
/// Entries added each time the user reaches the top.
const BATCH: usize = 100;
/// How close to the top (in pixels) a scroll draws the next batch, so it
/// is there before the user reaches the edge.
const NEAR_TOP: i32 = 400;

/// Which of a chat's stored entries are drawn. Entries arriving later are
/// added at the end; the start only moves up, when the user asks.
#[derive(Clone, Copy)]
pub struct MessageWindow {
    /// The index of the first entry drawn; `None` until the history is
    /// first drawn.
    start: StoredValue<Option<usize>>,
    /// Bumped when `start` moves up, to draw again.
    grown: RwSignal<u32>,
    /// A batch was drawn and the scroll position is not restored yet.
    settling: StoredValue<bool>,
    /// The scrolling element holding the entries.
    scroller: NodeRef<html::Div>,
}

impl MessageWindow {
    pub fn new(scroller: NodeRef<html::Div>) -> Self {
        Self {
            start: StoredValue::new(None),
            grown: RwSignal::new(0),
            settling: StoredValue::new(false),
            scroller,
        }
    }

    /// The drawn entries of `entries`, with a way to older ones above
    /// them. Tracks the window: runs again when it grows.
    pub fn view(self, mut entries: Vec<HistoryEntry>) -> impl IntoView {
        self.grown.track();
        let start = self
            .start
            .get_value()
            .unwrap_or_else(|| entries.len().saturating_sub(FIRST))
            .min(entries.len());
        self.start.set_value(Some(start));
        let drawn = entries.split_off(start);
        let older = (start > 0).then(|| {
            view! {
                <button class="older-messages" data-testid="older-messages"
                    on:click=move |_| self.grow()>
                    {format!("Show earlier messages ({start})")}
                </button>
            }
        });
        view! {
            {older}
            {drawn
                .into_iter()
                .map(|entry| view! { <HistoryView entry=entry/> })
                .collect_view()}
        }
    }

    /// For the scroller's `scroll` event: near the top, draws older entries.
    pub fn scrolled(self) {
        let near_top = !self.settling.get_value()
            && self
                .scroller
                .get_untracked()
                .is_some_and(|el| el.scroll_top() < NEAR_TOP);
        if near_top {
            self.grow();
        }
    }

    /// Draws the next batch of older entries, keeping the entries on
    /// screen where they are (the distance to the bottom is unchanged).
    fn grow(self) {
        let Some(start) = self.start.get_value().filter(|start| *start > 0) else {
            return;
        };
        self.start.set_value(Some(start.saturating_sub(BATCH)));
        let from_bottom = self
            .scroller
            .get_untracked()
            .map(|el| el.scroll_height() - el.scroll_top());
        self.grown.update(|n| *n = n.wrapping_add(1));
        if let Some(from_bottom) = from_bottom {
            self.settling.set_value(true);
            // After the redraw, before the next paint.
            request_animation_frame(move || {
                if let Some(el) = self.scroller.get_untracked() {
                    el.set_scroll_top(el.scroll_height() - from_bottom);
                }
                self.settling.set_value(false);
            });
        }
    }
}
