//! A planned save or reminder: Imprint makes the call from the user's
//! words (asking for what a save names without saying), runs it, and says
//! what was done, or plainly that nothing was written.

use app::protocol::QuestionReason;
use serde_json::json;

use crate::grounding::{capitalized, plan};
use crate::meaning::route::Routed;
use crate::models::ToolCallRequest;
use crate::replies::own_answer;
use crate::replies::run::{Interrupt, Run};
use crate::tools::{self, REMIND, STORE};

impl Run {
    /// A save or a reminder: Imprint makes the call from the user's words
    /// (its grounding asks for a missing project or time), then says what
    /// was done.
    pub(super) async fn planned_write(&mut self, tool: &str) -> Result<(), Interrupt> {
        if !self.has_pending_calls() {
            if !self.talk.offers(tool) {
                self.say("I can't change anything from here: this conversation only reads your memories. Use Chat to save or set reminders.").await;
                return Ok(());
            }
            let details_asked = self.settling.details_asked();
            let (call, row) = if tool == REMIND {
                self.reminder_call(details_asked).await?
            } else if details_asked {
                (None, None)
            } else {
                return self.save_the_users_words().await;
            };
            let Some(call) = call else {
                if let Some(row) = row {
                    self.append_step(vec![row]).await?;
                }
                self.say(&self.nothing_written(tool)).await;
                return Ok(());
            };
            // The call is in the reply's state before the question's row
            // is stored: a restart now sets it, not asks again.
            self.call_for_the_model(String::new(), call);
            if let Some(row) = row {
                self.append_step(vec![row]).await?;
            }
        }
        self.finish_write(tool).await
    }

    /// A save: what the user said to keep, in their words. A detail named
    /// and not given ("Save the allotment gate code") is asked for first.
    async fn save_the_users_words(&mut self) -> Result<(), Interrupt> {
        let projects = self.recent_projects().await;
        let mut arguments = json!({});
        // The words that named the project loosely ("for harbourside - …")
        // are no part of what is kept.
        if let Some(project) = self.project_meant(&projects) {
            arguments["project"] = json!(project);
        } else if let Some((project, _)) =
            crate::grounding::project_of_a_save(self.talk.request(), &projects)
        {
            arguments["project"] = json!(project);
        }
        let named_by =
            crate::grounding::note_lead_in(self.talk.request(), &projects).map(str::to_string);
        let mut row = None;
        let content = match crate::grounding::what_to_save(self.talk.request()) {
            Some(content) => Some(content),
            // "for the van zyl thing - the bride moved the ceremony to
            // 4:30pm": what follows a note's lead-in is the note, in the
            // user's words.
            None if named_by.is_some() => named_by.as_deref().map(|lead_in| {
                crate::grounding::without_project_lead_in(
                    self.talk.request().trim().to_string(),
                    lead_in,
                )
            }),
            None => match crate::grounding::content_to_save(self.talk.request()) {
                Some(named)
                    if self.talk.offers(tools::ASK_USER)
                        && plan::names_a_detail_without_it(self.talk.request(), &named) =>
                {
                    let label = named.trim_end_matches(['.', '!', '?']).to_string();
                    let question = format!("What is the {}?", lower_first(&label));
                    let (answer, asked) = self
                        .ask_open(question, QuestionReason::DetailNotGiven)
                        .await?;
                    row = Some(asked);
                    answer.map(|answer| format!("{label}: {}", the_value(&answer)))
                }
                // "fyi my gym number is CLB-00482-7" or "for the record, …"
                // (judged a save, with no verb of keeping): the fact is the model's, in
                // the user's words; when it is not theirs, the user is asked.
                // "got something i need you to remember": the model's
                // fact must name something, not only ask to keep.
                None => match self
                    .fact_from_the_model()
                    .await?
                    .filter(|fact| crate::grounding::names_something_kept(fact))
                {
                    Some(fact) => Some(fact),
                    // Judged a save, but shaped as a question, with no
                    // fact of the user's to keep ("how many characters per
                    // line r we allowed on kaito", "what's the rego
                    // number"): it is answered, not kept in its own words.
                    None if plan::is_a_question(self.talk.request()) => {
                        tracing::info!(reply = %self.reply.id, "no fact to keep, and it is a question: answered as one");
                        return self.question().await;
                    }
                    // Judged a statement whole (no verb of keeping), the
                    // message is the fact: in the user's own words, when the
                    // model's wording of it is not theirs.
                    None if self.policy.judged() == Some(Routed::Save)
                        && gives_a_fact(self.talk.request()) =>
                    {
                        let own = crate::grounding::without_lead_in(self.talk.request().trim());
                        Some(capitalized(own)).filter(|own| !own.is_empty())
                    }
                    // Less surely a question ("quick one - what does SRT
                    // stand for"), and no fact given: answered too.
                    None if plan::may_be_a_question(self.talk.request()) => {
                        tracing::info!(reply = %self.reply.id, "no fact to keep, and its last clause asks: answered as a question");
                        return self.question().await;
                    }
                    // Judged a save by the examples alone (no verb of
                    // keeping), and it gives nothing to keep ("number for
                    // the accountant pls"): it asks for something.
                    None if self.policy.judged() == Some(Routed::Save) => {
                        tracing::info!(reply = %self.reply.id, "judged a save, but it gives no fact and says no verb of keeping: answered as a question");
                        return self.question().await;
                    }
                    None if self.talk.offers(tools::ASK_USER) => {
                        let question = "What should I save?".to_string();
                        let (answer, asked) = self
                            .ask_open(question, QuestionReason::NothingToKeep)
                            .await?;
                        row = Some(asked);
                        answer.map(|a| capitalized(a.trim()))
                    }
                    None => None,
                },
                named => named,
            },
        };
        let content = content.map(|content| match &named_by {
            Some(lead_in) => crate::grounding::without_project_lead_in(content, lead_in),
            None => content,
        });
        match content {
            Some(content) => {
                arguments["content"] = json!(content);
                let call = ToolCallRequest {
                    id: "imprint_store".into(),
                    name: STORE.into(),
                    arguments,
                };
                // The call is in the reply's state before the question's
                // row is stored: a restart now saves, not asks again.
                self.call_for_the_model(String::new(), call);
                if let Some(row) = row {
                    self.append_step(vec![row]).await?;
                }
            }
            None => {
                if let Some(row) = row {
                    self.append_step(vec![row]).await?;
                }
                self.say(&self.nothing_written(STORE)).await;
                return Ok(());
            }
        }
        self.finish_write(STORE).await
    }

