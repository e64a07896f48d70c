//! What kind of request this is, judged once per reply. A write is a side
//! effect nobody wants unasked, so the judging leans on precision: what
//! the rules ([`plan::classify`]) recognise stands (a verb of keeping, a
//! "remind me", an act, the project list, a greeting); a request they read
//! as a question is a save or a reminder only when its labelled examples
//! ([`crate::meaning::route`]) say so clearly and the model, asked under
//! a schema to choose between that and a question, agrees ("fyi my gym
//! number is …"). Everything else stays a question, whose reads decide
//! between the user's memories, general knowledge and small talk by
//! meaning. The judged kind is kept with the reply's state, so a reply
//! restored after a restart goes on as it began.
//!
//! Measured (session 15, fresh set 3): letting the examples' kind override
//! the rules turned 14 of 29 reads into unasked saves; the examples' kNN
//! is swayed by a request's topic more than by what it asks.

use serde_json::{json, Value};

use crate::grounding::plan::{self, Kind, Plan};
use crate::meaning::route::{Route, Routed};
use crate::meaning::search::SETTLE_WAIT;
use crate::models::{ChatMessage, StepRequest};
use crate::replies::stream::{Interrupt, Run};

impl Run {
    /// The request's plan: its judged kind when there is one, else the
    /// rules'. Judging offers the writes the kind asks for.
    pub(super) async fn judged_plan(&mut self) -> Result<Plan, Interrupt> {
        let rules = plan::classify(&self.request);
        let judged = match self.policy.judged() {
            Some(kind) => Some(kind),
            None => self.judge_kind(&rules).await?,
        };
        let Some(kind) = judged else {
            return Ok(rules);
        };
        self.policy.judge(kind);
        let writes = crate::tools::WritesAsked::of(&self.request).or(self.policy.judged_writes());
        if !self.read_only {
            self.tools = self.env.tool_sets.get(self.offer(), writes);
        }
        Ok(plan_of(kind, rules))
    }

    /// A write the rules missed: the examples' save or reminder, when the
    /// model agrees against a question; `None` otherwise (and without
    /// finding by meaning).
    async fn judge_kind(&mut self, rules: &Plan) -> Result<Option<Routed>, Interrupt> {
        if rules.kind != Kind::Question {
            return Ok(None);
        }
        let meaning = self.env.meaning.clone();
        if !meaning.is_on() {
            return Ok(None);
        }
        meaning.settled(SETTLE_WAIT).await;
        let route = match meaning.embed_one(&self.request).await {
            Ok(vector) => meaning.route(&vector),
            Err(error) => {
                tracing::info!(%error, "the request's kind is the rules'");
                None
            }
        };
        let Some(route) = route else {
            return Ok(None);
        };
        tracing::info!(reply = %self.reply.id, ?route, "routed by the examples");
        // The examples must say it clearly (their lead over the next kind),
        // and then the model must agree.
        if !matches!(route.kind, Routed::Save | Routed::Remind) || !route.is_clear() {
            return Ok(None);
        }
        let picked = self.model_judges(&route, Routed::Read).await?;
        Ok((picked == route.kind).then_some(picked))
    }

    /// The model's pick between the examples' kind and `other`, under a
    /// schema that allows only them; `other` when the model fails (no write
    /// is made on the examples' word alone).
    async fn model_judges(&mut self, route: &Route, other: Routed) -> Result<Routed, Interrupt> {
        let kinds = [route.kind, other];
        let described: Vec<String> = kinds
            .iter()
            .map(|k| format!("\"{}\": {}", k.label(), describe(*k)))
            .collect();
        let system = format!(
            "You sort a user's message to their personal memory assistant into one of two kinds.\n{}\n\nReply in JSON: \"kind\": the kind of the user's message.",
            described.join("\n")
        );
        let labels: Vec<Value> = kinds.iter().map(|k| json!(k.label())).collect();
        let schema = json!({
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": labels}},
            "required": ["kind"],
            "additionalProperties": false,
        });
        if self.ensure_slot().await.is_err() {
            return Ok(other);
        }
        let step = StepRequest {
            messages: vec![
                ChatMessage::System(system),
                ChatMessage::User(self.request.clone()),
            ],
            schema,
            max_tokens: 24,
            slot: self.slot_index(),
        };
        let stop = self.reply.stop_token().child_token();
        match self.env.model.constrained(step, stop).await {
            Ok(value) => {
                let picked = value
                    .get("kind")
                    .and_then(Value::as_str)
                    .and_then(Routed::from_label)
                    .unwrap_or(other);
                tracing::info!(reply = %self.reply.id, ?picked, "the model judged between the examples' kind and a question");
                Ok(picked)
            }
            Err(_) if self.reply.stop_token().is_cancelled() => Err(Interrupt::Stopped),
            Err(error) => {
                tracing::warn!(%error, "the model could not judge the kind; the rules' stands");
                Ok(other)
            }
        }
    }
}

/// The plan of a judged kind: a save or a reminder the rules missed; any
/// other kind leaves the rules' plan as it is.
fn plan_of(kind: Routed, rules: Plan) -> Plan {
    let plan = |kind, reason: &str| Plan {
        kind,
        reason: reason.to_string(),
    };
    match kind {
        Routed::Save => plan(Kind::Save, "the request reads as one to keep something"),
        Routed::Remind => plan(Kind::Remind, "the request reads as one for a reminder"),
        _ => rules,
    }
}

/// What each kind means, for the model choosing between two.
fn describe(kind: Routed) -> &'static str {
    match kind {
        Routed::Save => "the user gives a fact to keep (or corrects one kept)",
        Routed::Remind => "the user wants to be reminded of something",
        Routed::Read => "a question about the user's own things, answered from what they saved",
        Routed::General => "general knowledge, or a task that needs nothing of the user's",
        Routed::SmallTalk => "a greeting, thanks or chit-chat",
        Routed::CannotDo => {
            "asks to act in the world: send, call, book, buy, pay, change a calendar"
        }
        Routed::Projects => "asks for the list of the user's projects",
    }
}
