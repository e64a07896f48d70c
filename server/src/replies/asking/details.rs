//! Imprint's own questions: for a detail a call or the request leaves out
//! (which project, which thing, when), asked once more when the answer
//! cannot be read, and settled so it is not asked twice; and its open
//! question for what a save names without saying.

use app::protocol::{Question, QuestionOrigin, QuestionOutcome, QuestionReason};
use serde_json::json;

use super::{question_args, Posed};
use crate::grounding::reference::Candidate;
use crate::grounding::{Need, NeedKind, Resolved};
use crate::replies::checkpoint::Asking;
use crate::replies::run::{Interrupt, Run};
use crate::store::{NewMessage, ToolOutcome};
use crate::tools::ASK_USER;

/// What the answer to "Which one do you mean?" said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::replies) enum Which {
    /// One of the options: its memory lines.
    Chosen(Vec<String>),
    /// None of them, in the user's own words ("the print files to
    /// nordtryk"): another thing, to look up by them.
    Meant(String),
}

impl Which {
    /// The chosen option's memory lines; `None` for another thing.
    pub(in crate::replies) fn chosen(self) -> Option<Vec<String>> {
        match self {
            Which::Chosen(memories) => Some(memories),
            Which::Meant(_) => None,
        }
    }
}

impl Run {
    /// Asks which of the `candidates` (memories that fit alike) is meant,
    /// as `question` about the user's `phrase`: what the answer named, or
    /// `None` when no answer came.
    pub(in crate::replies) async fn ask_which_memory(
        &mut self,
        question: String,
        phrase: String,
        candidates: Vec<Candidate>,
    ) -> Result<Option<Which>, Interrupt> {
        let need = Need::Reference {
            question,
            phrase,
            candidates,
        };
        match self.ask_for(&need).await? {
            Some(Resolved::Memory { memories, .. }) => Ok(Some(Which::Chosen(memories))),
            Some(Resolved::Meant(words)) => Ok(Some(Which::Meant(words))),
            _ => Ok(None),
        }
    }

    /// Imprint's own question for a missing detail. An answer it cannot
    /// read is asked once more, saying why. `None`: no usable answer (or
    /// this caller cannot answer at all).
    pub(in crate::replies) async fn ask_for(
        &mut self,
        need: &Need,
    ) -> Result<Option<Resolved>, Interrupt> {
        if !self.talk.offers(ASK_USER) {
            return Ok(None);
        }
        // One question per kind of detail in a reply: a model that calls
        // again gets the same answer (or the same lack of one).
        let kind = need.kind();
        if let Some(settled) = self.settling.of(kind) {
            return Ok(settled.clone());
        }
        self.ask_until_understood(need).await
    }

    /// Asks for the detail, once more when the answer cannot be read.
    /// What came of it is settled (and stored with the question's row),
    /// so a restored reply does not ask it again.
    async fn ask_until_understood(&mut self, need: &Need) -> Result<Option<Resolved>, Interrupt> {
        let kind = need.kind();
        let (mut attempt, mut text) = match self.questions.own() {
            Some(asking) if asking.kind == kind => (asking.attempt, asking.text.clone()),
            _ => (0, need.question()),
        };
        while attempt < 2 {
            self.questions.set_own(Some(Asking {
                kind,
                attempt,
                text: text.clone(),
            }));
            let question = self
                .new_question(text.clone(), need.options(), true, QuestionOrigin::Imprint)
                .because(need.reason());
            tracing::info!(reply = %self.reply.id, why = ?question.why, "Imprint asks");
            let (posed, question) = self.pose(question).await?;
            if kind == NeedKind::Reference && matches!(posed, Posed::Answered(_)) {
                // It names a memory ("Billing meeting (12 Nov)"): no words a
                // reminder's time or a project may be read from.
                self.talk.drop_last_answer();
            }
            let (row, resolved) = self.read_answer(need, &posed, &question);
            let settled = match resolved {
                Some(Ok(resolved)) => Some(Some(resolved)),
                Some(Err(why)) if attempt == 0 => {
                    attempt += 1;
                    text = format!("{why} {}", need.question());
                    None
                }
                Some(Err(_)) | None => Some(None),
            };
            match settled {
                Some(resolved) => {
                    self.questions.set_own(None);
                    self.settling.settle(kind, resolved.clone());
                    self.append_step(vec![row]).await?;
                    return Ok(resolved);
                }
                None => {
                    self.questions.set_own(Some(Asking {
                        kind,
                        attempt,
                        text: text.clone(),
                    }));
                    self.append_step(vec![row]).await?;
                }
            }
        }
        self.questions.set_own(None);
        self.settling.settle(kind, None);
        Ok(None)
    }

