//! Asking the user: the `ask_user` arguments' normalization, answer
//! validation ("You decide" included), and the waiter a reply parks on
//! until the answer, a stop, the end of the reply or the single answer
//! timeout wakes it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::protocol::Question;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::tools::lists::{list_item, split_list};
use crate::tools::{ALLOW_OTHER_DESCRIPTION, OPTIONS_DESCRIPTION, QUESTION_DESCRIPTION};

pub const MAX_OPTIONS: usize = 5;
pub const MAX_OPTION_CHARS: usize = 80;
pub const MAX_ANSWER_CHARS: usize = 2000;

/// `ask_user`'s arguments after normalization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskArgs {
    pub question: String,
    pub options: Vec<String>,
    pub allow_other: bool,
}

/// Reads `ask_user`'s arguments. A missing or empty question is an error
/// for the model; options are trimmed, de-duplicated, cut to 80 characters
/// and kept only when there are two to five of them.
pub fn normalize(args: &Value) -> Result<AskArgs, String> {
    let question = args
        .get("question")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default();
    if question.is_empty() {
        return Err("ask_user needs a non-empty `question`".into());
    }
    let raw = written_options(args);
    let mut options: Vec<String> = Vec::new();
    for option in raw {
        let option = cut(option.trim(), MAX_OPTION_CHARS);
        if !option.is_empty()
            && !repeats_the_schema(&option)
            && !options.iter().any(|o| o.eq_ignore_ascii_case(&option))
        {
            options.push(option);
        }
    }
    options.truncate(MAX_OPTIONS);
    let mut allow_other = match args.get("allow_other") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.trim().eq_ignore_ascii_case("false"),
        _ => true,
    };
    if options.len() < 2 {
        options.clear();
        allow_other = true;
    }
    Ok(AskArgs {
        question: question.to_string(),
        options,
        allow_other,
    })
}

/// The options as the model wrote them, before [`normalize`] keeps the
/// usable ones (a lone option is dropped there, yet it still says what the
/// model is asking about).
pub fn written_options(args: &Value) -> Vec<String> {
    match args.get("options") {
        Some(Value::Array(items)) => items.iter().filter_map(list_item).collect(),
        Some(Value::String(text)) => split_list(text),
        _ => Vec::new(),
    }
}

/// True for an option that is the schema's wording (or a run of two or
/// more of its words, "short choices") or a placeholder ("option 1",
/// "choice A", "…") rather than a choice.
fn repeats_the_schema(option: &str) -> bool {
    let option = imprint_text::words::plain(option);
    match option.as_slice() {
        [] => return true,
        [first, rest @ ..]
            if matches!(first.as_str(), "option" | "choice" | "options" | "choices")
                && rest.len() <= 1
                && rest.iter().all(|w| w.chars().count() <= 2) =>
        {
            return true
        }
        _ => {}
    }
    option.len() >= 2
        && [
            QUESTION_DESCRIPTION,
            OPTIONS_DESCRIPTION,
            ALLOW_OTHER_DESCRIPTION,
        ]
        .iter()
        .any(|description| {
            imprint_text::words::plain(description)
                .windows(option.len())
                .any(|run| run == option.as_slice())
        })
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => text[..i].trim_end().to_string(),
        None => text.to_string(),
    }
}

/// Why an answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("no question with that id is waiting")]
    NotWaiting,
    #[error("{0}")]
    Invalid(String),
    /// The answer could not be stored, so it was not taken.
    #[error("the answer could not be saved; try again")]
    Unsaved,
}

