//! One socket's microphone: `audio_start`, binary frames and `audio_end`
//! turned into utterances that take the conversation's utterance path.
//!
//! Frames are cut into utterances as they arrive ([`Segmenter`], on the
//! detector's thread: [`super::detecting`]); each
//! finished utterance waits in this socket's queue for the recogniser, and
//! a task of the socket's hears them one at a time, with the waiting
//! question's choices as the hint. While speech lasts, about every second
//! of new speech the speech so far is heard for an `interim` text: one at a
//! time per socket, and only when the recogniser has a place free.
//!
//! **What a socket can make the server hold**, whatever the client sends
//! and however far behind the recogniser is: the speech being heard (at
//! most [`MAX_UTTERANCE_SAMPLES`], 15 s), the finished utterances not yet
//! heard (at most [`MAX_BACKLOG_SAMPLES`], 30 s; past it an utterance is
//! dropped with `ignored: audio_backlog`) and one interim copy of the
//! speech so far (15 s): 60 s of 16 kHz audio, under 4 MB. Messages to the
//! client go through a channel that the socket's loop empties before it
//! reads another frame, and each is caused by a frame or a finished job, so
//! it holds a handful at most.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use app::protocol::{
    IgnoredReason, VoiceServerMessage, AUDIO_FORMAT, AUDIO_SAMPLE_RATE, MAX_AUDIO_FRAME_BYTES,
};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::task::AbortOnDropHandle;

use super::recogniser::Recogniser;
use super::segmenter::{Segment, Segmenter, MAX_UTTERANCE_SAMPLES, SAMPLE_RATE};
use super::{Conversation, HeardSpan, Starter};
use crate::speech::{Hint, SpeechError};

mod utterances;

/// Audio of finished utterances not yet heard, per socket: 30 s.
pub const MAX_BACKLOG_SAMPLES: usize = 30 * SAMPLE_RATE;
/// New speech between two interim texts: 1 s.
pub const INTERIM_EVERY_SAMPLES: usize = SAMPLE_RATE;
/// The most audio one socket keeps itself: the speech being heard and the
/// backlog (an interim copy of at most 15 s may be with the recogniser
/// besides; see the module's doc).
pub const MAX_HELD_SAMPLES: usize = MAX_UTTERANCE_SAMPLES + MAX_BACKLOG_SAMPLES;

/// Messages for this socket only, in order.
pub type Said = mpsc::UnboundedReceiver<VoiceServerMessage>;

enum Microphone {
    /// No `audio_start` yet.
    Off,
    /// `audio_start` was refused (no recogniser, or another format).
    Refused,
    On(Box<Segmenter>),
    /// `audio_end`.
    Ended,
}

/// An utterance whose speech ended, waiting to be heard.
struct Finished {
    samples: Vec<i16>,
    span: HeardSpan,
}

/// One socket's microphone. Dropping it (the socket closed) stops its
/// tasks; a job the recogniser already holds finishes there and is let go.
pub struct Listening {
    recogniser: Option<Recogniser>,
    conversation: Arc<Conversation>,
    starter: Starter,
    out: mpsc::UnboundedSender<VoiceServerMessage>,
    microphone: Microphone,
    /// Whether the client was told why its frames are refused (once per
    /// state, not once per frame).
    refusal_said: bool,
    /// The utterance being heard (numbered from 1; 0 between utterances),
    /// locked while a message about it is sent, so an interim text never
    /// follows its utterance's `thinking`.
    current: Arc<Mutex<u64>>,
    utterances: u64,
    heard_from: Instant,
    next_interim_at: usize,
    interim: Option<AbortOnDropHandle<()>>,
    /// Samples of finished utterances not yet heard.
    backlog: Arc<AtomicUsize>,
    hearing: Option<Hearing>,
}

/// The task that hears finished utterances in order.
struct Hearing {
    finished: mpsc::UnboundedSender<Finished>,
    _task: AbortOnDropHandle<()>,
}

impl Listening {
    /// A microphone for a socket on `conversation`; the receiver carries
    /// the messages for that socket alone.
    pub fn new(
        recogniser: Option<Recogniser>,
        conversation: Arc<Conversation>,
        starter: Starter,
    ) -> (Self, Said) {
        let (out, said) = mpsc::unbounded_channel();
        let listening = Self {
            recogniser,
            conversation,
            starter,
            out,
            microphone: Microphone::Off,
            refusal_said: false,
            current: Arc::new(Mutex::new(0)),
            utterances: 0,
            heard_from: Instant::now(),
            next_interim_at: INTERIM_EVERY_SAMPLES,
            interim: None,
            backlog: Arc::new(AtomicUsize::new(0)),
            hearing: None,
        };
        (listening, said)
    }

    fn say(&self, message: VoiceServerMessage) {
        let _ = self.out.send(message);
    }

