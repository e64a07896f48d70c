//! "Waiting for you" in the browser: the header control with the number of
//! questions waiting, its panel answering each in place, the tab title's
//! count (also said in the page's live region when it changes), and a
//! browser notification when a question waits unseen. Its panel's
//! skeleton, [`DialogPanel`], is Echo's companion's too.
//!
//! Fed by one load at start (`list_questions`) and the dashboard events:
//! `question_waiting` loads the list again, `question_closed` removes the
//! entry. Nothing polls.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;
use web_sys::{Notification, NotificationOptions, NotificationPermission, VisibilityState};

use super::announcer::Announcer;
use super::chat::{local_time, QuestionCard};
use super::focus::Disclosure;
use super::router::{chat_id, navigate_with, Location, A};
use crate::api::{answer_question, list_questions};
use crate::logic::announce;
use crate::logic::inbox::{asker, needs_nudge, page_title, time_left, Waiting};
use crate::logic::reply::CardState;
use crate::protocol::{DashboardEvent, WaitingQuestion};

/// The questions waiting, shared through context.
#[derive(Clone, Copy)]
pub struct Inbox {
    pub waiting: RwSignal<Waiting>,
    /// Questions already nudged about (one notification each).
    nudged: StoredValue<Vec<String>>,
    location: Location,
    announcer: Option<Announcer>,
}

/// Loads the waiting questions and keeps the tab title's count; the
/// dashboard events then feed it through [`Inbox::on_event`].
pub fn provide_inbox() -> Inbox {
    let inbox = Inbox {
        waiting: RwSignal::new(Waiting::default()),
        nudged: StoredValue::new(Vec::new()),
        location: expect_context(),
        announcer: use_context(),
    };
    provide_context(inbox);
    inbox.load(None);
    Effect::new(move |_| {
        let title = page_title(inbox.waiting.with(Waiting::count));
        document().set_title(&title);
    });
    inbox
}

impl Inbox {
    /// A dashboard event about questions.
    pub fn on_event(self, event: &DashboardEvent) {
        match event {
            DashboardEvent::QuestionWaiting { question_id, .. } => {
                self.load(Some(question_id.clone()))
            }
            DashboardEvent::QuestionClosed { question_id, .. } => {
                let before = self.waiting.with_untracked(Waiting::count);
                self.waiting.update(|w| w.closed(question_id));
                self.say_count_if_changed(before);
            }
            _ => {}
        }
    }

    /// Loads the list; `new_question` just started waiting and may need a
    /// nudge.
    fn load(self, new_question: Option<String>) {
        spawn_local(async move {
            let Ok(list) = list_questions().await else {
                return;
            };
            let before = self.waiting.try_with_untracked(Waiting::count);
            self.waiting.try_update(|w| w.loaded(list.questions));
            let Some(id) = new_question else { return };
            if let Some(before) = before {
                self.say_count_if_changed(before);
            }
            if let Some(question) = self.waiting.with_untracked(|w| w.get(&id).cloned()) {
                self.nudge(&question);
            }
        });
    }

    /// Says the number waiting in the live region when it is not `before`
    /// (the first load is no change: nothing is said).
    fn say_count_if_changed(self, before: usize) {
        let now = self.waiting.with_untracked(Waiting::count);
        if now != before {
            if let Some(announcer) = self.announcer {
                announcer.say(announce::waiting_count(now));
            }
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
                title="Questions waiting for you" on:click=move |_| panel.toggle()>
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

/// The panel a control opens, for "Waiting for you" and Echo's companion:
/// a dialog named `title`, a title bar with its close button, then
/// `children`, drawn while `panel` is open. An opened panel takes the
/// focus: the element `focus` selects in it once its content is drawn,
/// else the panel itself at once; Escape and the close button give the
/// focus back to the opener ([`Disclosure`]).
#[component]
pub(crate) fn DialogPanel(
    panel: Disclosure,
    /// The dialog's name (`aria-label`) and its title bar's words.
    title: &'static str,
    /// The close button's `aria-label`.
    close_label: &'static str,
    class: &'static str,
    header_class: &'static str,
    testid: &'static str,
    /// A selector for what in the panel takes the focus when it opens.
    #[prop(optional)]
    focus: Option<&'static str>,
    children: ChildrenFn,
) -> impl IntoView {
    let panel_ref = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let Some(el) = panel_ref.get() else { return };
        let Some(selector) = focus else {
            let _ = el.focus();
            return;
        };
        // After the content inside is drawn.
        request_animation_frame(move || {
            let target = el
                .query_selector(selector)
                .ok()
                .flatten()
                .and_then(|found| found.dyn_into::<web_sys::HtmlElement>().ok());
            match target {
                Some(target) => {
                    let _ = target.focus();
                }
                None => {
                    let _ = el.focus();
                }
            }
        });
    });
    view! {
        <Show when=move || panel.open.get()>
            <div class=class role="dialog" aria-label=title data-testid=testid
                tabindex="-1" node_ref=panel_ref>
                <div class=header_class>
                    <strong>{title}</strong>
                    <button aria-label=close_label on:click=move |_| panel.close()>"×"</button>
                </div>
                {children()}
            </div>
        </Show>
    }
}

/// One waiting question: its chat, who asks, the time left, and the card.
#[component]
fn InboxEntry(question: WaitingQuestion) -> impl IntoView {
    let state = RwSignal::new(CardState::Waiting);
    let error = RwSignal::new(None::<String>);
    let send = move |sid: String, qid: String, answer: Option<String>, you_decide: bool| {
        error.set(None);
        spawn_local(async move {
            let shown = answer.clone();
            match answer_question(sid, qid, answer, you_decide).await {
                // The entry leaves with `question_closed`; until then the
                // card shows what was sent.
                Ok(()) => state.set(match shown {
                    Some(text) if !you_decide => CardState::Answered(text),
                    _ => CardState::LeftToImprint(None),
                }),
                Err(e) if e.status == 409 || e.status == 404 => state.set(CardState::Stopped),
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    let (sid, qid) = (question.session_id.clone(), question.id.clone());
    let on_answer = Callback::new({
        let (sid, qid) = (sid.clone(), qid.clone());
        move |text: String| send(sid.clone(), qid.clone(), Some(text), false)
    });
    let on_you_decide = Callback::new(move |()| send(sid.clone(), qid.clone(), None, true));
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