    /// Runs the write made and says what was done.
    async fn finish_write(&mut self, tool: &str) -> Result<(), Interrupt> {
        self.run_pending_calls().await?;
        // "Done: …" from what was written (see `drive`); nothing written
        // is said plainly.
        if own_answer::from_writes(&self.policy.writes(), self.env.clock.now()).is_none() {
            self.say(&self.nothing_written(tool)).await;
        }
        Ok(())
    }

    fn nothing_written(&self, tool: &str) -> String {
        match (tool, self.settling.details_asked()) {
            (REMIND, true) => "I set no reminder, since I don't know when. Tell me when, and I'll set it.".into(),
            (REMIND, false) => "I set no reminder: I couldn't tell what to remind you of. Say it like “Remind me tomorrow at 9 to call the bank.”".into(),
            (_, true) => "I saved nothing, since I couldn't tell where it goes. Tell me again with the project's name.".into(),
            _ => "What should I save? Say it like “Save: the wifi password is on the router.”".into(),
        }
    }
}

/// What the model's words must do with the user's numbers and codes.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Digits {
    /// Keep every one (a note's codes and numbers are its point).
    AllKept,
    /// Say only theirs (a reminder's time stays out of its text).
    Theirs,
}

/// True when `fact` is the user's own words: every word with a digit is
/// theirs (and with [`Digits::AllKept`], every one of theirs is kept),
/// and it has words of substance, most of them theirs.
pub(super) fn in_the_users_words(fact: &str, request: &str, digits: Digits) -> bool {
    let tokens = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
            .map(|w| w.trim_matches(['-', '\'']).to_lowercase())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let theirs = tokens(request);
    let ours = tokens(fact);
    let keep = digits;
    let digits = |w: &&String| w.chars().any(|c| c.is_ascii_digit());
    if ours.is_empty()
        || !ours.iter().filter(digits).all(|w| theirs.contains(w))
        || (keep == Digits::AllKept && !theirs.iter().filter(digits).all(|w| ours.contains(w)))
    {
        return false;
    }
    // "fyi mia got her swimming badge" worded "I got my swimming badge":
    // a fact told of the user that the request never told of them is
    // someone else's, taken for theirs.
    let of_the_user = |words: &[String]| {
        words
            .iter()
            .any(|w| imprint_text::pronouns::is_first_person(w))
    };
    if of_the_user(&ours) && !of_the_user(&theirs) {
        return false;
    }
    // Words of substance: "We moved our joint account to Monzo, and the
    // code is 04-00-04" adds only function words to the user's "we moved
    // our joint account to monzo, sort code 04-00-04".
    let substance: Vec<&String> = ours
        .iter()
        .filter(|w| !crate::common_words::is_function_word(w))
        .collect();
    // "Thursday" for their "thursdays": the same word with or without
    // a plural's ending.
    // "Bramble" for their "bramble's" too.
    let same = |a: &str, b: &str| {
        let (a, b) = (a.trim_end_matches("'s"), b.trim_end_matches("'s"));
        a == b || a.strip_suffix('s') == Some(b) || b.strip_suffix('s') == Some(a)
    };
    let held = substance
        .iter()
        .filter(|w| theirs.iter().any(|t| same(t, w)))
        .count();
    !substance.is_empty() && held * 5 >= substance.len() * 4
}

