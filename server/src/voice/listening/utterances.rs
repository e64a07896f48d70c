//! A finished segment of speech turned into an utterance: queued for the
//! recogniser (the backlog capped), interim texts while the speech lasts,
//! and the ears it is heard with (the waiting question's options, the
//! stop words while a reply runs or Echo speaks).

use super::*;

impl Listening {
    pub(super) fn segment(&mut self, segment: Segment) {
        match segment {
            Segment::Started => {
                self.utterances += 1;
                let mut current = lock(&self.current);
                *current = self.utterances;
                self.heard_from = Instant::now();
                self.next_interim_at = INTERIM_EVERY_SAMPLES;
                self.say(VoiceServerMessage::Hearing);
            }
            Segment::Ended { samples, cut } => {
                let mut current = lock(&self.current);
                *current = 0;
                if cut {
                    self.ignore(IgnoredReason::AudioTooLong);
                }
                let span = HeardSpan {
                    from: self.heard_from,
                    to: Instant::now(),
                };
                self.queue(Finished { samples, span });
            }
        }
    }

    /// Queues a finished utterance for the recogniser, within the backlog.
    pub(super) fn queue(&self, utterance: Finished) {
        let Some(hearing) = &self.hearing else {
            return;
        };
        let length = utterance.samples.len();
        // Only this socket's loop adds to the backlog, so the check holds.
        if self.backlog.load(Ordering::SeqCst) + length > MAX_BACKLOG_SAMPLES {
            return self.ignore(IgnoredReason::AudioBacklog);
        }
        self.backlog.fetch_add(length, Ordering::SeqCst);
        self.say(VoiceServerMessage::Thinking);
        if hearing.finished.send(utterance).is_err() {
            self.backlog.fetch_sub(length, Ordering::SeqCst);
        }
    }

    /// Hears the speech so far for an interim text, when a second of new
    /// speech came, none is in flight and the recogniser has a place.
    pub(super) fn interim(&mut self) {
        let (Microphone::On(segmenter), Some(recogniser)) = (&self.microphone, &self.recogniser)
        else {
            return;
        };
        let Some(speech) = segmenter.speech() else {
            return;
        };
        if speech.len() < self.next_interim_at {
            return;
        }
        self.next_interim_at = speech.len() + INTERIM_EVERY_SAMPLES;
        if self.interim.as_ref().is_some_and(|job| !job.is_finished()) {
            return;
        }
        let hint = Hint {
            options: self.conversation.waiting_options(),
            draft: true,
            stop: self.conversation.stop_would_stop(),
        };
        // The recogniser is behind: this interim is skipped.
        let Some(job) = recogniser.try_hear(to_f32(speech), hint) else {
            return;
        };
        let (current, utterance, out) =
            (Arc::clone(&self.current), self.utterances, self.out.clone());
        let task = tokio::spawn(async move {
            let Ok(transcript) = job.await else { return };
            let text = transcript.text.trim().to_string();
            let current = lock(&current);
            if *current == utterance && !text.is_empty() {
                let _ = out.send(VoiceServerMessage::Interim { text });
            }
        });
        self.interim = Some(AbortOnDropHandle::new(task));
    }

    pub(super) fn ears(&self, recogniser: Recogniser) -> Ears {
        Ears {
            recogniser,
            conversation: Arc::clone(&self.conversation),
            starter: Arc::clone(&self.starter),
            out: self.out.clone(),
            backlog: Arc::clone(&self.backlog),
        }
    }
}
