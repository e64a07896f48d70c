//! Whether a memory holds a topic: names the thing asked about, holds
//! what of it is asked, and how much of the request's words it says.

use super::*;

impl Topic {
    /// How well `content` answers: the number of naming runs it holds
    /// whole (a run of three or more may miss one word); 0 when it holds
    /// none, or holds part of a run and no whole one (a near miss).
    /// The words of the story told after the question that it holds
    /// count too, to tell two memories apart.
    pub fn score(&self, content: &str) -> usize {
        let whole = self.whole_runs(content);
        let words = content_words(content);
        let told = self.context.iter().filter(|w| holds(&words, w)).count();
        whole + usize::from(whole > 0) * told
    }

    /// The naming runs of the asking clause `content` holds whole (see
    /// [`Topic::score`]).
    fn whole_runs(&self, content: &str) -> usize {
        let words = content_words(content);
        if !self.owners.iter().all(|owner| holds(&words, owner)) {
            return 0;
        }
        let is_held =
            |w: &String| holds(&words, w) || (self.named_by_asking && held_by_shape(w, content));
        let held = |run: &[String]| run.iter().filter(|w| is_held(w)).count();
        // Of three words or more, one may be missing, but not the thing
        // someone's it is ("avo carlos's car" is not his address).
        let lenient = |run: &[String]| {
            run.len() >= 3
                && !run
                    .windows(2)
                    .any(|pair| self.owners.contains(&pair[0]) && !is_held(&pair[1]))
        };
        self.runs
            .iter()
            .filter(|run| held(run) + usize::from(lenient(run)) >= run.len())
            .count()
    }

    /// True when `content` holds half or more of the words of every naming
    /// run of two words or more from the question word on ("car hire" of
    /// "the booking ref for our car hire in lisbon"; not "Mama Zodwa" of
    /// "Mama Zodwa wants to know when we fly out"): a memory that holds
    /// less of the thing's name is another thing's, whatever place or
    /// detail it shares ("Electricity account" is near "the electricity
    /// company", the Lisbon flight is not near the car hire, Helgi's
    /// arrival is not "helgi fly back").
    pub fn touches_every_compound(&self, content: &str) -> bool {
        let words = content_words(content);
        self.asked_runs
            .iter()
            .filter(|run| run.len() >= 2)
            .all(|run| 2 * run.iter().filter(|w| holds(&words, w)).count() >= run.len())
    }

    /// True when `content` holds every naming word, or all but one of
    /// three or more ("the roadmap meeting on the 19th"); a word matches
    /// its plural or other endings, as [`crate::grounding::reference`]
    /// matches them.
    pub fn named_in(&self, content: &str) -> bool {
        // Every run: the Lisbon flight's booking reference is no answer
        // for "the booking ref for my hotel in Lisbon".
        self.whole_runs(content) >= self.runs.len().max(1)
    }

    /// True unless `content` is a near miss the request's words rule out:
    /// it lacks whose the thing is ("mum's wifi" in "Home Wi-Fi password"),
    /// or holds a word of a run but not its last, which says what kind of
    /// thing it is ("Felix has guitar lessons" for "Felix's guitar exam").
    /// What a memory near in meaning must pass to answer in its own words
    /// ("Painter agreed £2,350" for "paying the painter"; "Alan paid a
    /// deposit" for "how much deposit did Alan pay").
    pub fn heads_in(&self, content: &str) -> bool {
        let words = content_words(content);
        let held = |word: &String| holds(&words, word);
        // "duarte's violin lesson": what is his must be held, not only
        // its kind.
        let owned_held = |run: &[String]| {
            !run.windows(2)
                .any(|p| self.owners.contains(&p[0]) && !held(&p[1]))
        };
        self.owners.iter().all(held)
            && self.asked_runs.iter().all(|run| owned_held(run))
            && self.asked_runs.iter().all(|run| match run.split_last() {
                // A verb's run ("did Alan pay") names no kind of thing.
                Some((head, before))
                    if !before.is_empty() && !crate::grounding::is_a_verb_of_doing(head) =>
                {
                    held(head) || !before.iter().any(held)
                }
                _ => true,
            })
    }

    /// True when `content` holds whose the thing asked about is ("kari"
    /// of "kari's concert"); true when the request says no one's.
    pub fn owners_in(&self, content: &str) -> bool {
        let words = content_words(content);
        self.owners.iter().all(|owner| holds(&words, owner))
    }

    /// The naming words `content` does not hold.
    pub fn names_not_held(&self, content: &str) -> Vec<&String> {
        let words = content_words(content);
        self.names
            .iter()
            .filter(|name| !holds(&words, name))
            .collect()
    }

