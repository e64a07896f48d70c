//! Asking the user during a reply: the model's `ask_user` call, Imprint's
//! own question for a missing detail (asked once more when the answer
//! cannot be read), and what a call does when no usable answer came.
//!
//! Every question goes through [`Run::pose`]: the reply's state is stored
//! and the waiter registered before the `question` event, the writing
//! slot is given up while it waits, and the research deadline moves by
//! the time waited. A reply restored after a restart takes up its stored
//! question there.

use app::protocol::{DashboardEvent, Question, QuestionOrigin, ReplyEvent, ToolStatus};
use serde_json::{json, Value};
use tokio::time::Instant;

use super::checkpoint::Asking;
use super::ending::append;
use super::policy::ModelQuestion;
use super::resume::ResumedWait;
use super::stream::{cut_result, Interrupt, Run};
use crate::ask::{self, UserAnswer, WaitOutcome};
use crate::grounding::{self, Need, NeedKind};
use crate::models::ToolCallRequest;
use crate::store::{NewMessage, ToolOutcome};
use crate::tools::{self, ToolOutput, ASK_USER, LIST_PROJECTS, SEARCH};

/// How a question ended, short of a stop.
pub(super) enum Posed {
    Answered(String),
    /// "You decide".
    LeftToImprint,
    TimedOut,
}

/// What the model is told when the user left the choice to it.
const LEFT_TO_MODEL: &str =
    "The user left the choice to you: choose what fits best, and say what you chose.";

impl Run {
    /// Runs the model's `ask_user` call: asks and waits. Returns the tool
    /// output, the arguments and the content to store.
    pub(super) async fn ask(
        &mut self,
        call: &ToolCallRequest,
    ) -> Result<(ToolOutput, Value, String), Interrupt> {
        let args = match ask::normalize(&call.arguments) {
            Ok(args) => args,
            Err(message) => {
                let output = ToolOutput {
                    text: format!("Error: {message}"),
                    error: true,
                    ..ToolOutput::default()
                };
                let content = output.text.clone();
                return Ok((output, call.arguments.clone(), content));
            }
        };
        // A reminder asked for whose time the user gave needs no question.
        let time_given = grounding::asks_for_reminder(&self.request)
            && tools::is_offered(&self.tools, tools::REMIND)
            && grounding::UserWords {
                request: &self.request,
                answers: &self.answers,
            }
            .say_a_moment(self.env.clock.now());
        // What Imprint asked before the model started, answered usably.
        let settled = self.settled.iter().any(|(_, resolved)| resolved.is_some());
        let words = grounding::UserWords {
            request: &self.request,
            answers: &self.answers,
        };
        let refused = self.policy.refuse_question(&ModelQuestion {
            question: &args.question,
            request: &self.request,
            asked: self.asked,
            time_given,
            settled,
            said: words.the_one_named(&ask::written_options(&call.arguments)),
        });
        if let Some(output) = refused {
            let content = output.text.clone();
            return Ok((output, call.arguments.clone(), content));
        }
        let question = self.new_question(
            args.question,
            args.options,
            args.allow_other,
            QuestionOrigin::Model,
        );
        let (posed, question) = self.pose(question).await?;
        self.policy.asked(&question.question);
        let mut stored_args = question_args(&question);
        let question_id = question.id.clone();
        let (output, content) = match posed {
            Posed::Answered(text) => {
                stored_args["outcome"] = json!("answered");
                let output = ToolOutput {
                    text: format!("The user answered: {text}"),
                    // An answer is progress, like a write.
                    wrote: true,
                    ..ToolOutput::default()
                };
                (output, text)
            }
            Posed::LeftToImprint => {
                self.closed_left_to_imprint(question_id, None);
                stored_args["outcome"] = json!("left_to_imprint");
                let output = ToolOutput {
                    text: LEFT_TO_MODEL.into(),
                    // The user's decision is progress, like an answer.
                    wrote: true,
                    ..ToolOutput::default()
                };
                (output, LEFT_TO_MODEL.to_string())
            }
            Posed::TimedOut => {
                stored_args["outcome"] = json!("timed_out");
                let text = format!(
                    "No answer came from the user within {}. Go on with your best assumption, and say what you assumed.",
                    self.answer_wait()
                );
                let output = ToolOutput {
                    text: text.clone(),
                    ..ToolOutput::default()
                };
                (output, text)
            }
        };
        Ok((output, stored_args, content))
    }

