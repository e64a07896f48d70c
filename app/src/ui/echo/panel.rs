//! Echo's view: the microphone, the live transcript, the turns with their
//! replies and question cards, typed input, Stop reply and the saving
//! switch. The Voice page shows it; the companion opens it in a panel.

use crate::ui::effect::effect;
use crate::ui::flow::{For, Show};
use crate::ui::handler::handler;
use leptos::prelude::*;

use super::hearing::{EarStatus, RecogniserSetting, Unavailable};
use super::Echo;
use crate::io::microphone;
use crate::io::speech::recognition;
use crate::logic::echo::Recogniser;
use crate::logic::reply::CardState;
use crate::protocol::{Question, QuestionOrigin};
use crate::ui::chat::QuestionCard;
use crate::ui::dialog::DialogPanel;
use crate::ui::focus::Disclosure;

#[component]
pub fn EchoPanel() -> impl IntoView {
    let echo: Echo = expect_context();
    effect(move || echo.connect(false));
    let typed = RwSignal::new(String::new());
    let send_typed = move || {
        let text = typed.get_untracked();
        if !text.trim().is_empty() {
            echo.typed(text);
            typed.set(String::new());
        }
    };
    let web_speech = recognition::available();
    let can_record = microphone::available();
    let mic_supported = move || match echo.recogniser.get() {
        Recogniser::Imprint => can_record,
        Recogniser::Browser => web_speech,
    };
    let busy = move || echo.state.with(|s| s.busy());
    view! {
        <div class="echo" data-testid="echo">
            <div class="echo-controls">
                <button class="mic" class:listening=move || echo.listening.get() data-testid="mic"
                    aria-pressed=move || echo.listening.get().to_string()
                    disabled=move || !mic_supported()
                    on:click={handler(move |_| echo.toggle_listening())}>
                    // An inline icon: the microphone glyph is an empty box
                    // with common Linux fonts.
                    <Show when=move || !echo.listening.get()>
                        <svg class="mic-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"
                            fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round">
                            <rect x="9" y="3" width="6" height="11" rx="3"/>
                            <path d="M5 11a7 7 0 0 0 14 0"/><path d="M12 18v3"/>
                        </svg>
                    </Show>
                    {move || if echo.listening.get() { "● Listening" } else { "Talk" }}
                </button>
                <Show when=busy>
                    <button class="danger" data-testid="echo-stop" on:click={handler(move |_| echo.stop())}>"■ Stop reply"</button>
                </Show>
                <Switch testid="echo-saving" label="Save this conversation"
                    checked=Signal::derive(move || echo.state.with(|s| s.saving))
                    set=move |on| echo.set_saving(on)/>
                <Switch testid="echo-writes" label="Let Echo save notes and set reminders"
                    checked=Signal::derive(move || echo.state.with(|s| s.writes))
                    set=move |on| echo.set_writes(on)/>
            </div>
            <RecogniserSetting/>
            <EarStatus/>
            <Unavailable/>
            {move || (!mic_supported()).then(|| view! {
                <p class="muted" data-testid="no-speech">"This browser cannot listen; type to Echo instead."</p>
            })}
            {move || echo.mic_problem.get().map(|p| view! { <p class="muted" data-testid="mic-problem">{p}</p> })}
            <p class="transcript" data-testid="transcript" aria-live="polite">
                {move || echo.state.with(|s| s.ear.heard.clone())}
            </p>
            <div class="echo-turns" data-testid="echo-turns">
                <For each=move || echo.state.with(|s| s.turns.iter().map(|t| t.id.clone()).collect::<Vec<_>>())
                    key=|id| id.clone() let:id>
                    <EchoTurnView id=id/>
                </For>
            </div>
            {move || echo.state.with(|s| (!s.queue.is_empty()).then(|| view! {
                <p class="muted" data-testid="echo-queue">{format!("Next: {}", s.queue.join(" · "))}</p>
            }))}
            {move || echo.state.with(|s| s.confirming.clone()).map(|(_, _, speech)| view! {
                <div class="echo-confirm" role="group" aria-label="Confirm the answer" data-testid="echo-confirm">
                    <p>{speech}</p>
                    <button class="primary" data-testid="echo-confirm-yes" on:click={handler(move |_| echo.typed("yes".into()))}>"Yes"</button>
                    <button data-testid="echo-confirm-no" on:click={handler(move |_| echo.typed("no".into()))}>"No"</button>
                </div>
            })}
            {move || echo.state.with(|s| s.notice.clone()).map(|n| view! { <p class="muted" data-testid="echo-notice">{n}</p> })}
            <form class="composer" on:submit={handler(move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); send_typed(); })}>
                <input type="text" data-testid="echo-input" aria-label="Type to Echo"
                    placeholder=move || if echo.state.with(|s| s.waiting_question().is_some()) { "Answer the question…" } else { "Type to Echo…" }
                    prop:value=move || typed.get() on:input={handler(move |ev: leptos::ev::Event| typed.set(event_target_value(&ev)))}/>
                <button type="submit" class="primary">"Send"</button>
            </form>
        </div>
    }
}

