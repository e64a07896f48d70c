//! The plan of a reply with planned turns: what kind of request it is, and
//! why. Rules decide where the words are plain (a save, a reminder, an
//! act Imprint cannot do, a request naming nothing); the labelled
//! examples tell greetings and the project list
//! ([`crate::replies`]' judging); every other
//! request is a question, answered from the memories a search finds about
//! it, or, when it is about nothing of the user's, from the model's
//! general knowledge. Each decision carries its reason, logged with the
//! reply.
//!
//! The English word tables of this layer live here and in the rest of
//! [`crate::grounding`] (what a save keeps, a reminder's time, "the
//! project"); [`claims`] checks an answer against what backs it.

pub mod claims;
pub mod compute;
mod topic;

use topic::is_kept_detail;
pub use topic::{
    asked_part, asked_words_running_into_a_name, asking_clause, holds_an_amount, Topic,
};

use crate::grounding;
use crate::grounding::courtesy;

/// What a request asks Imprint to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Keep something ("Save: the plumber is Jan, 0176 555 1234").
    Save,
    /// Set a reminder.
    Remind,
    /// An act Imprint has no tool for ("Move that to Friday"): `verb`.
    CannotDo { verb: String },
    /// The user's projects ("List my projects.").
    Projects,
    /// A greeting or thanks: the model's own short answer.
    SmallTalk,
    /// Anything else: a read of the memories, or general knowledge.
    Question,
}

/// A request's kind and why it was so judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub kind: Kind,
    pub reason: PlanReason,
}

/// Why a request was judged its kind: by its words (the rules), or by its
/// nearest labelled examples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanReason {
    /// "Remind me what my national insurance number is".
    AsksWhatWasKept,
    /// "remind me", "nudge me", "set an alarm for 6".
    AsksToBeReminded,
    /// A verb of keeping: "save", "note", "remember".
    AsksToKeep,
    /// A question whose words of keeping are the user's name for a thing
    /// their memories hold ("file room key?", "File room key: …").
    KeepingWordsNameAThing,
    /// An act Imprint has no tool for opens it ("send", "book").
    AsksAnActItCannotDo,
    /// Only courtesy and fillers: "hi", "hmm", "👋".
    NamesNothing,
    /// Anything else.
    AsksSomething,
    /// The examples read a save the rules did not, and the model agreed.
    ExamplesReadASave,
    /// The examples read a reminder the rules did not, and the model agreed.
    ExamplesReadAReminder,
    /// The examples read a greeting or thanks.
    ExamplesReadSmallTalk,
    /// The examples read a request for the project list.
    ExamplesReadTheProjectList,
}

impl std::fmt::Display for PlanReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlanReason::AsksWhatWasKept => "the request asks to be told what was kept",
            PlanReason::AsksToBeReminded => "the request asks to be reminded",
            PlanReason::AsksToKeep => "the request asks to keep something",
            PlanReason::KeepingWordsNameAThing => {
                "the request asks, and its words of keeping name a thing the memories hold"
            }
            PlanReason::AsksAnActItCannotDo => "the request asks for an act Imprint cannot do",
            PlanReason::NamesNothing => "the request names nothing",
            PlanReason::AsksSomething => "the request asks something",
            PlanReason::ExamplesReadASave => "the request reads as one to keep something",
            PlanReason::ExamplesReadAReminder => "the request reads as one for a reminder",
            PlanReason::ExamplesReadSmallTalk => "the examples read a greeting or thanks",
            PlanReason::ExamplesReadTheProjectList => {
                "the examples read a request for the project list"
            }
        })
    }
}

/// Acts Imprint has no tool for, as the verb that opens a request.
const CANNOT_DO: &[&str] = &[
    "move",
    "cancel",
    "send",
    "book",
    "email",
    "e-mail",
    "mail",
    "text",
    "call",
    "phone",
    "order",
    "buy",
    "pay",
    "reschedule",
    "postpone",
    "forward",
    "share",
    "post",
    "invite",
    "delete",
    "erase",
    "reply",
    "message",
    "schedule",
    "rename",
];

/// Words that may come before a request's verb besides courtesy: "go
/// ahead and move…", "now send…" ("please move…", "can you send…" are
/// courtesy).
const BEFORE_VERB: &[&str] = &["go", "ahead", "and", "now", "just"];

/// True for a word that opens a question about what is, was or was kept,
/// not a request to do something: a question word ("what's", "where") or
/// a verb that opens a yes/no question ("did", "is", "have").
fn opens_a_question(word: &str) -> bool {
    crate::common_words::is_question_word(word) || crate::common_words::is_auxiliary(word)
}

