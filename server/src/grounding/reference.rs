//! References the user left unnamed: "the meeting", "the document I
//! mentioned", "the thing we discussed", "last time", "the account", "the
//! usual", or a pronoun ("it", "her") with nothing before it.
//!
//! [`find`] reads such a reference from a request, with the words to look
//! it up by in the user's memories; [`Reference::need`] turns what that
//! search found into what Imprint does before the model starts: one match
//! is used as it is, several distinct ones become a question whose
//! options are the candidates (a short label with its date), and none
//! becomes an open question saying nothing was found.
//!
//! A thing named in the request ("the billing meeting", "the meeting with
//! Anna") is no such reference, nor is a pronoun whose thing the request
//! or the conversation already named ("find the invoice and send it").

use chrono::DateTime;

use super::Need;
use crate::store::Memory;

/// How a reference points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pointer {
    /// A kind of thing named by a noun: "the meeting", "my colleague";
    /// `called` is how the question names it ("Which meeting …?").
    Thing { called: &'static str },
    /// A pronoun with nothing before it; `person`: "he", "her", "them".
    Pronoun { person: bool },
    /// Earlier words of no kind: "last time", "the thing we discussed".
    Earlier,
}

/// An unnamed reference in a request.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// The user's words for it: "the meeting", "it", "last time".
    pub phrase: String,
    pub pointer: Pointer,
    /// The words to look it up by in the memories (any may match); empty
    /// when the request gives nothing to look up.
    pub search: Vec<String>,
    /// The request asks to write something (save, remind).
    pub write: bool,
}

/// A thing a reference may point at: memories that read as one thing.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The option's text: "Billing meeting (12 Nov)".
    pub label: String,
    /// Its memories as the model reads them: "[3] (Billing, 2026-11-12) …".
    pub memories: Vec<String>,
}

/// What a search for a reference comes to.
#[derive(Clone, Debug, PartialEq)]
pub enum Lookup {
    /// One thing: the model works with it, nothing is asked.
    One(Candidate),
    /// Several things, or none: Imprint asks.
    Ask(Need),
}

/// The candidates offered as options at most.
pub const MAX_OPTIONS: usize = 4;

/// Memories a reference's search reads at most.
pub const SEARCH_LIMIT: usize = 20;

/// Nouns that name a kind of thing, and how a question names the kind.
/// A reference is looked up by every word of its group ("the meeting"
/// finds a "sync" too); "the thing" names no kind, and is looked up by
/// the request's topic instead.
#[rustfmt::skip]
const NOUNS: &[(&[&str], &str)] = &[
    (&["meeting", "meetings", "call", "sync", "standup", "stand-up", "catch-up", "catchup",
       "interview", "appointment"], "meeting"),
    (&["document", "documents", "doc", "docs", "file", "report", "spec", "draft", "pdf",
       "presentation", "slides", "contract", "proposal", "article", "paper"], "document"),
    (&["account", "accounts", "login"], "account"),
    (&["usual"], "usual"),
    (&["colleague", "coworker", "co-worker"], "colleague"),
    (&["client", "customer"], "client"),
    (&["thing", "one", "stuff"], "thing"),
];

/// True for a noun that names a kind of thing ("meeting", "docs"), not
/// which one.
pub fn names_a_kind(word: &str) -> bool {
    NOUNS.iter().any(|(group, _)| group.contains(&word))
}

/// Words that point at a thing named earlier: "the meeting", "my account".
const DETERMINERS: &[&str] = &["the", "that", "this", "my", "our", "those", "these"];

/// True for a word that points at a thing by where it is ("that",
/// "this", "those", "these"): alone, it stands for something said before.
pub(crate) fn is_demonstrative(word: &str) -> bool {
    is_determiner(word) && word != "the" && !imprint_text::pronouns::says_whose(word)
}

/// True for a word that points at a thing ("the", "this", "our"): the
/// word after it is a noun.
pub(crate) fn is_determiner(word: &str) -> bool {
    DETERMINERS.contains(&word)
}

/// True when `word`, after a noun (then a word of its own), names which
/// one: a preposition ("the meeting with Anna", "the document about
/// hosting") or a naming verb ("the file called budget"). "To" says
/// where the thing goes ("send the report to Anna"), not which it is.
fn qualifies(word: &str) -> bool {
    (imprint_text::words::is_preposition(word) && word != "to")
        || matches!(word, "titled" | "called" | "named")
}

