//! The words that name nothing a memory is about: the function words of
//! English, the verbs people ask Imprint with and the words for what it
//! keeps. Every rule that looks for what a request or an answer is
//! *about* (a reference's topic, a question's naming words, an answer's
//! claims, a sum's surroundings, a generic search) skips these, so they
//! live once, here.
//!
//! The function words are NLTK's English stop words (the `stop-words`
//! crate), not a list written for Imprint; the two short lists below
//! hold only what a request to a memory assistant adds to them.

use std::collections::HashSet;
use std::sync::LazyLock;

/// NLTK's English stop words, and their "n't" forms typed without the
/// apostrophe ("dont", "didnt").
static FUNCTION_WORDS: LazyLock<HashSet<String>> = LazyLock::new(|| {
    let nltk = stop_words::get("en");
    nltk.iter()
        .map(|w| w.to_string())
        .chain(
            nltk.iter()
                .filter(|w| w.ends_with("n't"))
                .map(|w| w.replace('\'', "")),
        )
        .collect()
});

/// Class: words of how a request is said that NLTK's list and the
/// pronouns leave out (modals, quantities, yes and no, the indefinite "thing", and "last
/// time"). They name nothing a memory holds.
const SAID_AROUND: &[&str] = &[
    "one",
    "ones",
    "much",
    "many",
    "still",
    "already",
    "yet",
    "ever",
    "really",
    "also",
    "could",
    "would",
    "shall",
    "might",
    "must",
    "let",
    "lets",
    "let's",
    "whose",
    "yes",
    "ok",
    "okay",
    "thing",
    "things",
    "stuff",
    "something",
    "anything",
    "everything",
    "last",
    "time",
    "times",
    "till",
];

/// Class: the verbs of asking Imprint to find, tell, keep or change
/// something ("find", "tell me", "save", "remind", "what did we
/// decide"), in their plain form; their endings are read by
/// [`inflects`].
const ASKING_VERBS: &[&str] = &[
    "find", "look", "lookup", "search", "show", "tell", "told", "give", "get", "got", "say",
    "said", "decide", "discuss", "mention", "talk", "agree", "write", "wrote", "written", "note",
    "save", "store", "remember", "remind", "set", "add", "keep", "kept", "record", "book", "send",
    "sent", "open", "read", "check", "need", "want", "like", "know", "think", "care", "ask",
    "call", "happen", "went", "make", "made", "put", "move", "change", "update", "cancel",
    "delete", "done", "emailed",
];

/// Class: the words for what Imprint keeps, said of all of it rather
/// than of one thing ("my notes", "the latest info", "any memories").
const KEPT_THINGS: &[&str] = &[
    "memory",
    "memories",
    "note",
    "reminder",
    "entry",
    "entries",
    "item",
    "items",
    "info",
    "information",
    "detail",
    "summary",
    "summarize",
    "summarise",
    "project",
    "new",
    "newest",
    "latest",
    "recent",
    "recently",
    "usual",
    "saved",
    "stored",
];

/// True for a plain (lower-case) function word: "the", "of", "what's",
/// "whats", "dont", "could".
pub fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.contains(word)
        || SAID_AROUND.contains(&word)
        || imprint_text::pronouns::points(word).is_some()
        // Only auxiliaries and modals take "n't": "can't", "won't", "isn't".
        || word.ends_with("n't")
        || word.ends_with("n’t")
        || word
            .strip_suffix("'s")
            .or_else(|| word.strip_suffix("’s"))
            .is_some_and(|base| FUNCTION_WORDS.contains(base))
        // "whats", "wheres", "thats": the "'s" of a question word typed
        // without its apostrophe.
        || word
            .strip_suffix('s')
            .is_some_and(|base| base.len() >= 3 && is_question_or_pointer(base))
}

/// True for a function word of five letters or more typed with two
/// letters swapped ("agian", "whcih", "abuot"): a slip, not a word naming
/// something. Shorter ones are left alone ("form" is not "from").
pub fn is_slipped_function_word(word: &str) -> bool {
    let letters: Vec<char> = word.chars().collect();
    letters.len() >= 5
        && !is_function_word(word)
        && (0..letters.len() - 1).any(|i| {
            let mut swapped = letters.clone();
            swapped.swap(i, i + 1);
            let swapped: String = swapped.into_iter().collect();
            FUNCTION_WORDS.contains(&swapped)
        })
}

/// "what", "where", "who", "when", "how", "that", "there", "here".
fn is_question_or_pointer(word: &str) -> bool {
    QUESTION_WORDS.contains(&word)
        || (FUNCTION_WORDS.contains(word) && (word.starts_with("th") || word == "here"))
}

