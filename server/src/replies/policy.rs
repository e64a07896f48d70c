//! The small-model policy: the guards that keep a small model's habits out
//! of a reply, in one place.
//!
//! A 0.5B model calls tools, but it also
//! - answers "I'll remind you" without setting anything (one **nudge**);
//! - repeats a write it already made (a **repeat** is not redone, and a
//!   turn of nothing but repeats ends the tool loop);
//! - writes dozens of calls in one turn (a **call cap** per turn);
//! - asks again and again, or asks "anything else?" once the reminder is
//!   set (a **question cap**);
//! - writes nothing after its tools ran (a **fallback** answer in the
//!   tools' own words).

use serde_json::Value;

use crate::grounding;
use crate::models::{ChatMessage, ToolCallRequest};
use crate::tools::{self, ToolOutput};

/// Calls run per model turn; more are dropped with a note (a small model
/// may write dozens in one turn).
pub(super) const MAX_CALLS_PER_TURN: usize = 4;

/// Once this many questions were put in a reply, the model's `ask_user`
/// is not asked any more (Imprint's own are one per detail).
const MAX_MODEL_QUESTION_AFTER: usize = 2;

/// What the policy keeps of one reply (stored with a waiting reply).
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct SmallModelPolicy {
    /// The writes made so far (tool, arguments, result): a small model
    /// repeats a call it already made, and must not store it twice.
    writes: Vec<(String, Value, String)>,
    /// Calls that repeated one of `writes`.
    repeats: usize,
    /// The model was reminded once to make the reminder it was asked for.
    nudged: bool,
    /// The last read that found something (for a model that then says
    /// nothing).
    found: Option<String>,
}

impl SmallModelPolicy {
    /// The nudge, once per reply, when the user asked for a reminder,
    /// `remind` is offered, and none was made or asked about.
    pub fn reminder_nudge(
        &mut self,
        offered: &[Value],
        request: &str,
        details_asked: bool,
    ) -> Option<ChatMessage> {
        let forgotten = !self.nudged
            && tools::is_offered(offered, tools::REMIND)
            && grounding::asks_for_reminder(request)
            && !self.reminder_set()
            && !details_asked;
        if !forgotten {
            return None;
        }
        self.nudged = true;
        Some(ChatMessage::User(
            "(Imprint: the user asked for a reminder and none is set. Call remind now with the text and the time the user gave.)".into(),
        ))
    }

    /// Keeps the first [`MAX_CALLS_PER_TURN`] calls of a turn; the note
    /// for the model when more were dropped.
    pub fn cap_calls(calls: &mut Vec<ToolCallRequest>) -> Option<ChatMessage> {
        let extra_calls = calls.len().saturating_sub(MAX_CALLS_PER_TURN);
        calls.truncate(MAX_CALLS_PER_TURN);
        (extra_calls > 0).then(|| {
            ChatMessage::User(format!(
                "(Imprint: only the first {MAX_CALLS_PER_TURN} tool calls of a turn run; {extra_calls} more were not run. Call only what you need.)"
            ))
        })
    }

    /// How many calls so far repeated a write.
    pub fn repeats(&self) -> usize {
        self.repeats
    }

    /// The output for a call that repeats a write this reply already made
    /// (counted as a repeat), or `None` if it is new.
    pub fn repeated_write(&mut self, name: &str, args: &Value) -> Option<ToolOutput> {
        let (_, _, result) = self
            .writes
            .iter()
            .find(|(done_name, done, _)| done_name == name && same_write(name, done, args))?;
        let output = ToolOutput {
            text: format!("Already done, do not repeat it: {result}"),
            ..ToolOutput::default()
        };
        self.repeats += 1;
        Some(output)
    }

    /// Keeps what a call did: a write (against repeats, and as the
    /// fallback answer) or what a read found.
    pub fn record(&mut self, name: &str, args: &Value, output: &ToolOutput) {
        if output.wrote && !output.error {
            self.writes
                .push((name.to_string(), args.clone(), output.text.clone()));
        } else if !output.error && !output.facts.is_empty() {
            self.found = Some(output.text.clone());
        }
    }

    /// Why the model's `ask_user` is not asked, if it is not: the
    /// reminder asked for is set (small models ask "anything else?"), or
    /// the user already answered enough questions in this reply.
    pub fn refuse_question(&self, asked: usize) -> Option<ToolOutput> {
        let text = if self.reminder_set() {
            "Not asked: what the user asked for is done. Do not ask; answer the user now.".into()
        } else if asked >= MAX_MODEL_QUESTION_AFTER {
            format!(
                "Not asked: the user already answered {asked} questions in this reply. Do not ask again; go on with what they said, and say what you assumed."
            )
        } else {
            return None;
        };
        Some(ToolOutput {
            text,
            ..ToolOutput::default()
        })
    }

    /// The answer for a model that wrote nothing after its tools ran: the
    /// last write's result, else what the last search found.
    pub fn fallback(&self) -> Option<String> {
        self.writes
            .last()
            .map(|(_, _, result)| result.clone())
            .or_else(|| {
                self.found
                    .as_ref()
                    .map(|found| format!("Here is what I found:\n\n{found}"))
            })
    }

    fn reminder_set(&self) -> bool {
        self.writes.iter().any(|(name, _, _)| name == tools::REMIND)
    }
}

/// Whether two writes of one reply are the same: a reminder at the same
/// moment is a repeat even when the model rewords its text.
fn same_write(tool: &str, a: &Value, b: &Value) -> bool {
    if tool != tools::REMIND {
        return a == b;
    }
    // "In 30 minutes" grounded a few seconds apart is still one moment.
    let at = |v: &Value| {
        v.get("at")
            .and_then(Value::as_str)
            .and_then(|at| tools::run::parse_date_time(at, chrono::Local::now()).ok())
    };
    match (at(a), at(b)) {
        (Some(x), Some(y)) => (x - y).num_seconds().abs() <= 120,
        _ => a.get("at") == b.get("at"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reminders_moments_apart_are_the_same_write() {
        let at = |t: &str| json!({"text": "oven", "at": t});
        assert!(same_write(
            tools::REMIND,
            &at("2026-11-30T12:38:56Z"),
            &at("2026-11-30T12:39:01Z")
        ));
        assert!(!same_write(
            tools::REMIND,
            &at("2026-11-30T12:38:56Z"),
            &at("2026-11-30T13:38:56Z")
        ));
        assert!(!same_write(
            tools::STORE,
            &json!({"content": "a"}),
            &json!({"content": "b"})
        ));
    }
}
