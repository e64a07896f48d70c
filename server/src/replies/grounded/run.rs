//! A grounded run of one call: not run when it is not offered, or when
//! what it is about never came; its arguments checked against the user's
//! words (a missing one asked for first, and what the call does when no
//! usable answer came); a repeat not redone; and what the user chose, or
//! left to Imprint, said with its result.

use app::protocol::{CallReason, ToolStatus};
use serde_json::Value;

use crate::grounding::reference::namesakes;
use crate::grounding::{self, Need, Resolved, Verdict};
use crate::models::ToolCallRequest;
use crate::replies::run::{Interrupt, Run};
use crate::replies::stream::cut_result;
use crate::tools::{ToolOutput, LIST_PROJECTS, REMIND, SEARCH, STORE};

impl Run {
    /// Runs a call whose grounded arguments (see [`grounding`]) the user
    /// gave; when one is missing, Imprint asks the user itself first.
    /// Returns the output, the arguments it ran with and the content to
    /// store.
    pub(in crate::replies) async fn grounded_run(
        &mut self,
        call: &ToolCallRequest,
    ) -> Result<(ToolOutput, Value, String), Interrupt> {
        if !self.talk.offers(&call.name) {
            let output = self.not_offered(&call.name);
            let content = cut_result(&output.text);
            return Ok((output, call.arguments.clone(), content));
        }
        if matches!(call.name.as_str(), STORE | REMIND) && self.settling.reference_unknown() {
            // "Remind me about it" and nobody said what "it" is: a write
            // about it would be a guess.
            let output = ToolOutput::not_run(
                ToolStatus::Refused,
                "Not done: the user did not say what they meant, so nothing was written. Do not call it again; tell the user, and that they can say what they mean.",
                CallReason::ReferenceUnknown,
            );
            let content = output.text.clone();
            return Ok((output, call.arguments.clone(), content));
        }
        let projects = if matches!(call.name.as_str(), SEARCH | STORE | LIST_PROJECTS) {
            self.recent_projects().await
        } else {
            Vec::new()
        };
        let words = self.talk.user_words(self.policy.judged_writes());
        let verdict = grounding::check(
            &call.name,
            &call.arguments,
            &words,
            &projects,
            self.env.clock.now(),
        );
        let (args, chosen) = match verdict {
            Verdict::Run(args) => (args, None),
            Verdict::Refuse(unasked) => {
                let output = refused(unasked);
                let content = output.text.clone();
                return Ok((output, call.arguments.clone(), content));
            }
            Verdict::Ask(need) => match self.ask_for(&need).await? {
                Some(resolved) => (resolved.apply(&call.arguments), Some(resolved)),
                None => return Ok(self.without_answer(call, &need).await),
            },
        };
        let args = self.held_to_users_words(&call.name, args);
        if let Some(output) = self
            .policy
            .repeated_write(&call.name, &args, self.env.clock.now())
            .or_else(|| self.policy.repeated_read(&call.name, &args))
        {
            let content = output.text.clone();
            return Ok((output, args, content));
        }
        let mut output = self.run_tool(&call.name, &args).await;
        self.policy.record(&call.name, &args, &output);
        if let Some(resolved) = chosen {
            self.say_who_chose(&mut output, &resolved);
        }
        let content = cut_result(&output.text);
        Ok((output, args, content))
    }

    /// The output for a call of a tool this reply was not offered.
    fn not_offered(&self, name: &str) -> ToolOutput {
        match grounding::Unasked::of_tool(name) {
            // Left out of the offer because the user did not ask for it.
            Some(unasked) if !self.talk.read_only() => refused(unasked),
            _ => ToolOutput::not_run(
                ToolStatus::Failed,
                format!("Error: the tool `{name}` is not available here"),
                CallReason::NotOffered {
                    tool: name.to_string(),
                },
            ),
        }
    }

    /// A reminder's `repeat` ("daily", "weekdays", "weekly") comes from
    /// the user's words only (a model's guess is dropped), and its `at`
    /// moves to the first time it fires; the `remind` tool stores it. A
    /// search's date filters likewise, or it searches all. A memory keeps
    /// the user's own words (see [`grounding::memory_content_from_user`]).
    fn held_to_users_words(&self, name: &str, args: Value) -> Value {
        let words = self.talk.user_words(self.policy.judged_writes());
        match name {
            REMIND => {
                let mut args = grounding::reminder_text_from_user(
                    &args,
                    &words,
                    self.settling.meant(),
                    self.settling.chosen_label(),
                );
                // "pay tomas", Tomas Lind chosen of two Tomases: the reminder
                // says whom.
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                let named = self
                    .chosen_full_name()
                    .and_then(|full| namesakes::with_the_full_name(text, full));
                if let (Some(named), Some(map)) = (named, args.as_object_mut()) {
                    map.insert("text".into(), Value::String(named));
                }
                grounding::recurring(&args, &words, self.env.clock.now())
            }
            SEARCH => grounding::dates_from_user(&args, &words, self.env.clock.now()),
            STORE => {
                let mut args = grounding::memory_content_from_user(&args, &words);
                // "he's allergic to bee stings too", Sipho chosen: the
                // memory says whom it is about.
                let content = args.get("content").and_then(Value::as_str).unwrap_or("");
                let named = match self.chosen_full_name() {
                    // "priya's rates go up", Priya Pillay chosen of two
                    // Priyas: kept with her full name.
                    Some(full) => namesakes::with_the_full_name(content, full),
                    None => self.settling.chosen_person().and_then(|memory| {
                        grounding::reference::with_the_person_named(content, &memory)
                    }),
                };
                if let (Some(named), Some(map)) = (named, args.as_object_mut()) {
                    map.insert("content".into(), Value::String(named));
                }
                args
            }
            _ => args,
        }
    }

    /// The full name the user chose of two people sharing a first name
    /// ("Tomas Lind"), if that is what Imprint asked.
    fn chosen_full_name(&self) -> Option<&str> {
        self.settling
            .chosen_label()
            .filter(|label| namesakes::is_a_full_name(label))
    }

    /// Says with a call's result what the user chose when Imprint asked
    /// (or that they left it to Imprint): the model says so in turn.
    fn say_who_chose(&mut self, output: &mut ToolOutput, resolved: &Resolved) {
        output.text = if self.questions.take_imprint_chose() {
            format!(
                "The user left the choice to Imprint, which chose {}; say what was chosen. {}",
                resolved.describe(),
                output.text
            )
        } else {
            format!("The user chose {}. {}", resolved.describe(), output.text)
        };
        output.wrote = true;
    }

    /// The call when the user gave no usable detail: a write is not made
    /// (and the model is told to say so); a read goes on with the stated
    /// assumption of no project filter.
    async fn without_answer(
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
            (_, Need::Time { .. }) => ToolOutput::not_run(
                ToolStatus::Failed,
                "No reminder was set: the user did not say when. Tell the user you did not set it, and that they can tell you when.",
                CallReason::NoTimeCame,
            ),
            _ => ToolOutput::not_run(
                ToolStatus::Failed,
                "Nothing was stored: the user did not say which project. Tell the user you did not store it, and that they can tell you the project.",
                CallReason::NoProjectCame,
            ),
        };
        let content = output.text.clone();
        (output, call.arguments.clone(), content)
    }
}

/// A write the user never asked for, not made.
fn refused(unasked: grounding::Unasked) -> ToolOutput {
    ToolOutput::not_run(
        ToolStatus::Refused,
        format!(
            "Not done: {}. Do not call it again; answer the user.",
            unasked.for_the_model()
        ),
        unasked.for_the_user(),
    )
}
