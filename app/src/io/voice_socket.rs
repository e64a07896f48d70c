//! Echo's WebSocket, `GET /api/voice/ws` (SPEC §6): JSON messages both
//! ways, and binary audio frames from the microphone. Dropping the
//! [`VoiceSocket`] closes it.

use futures::channel::mpsc::{unbounded, UnboundedSender};
use futures::future::{AbortHandle, Abortable};
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::Message;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::protocol::VoiceClientMessage;

pub struct VoiceSocket {
    outbox: UnboundedSender<Message>,
    reader: AbortHandle,
}

fn socket_url() -> Option<String> {
    let location = web_sys::window()?.location();
    let scheme = if location.protocol().ok()? == "https:" {
        "wss"
    } else {
        "ws"
    };
    Some(format!("{scheme}://{}/api/voice/ws", location.host().ok()?))
}

impl VoiceSocket {
    /// Opens the socket. `on_message` gets each JSON message the server
    /// sends; `on_close` is told when the server or the network ends it
    /// (not when it is dropped).
    pub fn open(
        on_message: impl Fn(Value) + 'static,
        on_close: impl FnOnce() + 'static,
    ) -> Option<Self> {
        let socket = WebSocket::open(&socket_url()?).ok()?;
        let (mut write, mut read) = socket.split();
        let (outbox, mut outgoing) = unbounded::<Message>();
        spawn_local(async move {
            while let Some(message) = outgoing.next().await {
                if write.send(message).await.is_err() {
                    break;
                }
            }
        });
        let (reader, registration) = AbortHandle::new_pair();
        let reading = async move {
            while let Some(Ok(message)) = read.next().await {
                // The server sends no binary messages.
                let Message::Text(text) = message else {
                    continue;
                };
                // From bytes, as every other JSON the page reads: one copy
                // of serde_json's parser in the wasm, not one per reader.
                if let Ok(value) = serde_json::from_slice::<Value>(text.as_bytes()) {
                    on_message(value);
                }
            }
            on_close();
        };
        spawn_local(async move {
            let _ = Abortable::new(reading, registration).await;
        });
        Some(Self { outbox, reader })
    }

    pub fn send(&self, message: &VoiceClientMessage) {
        if let Ok(text) = serde_json::to_string(message) {
            let _ = self.outbox.unbounded_send(Message::Text(text));
        }
    }

    /// One binary frame of audio, as the protocol's format says.
    pub fn send_audio(&self, frame: Vec<u8>) {
        let _ = self.outbox.unbounded_send(Message::Bytes(frame));
    }
}

impl Drop for VoiceSocket {
    fn drop(&mut self) {
        // Both halves of the socket are dropped, which closes it.
        self.reader.abort();
        self.outbox.close_channel();
    }
}
