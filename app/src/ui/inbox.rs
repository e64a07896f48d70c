//! "Waiting for you" in the browser: the header control with the number of
//! questions waiting, its panel answering each in place, the tab title's
//! count (also said in the page's live region when it changes), and a
//! browser notification when a question waits unseen. Its panel is a
//! [`DialogPanel`], as Echo's companion is.
//!
//! Fed by one read at start (`list_questions`, a resource) and the
//! dashboard events: `question_waiting` reads the list again,
//! `question_closed` removes the entry. Nothing polls. An answer sent from
//! the panel is an action.

use crate::ui::calls::{action, resource, Res};
use crate::ui::effect::effect;
use crate::ui::effect::effect_with;
use crate::ui::flow::{For, Show};
use crate::ui::handler::handler;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{Notification, NotificationOptions, NotificationPermission, VisibilityState};

use super::announcer::Announcer;
use super::chat::{local_time, QuestionCard};
use super::dialog::DialogPanel;
use super::focus::Disclosure;
use super::router::{chat_id, navigate_with, Location, A};
use crate::api::{answer_question, list_questions, ApiError};
use crate::logic::announce;
use crate::logic::inbox::{asker, needs_nudge, page_title, time_left, Waiting};
use crate::logic::reply::CardState;
use crate::protocol::{DashboardEvent, QuestionList, WaitingQuestion};

/// The questions waiting, shared through context.
#[derive(Clone, Copy)]
pub struct Inbox {
    /// The list read last, without the questions seen closing since.
    pub waiting: Memo<Waiting>,
    /// The list as read: at start, and again whenever a question starts
    /// waiting.
    read: Res<Result<QuestionList, ApiError>>,
    /// Questions seen closing: a list read before the close arrived must
    /// not bring them back.
    closed: RwSignal<Vec<String>>,
    /// Questions that started waiting while the page was open, to nudge
    /// about once the list holds them.
    started: StoredValue<Vec<String>>,
    /// Questions already nudged about (one notification each).
    nudged: StoredValue<Vec<String>>,
    location: Location,
}

/// Reads the waiting questions and keeps the tab title's count; the
/// dashboard events then feed it through [`Inbox::on_event`].
pub fn provide_inbox() -> Inbox {
    let read = resource(list_questions);
    let closed = RwSignal::new(Vec::<String>::new());
    let waiting = Memo::new(move |last: Option<&Waiting>| {
        let questions = match read.get() {
            Some(Ok(list)) => list.questions,
            // A list that cannot be read leaves the last one.
            _ => last.map(|w| w.questions.clone()).unwrap_or_default(),
        };
        let mut waiting = Waiting::default();
        closed.with(|ids| ids.iter().for_each(|id| waiting.closed(id)));
        waiting.loaded(questions);
        waiting
    });
    let inbox = Inbox {
        waiting,
        read,
        closed,
        started: StoredValue::new(Vec::new()),
        nudged: StoredValue::new(Vec::new()),
        location: expect_context(),
    };
    provide_context(inbox);
    effect(move || {
        let title = page_title(inbox.waiting.with(Waiting::count));
        document().set_title(&title);
    });
    // The number waiting is said in the live region when it changes (the
    // first read is no change: nothing is said).
    let announcer = use_context::<Announcer>();
    effect_with(move |before: Option<Option<usize>>| {
        let now = inbox.waiting.with(Waiting::count);
        if let (Some(Some(before)), Some(announcer)) = (before, announcer) {
            if before != now {
                announcer.say(announce::waiting_count(now));
            }
        }
        inbox.read.with(|read| read.is_some()).then_some(now)
    });
    // A question that started waiting is nudged about once it is read.
    effect(move || {
        inbox.waiting.track();
        inbox.nudge_started();
    });
    inbox
}

impl Inbox {
    /// A dashboard event about questions.
    pub fn on_event(self, event: &DashboardEvent) {
        match event {
            DashboardEvent::QuestionWaiting { question_id, .. } => {
                self.started
                    .update_value(|ids| ids.push(question_id.clone()));
                self.nudge_started();
                self.read.refetch();
            }
            DashboardEvent::QuestionClosed { question_id, .. } => {
                self.started
                    .update_value(|ids| ids.retain(|id| id != question_id));
                self.closed.update(|ids| {
                    if !ids.contains(question_id) {
                        ids.push(question_id.clone());
                    }
                });
            }
            _ => {}
        }
    }

    /// Nudges about the questions that started waiting and are read.
    fn nudge_started(self) {
        let ready: Vec<WaitingQuestion> = self.waiting.with_untracked(|w| {
            self.started
                .with_value(|ids| ids.iter().filter_map(|id| w.get(id).cloned()).collect())
        });
        for question in ready {
            self.started
                .update_value(|ids| ids.retain(|id| *id != question.id));
            self.nudge(&question);
        }
    }

