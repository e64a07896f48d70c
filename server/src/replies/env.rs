//! What a reply runs with: the server's shared parts (the model, the tool
//! sets, the writing slots, the budgets) and one reply's job.
//!
//! A reply takes the environment in force when it starts and keeps it to
//! its end. Another model chosen meanwhile (the Model page) is a new
//! environment ([`ReplyEnv::on_model`]) for the replies that start after;
//! a running one finishes on its own.

use std::sync::Arc;
use std::time::Duration;

use app::protocol::DashboardEvent;
use serde_json::Value;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::registry::{Replies, Reply};
use super::slots::WritingSlots;
use crate::clock::Clock;
use crate::config::{ModelSettings, Turns};
use crate::models::{ChatMessage, ModelClient};
use crate::tools::{self, Offer, WritesAsked};

/// What every reply needs from the server. Cheap to clone: all but the
/// model and its tool sets are shared handles.
#[derive(Clone)]
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
    /// Memories found by meaning; requests routed by labelled examples.
    pub meaning: crate::meaning::Meaning,
    /// "Now", for every date a reply works out.
    pub clock: Clock,
    /// Imprint plans each reply's steps and the model fills them in under
    /// a schema (see [`super::planned`]); else the model's own tool loop.
    pub planned: bool,
    /// The server's shutdown: a reply ended by it keeps what it stored.
    pub shutdown: CancellationToken,
}

impl ReplyEnv {
    /// The same environment on the model `settings` name: its client, the
    /// tool sets of its format, and planned turns when its settings say so.
    pub fn on_model(&self, settings: ModelSettings) -> Self {
        Self {
            tool_sets: ToolSets::new(settings.tool_format),
            planned: settings.turns == Turns::Planned,
            model: ModelClient::new(settings),
            ..self.clone()
        }
    }
}

/// The tool schemas for each kind of caller and each set of writes a
/// request may ask for (16 sets, built once).
#[derive(Clone)]
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
                    // Which tools are offered does not depend on it.
                    spoken: false,
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
    /// The reply, with where its history is written (an in-memory store
    /// for a voice conversation that is not saved).
    pub reply: Arc<Reply>,
    pub offer: Offer,
    /// The conversation so far, the new user message last.
    pub history: Vec<ChatMessage>,
}
