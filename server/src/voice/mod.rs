//! Echo's conversations: the queue of speech heard during a reply, routing
//! the next utterance, typed text or tap to a waiting question, the noise
//! and self-hearing filters, the sentence that speaks a question, and the
//! snapshot a (re)connecting window starts from.
//!
//! A conversation is a chat session (channel `voice`). With saving off it
//! lives in an in-memory store and is never listed. Its id is reserved at
//! `hello`; the session row is written at its first turn, so a window that
//! never speaks leaves nothing behind.
//!
//! Everything a client can grow is capped (the `MAX_*` constants), and a
//! conversation with no window and no turn is dropped after
//! `IMPRINT_VOICE_IDLE_S`. Voice needs one thing from the rest of the
//! server, starting a reply: the [`ReplyStarter`] handle.
//!
//! Submodules: `hub` (every open conversation), `answering` (an answer
//! to a waiting question, unsure ones confirmed), `turns` (turns started,
//! queued, adopted and forwarded), [`spoken`] (what Echo
//! said and when, for the self-hearing filter), [`listening`] (a socket's
//! audio turned into utterances), [`segmenter`] (where speech starts and
//! ends), [`detecting`] (the thread the segmenters run on, off the async
//! runtime) and [`recogniser`] (the speech recogniser every socket shares).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use app::api::ApiError;
use app::protocol::{
    IgnoredReason, ReplyEvent, VoiceClientMessage, VoiceQuestion, VoiceServerMessage, VoiceTurn,
};
use imprint_text::voice::{
    confirm_speech, heard_stop, is_echo, is_noise, is_stop, judge_spoken_answer, match_option,
    question_speech, yes_or_no, SpokenAnswer, MIN_ANSWER_CONFIDENCE, MIN_CONFIDENCE,
};
use imprint_text::words::plain as words;
use serde_json::Value;
use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::ask::AnswerError;
use crate::replies::Reply;
use crate::store::{Store, StoreError};
use crate::tools::Offer;

mod answering;
pub mod detecting;
mod hub;
pub mod listening;
pub mod recogniser;
pub mod segmenter;
pub mod spoken;
#[cfg(test)]
mod tests;
mod turns;

pub use hub::{VoiceError, VoiceHub};
pub use listening::Listening;
pub use recogniser::Recogniser;
use spoken::Spoken;
pub use spoken::{HeardSpan, MAX_SPOKEN_CHARS, MAX_SPOKEN_ENTRIES};

/// Characters an utterance or typed text may have.
pub const MAX_UTTERANCE_CHARS: usize = 2_000;
/// Turns waiting in a conversation's queue; more is `ignored: queue_full`.
pub const MAX_QUEUE: usize = 8;
/// Voice WebSockets open at once.
pub const MAX_SOCKETS: usize = 64;
/// Conversations held in memory at once.
pub const MAX_CONVERSATIONS: usize = 256;
/// Largest WebSocket frame and message.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// What voice needs from the server: a reply started in a session of
/// `store`. The engine implements it; voice knows nothing else about it.
#[async_trait::async_trait]
pub trait ReplyStarter: Send + Sync {
    async fn start_reply_in(
        &self,
        store: &Store,
        session_id: &str,
        message: &str,
        offer: Offer,
    ) -> Result<Arc<Reply>, ApiError>;
}

/// The server's [`ReplyStarter`], shared.
pub type Starter = Arc<dyn ReplyStarter>;

/// Timings of a conversation, from the configuration.
#[derive(Clone, Copy, Debug)]
pub struct VoiceSettings {
    /// A turn with no reply event for this long is stopped.
    pub turn_timeout: Duration,
    /// How long "Did you say …?" waits for a yes or no.
    pub confirm_wait: Duration,
    /// How long a question waits (added to the turn timeout meanwhile).
    pub answer_wait: Duration,
    /// A conversation with no window and no turn is dropped after this.
    pub idle: Duration,
}

pub struct Conversation {
    pub id: String,
    pub saving: bool,
    pub read_only: bool,
    store: Store,
    settings: VoiceSettings,
    hub: Weak<VoiceHub>,
    state: Mutex<State>,
    /// Messages for every window on this conversation, as JSON.
    out: broadcast::Sender<Arc<str>>,
}

struct State {
    queue: VecDeque<String>,
    turn: Option<Turn>,
    /// What Echo said (or was told it is saying), and when.
    spoken: Spoken,
    /// Whether the session row exists (it is written at the first turn).
    stored: bool,
    /// The last time a window left or a turn ended.
    idle_since: Instant,
    /// An unsure answer waiting for a yes or a no.
    confirming: Option<Confirm>,
    /// Confirms asked so far: the one a timeout is for.
    confirms: u64,
}

/// "Did you say Billing?": the question it answers, what was heard, and
/// which confirm it is.
struct Confirm {
    question_id: String,
    text: String,
    serial: u64,
}

struct Turn {
    reply: Arc<Reply>,
    text: String,
    reply_text: String,
    question: Option<VoiceQuestion>,
}

fn json(message: &VoiceServerMessage) -> Arc<str> {
    serde_json::to_string(message).unwrap_or_default().into()
}

