//! The question card: the question, a button per option, a box for the
//! user's own words when allowed, and "You decide". It takes the focus
//! while it waits (unless the user is typing elsewhere) and is announced
//! once in the page's live region; Enter sends. The options are a toolbar
//! named by the question, one Tab stop: arrow keys, Home and End move
//! between them and Tab leaves them. An answered card is
//! disabled and shows the answer (or "Left to Imprint"); the focus then
//! goes back to the message box.

use crate::ui::effect::effect;
use crate::ui::effect::effect_with;
use crate::ui::flow::Show;
use crate::ui::handler::handler;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::logic::keys::roving_target;
use crate::logic::reply::CardState;
use crate::protocol::{Question, QuestionOrigin};
use crate::ui::announcer::Announcer;
use crate::ui::focus::{focus_in_or_lost, typing_elsewhere, unique_id};

#[component]
pub fn QuestionCard(
    question: Question,
    #[prop(into)] state: Signal<CardState>,
    /// Sends an answer; None for a card from history.
    #[prop(optional)]
    on_answer: Option<Callback<String>>,
    /// An error to show on the card (a refused answer).
    #[prop(optional)]
    error: Option<RwSignal<Option<String>>>,
    /// "You decide": leaves the choice to Imprint. None: no such button.
    #[prop(optional)]
    on_you_decide: Option<Callback<()>>,
    /// Leaves the focus where it is (a card among others in a list).
    #[prop(optional)]
    passive: bool,
) -> impl IntoView {
    let waiting = move || state.get() == CardState::Waiting && on_answer.is_some();
    let own_words = RwSignal::new(String::new());
    let card_ref = NodeRef::<html::Div>::new();
    let input_ref = NodeRef::<html::Input>::new();
    let option_refs: Vec<NodeRef<html::Button>> =
        question.options.iter().map(|_| NodeRef::new()).collect();
    let option_refs = StoredValue::new(option_refs);
    // The option that holds the options' one Tab stop.
    let active = RwSignal::new(0usize);
    let send = move |text: String| {
        if let Some(callback) = on_answer {
            if !text.trim().is_empty() {
                callback.run(text);
            }
        }
    };
    let announcer = use_context::<Announcer>();
    // Take the focus when the card appears waiting, unless the user is
    // writing something elsewhere; say the question once.
    let announced = question.clone();
    effect(move || {
        if !waiting() || passive {
            return;
        }
        if let Some(announcer) = announcer {
            announcer.question(&announced);
        }
        let card: Option<web_sys::Element> = card_ref.get().map(Into::into);
        if typing_elsewhere(card.as_ref()) {
            return;
        }
        if let Some(input) = input_ref.get() {
            let _ = input.focus();
        } else if let Some(button) = option_refs.with_value(|r| r.first().and_then(|b| b.get())) {
            let _ = button.focus();
        }
    });
    // Answered from the card: the focus, left on a control that is now
    // disabled or gone, goes to the box the user writes in next.
    effect_with(move |was_waiting: Option<bool>| {
        let now = waiting();
        if was_waiting == Some(true) && !now && !passive {
            let card: Option<web_sys::Element> = card_ref.get_untracked().map(Into::into);
            if focus_in_or_lost(card.as_ref()) {
                focus_writing_box(card.as_ref());
            }
        }
        now
    });
    let on_options_key = move |ev: web_sys::KeyboardEvent| {
        let count = option_refs.with_value(Vec::len);
        let Some(next) = roving_target(&ev.key(), active.get_untracked(), count) else {
            return;
        };
        ev.prevent_default();
        active.set(next);
        if let Some(button) = option_refs.with_value(|r| r[next].get_untracked()) {
            let _ = button.focus();
        }
    };
    let text_id = unique_id("question-text");
    let labelled_by = text_id.clone();
    let options_labelled_by = text_id.clone();
    let hint_id = unique_id("options-hint");
    let described_by = hint_id.clone();
    let by_imprint = question.origin == QuestionOrigin::Imprint;
    let expires = question.expires_at.clone().and_then(|at| local_time(&at));
    let options = question.options.clone();
    let allow_other = question.allow_other;
    let state_name = move || match state.get() {
        CardState::Waiting => "waiting",
        CardState::Answered(_) => "answered",
        CardState::LeftToImprint(_) => "left-to-imprint",
        CardState::TimedOut | CardState::Stopped => "unanswered",
    };
    view! {
        <div class="question-card" role="group" aria-labelledby=labelled_by node_ref=card_ref
            data-testid="question-card" data-state=state_name>
            <p class="question-label">{if by_imprint { "Imprint needs to know" } else { "Question" }}</p>
            <p class="question-text" id=text_id data-testid="question-text">{question.question.clone()}</p>
            {question.reason_words().map(|reason| view! { <p class="question-reason" data-testid="question-reason">{reason}</p> })}
            // One Tab stop for the choices, arrows between them: a toolbar
            // named by the question, so a screen reader entering it says
            // what is asked and that arrows move; a hint shown while the
            // focus is on them says so to everyone.
            {(!options.is_empty()).then(|| view! {
                <div class="question-options" role="toolbar" aria-labelledby=options_labelled_by
                    aria-describedby=described_by data-testid="question-options" on:keydown=on_options_key>
                    {options.into_iter().enumerate().map(|(i, option)| {
                        let chosen = option.clone();
                        let is_answer = {
                            let option = option.clone();
                            move || matches!(state.get(), CardState::Answered(a) if a == option)
                        };
                        let node = option_refs.with_value(|r| r[i]);
                        view! {
                            <OptionButton label=option node=node disabled=Signal::derive(move || !waiting())
                                chosen=Signal::derive(is_answer) on_click=Callback::new(move |_| send(chosen.clone()))
                                tab_stop=Signal::derive(move || active.get() == i)
                                on_focus=Callback::new(move |()| active.set(i))/>
                        }
                    }).collect_view()}
                </div>
                <p class="options-hint" id=hint_id data-testid="options-hint">
                    "Arrow keys move between the choices; Enter picks one."
                </p>
            })}
            <Show when=move || allow_other && waiting()>
                <form class="own-answer" on:submit={handler(move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    send(own_words.get_untracked());
                })}>
                    <input type="text" node_ref=input_ref data-testid="own-answer"
                        aria-label="Your answer" placeholder="Or answer in your own words"
                        prop:value=move || own_words.get()
                        on:input={handler(move |ev: leptos::ev::Event| own_words.set(event_target_value(&ev)))}/>
                    <button type="submit" class="primary">"Send"</button>
                </form>
            </Show>
            {on_you_decide.map(|decide| view! {
                <Show when=waiting>
                    <button type="button" class="you-decide" data-testid="you-decide"
                        title="Leave the choice to Imprint" on:click={handler(move |_| decide.run(()))}>
                        "You decide"
                    </button>
                </Show>
            })}
            <Show when=waiting>
                {expires.clone().map(|at| view! {
                    <p class="question-expiry">{format!("If nobody answers, Imprint goes on at {at} with its best assumption.")}</p>
                })}
            </Show>
            {move || state.get().summary().map(|summary| view! {
                <p class="card-summary" data-testid="card-summary">{summary}</p>
            })}
            {move || error.and_then(|e| e.get()).map(|message| view! {
                <p class="card-error" role="alert">{message}</p>
            })}
        </div>
    }
}

