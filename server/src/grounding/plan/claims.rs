//! The answer guard: an answer about the user's things may name a number,
//! a name, a date, a code or a place only when what backs it (the memories
//! found, the user's own words) holds it. The model picks and words; this
//! checks, and on a claim nothing backs Imprint answers from the memory
//! itself.

/// Class: the words of Imprint's own answers, besides function words,
/// that name nothing when capitalized ("Sure", "Unfortunately, …",
/// "According to your note …").
const ANSWER_WORDS: &[&str] = &[
    "according",
    "note",
    "memory",
    "memories",
    "saved",
    "noted",
    "said",
    "says",
    "say",
    "set",
    "sure",
    "imprint",
    "based",
    "unfortunately",
    "sorry",
    "however",
];

/// True for a word (lower case) of how an answer is built, not what it
/// says: it names nothing, capitalized or not.
fn says_nothing(word: &str) -> bool {
    crate::common_words::is_function_word(word) || ANSWER_WORDS.contains(&word)
}

/// The specific words of `answer` that nothing in `backing` holds: tokens
/// with a digit ("12345", "LM4T8R", "16:40"), and capitalized words inside
/// a sentence ("Jan", "Lisbon"). Empty when every claim is backed.
pub fn unbacked(answer: &str, backing: &[&str]) -> Vec<String> {
    let digits: Vec<String> = backing.iter().map(|text| digits_in(text)).collect();
    let backing: Vec<String> = backing
        .iter()
        .flat_map(|text| imprint_text::words::spans(text))
        .collect();
    let backed = |token: &str| {
        let plain = normalize(token);
        let number = digits_in(token);
        backing.iter().any(|b| normalize(b) == plain)
            // "0176 555 1234" backs "01765551234": a long number written
            // with other spacing is the same number.
            || (number.len() >= 4 && digits.iter().any(|d| d.contains(&number)))
    };
    let mut unbacked = Vec::new();
    for (token, opens_sentence) in sentence_words(answer) {
        let capital = starts_with_capital(token);
        let specific = has_digit(token)
            || (capital && !opens_sentence && !says_nothing(&token.to_lowercase()))
            // "Monday, 3 October …": a day named opening the answer is a
            // claim too.
            || (capital && crate::grounding::when::names_a_day(&token.to_lowercase()))
            || (token.len() >= 3 && token.chars().all(|c| c.is_ascii_uppercase()));
        if specific && !backed(token) && !unbacked.iter().any(|u| u == token) {
            unbacked.push(token.to_string());
        }
    }
    unbacked
}

/// The names `text` writes with a capital: words of three letters or more
/// with no other capital ("Theo", "Ashgrove"; not "PIN"), a possessive's
/// "'s" left off, inside a sentence unless `openings` ("School" opening
/// one). A question's names, read as the guard above reads an answer's:
/// a name the memories hold makes a question the user's own.
pub fn capitalized_names(text: &str, openings: bool) -> Vec<String> {
    sentence_words(text)
        .filter(|(_, opens)| openings || !opens)
        .map(|(word, _)| word.strip_suffix("'s").unwrap_or(word))
        .filter(|word| {
            starts_with_capital(word)
                && word.chars().skip(1).all(|c| !c.is_uppercase())
                && word.chars().count() >= 3
        })
        .map(str::to_string)
        .collect()
}