impl Conversation {
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.out.subscribe()
    }

    fn send(&self, message: VoiceServerMessage) {
        let _ = self.out.send(json(&message));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// No window is open on it and no turn runs.
    fn is_idle(&self) -> bool {
        self.out.receiver_count() == 0 && self.lock().turn.is_none()
    }

    /// What a (re)connecting window starts from.
    pub fn snapshot(&self) -> Arc<str> {
        let state = self.lock();
        json(&VoiceServerMessage::Snapshot {
            conversation_id: self.id.clone(),
            saving: self.saving,
            read_only: self.read_only,
            turn: state.turn.as_ref().map(|t| VoiceTurn {
                id: t.reply.id.clone(),
                text: t.text.clone(),
                reply_text: t.reply_text.clone(),
                question: t.question.clone(),
            }),
            queue: state.queue.iter().cloned().collect(),
        })
    }

    fn remember_spoken(&self, text: &str) {
        self.lock().spoken.speaking(text, Instant::now());
    }

    /// What an utterance heard over `span` may be an echo of: what Echo
    /// was saying then or had just said, and the reply being written now.
    /// A waiting question's sentence counts only while it is spoken, so a
    /// choice said long after it is an answer.
    fn recently_spoken(&self, span: HeardSpan) -> Vec<String> {
        let state = self.lock();
        let mut spoken = state.spoken.heard_over(span);
        if let Some(turn) = &state.turn {
            spoken.push(tail(&turn.reply_text, MAX_SPOKEN_CHARS).to_string());
        }
        spoken
    }

    /// The choices of the question waiting now, if any: the recogniser's
    /// hint, and choices said back are answers, not echo.
    pub fn waiting_options(&self) -> Vec<String> {
        let state = self.lock();
        let question = state.turn.as_ref().and_then(|t| t.question.as_ref());
        question.map(|q| q.options.clone()).unwrap_or_default()
    }

    /// Whether a spoken "stop" would stop something now: a reply runs, or
    /// Echo is speaking. Then "stop" is in the recogniser's hint, and a
    /// word shaped like it is heard as a stop.
    pub fn stop_would_stop(&self) -> bool {
        let state = self.lock();
        state.turn.is_some() || !state.spoken.heard_over(HeardSpan::now()).is_empty()
    }

    /// Handles one message from a window.
    pub async fn handle(self: &Arc<Self>, starter: &Starter, message: VoiceClientMessage) {
        match message {
            VoiceClientMessage::Hello { .. } => {
                let _ = self.out.send(self.snapshot());
            }
            VoiceClientMessage::Utterance { text, confidence } => {
                self.utterance(starter, text, confidence, HeardSpan::now())
                    .await
            }
            VoiceClientMessage::Typed { text } if text.chars().count() > MAX_UTTERANCE_CHARS => {
                self.too_long()
            }
            VoiceClientMessage::Typed { text } => {
                if !text.trim().is_empty() {
                    self.heard(starter, text.trim().to_string()).await;
                }
            }
            VoiceClientMessage::Answer { question_id, text } => {
                self.answer(&question_id, &text).await
            }
            VoiceClientMessage::Stop => self.stop(),
            VoiceClientMessage::Speaking { text } => self.remember_spoken(&text),
            VoiceClientMessage::Spoke { text } => {
                self.lock().spoken.spoke(text.as_deref(), Instant::now())
            }
            // Audio belongs to the socket that sends it, not the conversation.
            VoiceClientMessage::AudioStart { .. } | VoiceClientMessage::AudioEnd => {}
        }
    }

    /// Speech heard over `span`, by the browser or Imprint's recogniser:
    /// noise and Echo's own voice are ignored, "stop" stops, anything else
    /// answers a waiting question or asks the next one.
    pub async fn utterance(
        self: &Arc<Self>,
        starter: &Starter,
        text: String,
        confidence: Option<f64>,
        span: HeardSpan,
    ) {
        if text.chars().count() > MAX_UTTERANCE_CHARS {
            return self.too_long();
        }
        let waiting = self.waiting_question();
        // While a question waits, unsure speech that names a choice is
        // confirmed rather than dropped: only the lowest is noise.
        let noise = match &waiting {
            Some(_) => {
                is_noise(&text, None) || confidence.is_some_and(|c| c < MIN_ANSWER_CONFIDENCE)
            }
            None => is_noise(&text, confidence),
        };
        if noise {
            return self.send(VoiceServerMessage::Ignored {
                text,
                reason: IgnoredReason::Noise,
            });
        }
        if is_echo(&text, &self.recently_spoken(span), &self.waiting_options()) {
            return self.send(VoiceServerMessage::Ignored {
                text,
                reason: IgnoredReason::Echo,
            });
        }
        // A choice said back is an answer even if it sounds like "stop".
        let is_choice =
            match_option(&text, &self.waiting_options()).is_some_and(|o| words(&o) == words(&text));
        let sure = confidence.is_none_or(|c| c >= MIN_CONFIDENCE);
        if !is_choice
            && sure
            && (is_stop(&text) || (self.stop_would_stop() && heard_stop(&text, confidence)))
        {
            return self.stop();
        }
        let text = text.trim().to_string();
        match waiting {
            Some(question) => self.spoken_answer(question, text, confidence).await,
            None => self.heard(starter, text).await,
        }
    }

    fn too_long(&self) {
        self.send(VoiceServerMessage::Error {
            error: format!("what was said is longer than {MAX_UTTERANCE_CHARS} characters"),
        })
    }

    fn stop(&self) {
        if let Some(turn) = &self.lock().turn {
            turn.reply.stop();
        }
    }
}

/// The last `max` characters of `text`.
fn tail(text: &str, max: usize) -> &str {
    text.char_indices()
        .rev()
        .nth(max.saturating_sub(1))
        .map_or(text, |(start, _)| &text[start..])
}