/// True when `word`, before a pronoun, makes it an object: a verb of
/// doing ("send it", "pay it", "call him"), or a preposition or "do" that
/// takes one ("about it", "do it"). A pronoun after "and", "if" or "when"
/// is a subject, and one after a verb of no kind Imprint knows ("plan
/// it, and note that planning started") is left to the model.
fn takes_an_object(word: &str) -> bool {
    imprint_text::words::is_preposition(word) || super::is_a_verb_of_doing(word)
}

/// After "is it" or "was it", the words that make "it" a thing: "when is
/// it due?" (not "what time is it?").
#[rustfmt::skip]
const SAID_OF_IT: &[&str] = &[
    "due", "done", "ready", "finished", "scheduled", "booked", "saved", "happening", "over",
];

/// After "that" or "this", the words that leave it a pronoun ("move that
/// to Friday"), not a determiner or a conjunction ("that Anna called").
#[rustfmt::skip]
const AFTER_DEMONSTRATIVE: &[&str] = &[
    "to", "for", "on", "at", "by", "again", "tomorrow", "next", "in", "later", "please", "up",
    "back", "too", "now", "today", "tonight", "before", "after", "when", "until", "every", "each",
    "daily", "weekly", "and", "once",
];

/// True when `phrase` is a pronoun of a person, alone or contracted with
/// its verb ("he", "her", "he's", "she’d").
pub fn is_person_pronoun(phrase: &str) -> bool {
    imprint_text::pronouns::is_of_a_person(&phrase.trim().to_lowercase())
}

/// `content` (a note to keep) with its first pronoun of a person ("he's",
/// "her") named as the person the user chose from `memory` ("fyi he's
/// allergic to bee stings too", Sipho chosen: "fyi Sipho's allergic to
/// bee stings too"): a memory must say whom it is about on its own. The
/// person is the first name `memory` writes with a capital (a run of them,
/// "Priya Naidoo"), past function words ("Our", "My"). `None` when the
/// content has no such pronoun or the memory names no one.
pub fn with_the_person_named(content: &str, memory: &str) -> Option<String> {
    let person = first_name_run(memory)?;
    let mut words = content.split(' ').peekable();
    let mut out: Vec<String> = Vec::new();
    let mut named = false;
    while let Some(token) = words.next() {
        let after_a_verb = out.last().is_some_and(|before| {
            imprint_text::words::plain(before).last().is_some_and(|w| {
                crate::common_words::is_asking_verb(w) || super::is_a_verb_of_doing(w)
            })
        });
        let start = token.find(char::is_alphabetic).unwrap_or(token.len());
        let end = token
            .rfind(|c: char| c.is_alphanumeric())
            .map_or(start, |i| i + 1);
        let (lead, word, tail) = (
            &token[..start],
            &token[start..end.max(start)],
            &token[end.max(start)..],
        );
        let plain = word.to_lowercase().replace('’', "'");
        let next_names_a_thing = words.peek().is_some_and(|next| {
            let next = imprint_text::words::plain(next);
            next.first()
                .is_some_and(|w| !crate::common_words::is_function_word(w))
        });
        let replaced = match plain.as_str() {
            _ if named => None,
            "he" | "she" | "him" => Some(person.clone()),
            "his" | "hers" => Some(format!("{person}'s")),
            // "her number" is whose; "call her back" is whom.
            "her" if next_names_a_thing && !after_a_verb => Some(format!("{person}'s")),
            "her" => Some(person.clone()),
            _ => ["he'", "she'"]
                .iter()
                .find_map(|p| plain.strip_prefix(p))
                .map(|clitic| format!("{person}'{clitic}")),
        };
        match replaced {
            Some(name) => {
                named = true;
                out.push(format!("{lead}{name}{tail}"));
            }
            None => out.push(token.to_string()),
        }
    }
    named.then(|| out.join(" "))
}