/// The names `text` writes alone with a capital inside a sentence, in
/// lower case: "Ciarán" in "Nana (Ciarán's mam) lives…" or "me, Ciarán,
/// Róisín and Finn", "Edinburgh" in "Flight to Edinburgh on Sunday"; not
/// a word of a longer name ("Ashgrove Primary School"), whose words are
/// often common ones.
/// How a request typed in lower case ("what shoe size is ciarán") still
/// names someone the memories know.
pub fn lone_names(text: &str) -> Vec<String> {
    let tokens: Vec<(&str, &str, bool)> = sentence_tokens(text).collect();
    let capital = |i: usize| {
        tokens
            .get(i)
            .is_some_and(|(_, word, _)| starts_with_capital(word))
    };
    // Two tokens run together as one name: no mark between them ("Dr
    // Hynes", "Primary School"; not "Bridie (Ciarán's", "Ciarán, Róisín").
    let joined = |i: usize| {
        let marked = |raw: &str, end: bool| {
            let mut chars = raw.chars();
            let edge = if end { chars.next_back() } else { chars.next() };
            edge.is_some_and(|c| !c.is_alphanumeric())
        };
        tokens
            .get(i + 1)
            .is_some_and(|(next, _, _)| !marked(tokens[i].0, true) && !marked(next, false))
            && capital(i)
            && capital(i + 1)
    };
    tokens
        .iter()
        .enumerate()
        .filter(|&(i, &(_, _, opens))| {
            !opens && capital(i) && !i.checked_sub(1).is_some_and(joined) && !joined(i)
        })
        .map(|(_, (_, word, _))| word.strip_suffix("'s").unwrap_or(word))
        .filter(|word| word.chars().skip(1).all(|c| !c.is_uppercase()) && word.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// The words of `text`, split at white space with the punctuation around
/// them trimmed, each with whether it opens a sentence: the first, and any
/// after a '.', '!', '?' or ':' that ends what stood before it (a lone
/// "?" too). Where a capital says something only inside a sentence.
fn sentence_words(text: &str) -> impl Iterator<Item = (&str, bool)> {
    sentence_tokens(text).map(|(_, word, opens)| (word, opens))
}

/// As [`sentence_words`], each with the token it was written as, marks
/// and all ("(Ciarán's", "Finn,").
fn sentence_tokens(text: &str) -> impl Iterator<Item = (&str, &str, bool)> {
    let mut opens = true;
    text.split_whitespace().filter_map(move |raw| {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let item = (!word.is_empty()).then_some((raw, word, opens));
        if !word.is_empty() {
            opens = false;
        }
        if raw.ends_with(['.', '!', '?', ':']) {
            opens = true;
        }
        item
    })
}

fn starts_with_capital(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
}

/// True when most of what `answer` says comes from `backing`: at most two
/// of its words of substance (or a third of them) are nobody's but the
/// model's. "I said I was looking for a way to save money on hosting
/// costs. I found a website that offers a budget calculator…" from the
/// memory "Website: the hosting budget is 20 EUR a month" is the model's
/// story, not the user's memory.
pub fn mostly_backed(answer: &str, backing: &[&str]) -> bool {
    let held: Vec<String> = backing
        .iter()
        .flat_map(|text| imprint_text::words::plain(text))
        .map(|w| normalize(&w))
        .collect();
    let substance: Vec<String> = imprint_text::words::plain(answer)
        .iter()
        .map(|w| normalize(w))
        .filter(|w| w.chars().count() >= 3 && !says_nothing(w))
        .collect();
    let unheld = substance
        .iter()
        .filter(|w| {
            !held.iter().any(|h| {
                h == *w
                    // "meeting" and "meetings", "moved" and "move".
                    || (h.len().min(w.len()) >= 4
                        && (h.starts_with(w.as_str()) || w.starts_with(h.as_str())))
            })
        })
        .count();
    unheld <= 2 || unheld * 3 <= substance.len()
}

/// The fewest words a sentence must run to before how often it repeats
/// them says anything: "Yes, yes, yes." is speech.
const LOOP_WORDS: usize = 12;

/// True when `answer` says the same few words over and over ("Culloden,
/// Culloden, Culloden, …" to the token limit, "It is at 5pm. It is at
/// 5pm. …"): fewer than a third of its words are different ones. A small
/// model falls into such a loop; the sentence says nothing.
pub fn repeats_itself(answer: &str) -> bool {
    let words: Vec<String> = imprint_text::words::plain(answer);
    let distinct: std::collections::HashSet<&String> = words.iter().collect();
    words.len() >= LOOP_WORDS && distinct.len() * 3 < words.len()
}

/// True when `answer` holds a word of `memory` that the question did not
/// (a name, a number, a place): it tells the user something. "you" for
/// "wifi pw at my parents place??" tells nothing.
pub fn tells_something(answer: &str, memory: &str, question: &str) -> bool {
    let asked: Vec<String> = imprint_text::words::spans(question)
        .iter()
        .map(|t| normalize(t))
        .collect();
    let held: Vec<String> = imprint_text::words::spans(memory)
        .iter()
        .map(|t| normalize(t))
        .collect();
    imprint_text::words::spans(answer)
        .iter()
        .map(|t| normalize(t))
        .any(|t| {
            t.chars().count() >= 2
                && held.contains(&t)
                && !asked.contains(&t)
                && !crate::common_words::is_function_word(&t)
        })
}

/// Lower case, possessive and punctuation off: "Jan's" is "jan".
fn normalize(token: &str) -> String {
    let lower = token.to_lowercase();
    let lower = lower.trim_end_matches("'s").trim_end_matches('\'');
    lower.chars().filter(|c| c.is_alphanumeric()).collect()
}

fn has_digit(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_digit())
}

fn digits_in(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_saying_the_same_words_over_and_over_repeats_itself() {
        let looped = vec!["Culloden,"; 40].join(" ");
        assert!(repeats_itself(&looped));
        assert!(repeats_itself(&"The code is 4816. ".repeat(5)));
        assert!(!repeats_itself("Yes, yes, yes."));
        assert!(!repeats_itself(
            "Your next braces check with Dr Neil Patience is on Monday 14 December at 15:40."
        ));
        // Words a long answer needs again are not a loop.
        assert!(!repeats_itself(
            "The bins go out on Tuesday, the recycling goes out on Tuesday too, and the \
             garden waste goes out every other Tuesday from the front of the house."
        ));
    }

    #[test]
    fn a_name_is_a_capital_inside_a_sentence_unless_openings_count() {
        let text = "School run for Theo's class: the PIN is with Dana. Ashgrove too ? Maya";
        assert_eq!(capitalized_names(text, false), ["Theo", "Dana"]);
        assert_eq!(
            capitalized_names(text, true),
            ["School", "Theo", "Dana", "Ashgrove", "Maya"]
        );
    }

    #[test]
    fn an_answer_that_tells_its_own_story_is_not_backed() {
        // The ask evaluation's answers, session 12.
        let memory = "Website: the hosting budget is 20 EUR a month";
        let request = "What did I say about the budget last time?";
        assert!(!mostly_backed(
            "I said I was looking for a way to save money on hosting costs. I found a website that offers a budget calculator that allows me to track my expenses.",
            &[memory, request]
        ));
        let memory = "Thesis report draft: chapter 3 sent to the supervisor";
        assert!(!mostly_backed(
            "The thesis report draft is a draft of a thesis that was sent to the supervisor. It outlines the main points of the thesis, including its objectives, methodology and results.",
            &[memory, "What's in the report draft?"]
        ));
        // Answers in the memory's words, with a word or two of the model's.
        assert!(mostly_backed(
            "The hosting budget is 20 EUR a month.",
            &["Website: the hosting budget is 20 EUR a month", request]
        ));
        assert!(mostly_backed(
            "Your dentist's number is 020 7946 0321.",
            &[
                "My dentist is Dr. Helena Marsh, phone 020 7946 0321",
                "whats my dentists number?"
            ]
        ));
        assert!(mostly_backed(
            "You decided to move the invoices to Stripe.",
            &[
                "Billing meeting: we decided to move invoices to Stripe",
                "What did we decide?"
            ]
        ));
    }

    #[test]
    fn an_answer_tells_something_only_with_a_word_of_the_memory_the_question_lacks() {
        let memory = "Wifi password at my parents' house is Lindenbaum!1987";
        let question = "wifi pw at my parnets place??";
        assert!(!tells_something("you", memory, question));
        assert!(!tells_something("The wifi at my place.", memory, question));
        assert!(tells_something("It is Lindenbaum!1987.", memory, question));
    }

    #[test]
    fn a_number_no_memory_holds_is_an_invented_claim() {
        let memory = "Plumber: Jan Kowalski, 0176 555 1234";
        assert_eq!(
            unbacked("The plumber's number is 12345.", &[memory]),
            vec!["12345"]
        );
        assert!(unbacked("The plumber's number is 0176 555 1234.", &[memory]).is_empty());
        // Spaces or none, the same digits back each other.
        assert!(unbacked("Call 01765551234.", &[memory]).is_empty());
    }

    #[test]
    fn a_name_inside_a_sentence_must_come_from_the_memory_or_the_user() {
        let memory = "Roadmap meeting: we decided to ship the beta in March";
        assert_eq!(
            unbacked("We decided to focus on Project Atlas.", &[memory]),
            vec!["Project", "Atlas"]
        );
        assert!(unbacked("You decided to ship the beta in March.", &[memory]).is_empty());
        // The user's own words back a name too.
        assert!(unbacked(
            "Lena arrives at 16:40.",
            &["Lena's train gets in at 16:40 on Saturday"]
        )
        .is_empty());
    }

    #[test]
    fn codes_and_dates_are_claims_and_a_sentences_first_word_is_not() {
        let memory = "Flight back: booking code LM4T8R, 14 March";
        assert!(unbacked("Your flight back has the code LM4T8R.", &[memory]).is_empty());
        assert_eq!(
            unbacked("Your code is XK99Q on 15 March.", &[memory]),
            vec!["XK99Q", "15"]
        );
        // "Travel" opens the sentence: no name; the date is the claim.
        assert_eq!(
            unbacked("Travel insurance runs out on December 1, 2026.", &[memory]),
            vec!["December", "1", "2026"]
        );
    }
}