    /// What came of Imprint's question for `need`: its history row, and
    /// the detail read from the answer (or why it could not be read);
    /// `None` when no answer came.
    fn read_answer(
        &mut self,
        need: &Need,
        posed: &Posed,
        question: &Question,
    ) -> (NewMessage, Option<Result<Resolved, String>>) {
        // The question as posed (a restored one keeps its own options).
        let options = question.options.clone();
        let question_id = question.id.clone();
        let mut stored_args = question_args(question);
        let (outcome, content, resolved) = match posed {
            Posed::Answered(answer) => match need.resolve(answer, self.env.clock.now()) {
                Ok(resolved) => (
                    QuestionOutcome::Answered,
                    answer.clone(),
                    Some(Ok(resolved)),
                ),
                Err(why) => (QuestionOutcome::Answered, answer.clone(), Some(Err(why))),
            },
            // "You decide": the first option, as if the user chose it;
            // an open question goes on as with no answer.
            Posed::LeftToImprint => {
                let first = options.first().and_then(|option| {
                    need.resolve(option, self.env.clock.now())
                        .ok()
                        .map(|resolved| (option.clone(), resolved))
                });
                match first {
                    Some((option, resolved)) => {
                        self.questions.imprint_chose_it();
                        stored_args["chosen"] = json!(option);
                        self.closed_left_to_imprint(question_id, Some(option.clone()));
                        (
                            QuestionOutcome::LeftToImprint,
                            format!("The user left it to Imprint, which chose {option}."),
                            Some(Ok(resolved)),
                        )
                    }
                    None => {
                        self.closed_left_to_imprint(question_id, None);
                        (
                            QuestionOutcome::LeftToImprint,
                            "The user left it to Imprint; no detail was given.".to_string(),
                            None,
                        )
                    }
                }
            }
            Posed::TimedOut => (
                QuestionOutcome::TimedOut,
                format!(
                    "No answer came from the user within {}.",
                    self.answer_wait()
                ),
                None,
            ),
        };
        stored_args["outcome"] = json!(outcome);
        // A question posed: `done`, its card shows its outcome.
        let row =
            NewMessage::tool(ASK_USER, stored_args, content).with_outcome(ToolOutcome::default());
        (row, resolved)
    }

    /// Imprint's open question (no options): the user's words, or `None`
    /// when none came (left to Imprint, or no answer in time), with the
    /// question's history row for the caller to store once what follows
    /// from the answer is in the reply's state.
    pub(in crate::replies) async fn ask_open(
        &mut self,
        text: String,
        why: QuestionReason,
    ) -> Result<(Option<String>, NewMessage), Interrupt> {
        let question = self
            .new_question(text, Vec::new(), true, QuestionOrigin::Imprint)
            .because(why);
        let (posed, question) = self.pose(question).await?;
        let mut stored_args = question_args(&question);
        let (outcome, content, answer) = match posed {
            Posed::Answered(answer) => (QuestionOutcome::Answered, answer.clone(), Some(answer)),
            Posed::LeftToImprint => {
                self.closed_left_to_imprint(question.id.clone(), None);
                let content = "The user left it to Imprint; nothing was given.".to_string();
                (QuestionOutcome::LeftToImprint, content, None)
            }
            Posed::TimedOut => {
                let content = format!(
                    "No answer came from the user within {}.",
                    self.answer_wait()
                );
                (QuestionOutcome::TimedOut, content, None)
            }
        };
        stored_args["outcome"] = json!(outcome);
        let row =
            NewMessage::tool(ASK_USER, stored_args, content).with_outcome(ToolOutcome::default());
        Ok((answer, row))
    }
}