    /// "30 minutes": the answer timeout, as the model reads it.
    fn answer_wait(&self) -> String {
        let minutes = (self.env.answer_timeout.as_secs_f64() / 60.0)
            .round()
            .max(1.0);
        format!("{minutes} minutes")
    }

    pub(super) fn new_question(
        &self,
        text: String,
        options: Vec<String>,
        allow_other: bool,
        origin: QuestionOrigin,
    ) -> Question {
        Question {
            id: crate::ids::new_id("q"),
            question: text,
            options,
            allow_other,
            expires_at: chrono::Duration::from_std(self.env.answer_timeout)
                .ok()
                .and_then(|d| chrono::Utc::now().checked_add_signed(d))
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
            origin,
            reason: None,
        }
    }

    /// Puts a question to the user and waits for the answer, the timeout,
    /// a stop or the end of the reply. The reply's state is stored before
    /// anyone sees the question; a restored reply takes up its stored
    /// question instead. The writing slot is given up while it waits and
    /// the research deadline moves by the time waited. A stop stores the
    /// unanswered question and interrupts the reply; a shutdown leaves it
    /// stored, to wait again after the restart. Returns how it ended and
    /// the question actually posed.
    pub(super) async fn pose(
        &mut self,
        question: Question,
    ) -> Result<(Posed, Question), Interrupt> {
        let (question, wait) = match self.resumed.take() {
            Some(resumed) => (resumed.question, resumed.wait),
            None => {
                let state = self.saved_state(Some(&question));
                if let Err(error) = self.store.save_reply_state(&self.reply.id, state).await {
                    tracing::error!(%error, "could not store a waiting reply");
                    return Err(Interrupt::failure("the question could not be saved".into()));
                }
                self.checkpointed = true;
                // Registered before the event goes out, so an answer posted
                // the moment the event arrives finds it.
                let ticket = self.reply.waiters.register(question.clone());
                self.reply
                    .log
                    .publish(ReplyEvent::Question(question.clone()));
                let _ = self.env.dashboard.send(DashboardEvent::QuestionWaiting {
                    session_id: self.reply.session_id.clone(),
                    question_id: question.id.clone(),
                });
                (
                    question,
                    ResumedWait::Waiting(ticket, self.env.answer_timeout),
                )
            }
        };
        self.asked += 1;
        let question_id = question.id.clone();
        let stored_args = question_args(&question);
        // Not using the model while waiting: let other chats write.
        self.release_slot();
        let started = Instant::now();
        let outcome = match wait {
            ResumedWait::Waiting(ticket, timeout) => {
                ticket
                    .wait(self.reply.stop_token(), self.reply.end_token(), timeout)
                    .await
            }
            ResumedWait::Answered(UserAnswer::Text(text)) => WaitOutcome::Answered(text),
            ResumedWait::Answered(UserAnswer::LeftToImprint) => WaitOutcome::LeftToImprint,
            ResumedWait::Expired => WaitOutcome::TimedOut,
        };
        self.research.extend(started.elapsed());
        if outcome == WaitOutcome::ReplyEnded && self.env.shutdown.is_cancelled() {
            return Err(Interrupt::Shutdown);
        }
        let _ = self.env.dashboard.send(DashboardEvent::QuestionClosed {
            session_id: self.reply.session_id.clone(),
            question_id: question_id.clone(),
        });
        let posed = match outcome {
            WaitOutcome::Answered(text) => {
                self.reply.log.publish(ReplyEvent::Answer {
                    id: question_id,
                    text: text.clone(),
                });
                self.answers.push(text.clone());
                Posed::Answered(text)
            }
            // Its `unanswered` event goes out once the caller knows what
            // was chosen (see `closed_left_to_imprint`).
            WaitOutcome::LeftToImprint => Posed::LeftToImprint,
            WaitOutcome::TimedOut => {
                self.reply.log.publish(ReplyEvent::Unanswered {
                    id: question_id,
                    reason: "timed_out".into(),
                    chosen: None,
                });
                Posed::TimedOut
            }
            WaitOutcome::Stopped | WaitOutcome::ReplyEnded => {
                self.reply.log.publish(ReplyEvent::Unanswered {
                    id: question_id,
                    reason: "stopped".into(),
                    chosen: None,
                });
                let mut stored_args = stored_args;
                stored_args["outcome"] = json!("stopped");
                // The card's `outcome: "stopped"` says it; `ended` marks
                // assistant messages only (SPEC §4).
                let row =
                    NewMessage::tool(ASK_USER, stored_args, "No answer: the reply was stopped.")
                        .with_outcome(ToolOutcome::default());
                if let Err(error) = append(&self.store, &self.reply.session_id, row).await {
                    tracing::warn!(%error, "could not keep the unanswered question");
                }
                return Err(self.interrupted());
            }
        };
        self.ensure_slot().await?;
        Ok((posed, question))
    }

