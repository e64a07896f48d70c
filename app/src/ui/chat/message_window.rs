//! A chat's stored messages read and drawn as a window: a long chat opens
//! with only its newest page read from the server and drawn, and older
//! pages are read and drawn as the user scrolls up (or asks for them),
//! without moving what is on screen.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::items::HistoryView;
use crate::api::{get_session_page, ApiError};
use crate::logic::history::LoadedHistory;
use crate::logic::reply::HistoryEntry;
use crate::protocol::{Message, MessagePage};

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
    sid: StoredValue<String>,
    pub history: RwSignal<LoadedHistory>,
    /// An older page is being read, or drawn with the scroll position not
    /// restored yet.
    busy: StoredValue<bool>,
    /// Why the last older page could not be read.
    error: RwSignal<Option<String>>,
    /// The scrolling element holding the entries.
    scroller: NodeRef<html::Div>,
}

impl MessageWindow {
    pub fn new(sid: StoredValue<String>, scroller: NodeRef<html::Div>) -> Self {
        Self {
            sid,
            history: RwSignal::new(LoadedHistory::default()),
            busy: StoredValue::new(false),
            error: RwSignal::new(None),
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
                    on:click=move |_| self.read_older()>
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
    /// keeping the entries on screen where they are (the distance to the
    /// bottom is unchanged).
    fn read_older(self) {
        let next = self
            .history
            .with_untracked(|h| (h.older > 0).then(|| h.first_seq()).flatten());
        let Some(before) = next else {
            return;
        };
        if self.busy.get_value() {
            return;
        }
        self.busy.set_value(true);
        self.error.set(None);
        spawn_local(async move {
            let page =
                get_session_page(self.sid.get_value(), MessagePage::before(before, BATCH)).await;
            // The chat may have been left meanwhile.
            let Some(true) = self.busy.try_get_value() else {
                return;
            };
            match page {
                Ok(session) => self.draw_older(session.messages, session.older.unwrap_or(0)),
                Err(ApiError { message, .. }) => {
                    self.error.set(Some(message));
                    self.busy.set_value(false);
                }
            }
        });
    }

    fn draw_older(self, page: Vec<Message>, older: u64) {
        let from_bottom = self
            .scroller
            .get_untracked()
            .map(|el| el.scroll_height() - el.scroll_top());
        self.history.update(|h| h.take_older(page, older));
        let Some(from_bottom) = from_bottom else {
            self.busy.set_value(false);
            return;
        };
        // After the redraw, before the next paint.
        request_animation_frame(move || {
            if let Some(el) = self.scroller.get_untracked() {
                el.set_scroll_top(el.scroll_height() - from_bottom);
            }
            self.busy.try_set_value(false);
        });
    }
}
