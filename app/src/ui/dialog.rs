//! The panel a header or floating control opens ("Waiting for you", Echo's
//! companion), written once: a dialog named by its title, a title bar with
//! its close button, the content, and the focus taken on open and given
//! back on close (through [`Disclosure`]).

use crate::ui::effect::effect;
use crate::ui::flow::Show;
use crate::ui::handler::handler;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::focus::Disclosure;

/// The panel a control opens, for "Waiting for you" and Echo's companion:
/// a dialog named `title`, a title bar with its close button, then
/// `children`, drawn while `panel` is open. An opened panel takes the
/// focus: the element `focus` selects in it once its content is drawn,
/// else the panel itself at once; Escape and the close button give the
/// focus back to the opener ([`Disclosure`]).
#[component]
pub fn DialogPanel(
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
    effect(move || {
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
                    <button aria-label=close_label on:click={handler(move |_| panel.close())}>"×"</button>
                </div>
                {children()}
            </div>
        </Show>
    }
}
