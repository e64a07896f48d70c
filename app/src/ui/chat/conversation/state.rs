//! An open chat's state and what its actions do: the session as last
//! read (its messages are the window's history), the reply being followed
//! from its event stream, and sending, answering, stopping and retrying
//! (actions, [`ChatActions`]).

use crate::ui::calls::{action, Act};
use futures::future::AbortHandle;
use leptos::html;
use leptos::prelude::*;

use super::super::composer::ComposerMode;
use super::super::message_window::{MessageWindow, FIRST};
use crate::api::{
    answer_question, get_session_page, retry_reply, say, send_message, stop_reply, ApiError,
};
use crate::io::reply_stream::follow_reply;
use crate::logic::announce;
use crate::logic::reply::{offers_retry, ReplyStatus, ReplyView};
use crate::protocol::{Ended, MessagePage, Question, Role, Said, Session};
use crate::ui::announcer::Announcer;

/// The reply being followed.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveReply {
    pub id: String,
    pub view: ReplyView,
}

#[derive(Clone, Copy)]
pub struct OpenChat {
    pub sid: StoredValue<String>,
    pub session: RwSignal<Option<Result<Session, ApiError>>>,
    /// A long chat reads and draws its newest messages first, older ones
    /// on the way up.
    pub window: MessageWindow,
    pub live: RwSignal<Option<LiveReply>>,
    stream: StoredValue<Option<AbortHandle>>,
    pub card_error: RwSignal<Option<String>>,
    pub send_error: RwSignal<Option<String>>,
    /// Set when a followed reply's stream ends.
    pub ended: RwSignal<Option<String>>,
    announcer: Option<Announcer>,
}

impl OpenChat {
    pub fn new(id: String, scroller: NodeRef<html::Div>) -> Self {
        let sid = StoredValue::new(id);
        Self {
            sid,
            session: RwSignal::new(None),
            window: MessageWindow::new(sid, scroller),
            live: RwSignal::new(None),
            stream: StoredValue::new(None),
            card_error: RwSignal::new(None),
            send_error: RwSignal::new(None),
            ended: RwSignal::new(None),
            announcer: use_context::<Announcer>(),
        }
    }

    /// Stops following the reply (the chat is closed).
    pub fn close(self) {
        if let Some(handle) = self.stream.try_get_value().flatten() {
            handle.abort();
        }
    }