#[component]
fn OptionButton(
    label: String,
    node: NodeRef<html::Button>,
    disabled: Signal<bool>,
    chosen: Signal<bool>,
    on_click: Callback<()>,
    /// Whether this option is the options' Tab stop.
    tab_stop: Signal<bool>,
    on_focus: Callback<()>,
) -> impl IntoView {
    view! {
        <button type="button" class="option" node_ref=node class:chosen=move || chosen.get()
            tabindex=move || if tab_stop.get() { "0" } else { "-1" }
            on:focus={handler(move |_| on_focus.run(()))}
            aria-pressed=move || chosen.get().to_string()
            disabled=move || disabled.get() on:click={handler(move |_| on_click.run(()))}>
            {label}
        </button>
    }
}

/// Focuses where the user writes next: Echo's text box for a card in
/// Echo, else the chat's message box.
fn focus_writing_box(card: Option<&web_sys::Element>) {
    let echo_input = card
        .and_then(|c| c.closest(".echo").ok().flatten())
        .and_then(|echo| {
            echo.query_selector("[data-testid=echo-input]")
                .ok()
                .flatten()
        });
    let target = echo_input.or_else(|| document().get_element_by_id("message-box"));
    if let Some(el) = target.and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}

/// An RFC 3339 time as the user's local "HH:MM" (with the day if not today).
pub fn local_time(rfc3339: &str) -> Option<String> {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(rfc3339));
    if date.get_time().is_nan() {
        return None;
    }
    let today = js_sys::Date::new_0();
    let time = format!("{:02}:{:02}", date.get_hours(), date.get_minutes());
    if date.to_date_string() == today.to_date_string() {
        Some(time)
    } else {
        Some(format!("{} {time}", String::from(date.to_date_string())))
    }
}
