//! A planned reminder's call: its text from the user's "remind me …",
//! else worded by the model, else asked for; its time from the request
//! (see [`crate::replies::policy`]).

use app::protocol::QuestionReason;

use crate::grounding::capitalized;
use crate::models::ToolCallRequest;
use crate::replies::run::{Interrupt, Run};
use crate::store::NewMessage;
use crate::tools;

impl Run {
    /// The reminder the request asks for, or `None` when it cannot be
    /// set; with the history row of a question asked for its text, for
    /// the caller to store once the call is in the reply's state.
    pub(super) async fn reminder_call(
        &mut self,
        details_asked: bool,
    ) -> Result<(Option<ToolCallRequest>, Option<NewMessage>), Interrupt> {
        let unread =
            crate::grounding::reminder_text(self.talk.request()).is_none() && !details_asked;
        // A reminder with no "remind me …" to read its text from ("nudge
        // me at 6 re the bins"): the model words it.
        let mut worded = if unread {
            self.reminder_text_from_the_model().await?
        } else {
            None
        };
        let mut row = None;
        // "remind me tomorrow at 5pm": a time, and nothing to be reminded
        // of. The user is asked what of; the time stays the request's.
        if unread && worded.is_none() && self.talk.offers(tools::ASK_USER) {
            let (answer, asked) = self
                .ask_open(
                    "What should I remind you about?".into(),
                    QuestionReason::NothingToRemindOf,
                )
                .await?;
            row = Some(asked);
            worded = answer
                .map(|answer| capitalized(answer.trim()))
                .filter(|answer| !answer.is_empty());
        }
        let call = self.policy.reminder_at_the_end(
            self.talk.tools(),
            self.talk.request(),
            details_asked,
            worded,
        );
        Ok((call, row))
    }
}