    /// How many words of `request` that name or say anything `content`
    /// holds, its story's too: no function word, question word, verb of
    /// asking or detail asked ("number", "code"), which a memory may say
    /// or hold by its shape alike.
    pub fn request_words_held(request: &str, content: &str) -> usize {
        let words = content_words(content);
        let mut said = imprint_text::words::plain(request);
        said.sort();
        said.dedup();
        said.iter()
            .filter(|w| {
                !crate::common_words::is_function_word(w)
                    && !crate::common_words::is_question_word(w)
                    && !crate::common_words::is_asking_verb(w)
                    && asked(w).is_none()
            })
            .filter(|w| holds(&words, w))
            .count()
    }

    /// How many of the naming words `content` holds.
    pub fn names_held(&self, content: &str) -> usize {
        let words = content_words(content);
        self.names.iter().filter(|name| holds(&words, name)).count()
    }

    /// True when `content` says a thing the request names is someone
    /// else's by a name ("Rui's NIF: …" for "my NIF").
    pub fn anothers_in(&self, content: &str) -> bool {
        let words = imprint_text::words::plain(content);
        words.windows(2).any(|pair| {
            pair[0].strip_suffix("'s").is_some_and(|owner| {
                !imprint_text::pronouns::says_whose(owner) && !self.names.iter().any(|n| n == owner)
            }) && self.names.iter().any(|name| holds(&pair[1..], name))
        })
    }

    /// True when what is asked of someone is held only as another's: each
    /// sentence of `content` holding it names another by a possessive and
    /// not the one asked about ("lene's phone no?" and "Einar and Lene
    /// land on Sunday. Einar's mobile: +47 915 42 873").
    pub fn asked_of_another(&self, content: &str) -> bool {
        if self.owners.is_empty() || self.asked.is_empty() {
            return false;
        }
        let mut holding = imprint_text::words::sentences(content)
            .filter(|sentence| self.asked_in(sentence))
            .peekable();
        holding.peek().is_some()
            && holding.all(|sentence| {
                let words = content_words(sentence);
                let anothers = imprint_text::words::plain(sentence).iter().any(|word| {
                    word.strip_suffix("'s").is_some_and(|whose| {
                        !imprint_text::pronouns::says_whose(whose)
                            && !self
                                .owners
                                .iter()
                                .any(|owner| holds(&[whose.to_string()], owner))
                    })
                });
                anothers && !self.owners.iter().any(|owner| holds(&words, owner))
            })
    }

    /// True when `content` holds what is asked ("the number": a phone, a
    /// landline, a "tel"); true when nothing in particular is asked.
    pub fn asked_in(&self, content: &str) -> bool {
        // "Pa Njie (no relation)": "no" is a number only as "no." is.
        let content: String = content
            .split_whitespace()
            .filter(|token| {
                let core = token.trim_matches(|c: char| !c.is_alphanumeric());
                !core.eq_ignore_ascii_case("no") || token.ends_with('.')
            })
            .collect::<Vec<_>>()
            .join(" ");
        let content = content.as_str();
        let words = content_words(content);
        let is = |wanted: Wanted| {
            self.asked
                .iter()
                .any(|w| asked(w).is_some_and(|(a, _)| a == wanted))
        };
        // "Padraig next door at no. 16": a number, but no one's phone.
        if is(Wanted::Phone) && !has_phone_number(content) {
            return false;
        }
        self.asked.is_empty()
            || self.asked.iter().any(|w| holds(&words, w))
            // "Plumber: Jan, 0176 555 1234" holds a number without saying so.
            || ((is(Wanted::Number) || is(Wanted::Phone)) && holds_a_number(content))
            // A phone written in pairs ("90 47 21 36", as in Togo or
            // France) is a phone or a number, but no code or PIN.
            || ((is(Wanted::Phone) || self.asked.iter().any(|w| asks_a_phone_or_any_number(w)))
                && has_phone_number(content))
            // "Sofa from Loft & Co, £1,240" holds what it cost.
            || (is(Wanted::Amount) && holds_an_amount(content))
            // "Company van: white Transit, GR 3847-19" holds its plate.
            || (is(Wanted::Registration) && holds_a_registration(content))
            // "Producer: Ben Harrow, ben.harrow@lumen.com.au" holds his email.
            || (is(Wanted::Email)
                && content
                    .split_whitespace()
                    .any(|w| w.contains('@') && w.contains('.')))
            // A day: a month's name, or a date in digits ("23/3", "2027-06-30").
            || (is(Wanted::Day)
                && (words.iter().any(|w| crate::grounding::when::month(w).is_some())
                    || content.split_whitespace().any(is_date_in_digits)))
    }

    /// True when what is asked is a number, a code or a date ("the
    /// plumber's number", "when does it run out"): an answer without a
    /// digit does not say it.
    pub fn wants_digits(&self) -> bool {
        self.asked.iter().any(|w| asks_digits(w))
    }
}