/// The first run of capitalised words in `text` that are no function
/// words: "Sipho" of "Sipho is allergic to peanuts", "Priya Naidoo" of
/// "Priya Naidoo is the accountant", "Thabo" of "My partner Thabo drives".
fn first_name_run(text: &str) -> Option<String> {
    let mut run: Vec<&str> = Vec::new();
    for token in text.split_whitespace() {
        let bare = token.trim_matches(|c: char| !c.is_alphanumeric());
        let word = bare
            .strip_suffix("'s")
            .or_else(|| bare.strip_suffix("’s"))
            .unwrap_or(bare);
        if !namesakes::is_capitalised(word) {
            if run.is_empty() {
                continue;
            }
            break;
        }
        run.push(word);
        // A mark after the word ends the name ("Thabo's", "Sipho,"), but
        // a title's full stop does not ("Dr. Abrahams").
        let title = token.ends_with('.') && word.chars().count() <= 3;
        if token != word && !title {
            break;
        }
    }
    (!run.is_empty()).then(|| run.join(" "))
}

/// Function words, the verbs of asking, the words for what Imprint
/// keeps, courtesy, and the words of a time other than a month's name:
/// neither a topic to look up nor a thing a pronoun could stand for.
fn is_stop(word: &str) -> bool {
    crate::common_words::names_nothing_kept(word)
        || super::courtesy::names_nothing(word)
        || (super::when::is_time_word(word) && super::when::month(word).is_none())
        || word.chars().all(|c| c.is_ascii_digit())
}

/// Finds an unnamed reference in `request`. `earlier` is the conversation
/// before it (empty in a new chat): a pronoun after earlier turns, or a
/// kind of thing those turns already named, is no reference. `projects`
/// are the user's projects (named ones filter the search, and are no
/// topic).
pub fn find(request: &str, earlier: &str, projects: &[String]) -> Option<Reference> {
    let write = super::asks_to_save(request) || super::asks_for_reminder(request);
    // "Save a memory: the meeting moved": what follows the colon is what
    // to save, not a reference to look up.
    let scope = if super::asks_to_save(request) {
        request.split(':').next().unwrap_or(request)
    } else {
        request
    };
    let words = imprint_text::words::plain(scope);
    let earlier_words = imprint_text::words::plain(earlier);
    let topic = |skip: &[&str]| topic_of(&words, skip, projects);
    if let Some((at, group, called)) = thing_reference(&words) {
        let said_before = earlier_words.iter().any(|w| group.contains(&w.as_str()));
        if !said_before {
            let phrase = phrase_from(&words, at);
            let search = if called == "thing" {
                // "The thing we discussed" names no kind: its topic, if any.
                topic(group)
            } else {
                group.iter().map(|w| w.to_string()).collect()
            };
            let pointer = if called == "thing" {
                Pointer::Earlier
            } else {
                Pointer::Thing { called }
            };
            return Some(Reference {
                phrase,
                pointer,
                search,
                write,
            });
        }
    }
    // "Save this: …", "remind me about this: …": the colon names it.
    if earlier.trim().is_empty() && !request.contains(':') {
        if let Some((at, person)) = pronoun(&words) {
            return Some(Reference {
                phrase: words[at].clone(),
                pointer: Pointer::Pronoun { person },
                search: topic(&[]),
                write,
            });
        }
    }
    if let Some(phrase) = earlier_phrase(&words) {
        return Some(Reference {
            phrase: phrase.to_string(),
            pointer: Pointer::Earlier,
            search: topic(&[]),
            write,
        });
    }
    None
}

/// The words to look a request's topic up by in the memories: neither a
/// function word, a verb of asking, nor a project's name ("What's Marta's
/// phone number?" → marta, phone, number). Empty when it names nothing.
pub fn topic(request: &str, projects: &[String]) -> Vec<String> {
    topic_of(&imprint_text::words::plain(request), &[], projects)
}