    /// Closes a question the user left to Imprint, naming the option
    /// Imprint took for its own question, if any.
    fn closed_left_to_imprint(&self, question_id: String, chosen: Option<String>) {
        self.reply.log.publish(ReplyEvent::Unanswered {
            id: question_id,
            reason: "left_to_imprint".into(),
            chosen,
        });
    }

    /// Imprint's own question for a missing detail. An answer it cannot
    /// read is asked once more, saying why. `None`: no usable answer (or
    /// this caller cannot answer at all).
    pub(super) async fn ask_for(
        &mut self,
        need: &Need,
    ) -> Result<Option<grounding::Resolved>, Interrupt> {
        if !tools::is_offered(&self.tools, ASK_USER) {
            return Ok(None);
        }
        // One question per kind of detail in a reply: a model that calls
        // again gets the same answer (or the same lack of one).
        let kind = need.kind();
        if let Some((_, settled)) = self.settled.iter().find(|(k, _)| *k == kind) {
            return Ok(settled.clone());
        }
        self.ask_until_understood(need).await
    }

    /// Asks for the detail, once more when the answer cannot be read.
    /// What came of it is settled (and stored with the question's row),
    /// so a restored reply does not ask it again.
    async fn ask_until_understood(
        &mut self,
        need: &Need,
    ) -> Result<Option<grounding::Resolved>, Interrupt> {
        let kind = need.kind();
        let (mut attempt, mut text) = match &self.asking {
            Some(asking) if asking.kind == kind => (asking.attempt, asking.text.clone()),
            _ => (0, need.question()),
        };
        while attempt < 2 {
            self.asking = Some(Asking {
                kind,
                attempt,
                text: text.clone(),
            });
            let question = Question {
                reason: Some(need.reason()),
                ..self.new_question(text.clone(), need.options(), true, QuestionOrigin::Imprint)
            };
            tracing::info!(reply = %self.reply.id, reason = ?question.reason, "Imprint asks");
            let (posed, question) = self.pose(question).await?;
            if kind == NeedKind::Reference && matches!(posed, Posed::Answered(_)) {
                // It names a memory ("Billing meeting (12 Nov)"): no words a
                // reminder's time or a project may be read from.
                self.answers.pop();
            }
            // The question as posed (a restored one keeps its own options).
            let options = question.options.clone();
            let question_id = question.id.clone();
            let mut stored_args = question_args(&question);
            let (outcome, content, resolved) = match &posed {
                Posed::Answered(answer) => match need.resolve(answer, self.env.clock.now()) {
                    Ok(resolved) => ("answered", answer.clone(), Some(Ok(resolved))),
                    Err(why) => ("answered", answer.clone(), Some(Err(why))),
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
                            self.imprint_chose = true;
                            stored_args["chosen"] = json!(option);
                            self.closed_left_to_imprint(question_id, Some(option.clone()));
                            (
                                "left_to_imprint",
                                format!("The user left it to Imprint, which chose {option}."),
                                Some(Ok(resolved)),
                            )
                        }
                        None => {
                            self.closed_left_to_imprint(question_id, None);
                            (
                                "left_to_imprint",
                                "The user left it to Imprint; no detail was given.".to_string(),
                                None,
                            )
                        }
                    }
                }
                Posed::TimedOut => (
                    "timed_out",
                    format!(
                        "No answer came from the user within {}.",
                        self.answer_wait()
                    ),
                    None,
                ),
            };
            stored_args["outcome"] = json!(outcome);
            // A question posed: `done`, its card shows its outcome.
            let row = NewMessage::tool(ASK_USER, stored_args, content)
                .with_outcome(ToolOutcome::default());
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
                    self.asking = None;
                    self.settled.push((kind, resolved.clone()));
                    self.append_step(vec![row]).await?;
                    return Ok(resolved);
                }
                None => {
                    self.asking = Some(Asking {
                        kind,
                        attempt,
                        text: text.clone(),
                    });
                    self.append_step(vec![row]).await?;
                }
            }
        }
        self.asking = None;
        self.settled.push((kind, None));
        Ok(None)
    }

    /// Imprint's open question (no options): the user's words, or `None`
    /// when none came (left to Imprint, or no answer in time), with the
    /// question's history row for the caller to store once what follows
    /// from the answer is in the reply's state.
    pub(super) async fn ask_open(
        &mut self,
        text: String,
        reason: String,
    ) -> Result<(Option<String>, NewMessage), Interrupt> {
        let question = Question {
            reason: Some(reason),
            ..self.new_question(text, Vec::new(), true, QuestionOrigin::Imprint)
        };
        let (posed, question) = self.pose(question).await?;
        let mut stored_args = question_args(&question);
        let (outcome, content, answer) = match posed {
            Posed::Answered(answer) => ("answered", answer.clone(), Some(answer)),
            Posed::LeftToImprint => {
                self.closed_left_to_imprint(question.id.clone(), None);
                let content = "The user left it to Imprint; nothing was given.".to_string();
                ("left_to_imprint", content, None)
            }
            Posed::TimedOut => {
                let content = format!(
                    "No answer came from the user within {}.",
                    self.answer_wait()
                );
                ("timed_out", content, None)
            }
        };
        stored_args["outcome"] = json!(outcome);
        let row =
            NewMessage::tool(ASK_USER, stored_args, content).with_outcome(ToolOutcome::default());
        Ok((answer, row))
    }

    /// The call when the user gave no usable detail: a write is not made
    /// (and the model is told to say so); a read goes on with the stated
    /// assumption of no project filter.
    pub(super) async fn without_answer(
        &self,
        call: &ToolCallRequest,
        need: &Need,
    ) -> (ToolOutput, Value, String) {
        let output = match (call.name.as_str(), need) {
            (SEARCH | LIST_PROJECTS, _) => {
                let mut args = call.arguments.clone();
                if let Some(map) = args.as_object_mut() {
                    map.remove("project");
                }
                let mut output = self.run_tool(&call.name, &args).await;
                output.text = format!(
                    "The user did not say which project, so this covers all projects. {}",
                    output.text
                );
                let content = cut_result(&output.text);
                return (output, args, content);
            }
            // The write could not be made: the detail it needs never came.
            (_, Need::Time { .. }) => ToolOutput {
                text: "No reminder was set: the user did not say when. Tell the user you did not set it, and that they can tell you when.".into(),
                status: ToolStatus::Failed,
                ..ToolOutput::default()
            },
            _ => ToolOutput {
                text: "Nothing was stored: the user did not say which project. Tell the user you did not store it, and that they can tell you the project.".into(),
                status: ToolStatus::Failed,
                ..ToolOutput::default()
            },
        };
        let content = output.text.clone();
        (output, call.arguments.clone(), content)
    }
}

/// A question as its `ask_user` history row stores it (the outcome is
/// added when known).
fn question_args(question: &Question) -> Value {
    let mut args = json!({
        "question": question.question,
        "options": question.options,
        "allow_other": question.allow_other,
        "question_id": question.id,
    });
    if question.origin == QuestionOrigin::Imprint {
        args["origin"] = json!("imprint");
    }
    if let Some(reason) = &question.reason {
        args["reason"] = json!(reason);
    }
    args
}