/// True when the request's last sentence ends with a question mark and
/// opens with a question word, past one word before it ("…I'm a bit
/// worried. And where does he keep his EpiPen?"): a question, however its
/// words speak of keeping. "Would you mind making a note that Ciarán is
/// on nights?" asks to keep.
fn ends_asking(request: &str) -> bool {
    let Some(body) = request.trim_end().strip_suffix('?') else {
        return false;
    };
    let last = imprint_text::words::last_filled(imprint_text::words::sentences(body));
    let words = imprint_text::words::plain(last);
    words.iter().take(2).any(|w| opens_a_question(w))
}

/// True when a request is a question by its form: what it asks ends with
/// a question mark, or the request opens with a question word ("how many
/// characters per line r we allowed", "what's the rego number"). "Had the
/// boiler serviced today, £90" is not.
pub fn is_a_question(request: &str) -> bool {
    asked_part(request).ends_with('?') || topic::opens_a_question_word(request.trim())
}

/// True when the request's last clause opens with a question word and
/// gives no number ("what did we agree with the hotel per week for the
/// flowers", "the form wants lerato's car registration, what is it"): it
/// asks, and keeps nothing, however much its words sound like a note.
/// "what a night that was" exclaims; "when the alarm beeps the code is
/// 4512" tells.
pub fn closes_with_a_question(request: &str) -> bool {
    let last = imprint_text::words::last_filled(imprint_text::words::clauses(request));
    let words = imprint_text::words::plain(last);
    let exclaims = words.first().is_some_and(|w| w == "what")
        && words.get(1).is_some_and(|w| w == "a" || w == "an");
    topic::opens_a_question_word(last) && !exclaims && !last.chars().any(|c| c.is_ascii_digit())
}

/// True when the request's first clause is a question, and a story
/// follows it ("hey whats the alarm code at the shop, the new girl is
/// locking up tonight"): it asks, whatever time or fact the story names.
/// The clause opens with a question word past an opener, which asks by
/// its grammar: with its "'s" ("whats", "where's"), before an auxiliary
/// ("when is", "what did"), or naming a thing ("which tablet", "how
/// much"). "When" and "where" before a subject join clauses ("when you
/// get a sec, …"), and "what a…" exclaims.
pub fn opens_with_a_question(request: &str) -> bool {
    let first = imprint_text::words::first_clause(request);
    let words: Vec<String> = imprint_text::words::plain(first)
        .into_iter()
        .skip_while(|w| courtesy::is_opener(w))
        .collect();
    let (Some(asking), Some(next)) = (words.first(), words.get(1)) else {
        return false;
    };
    if !crate::common_words::is_question_word(asking) {
        return false;
    }
    let contracted = crate::common_words::is_question_word_with_its_is(asking);
    let joins_clauses = matches!(asking.as_str(), "when" | "where");
    let exclaims = matches!(next.as_str(), "a" | "an");
    contracted
        || crate::common_words::is_auxiliary(next)
        || !(joins_clauses || exclaims || imprint_text::pronouns::is_speaking_subject(next))
}

/// True when the request's first clause asks for a detail people keep,
/// politely and without giving it ("number for yaw pls, the fuse box is
/// acting up again", "nif number please - the hotel wants it"): a request
/// to be told, whatever fact the story after it tells.
pub fn asks_politely_for_a_detail(request: &str) -> bool {
    let first = imprint_text::words::first_clause(request);
    let words = imprint_text::words::plain(first);
    words.last().is_some_and(|w| courtesy::is_polite(w))
        && !first.chars().any(|c| c.is_ascii_digit())
        && asks_a_kept_detail(first)
}

/// True when a clause after a short lead-in opens with a question word
/// and ends the request ("quick one - what does SRT stand for, like the
/// subtitle file"): a question too, though less surely than
/// [`is_a_question`] ("fyi, when the alarm beeps the code is 4512" is a
/// fact). Read only when the request gives no fact of its own.
pub fn may_be_a_question(request: &str) -> bool {
    let request = request.trim();
    let asked = asked_part(request);
    // `asked` is a part of `request`: where it starts.
    let start = asked.as_ptr() as usize - request.as_ptr() as usize;
    is_a_question(request)
        || (start > 0
            && start + asked.len() == request.len()
            && imprint_text::words::plain(&request[..start]).len() <= 3
            && topic::opens_a_question_word(asked))
}

/// True for a verb of going, meeting or bringing ("take", "visiting").
pub(crate) fn is_doing(word: &str) -> bool {
    topic::is_doing(word)
}

/// True for a verb of an act Imprint has no tool for ("email", "pay").
pub(crate) fn is_act_it_cannot_do(word: &str) -> bool {
    CANNOT_DO.contains(&word)
}