/// True when `request` gives a fact of its own: a number or code, a
/// sentence's auxiliary verb ("btw my locker at the pool is number 112",
/// "dan's hosting the quiz", "the twins do swimming on tuesdays"),
/// or a name and its value after a colon.
/// "nhs no. pls", judged a save wrongly, gives none: it is asked about,
/// not kept.
fn gives_a_fact(request: &str) -> bool {
    let words = imprint_text::words::plain(request);
    request.chars().any(|c| c.is_ascii_digit())
        || request.contains(": ")
        || words.iter().any(|w| {
            crate::common_words::is_auxiliary(w.trim_end_matches("'s"))
                || (w.ends_with("'s") && crate::common_words::is_function_word(w))
        })
        // "rosa's hosting new year": the "'s" is "is", before a verb's
        // "-ing".
        || words
            .windows(2)
            .any(|pair| pair[0].ends_with("'s") && pair[1].len() > 5 && pair[1].ends_with("ing"))
}

/// What follows a colon that closes the request's time: "set a reminder
/// for tmrw at half past 7: defrost the salmon" → "defrost the salmon".
pub(super) fn after_a_colon_closing_the_time(
    request: &str,
    now: chrono::DateTime<chrono::Local>,
) -> Option<&str> {
    let (head, tail) = request.rsplit_once(": ")?;
    let tail = tail.trim();
    (!tail.is_empty()
        && crate::grounding::when::stated(head, now).is_some()
        && crate::grounding::when::stated(tail, now).is_none())
    .then_some(tail)
}

/// "Allotment gate code" → "allotment gate code"; a name stays.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.clone().next()) {
        (Some(first), Some(second)) if second.is_lowercase() => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