    fn ignore(&self, reason: IgnoredReason) {
        self.say(VoiceServerMessage::Ignored {
            text: String::new(),
            reason,
        });
    }

    /// `audio_start`: `audio_ready`, or `audio_unavailable` with why.
    pub fn start(&mut self, format: &str, sample_rate: u32) {
        let Some(recogniser) = self.recogniser.clone() else {
            return self.refuse("no speech recogniser is set up on this server".into());
        };
        if format != AUDIO_FORMAT || sample_rate != AUDIO_SAMPLE_RATE {
            return self.refuse(format!(
                "audio must be {AUDIO_FORMAT} at {AUDIO_SAMPLE_RATE} Hz, mono; got {format} at {sample_rate} Hz"
            ));
        }
        // Started again: speech in progress is heard first.
        self.finish();
        self.microphone = Microphone::On(Box::default());
        self.refusal_said = false;
        if self.hearing.is_none() {
            let (finished, queue) = mpsc::unbounded_channel();
            let task = tokio::spawn(hear_each(queue, self.ears(recogniser.clone())));
            self.hearing = Some(Hearing {
                finished,
                _task: AbortOnDropHandle::new(task),
            });
        }
        recogniser.warm();
        self.say(VoiceServerMessage::AudioReady {
            recogniser: recogniser.name().to_string(),
        });
    }

    fn refuse(&mut self, error: String) {
        self.finish();
        self.microphone = Microphone::Refused;
        self.refusal_said = false;
        self.say(VoiceServerMessage::AudioUnavailable { error });
    }

    /// `audio_end`: speech in progress is heard; frames after it are refused.
    pub fn end(&mut self) {
        if let Microphone::On(_) = self.microphone {
            self.finish();
            self.microphone = Microphone::Ended;
            self.refusal_said = false;
        }
    }

    fn finish(&mut self) {
        if let Microphone::On(segmenter) = &mut self.microphone {
            if let Some(segment) = segmenter.finish() {
                self.segment(segment);
            }
        }
    }

    /// A binary frame: samples for the segmenter, or a refusal.
    pub async fn frame(&mut self, bytes: &[u8]) {
        if bytes.len() > MAX_AUDIO_FRAME_BYTES {
            return self.ignore(IgnoredReason::FrameTooLarge);
        }
        let refusal = match &self.microphone {
            Microphone::On(_) => None,
            Microphone::Off => {
                Some("send audio_start before audio frames; this audio is not heard")
            }
            Microphone::Refused => {
                Some("audio_start was refused (see audio_unavailable); this audio is not heard")
            }
            Microphone::Ended => {
                Some("the microphone was ended with audio_end; send audio_start to listen again")
            }
        };
        if let Some(refusal) = refusal {
            if !std::mem::replace(&mut self.refusal_said, true) {
                self.say(VoiceServerMessage::Error {
                    error: refusal.into(),
                });
            }
            return;
        }
        if !bytes.len().is_multiple_of(2) {
            return self.say(VoiceServerMessage::Error {
                error: format!(
                    "an audio frame holds whole 16-bit samples; {} bytes is odd, and the frame is not heard",
                    bytes.len()
                ),
            });
        }
        let samples: Vec<i16> = bytes
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        let Microphone::On(segmenter) = std::mem::replace(&mut self.microphone, Microphone::Off)
        else {
            return;
        };
        // Off the runtime: the detector is CPU work a fast client could
        // make endless (see `detecting`).
        let Some(recogniser) = &self.recogniser else {
            return;
        };
        let pushed = recogniser.detecting().push(segmenter, samples).await;
        let Some((segmenter, segments)) = pushed else {
            self.microphone = Microphone::Refused;
            return self.say(VoiceServerMessage::AudioUnavailable {
                error: "the voice-activity detector stopped; this audio is not heard".into(),
            });
        };
        self.microphone = Microphone::On(segmenter);
        for segment in segments {
            self.segment(segment);
        }
        self.interim();
    }

    /// Samples this socket holds: the segmenter's and the backlog's (see
    /// the module's doc for the bound).
    pub fn held_samples(&self) -> usize {
        let segmenter = match &self.microphone {
            Microphone::On(segmenter) => segmenter.held(),
            _ => 0,
        };
        segmenter + self.backlog.load(Ordering::SeqCst)
    }
}

/// What the hearing task needs.
struct Ears {
    recogniser: Recogniser,
    conversation: Arc<Conversation>,
    starter: Starter,
    out: mpsc::UnboundedSender<VoiceServerMessage>,
    backlog: Arc<AtomicUsize>,
}