fn topic_of(words: &[String], skip: &[&str], projects: &[String]) -> Vec<String> {
    // The words of a project the request names (whole, or by two of its
    // words: "the van zyl job") say where to look, not what; one word of
    // a longer name said alone names a thing ("the van's registration"
    // with a "Van Zyl wedding" project).
    let project_words: Vec<String> = projects
        .iter()
        .map(|p| imprint_text::words::plain(p))
        .filter(|name| {
            let said = name.iter().filter(|w| words.contains(w)).count();
            said == name.len() || said >= 2
        })
        .flatten()
        .collect();
    let mut topic: Vec<String> = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let plain = word.trim_end_matches("'s");
        // "the booking ref", "my blood pressure reading": a verb's "-ing"
        // after a determiner names a thing, as a verb of asking does
        // ("the meter at the store", "the call with Dana"), unless it is
        // a word for what Imprint keeps ("my notes").
        let named_thing = (plain.ends_with("ing")
            || (crate::common_words::is_asking_verb(plain)
                && !crate::common_words::is_kept_thing(plain)))
            && i > 0
            && (DETERMINERS.contains(&words[i - 1].as_str())
                || imprint_text::pronouns::says_whose(&words[i - 1]))
            && !crate::common_words::is_function_word(plain);
        if (is_stop(plain) && !named_thing)
            || skip.contains(&plain)
            || project_words.iter().any(|p| p == plain)
            || topic.iter().any(|t| t == plain)
            || plain.len() < 2
        {
            continue;
        }
        topic.push(plain.to_string());
    }
    topic
}

/// True when a memory is about a request's topic (see [`topic`]): it holds
/// every word of it, or all but one of three or more ("Marta's phone
/// number" and "My usual: flat white with oat milk" of "order a flat white
/// with oat milk"). A word matches its plural or other endings ("meeting",
/// "meetings").
pub fn is_about(memory: &Memory, topic: &[String]) -> bool {
    content_is_about(&memory.content, topic)
}

/// [`is_about`] for a memory's content alone.
pub fn content_is_about(content: &str, topic: &[String]) -> bool {
    if topic.is_empty() {
        return false;
    }
    let may_miss = usize::from(topic.len() >= 3);
    content_words_held(content, topic) + may_miss >= topic.len()
}

/// How many of the topic's words a memory holds (see [`is_about`]).
pub fn words_held(memory: &Memory, topic: &[String]) -> usize {
    content_words_held(&memory.content, topic)
}

pub fn content_words_held(content: &str, topic: &[String]) -> usize {
    let words = imprint_text::words::plain(content);
    topic
        .iter()
        .filter(|t| {
            words.iter().any(|w| {
                let w = w.trim_end_matches("'s");
                w == t.as_str()
                    || (w.len().min(t.len()) >= 4
                        && (w.starts_with(t.as_str()) || t.starts_with(w)))
            })
        })
        .count()
}

/// A noun of [`NOUNS`] right after a determiner ("the meeting"), with
/// nothing naming which: where the determiner is, the noun's group and
/// what it is called. "Remind me to call" is no reference: a verb has no
/// determiner before it.
fn thing_reference(words: &[String]) -> Option<(usize, &'static [&'static str], &'static str)> {
    for (i, word) in words.iter().enumerate().skip(1) {
        let Some((group, called)) = NOUNS
            .iter()
            .find(|(group, _)| group.contains(&word.as_str()))
        else {
            continue;
        };
        // "the one" only as "the one I …" / "the one we …".
        if word == "one"
            && !words
                .get(i + 1)
                .is_some_and(|w| imprint_text::pronouns::is_speaking_subject(w))
        {
            continue;
        }
        if !DETERMINERS.contains(&words[i - 1].as_str()) || is_named_after(words, i) {
            continue;
        }
        return Some((i - 1, group, called));
    }
    None
}

/// True when the words after the noun at `i` say which one: "the meeting
/// with Anna", "the document about hosting", "the doc on Friday".
fn is_named_after(words: &[String], i: usize) -> bool {
    let Some(next) = words.get(i + 1) else {
        return false;
    };
    if !qualifies(next) {
        // "The doctor appointment", "the account number": the noun names
        // a kind of the next word, which says more than the noun alone.
        return !is_stop(next.trim_end_matches("'s"));
    }
    // The qualifier's own word, past a determiner: "with the client".
    words[i + 2..]
        .iter()
        .find(|w| !DETERMINERS.contains(&w.as_str()) && !matches!(w.as_str(), "a" | "an"))
        .is_some_and(|w| !matches!(w.as_str(), "it" | "that" | "this" | "them"))
}

