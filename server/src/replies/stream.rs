//! `stream_reply`: the tool loop of one reply.
//!
//! Each model turn streams text and may call tools; every call of a turn
//! runs in order and the next turn starts. A turn without calls is the
//! answer. `ask_user` parks the reply on a waiter (giving up its writing
//! slot) until the answer, a stop, the end of the reply or the timeout
//! (see `asking`); other calls run grounded (see `grounded`); the guards
//! against a small model's habits are the `policy`.

use std::sync::Arc;
use std::time::Duration;

use app::protocol::{DashboardEvent, Ended, Question, ReplyEvent, ToolStatus};
use serde_json::Value;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::checkpoint::{self, Asking, Checkpoint, PendingCalls, Step};
use super::own_answer;
use super::policy::{self, SmallModelPolicy};
use super::slots::{WritingSlot, WritingSlots};
use super::{Replies, Reply};
use crate::ask::{Ticket, UserAnswer};
use crate::clock::Clock;
use crate::grounding::{self, reference, NeedKind};
use crate::models::shown_text::without_markup;
use crate::models::{
    ChatMessage, ModelClient, ModelError, ModelEvent, ToolCallRequest, TurnRequest,
};
use crate::research::Research;
use crate::store::{NewMessage, SavedState, Store, ToolOutcome};
use crate::tools::{
    self, run::MemoryLine, run::ToolEnv, Offer, ToolOutput, WritesAsked, ASK_USER, MAX_RESULT_CHARS,
};

/// What every reply needs from the server.
pub struct ReplyEnv {
    pub model: ModelClient,
    /// The tool sets, built once and shared by every reply (a set is ~20 KB
    /// of JSON values; thousands of waiting replies must not each hold one).
    pub tool_sets: ToolSets,
    /// The writing slots: taken in line (FIFO) around model work.
    pub slots: Arc<WritingSlots>,
    pub research_budget: Duration,
    pub max_tool_iters: u32,
    pub answer_timeout: Duration,
    pub dashboard: broadcast::Sender<DashboardEvent>,
    pub reminder_added: Arc<dyn Fn() + Send + Sync>,
    /// "Now", for every date a reply works out.
    pub clock: Clock,
    /// Imprint plans each reply's steps and the model fills them in under
    /// a schema (see [`super::planned`]); else the model's own tool loop.
    pub planned: bool,
    /// The server's shutdown: a reply ended by it keeps what it stored.
    pub shutdown: CancellationToken,
}

/// The tool schemas for each kind of caller and each set of writes a
/// request may ask for (16 sets, built once).
pub struct ToolSets {
    sets: Vec<Arc<Vec<Value>>>,
}

impl ToolSets {
    pub fn new(format: crate::config::ToolFormat) -> Self {
        let sets = (0..16usize)
            .map(|index| {
                let bit = |b: usize| index & (1 << b) != 0;
                let offer = Offer {
                    read_only: bit(3),
                    can_answer: bit(2),
                };
                let writes = WritesAsked {
                    save: bit(1),
                    remind: bit(0),
                };
                Arc::new(tools::offered_for(format, offer, writes))
            })
            .collect();
        Self { sets }
    }

