//! The model's `ask_user` call: weighed by the policy (a small model asks
//! what the user already said), then posed, and its outcome told to the
//! model.

use app::protocol::{CallReason, QuestionOrigin, QuestionOutcome, ToolStatus};
use serde_json::{json, Value};

use super::{question_args, Posed};
use crate::ask;
use crate::grounding;
use crate::models::ToolCallRequest;
use crate::replies::policy::ModelQuestion;
use crate::replies::run::{Interrupt, Run};
use crate::tools::{self, ToolOutput};

/// What the model is told when the user left the choice to it.
const LEFT_TO_MODEL: &str =
    "The user left the choice to you: choose what fits best, and say what you chose.";

impl Run {
    /// Runs the model's `ask_user` call: asks and waits. Returns the tool
    /// output, the arguments and the content to store.
    pub(in crate::replies) async fn ask(
        &mut self,
        call: &ToolCallRequest,
    ) -> Result<(ToolOutput, Value, String), Interrupt> {
        let args = match ask::normalize(&call.arguments) {
            Ok(args) => args,
            Err(message) => {
                let output = ToolOutput::not_run(
                    ToolStatus::Failed,
                    format!("Error: {message}"),
                    CallReason::QuestionUnreadable { error: message },
                );
                let content = output.text.clone();
                return Ok((output, call.arguments.clone(), content));
            }
        };
        if let Some(output) = self.refused_question(call, &args.question) {
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
                stored_args["outcome"] = json!(QuestionOutcome::Answered);
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
                stored_args["outcome"] = json!(QuestionOutcome::LeftToImprint);
                let output = ToolOutput {
                    text: LEFT_TO_MODEL.into(),
                    // The user's decision is progress, like an answer.
                    wrote: true,
                    ..ToolOutput::default()
                };
                (output, LEFT_TO_MODEL.to_string())
            }
            Posed::TimedOut => {
                stored_args["outcome"] = json!(QuestionOutcome::TimedOut);
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

    /// The policy's refusal of the model's `question`, if it is not to be
    /// asked (see [`crate::replies::policy::SmallModelPolicy::refuse_question`]).
    fn refused_question(&self, call: &ToolCallRequest, question: &str) -> Option<ToolOutput> {
        // A reminder asked for whose time the user gave needs no question.
        let time_given = grounding::asks_for_reminder(self.talk.request())
            && self.talk.offers(tools::REMIND)
            && self
                .talk
                .user_words(self.policy.judged_writes())
                .say_a_moment(self.env.clock.now());
        // What Imprint asked before the model started, answered usably.
        let settled = self.settling.any_answered();
        let words = self.talk.user_words(self.policy.judged_writes());
        self.policy.refuse_question(&ModelQuestion {
            question,
            request: self.talk.request(),
            asked: self.questions.asked(),
            time_given,
            settled,
            said: words.the_one_named(&ask::written_options(&call.arguments)),
        })
    }
}
