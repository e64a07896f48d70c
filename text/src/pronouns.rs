//! English personal pronouns: one list, read by every rule that asks
//! whose a request is ("my", "his") or what it points back at ("it",
//! "him").

/// Whom a pronoun points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Points {
    /// The user: "I", "my", "we", "ours".
    Speaker,
    /// Imprint: "you".
    Listener,
    /// Someone named before: "he", "her", "them" ("call them").
    Person,
    /// People or things named before: "they", "their".
    Others,
    /// A thing named before: "it", "its".
    Thing,
}

/// The part a pronoun plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// "I", "he", "we".
    Subject,
    /// "me", "him", "us".
    Object,
    /// "my", "his", "our", "hers": says whose.
    Whose,
    /// "myself", "ourselves".
    Reflexive,
}

use Points::*;
use Role::*;

/// Class: the personal pronouns of English, a form a line ("her" and
/// "you" play two parts).
#[rustfmt::skip]
const PRONOUNS: &[(&str, Points, Role)] = &[
    ("i", Speaker, Subject), ("me", Speaker, Object), ("my", Speaker, Whose),
    ("mine", Speaker, Whose), ("myself", Speaker, Reflexive), ("we", Speaker, Subject),
    ("us", Speaker, Object), ("our", Speaker, Whose), ("ours", Speaker, Whose),
    ("ourselves", Speaker, Reflexive), ("you", Listener, Subject), ("you", Listener, Object),
    ("he", Person, Subject), ("him", Person, Object), ("his", Person, Whose),
    ("she", Person, Subject), ("her", Person, Object), ("her", Person, Whose),
    ("hers", Person, Whose), ("them", Person, Object), ("they", Others, Subject),
    ("their", Others, Whose), ("theirs", Others, Whose), ("it", Thing, Subject),
    ("its", Thing, Whose),
];

/// Whom `word` points at and the parts it plays, if it is a pronoun,
/// also contracted with its verb ("i'm", "he's", "we'll").
fn forms(word: &str) -> impl Iterator<Item = (Points, Role)> + '_ {
    let word = word.replace('’', "'");
    let plain = match word.split_once('\'') {
        Some((pronoun, "m" | "ve" | "d" | "ll" | "re" | "s")) => pronoun.to_string(),
        _ => word,
    };
    PRONOUNS
        .iter()
        .filter(move |(form, _, _)| *form == plain)
        .map(|&(_, points, role)| (points, role))
}

/// Whom plain (lower-case) `word` points at, if it is a pronoun, also
/// contracted with its verb ("he's": "he").
pub fn points(word: &str) -> Option<Points> {
    forms(word).next().map(|(points, _)| points)
}

/// True for a pronoun of the user: "my", "we", "ourselves".
pub fn is_first_person(word: &str) -> bool {
    points(word) == Some(Speaker)
}

/// True for a pronoun of someone or something named before it: "his",
/// "her", "it", "they".
pub fn is_third_person(word: &str) -> bool {
    matches!(points(word), Some(Person | Others | Thing))
}

/// True for a pronoun of a person: "he", "her", "them".
pub fn is_of_a_person(word: &str) -> bool {
    points(word) == Some(Person)
}

/// True for a pronoun that says whose a thing is: "my", "their", "its".
pub fn says_whose(word: &str) -> bool {
    forms(word).any(|(_, role)| role == Whose)
}

/// True for a pronoun that says whose a thing is and points at someone
/// else than the user or a thing: "his", "her", "their".
pub fn says_someone_elses(word: &str) -> bool {
    forms(word).any(|(points, role)| role == Whose && matches!(points, Person | Others))
}

/// True for a pronoun that is a clause's subject: "i", "we", "she",
/// "they", "it", also contracted ("i'll").
pub fn is_subject(word: &str) -> bool {
    forms(word).any(|(_, role)| role == Subject)
}

/// True for "I", "we" or "you": a subject in the conversation itself,
/// which opens a clause ("before I leave", "the one we booked").
pub fn is_speaking_subject(word: &str) -> bool {
    forms(word).any(|(points, role)| role == Subject && matches!(points, Speaker | Listener))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn her_says_whose_and_is_an_object() {
        assert!(says_someone_elses("her"));
        assert!(says_someone_elses("their"));
        assert!(!says_someone_elses("its"));
        assert!(!says_someone_elses("my"));
        assert!(is_of_a_person("her"));
        assert!(!is_of_a_person("they"));
    }

    #[test]
    fn the_speakers_subjects_open_a_clause() {
        for word in ["i", "we", "you"] {
            assert!(is_speaking_subject(word), "{word}");
        }
        for word in ["me", "us", "he", "it", "my"] {
            assert!(!is_speaking_subject(word), "{word}");
        }
    }

    #[test]
    fn first_and_third_person_are_told_apart() {
        for word in [
            "i",
            "me",
            "my",
            "mine",
            "we",
            "us",
            "our",
            "ours",
            "ourselves",
        ] {
            assert!(is_first_person(word) && !is_third_person(word), "{word}");
        }
        for word in [
            "he", "she", "him", "her", "his", "hers", "it", "its", "they", "them",
        ] {
            assert!(is_third_person(word) && !is_first_person(word), "{word}");
        }
        assert!(!is_first_person("you") && !is_third_person("you"));
        assert_eq!(points("table"), None);
        assert!(is_first_person("i'm") && is_first_person("we’ll"));
        assert!(is_of_a_person("he's") && is_of_a_person("she'd"));
        assert_eq!(points("it's"), Some(Points::Thing));
    }
}
