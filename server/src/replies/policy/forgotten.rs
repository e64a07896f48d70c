//! A write the user asked for that the model forgot (a reminder it says
//! it set, a memory it says it saved): the model is nudged once, and then
//! Imprint makes the call in its place, with the user's own words (its
//! grounding then runs as any call's). Each once per reply.

use serde_json::Value;

use super::SmallModelPolicy;
use crate::grounding;
use crate::models::note::Note;
use crate::models::{ChatMessage, ToolCallRequest};
use crate::tools;

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
            && self.asked_for_reminder(request)
            && !self.reminder_set()
            && !details_asked;
        if !forgotten {
            return None;
        }
        self.nudged = true;
        Some(Note::ReminderNotSet.message())
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
        self.reminder_at_the_end(offered, request, details_asked, None)
    }

    /// The same call when research ends with the reminder asked for not
    /// set (the model called other tools until then; no nudge first).
    pub fn reminder_at_the_end(
        &mut self,
        offered: &[Value],
        request: &str,
        details_asked: bool,
        worded: Option<String>,
    ) -> Option<ToolCallRequest> {
        let still_forgotten = !self.reminded_for_the_model
            && tools::is_offered(offered, tools::REMIND)
            && self.asked_for_reminder(request)
            && !self.reminder_set()
            && !details_asked;
        if !still_forgotten {
            return None;
        }
        // Judged a reminder with no "remind me" to read it from ("don't
        // let me forget the bins on Thursday"): the request without its
        // time.
        // Judged a reminder with no "remind me" to read it from ("nudge
        // me at half six re the bins"): the text worded for it.
        let text = grounding::reminder_text(request).or(worded)?;
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

    /// True when the user asked for a reminder: in their words, or by the
    /// kind the request was judged.
    fn asked_for_reminder(&self, request: &str) -> bool {
        self.judged_writes().remind || grounding::asks_for_reminder(request)
    }
}