/// The user's words for a thing reference at `at`: the determiner and
/// noun, and a short clause after them that says where it came from ("I
/// mentioned", "we discussed", "I care about").
fn phrase_from(words: &[String], at: usize) -> String {
    let mut end = at + 2;
    if words
        .get(end)
        .is_some_and(|w| imprint_text::pronouns::is_speaking_subject(w))
        && end + 1 < words.len()
    {
        end += 2;
        if matches!(
            words.get(end).map(String::as_str),
            Some("about" | "of" | "on")
        ) {
            end += 1;
        }
    }
    words[at..end.min(words.len())]
        .iter()
        .map(|w| if w == "i" { "I" } else { w.as_str() })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A pronoun with nothing before it in the request that it could stand
/// for: where it is, and whether it stands for a person.
fn pronoun(words: &[String]) -> Option<(usize, bool)> {
    for (i, word) in words.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| words[j].as_str());
        let after = words.get(i + 1).map(String::as_str);
        // "he's", "she'd": the pronoun, contracted with its verb.
        let person = is_person_pronoun(word);
        let object = before.is_some_and(takes_an_object);
        let is_pronoun = match word.as_str() {
            // "When is it due?": a subject with what is said of it.
            "it" if before.is_some_and(|b| matches!(b, "is" | "was" | "will" | "does" | "did")) => {
                after.is_some_and(|a| SAID_OF_IT.contains(&a))
            }
            "it" => object,
            w if is_demonstrative(w) => {
                object && after.is_none_or(|a| AFTER_DEMONSTRATIVE.contains(&a))
            }
            "them" => object,
            _ => person,
        };
        if !is_pronoun {
            continue;
        }
        // Something the request named before it is what it stands for.
        // The verb that takes it names nothing ("pay it", "email him"); a
        // name before one still does ("tell Anna her number").
        let verb_before = before.is_some_and(super::is_a_verb_of_doing);
        let end = if verb_before { i - 1 } else { i };
        let named_before = words[..end].iter().any(|w| {
            let plain = w.trim_end_matches("'s");
            !is_stop(plain)
        });
        if named_before {
            return None;
        }
        return Some((i, person && word != "them"));
    }
    None
}

/// "last time", "the other day", "what I mentioned", "we talked about".
fn earlier_phrase(words: &[String]) -> Option<&'static str> {
    const PHRASES: &[(&[&str], &str)] = &[
        (&["last", "time"], "last time"),
        (&["the", "other", "day"], "the other day"),
        (&["i", "mentioned"], "what I mentioned"),
        (&["we", "discussed"], "what we discussed"),
        (&["we", "talked", "about"], "what we talked about"),
        (&["you", "told", "me"], "what you told me"),
        (&["as", "before"], "as before"),
    ];
    PHRASES
        .iter()
        .find(|(phrase, _)| words.windows(phrase.len()).any(|w| w == *phrase))
        .map(|(_, said)| *said)
}

impl Reference {
    /// What the memories a search found for this reference come to.
    /// `hits` are best first.
    pub fn need(&self, hits: &[Memory]) -> Lookup {
        // "when's his birthday?" with the family's birthdays kept in one
        // memory: "his" means one of the people they name, not a memory.
        let people = match self.pointer {
            Pointer::Pronoun { person: true } => namesakes::people(hits),
            _ => Vec::new(),
        };
        let mut candidates = if people.is_empty() {
            candidates(hits)
        } else {
            people
        };
        if candidates.len() == 1 {
            return Lookup::One(candidates.remove(0));
        }
        candidates.truncate(MAX_OPTIONS);
        Lookup::Ask(Need::Reference {
            question: self.question(!candidates.is_empty()),
            phrase: self.phrase.clone(),
            candidates,
        })
    }

    fn question(&self, several: bool) -> String {
        let phrase = &self.phrase;
        if several {
            return match self.pointer {
                Pointer::Thing { called: "usual" } => "Which one is “the usual”?".into(),
                Pointer::Thing { called } => format!("Which {called} do you mean?"),
                Pointer::Pronoun { person: true } => format!("Who do you mean by “{phrase}”?"),
                Pointer::Pronoun { person: false } | Pointer::Earlier => {
                    format!("Which one do you mean by “{phrase}”?")
                }
            };
        }
        let nothing = format!("I found nothing in your memories for “{phrase}”.");
        let ask = match self.pointer {
            Pointer::Pronoun { person: true } => format!("Who do you mean by “{phrase}”?"),
            _ if self.write => format!("What do you mean by “{phrase}”?"),
            Pointer::Thing {
                called: "usual" | "thing",
            } => {
                format!("What do you mean by “{phrase}”?")
            }
            Pointer::Thing { called } => format!("Which {called} do you mean?"),
            _ => format!("What do you mean by “{phrase}”?"),
        };
        format!("{nothing} {ask}")
    }
}

