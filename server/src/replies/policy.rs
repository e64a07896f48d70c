//! The small-model policy: the guards that keep a small model's habits out
//! of a reply, in one place.
//!
//! A 0.5B model calls tools, but it also
//! - answers "I'll remind you" without setting anything (one **nudge**);
//! - repeats a write it already made, or a read with the same arguments
//!   (a **repeat** is not redone);
//! - goes on after the job is done, calling writes that were not asked
//!   for and asking "anything else?" (once every write the request asked
//!   for is made, a turn of only refused, unasked or repeated calls
//!   **ends** the tool loop with the reserved answer);
//! - writes dozens of calls in one turn (a **call cap** per turn);
//! - asks again and again, or asks "anything else?" once the reminder is
//!   set (a **question cap**);
//! - writes nothing readable after its tools ran (a **fallback** answer
//!   Imprint writes from what was done or found).

use app::protocol::ToolStatus;
use chrono::{DateTime, Local};
use serde_json::Value;

use super::own_answer;
use crate::grounding;
use crate::models::{ChatMessage, ToolCallRequest};
use crate::tools::{self, ToolOutput, WritesAsked};

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
    /// The reads made so far (tool, arguments, result): none runs twice.
    reads: Vec<(String, Value, String)>,
    /// The model was reminded once to make the reminder it was asked for.
    nudged: bool,
    /// Imprint made the reminder call itself (once, after the nudge).
    reminded_for_the_model: bool,
    /// The last read that found something (for a model that then says
    /// nothing).
    found: Option<String>,
    /// The model's questions put to the user in this reply (a small model
    /// asks the same again after the answer).
    #[serde(default)]
    questions: Vec<String>,
    /// What Imprint's first search found when it settled what the request
    /// is about, as one thing (then the model's question is not asked):
    /// the answer over the model's own searches, which a small model words
    /// more broadly ("phone" finds Anna's number too for "What's Marta's
    /// phone number?").
    #[serde(default)]
    settled_by: Option<String>,
    /// The words that settling search looked for: a later search is news
    /// only when it finds new memories about them.
    #[serde(default)]
    settled_topic: Vec<String>,
    /// Imprint stored what the user asked to save (once).
    #[serde(default)]
    stored_for_the_model: bool,
}

