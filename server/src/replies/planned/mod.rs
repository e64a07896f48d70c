//! Planned turns (`IMPRINT_CHAT_TURNS=planned`, the local model's
//! default): Imprint plans the request's steps (see [`crate::grounding::plan`]) and
//! runs the tools each kind needs; the model only fills in what words
//! are for, each time under a JSON schema the model server enforces (the
//! memory that answers and a sentence from it), or writes a general answer
//! with no tools at all. A small model then cannot loop on tools, say
//! Imprint's notes back or write markup, and what the reply says about the
//! user's things is checked against the memories found
//! ([`crate::grounding::plan::claims`]).
//!
//! Here: the plan's dispatch. The steps of each kind: a save or a reminder
//! (`writes`), a question, the project list or an act Imprint cannot do
//! (`reads`), the answer worded from the memories found (`answer`), and
//! the model's own answer (`general`).

mod acts;
mod ambiguity;
pub(super) use ambiguity::NEAR_EQUAL_FOR_A_DETAIL;
mod answer;
mod finding;
mod general;
mod judging;
mod reads;
mod reminding;
mod worded;
mod writes;

use super::run::{Interrupt, Run};
use crate::grounding::plan::Kind;
use crate::tools::{REMIND, STORE};

impl Run {
    /// Runs the reply as planned: the kind of request decides the steps.
    pub(in crate::replies) async fn planned(&mut self) -> Result<(), Interrupt> {
        let plan = self.judged_plan().await?;
        tracing::info!(reply = %self.reply.id, kind = ?plan.kind, reason = %plan.reason, "planned");
        if self.settling.is_open() {
            // A read or a write settles its project, thing or time; so
            // does an act Imprint cannot do ("Move that to Friday": which
            // one?), to say what the memories hold about it.
            if matches!(
                plan.kind,
                Kind::Save | Kind::Remind | Kind::Question | Kind::CannotDo { .. }
            ) {
                self.settle().await?;
            }
            self.settling.close();
        }
        match plan.kind {
            Kind::Save => self.planned_write(STORE).await,
            Kind::Remind => self.planned_write(REMIND).await,
            Kind::CannotDo { verb } => self.cannot_do(&verb).await,
            Kind::Projects => self.list_projects().await,
            Kind::SmallTalk => self.general(false).await,
            Kind::Question => self.question().await,
        }
    }

    /// Says `text` as (part of) the answer, as a model's text is said.
    async fn say(&mut self, text: &str) {
        self.push_text(text.to_string()).await;
    }
}

/// The `items` that are `preferred`, or all of them when none is: a
/// preference among memories never leaves none.
fn preferring<T>(items: Vec<T>, preferred: impl Fn(&T) -> bool) -> Vec<T> {
    if items.iter().any(&preferred) {
        items.into_iter().filter(|item| preferred(item)).collect()
    } else {
        items
    }
}
