//! `GET /api/voice/ws`: Echo's WebSocket. The first message is `hello`;
//! the answer is a `snapshot`; then messages flow both ways (SPEC §6), and
//! binary frames carry the microphone's audio after `audio_start`
//! ([`Listening`]). Frames and messages are capped at 64 KiB, and so is
//! the number of sockets open at once. A socket must say `hello` within
//! [`HELLO_DEADLINE`], is pinged every [`PING_INTERVAL`] and closed when
//! the peer is silent for [`SILENCE_LIMIT`] or does not take a message
//! within [`SEND_LIMIT`]: a place is never held by a peer that is gone.

use std::sync::Arc;
use std::time::Duration;

use app::protocol::{VoiceClientMessage, VoiceServerMessage, MAX_AUDIO_FRAME_BYTES};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{timeout, Instant};

use super::error::json_error;
use super::AppState;
use crate::engine::Engine;
use crate::voice::{Listening, Starter, MAX_FRAME_BYTES};

// The socket's cap lets an audio frame of the largest size through, so an
// oversized one is answered (`frame_too_large`) up to the JSON cap.
const _: () = assert!(MAX_AUDIO_FRAME_BYTES <= MAX_FRAME_BYTES);

/// How long a new socket may take to send `hello`.
pub const HELLO_DEADLINE: Duration = Duration::from_secs(10);
/// How often an open socket is pinged (browsers answer on their own).
pub const PING_INTERVAL: Duration = Duration::from_secs(20);
/// How long a socket may send nothing, not even a pong, before it is closed.
pub const SILENCE_LIMIT: Duration = Duration::from_secs(60);
/// How long one message may take to be taken by the peer.
pub const SEND_LIMIT: Duration = Duration::from_secs(10);

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
    text(&VoiceServerMessage::Error {
        error: message.to_string(),
    })
}

fn text(message: &VoiceServerMessage) -> Message {
    Message::Text(serde_json::to_string(message).unwrap_or_default().into())
}

fn parse(message: &Message) -> Option<Result<VoiceClientMessage, String>> {
    match message {
        Message::Text(text) => Some(serde_json::from_str(text.as_str()).map_err(|e| {
            format!(
                "not a voice message: {}",
                crate::quoting::shortened(&e.to_string())
            )
        })),
        _ => None,
    }
}

/// Sends `message`, or gives up when the peer does not take it in time.
async fn send(socket: &mut WebSocket, message: Message) -> bool {
    matches!(timeout(SEND_LIMIT, socket.send(message)).await, Ok(Ok(())))
}

/// What a `hello` asks for.
struct Hello {
    conversation_id: Option<String>,
    saving: bool,
    writes: bool,
}

/// Waits for `hello`, answering anything else with an error; `None` when
/// the socket closes or [`HELLO_DEADLINE`] passes first.
async fn hello(socket: &mut WebSocket) -> Option<Hello> {
    let deadline = Instant::now() + HELLO_DEADLINE;
    loop {
        let Ok(Some(Ok(message))) = tokio::time::timeout_at(deadline, socket.recv()).await else {
            let _ = send(socket, error_text("no hello in time; the socket is closed")).await;
            return None;
        };
        match parse(&message) {
            Some(Ok(VoiceClientMessage::Hello {
                conversation_id,
                saving,
                writes,
            })) => {
                return Some(Hello {
                    conversation_id,
                    saving: saving.unwrap_or(true),
                    writes: writes.unwrap_or(false),
                })
            }
            Some(Ok(_)) => {
                send(socket, error_text("send hello first")).await;
            }
            Some(Err(e)) => {
                send(socket, error_text(&e)).await;
            }
            None if matches!(message, Message::Close(_)) => return None,
            None => {}
        }
    }
}

async fn session(mut socket: WebSocket, engine: Arc<Engine>, permit: OwnedSemaphorePermit) {
    let Some(hello) = hello(&mut socket).await else {
        return;
    };
    let opened = engine
        .voice
        .open(hello.conversation_id, hello.saving, hello.writes)
        .await;
    let conversation = match opened {
        Ok(conversation) => conversation,
        Err(e) => {
            send(&mut socket, error_text(&e.to_string())).await;
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

/// Messages both ways until the window or the server goes. This socket's
/// own messages (its microphone's) go out first, so `heard` precedes what
/// the utterance then does in the conversation.
async fn relay(
    socket: &mut WebSocket,
    engine: &Engine,
    starter: &Starter,
    conversation: &Arc<crate::voice::Conversation>,
    outgoing: &mut tokio::sync::broadcast::Receiver<Arc<str>>,
) {
    if !send(
        socket,
        Message::Text(conversation.snapshot().to_string().into()),
    )
    .await
    {
        return;
    }
    let (mut listening, mut own) = Listening::new(
        engine.speech.clone(),
        Arc::clone(conversation),
        Arc::clone(starter),
    );
    let mut heard_at = Instant::now();
    let mut ping = tokio::time::interval_at(Instant::now() + PING_INTERVAL, PING_INTERVAL);
    loop {
        tokio::select! {
            biased;
            _ = engine.shutdown.cancelled() => break,
            Some(message) = own.recv() => {
                if !send(socket, text(&message)).await {
                    break;
                }
            }
            out = outgoing.recv() => match out {
                Ok(json) => {
                    if !send(socket, Message::Text(json.to_string().into())).await {
                        break;
                    }
                }
                // Too slow to keep up: start again from a snapshot.
                Err(RecvError::Lagged(_)) => {
                    if !send(socket, Message::Text(conversation.snapshot().to_string().into())).await {
                        break;
                    }
                }
                Err(RecvError::Closed) => break,
            },
            _ = ping.tick() => {
                if heard_at.elapsed() >= SILENCE_LIMIT
                    || !send(socket, Message::Ping(Default::default())).await
                {
                    break;
                }
            }
            incoming = socket.recv() => {
                let Some(Ok(message)) = incoming else { break };
                heard_at = Instant::now();
                match (parse(&message), message) {
                    (Some(Ok(VoiceClientMessage::AudioStart { format, sample_rate })), _) => {
                        listening.start(&format, sample_rate)
                    }
                    (Some(Ok(VoiceClientMessage::AudioEnd)), _) => listening.end(),
                    (Some(Ok(message)), _) => conversation.handle(starter, message).await,
                    (Some(Err(e)), _) if !send(socket, error_text(&e)).await => break,
                    (Some(Err(_)), _) => {}
                    (None, Message::Binary(audio)) => listening.frame(&audio).await,
                    (None, Message::Close(_)) => break,
                    (None, _) => {}
                }
            }
        }
    }
}