/// One of Echo's switches: a labelled checkbox.
#[component]
fn Switch(
    testid: &'static str,
    label: &'static str,
    checked: Signal<bool>,
    set: impl Fn(bool) + 'static,
) -> impl IntoView {
    view! {
        <label class="saving">
            <input type="checkbox" data-testid=testid prop:checked=checked
                on:change={handler(move |ev: leptos::ev::Event| set(event_target_checked(&ev)))}/>
            {format!(" {label}")}
        </label>
    }
}

#[component]
fn EchoTurnView(id: String) -> impl IntoView {
    let echo: Echo = expect_context();
    let turn = Memo::new({
        let id = id.clone();
        move |_| {
            echo.state
                .with(|s| s.turns.iter().find(|t| t.id == id).cloned())
        }
    });
    let question_id = Memo::new(move |_| {
        turn.with(|t| {
            t.as_ref()
                .and_then(|t| t.question.as_ref().map(|(q, _)| q.id.clone()))
        })
    });
    view! {
        <div class="echo-turn" data-testid="echo-turn">
            <div class="msg user" data-testid="echo-heard">{move || turn.with(|t| t.as_ref().map(|t| t.text.clone()))}</div>
            {move || question_id.get().map(|_| {
                let (question, _) = turn.get_untracked().and_then(|t| t.question).expect("a question");
                let qid = question.id.clone();
                let state = Signal::derive(move || turn.with(|t| t.as_ref().and_then(|t| t.question.as_ref().map(|(_, s)| s.clone())).unwrap_or(CardState::Waiting)));
                let card = Question {
                    id: question.id,
                    question: question.question,
                    options: question.options,
                    allow_other: question.allow_other,
                    expires_at: None,
                    origin: QuestionOrigin::Model,
                    reason: None,
                    why: None,
                };
                let decide_id = qid.clone();
                // Said or typed, "you decide" is taken the same way.
                let you_decide = Callback::new(move |()| echo.answer(decide_id.clone(), "You decide".into()));
                view! { <QuestionCard question=card state=state on_answer=Callback::new(move |text| echo.answer(qid.clone(), text)) on_you_decide=you_decide/> }
            })}
            <div class="msg assistant" data-testid="echo-reply">{move || turn.with(|t| t.as_ref().map(|t| t.reply_text.clone()))}</div>
        </div>
    }
}

/// The floating Echo button on every page; opens Echo in a panel (its text
/// box takes the focus; Escape closes it and gives the focus back).
#[component]
pub fn Companion() -> impl IntoView {
    let panel = Disclosure::closed();
    let open = panel.open;
    view! {
        <div class="companion" node_ref=panel.container>
            <DialogPanel panel=panel title="Echo" close_label="Close Echo"
                class="companion-panel" header_class="companion-header" testid="companion-panel"
                focus="[data-testid=echo-input]">
                <EchoPanel/>
            </DialogPanel>
            <button class="companion-button primary" data-testid="echo-companion" aria-label="Open Echo"
                node_ref=panel.opener
                aria-expanded=move || open.get().to_string() on:click={handler(move |_| panel.toggle())}>
                "Echo"
            </button>
        </div>
    }
}
