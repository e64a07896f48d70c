//! `stream_reply`: the tool loop of one reply.
//!
//! Each model turn streams text and may call tools; every call of a turn
//! runs in order and the next turn starts. A turn without calls is the
//! answer. `ask_user` parks the reply on a waiter (giving up its writing
//! slot) until the answer, a stop, the end of the reply or the timeout.

use std::sync::Arc;
use std::time::Duration;

use app::protocol::{DashboardEvent, Question, QuestionOrigin, ReplyEvent, Role};
use serde_json::{json, Value};
use tokio::sync::{broadcast, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::{Replies, Reply};
use crate::ask::{self, WaitOutcome};
use crate::grounding::{self, Need, Verdict};
use crate::models::{ChatMessage, ModelClient, ModelEvent, ToolCallRequest, TurnRequest};
use crate::research::Research;
use crate::store::{NewMessage, Store};
use crate::tools::{
    self, run::ToolEnv, Offer, ToolOutput, ASK_USER, LIST_PROJECTS, MAX_RESULT_CHARS, SEARCH, STORE,
};

/// What every reply needs from the server.
pub struct ReplyEnv {
    pub model: ModelClient,
    /// The tool sets, built once and shared by every reply (a set is ~20 KB
    /// of JSON values; thousands of waiting replies must not each hold one).
    pub tool_sets: ToolSets,
    /// The writing slots: a fair (FIFO) semaphore around model work.
    pub slots: Arc<Semaphore>,
    pub research_budget: Duration,
    pub max_tool_iters: u32,
    pub answer_timeout: Duration,
    pub dashboard: broadcast::Sender<DashboardEvent>,
    pub reminder_added: Arc<dyn Fn() + Send + Sync>,
}

/// The tool schemas for each kind of caller.
pub struct ToolSets {
    sets: [Arc<Vec<Value>>; 4],
}

impl ToolSets {
    pub fn new(format: crate::config::ToolFormat) -> Self {
        let set = |read_only, can_answer| {
            Arc::new(tools::offered(
                format,
                Offer {
                    read_only,
                    can_answer,
                },
            ))
        };
        Self {
            sets: [
                set(false, false),
                set(false, true),
                set(true, false),
                set(true, true),
            ],
        }
    }

    pub fn get(&self, offer: Offer) -> Arc<Vec<Value>> {
        let index = usize::from(offer.read_only) * 2 + usize::from(offer.can_answer);
        Arc::clone(&self.sets[index])
    }
}

/// One reply to run.
pub struct ReplyJob {
    pub env: Arc<ReplyEnv>,
    pub replies: Arc<Replies>,
    pub reply: Arc<Reply>,
    /// Where the reply's history is written (an in-memory store for a
    /// voice conversation that is not saved).
    pub store: Store,
    pub offer: Offer,
    /// The conversation so far, the new user message last.
    pub history: Vec<ChatMessage>,
}

/// Why the loop ended before an answer.
#[derive(Debug)]
enum Interrupt {
    Stopped,
    Ended,
    Failed(String),
}

/// Runs the reply to its end: the answer, a stop, or a failure. Always
/// ends the log with `done`, after the reply has left the registry.
pub async fn stream_reply(job: ReplyJob) {
    let reply = Arc::clone(&job.reply);
    let replies = Arc::clone(&job.replies);
    let env = Arc::clone(&job.env);
    let store = job.store.clone();
    let mut run = Run::new(job);
    let outcome = run.run().await;
    run.release_slot();
    let text = run.text.trim().to_string();
    let session = reply.session_id.clone();
    // A small model may write nothing after its tools ran; a write the
    // user asked for is still reported, and what a search found is shown,
    // in the tools' own words.
    let fallback = run
        .writes
        .last()
        .map(|(_, _, result)| result.clone())
        .or_else(|| {
            run.found
                .as_ref()
                .map(|found| format!("Here is what I found:\n\n{found}"))
        });
    let text = match (&outcome, text.is_empty(), fallback) {
        (Ok(()), true, Some(fallback)) => {
            reply.log.publish(ReplyEvent::Token {
                text: fallback.clone(),
            });
            fallback
        }
        _ => text,
    };
    let final_event = match outcome {
        Ok(()) if text.is_empty() => ReplyEvent::Error {
            error: "the model gave no answer".into(),
        },
        Ok(()) => match append(&store, &session, assistant(&text, false)).await {
            Ok(()) => ReplyEvent::AssistantMessage {
                html: Some(crate::markdown::to_html(&text)),
                text,
            },
            Err(error) => ReplyEvent::Error { error },
        },
        Err(interrupt) => {
            if !text.is_empty() {
                if let Err(error) = append(&store, &session, assistant(&text, true)).await {
                    tracing::warn!(%error, "could not keep the stopped reply's text");
                }
            }
            match interrupt {
                Interrupt::Stopped | Interrupt::Ended => ReplyEvent::Stopped,
                Interrupt::Failed(error) => ReplyEvent::Error { error },
            }
        }
    };
    let (outcome, error) = match &final_event {
        ReplyEvent::AssistantMessage { .. } => ("answered", None),
        ReplyEvent::Error { error } => ("error", Some(error.clone())),
        _ => ("stopped", None),
    };
    reply.log.publish(final_event);
    replies.finish(&reply);
    let _ = env.dashboard.send(DashboardEvent::ReplyFinished {
        session_id: session,
        reply_id: reply.id.clone(),
        outcome: outcome.into(),
        error,
    });
    reply.log.publish(ReplyEvent::Done);
}

fn assistant(text: &str, stopped: bool) -> NewMessage {
    NewMessage {
        role: Role::Assistant,
        content: text.to_string(),
        tool_name: None,
        tool_args: None,
        stopped,
    }
}

async fn append(store: &Store, session: &str, message: NewMessage) -> Result<(), String> {
    store
        .append_message(session, message)
        .await
        .map(|_| ())
        .map_err(|e| {
            tracing::error!(error = %e, "could not store a message");
            "the reply could not be saved".to_string()
        })
}

struct Run {
    env: Arc<ReplyEnv>,
    store: Store,
    reply: Arc<Reply>,
    messages: Vec<ChatMessage>,
    tools: Arc<Vec<Value>>,
    research: Research,
    permit: Option<OwnedSemaphorePermit>,
    /// Everything the user has been shown, across turns.
    text: String,
    /// The user's message this reply answers, and the answers given
    /// during it: the words grounded arguments must come from.
    request: String,
    answers: Vec<String>,
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
    /// Questions put to the user in this reply (the model's and Imprint's).
    asked: usize,
    /// The details Imprint asked for in this reply, and what came of it.
    settled: Vec<(std::mem::Discriminant<Need>, Option<grounding::Resolved>)>,
    turns: u32,
}

/// One finished model turn.
struct Turn {
    text: String,
    calls: Vec<ToolCallRequest>,
    malformed: usize,
}

impl Run {
    fn new(job: ReplyJob) -> Self {
        let tools = job.env.tool_sets.get(job.offer);
        let mut messages = vec![ChatMessage::System(tools::system_prompt(
            &tools,
            chrono::Local::now(),
        ))];
        let request = job
            .history
            .iter()
            .rev()
            .find_map(|m| match m {
                ChatMessage::User(text) => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        messages.extend(job.history);
        Self {
            request,
            answers: Vec::new(),
            writes: Vec::new(),
            repeats: 0,
            nudged: false,
            found: None,
            asked: 0,
            settled: Vec::new(),
            research: Research::new(job.env.research_budget, job.env.max_tool_iters),
            env: job.env,
            store: job.store,
            reply: job.reply,
            messages,
            tools,
            permit: None,
            text: String::new(),
            turns: 0,
        }
    }

    async fn run(&mut self) -> Result<(), Interrupt> {
        self.settle_the_project().await?;
        loop {
            let exhausted = if self.tools.is_empty() {
                None
            } else {
                self.research.exhausted()
            };
            if let Some(why) = exhausted {
                return self.reserved_answer(why.note()).await;
            }
            let turn = self.turn(true).await?;
            if turn.calls.is_empty() && turn.malformed == 0 {
                if self.reminder_forgotten() {
                    // A small model may answer "I'll remind you" without
                    // setting anything: one nudge to make the call.
                    self.nudged = true;
                    self.messages.push(ChatMessage::Assistant {
                        content: turn.text,
                        tool_calls: Vec::new(),
                    });
                    self.messages.push(ChatMessage::User(
                        "(Imprint: the user asked for a reminder and none is set. Call remind now with the text and the time the user gave.)".into(),
                    ));
                    self.research.finish_turn(false);
                    continue;
                }
                return Ok(());
            }
            let mut progress = false;
            let mut turn = turn;
            let extra_calls = turn.calls.len().saturating_sub(MAX_CALLS_PER_TURN);
            turn.calls.truncate(MAX_CALLS_PER_TURN);
            if !turn.calls.is_empty() {
                self.messages.push(ChatMessage::Assistant {
                    content: turn.text,
                    tool_calls: turn.calls.clone(),
                });
                let calls = turn.calls.len();
                let repeats_before = self.repeats;
                for call in turn.calls {
                    progress |= self.call(call).await?;
                }
                if self.repeats - repeats_before == calls {
                    // Only writes it already made: a small model looping.
                    // What the user asked is done; answer now.
                    return self
                        .reserved_answer("What the user asked for is done.")
                        .await;
                }
            }
            if extra_calls > 0 {
                self.messages.push(ChatMessage::User(format!(
                    "(Imprint: only the first {MAX_CALLS_PER_TURN} tool calls of a turn run; {extra_calls} more were not run. Call only what you need.)"
                )));
            }
            if turn.malformed > 0 {
                self.messages.push(ChatMessage::User(
                    "(Imprint: a tool call you wrote could not be read. Write it again exactly in the format given, or answer without it.)".into(),
                ));
            }
            self.research.finish_turn(progress);
        }
    }

    /// "The project" among several, unnamed: Imprint asks which before
    /// the model starts, and the model reads the answer with the request.
    async fn settle_the_project(&mut self) -> Result<(), Interrupt> {
        if !tools::is_offered(&self.tools, ASK_USER) || !tools::is_offered(&self.tools, SEARCH) {
            return Ok(());
        }
        if !grounding::refers_to_a_project(&self.request) {
            return Ok(());
        }
        let projects = self.recent_projects().await;
        let Some(need) = grounding::unnamed_project(&self.request, &projects) else {
            return Ok(());
        };
        if let Some(grounding::Resolved::Project(project)) = self.ask_for(&need).await? {
            if let Some(ChatMessage::User(text)) = self.messages.last_mut() {
                text.push_str(&format!(
                    "\n\n(Imprint asked which project; the user means the project {project}.)"
                ));
            }
        }
        Ok(())
    }

    /// True once per reply when the user asked for a reminder, `remind`
    /// is offered, and none was made or asked about.
    fn reminder_forgotten(&self) -> bool {
        !self.nudged
            && tools::is_offered(&self.tools, tools::REMIND)
            && grounding::asks_for_reminder(&self.request)
            && self.writes.iter().all(|(name, _, _)| name != tools::REMIND)
            && self.settled.is_empty()
    }

    /// One last turn without tools, told to answer from what it found.
    async fn reserved_answer(&mut self, why: &str) -> Result<(), Interrupt> {
        self.messages.push(ChatMessage::User(format!(
            "(Imprint: {why} Do not call any more tools. Answer the user now from what you found, and say what you could not find.)"
        )));
        self.turn(false).await.map(|_| ())
    }

    /// Streams one model turn; `allow_calls` false is the reserved answer
    /// (tools neither described nor run, markup still kept from the user).
    async fn turn(&mut self, allow_calls: bool) -> Result<Turn, Interrupt> {
        self.ensure_slot().await?;
        self.turns += 1;
        let request = TurnRequest {
            messages: self.messages.clone(),
            tools: Arc::clone(&self.tools),
            allow_calls,
            call_id_prefix: format!("t{}_", self.turns),
        };
        let mut events = self
            .env
            .model
            .stream_turn(request, self.reply.stop_token().clone());
        let mut turn = Turn {
            text: String::new(),
            calls: Vec::new(),
            malformed: 0,
        };
        loop {
            let event = tokio::select! {
                biased;
                _ = self.reply.stop_token().cancelled() => return Err(self.interrupted()),
                event = events.recv() => event,
            };
            match event {
                None => break,
                Some(Ok(ModelEvent::Text(text))) => {
                    turn.text.push_str(&text);
                    self.text.push_str(&text);
                    self.reply.log.publish(ReplyEvent::Token { text });
                }
                Some(Ok(ModelEvent::ToolCall(call))) if allow_calls => turn.calls.push(call),
                Some(Ok(ModelEvent::ToolCall(_))) => {}
                Some(Ok(ModelEvent::Malformed(raw))) => {
                    tracing::debug!(%raw, "unreadable tool markup");
                    turn.malformed += usize::from(allow_calls);
                }
                Some(Err(error)) => return Err(Interrupt::Failed(error.to_string())),
            }
        }
        if self.reply.stop_token().is_cancelled() {
            return Err(self.interrupted());
        }
        Ok(turn)
    }

    fn interrupted(&self) -> Interrupt {
        if self.reply.end_token().is_cancelled() {
            Interrupt::Ended
        } else {
            Interrupt::Stopped
        }
    }

    /// Runs one call: publishes it, runs it, publishes and stores its
    /// result, and hands it to the model. True if it made progress.
    async fn call(&mut self, call: ToolCallRequest) -> Result<bool, Interrupt> {
        self.reply.log.publish(ReplyEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            args: call.arguments.clone(),
        });
        let (output, stored_args, stored_content) =
            if call.name == ASK_USER && tools::is_offered(&self.tools, ASK_USER) {
                self.ask(&call).await?
            } else {
                self.grounded_run(&call).await?
            };
        let result = cut_result(&output.text);
        self.reply.log.publish(ReplyEvent::ToolResult {
            id: call.id.clone(),
            name: call.name.clone(),
            result: result.clone(),
        });
        let row = NewMessage {
            role: Role::Tool,
            content: stored_content,
            tool_name: Some(call.name.clone()),
            tool_args: Some(stored_args),
            stopped: false,
        };
        append(&self.store, &self.reply.session_id, row)
            .await
            .map_err(Interrupt::Failed)?;
        self.messages.push(ChatMessage::Tool {
            call_id: call.id,
            name: call.name,
            content: result,
        });
        Ok(output.wrote || self.research.learn(output.facts))
    }

    async fn run_tool(&self, name: &str, args: &Value) -> ToolOutput {
        let reminder_added = Arc::clone(&self.env.reminder_added);
        let env = ToolEnv {
            store: &self.store,
            session_id: Some(&self.reply.session_id),
            reminder_added: &*reminder_added,
        };
        tools::run_tool(&env, name, args).await
    }

    /// Runs the model's `ask_user` call: asks and waits. Returns the tool
    /// output, the arguments and the content to store.
    async fn ask(
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
        if self.writes.iter().any(|(name, _, _)| name == tools::REMIND) {
            // The reminder the user asked for is set: a question now is
            // noise (small models ask "anything else?").
            let output = ToolOutput {
                text:
                    "Not asked: what the user asked for is done. Do not ask; answer the user now."
                        .into(),
                ..ToolOutput::default()
            };
            let content = output.text.clone();
            return Ok((output, call.arguments.clone(), content));
        }
        if self.asked >= MAX_MODEL_QUESTION_AFTER {
            // A small model may ask again and again; the user has answered.
            let output = ToolOutput {
                text: format!(
                    "Not asked: the user already answered {} questions in this reply. Do not ask again; go on with what they said, and say what you assumed.",
                    self.asked
                ),
                ..ToolOutput::default()
            };
            let content = output.text.clone();
            return Ok((output, call.arguments.clone(), content));
        }
        let question = self.new_question(
            args.question,
            args.options,
            args.allow_other,
            QuestionOrigin::Model,
        );
        let mut stored_args = question_args(&question);
        let (output, content) = match self.pose(question).await? {
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
            Posed::TimedOut => {
                stored_args["outcome"] = json!("timeout");
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

    fn new_question(
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
        }
    }

    /// Puts a question to the user and waits for the answer, the timeout,
    /// a stop or the end of the reply. The writing slot is given up while
    /// it waits and the research deadline moves by the time waited. A stop
    /// stores the unanswered question and interrupts the reply.
    async fn pose(&mut self, question: Question) -> Result<Posed, Interrupt> {
        self.asked += 1;
        let question_id = question.id.clone();
        let stored_args = question_args(&question);
        // Registered before the event goes out, so an answer posted the
        // moment the event arrives finds it.
        let ticket = self.reply.waiters.register(question.clone());
        self.reply.log.publish(ReplyEvent::Question(question));
        let _ = self.env.dashboard.send(DashboardEvent::QuestionWaiting {
            session_id: self.reply.session_id.clone(),
            question_id: question_id.clone(),
        });
        // Not using the model while waiting: let other chats write.
        self.release_slot();
        let started = Instant::now();
        let outcome = ticket
            .wait(
                self.reply.stop_token(),
                self.reply.end_token(),
                self.env.answer_timeout,
            )
            .await;
        self.research.extend(started.elapsed());
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
            WaitOutcome::TimedOut => {
                self.reply.log.publish(ReplyEvent::Unanswered {
                    id: question_id,
                    reason: "timeout".into(),
                });
                Posed::TimedOut
            }
            WaitOutcome::Stopped | WaitOutcome::ReplyEnded => {
                self.reply.log.publish(ReplyEvent::Unanswered {
                    id: question_id,
                    reason: "stopped".into(),
                });
                let mut stored_args = stored_args;
                stored_args["outcome"] = json!("stopped");
                let row = NewMessage {
                    role: Role::Tool,
                    content: "No answer: the reply was stopped.".into(),
                    tool_name: Some(ASK_USER.into()),
                    tool_args: Some(stored_args),
                    stopped: true,
                };
                if let Err(error) = append(&self.store, &self.reply.session_id, row).await {
                    tracing::warn!(%error, "could not keep the unanswered question");
                }
                return Err(self.interrupted());
            }
        };
        self.ensure_slot().await?;
        Ok(posed)
    }

    /// Runs a call whose grounded arguments (see [`grounding`]) the user
    /// gave; when one is missing, Imprint asks the user itself first.
    /// Returns the output, the arguments it ran with and the content to
    /// store.
    async fn grounded_run(
        &mut self,
        call: &ToolCallRequest,
    ) -> Result<(ToolOutput, Value, String), Interrupt> {
        if !tools::is_offered(&self.tools, &call.name) {
            let output = ToolOutput {
                text: format!("Error: the tool `{}` is not available here", call.name),
                error: true,
                ..ToolOutput::default()
            };
            let content = cut_result(&output.text);
            return Ok((output, call.arguments.clone(), content));
        }
        let projects = if matches!(call.name.as_str(), SEARCH | STORE | LIST_PROJECTS) {
            self.recent_projects().await
        } else {
            Vec::new()
        };
        let words = grounding::UserWords {
            request: &self.request,
            answers: &self.answers,
        };
        let verdict = grounding::check(
            &call.name,
            &call.arguments,
            &words,
            &projects,
            chrono::Local::now(),
        );
        let (args, chosen) = match verdict {
            Verdict::Run(args) => (args, None),
            Verdict::Refuse(reason) => {
                let output = ToolOutput {
                    text: format!("Not done: {reason}. Do not call it again; answer the user."),
                    ..ToolOutput::default()
                };
                let content = output.text.clone();
                return Ok((output, call.arguments.clone(), content));
            }
            Verdict::Ask(need) => match self.ask_for(&need).await? {
                Some(resolved) => (resolved.apply(&call.arguments), Some(resolved)),
                None => return Ok(self.without_answer(call, &need).await),
            },
        };
        if let Some((_, _, result)) = self
            .writes
            .iter()
            .find(|(name, done, _)| *name == call.name && same_write(name, done, &args))
        {
            self.repeats += 1;
            let output = ToolOutput {
                text: format!("Already done, do not repeat it: {result}"),
                ..ToolOutput::default()
            };
            let content = output.text.clone();
            return Ok((output, args, content));
        }
        let mut output = self.run_tool(&call.name, &args).await;
        if output.wrote && !output.error {
            self.writes
                .push((call.name.clone(), args.clone(), output.text.clone()));
        } else if !output.error && !output.facts.is_empty() {
            self.found = Some(output.text.clone());
        }
        if let Some(resolved) = chosen {
            output.text = format!("The user chose {}. {}", resolved.describe(), output.text);
            output.wrote = true;
        }
        let content = cut_result(&output.text);
        Ok((output, args, content))
    }

    /// The user's projects, most recently used first.
    async fn recent_projects(&self) -> Vec<String> {
        match self.store.list_projects().await {
            Ok(mut projects) => {
                projects.sort_by(|a, b| b.last_at.cmp(&a.last_at));
                projects.into_iter().map(|p| p.name).collect()
            }
            Err(error) => {
                tracing::warn!(%error, "could not list projects for grounding");
                Vec::new()
            }
        }
    }

    /// Imprint's own question for a missing detail. An answer it cannot
    /// read is asked once more, saying why. `None`: no usable answer (or
    /// this caller cannot answer at all).
    async fn ask_for(&mut self, need: &Need) -> Result<Option<grounding::Resolved>, Interrupt> {
        if !tools::is_offered(&self.tools, ASK_USER) {
            return Ok(None);
        }
        // One question per kind of detail in a reply: a model that calls
        // again gets the same answer (or the same lack of one).
        let kind = std::mem::discriminant(need);
        if let Some((_, settled)) = self.settled.iter().find(|(k, _)| *k == kind) {
            return Ok(settled.clone());
        }
        let resolved = self.ask_until_understood(need).await?;
        self.settled.push((kind, resolved.clone()));
        Ok(resolved)
    }

    async fn ask_until_understood(
        &mut self,
        need: &Need,
    ) -> Result<Option<grounding::Resolved>, Interrupt> {
        let mut text = need.question();
        for _attempt in 0..2 {
            let question =
                self.new_question(text.clone(), need.options(), true, QuestionOrigin::Imprint);
            let mut stored_args = question_args(&question);
            let posed = self.pose(question).await?;
            let (outcome, content, resolved) = match &posed {
                Posed::Answered(answer) => match need.resolve(answer, chrono::Local::now()) {
                    Ok(resolved) => ("answered", answer.clone(), Some(Ok(resolved))),
                    Err(why) => ("answered", answer.clone(), Some(Err(why))),
                },
                Posed::TimedOut => (
                    "timeout",
                    format!(
                        "No answer came from the user within {}.",
                        self.answer_wait()
                    ),
                    None,
                ),
            };
            stored_args["outcome"] = json!(outcome);
            let row = NewMessage {
                role: Role::Tool,
                content,
                tool_name: Some(ASK_USER.into()),
                tool_args: Some(stored_args),
                stopped: false,
            };
            append(&self.store, &self.reply.session_id, row)
                .await
                .map_err(Interrupt::Failed)?;
            match resolved {
                Some(Ok(resolved)) => return Ok(Some(resolved)),
                Some(Err(why)) => text = format!("{why} {}", need.question()),
                None => return Ok(None),
            }
        }
        Ok(None)
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
            (_, Need::Time { .. }) => ToolOutput {
                text: "No reminder was set: the user did not say when. Tell the user you did not set it, and that they can tell you when.".into(),
                ..ToolOutput::default()
            },
            _ => ToolOutput {
                text: "Nothing was stored: the user did not say which project. Tell the user you did not store it, and that they can tell you the project.".into(),
                ..ToolOutput::default()
            },
        };
        let content = output.text.clone();
        (output, call.arguments.clone(), content)
    }

    /// Takes a writing slot, waiting in line (FIFO) behind other replies.
    async fn ensure_slot(&mut self) -> Result<(), Interrupt> {
        if self.permit.is_some() {
            return Ok(());
        }
        let slots = Arc::clone(&self.env.slots);
        let permit = tokio::select! {
            biased;
            _ = self.reply.stop_token().cancelled() => return Err(self.interrupted()),
            permit = slots.acquire_owned() => permit,
        };
        match permit {
            Ok(permit) => {
                self.permit = Some(permit);
                Ok(())
            }
            Err(_) => Err(Interrupt::Ended),
        }
    }

    fn release_slot(&mut self) {
        self.permit = None;
    }
}

/// Once this many questions were put in a reply, the model's `ask_user`
/// is not asked any more (Imprint's own are one per detail).
const MAX_MODEL_QUESTION_AFTER: usize = 2;

/// Calls run per model turn; more are dropped with a note (a small model
/// may write dozens in one turn).
const MAX_CALLS_PER_TURN: usize = 4;

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

/// How a question ended, short of a stop.
enum Posed {
    Answered(String),
    TimedOut,
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
    args
}

/// Cuts a tool result for the model, saying how much was cut.
pub fn cut_result(text: &str) -> String {
    let total = text.chars().count();
    if total <= MAX_RESULT_CHARS {
        return text.to_string();
    }
    let end = text
        .char_indices()
        .nth(MAX_RESULT_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}\n[… {} more characters cut]",
        &text[..end],
        total - MAX_RESULT_CHARS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn long_results_are_cut_with_a_note() {
        assert_eq!(cut_result("short"), "short");
        let long = "é".repeat(4100);
        let cut = cut_result(&long);
        assert!(cut.starts_with(&"é".repeat(4000)));
        assert!(
            cut.ends_with("[… 100 more characters cut]"),
            "{}",
            &cut[cut.len() - 40..]
        );
    }
}
