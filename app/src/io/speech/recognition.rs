//! Speech in: `SpeechRecognition` / `webkitSpeechRecognition`, reached
//! through `Reflect` (web-sys only has it behind unstable APIs).

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

fn constructor() -> Option<Function> {
    let window = web_sys::window()?;
    ["SpeechRecognition", "webkitSpeechRecognition"]
        .iter()
        .filter_map(|name| Reflect::get(&window, &JsValue::from_str(name)).ok())
        .find(|value| value.is_function())
        .map(|value| value.unchecked_into())
}

pub fn available() -> bool {
    constructor().is_some()
}

/// A running recognizer; dropping it stops listening.
pub struct Recognition {
    inner: JsValue,
    _handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn call(target: &JsValue, method: &str) {
    if let Ok(function) = get(target, method).dyn_into::<Function>() {
        let _ = function.call0(target);
    }
}

impl Recognition {
    /// Starts listening. `on_final` gets each final result with its
    /// confidence, `on_interim` the words so far, `on_end` the end (or a
    /// refusal such as `not-allowed`).
    pub fn start(
        on_final: impl Fn(String, Option<f64>) + 'static,
        on_interim: impl Fn(String) + 'static,
        on_end: impl Fn(Option<String>) + 'static,
    ) -> Option<Self> {
        let inner = Reflect::construct(&constructor()?, &Array::new()).ok()?;
        let _ = Reflect::set(&inner, &"continuous".into(), &JsValue::TRUE);
        let _ = Reflect::set(&inner, &"interimResults".into(), &JsValue::TRUE);
        if let Some(lang) = web_sys::window().and_then(|w| w.navigator().language()) {
            let _ = Reflect::set(&inner, &"lang".into(), &lang.into());
        }
        let on_result = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let results = get(&event, "results");
            let start = get(&event, "resultIndex").as_f64().unwrap_or(0.0) as u32;
            let count = get(&results, "length").as_f64().unwrap_or(0.0) as u32;
            for index in start..count {
                let result = Reflect::get_u32(&results, index).unwrap_or(JsValue::UNDEFINED);
                let best = Reflect::get_u32(&result, 0).unwrap_or(JsValue::UNDEFINED);
                let text = get(&best, "transcript").as_string().unwrap_or_default();
                if get(&result, "isFinal").as_bool().unwrap_or(false) {
                    on_final(text, get(&best, "confidence").as_f64());
                } else {
                    on_interim(text);
                }
            }
        });
        let on_end = std::rc::Rc::new(on_end);
        let ended = {
            let on_end = on_end.clone();
            Closure::<dyn FnMut(JsValue)>::new(move |_| on_end(None))
        };
        let failed = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            on_end(get(&event, "error").as_string());
        });
        let _ = Reflect::set(&inner, &"onresult".into(), on_result.as_ref());
        let _ = Reflect::set(&inner, &"onend".into(), ended.as_ref());
        let _ = Reflect::set(&inner, &"onerror".into(), failed.as_ref());
        call(&inner, "start");
        Some(Self {
            inner,
            _handlers: vec![on_result, ended, failed],
        })
    }
}

impl Drop for Recognition {
    fn drop(&mut self) {
        for handler in ["onresult", "onend", "onerror"] {
            let _ = Reflect::set(&self.inner, &handler.into(), &JsValue::NULL);
        }
        call(&self.inner, "abort");
    }
}
