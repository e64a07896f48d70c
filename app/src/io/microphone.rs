//! The microphone as Echo's audio: `getUserMedia` (echo cancellation and
//! noise suppression on, one channel) into an AudioWorklet
//! (`public/pcm-capture.js`) that low-passes and resamples it to 16 kHz
//! mono signed 16-bit little-endian PCM and posts a frame of
//! [`FRAME_SAMPLES`] with its RMS. Dropping the [`Microphone`] stops the
//! tracks (the browser's recording indicator goes out) and closes the
//! audio context.

use std::future::Future;

use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AudioContext, AudioWorkletNode, AudioWorkletNodeOptions, MediaStream, MediaStreamConstraints,
    MediaStreamTrack, MessageEvent, MessagePort,
};

/// Where the built site serves the worklet (Trunk copies `public/`).
const WORKLET_URL: &str = "/public/pcm-capture.js";
const PROCESSOR: &str = "pcm-capture";
/// 80 ms at 16 kHz: 2,560 bytes a frame, 12.5 frames (and meter updates)
/// a second.
pub const FRAME_SAMPLES: u32 = 1_280;

/// Whether this browser can record at all (`navigator.mediaDevices`).
pub fn available() -> bool {
    web_sys::window()
        .and_then(|w| Reflect::get(&w.navigator(), &"mediaDevices".into()).ok())
        .is_some_and(|devices| !devices.is_undefined() && !devices.is_null())
}

/// A running capture; dropping it stops it.
pub struct Microphone {
    context: AudioContext,
    stream: Option<MediaStream>,
    port: Option<MessagePort>,
    _on_frame: Option<Closure<dyn FnMut(MessageEvent)>>,
}

/// Starts recording. The audio context is made at once, so the click
/// that asked for it lets it run (autoplay rules); the rest follows
/// once the user (or the browser) allows the microphone. `on_frame` gets
/// each frame's bytes and RMS (0–1). The error says why, in words.
pub fn open(
    on_frame: impl Fn(Vec<u8>, f64) + 'static,
) -> impl Future<Output = Result<Microphone, String>> {
    let context = AudioContext::new();
    async move {
        let context = context.map_err(|_| "This browser cannot process audio".to_string())?;
        let mut microphone = Microphone {
            context,
            stream: None,
            port: None,
            _on_frame: None,
        };
        let stream = request_stream().await?;
        microphone.stream = Some(stream.clone());
        let context = &microphone.context;
        let worklet = context.audio_worklet().map_err(|_| no_worklet())?;
        JsFuture::from(worklet.add_module(WORKLET_URL).map_err(|_| no_worklet())?)
            .await
            .map_err(|_| no_worklet())?;
        let source = context
            .create_media_stream_source(&stream)
            .map_err(|e| failed("the microphone could not be connected", &e))?;
        let options = AudioWorkletNodeOptions::new();
        options.set_number_of_inputs(1);
        // One (silent) output, connected to the speakers: every browser
        // then runs the processor, whether or not it pulls nodes with no
        // outputs.
        options.set_number_of_outputs(1);
        let processor_options = Object::new();
        let _ = Reflect::set(
            &processor_options,
            &"frameSamples".into(),
            &FRAME_SAMPLES.into(),
        );
        options.set_processor_options(Some(&processor_options));
        let node = AudioWorkletNode::new_with_options(context, PROCESSOR, &options)
            .map_err(|e| failed("the audio processor did not start", &e))?;
        let port = node
            .port()
            .map_err(|e| failed("the audio processor did not start", &e))?;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            let Ok(pcm) = Reflect::get(&data, &"pcm".into()) else {
                return;
            };
            if !pcm.is_instance_of::<js_sys::ArrayBuffer>() {
                return;
            }
            let rms = Reflect::get(&data, &"rms".into())
                .ok()
                .and_then(|r| r.as_f64())
                .unwrap_or(0.0);
            on_frame(Uint8Array::new(&pcm).to_vec(), rms);
        });
        port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        microphone.port = Some(port);
        microphone._on_frame = Some(on_message);
        source
            .connect_with_audio_node(&node)
            .and_then(|_| node.connect_with_audio_node(&context.destination()))
            .map_err(|e| failed("the microphone could not be connected", &e))?;
        // A context made outside a click starts suspended.
        if let Ok(resumed) = context.resume() {
            let _ = JsFuture::from(resumed).await;
        }
        Ok(microphone)
    }
}

async fn request_stream() -> Result<MediaStream, String> {
    let devices = web_sys::window()
        .and_then(|w| w.navigator().media_devices().ok())
        .ok_or_else(|| "This browser cannot record".to_string())?;
    let audio = Object::new();
    for key in ["echoCancellation", "noiseSuppression"] {
        let _ = Reflect::set(&audio, &key.into(), &JsValue::TRUE);
    }
    // Chromium's gain control ramps the level within an utterance; the
    // recogniser scales each utterance itself, and heard steadier without it.
    let _ = Reflect::set(&audio, &"autoGainControl".into(), &JsValue::FALSE);
    let _ = Reflect::set(&audio, &"channelCount".into(), &1.into());
    let constraints = MediaStreamConstraints::new();
    constraints.set_audio(&audio);
    let asked = devices
        .get_user_media_with_constraints(&constraints)
        .map_err(|e| refused(&e))?;
    let stream = JsFuture::from(asked).await.map_err(|e| refused(&e))?;
    stream
        .dyn_into::<MediaStream>()
        .map_err(|_| "The microphone gave no audio".to_string())
}

fn no_worklet() -> String {
    "This browser cannot run Echo's audio processor".to_string()
}

fn error_name(error: &JsValue) -> String {
    Reflect::get(error, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default()
}

fn failed(what: &str, error: &JsValue) -> String {
    format!("Recording failed: {what} ({})", error_name(error))
}

/// Why `getUserMedia` said no, in words.
fn refused(error: &JsValue) -> String {
    match error_name(error).as_str() {
        "NotAllowedError" | "SecurityError" => "The microphone was not allowed".into(),
        "NotFoundError" | "OverconstrainedError" => "No microphone was found".into(),
        "NotReadableError" | "AbortError" => "The microphone is in use or not working".into(),
        other => format!("The microphone is not available ({other})"),
    }
}

impl Drop for Microphone {
    fn drop(&mut self) {
        if let Some(port) = &self.port {
            port.set_onmessage(None);
            port.close();
        }
        if let Some(stream) = &self.stream {
            for track in stream.get_tracks().iter() {
                if let Ok(track) = track.dyn_into::<MediaStreamTrack>() {
                    track.stop();
                }
            }
        }
        let _ = self.context.close();
    }
}
