//! What the page's live region says (for screen readers): a question that
//! arrives, with its choices; a reply that ends; the number of questions
//! waiting.

use crate::protocol::{Ended, Question};

use super::reply::ending_note;

/// "Imprint asks: Which project? Choices: Imprint, Billing, or your own
/// words" (the last part only when the user's own words are allowed).
pub fn question(question: &Question) -> String {
    let text = question.question.trim();
    let mut said = format!("Imprint asks: {text}");
    if !text.ends_with(['?', '.', '!', '…']) {
        said.push('.');
    }
    let options: Vec<&str> = question
        .options
        .iter()
        .map(|o| o.trim())
        .filter(|o| !o.is_empty())
        .collect();
    match (options.as_slice(), question.allow_other) {
        ([], _) => said.push_str(" Answer in your own words."),
        (options, true) => {
            said.push_str(" Choices: ");
            said.push_str(&options.join(", "));
            said.push_str(", or your own words");
        }
        ([only], false) => {
            said.push_str(" Choice: ");
            said.push_str(only);
        }
        ([first @ .., last], false) => {
            said.push_str(" Choices: ");
            said.push_str(&first.join(", "));
            said.push_str(" or ");
            said.push_str(last);
        }
    }
    said
}

/// A reply that ended: "Reply finished", or the note under a reply that
/// did not finish normally.
pub fn reply_ended(ended: Option<Ended>, error: Option<&str>) -> String {
    match ended {
        None => "Reply finished".into(),
        Some(ended) => ending_note(ended, error),
    }
}

/// The number of questions waiting for the user.
pub fn waiting_count(count: usize) -> String {
    match count {
        0 => "Nothing is waiting for you".into(),
        1 => "1 question is waiting for you".into(),
        n => format!("{n} questions are waiting for you"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(options: &[&str], allow_other: bool) -> Question {
        Question {
            id: "q1".into(),
            question: "Which project?".into(),
            options: options.iter().map(|o| o.to_string()).collect(),
            allow_other,
            expires_at: None,
            origin: Default::default(),
            reason: None,
            why: None,
        }
    }

    #[test]
    fn says_the_question_with_its_choices_and_own_words() {
        assert_eq!(
            question(&asked(&["Imprint", "Billing"], true)),
            "Imprint asks: Which project? Choices: Imprint, Billing, or your own words"
        );
    }

    #[test]
    fn leaves_out_own_words_when_not_allowed() {
        assert_eq!(
            question(&asked(&["Red", "Green", "Blue"], false)),
            "Imprint asks: Which project? Choices: Red, Green or Blue"
        );
    }

    #[test]
    fn an_open_question_asks_for_own_words() {
        let mut q = asked(&[], true);
        q.question = "What is the date".into();
        assert_eq!(
            question(&q),
            "Imprint asks: What is the date. Answer in your own words."
        );
    }

    #[test]
    fn says_how_a_reply_ended() {
        assert_eq!(reply_ended(None, None), "Reply finished");
        assert_eq!(reply_ended(Some(Ended::Stopped), None), "Stopped.");
        assert_eq!(
            reply_ended(Some(Ended::Error), Some("no model")),
            "The reply failed: no model"
        );
    }

    #[test]
    fn counts_waiting_questions() {
        assert_eq!(waiting_count(0), "Nothing is waiting for you");
        assert_eq!(waiting_count(1), "1 question is waiting for you");
        assert_eq!(waiting_count(3), "3 questions are waiting for you");
    }
}