/// Class: the auxiliary verbs that open a yes/no question ("did you…",
/// "is it…") and that tell a fact in a statement ("the code is 4512",
/// "dan has the keys").
const AUXILIARIES: &[&str] = &[
    "do", "does", "did", "is", "are", "was", "were", "have", "has", "had",
];

/// True for an auxiliary verb: "did", "is", "have".
pub fn is_auxiliary(word: &str) -> bool {
    AUXILIARIES.contains(&word)
}

/// Class: the words that open a question for something.
const QUESTION_WORDS: &[&str] = &[
    "what", "when", "where", "who", "whom", "whose", "which", "how", "why",
];

/// True for a question word, also with its "'s" ("what's", "whats",
/// "where's").
pub fn is_question_word(word: &str) -> bool {
    let plain = word
        .strip_suffix("'s")
        .or_else(|| word.strip_suffix("’s"))
        .or_else(|| word.strip_suffix('s').filter(|base| base.len() >= 3))
        .filter(|base| QUESTION_WORDS.contains(base))
        .unwrap_or(word);
    QUESTION_WORDS.contains(&plain)
}

/// True for a question word with its "'s" ("what's", "whats",
/// "when's"): a question by its grammar, as "what is" is.
pub fn is_question_word_with_its_is(word: &str) -> bool {
    !QUESTION_WORDS.contains(&word) && is_question_word(word)
}

/// True for a verb of asking Imprint for something, in any of its
/// regular forms ("saved", "reminds", "checking", "decided").
pub fn is_asking_verb(word: &str) -> bool {
    inflects(word, ASKING_VERBS)
}

/// True for a word naming what Imprint keeps as a whole ("notes",
/// "memories", "details").
pub fn is_kept_thing(word: &str) -> bool {
    inflects(word, KEPT_THINGS)
}

/// True for a word that names nothing a memory is about: a function word,
/// a verb of asking, or a word for what Imprint keeps.
pub fn names_nothing_kept(word: &str) -> bool {
    is_function_word(word) || is_asking_verb(word) || is_kept_thing(word)
}

/// True when `word` is one of `plain` or one of them with a regular
/// ending (see [`plain_forms`]).
pub fn inflects(word: &str, plain: &[&str]) -> bool {
    plain.contains(&word)
        || plain_forms(word)
            .iter()
            .any(|base| plain.contains(&base.as_str()))
}

/// The plain forms `word` may be with a regular ending taken off: "s",
/// "es", "d", "ed", "ing" ("saving" may be "save", "getting" "get").
pub fn plain_forms(word: &str) -> Vec<String> {
    let mut forms = Vec::new();
    for end in ["s", "es", "d", "ed", "ing"] {
        let Some(base) = word.strip_suffix(end) else {
            continue;
        };
        forms.push(base.to_string());
        if end == "ing" {
            forms.push(format!("{base}e"));
        }
        // "getting", "putting": the consonant doubled before the ending.
        let bytes = base.as_bytes();
        if base.len() >= 3 && base.is_ascii() && bytes[base.len() - 1] == bytes[base.len() - 2] {
            forms.push(base[..base.len() - 1].to_string());
        }
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_words_come_from_the_stop_list_with_their_typed_forms() {
        for word in [
            "the", "of", "what", "what's", "whats", "hows", "dont", "didnt", "could", "can't",
            "won't",
        ] {
            assert!(is_function_word(word), "{word}");
        }
        // Words that name things are not function words, whatever their
        // ending ("this" is, "thesis" is not).
        for word in ["dentist", "shed", "wed", "thesis", "weds", "bus", "plumber"] {
            assert!(!is_function_word(word), "{word}");
        }
    }

    #[test]
    fn a_function_word_with_two_letters_swapped_is_a_slip() {
        for word in ["agian", "whcih", "abuot", "unitl", "thier"] {
            assert!(is_slipped_function_word(word), "{word}");
        }
        // Words of their own, short words, and the function words
        // themselves are no slips.
        for word in ["again", "form", "garage", "bieng-x", "kiln", "acct"] {
            assert!(!is_slipped_function_word(word), "{word}");
        }
    }

    #[test]
    fn verbs_of_asking_are_read_with_their_endings() {
        for word in [
            "saved", "reminds", "checking", "decided", "saving", "agreed", "getting",
        ] {
            assert!(is_asking_verb(word), "{word}");
        }
        for word in ["dentist", "email", "birthday", "code", "emailing"] {
            assert!(!is_asking_verb(word), "{word}");
        }
    }

    #[test]
    fn the_words_for_what_imprint_keeps_name_nothing_in_it() {
        for word in ["notes", "memories", "details", "entries", "latest"] {
            assert!(names_nothing_kept(word), "{word}");
        }
        for word in ["wifi", "passport", "boiler", "insurance"] {
            assert!(!names_nothing_kept(word), "{word}");
        }
    }
}
