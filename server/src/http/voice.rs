//! `GET /api/voice/ws`: Echo's WebSocket. The first message is `hello`;
//! the answer is a `snapshot`; then messages flow both ways (SPEC §6).
//! Frames and messages are capped at 64 KiB, and so is the number of
//! sockets open at once.

use std::sync::Arc;

use app::protocol::{VoiceClientMessage, VoiceServerMessage};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::OwnedSemaphorePermit;

use super::error::json_error;
use super::AppState;
use crate::engine::Engine;
use crate::voice::{Starter, MAX_FRAME_BYTES};

pub fn router() -> Router<AppState> {
    Router::new().route("/voice/ws", get(upgrade))
}

async fn upgrade(State(engine): State<AppState>, ws: WebSocketUpgrade) -> Response {
    let Some(permit) = engine.voice.admit_socket() else {
        return json_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many voice connections are open; close one and try again",
        );
    };
    ws.max_frame_size(MAX_FRAME_BYTES)
        .max_message_size(MAX_FRAME_BYTES)
        .on_upgrade(move |socket| session(socket, engine, permit))
}

fn error_text(message: &str) -> Message {
    let body = VoiceServerMessage::Error {
        error: message.to_string(),
    };
    Message::Text(serde_json::to_string(&body).unwrap_or_default().into())
}

fn parse(message: &Message) -> Option<Result<VoiceClientMessage, String>> {
    match message {
        Message::Text(text) => Some(
            serde_json::from_str(text.as_str()).map_err(|e| format!("not a voice message: {e}")),
        ),
        _ => None,
    }
}

async fn session(mut socket: WebSocket, engine: Arc<Engine>, permit: OwnedSemaphorePermit) {
    // The first message must be hello.
    let (conversation_id, saving) = loop {
        let Some(Ok(message)) = socket.recv().await else {
            return;
        };
        match parse(&message) {
            Some(Ok(VoiceClientMessage::Hello {
                conversation_id,
                saving,
            })) => break (conversation_id, saving.unwrap_or(true)),
            Some(Ok(_)) => {
                let _ = socket.send(error_text("send hello first")).await;
            }
            Some(Err(e)) => {
                let _ = socket.send(error_text(&e)).await;
            }
            None if matches!(message, Message::Close(_)) => return,
            None => {}
        }
    };
    let conversation = match engine.voice.open(conversation_id, saving).await {
        Ok(conversation) => conversation,
        Err(e) => {
            let _ = socket.send(error_text(&e.to_string())).await;
            return;
        }
    };
    let starter: Starter = engine.clone();
    // A reply restored after a restart in this conversation: Echo takes
    // it on with its waiting question.
    if let Some(reply) = engine.replies.get(&conversation.id) {
        conversation.adopt(&starter, reply);
    }
    let mut outgoing = conversation.subscribe();
    relay(&mut socket, &engine, &starter, &conversation, &mut outgoing).await;
    drop(outgoing);
    engine.voice.left(&conversation);
    // The place is free before the peer sees the connection end.
    drop(permit);
    drop(socket);
}

/// Messages both ways until the window or the server goes.
async fn relay(
    socket: &mut WebSocket,
    engine: &Engine,
    starter: &Starter,
    conversation: &Arc<crate::voice::Conversation>,
    outgoing: &mut tokio::sync::broadcast::Receiver<Arc<str>>,
) {
    if socket
        .send(Message::Text(conversation.snapshot().to_string().into()))
        .await
        .is_err()
    {
        return;
    }
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let Some(Ok(message)) = incoming else { break };
                match parse(&message) {
                    Some(Ok(message)) => conversation.handle(starter, message).await,
                    Some(Err(e)) if socket.send(error_text(&e)).await.is_err() => break,
                    Some(Err(_)) => {}
                    None if matches!(message, Message::Close(_)) => break,
                    None => {}
                }
            }
            out = outgoing.recv() => match out {
                Ok(json) => {
                    if socket.send(Message::Text(json.to_string().into())).await.is_err() {
                        break;
                    }
                }
                // Too slow to keep up: start again from a snapshot.
                Err(RecvError::Lagged(_)) => {
                    if socket.send(Message::Text(conversation.snapshot().to_string().into())).await.is_err() {
                        break;
                    }
                }
                Err(RecvError::Closed) => break,
            },
            _ = engine.shutdown.cancelled() => break,
        }
    }
}