/// What the model's `ask_user` is weighed against.
pub(super) struct ModelQuestion<'a> {
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

    /// After the nudge, a model that still sets no reminder gets one set
    /// for it: the `remind` call Imprint makes itself, with the text of
    /// the user's request (its time is then grounded as any call's: from
    /// the user's words, or Imprint's question). Once per reply.
    pub fn reminder_for_the_model(
        &mut self,
        offered: &[Value],
        request: &str,
        details_asked: bool,
    ) -> Option<ToolCallRequest> {
        if !self.nudged {
            return None;
        }
        self.reminder_at_the_end(offered, request, details_asked)
    }

    /// The same call when research ends with the reminder asked for not
    /// set (the model called other tools until then; no nudge first).
    pub fn reminder_at_the_end(
        &mut self,
        offered: &[Value],
        request: &str,
        details_asked: bool,
    ) -> Option<ToolCallRequest> {
        let still_forgotten = !self.reminded_for_the_model
            && tools::is_offered(offered, tools::REMIND)
            && grounding::asks_for_reminder(request)
            && !self.reminder_set()
            && !details_asked;
        if !still_forgotten {
            return None;
        }
        let text = grounding::reminder_text(request)?;
        self.reminded_for_the_model = true;
        Some(ToolCallRequest {
            id: "imprint_remind".into(),
            name: tools::REMIND.into(),
            arguments: serde_json::json!({ "text": text }),
        })
    }

    /// When research ends and a memory the user asked to save was not
    /// stored, the `store` call Imprint makes itself, with the user's own
    /// words for what to keep (see [`grounding::what_to_save`]) and the
    /// project they named (its grounding then runs as any call's). Once
    /// per reply. A small model lists projects turn after turn instead.
    pub fn memory_for_the_model(
        &mut self,
        offered: &[Value],
        request: &str,
        project: Option<String>,
        details_asked: bool,
    ) -> Option<ToolCallRequest> {
        let forgotten = !self.stored_for_the_model
            && !details_asked
            && tools::is_offered(offered, tools::STORE)
            && !self.writes.iter().any(|(name, _, _)| name == tools::STORE);
        if !forgotten {
            return None;
        }
        let content = grounding::what_to_save(request)?;
        self.stored_for_the_model = true;
        let mut arguments = serde_json::json!({ "content": content });
        if let Some(project) = project {
            arguments["project"] = Value::String(project);
        }
        Some(ToolCallRequest {
            id: "imprint_store".into(),
            name: tools::STORE.into(),
            arguments,
        })
    }

    /// Keeps the first [`MAX_CALLS_PER_TURN`] calls of a turn; the note
    /// for the model when more were dropped.
    pub fn cap_calls(calls: &mut Vec<ToolCallRequest>) -> Option<ChatMessage> {
        let extra_calls = calls.len().saturating_sub(MAX_CALLS_PER_TURN);
        calls.truncate(MAX_CALLS_PER_TURN);
        // The turn is no longer read past the first call too many, so
        // how many more it wrote is not known.
        (extra_calls > 0).then(|| {
            ChatMessage::User(format!(
                "(Imprint: only the first {MAX_CALLS_PER_TURN} tool calls of a turn run; the rest were not run. Call only what you need.)"
            ))
        })
    }

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
        Some(ToolOutput {
            text: format!("Already done, do not repeat it: {result}"),
            status: ToolStatus::Repeated,
            ..ToolOutput::default()
        })
    }

    /// The output for a read this reply already made with the same
    /// arguments (its result again, not run twice), or `None`.
    pub fn repeated_read(&self, name: &str, args: &Value) -> Option<ToolOutput> {
        let (_, _, result) = self
            .reads
            .iter()
            .find(|(done_name, done, _)| done_name == name && same_read(done, args))?;
        Some(ToolOutput {
            text: format!(
                "Already done with the same arguments; do not repeat it. Its result: {result}"
            ),
            status: ToolStatus::Repeated,
            ..ToolOutput::default()
        })
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

    /// What Imprint found itself before the model started: the answer for
    /// a model that then finds nothing and says nothing. `settles`: it is
    /// one thing (one project's memories, and the request named at most
    /// one project), so a question about it is not asked.
    pub fn found_first(&mut self, found: String, settles: bool) {
        if settles {
            self.settled_by = Some(found.clone());
        }
        self.found.get_or_insert(found);
    }

    /// The words of the request Imprint's settling first search looked
    /// for (see [`Self::settled_topic`]).
    pub fn settle_topic(&mut self, topic: Vec<String>) {
        self.settled_topic = topic;
    }

    /// What the settling first search looked for; empty when none settled
    /// the request by its words (a reference chosen, a project named).
    pub fn settled_topic(&self) -> &[String] {
        &self.settled_topic
    }

    /// Imprint's first search found what the request is about, as one
    /// thing (see [`Self::found_first`]).
    pub fn first_search_settled(&self) -> bool {
        self.settled_by.is_some()
    }

    /// True once the job is done: every write the request asked for was
    /// made, and the reply did something (a write, or a read).
    pub fn job_done(&self, request: &str) -> bool {
        let asked = WritesAsked::of(request);
        let made = |tool: &str| self.writes.iter().any(|(name, _, _)| name == tool);
        (!asked.save || made(tools::STORE))
            && (!asked.remind || made(tools::REMIND))
            && !(self.writes.is_empty() && self.reads.is_empty())
    }

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
        let text = if self.reminder_set() {
            "Not asked: what the user asked for is done. Do not ask; answer the user now.".into()
        } else if ask.time_given {
            "Not asked: the user already said when. Do not ask; call remind now with the text and that time.".into()
        } else if same_words(ask.question, ask.request) {
            "Not asked: that is the user's own request, not a question for them. Do not ask it back; do what it asks.".into()
        } else if self.questions.iter().any(|q| same_words(q, ask.question)) {
            "Not asked: you already asked this, and the user answered. Do not ask again; go on with their answer.".into()
        } else if let Some(option) = ask.said {
            format!("Not asked: the user already said \"{option}\". Do not ask; go on with it.")
        } else if self.first_search_settled() {
            "Not asked: Imprint's search already found what the user asks about (see the note with their message). Do not ask; answer from it.".into()
        } else if ask.settled {
            "Not asked: the user already answered Imprint's question about this request. Do not ask again; go on with what they said.".into()
        } else if asked >= MAX_MODEL_QUESTION_AFTER {
            format!(
                "Not asked: the user already answered {asked} questions in this reply. Do not ask again; go on with what they said, and say what you assumed."
            )
        } else {
            return None;
        };
        Some(ToolOutput {
            text,
            status: ToolStatus::NotAsked,
            ..ToolOutput::default()
        })
    }

    /// The answer for a model that wrote nothing readable after its tools
    /// ran: what its writes did ("Done: reminder set for Tuesday 09:00 to
    /// call Anna."), else what the last search found, else that its reads
    /// found nothing.
    pub fn fallback(&self, now: DateTime<Local>) -> Option<String> {
        let writes: Vec<(String, Value)> = self
            .writes
            .iter()
            .map(|(name, args, _)| (name.clone(), args.clone()))
            .collect();
        own_answer::from_writes(&writes, now)
            .or_else(|| {
                self.settled_by
                    .as_deref()
                    .or(self.found.as_deref())
                    .map(own_answer::from_found)
            })
            .or_else(|| {
                self.reads
                    .last()
                    .map(|(name, args, _)| own_answer::nothing_found(name, args))
            })
    }

    /// The writes made so far: tool and arguments.
    pub fn writes(&self) -> Vec<(String, Value)> {
        self.writes
            .iter()
            .map(|(name, args, _)| (name.clone(), args.clone()))
            .collect()
    }

    /// The memories Imprint's lookup settled the request by (one match,
    /// or the one the user chose), as search lines.
    pub fn settled_memories(&self) -> Option<&str> {
        self.settled_by.as_deref()
    }

    fn reminder_set(&self) -> bool {
        self.writes.iter().any(|(name, _, _)| name == tools::REMIND)
    }
}

