//! What Echo said, and when: the self-hearing filter's memory. A text
//! counts against an utterance only if Echo was saying it while the
//! utterance was heard, or had stopped less than [`ECHO_TAIL`] before; the
//! words are then compared by `imprint_text::voice::is_echo`.
//!
//! Echo's speech ends when the client says `spoke` (finished, cancelled or
//! failed: a browser without speech output says it at once). A text the
//! client never ends counts for as long as saying it would take at a slow
//! pace ([`WORDS_PER_SECOND`]). Listening never waits for any of this.

use std::collections::VecDeque;
use std::time::Duration;

use imprint_text::words::plain as words;
use tokio::time::Instant;

/// How long after Echo stops speaking its words may still come back: the
/// room's echo, and a browser recogniser's final that arrives up to about a
/// second after the words.
pub const ECHO_TAIL: Duration = Duration::from_secs(2);
/// The pace at which a text the client never ends is taken to be spoken:
/// slower than speech synthesis' usual ~3 words a second, so that a slow
/// voice is still covered.
pub const WORDS_PER_SECOND: f64 = 2.0;
/// Texts remembered; the oldest is forgotten first.
pub const MAX_SPOKEN_ENTRIES: usize = 16;
/// Characters kept of each text.
pub const MAX_SPOKEN_CHARS: usize = 4_000;

struct Said {
    text: String,
    started: Instant,
    /// When the client said it stopped; `None` until then.
    ended: Option<Instant>,
}

impl Said {
    /// When Echo stopped saying it, or would have at a slow pace.
    fn until(&self) -> Instant {
        self.ended.unwrap_or_else(|| {
            let seconds = words(&self.text).len() as f64 / WORDS_PER_SECOND;
            self.started + Duration::from_secs_f64(seconds)
        })
    }
}

/// When an utterance was heard: from its first to its last sound (a typed
/// or browser-recognised utterance is heard when it arrives).
#[derive(Clone, Copy, Debug)]
pub struct HeardSpan {
    pub from: Instant,
    pub to: Instant,
}

impl HeardSpan {
    pub fn now() -> Self {
        let now = Instant::now();
        Self { from: now, to: now }
    }
}

/// What Echo is saying or has just said, newest last.
#[derive(Default)]
pub struct Spoken {
    said: VecDeque<Said>,
}

impl Spoken {
    /// Echo starts saying `text` now.
    pub fn speaking(&mut self, text: &str, now: Instant) {
        self.said
            .retain(|said| now.saturating_duration_since(said.until()) < ECHO_TAIL);
        if self.said.len() >= MAX_SPOKEN_ENTRIES {
            self.said.pop_front();
        }
        self.said.push_back(Said {
            text: head(text, MAX_SPOKEN_CHARS).to_string(),
            started: now,
            ended: None,
        });
    }

    /// Echo stopped saying `text` (every text still being said, when the
    /// client does not say which).
    pub fn spoke(&mut self, text: Option<&str>, now: Instant) {
        let which = text.map(|text| words(head(text, MAX_SPOKEN_CHARS)));
        for said in &mut self.said {
            let open = said.ended.is_none() && said.until() > now;
            if open && which.as_ref().is_none_or(|w| *w == words(&said.text)) {
                said.ended = Some(now);
            }
        }
    }

    /// The texts an utterance heard over `span` may be an echo of.
    pub fn heard_over(&self, span: HeardSpan) -> Vec<String> {
        self.said
            .iter()
            .filter(|said| said.started <= span.to && span.from <= said.until() + ECHO_TAIL)
            .map(|said| said.text.clone())
            .collect()
    }
}

/// The first `max` characters of `text`.
pub(super) fn head(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(end, _)| &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUESTION: &str = "Which project? You can say Imprint or Billing, or something else.";

    fn at(start: Instant, seconds: f64) -> HeardSpan {
        let at = start + Duration::from_secs_f64(seconds);
        HeardSpan { from: at, to: at }
    }

    #[test]
    fn a_text_counts_while_it_is_said_and_just_after() {
        let start = Instant::now();
        let mut spoken = Spoken::default();
        spoken.speaking(QUESTION, start);
        assert_eq!(spoken.heard_over(at(start, 0.5)), [QUESTION]);
        spoken.spoke(Some(QUESTION), start + Duration::from_secs(1));
        assert_eq!(spoken.heard_over(at(start, 2.5)), [QUESTION], "just after");
        assert!(spoken.heard_over(at(start, 3.5)).is_empty(), "long after");
    }

    #[test]
    fn an_utterance_that_began_while_echo_spoke_counts_even_if_it_ended_later() {
        let start = Instant::now();
        let mut spoken = Spoken::default();
        spoken.speaking(QUESTION, start);
        spoken.spoke(None, start + Duration::from_secs(1));
        let long = HeardSpan {
            from: start + Duration::from_millis(500),
            to: start + Duration::from_secs(9),
        };
        assert_eq!(spoken.heard_over(long), [QUESTION]);
        let before = HeardSpan {
            from: start - Duration::from_secs(3),
            to: start - Duration::from_secs(1),
        };
        assert!(
            spoken.heard_over(before).is_empty(),
            "said before Echo spoke"
        );
    }

    #[test]
    fn speech_that_fails_at_once_counts_only_for_the_tail() {
        // A browser without speech output: `speaking`, then `spoke` at once.
        let start = Instant::now();
        let mut spoken = Spoken::default();
        spoken.speaking(QUESTION, start);
        spoken.spoke(Some(QUESTION), start);
        assert_eq!(spoken.heard_over(at(start, 1.0)), [QUESTION]);
        assert!(spoken.heard_over(at(start, 2.5)).is_empty());
    }

    #[test]
    fn a_text_never_ended_counts_for_as_long_as_saying_it_takes() {
        let start = Instant::now();
        let mut spoken = Spoken::default();
        // 11 words at 2 a second: 5.5 s, then the tail.
        spoken.speaking(QUESTION, start);
        spoken.speaking("Something else entirely.", start);
        spoken.spoke(Some("something else ENTIRELY"), start);
        assert_eq!(spoken.heard_over(at(start, 7.0)), [QUESTION]);
        assert!(spoken.heard_over(at(start, 7.6)).is_empty());
    }

    #[test]
    fn old_texts_are_forgotten_and_the_count_is_capped() {
        let start = Instant::now();
        let mut spoken = Spoken::default();
        spoken.speaking("first words", start);
        spoken.speaking("later words", start + Duration::from_secs(60));
        assert_eq!(spoken.said.len(), 1, "the first was long over");
        for n in 0..MAX_SPOKEN_ENTRIES + 5 {
            spoken.speaking(&format!("text {n}"), start + Duration::from_secs(61));
        }
        assert_eq!(spoken.said.len(), MAX_SPOKEN_ENTRIES);
        spoken.speaking(&"x".repeat(MAX_SPOKEN_CHARS + 10), start);
        assert_eq!(
            spoken.said.back().unwrap().text.chars().count(),
            MAX_SPOKEN_CHARS
        );
    }
}
