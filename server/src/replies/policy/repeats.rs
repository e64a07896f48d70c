//! What the policy keeps of each call (a write, a read, what it found),
//! so that a repeat is not redone: a write made again is "already done",
//! and a read with the same arguments gives its result again.

use app::protocol::{CallReason, ToolStatus};
use chrono::{DateTime, Local};
use serde_json::Value;

use super::SmallModelPolicy;
use crate::models::ToolCallRequest;
use crate::tools::{self, ToolOutput};

impl SmallModelPolicy {
    /// The output for a call that repeats a write this reply already made
    /// (counted as a repeat), or `None` if it is new.
    pub fn repeated_write(
        &mut self,
        name: &str,
        args: &Value,
        now: DateTime<Local>,
    ) -> Option<ToolOutput> {
        let (_, _, result) = self
            .writes
            .iter()
            .find(|(done_name, done, _)| done_name == name && same_write(name, done, args, now))?;
        Some(ToolOutput::not_run(
            ToolStatus::Repeated,
            format!("Already done, do not repeat it: {result}"),
            CallReason::RepeatedWrite,
        ))
    }

    /// The output for a read this reply already made with the same
    /// arguments (its result again, not run twice), or `None`.
    pub fn repeated_read(&self, name: &str, args: &Value) -> Option<ToolOutput> {
        let (_, _, result) = self
            .reads
            .iter()
            .find(|(done_name, done, _)| done_name == name && same_read(done, args))?;
        Some(ToolOutput::not_run(
            ToolStatus::Repeated,
            format!("Already done with the same arguments; do not repeat it. Its result: {result}"),
            CallReason::RepeatedRead,
        ))
    }

    /// Keeps what a call did: a write (against repeats, and as the
    /// fallback answer), a read (against repeats) and what it found.
    pub fn record(&mut self, name: &str, args: &Value, output: &ToolOutput) {
        if output.error {
            return;
        }
        if output.wrote {
            self.writes
                .push((name.to_string(), args.clone(), output.text.clone()));
            return;
        }
        self.reads
            .push((name.to_string(), args.clone(), output.text.clone()));
        // What a search found answers the user better than the list of
        // their projects a small model also asks for.
        let listing = name == tools::LIST_PROJECTS;
        if !output.facts.is_empty() && (!listing || self.found.is_none()) {
            self.found = Some(output.text.clone());
        }
    }
}

/// Whether two calls of a turn are the same: the same tool with the same
/// arguments (as [`same_read`] compares them).
pub(in crate::replies) fn same_call(a: &ToolCallRequest, b: &ToolCallRequest) -> bool {
    a.name == b.name && same_read(&a.arguments, &b.arguments)
}

/// Whether two reads have the same arguments: blank and absent optional
/// arguments are the same, and text compares without case or outer
/// spaces ("Billing" and "billing ").
fn same_read(a: &Value, b: &Value) -> bool {
    let normal = |v: &Value| -> Vec<(String, String)> {
        let mut pairs: Vec<(String, String)> = v
            .as_object()
            .map(|map| {
                map.iter()
                    .filter_map(|(k, v)| {
                        let text = match v {
                            Value::String(s) => s.trim().to_lowercase(),
                            Value::Null => String::new(),
                            other => other.to_string(),
                        };
                        (!text.is_empty()).then(|| (k.clone(), text))
                    })
                    .collect()
            })
            .unwrap_or_default();
        pairs.sort();
        pairs
    };
    normal(a) == normal(b)
}

/// Whether two writes of one reply are the same: a reminder at the same
/// moment is a repeat even when the model rewords its text.
fn same_write(tool: &str, a: &Value, b: &Value, now: DateTime<Local>) -> bool {
    if tool != tools::REMIND {
        return a == b;
    }
    // "In 30 minutes" grounded a few seconds apart is still one moment.
    let at = |v: &Value| {
        v.get("at")
            .and_then(Value::as_str)
            .and_then(|at| tools::run::parse_date_time(at, now).ok())
    };
    match (at(a), at(b)) {
        (Some(x), Some(y)) => (x - y).num_seconds().abs() <= 120,
        _ => a.get("at") == b.get("at"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replies::policy::done;
    use serde_json::json;

    #[test]
    fn no_read_runs_twice_with_the_same_arguments() {
        let mut policy = SmallModelPolicy::default();
        policy.record(tools::LIST_PROJECTS, &json!({}), &done("Projects: Billing"));
        let again = policy
            .repeated_read(tools::LIST_PROJECTS, &json!({}))
            .unwrap();
        assert_eq!(again.status, ToolStatus::Repeated);
        assert!(again.text.ends_with("Projects: Billing"), "{}", again.text);
        policy.record(
            tools::SEARCH,
            &json!({"query": "tea", "project": "Home"}),
            &done("1 memory found"),
        );
        assert!(policy
            .repeated_read(
                tools::SEARCH,
                &json!({"project": "home ", "query": "Tea", "since": ""})
            )
            .is_some());
        assert!(policy
            .repeated_read(tools::SEARCH, &json!({"query": "tea"}))
            .is_none());
    }

    #[test]
    fn reminders_moments_apart_are_the_same_write() {
        let now = Local::now();
        let at = |t: &str| json!({"text": "oven", "at": t});
        assert!(same_write(
            tools::REMIND,
            &at("2026-11-30T12:38:56Z"),
            &at("2026-11-30T12:39:01Z"),
            now
        ));
        assert!(!same_write(
            tools::REMIND,
            &at("2026-11-30T12:38:56Z"),
            &at("2026-11-30T13:38:56Z"),
            now
        ));
        assert!(!same_write(
            tools::STORE,
            &json!({"content": "a"}),
            &json!({"content": "b"}),
            now
        ));
    }
}