/// Checks an answer against its question; returns the text to hand on
/// (a choice is given with the option's own spelling).
pub fn validate_answer(question: &Question, answer: &str) -> Result<String, AnswerError> {
    let answer = answer.trim();
    if answer.is_empty() {
        return Err(AnswerError::Invalid("the answer is empty".into()));
    }
    if answer.chars().count() > MAX_ANSWER_CHARS {
        return Err(AnswerError::Invalid(format!(
            "the answer is longer than {MAX_ANSWER_CHARS} characters"
        )));
    }
    if let Some(option) = question
        .options
        .iter()
        .find(|o| o.trim().eq_ignore_ascii_case(answer))
    {
        return Ok(option.clone());
    }
    if !question.allow_other && !question.options.is_empty() {
        return Err(AnswerError::Invalid(format!(
            "choose one of: {}",
            question.options.join(", ")
        )));
    }
    Ok(answer.to_string())
}

/// What "You decide" sounds like when typed or spoken instead of pressed.
const LEAVE_IT_TO_IMPRINT: [&str; 4] = [
    "you decide",
    "up to you",
    "whatever you think",
    "you choose",
];

/// True when an answer is just "you decide", "up to you", "whatever you
/// think" or "you choose", ignoring case and punctuation.
pub fn leaves_it_to_imprint(answer: &str) -> bool {
    let words: String = answer
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect();
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    LEAVE_IT_TO_IMPRINT.contains(&words.as_str())
}

/// What the user gave a waiting question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserAnswer {
    /// An answer (a choice in the option's own spelling, or own words).
    Text(String),
    /// "You decide": the choice is left to Imprint.
    LeftToImprint,
}

impl UserAnswer {
    /// The answer as the store keeps it until its reply acts on it: "You
    /// decide" is kept as words that read back as the same choice.
    pub fn stored(&self) -> &str {
        match self {
            UserAnswer::Text(text) => text,
            UserAnswer::LeftToImprint => "you decide",
        }
    }

    /// Reads an answer the store kept (see [`UserAnswer::stored`]).
    pub fn from_stored(text: &str) -> Self {
        if leaves_it_to_imprint(text) {
            UserAnswer::LeftToImprint
        } else {
            UserAnswer::Text(text.to_owned())
        }
    }

    /// How the answer is shown back (Echo's `answered`).
    pub fn shown(&self) -> String {
        match self {
            UserAnswer::Text(text) => text.clone(),
            UserAnswer::LeftToImprint => "Left to Imprint".into(),
        }
    }
}

/// How a wait ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitOutcome {
    Answered(String),
    /// The user chose "You decide".
    LeftToImprint,
    TimedOut,
    /// The user stopped the reply.
    Stopped,
    /// The reply ended for another reason (its session was deleted, or the
    /// server is shutting down).
    ReplyEnded,
}

/// The questions a reply waits on, by id. An entry is added before the
/// `question` event goes out and removed on every exit path.
#[derive(Default)]
pub struct Waiters {
    pending: Mutex<HashMap<String, Pending>>,
}

struct Pending {
    question: Question,
    /// When it started waiting, for listing the oldest first.
    since: std::time::Instant,
    answer: oneshot::Sender<UserAnswer>,
}

impl Waiters {
    /// Registers a question; the returned ticket waits for its answer and
    /// removes the entry when dropped.
    pub fn register(self: &Arc<Self>, question: Question) -> Ticket {
        let (tx, rx) = oneshot::channel();
        let id = question.id.clone();
        self.lock().insert(
            id.clone(),
            Pending {
                question,
                since: std::time::Instant::now(),
                answer: tx,
            },
        );
        Ticket {
            id,
            waiters: Arc::clone(self),
            answer: rx,
        }
    }

    /// Delivers an answer; one that is just "you decide" (or the like)
    /// leaves the choice to Imprint, whatever the options. Exactly one of
    /// several concurrent answers wins; the others find no question waiting.
    pub fn answer(&self, id: &str, text: &str) -> Result<UserAnswer, AnswerError> {
        self.claim(id, Some(text))?.deliver()
    }

    /// "You decide" on a waiting question.
    pub fn leave_to_imprint(&self, id: &str) -> Result<UserAnswer, AnswerError> {
        self.claim(id, None)?.deliver()
    }

