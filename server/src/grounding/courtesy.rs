//! Courtesy: the words a request is said politely, as a question or aloud
//! with, which say nothing of what it asks ("Hey, could you please save…",
//! "…, remind me at 9 pls"). One list of each, read by every rule that
//! passes over them: a request's opening verb ([`super::plan`]), the words
//! beside a verb of keeping, a reminder's closing words, the words a
//! question names.

/// What a word of courtesy does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Courtesy {
    /// Only makes a request polite: "please", "thx".
    Polite,
    /// Asks rather than tells: "can you", "could you", "would u".
    Asking,
    /// Opens a request said aloud or typed as to a person: "hey", "ok".
    Opener,
    /// A sound of speech between words, or a word that only leads into
    /// what is said ("ok so the code is…", "fyi he's allergic…").
    Filler,
}

use Courtesy::*;

/// Class: the words a request is said politely, as a question or aloud
/// with, each with what it does.
#[rustfmt::skip]
const COURTESY: &[(&str, Courtesy)] = &[
    ("please", Polite), ("pls", Polite), ("plz", Polite), ("kindly", Polite),
    ("thanks", Polite), ("thank", Polite), ("thx", Polite), ("ty", Polite), ("ta", Polite),
    ("can", Asking), ("could", Asking), ("would", Asking), ("will", Asking), ("you", Asking),
    ("u", Asking),
    ("hey", Opener), ("hi", Opener), ("hello", Opener), ("ok", Opener), ("okay", Opener),
    ("imprint", Opener),
    ("so", Filler), ("right", Filler), ("alright", Filler), ("well", Filler), ("fyi", Filler),
    ("btw", Filler),
];

/// What plain (lower-case) `word` does as courtesy, if it is courtesy; a
/// sound of speech ("um", "erm") is a filler.
fn courtesy(word: &str) -> Option<Courtesy> {
    COURTESY
        .iter()
        .find(|(said, _)| *said == word)
        .map(|&(_, does)| does)
        .or_else(|| imprint_text::voice::is_sound_of_speech(word).then_some(Filler))
}

/// True for a plain (lower-case) word that only makes a request polite.
pub fn is_polite(word: &str) -> bool {
    courtesy(word) == Some(Polite)
}

/// True for a plain word of courtesy: polite, asking, or opening a request
/// ("hey", "could", "you", "please").
pub fn is_courtesy(word: &str) -> bool {
    courtesy(word).is_some_and(|does| does != Filler)
}

/// True for a plain word that names nothing: courtesy or a filler of
/// speech.
pub fn names_nothing(word: &str) -> bool {
    courtesy(word).is_some()
}

/// True for a word that opens a request said as to a person ("hey",
/// "ok") or a sound of speech ("um"): what follows is the request, a
/// question when it opens with a question word ("hey whats the alarm
/// code, the new girl is locking up tonight"). "fyi" and "btw" lead
/// into a fact, and are no opener.
pub fn is_opener(word: &str) -> bool {
    courtesy(word) == Some(Opener) || imprint_text::voice::is_sound_of_speech(word)
}

/// True for a word that leads into a request and says nothing of it:
/// an opener ("ok", "hey") or a filler ("so", "fyi", "um").
pub fn leads_in(word: &str) -> bool {
    matches!(courtesy(word), Some(Opener | Filler))
}

/// `text` without the politeness that closes it (and the marks around
/// it): "water the plants pls." is "water the plants", "…, thank you!"
/// is "…".
pub fn without_closing(text: &str) -> &str {
    let marks = ['.', '!', '?', ' ', ','];
    let mut s = text.trim().trim_end_matches(marks);
    // The last word polite ("pls", "thanks"), or "thank you": it goes
    // with the marks before it, as often as it comes.
    while let Some((before, last)) = s.rsplit_once(' ') {
        let (before, polite) = match before.rsplit_once(' ') {
            Some((earlier, thank))
                if thank.eq_ignore_ascii_case("thank") && last.eq_ignore_ascii_case("you") =>
            {
                (earlier, true)
            }
            _ => (before, is_polite(&last.to_lowercase())),
        };
        if !polite {
            break;
        }
        s = before.trim_end_matches(marks);
    }
    s.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_politeness_goes_whole_and_repeated() {
        assert_eq!(without_closing("water the plants pls."), "water the plants");
        assert_eq!(without_closing("call Anna, thank you!"), "call Anna");
        assert_eq!(without_closing("call Anna please, thanks"), "call Anna");
        assert_eq!(without_closing("Call Anna PLEASE"), "Call Anna");
        assert_eq!(without_closing("call Anna. THANK YOU"), "call Anna");
    }

    #[test]
    fn closing_politeness_is_a_word_of_its_own() {
        // "pasta" ends in "ta", "vanity" in "ty": neither is politeness.
        assert_eq!(without_closing("buy pasta"), "buy pasta");
        assert_eq!(without_closing("check the vanity"), "check the vanity");
        assert_eq!(without_closing("please"), "please");
    }

    #[test]
    fn courtesy_is_polite_asking_or_opening() {
        for word in ["please", "could", "you", "hey", "imprint", "thx"] {
            assert!(is_courtesy(word), "{word}");
        }
        for word in ["save", "dentist", "the", "um"] {
            assert!(!is_courtesy(word), "{word}");
        }
        assert!(names_nothing("um") && names_nothing("pls"));
        assert!(is_polite("kindly") && !is_polite("could"));
    }
}