    /// The tools a caller may offer, with only the writes the request asks
    /// for.
    pub fn get(&self, offer: Offer, writes: WritesAsked) -> Arc<Vec<Value>> {
        let index = usize::from(offer.read_only) * 8
            + usize::from(offer.can_answer) * 4
            + usize::from(writes.save) * 2
            + usize::from(writes.remind);
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
pub(super) enum Interrupt {
    /// The user stopped the reply.
    Stopped,
    /// The reply's session was deleted.
    Ended,
    /// Imprint is shutting down: a reply that can resume stays stored.
    Shutdown,
    /// The model or the store failed; `ended` is how history marks it.
    Failed { error: String, ended: Ended },
}

impl Interrupt {
    pub(super) fn failure(error: String) -> Self {
        Interrupt::Failed {
            error,
            ended: Ended::Error,
        }
    }

    fn model(error: ModelError) -> Self {
        let ended = match error {
            ModelError::CutOff => Ended::CutOff,
            _ => Ended::Error,
        };
        Interrupt::Failed {
            error: error.to_string(),
            ended,
        }
    }
}

/// Runs the reply to its end: the answer, a stop, or a failure. Always
/// ends the log with `done`, after the reply has left the registry (but
/// for a shutdown, which ends every stream anyway).
pub async fn stream_reply(job: ReplyJob) {
    drive(Run::new(job)).await
}

/// A reply restored at start from its stored state. Its question is
/// registered (or its stored answer taken) before this returns, so the
/// session shows it waiting from the first request on.
pub fn resume_reply(
    job: ReplyJob,
    checkpoint: Checkpoint,
    answer: Option<String>,
) -> impl std::future::Future<Output = ()> + Send {
    drive(Run::restore(job, checkpoint, answer))
}

async fn drive(mut run: Run) {
    let reply = Arc::clone(&run.reply);
    let replies = Arc::clone(&run.replies);
    let env = Arc::clone(&run.env);
    let store = run.store.clone();
    let outcome = run.run().await;
    run.release_slot();
    // Markup never reaches the user, even in the stored answer; nor do
    // Imprint's notes said back by a small model.
    let text = own_answer::without_notes_said_back(&without_markup(&run.text));
    let session = reply.session_id.clone();
    // A small model may write nothing readable after its tools ran (see
    // the policy): Imprint answers from what was done or found.
    let fallback = run.policy.fallback(env.clock.now());
    let text = match (&outcome, text.is_empty(), fallback) {
        (Ok(()), true, Some(fallback)) => {
            reply.log.publish(ReplyEvent::Token {
                text: fallback.clone(),
            });
            fallback
        }
        _ => text,
    };
    let close = |message: Option<NewMessage>| {
        let store = store.clone();
        let (session, reply_id) = (session.clone(), reply.id.clone());
        async move {
            store
                .close_reply(&session, &reply_id, message.into_iter().collect())
                .await
                .map_err(|e| {
                    tracing::error!(error = %e, "could not store the end of a reply");
                    "the reply could not be saved".to_string()
                })
        }
    };
    let final_event = match outcome {
        Ok(()) if text.is_empty() => {
            let error = "the model gave no answer".to_string();
            let kept = assistant("", Some(Ended::Error), Some(error.clone()));
            if let Err(e) = close(Some(kept)).await {
                tracing::warn!(error = %e, "could not keep the failed reply");
            }
            ReplyEvent::Error { error }
        }
        Ok(()) => {
            let ended = run.length_limited.then_some(Ended::Length);
            match close(Some(assistant(&text, ended, None))).await {
                Ok(()) => ReplyEvent::AssistantMessage {
                    html: Some(crate::markdown::to_html(&text)),
                    text,
                },
                Err(error) => ReplyEvent::Error { error },
            }
        }
        Err(Interrupt::Shutdown) => {
            // A reply that can resume (it waits, or was answered and waits
            // for its turn) stays as stored; one being written is kept
            // with its text, marked interrupted.
            if !run.checkpointed {
                let kept = assistant(&text, Some(Ended::Interrupted), None);
                if let Err(e) = close(Some(kept)).await {
                    tracing::warn!(error = %e, "could not keep the interrupted reply");
                }
            }
            replies.finish(&reply);
            return;
        }
        // The session is gone, and its open reply with it.
        Err(Interrupt::Ended) => ReplyEvent::Stopped,
        Err(Interrupt::Stopped) => {
            let kept = (!text.is_empty()).then(|| assistant(&text, Some(Ended::Stopped), None));
            if let Err(e) = close(kept).await {
                tracing::warn!(error = %e, "could not keep the stopped reply's text");
            }
            ReplyEvent::Stopped
        }
        Err(Interrupt::Failed { error, ended }) => {
            let kept = assistant(
                &text,
                Some(ended),
                (ended == Ended::Error).then(|| error.clone()),
            );
            if let Err(e) = close(Some(kept)).await {
                tracing::warn!(error = %e, "could not keep the failed reply");
            }
            ReplyEvent::Error { error }
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

fn assistant(text: &str, ended: Option<Ended>, error: Option<String>) -> NewMessage {
    NewMessage {
        ended,
        error,
        ..NewMessage::assistant(text)
    }
}

pub(super) async fn append(
    store: &Store,
    session: &str,
    message: NewMessage,
) -> Result<(), String> {
    store
        .append_message(session, message)
        .await
        .map(|_| ())
        .map_err(|e| {
            tracing::error!(error = %e, "could not store a message");
            "the reply could not be saved".to_string()
        })
}

pub(super) struct Run {
    pub(super) env: Arc<ReplyEnv>,
    replies: Arc<Replies>,
    pub(super) store: Store,
    pub(super) reply: Arc<Reply>,
    pub(super) messages: Vec<ChatMessage>,
    pub(super) tools: Arc<Vec<Value>>,
    pub(super) research: Research,
    permit: Option<WritingSlot>,
    /// Everything the user has been shown, across turns.
    text: String,
    /// The user's message this reply answers, and the answers given
    /// during it: the words grounded arguments must come from.
    pub(super) request: String,
    pub(super) answers: Vec<String>,
    /// The guards against a small model's habits.
    pub(super) policy: SmallModelPolicy,
    /// The caller allows no writes (writes are then not offered at all).
    pub(super) read_only: bool,
    /// Turns ended for writing hidden markup past any call's length (not
    /// kept across a restart: it only shortens a failing reply).
    overlong_turns: u32,
    /// Questions put to the user in this reply (the model's and Imprint's).
    pub(super) asked: usize,
    /// The details Imprint asked for in this reply, and what came of it.
    pub(super) settled: Vec<(NeedKind, Option<grounding::Resolved>)>,
    /// The detail just settled was Imprint's pick: the user chose "You
    /// decide" (taken by the call that asked, to say so).
    pub(super) imprint_chose: bool,
    turns: u32,
    /// Before the first model turn (Imprint may ask which project, which
    /// thing, or when).
    pub(super) settling: bool,
    /// The current turn's calls not finished yet.
    pending: Option<PendingCalls>,
    /// Imprint's own question across its attempts.
    pub(super) asking: Option<Asking>,
    /// The reply's resumable state is stored (from its question until
    /// its next model request).
    pub(super) checkpointed: bool,
    /// A restored reply's question, to take up where the step asks it.
    pub(super) resumed: Option<Resumed>,
    /// The first pending call was started before a restart: its
    /// `tool_call` event is not sent again.
    replaying_call: bool,
    /// The last model turn stopped at the model's token limit.
    length_limited: bool,
}

/// A restored question and how its wait goes on.
pub(super) struct Resumed {
    pub(super) question: Question,
    pub(super) wait: ResumedWait,
}

pub(super) enum ResumedWait {
    /// Registered at restore; waits for the time it has left.
    Waiting(Ticket, Duration),
    /// The answer was stored before the restart.
    Answered(UserAnswer),
    /// It expired while Imprint was down.
    Expired,
}

/// One finished model turn.
pub(super) struct Turn {
    pub(super) text: String,
    calls: Vec<ToolCallRequest>,
    malformed: usize,
    /// The research deadline passed while the model was still writing:
    /// the request was dropped and its calls are not run.
    out_of_time: bool,
    /// The model wrote hidden markup longer than any call, and its turn
    /// was ended there ([`ModelEvent::Overlong`]).
    overlong: bool,
}

impl Run {
    fn new(job: ReplyJob) -> Self {
        let request = job
            .history
            .iter()
            .rev()
            .find_map(|m| match m {
                ChatMessage::User(text) => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        // Writes the user did not ask for are not offered at all (rather
        // than refused after the model made them).
        let tools = job.env.tool_sets.get(job.offer, WritesAsked::of(&request));
        let messages = tools::reply_messages(&tools, job.history, job.env.clock.now());
        Self {
            request,
            answers: Vec::new(),
            policy: SmallModelPolicy::default(),
            read_only: job.offer.read_only,
            asked: 0,
            settled: Vec::new(),
            imprint_chose: false,
            overlong_turns: 0,
            research: Research::new(job.env.research_budget, job.env.max_tool_iters),
            env: job.env,
            store: job.store,
            reply: job.reply,
            messages,
            tools,
            permit: None,
            text: String::new(),
            turns: 0,
            settling: true,
            pending: None,
            asking: None,
            checkpointed: false,
            resumed: None,
            replaying_call: false,
            length_limited: false,
            replies: job.replies,
        }
    }

    /// A run rebuilt from its stored state. Registers the waiting question
    /// and posts it again in the reply's log (which goes on after the last
    /// stored `seq`), unless its answer was stored or it expired.
    fn restore(job: ReplyJob, saved: Checkpoint, answer: Option<String>) -> Self {
        let tools = job
            .env
            .tool_sets
            .get(saved.offer(), WritesAsked::of(&saved.request));
        // Guards stored by another version may not read: the reply still
        // goes on (its question matters more), with fresh guards, said so.
        let policy = serde_json::from_value::<SmallModelPolicy>(saved.policy).unwrap_or_else(|error| {
            tracing::warn!(%error, reply = %job.reply.id, "a restored reply's guards could not be read; it goes on with fresh ones");
            SmallModelPolicy::default()
        });
        let resumed = saved.question.map(|question| {
            let left = question
                .expires_at
                .as_deref()
                .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
                .map(|at| {
                    (at.with_timezone(&chrono::Utc) - chrono::Utc::now())
                        .to_std()
                        .unwrap_or_default()
                })
                .unwrap_or(job.env.answer_timeout);
            let wait = match answer {
                Some(text) => ResumedWait::Answered(UserAnswer::from_stored(&text)),
                None if left.is_zero() => ResumedWait::Expired,
                None => {
                    let ticket = job.reply.waiters.register(question.clone());
                    ResumedWait::Waiting(ticket, left)
                }
            };
            job.reply
                .log
                .publish(ReplyEvent::Question(question.clone()));
            let _ = job.env.dashboard.send(DashboardEvent::QuestionWaiting {
                session_id: job.reply.session_id.clone(),
                question_id: question.id.clone(),
            });
            Resumed { question, wait }
        });
        let (settling, pending) = match saved.step {
            Step::Settle => (true, None),
            Step::Calls(pending) => (false, Some(pending)),
        };
        Self {
            request: saved.request,
            answers: saved.answers,
            policy,
            read_only: saved.read_only,
            asked: saved.asked,
            settled: saved.settled,
            imprint_chose: false,
            overlong_turns: 0,
            research: Research::restore(saved.research),
            replaying_call: pending.as_ref().is_some_and(|p| !p.calls.is_empty()),
            env: job.env,
            replies: job.replies,
            store: job.store,
            reply: job.reply,
            messages: saved.messages,
            tools,
            permit: None,
            text: saved.text,
            turns: saved.turns,
            settling,
            pending,
            asking: saved.asking,
            checkpointed: true,
            resumed,
            length_limited: false,
        }
    }

    /// The reply's state now, as stored to resume it; `question`: the one
    /// about to be posed.
    pub(super) fn saved_state(&self, question: Option<&Question>) -> SavedState {
        let offer = self.offer();
        let saved = Checkpoint {
            version: checkpoint::VERSION,
            read_only: offer.read_only,
            can_answer: offer.can_answer,
            messages: self.messages.clone(),
            research: self.research.save(),
            request: self.request.clone(),
            answers: self.answers.clone(),
            policy: serde_json::to_value(&self.policy).unwrap_or_default(),
            asked: self.asked,
            settled: self.settled.clone(),
            turns: self.turns,
            text: self.text.clone(),
            step: match (&self.pending, self.settling) {
                (Some(pending), _) => Step::Calls(pending.clone()),
                _ => Step::Settle,
            },
            asking: self.asking.clone(),
            question: question.cloned(),
        };
        let last_seq = self.reply.log.last_seq() + u64::from(question.is_some());
        SavedState {
            checkpoint: serde_json::to_string(&saved).unwrap_or_default(),
            question_id: question.map(|q| q.id.clone()),
            last_seq,
        }
    }

    /// Which tools this reply was offered (read back from its set).
    fn offer(&self) -> Offer {
        Offer {
            read_only: self.read_only,
            can_answer: tools::is_offered(&self.tools, ASK_USER),
        }
    }

    /// Appends history rows of the current step; while the reply's state is
    /// stored, the state after the step is stored with them, in one write.
    pub(super) async fn append_step(&mut self, rows: Vec<NewMessage>) -> Result<(), Interrupt> {
        let session = self.reply.session_id.clone();
        let result = if self.checkpointed {
            let state = self.saved_state(None);
            self.store
                .append_reply_step(&session, &self.reply.id, rows, Some(state))
                .await
        } else {
            self.store.append_messages(&session, rows).await.map(|_| ())
        };
        result.map_err(|e| {
            tracing::error!(error = %e, "could not store a message");
            Interrupt::failure("the reply could not be saved".into())
        })
    }

    /// The reply writes again (a model request is on its way): its stored
    /// state is no longer how to resume it.
    fn leave_checkpoint(&mut self) {
        if let Some(resumed) = self.resumed.take() {
            // The step that asked took another path after the restart.
            tracing::warn!(question = %resumed.question.id, "a restored question was not asked again");
            self.reply.log.publish(ReplyEvent::Unanswered {
                id: resumed.question.id,
                reason: "stopped".into(),
                chosen: None,
            });
        }
        if self.checkpointed {
            self.store.drop_reply_state(&self.reply.id);
            self.checkpointed = false;
        }
    }

    async fn run(&mut self) -> Result<(), Interrupt> {
        if self.env.planned {
            return self.planned().await;
        }
        if self.settling {
            self.settle().await?;
            self.settling = false;
        }
        loop {
            if self.pending.is_some() {
                if self.run_pending().await? {
                    return Ok(());
                }
                continue;
            }
            let exhausted = if self.tools.is_empty() {
                None
            } else {
                self.research.exhausted()
            };
            if let Some(why) = exhausted {
                if self.write_for_the_model().await {
                    continue;
                }
                return self.reserved_answer(why.note()).await;
            }
            let mut turn = self.turn(true).await?;
            if turn.out_of_time {
                if let Some(why) = self.research.exhausted() {
                    // What it had written counts as its turn (without the
                    // markup of a call that never finished).
                    self.messages.push(ChatMessage::Assistant {
                        content: without_markup(&turn.text),
                        tool_calls: Vec::new(),
                    });
                    return self.reserved_answer(why.note()).await;
                }
            }
            if turn.overlong && turn.calls.is_empty() {
                self.overlong_turns += 1;
                if self.overlong_turns > 1 {
                    // Twice is a habit: another try would cost as much.
                    self.messages.push(ChatMessage::Assistant {
                        content: without_markup(&turn.text),
                        tool_calls: Vec::new(),
                    });
                    return self
                        .reserved_answer("Your tool calls ran too long and were cut off.")
                        .await;
                }
            }
            if turn.calls.is_empty() && turn.malformed == 0 {
                // Answered as if saved, and nothing stored: Imprint stores
                // what the user said to keep, after the model's text.
                if WritesAsked::of(&self.request).save
                    && self.write_for_the_model_of(false, &mut turn.text).await
                {
                    continue;
                }
                // A detail asked for that never came: no nudge (a time
                // asked before the model started and given still is one).
                let details_asked = self.settled.iter().any(|(_, r)| r.is_none());
                if let Some(call) =
                    self.policy
                        .reminder_for_the_model(&self.tools, &self.request, details_asked)
                {
                    // Nudged and still nothing set: Imprint makes the call.
                    self.call_for_the_model(turn.text, call);
                    continue;
                }
                let Some(nudge) =
                    self.policy
                        .reminder_nudge(&self.tools, &self.request, details_asked)
                else {
                    return Ok(());
                };
                self.messages.push(ChatMessage::Assistant {
                    content: turn.text,
                    tool_calls: Vec::new(),
                });
                self.messages.push(nudge);
                self.research.finish_turn(false);
                continue;
            }
            let cap_note = SmallModelPolicy::cap_calls(&mut turn.calls);
            if !turn.calls.is_empty() {
                self.messages.push(ChatMessage::Assistant {
                    content: turn.text,
                    tool_calls: turn.calls.clone(),
                });
            }
            // The turn's calls run from here; its state goes with a
            // question's stored state, so a restart resumes mid-turn.
            self.pending = Some(PendingCalls {
                in_turn: turn.calls.len(),
                calls: turn.calls,
                statuses: Vec::new(),
                progress: false,
                cap_note,
                malformed: turn.malformed,
                by_imprint: false,
            });
        }
    }

    /// Research ended and a write the user asked for was not made (a
    /// memory to save, a reminder): Imprint makes the call itself. True
    /// when there is one to run.
    async fn write_for_the_model(&mut self) -> bool {
        self.write_for_the_model_of(true, &mut String::new()).await
    }

    /// [`Self::write_for_the_model`]; a reminder only when `reminder`. The
    /// call goes after the model's `text` (taken when there is a call).
    async fn write_for_the_model_of(&mut self, reminder: bool, text: &mut String) -> bool {
        let projects = self.recent_projects().await;
        let project = self.project_meant(&projects);
        // A detail asked for that never came: no write on a guess.
        let details_asked = self.settled.iter().any(|(_, r)| r.is_none());
        let call = self
            .policy
            .memory_for_the_model(&self.tools, &self.request, project, details_asked)
            .or_else(|| {
                reminder
                    .then(|| {
                        self.policy
                            .reminder_at_the_end(&self.tools, &self.request, details_asked)
                    })
                    .flatten()
            });
        let Some(call) = call else {
            return false;
        };
        self.call_for_the_model(std::mem::take(text), call);
        true
    }

    /// A call Imprint makes in the model's place, after the model's `text`:
    /// run as a turn's pending call, so a question its grounding asks
    /// resumes it after a restart.
    pub(super) fn call_for_the_model(&mut self, text: String, call: ToolCallRequest) {
        self.messages.push(ChatMessage::Assistant {
            content: text,
            tool_calls: vec![call.clone()],
        });
        self.pending = Some(PendingCalls {
            calls: vec![call],
            in_turn: 1,
            statuses: Vec::new(),
            progress: false,
            cap_note: None,
            malformed: 0,
            by_imprint: true,
        });
    }

    /// Runs the turn's calls still pending, then closes the turn. True
    /// when the reply has answered (a small model repeating itself).
    async fn run_pending(&mut self) -> Result<bool, Interrupt> {
        while let Some(call) = self.pending.as_ref().and_then(|p| p.calls.first().cloned()) {
            self.call(call).await?;
        }
        let Some(pending) = self.pending.take() else {
            return Ok(false);
        };
        let asked = WritesAsked::of(&self.request);
        let job_done = self.policy.job_done(&self.request);
        // Every write the request asked for is made: research is over (a
        // small model goes on listing and searching after it). Or the job
        // is done and the model only repeats, asks or writes what was not
        // asked: a small model looping.
        let writes_done = (asked.save || asked.remind) && job_done;
        // So is a turn that learned nothing new once Imprint's first search
        // settled what the request is about: a small model searches again
        // with other words for what it already has, turn after turn.
        let nothing_new = !pending.progress && self.policy.first_search_settled();
        let looping = !pending.by_imprint
            && job_done
            && (policy::did_nothing(&pending.statuses) || nothing_new);
        if writes_done || looping {
            self.reserved_answer("What the user asked for is done.")
                .await?;
            return Ok(true);
        }
        self.messages.extend(pending.cap_note);
        if pending.malformed > 0 {
            self.messages.push(ChatMessage::User(
                "(Imprint: a tool call you wrote could not be read. Write it again exactly in the format given, or answer without it.)".into(),
            ));
        }
        self.research.finish_turn(pending.progress);
        // A memory asked to be saved, and a turn that got nowhere: Imprint
        // saves it now rather than turns later (a small model lists the
        // projects again and again instead).
        if !pending.by_imprint && !pending.progress && asked.save && !job_done {
            self.write_for_the_model_of(false, &mut String::new()).await;
        }
        Ok(false)
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
        let (messages, tools) = (self.messages.clone(), Arc::clone(&self.tools));
        self.turn_on(messages, tools, allow_calls).await
    }

    /// [`Self::turn`] on the given conversation and tools.
    pub(super) async fn turn_on(
        &mut self,
        messages: Vec<ChatMessage>,
        tools: Arc<Vec<Value>>,
        allow_calls: bool,
    ) -> Result<Turn, Interrupt> {
        self.ensure_slot().await?;
        self.leave_checkpoint();
        self.length_limited = false;
        self.turns += 1;
        tracing::debug!(reply = %self.reply.id, turn = self.turns, allow_calls, "model turn");
        let research_turn = allow_calls && !tools.is_empty();
        let request = TurnRequest {
            messages,
            tools,
            allow_calls,
            call_id_prefix: format!("t{}_", self.turns),
            slot: self.permit.as_ref().map(WritingSlot::index),
        };
        // Dropped at the research deadline: a small model can write hidden
        // call markup until its token limit, minutes with nothing shown.
        let request_stop = self.reply.stop_token().child_token();
        let _drop_request = request_stop.clone().drop_guard();
        let mut events = self.env.model.stream_turn(request, request_stop);
        let mut turn = Turn {
            text: String::new(),
            calls: Vec::new(),
            malformed: 0,
            out_of_time: false,
            overlong: false,
        };
        let deadline = self.research.deadline();
        let mut ignored_calls = 0;
        loop {
            let event = tokio::select! {
                biased;
                _ = self.reply.stop_token().cancelled() => return Err(self.interrupted()),
                _ = tokio::time::sleep_until(deadline), if research_turn => {
                    tracing::info!(reply = %self.reply.id, "research time ran out while the model wrote");
                    turn.calls.clear();
                    turn.out_of_time = true;
                    break;
                }
                event = events.recv() => event,
            };
            match event {
                None => break,
                Some(Ok(ModelEvent::Text(text))) => {
                    turn.text.push_str(&text);
                    self.push_text(text);
                }
                Some(Ok(ModelEvent::LengthLimit)) => self.length_limited = true,
                Some(Ok(ModelEvent::ToolCall(call))) if allow_calls => {
                    // A call the turn already wrote: a small model has
                    // begun to go round (search, list, ask, search…), and
                    // the rest would repeat too. The request is dropped,
                    // so the model server stops writing.
                    if turn.calls.iter().any(|c| policy::same_call(c, &call)) {
                        break;
                    }
                    turn.calls.push(call);
                    if turn.calls.len() > policy::MAX_CALLS_PER_TURN {
                        // The rest would not run.
                        break;
                    }
                }
                Some(Ok(ModelEvent::ToolCall(_))) => {
                    // Not run; only a native call gets here (markup is not
                    // read as calls in such a turn).
                    ignored_calls += 1;
                    if ignored_calls > policy::MAX_CALLS_PER_TURN {
                        break;
                    }
                }
                Some(Ok(ModelEvent::Malformed(raw))) => {
                    tracing::debug!(%raw, "unreadable tool markup");
                    if !allow_calls {
                        // The turn meant for the answer writes calls
                        // instead: what it said before stays, and a turn
                        // that said nothing gets Imprint's own answer.
                        break;
                    }
                    turn.malformed += 1;
                }
                Some(Ok(ModelEvent::Overlong)) => {
                    turn.malformed += usize::from(allow_calls);
                    turn.overlong = true;
                }
                Some(Err(error)) => return Err(Interrupt::model(error)),
            }
        }
        if self.reply.stop_token().is_cancelled() {
            return Err(self.interrupted());
        }
        Ok(turn)
    }

    /// True while a call Imprint made (or the model's turn wrote) has not
    /// run yet, as after a restart mid-call.
    pub(super) fn has_pending_calls(&self) -> bool {
        self.pending.is_some()
    }

    /// Runs the pending calls to their end, without the model loop's
    /// judgement of the turn (planned turns have none).
    pub(super) async fn run_pending_calls(&mut self) -> Result<(), Interrupt> {
        while let Some(call) = self.pending.as_ref().and_then(|p| p.calls.first().cloned()) {
            self.call(call).await?;
        }
        self.pending = None;
        Ok(())
    }

    /// Shows `text` as part of the answer.
    pub(super) fn push_text(&mut self, text: String) {
        self.text.push_str(&text);
        // Queued before it is shown: if Imprint dies now, the text shown
        // so far is kept, marked interrupted.
        self.store.add_reply_text(&self.reply.id, &text);
        self.reply.log.publish(ReplyEvent::Token { text });
    }

    /// The model server's slot this reply writes on (see
    /// [`TurnRequest::slot`]).
    pub(super) fn slot_index(&self) -> Option<usize> {
        self.permit.as_ref().map(WritingSlot::index)
    }

    pub(super) fn interrupted(&self) -> Interrupt {
        if self.env.shutdown.is_cancelled() {
            Interrupt::Shutdown
        } else if self.reply.end_token().is_cancelled() {
            Interrupt::Ended
        } else {
            Interrupt::Stopped
        }
    }

    /// Runs one call: publishes it, runs it, publishes and stores its
    /// result, and hands it to the model, and notes it in the turn's
    /// pending calls (its progress and what became of it).
    pub(super) async fn call(&mut self, call: ToolCallRequest) -> Result<(), Interrupt> {
        if !std::mem::take(&mut self.replaying_call) {
            self.reply.log.publish(ReplyEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                args: call.arguments.clone(),
            });
        }
        // Browsing (the project list, or a search for "everything") once
        // Imprint's first search settled what the request is about.
        let browsing = call.name == tools::LIST_PROJECTS
            || (call.name == tools::SEARCH
                && call
                    .arguments
                    .get("query")
                    .and_then(Value::as_str)
                    .is_none_or(|q| q.trim().is_empty() || tools::run::is_generic_query(q)));
        let listing_again = browsing && self.policy.first_search_settled();
        let searched = call.name == tools::SEARCH;
        let (output, stored_args, stored_content) =
            if call.name == ASK_USER && tools::is_offered(&self.tools, ASK_USER) {
                self.ask(&call).await?
            } else {
                self.grounded_run(&call).await?
            };
        let result = cut_result(&output.text);
        // What happened, for the page: never the model's guess.
        let outcome = ToolOutcome {
            status: output.outcome(),
            row_id: output.row_id,
            found: output.found,
        };
        self.reply.log.publish(ReplyEvent::ToolResult {
            id: call.id.clone(),
            name: call.name.clone(),
            result: result.clone(),
            status: outcome.status,
            row_id: outcome.row_id,
            args: Some(stored_args.clone()),
            found: outcome.found,
        });
        let row =
            NewMessage::tool(call.name.clone(), stored_args, stored_content).with_outcome(outcome);
        self.messages.push(ChatMessage::Tool {
            call_id: call.id,
            name: call.name,
            content: result,
        });
        // Refused, repeated and unasked calls are no progress, nor is
        // browsing once Imprint's first search settled what the request is
        // about (a small model lists the projects or the newest memories
        // every turn).
        let progress = outcome.status == ToolStatus::Done
            && (output.wrote || self.learn(searched, &output))
            && !listing_again;
        if let Some(pending) = self.pending.as_mut() {
            pending.calls.remove(0);
            pending.progress |= progress;
            pending.statuses.push(outcome.status);
        }
        self.append_step(vec![row]).await
    }

    /// Learns what a read found; true when it was news. Once Imprint's
    /// first search settled what the request is about, a search's news is
    /// only new memories about it: a small model searches other words
    /// ("pizza", "restaurant") and finds other memories, turn after turn.
    fn learn(&mut self, searched: bool, output: &ToolOutput) -> bool {
        let topic = self.policy.settled_topic();
        if !searched || topic.is_empty() {
            return self.research.learn(output.facts.iter().cloned());
        }
        let about: Vec<String> = output
            .text
            .lines()
            .filter_map(MemoryLine::read)
            .filter(|memory| reference::content_is_about(memory.content, topic))
            .map(|memory| memory.fact())
            .collect();
        let news = self.research.learn(about);
        self.research.learn(output.facts.iter().cloned());
        news
    }

    pub(super) async fn run_tool(&self, name: &str, args: &Value) -> ToolOutput {
        let reminder_added = Arc::clone(&self.env.reminder_added);
        let env = ToolEnv {
            store: &self.store,
            session_id: Some(&self.reply.session_id),
            reminder_added: &*reminder_added,
            now: self.env.clock.now(),
        };
        tools::run_tool(&env, name, args).await
    }

    /// Takes a writing slot, waiting in line (FIFO) behind other replies.
    pub(super) async fn ensure_slot(&mut self) -> Result<(), Interrupt> {
        if self.permit.is_some() {
            return Ok(());
        }
        let slots = Arc::clone(&self.env.slots);
        let permit = tokio::select! {
            biased;
            _ = self.reply.stop_token().cancelled() => return Err(self.interrupted()),
            permit = slots.take() => permit,
        };
        match permit {
            Ok(permit) => {
                self.permit = Some(permit);
                Ok(())
            }
            Err(_) => Err(Interrupt::Ended),
        }
    }

    pub(super) fn release_slot(&mut self) {
        self.permit = None;
    }
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