/// True for a turn whose calls all did nothing: refused, not asked, or
/// repeats (an empty turn is no such turn).
impl SmallModelPolicy {
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

/// Whether two calls of a turn are the same: the same tool with the same
/// arguments (as [`same_read`] compares them).
pub(super) fn same_call(a: &ToolCallRequest, b: &ToolCallRequest) -> bool {
    a.name == b.name && same_read(&a.arguments, &b.arguments)
}

pub(super) fn did_nothing(statuses: &[ToolStatus]) -> bool {
    !statuses.is_empty()
        && statuses.iter().all(|s| {
            matches!(
                s,
                ToolStatus::Refused | ToolStatus::NotAsked | ToolStatus::Repeated
            )
        })
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
    use serde_json::json;

    fn done(text: &str) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            ..ToolOutput::default()
        }
    }

    #[test]
    fn what_a_search_found_is_the_fallback_over_the_project_list() {
        let found = |text: &str| ToolOutput {
            text: text.into(),
            facts: vec![text.into()],
            ..ToolOutput::default()
        };
        let now = Local::now();
        let mut policy = SmallModelPolicy::default();
        policy.record(
            tools::LIST_PROJECTS,
            &json!({}),
            &found("Projects: Billing"),
        );
        assert!(policy.fallback(now).unwrap().contains("Projects: Billing"));
        policy.record(
            tools::SEARCH,
            &json!({"query": "tea"}),
            &found("[1] green tea"),
        );
        policy.record(
            tools::LIST_PROJECTS,
            &json!({"x": 1}),
            &found("Projects: Home"),
        );
        let answer = policy.fallback(now).unwrap();
        assert!(answer.contains("[1] green tea"), "{answer}");
    }

    #[test]
    fn what_imprints_settling_search_found_is_the_fallback_over_the_models_broader_search() {
        let marta = "[17] (no project, 2026-08-02) Marta's phone number is 0176 333 444";
        let anna = "[16] (no project, 2026-08-01) Anna's phone number is 0176 111 222";
        let broader = ToolOutput {
            text: format!("2 memories found:\n{marta}\n{anna}"),
            facts: vec!["memory:17".into(), "memory:16".into()],
            ..ToolOutput::default()
        };
        for settles in [true, false] {
            let mut policy = SmallModelPolicy::default();
            policy.found_first(format!("1 memory found:\n{marta}"), settles);
            policy.record(tools::SEARCH, &json!({"query": "phone"}), &broader);
            let answer = policy.fallback(Local::now()).unwrap();
            assert!(answer.contains("Marta's phone number"), "{answer}");
            // Not settled: the model's own search (after the user said
            // which, say) is the newer word.
            assert_eq!(answer.contains("Anna's"), !settles, "{answer}");
        }
    }

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

    #[test]
    fn a_turn_that_did_nothing() {
        use ToolStatus::*;
        assert!(did_nothing(&[Refused, NotAsked, Repeated]));
        assert!(!did_nothing(&[Refused, Done]));
        assert!(!did_nothing(&[Failed]));
        assert!(!did_nothing(&[]));
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
