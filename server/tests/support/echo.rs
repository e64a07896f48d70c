//! Echo's side of the voice WebSocket, for tests: JSON messages, binary
//! audio frames, and reading until a message of a kind.

use app::protocol::MAX_AUDIO_FRAME_BYTES;
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

use super::TestServer;

pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub struct Echo {
    pub socket: Socket,
}

impl Echo {
    /// A socket on `server`, not yet past `hello`.
    pub async fn open(server: &TestServer) -> Self {
        let url = format!("{}/api/voice/ws", server.url.replace("http://", "ws://"));
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Echo { socket }
    }

    /// A socket that said `hello`, and the snapshot it got.
    pub async fn connect(server: &TestServer, hello: Value) -> (Self, Value) {
        let mut echo = Self::open(server).await;
        echo.send(hello).await;
        let snapshot = echo.until("snapshot").await.pop().unwrap();
        (echo, snapshot)
    }

    pub async fn send(&mut self, message: Value) {
        self.socket
            .send(Message::Text(message.to_string().into()))
            .await
            .unwrap();
    }

    /// One binary frame, as it is.
    pub async fn send_frame(&mut self, bytes: Vec<u8>) {
        self.socket
            .send(Message::Binary(bytes.into()))
            .await
            .unwrap();
    }

    /// 16 kHz s16le audio, in frames of the largest size.
    pub async fn send_audio(&mut self, samples: &[i16]) {
        for frame in samples.chunks(MAX_AUDIO_FRAME_BYTES / 2) {
            let bytes = frame.iter().flat_map(|s| s.to_le_bytes()).collect();
            self.send_frame(bytes).await;
        }
    }

    pub async fn next(&mut self) -> Value {
        loop {
            let message =
                tokio::time::timeout(std::time::Duration::from_secs(10), self.socket.next())
                    .await
                    .expect("no voice message within 10 s")
                    .expect("the socket closed")
                    .unwrap();
            if let Message::Text(text) = message {
                return serde_json::from_str(text.as_str()).unwrap();
            }
        }
    }

    /// Reads until a message of `kind`; returns all read (it last).
    pub async fn until(&mut self, kind: &str) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.next().await;
            assert!(
                kind == "error" || message["type"] != "error",
                "unexpected error: {message}"
            );
            let done = message["type"] == kind;
            seen.push(message);
            if done {
                return seen;
            }
        }
    }
}
