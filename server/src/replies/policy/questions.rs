//! The question cap: the model's `ask_user` is weighed against what the
//! user already said or answered, what is already done, and how many
//! questions the reply has put; a question that is noise is not asked.

use app::protocol::{CallReason, ToolStatus};

use super::SmallModelPolicy;
use crate::tools::ToolOutput;

/// Once this many questions were put in a reply, the model's `ask_user`
/// is not asked any more (Imprint's own are one per detail).
const MAX_MODEL_QUESTION_AFTER: usize = 2;

/// What the model's `ask_user` is weighed against.
pub(in crate::replies) struct ModelQuestion<'a> {
    pub question: &'a str,
    /// The user's request this reply answers.
    pub request: &'a str,
    /// Questions put to the user in this reply (the model's and Imprint's).
    pub asked: usize,
    /// A reminder was asked for and the user's words say when.
    pub time_given: bool,
    /// Imprint asked about this request before the model started, and the
    /// answer could be used.
    pub settled: bool,
    /// The one option of the question the user's words already name.
    pub said: Option<&'a str>,
}

impl SmallModelPolicy {
    /// Why the model's `ask_user` is not asked, if it is not: the
    /// reminder asked for is set (small models ask "anything else?"), the
    /// user already said what the reminder asked for needs (`time_given`:
    /// a small model asks "Do you want to call Anna?" after the time), the
    /// user already answered what Imprint asked before the model started
    /// (`settled`: a small model asks the same again), the user's words
    /// already name one of its options (`said`: a small model asks "Which
    /// project?" of "my notes from the Website project"), Imprint's first
    /// search found what the request is about as one thing (a small model
    /// asks "What project do you need help with?" of that request, with
    /// its memories in hand), the question is
    /// the user's request said back, or one the model already asked, or
    /// the user already answered enough questions in this reply.
    pub fn refuse_question(&self, ask: &ModelQuestion<'_>) -> Option<ToolOutput> {
        let asked = ask.asked;
        let (text, why): (String, CallReason) = if self.reminder_set() {
            (
                "Not asked: what the user asked for is done. Do not ask; answer the user now."
                    .into(),
                CallReason::AlreadyDone,
            )
        } else if ask.time_given {
            (
                "Not asked: the user already said when. Do not ask; call remind now with the text and that time.".into(),
                CallReason::TimeGiven,
            )
        } else if same_words(ask.question, ask.request) {
            (
                "Not asked: that is the user's own request, not a question for them. Do not ask it back; do what it asks.".into(),
                CallReason::OwnRequest,
            )
        } else if self.questions.iter().any(|q| same_words(q, ask.question)) {
            (
                "Not asked: you already asked this, and the user answered. Do not ask again; go on with their answer.".into(),
                CallReason::AskedBefore,
            )
        } else if let Some(option) = ask.said {
            (
                format!(
                    "Not asked: the user already said \"{option}\". Do not ask; go on with it."
                ),
                CallReason::AlreadySaid {
                    option: option.to_string(),
                },
            )
        } else if self.first_search_settled() {
            (
                "Not asked: Imprint's search already found what the user asks about (see the note with their message). Do not ask; answer from it.".into(),
                CallReason::SearchFound,
            )
        } else if ask.settled {
            (
                "Not asked: the user already answered Imprint's question about this request. Do not ask again; go on with what they said.".into(),
                CallReason::Settled,
            )
        } else if asked >= MAX_MODEL_QUESTION_AFTER {
            (
                format!(
                    "Not asked: the user already answered {asked} questions in this reply. Do not ask again; go on with what they said, and say what you assumed."
                ),
                CallReason::QuestionsAnswered { count: asked },
            )
        } else {
            return None;
        };
        Some(ToolOutput::not_run(ToolStatus::NotAsked, text, why))
    }

    /// Notes a question of the model's the user was asked (once it is
    /// over: a restored reply asks its waiting question again).
    pub fn asked(&mut self, question: &str) {
        self.questions.push(question.to_string());
    }
}

/// The same words, whatever the case and punctuation.
fn same_words(a: &str, b: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let a = words(a);
    !a.is_empty() && a == words(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replies::policy::done;
    use crate::tools;
    use serde_json::json;

    #[test]
    fn the_job_is_done_once_every_write_asked_for_is_made() {
        let request = "Remind me to call Anna.";
        let mut policy = SmallModelPolicy::default();
        assert!(!policy.job_done(request));
        policy.record(tools::SEARCH, &json!({"query": "Anna"}), &done("none"));
        assert!(!policy.job_done(request), "the reminder is not set yet");
        assert!(policy
            .refuse_question(&anna("When?", false, false))
            .is_none());
        let set = ToolOutput {
            text: "Reminder #1 set".into(),
            wrote: true,
            row_id: Some(1),
            ..ToolOutput::default()
        };
        policy.record(
            tools::REMIND,
            &json!({"text": "Call Anna", "at": "2026-12-01T09:00"}),
            &set,
        );
        assert!(policy.job_done(request));
        let refused = policy.refuse_question(&anna("Anything else?", false, false));
        assert_eq!(refused.unwrap().status, ToolStatus::NotAsked);
        // A read request is done once something was read.
        let mut reading = SmallModelPolicy::default();
        assert!(!reading.job_done("List my projects."));
        reading.record(tools::LIST_PROJECTS, &json!({}), &done("Projects: A"));
        assert!(reading.job_done("List my projects."));
    }

    /// The model's question on "Remind me to call Anna.".
    fn anna(question: &str, time_given: bool, settled: bool) -> ModelQuestion<'_> {
        ModelQuestion {
            question,
            request: "Remind me to call Anna.",
            asked: 0,
            time_given,
            settled,
            said: None,
        }
    }

    #[test]
    fn the_models_question_is_not_asked_when_the_user_already_said() {
        let reason = |policy: &SmallModelPolicy, ask: ModelQuestion<'_>| {
            policy.refuse_question(&ask).map(|output| {
                assert_eq!(output.status, ToolStatus::NotAsked);
                output.text
            })
        };
        let mut policy = SmallModelPolicy::default();
        // Imprint asked first and was answered: the same again is noise.
        assert!(reason(&policy, anna("When should I remind you?", false, true)).is_some());
        // Once the user said when, the model's question is noise.
        assert!(reason(&policy, anna("When should I remind you?", true, false)).is_some());
        // The request said back as a question.
        let back = reason(&policy, anna("remind me to call anna", false, false)).unwrap();
        assert!(back.contains("the user's own request"), "{back}");
        // An option the user's words name.
        let mut website = anna("Which project?", false, false);
        website.said = Some("Website");
        let said = reason(&policy, website).unwrap();
        assert!(said.contains("\"Website\""), "{said}");
        // Asked once; the same question again is not.
        assert!(reason(&policy, anna("Which Anna?", false, false)).is_none());
        policy.asked("Which Anna?");
        let again = reason(&policy, anna("Which ANNA", false, false)).unwrap();
        assert!(again.contains("already asked"), "{again}");
        // Enough questions in one reply.
        let mut third = anna("Which phone?", false, false);
        third.asked = MAX_MODEL_QUESTION_AFTER;
        assert!(reason(&policy, third).is_some());
    }
}