/// Hears each finished utterance in turn: `heard`, then the utterance path.
async fn hear_each(mut queue: mpsc::UnboundedReceiver<Finished>, ears: Ears) {
    while let Some(Finished { samples, span }) = queue.recv().await {
        let length = samples.len();
        let audio = to_f32(&samples);
        drop(samples);
        let hint = Hint {
            options: ears.conversation.waiting_options(),
            draft: false,
            stop: ears.conversation.stop_would_stop(),
        };
        let heard = ears.recogniser.hear(audio, hint).await;
        ears.backlog.fetch_sub(length, Ordering::SeqCst);
        match heard {
            Ok(transcript) => {
                let text = transcript.text.trim().to_string();
                // 0.9 as f32 is 0.8999999761 as f64: three places are plenty.
                let confidence = transcript
                    .confidence
                    .map(|c| (f64::from(c) * 1000.0).round() / 1000.0);
                let _ = ears.out.send(VoiceServerMessage::Heard {
                    text: text.clone(),
                    confidence,
                });
                // Heard, the utterance is the conversation's: a socket that
                // closes now must not cut its path short (a turn half started).
                let (conversation, starter) =
                    (Arc::clone(&ears.conversation), Arc::clone(&ears.starter));
                let path = tokio::spawn(async move {
                    conversation
                        .utterance(&starter, text, confidence, span)
                        .await
                });
                // In order: the next utterance waits for this one's path.
                let _ = path.await;
            }
            Err(SpeechError::Busy) => {
                let _ = ears.out.send(VoiceServerMessage::Ignored {
                    text: String::new(),
                    reason: IgnoredReason::Busy,
                });
            }
            Err(error) => {
                tracing::warn!(%error, "an utterance could not be heard");
                let _ = ears.out.send(VoiceServerMessage::Error {
                    error: error.to_string(),
                });
            }
        }
    }
}

fn to_f32(samples: &[i16]) -> Vec<f32> {
    samples.iter().map(|&s| f32::from(s) / 32_768.0).collect()
}

fn lock(current: &Mutex<u64>) -> std::sync::MutexGuard<'_, u64> {
    current.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replies::Reply;
    use crate::speech::{Engine, Speech, Transcript};
    use crate::store::Store;
    use crate::tools::Offer;
    use crate::voice::segmenter::synthetic::{silence, tone};
    use crate::voice::{ReplyStarter, VoiceHub, VoiceSettings};
    use app::api::ApiError;
    use std::time::Duration;

    struct NoReplies;
    #[async_trait::async_trait]
    impl ReplyStarter for NoReplies {
        async fn start_reply_in(
            &self,
            _: &Store,
            _: &str,
            _: &str,
            _: Offer,
        ) -> Result<Arc<Reply>, ApiError> {
            Err(ApiError::new(503, "no replies in this test"))
        }
    }

    /// A recogniser that hears nothing until the test ends: far behind.
    struct Stuck(std::sync::mpsc::Receiver<()>);
    impl Engine for Stuck {
        fn transcribe(&mut self, _: &[f32], _: &Hint) -> Result<Transcript, String> {
            let _ = self.0.recv();
            Err("let go".into())
        }
    }

    #[tokio::test]
    async fn a_client_far_ahead_of_the_recogniser_holds_at_most_the_bound() {
        let (release, stuck) = std::sync::mpsc::channel();
        let recogniser = Recogniser::new("stuck", Speech::start(Stuck(stuck)).unwrap());
        let minute = Duration::from_secs(60);
        let settings = VoiceSettings {
            turn_timeout: minute,
            confirm_wait: minute,
            answer_wait: minute,
            idle: minute,
        };
        let store = || Store::open_in_memory().unwrap();
        let hub = VoiceHub::new(store(), store(), settings);
        let conversation = hub.open(None, false, false).await.unwrap();
        let (mut listening, mut said) =
            Listening::new(Some(recogniser), conversation, Arc::new(NoReplies));
        listening.start(AUDIO_FORMAT, AUDIO_SAMPLE_RATE);
        // Eight 12 s utterances, as fast as frames go.
        let burst = [tone(12.0), silence(1.0)].concat();
        let mut most = 0;
        for _ in 0..8 {
            for frame in burst.chunks(MAX_AUDIO_FRAME_BYTES / 2) {
                let bytes: Vec<u8> = frame.iter().flat_map(|s| s.to_le_bytes()).collect();
                listening.frame(&bytes).await;
                most = most.max(listening.held_samples());
            }
        }
        assert!(most <= MAX_HELD_SAMPLES, "{most} samples held");
        assert!(most > MAX_BACKLOG_SAMPLES, "the backlog was filled: {most}");
        let mut reasons = Vec::new();
        while let Ok(message) = said.try_recv() {
            if let VoiceServerMessage::Ignored { reason, .. } = message {
                reasons.push(reason);
            }
        }
        assert_eq!(
            reasons,
            vec![IgnoredReason::AudioBacklog; 6],
            "two bursts kept, six let go"
        );
        drop(release);
    }
}