    /// Takes a valid answer for the question `id` out of the waiting ones
    /// without delivering it yet (it is stored first). `None` is "You
    /// decide" pressed. Exactly one of several concurrent answers gets the
    /// claim.
    pub fn claim(&self, id: &str, given: Option<&str>) -> Result<Claimed, AnswerError> {
        let mut pending = self.lock();
        let entry = pending.get(id).ok_or(AnswerError::NotWaiting)?;
        let answer = match given {
            None => UserAnswer::LeftToImprint,
            Some(text) if leaves_it_to_imprint(text) => UserAnswer::LeftToImprint,
            Some(text) => UserAnswer::Text(validate_answer(&entry.question, text)?),
        };
        let entry = pending.remove(id).ok_or(AnswerError::NotWaiting)?;
        Ok(Claimed { entry, answer })
    }

    /// Puts a claimed question back (its answer could not be stored), if
    /// its reply still waits for it.
    pub fn unclaim(&self, claimed: Claimed) {
        if !claimed.entry.answer.is_closed() {
            let id = claimed.entry.question.id.clone();
            self.lock().insert(id, claimed.entry);
        }
    }

    /// The question waiting now, if any.
    pub fn current(&self) -> Option<Question> {
        self.lock().values().next().map(|p| p.question.clone())
    }

