//! "Waiting for you": the list of questions waiting across chats and Echo,
//! kept from one load and the dashboard events, and what the page says
//! about it (the tab title, who asks, when a nudge is due, Echo's line).

use crate::logic::numbers::fixed;
use crate::protocol::{QuestionOrigin, WaitingQuestion};

/// The questions waiting, oldest first, as the inbox shows them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Waiting {
    pub questions: Vec<WaitingQuestion>,
    /// Questions seen closing: a list loaded before the close arrived
    /// must not bring them back.
    closed: Vec<String>,
}

impl Waiting {
    /// Takes a freshly loaded list (questions already closed stay out).
    pub fn loaded(&mut self, questions: Vec<WaitingQuestion>) {
        self.questions = questions
            .into_iter()
            .filter(|q| !self.closed.contains(&q.id))
            .collect();
    }

    /// A question closed (answered anywhere, left to Imprint, timed out or
    /// stopped).
    pub fn closed(&mut self, question_id: &str) {
        self.questions.retain(|q| q.id != question_id);
        if !self.closed.iter().any(|id| id == question_id) {
            self.closed.push(question_id.to_string());
        }
    }

    pub fn count(&self) -> usize {
        self.questions.len()
    }

    pub fn get(&self, question_id: &str) -> Option<&WaitingQuestion> {
        self.questions.iter().find(|q| q.id == question_id)
    }
}

/// The tab's title: "(2) Imprint" while two questions wait.
pub fn page_title(waiting: usize) -> String {
    match waiting {
        0 => "Imprint".into(),
        n => format!("({n}) Imprint"),
    }
}

/// Who asks, as the inbox says it.
pub fn asker(origin: QuestionOrigin) -> &'static str {
    match origin {
        QuestionOrigin::Model => "The model asks",
        QuestionOrigin::Imprint => "Imprint asks",
    }
}

/// A browser notification is due when the page is hidden or the
/// question's chat is not the one open.
pub fn needs_nudge(page_hidden: bool, open_chat: Option<&str>, session_id: &str) -> bool {
    page_hidden || open_chat != Some(session_id)
}

/// What Echo says on the Voice page when a question starts waiting.
pub fn spoken_nudge(session_title: &str) -> String {
    format!("A question is waiting in {session_title}")
}

/// The time left before the reply goes on without an answer, in words.
pub fn time_left(expires_at_ms: f64, now_ms: f64) -> String {
    let minutes = ((expires_at_ms - now_ms) / 60_000.0).ceil();
    if minutes <= 1.0 {
        "under a minute left".into()
    } else if minutes < 90.0 {
        format!("{} min left", fixed(minutes, 0))
    } else {
        format!("{} h left", fixed((minutes / 60.0).round(), 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Question;

    fn waiting(id: &str) -> WaitingQuestion {
        WaitingQuestion::new(
            "s1".into(),
            "Plans".into(),
            Question {
                id: id.into(),
                question: "Which?".into(),
                options: Vec::new(),
                allow_other: true,
                expires_at: None,
                origin: QuestionOrigin::Model,
                reason: None,
                why: None,
            },
        )
    }

    #[test]
    fn a_list_loaded_late_does_not_bring_back_a_closed_question() {
        let mut inbox = Waiting::default();
        inbox.loaded(vec![waiting("q1")]);
        assert_eq!(inbox.count(), 1);
        inbox.closed("q1");
        assert_eq!(inbox.count(), 0);
        inbox.loaded(vec![waiting("q1"), waiting("q2")]);
        assert_eq!(inbox.count(), 1);
        assert!(inbox.get("q2").is_some() && inbox.get("q1").is_none());
    }

    #[test]
    fn the_title_counts_what_waits() {
        assert_eq!(page_title(0), "Imprint");
        assert_eq!(page_title(2), "(2) Imprint");
    }

    #[test]
    fn a_nudge_is_due_when_hidden_or_in_another_chat() {
        assert!(needs_nudge(true, Some("s1"), "s1"));
        assert!(needs_nudge(false, Some("s2"), "s1"));
        assert!(needs_nudge(false, None, "s1"));
        assert!(!needs_nudge(false, Some("s1"), "s1"));
    }

    #[test]
    fn who_asks_and_what_echo_says() {
        assert_eq!(asker(QuestionOrigin::Imprint), "Imprint asks");
        assert_eq!(asker(QuestionOrigin::Model), "The model asks");
        assert_eq!(
            spoken_nudge("Garden plans"),
            "A question is waiting in Garden plans"
        );
    }

    #[test]
    fn time_left_reads_in_minutes_or_hours() {
        let now = 1_000_000.0;
        assert_eq!(time_left(now + 30_000.0, now), "under a minute left");
        assert_eq!(time_left(now + 29.5 * 60_000.0, now), "30 min left");
        assert_eq!(time_left(now + 3.0 * 3_600_000.0, now), "3 h left");
    }
}