    /// A browser notification for a question waiting unseen (once each).
    fn nudge(self, question: &WaitingQuestion) {
        if self.nudged.with_value(|n| n.contains(&question.id)) {
            return;
        }
        let hidden = document().visibility_state() == VisibilityState::Hidden;
        let open_chat = chat_id(&self.location.pathname.get_untracked());
        if !needs_nudge(hidden, open_chat.as_deref(), &question.session_id)
            || Notification::permission() != NotificationPermission::Granted
        {
            return;
        }
        self.nudged.update_value(|n| n.push(question.id.clone()));
        let options = NotificationOptions::new();
        options.set_body(&format!(
            "{}: {}",
            question.session_title, question.question
        ));
        options.set_tag(&question.id);
        let Ok(notification) = Notification::new_with_options("A question is waiting", &options)
        else {
            return;
        };
        // Clicking it brings the tab forward at the chat's card.
        let location = self.location;
        let path = format!("/chat/{}", question.session_id);
        let open = Closure::<dyn FnMut()>::new(move || {
            let _ = window().focus();
            navigate_with(location, &path);
        });
        notification.set_onclick(Some(open.as_ref().unchecked_ref()));
        open.forget();
    }
}

/// The header control: the count, and the panel it opens.
#[component]
pub fn InboxButton() -> impl IntoView {
    let inbox: Inbox = expect_context();
    let panel = Disclosure::closed();
    let open = panel.open;
    let count = move || inbox.waiting.with(Waiting::count);
    let questions = move || inbox.waiting.with(|w| w.questions.clone());
    view! {
        <div class="inbox" node_ref=panel.container>
            <button class="inbox-button" data-testid="inbox-button" class:has-waiting=move || { count() > 0 }
                node_ref=panel.opener
                aria-haspopup="dialog" aria-expanded=move || open.get().to_string()
                aria-label=move || format!("Waiting for you: {}", count())
                title="Questions waiting for you" on:click={handler(move |_| panel.toggle())}>
                <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none"
                    stroke="currentColor" stroke-width="2" stroke-linecap="round">
                    <path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/>
                    <path d="M10 9.5a2 2 0 1 1 2.6 1.9c-.4.2-.6.5-.6.9v.7"/><path d="M12 16h.01"/>
                </svg>
                <span class="inbox-count" data-testid="inbox-count">{count}</span>
            </button>
            <DialogPanel panel=panel title="Waiting for you" close_label="Close"
                class="inbox-panel" header_class="inbox-header" testid="inbox-panel">
                <Show when=move || count() == 0>
                    <p class="muted" data-testid="inbox-empty">"Nothing is waiting for you."</p>
                </Show>
                <For each=questions key=|q| q.id.clone() let:question>
                    <InboxEntry question=question/>
                </For>
            </DialogPanel>
        </div>
    }
}

/// One waiting question: its chat, who asks, the time left, and the card.
#[component]
fn InboxEntry(question: WaitingQuestion) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let (sid, qid) = (question.session_id.clone(), question.id.clone());
    // The card's state once an answer went: the entry leaves with
    // `question_closed`, and until then the card shows what was sent.
    let send = action(move |(answer, you_decide): &(Option<String>, bool)| {
        let (sid, qid, answer, you_decide) =
            (sid.clone(), qid.clone(), answer.clone(), *you_decide);
        async move {
            let shown = answer.clone();
            match answer_question(sid, qid, answer, you_decide).await {
                Ok(()) => Some(match shown {
                    Some(text) if !you_decide => CardState::Answered(text),
                    _ => CardState::LeftToImprint(None),
                }),
                Err(e) if e.status == 409 || e.status == 404 => Some(CardState::Stopped),
                Err(e) => {
                    error.set(Some(e.message));
                    None
                }
            }
        }
    });
    let state = Signal::derive(move || send.value().get().flatten().unwrap_or(CardState::Waiting));
    let on_answer = Callback::new(move |text: String| {
        error.set(None);
        send.dispatch((Some(text), false));
    });
    let on_you_decide = Callback::new(move |()| {
        error.set(None);
        send.dispatch((None, true));
    });
    let left = question.expires_at.as_deref().and_then(|at| {
        let expires = js_sys::Date::new(&JsValue::from_str(at)).get_time();
        (!expires.is_nan()).then(|| {
            let by = local_time(at).unwrap_or_default();
            format!(
                "{} (goes on at {by})",
                time_left(expires, js_sys::Date::now())
            )
        })
    });
    let href = format!("/chat/{}", question.session_id);
    let chat_title = question.session_title.clone();
    let card = question.to_question();
    view! {
        <div class="inbox-entry" data-testid="inbox-entry" data-question-id=question.id.clone()
            data-session-id=question.session_id.clone()>
            <p class="inbox-meta">
                <A href=href>{chat_title}</A>
                " · " <span data-testid="inbox-asker">{asker(question.origin)}</span>
                {left.map(|left| view! { " · " <span class="inbox-left">{left}</span> })}
            </p>
            <QuestionCard question=card state=state on_answer=on_answer
                error=error on_you_decide=on_you_decide passive=true/>
        </div>
    }
}