/// The memories as distinct things, best first: memories whose labels
/// read the same (two notes of one meeting) are one candidate.
pub fn candidates(hits: &[Memory]) -> Vec<Candidate> {
    grouped_by(hits, |hit| Some(label(hit)))
}

/// The memories grouped by the label `label_of` gives each, in the order
/// first found (case aside, one label is one candidate); a memory it gives
/// none is left out.
pub fn grouped_by(hits: &[Memory], label_of: impl Fn(&Memory) -> Option<String>) -> Vec<Candidate> {
    let mut found: Vec<Candidate> = Vec::new();
    for hit in hits {
        let Some(label) = label_of(hit) else {
            continue;
        };
        let line = crate::memory_lines::memory_line(hit);
        match found
            .iter_mut()
            .find(|c| c.label.eq_ignore_ascii_case(&label))
        {
            Some(same) => same.memories.push(line),
            None => found.push(Candidate {
                label,
                memories: vec![line],
            }),
        }
    }
    found
}

/// One candidate a memory, for memories that each answer on their own:
/// where two would share a label ("York Glass co-op: the big kiln…",
/// "York Glass co-op: the small kiln…"), each is labelled by its words
/// after those they open with alike ("Big kiln is booked for me…").
pub fn distinct_candidates(hits: &[Memory]) -> Vec<Candidate> {
    let words: Vec<Vec<&str>> = hits
        .iter()
        .map(|m| m.content.split_whitespace().collect())
        .collect();
    let labels: Vec<String> = hits.iter().map(label).collect();
    hits.iter()
        .enumerate()
        .map(|(i, hit)| {
            let alike = (0..hits.len())
                .filter(|&j| j != i && labels[j].eq_ignore_ascii_case(&labels[i]))
                .map(|j| {
                    words[i]
                        .iter()
                        .zip(&words[j])
                        .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
                        .count()
                })
                .max();
            let label = match alike {
                Some(shared) if shared < words[i].len() => label(&Memory {
                    content: words[i][shared..].join(" "),
                    ..hit.clone()
                }),
                _ => labels[i].clone(),
            };
            Candidate {
                label,
                memories: vec![crate::memory_lines::memory_line(hit)],
            }
        })
        .collect()
}

/// Words of a label at most.
const LABEL_WORDS: usize = 6;

/// A short label: the memory's first clause (a few words), and the day it
/// was kept: "Billing meeting (12 Nov)".
fn label(memory: &Memory) -> String {
    let short = head(memory);
    match day_label(&memory.created_at) {
        Some(day) => format!("{short} ({day})"),
        None => short,
    }
}

/// An option for the event `memory` dates on several days, on `day` of
/// them: "Candle workshops on Sat 16 Jan".
pub fn label_on(memory: &Memory, day: chrono::NaiveDate) -> String {
    format!("{} on {}", head(memory), day.format("%a %-d %b"))
}

/// The first words of `memory`'s first clause, capitalised: what it is
/// about.
fn head(memory: &Memory) -> String {
    let content = memory.content.trim();
    let clauses: Vec<&str> = content
        .split([':', ';', '.', '—', '(', '\n'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    // A one-word head ("Thesis: the survey budget …") says too little.
    let mut head = clauses.first().copied().unwrap_or(content).to_string();
    if head.split_whitespace().count() < 2 {
        if let Some(next) = clauses.get(1) {
            head = format!("{head}: {next}");
        }
    }
    let words: Vec<&str> = head.split_whitespace().collect();
    let mut short = words[..words.len().min(LABEL_WORDS)].join(" ");
    short = short.trim_end_matches([',', ':', '-']).to_string();
    if words.len() > LABEL_WORDS {
        short.push('…');
    }
    let mut chars = short.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => short,
    }
}

/// "12 Nov" from a stored time.
fn day_label(created_at: &str) -> Option<String> {
    let t = DateTime::parse_from_rfc3339(created_at).ok()?;
    Some(t.format("%-d %b").to_string())
}

pub mod namesakes;

#[cfg(test)]
mod tests;