/// Judges what a request asks for.
pub fn classify(request: &str) -> Plan {
    let words = imprint_text::words::plain(request);
    let plan = |kind, reason| Plan { kind, reason };
    // "What did I note about hosting?" asks what was kept; "Can you
    // remind me…" asks for a reminder.
    // "hey whats the alarm code…": an opener comes before the question.
    let asks_what = words
        .iter()
        .find(|w| !courtesy::is_opener(w))
        .is_some_and(|w| opens_a_question(w))
        || ends_asking(request);
    // "Remind me what my national insurance number is" asks what was
    // kept, not for a reminder.
    let recall = words
        .windows(3)
        .any(|w| w[0].starts_with("remind") && w[1] == "me" && opens_a_question(&w[2]));
    if recall {
        return plan(Kind::Question, PlanReason::AsksWhatWasKept);
    }
    if !asks_what && grounding::asks_for_reminder(request) {
        return plan(Kind::Remind, PlanReason::AsksToBeReminded);
    }
    if !asks_what && grounding::asks_to_save(request) {
        return plan(Kind::Save, PlanReason::AsksToKeep);
    }
    if let Some(verb) = opening_verb(&words).filter(|v| CANNOT_DO.contains(&v.as_str())) {
        // "can u send me ama's number", "text me the wifi password": a
        // detail sent to the user asks to be told it, which a reply does.
        let to_the_user = words
            .iter()
            .skip_while(|w| **w != verb)
            .nth(1)
            .is_some_and(|w| w == "me");
        if !(to_the_user && asks_a_kept_detail(request)) {
            return plan(Kind::CannotDo { verb }, PlanReason::AsksAnActItCannotDo);
        }
    }
    // "hi", "hmm", or only emoji ("👋😊"): no word that names anything.
    // Greetings, thanks and the project list in other words are the
    // examples' to tell ([`crate::meaning::route`]).
    if words.len() <= 6 && words.iter().all(|w| courtesy::names_nothing(w)) {
        return plan(Kind::SmallTalk, PlanReason::NamesNothing);
    }
    plan(Kind::Question, PlanReason::AsksSomething)
}

/// The request's first word past politeness ("Could you please move…" →
/// "move"), if it opens with one.
fn opening_verb(words: &[String]) -> Option<String> {
    words
        .iter()
        .find(|w| !BEFORE_VERB.contains(&w.as_str()) && !courtesy::is_courtesy(w))
        .cloned()
}

/// True when the request is about the user's own life: it says "my", "we"
/// or the like, or names someone's thing ("the plumber's number",
/// "Marta's birthday"). A question with neither ("What's the capital of
/// Australia?", "Say hello in French.") is general knowledge, unless the
/// memories hold something about it.
pub fn is_personal(request: &str) -> bool {
    // Whose the story around the question is says nothing of whose the
    // question is ("what kind of drug is meloxicam anyway? the vet said
    // it's for moss's hips").
    let words = imprint_text::words::plain(asking_clause(request));
    words.iter().enumerate().any(|(i, w)| {
        // "tell me a story", "give me an example": "me" after a verb of
        // telling asks for something, not about the user's life.
        let told = w == "me"
            && i > 0
            && matches!(
                words[i - 1].as_str(),
                "tell" | "give" | "show" | "teach" | "write"
            );
        (imprint_text::pronouns::is_first_person(w) && !told)
            // "what's his number": someone's in the user's life.
            || imprint_text::pronouns::says_someone_elses(w)
            || (w.ends_with("'s") && w.len() > 3 && !crate::common_words::is_function_word(w))
    }) || asks_a_kept_detail(request)
}

/// True when the request says something is the user's own: "my", "our",
/// "mine" ("my blood type is O negative"). "Me" and "I" do not: "thanks,
/// you saved me a trip" is said to Imprint, of nothing the user keeps.
pub fn says_its_the_users_own(request: &str) -> bool {
    imprint_text::words::plain(request).iter().any(|w| {
        imprint_text::pronouns::is_first_person(w) && imprint_text::pronouns::says_whose(w)
    })
}

/// True when the request asks for a detail people keep about their own
/// things: "the number of the plumber", "the booking ref for the car
/// hire" (a thing named, and its number, code or address asked for).
pub fn asks_a_kept_detail(request: &str) -> bool {
    Topic::of(request, &[])
        .asked
        .iter()
        .any(|w| is_kept_detail(w))
}

/// True when a save names a detail without giving it: "Save the
/// allotment gate code", "Write down the password hint for the account"
/// (`named`: what the request says to keep). A digit, an "is", a colon or
/// an address gives it ("the PIN 4321", "Anna's email is …").
pub fn names_a_detail_without_it(request: &str, named: &str) -> bool {
    let words = imprint_text::words::plain(named);
    let gives = named
        .chars()
        .any(|c| c.is_ascii_digit() || c == '@' || c == ':')
        || words
            .iter()
            .any(|w| matches!(w.as_str(), "is" | "are" | "was" | "=" | "means"));
    !gives && Topic::of(request, &[]).detail().is_some()
}

#[cfg(test)]
mod tests;