    /// Follows a reply's events (instead of any other).
    pub fn follow(self, reply_id: String) {
        // Called after a request's answer came back: the chat may have
        // been left meanwhile.
        if self.live.is_disposed() {
            return;
        }
        self.close();
        self.card_error.set(None);
        self.live.set(Some(LiveReply {
            id: reply_id.clone(),
            view: ReplyView::default(),
        }));
        let live = self.live;
        let ended = self.ended;
        let ended_id = reply_id.clone();
        let handle = follow_reply(
            &self.sid.get_value(),
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
        self.stream.set_value(Some(handle));
    }

    /// Loads the session with its newest messages; then follows its reply
    /// if one is being written and not followed yet. `finished` clears a
    /// reply that just ended.
    pub fn load(self, finished: Option<String>) {
        if self.live.is_disposed() {
            return;
        }
        // A task, not a resource: this read is the reply stream's other
        // half. Its page is folded into the window's history (beside the
        // older pages read), it settles how a followed reply ended, and it
        // hands a reply still being written to the stream (`follow`).
        leptos::task::spawn_local(async move {
            let mut result =
                get_session_page(self.sid.get_value(), MessagePage::newest(FIRST)).await;
            // The chat was closed while the page was read (the user went
            // to another page): its state is gone, and so is the need.
            if self.live.is_disposed() {
                return;
            }
            let active = result
                .as_ref()
                .ok()
                .and_then(|s| s.reply.as_ref())
                .map(|r| r.id.clone());
            if let Ok(read) = result.as_mut() {
                let page = std::mem::take(&mut read.messages);
                let older = read.older.unwrap_or(0);
                self.window.history.update(|h| h.take_newest(page, older));
            }
            self.session.set(Some(result));
            if let Some(done) = finished {
                self.finish(&done);
            }
            if let Some(reply_id) = active {
                let followed = self
                    .live
                    .with_untracked(|l| l.as_ref().is_some_and(|l| l.id == reply_id));
                if !followed {
                    self.follow(reply_id);
                }
            }
        });
    }

    /// The followed reply `done` ended and the stored one is read: it is
    /// drawn from history now, and how it ended is said.
    fn finish(self, done: &str) {
        let status = self.live.with_untracked(|l| {
            l.as_ref()
                .filter(|l| l.id == done)
                .map(|l| l.view.status.clone())
        });
        let Some(status) = status else { return };
        self.live.set(None);
        let Some(announcer) = self.announcer else {
            return;
        };
        let last = self.window.history.with_untracked(|h| {
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

    pub fn waiting_question(self) -> Option<Question> {
        self.live
            .with(|l| l.as_ref().and_then(|l| l.view.waiting_question().cloned()))
    }

    pub fn writing(self) -> bool {
        self.live.with(|l| l.as_ref().is_some_and(|l| !l.view.done))
    }

    /// What the message box does now.
    pub fn mode(self, question_waits: bool) -> ComposerMode {
        if question_waits {
            ComposerMode::Answer
        } else if self.writing() {
            ComposerMode::Busy
        } else {
            ComposerMode::Message
        }
    }

    pub fn retryable(self) -> bool {
        self.live.with(Option::is_none)
            && self.session.with(|s| matches!(s, Some(Ok(_))))
            && self.window.history.with(|h| offers_retry(&h.messages))
    }
}

/// How a reply is started: a message sent, or the same request again.
#[derive(Clone)]
enum Start {
    Send(String),
    Retry,
}

/// What the user does in an open chat, each an action.
#[derive(Clone, Copy)]
pub struct ChatActions {
    chat: OpenChat,
    answer: Act<(Question, Option<String>), ()>,
    say: Act<(Question, String), ()>,
    start: Act<Start, ()>,
    stop: Act<(), ()>,
}

impl ChatActions {
    pub fn new(chat: OpenChat) -> Self {
        let sid = chat.sid;
        let answer = action(move |(question, text): &(Question, Option<String>)| {
            let (qid, text) = (question.id.clone(), text.clone());
            let you_decide = text.is_none();
            let sid = sid.get_value();
            async move {
                match answer_question(sid, qid, text, you_decide).await {
                    Ok(()) => {}
                    // Another window answered first: its answer arrives on
                    // the stream and closes the card.
                    Err(e) if e.status == 409 => {}
                    Err(e) => chat.card_error.set(Some(e.message)),
                }
            }
        });
        // Typed in the message box while a question waits: the server
        // tells an answer from a new request, which starts a reply.
        let say = action(move |(question, text): &(Question, String)| {
            let (qid, text) = (question.id.clone(), text.clone());
            let sid = sid.get_value();
            async move {
                match say(sid, qid, text).await {
                    Ok(Said::Answer) => {}
                    Ok(Said::NewRequest { reply_id }) => {
                        chat.follow(reply_id);
                        chat.load(None);
                    }
                    // Below the message box, which outlives the card: the
                    // question may be gone (answered elsewhere, or its
                    // reply stopped for a new request that then failed).
                    Err(e) => chat
                        .send_error
                        .set(Some(format!("Your message was not sent: {}", e.message))),
                }
            }
        });
        let start = action(move |start: &Start| {
            let (sid, start) = (sid.get_value(), start.clone());
            async move {
                let started = match start {
                    Start::Send(text) => send_message(sid, text).await,
                    Start::Retry => retry_reply(sid).await,
                };
                match started {
                    Ok(started) => {
                        chat.follow(started.reply_id);
                        chat.load(None);
                    }
                    Err(e) => chat.send_error.set(Some(e.message)),
                }
            }
        });
        let stop = action(move |_: &()| {
            let sid = sid.get_value();
            async move {
                let _ = stop_reply(sid).await;
            }
        });
        Self {
            chat,
            answer,
            say,
            start,
            stop,
        }
    }

    /// Answers the question with `text`, or leaves it to Imprint.
    pub fn answer(self, question: Option<Question>, text: Option<String>) {
        let Some(question) = question else { return };
        self.chat.card_error.set(None);
        self.answer.dispatch((question, text));
    }

    /// Text typed in the message box while `question` waits: its answer,
    /// or a new request.
    pub fn say(self, question: Question, text: String) {
        self.chat.card_error.set(None);
        self.say.dispatch((question, text));
    }

    /// Sends a message, which starts a reply.
    pub fn send(self, text: String) {
        self.chat.send_error.set(None);
        self.start.dispatch(Start::Send(text));
    }

    /// The same request again, as a new reply.
    pub fn retry(self) {
        self.chat.send_error.set(None);
        self.start.dispatch(Start::Retry);
    }

    pub fn stop(self) {
        self.stop.dispatch(());
    }
}