    /// Every question waiting, with when it started waiting.
    pub fn waiting(&self) -> Vec<(std::time::Instant, Question)> {
        self.lock()
            .values()
            .map(|p| (p.since, p.question.clone()))
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending>> {
        // A panic while holding this lock cannot leave the map inconsistent
        // (single inserts and removes), so a poisoned lock is still usable.
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An answer taken for its question, not delivered yet.
pub struct Claimed {
    entry: Pending,
    answer: UserAnswer,
}

impl Claimed {
    /// The answer as it will be handed on.
    pub fn answer(&self) -> &UserAnswer {
        &self.answer
    }

    /// Wakes the waiting reply with the answer.
    pub fn deliver(self) -> Result<UserAnswer, AnswerError> {
        self.entry
            .answer
            .send(self.answer.clone())
            .map_err(|_| AnswerError::NotWaiting)?;
        Ok(self.answer)
    }
}

/// A registered question's wait.
pub struct Ticket {
    id: String,
    waiters: Arc<Waiters>,
    answer: oneshot::Receiver<UserAnswer>,
}

impl Ticket {
    /// Waits for the answer, the user's stop, the end of the reply or the
    /// timeout, whichever comes first. Nothing wakes in between.
    pub async fn wait(
        mut self,
        stop: &CancellationToken,
        end: &CancellationToken,
        timeout: Duration,
    ) -> WaitOutcome {
        tokio::select! {
            biased;
            _ = end.cancelled() => WaitOutcome::ReplyEnded,
            _ = stop.cancelled() => WaitOutcome::Stopped,
            answer = &mut self.answer => match answer {
                Ok(UserAnswer::Text(text)) => WaitOutcome::Answered(text),
                Ok(UserAnswer::LeftToImprint) => WaitOutcome::LeftToImprint,
                Err(_) => WaitOutcome::ReplyEnded,
            },
            _ = tokio::time::sleep(timeout) => WaitOutcome::TimedOut,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.waiters.lock().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::protocol::QuestionOrigin;
    use serde_json::json;

    fn question(options: &[&str], allow_other: bool) -> Question {
        Question {
            id: "q1".into(),
            question: "Which project?".into(),
            options: options.iter().map(|s| s.to_string()).collect(),
            allow_other,
            expires_at: None,
            origin: QuestionOrigin::Model,
            reason: None,
            why: None,
        }
    }

    #[test]
    fn a_missing_or_empty_question_is_an_error() {
        assert!(normalize(&json!({})).is_err());
        assert!(normalize(&json!({"question": "   "})).is_err());
        assert!(normalize(&json!({"question": 3})).is_err());
    }

    #[test]
    fn fewer_than_two_options_are_none_and_allow_other() {
        let a = normalize(&json!({"question": "When?", "options": ["Now"], "allow_other": false}))
            .unwrap();
        assert!(a.options.is_empty());
        assert!(a.allow_other);
        let a = normalize(&json!({"question": "When?", "options": ["Now", " now ", ""]})).unwrap();
        assert!(a.options.is_empty(), "duplicates and blanks do not count");
    }

    #[test]
    fn options_are_trimmed_deduplicated_cut_and_capped() {
        let long = "x".repeat(200);
        let a = normalize(&json!({
            "question": " Which? ",
            "options": [" A ", "B", "a", long, "C", "D", "E", "F"],
            "allow_other": false
        }))
        .unwrap();
        assert_eq!(a.question, "Which?");
        assert_eq!(a.options.len(), 5);
        assert_eq!(a.options[0], "A");
        assert_eq!(a.options[2].chars().count(), 80);
        assert_eq!(a.options[3..], ["C".to_string(), "D".to_string()]);
        assert!(!a.allow_other);
    }

    #[test]
    fn options_that_repeat_the_schema_are_dropped() {
        let args = normalize(&json!({
            "question": "Do you want to call Anna?",
            "options": ["Yes", "2 to 5 short choices", "No", "Option 3", "short choices", "…"]
        }))
        .unwrap();
        assert_eq!(args.options, vec!["Yes", "No"]);
        // The schema's wording alone leaves no options: an open question.
        let args = normalize(&json!({
            "question": "When?",
            "options": ["2 to 5 short choices", "Option A"],
            "allow_other": false
        }))
        .unwrap();
        assert!(args.options.is_empty() && args.allow_other);
        // Real choices that share a word with the schema stay.
        let args = normalize(&json!({
            "question": "Which?",
            "options": ["Short trip", "5 choices of tea", "Option B plan"]
        }))
        .unwrap();
        assert_eq!(args.options.len(), 3);
    }

    #[test]
    fn options_written_as_text_become_a_list() {
        for text in [
            "Imprint\nBilling",
            "- Imprint\n- Billing\n",
            "1. Imprint\n2. Billing",
            "Imprint, Billing",
            "[\"Imprint\", \"Billing\"]",
        ] {
            let a = normalize(&json!({"question": "Which?", "options": text})).unwrap();
            assert_eq!(a.options, vec!["Imprint", "Billing"], "from {text:?}");
        }
    }

    #[test]
    fn answers_are_validated_against_the_question() {
        let open = question(&["Imprint", "Billing"], true);
        assert_eq!(validate_answer(&open, " billing "), Ok("Billing".into()));
        assert_eq!(validate_answer(&open, "Garden"), Ok("Garden".into()));
        assert!(matches!(
            validate_answer(&open, "  "),
            Err(AnswerError::Invalid(_))
        ));
        assert!(matches!(
            validate_answer(&open, &"y".repeat(2001)),
            Err(AnswerError::Invalid(_))
        ));
        assert!(validate_answer(&open, &"y".repeat(2000)).is_ok());
        let closed = question(&["Imprint", "Billing"], false);
        assert!(matches!(
            validate_answer(&closed, "Garden"),
            Err(AnswerError::Invalid(_))
        ));
        assert_eq!(validate_answer(&closed, "imprint"), Ok("Imprint".into()));
    }

    #[tokio::test]
    async fn exactly_one_of_two_answers_wins_and_the_entry_is_gone() {
        let waiters = Arc::new(Waiters::default());
        let ticket = waiters.register(question(&[], true));
        assert!(waiters.current().is_some());
        assert_eq!(
            waiters.answer("q1", "first"),
            Ok(UserAnswer::Text("first".into()))
        );
        assert_eq!(waiters.answer("q1", "second"), Err(AnswerError::NotWaiting));
        let (stop, end) = (CancellationToken::new(), CancellationToken::new());
        let outcome = ticket.wait(&stop, &end, Duration::from_secs(60)).await;
        assert_eq!(outcome, WaitOutcome::Answered("first".into()));
        assert!(waiters.current().is_none());
    }

    #[test]
    fn you_decide_in_words_ignores_case_and_punctuation() {
        for text in [
            "you decide",
            "Up to you!",
            "  Whatever you think.",
            "You choose",
            "YOU, DECIDE",
        ] {
            assert!(leaves_it_to_imprint(text), "{text:?}");
        }
        for text in ["I decide", "up to you and me", "Billing", "", "you"] {
            assert!(!leaves_it_to_imprint(text), "{text:?}");
        }
    }

    #[tokio::test]
    async fn you_decide_wakes_the_wait_even_for_a_closed_choice() {
        let waiters = Arc::new(Waiters::default());
        let ticket = waiters.register(question(&["Imprint", "Billing"], false));
        assert_eq!(
            waiters.answer("q1", "Up to you."),
            Ok(UserAnswer::LeftToImprint)
        );
        let (stop, end) = (CancellationToken::new(), CancellationToken::new());
        assert_eq!(
            ticket.wait(&stop, &end, Duration::from_secs(60)).await,
            WaitOutcome::LeftToImprint
        );
        assert!(waiters.waiting().is_empty());
    }

    #[test]
    fn a_stored_answer_reads_back_as_the_same_choice() {
        for answer in [
            UserAnswer::LeftToImprint,
            UserAnswer::Text("Tomorrow 09:00".into()),
            UserAnswer::Text("the garden one".into()),
        ] {
            assert_eq!(UserAnswer::from_stored(answer.stored()), answer);
        }
    }

    #[tokio::test]
    async fn the_button_leaves_it_to_imprint_once() {
        let waiters = Arc::new(Waiters::default());
        let ticket = waiters.register(question(&[], true));
        assert_eq!(waiters.waiting().len(), 1);
        assert_eq!(
            waiters.leave_to_imprint("q1"),
            Ok(UserAnswer::LeftToImprint)
        );
        assert_eq!(waiters.leave_to_imprint("q1"), Err(AnswerError::NotWaiting));
        let (stop, end) = (CancellationToken::new(), CancellationToken::new());
        assert_eq!(
            ticket.wait(&stop, &end, Duration::from_secs(60)).await,
            WaitOutcome::LeftToImprint
        );
    }

    #[tokio::test]
    async fn a_stop_ends_the_wait_and_removes_the_entry() {
        let waiters = Arc::new(Waiters::default());
        let ticket = waiters.register(question(&[], true));
        let (stop, end) = (CancellationToken::new(), CancellationToken::new());
        stop.cancel();
        assert_eq!(
            ticket.wait(&stop, &end, Duration::from_secs(60)).await,
            WaitOutcome::Stopped
        );
        assert!(waiters.current().is_none());
        assert_eq!(waiters.answer("q1", "late"), Err(AnswerError::NotWaiting));
    }

    #[tokio::test(start_paused = true)]
    async fn nobody_answering_times_out() {
        let waiters = Arc::new(Waiters::default());
        let ticket = waiters.register(question(&[], true));
        let (stop, end) = (CancellationToken::new(), CancellationToken::new());
        let started = tokio::time::Instant::now();
        assert_eq!(
            ticket.wait(&stop, &end, Duration::from_secs(1800)).await,
            WaitOutcome::TimedOut
        );
        assert_eq!(started.elapsed(), Duration::from_secs(1800));
        assert!(waiters.current().is_none());
    }

    #[tokio::test]
    async fn the_end_of_the_reply_wins_over_a_stop() {
        let waiters = Arc::new(Waiters::default());
        let ticket = waiters.register(question(&[], true));
        let (stop, end) = (CancellationToken::new(), CancellationToken::new());
        end.cancel();
        stop.cancel();
        assert_eq!(
            ticket.wait(&stop, &end, Duration::from_secs(1)).await,
            WaitOutcome::ReplyEnded
        );
    }
}