/// The value in an answer to "What is the allotment gate code?": "it's
/// 8402" and "it is 8402" are "8402"; anything else stays as said.
fn the_value(answer: &str) -> &str {
    let answer = answer.trim();
    let lower = answer.to_lowercase().replace('’', "'");
    for lead in ["it's ", "it is ", "its ", "that's ", "that is "] {
        if lower.starts_with(lead) && answer.len() > lead.len() {
            // The leads are ASCII but "’" is not: skip as many characters.
            let skip = answer
                .char_indices()
                .nth(lead.chars().count())
                .map_or(answer.len(), |(i, _)| i);
            return answer[skip..].trim_start();
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::{
        after_a_colon_closing_the_time, gives_a_fact, in_the_users_words, the_value, Digits,
    };

    #[test]
    fn a_fact_of_its_own_has_a_number_or_says_what_is() {
        assert!(gives_a_fact("btw my locker at the pool is number 112"));
        assert!(gives_a_fact("fyi the chimney sweep is a guy called Ruan"));
        assert!(gives_a_fact("the cat's flea stuff: frontline"));
        assert!(gives_a_fact("heads up, sports day moved to 19 june"));
        assert!(gives_a_fact("btw mo's driving us to the airport"));
        assert!(gives_a_fact("fyi the twins do swimming on tuesdays"));
        assert!(!gives_a_fact("nhs no. pls"));
        assert!(!gives_a_fact("mo's ring size"));
        assert!(!gives_a_fact("the pool locker"));
    }

    #[test]
    fn a_fact_is_kept_only_in_the_users_words() {
        let kept = |fact: &str, request: &str| in_the_users_words(fact, request, Digits::AllKept);
        let request = "fyi my membership number at the climbing gym is CLB-00482-7";
        assert!(kept(
            "Membership number at the climbing gym: CLB-00482-7",
            request
        ));
        // A code changed or dropped is no note of theirs.
        assert!(!kept(
            "Membership number at the climbing gym: CLB-00482",
            request
        ));
        assert!(!kept("Membership number at the climbing gym", request));
        // Words of the model's own are not the user's fact.
        assert!(!kept(
            "The user has a premium climbing membership, number CLB-00482-7, renewed yearly",
            request
        ));
        assert!(!kept("", request));
        // Function words of the model's own are no words of substance.
        assert!(kept(
            "We moved our joint account to Monzo, and the code is 04-00-04.",
            "we moved our joint account to monzo, sort code 04-00-04"
        ));
        assert!(kept(
            "The microchip number for Bramble is 981020004417332.",
            "btw bramble's microchip number is 981020004417332"
        ));
        assert!(kept(
            "The bin collection moved to Thursday.",
            "heads up: the bin collection moved to thursdays"
        ));
        // Nothing of substance is no fact: "Save it." kept as "it".
        assert!(!kept("It.", "Save it."));
        // Told of someone else, it is not kept as the user's own.
        let request = "fyi tom passed his grade 3 piano today, proud mum";
        assert!(!kept("I passed my grade 3 piano today, proud mum", request));
        assert!(kept(
            "Tom passed his grade 3 piano today, proud mum",
            request
        ));
        assert!(kept(
            "I passed my grade 3 piano today",
            "note that i passed my grade 3 piano today"
        ));
    }

    #[test]
    fn a_reminders_text_after_a_colon_that_closes_its_time_is_that_text() {
        let now = chrono::Local::now();
        assert_eq!(
            after_a_colon_closing_the_time(
                "set a reminder for tmrw at half past 7 in the morning: defrost the salmon",
                now
            ),
            Some("defrost the salmon")
        );
        // No time before the colon, or one after it: not this shape.
        assert_eq!(
            after_a_colon_closing_the_time("note for later: defrost the salmon", now),
            None
        );
        assert_eq!(
            after_a_colon_closing_the_time("tomorrow: defrost the salmon at 9", now),
            None
        );
    }

    #[test]
    fn a_reminders_text_leaves_out_the_time_but_says_no_number_of_its_own() {
        let theirs = |text: &str, request: &str| in_the_users_words(text, request, Digits::Theirs);
        let request = "nudge me at 6.45pm re putting the bins out for collection 2";
        assert!(theirs("putting the bins out for collection 2", request));
        assert!(theirs("putting the bins out", request));
        assert!(!theirs("putting the bins out at 7", request));
        assert!(!theirs("take the recycling to the tip", request));
    }

    #[test]
    fn an_answer_that_says_its_value_keeps_only_the_value() {
        assert_eq!(the_value("it's 8402"), "8402");
        assert_eq!(the_value("It’s 8402 "), "8402");
        assert_eq!(the_value("that is 4471#"), "4471#");
        assert_eq!(the_value("8402"), "8402");
        // A value that only starts like the words stays whole.
        assert_eq!(the_value("itsy-bitsy-77"), "itsy-bitsy-77");
        assert_eq!(the_value("it's"), "it's");
    }
}
