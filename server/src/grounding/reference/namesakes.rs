//! A first name the memories give two people ("Priya Naidoo", the
//! accountant, and "Priya Pillay", the piano teacher): a note about
//! "priya" is asked about, whose it is, and kept with the full name.

use super::Candidate;
use crate::store::Memory;

/// The full name `first` opens in `content`: the name written with a
/// capital and the capitalised words right after it ("Priya Naidoo" for
/// "priya" in "Priya Naidoo is the shop's accountant"), with a surname's
/// short particles ("Sanne de Vries", "Ruud van der Berg"); `None` when
/// the content does not write it with a surname.
pub fn full_name(first: &str, content: &str) -> Option<String> {
    let tokens: Vec<&str> = content.split_whitespace().collect();
    tokens.iter().enumerate().find_map(|(i, token)| {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        if !same_word(word, first) || !is_capitalised(word) || token.len() != word.len() {
            return None;
        }
        let surname = surname(&tokens[i + 1..]);
        (!surname.is_empty()).then(|| format!("{word} {}", surname.join(" ")))
    })
}

/// The surname `tokens` open with: up to two capitalised words, after at
/// most two particles ("de", "van der"); a mark after a word ends it
/// ("Naidoo,", "Naidoo's"). Empty when no capitalised word comes.
fn surname<'a>(tokens: &[&'a str]) -> Vec<&'a str> {
    let mut words = Vec::new();
    let mut capitalised = 0;
    for token in tokens {
        let bare = token.trim_end_matches(|c: char| !c.is_alphanumeric());
        let bare = bare
            .strip_suffix("'s")
            .or_else(|| bare.strip_suffix("’s"))
            .unwrap_or(bare);
        let unmarked = token.len() == bare.len();
        if is_capitalised(bare) {
            words.push(bare);
            capitalised += 1;
            if !unmarked || capitalised == 2 {
                break;
            }
        } else if capitalised == 0 && unmarked && words.len() < 2 && is_particle(bare) {
            words.push(bare);
        } else {
            break;
        }
    }
    if capitalised == 0 {
        return Vec::new();
    }
    words
}

/// True when `a` and `b` are one word, whatever their case or accents
/// ("joao" is "João").
fn same_word(a: &str, b: &str) -> bool {
    let plain = |w: &str| imprint_text::words::folded(&w.to_lowercase());
    plain(a) == plain(b)
}

/// A surname's particle: a short word in small letters that is no English
/// function word ("de", "van", "der", "da", "al"; not "and", "of").
fn is_particle(word: &str) -> bool {
    (2..=3).contains(&word.chars().count())
        && word.chars().all(|c| c.is_lowercase())
        && !crate::common_words::is_function_word(word)
}

/// True for a word written as a name is: a capital, then small letters
/// ("Priya", "Naidoo"; not "GP", "PIN", nor a sentence's "My" or "The").
pub(in crate::grounding) fn is_capitalised(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
        && word.chars().skip(1).all(|c| !c.is_uppercase())
        && word.chars().skip(1).any(char::is_lowercase)
        && !crate::common_words::is_function_word(&word.to_lowercase())
}

/// The people `hits` (memories found for `first`) call by `first`, when
/// they are two or more by their full names: one option each, labelled by
/// the full name, with the memories about them. `None` for one person.
pub fn namesakes(first: &str, hits: &[Memory]) -> Option<Vec<Candidate>> {
    // "green" of "Green Grocers" and "Green Line Taxis": a word the memories
    // also write in small letters ("the green bin") is no one's first name.
    let in_small_letters = hits.iter().any(|hit| {
        hit.content.split_whitespace().any(|token| {
            let word = token.trim_matches(|c: char| !c.is_alphanumeric());
            word.chars().next().is_some_and(char::is_lowercase) && same_word(word, first)
        })
    });
    if in_small_letters {
        return None;
    }
    let people = super::grouped_by(hits, |hit| full_name(first, &hit.content));
    (people.len() >= 2).then_some(people)
}

/// The people `hits` name, one candidate each, labelled by the name as
/// written (its surname too: "Nana Maureen", "Niamh Walsh"), with the
/// memories naming them, in the order found: whom "his" or "her" with
/// nobody named before may mean. A word opening a sentence is no name
/// by its capital ("Birthdays: Tomasz 3 January…") unless it says whose
/// ("Aoife's dentist appointment…"), and days and months are no one.
pub fn people(hits: &[Memory]) -> Vec<Candidate> {
    let mut people: Vec<Candidate> = Vec::new();
    for hit in hits {
        let line = crate::memory_lines::memory_line(hit);
        let mut named: Vec<String> = Vec::new();
        let mut opens = true;
        for token in hit.content.split_whitespace() {
            let word = token.trim_matches(|c: char| !c.is_alphanumeric());
            let whose = word.strip_suffix("'s").or_else(|| word.strip_suffix("’s"));
            let word = whose.unwrap_or(word);
            let name = (!opens || whose.is_some())
                && is_capitalised(word)
                && !crate::grounding::when::names_a_day(&word.to_lowercase())
                && !named.iter().any(|n| n.split(' ').any(|w| w == word));
            if name {
                named.push(full_name(word, &hit.content).unwrap_or_else(|| word.to_string()));
            }
            opens = token.ends_with(['.', '!', '?']) || (opens && word.is_empty());
        }
        for name in named {
            match people.iter_mut().find(|p| p.label == name) {
                Some(person) if !person.memories.contains(&line) => {
                    person.memories.push(line.clone())
                }
                Some(_) => {}
                None => people.push(Candidate {
                    label: name,
                    memories: vec![line.clone()],
                }),
            }
        }
    }
    people
}

/// True when `request` says which of `people` (called `first` in it) it
/// means: a full name whole ("priya naidoo's rates"), or the first name
/// followed by the start of one surname only ("nick p can do the lift").
pub fn says_which(request: &str, first: &str, people: &[Candidate]) -> bool {
    let said = request.to_lowercase();
    if people
        .iter()
        .any(|p| said.contains(&p.label.to_lowercase()))
    {
        return true;
    }
    let words = imprint_text::words::plain(request);
    let Some(after) = words
        .iter()
        .position(|w| w.trim_end_matches("'s") == first)
        .and_then(|at| words.get(at + 1))
    else {
        return false;
    };
    let surnames: Vec<String> = people
        .iter()
        .filter_map(|p| p.label.split_once(' ').map(|(_, rest)| rest.to_lowercase()))
        .collect();
    let starting = surnames
        .iter()
        .filter(|s| s.starts_with(after.trim_end_matches("'s")))
        .count();
    starting == 1
}

/// True when `label` is a person's full name as [`namesakes`] labels its
/// options ("Priya Naidoo", "Sanne de Vries"): a capitalised first name
/// and its surname, no more.
pub fn is_a_full_name(label: &str) -> bool {
    let Some((first, rest)) = label.split_once(' ') else {
        return false;
    };
    let rest: Vec<&str> = rest.split(' ').collect();
    first.chars().all(char::is_alphabetic)
        && is_capitalised(first)
        && rest.iter().all(|w| w.chars().all(char::is_alphabetic))
        && surname(&rest) == rest
}

/// `content` with the first name of `full` written whole: "note that
/// priya's rates go up" with "Priya Pillay" is "note that Priya Pillay's
/// rates go up". `None` when the content does not hold the first name
/// alone.
pub fn with_the_full_name(content: &str, full: &str) -> Option<String> {
    let (first, rest) = full.split_once(' ')?;
    if content.to_lowercase().contains(&full.to_lowercase()) {
        return None;
    }
    let mut named = false;
    let out: Vec<String> = content
        .split(' ')
        .map(|token| {
            let start = token.find(char::is_alphanumeric).unwrap_or(token.len());
            let word_end = token[start..]
                .find(|c: char| !c.is_alphanumeric())
                .map_or(token.len(), |i| start + i);
            if !named && same_word(&token[start..word_end], first) {
                named = true;
                format!("{}{first} {rest}{}", &token[..start], &token[word_end..])
            } else {
                token.to_string()
            }
        })
        .collect();
    named.then(|| out.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: i64, content: &str) -> Memory {
        Memory {
            id,
            content: content.into(),
            project: None,
            tags: Vec::new(),
            created_at: "2026-12-01T10:00:00.000Z".into(),
        }
    }

    #[test]
    fn a_full_name_is_the_first_name_and_the_capitalised_words_after_it() {
        let full = |content| full_name("priya", content);
        assert_eq!(
            full("Priya Naidoo is the shop's accountant; her number is 083 555 0126.").as_deref(),
            Some("Priya Naidoo")
        );
        assert_eq!(
            full("Lessons with Priya Pillay's studio on Tuesdays").as_deref(),
            Some("Priya Pillay")
        );
        assert_eq!(full("Priya, our neighbour, has the key").as_deref(), None);
        assert_eq!(full("Call Priya about the cake").as_deref(), None);
        assert_eq!(full("the priya account").as_deref(), None);
        // A surname's particles.
        assert_eq!(
            full_name("sanne", "Swimming teacher Sanne de Vries, 06 3817 4290").as_deref(),
            Some("Sanne de Vries")
        );
        assert_eq!(
            full_name("ruud", "Ruud van der Berg fixes the roof").as_deref(),
            Some("Ruud van der Berg")
        );
        // Not a list of people, nor small words with no surname after.
        assert_eq!(full("Priya and Thabo are coming").as_deref(), None);
        assert_eq!(full("Priya de la cake").as_deref(), None);
    }

    #[test]
    fn two_people_of_one_first_name_are_the_options_and_one_is_none() {
        let hits = [
            memory(1, "Priya Naidoo is the shop's accountant"),
            memory(2, "Priya Pillay teaches Lerato piano on Tuesdays"),
            memory(3, "Priya Naidoo wants the invoices by the 5th"),
            memory(4, "Call Priya about the cake"),
        ];
        let people = namesakes("priya", &hits).expect("two people");
        let labels: Vec<&str> = people.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["Priya Naidoo", "Priya Pillay"]);
        assert_eq!(people[0].memories.len(), 2);
        assert!(namesakes("priya", &hits[..1]).is_none());
        // Names written with a capital, and the word itself in small
        // letters: a common word, not two people.
        let things = [
            memory(1, "Green Grocers deliver on Fridays"),
            memory(2, "Green Line Taxis: 0161 555 0142"),
        ];
        assert_eq!(namesakes("green", &things).map(|p| p.len()), Some(2));
        let mut things = things.to_vec();
        things.push(memory(3, "The green bin goes out on Mondays"));
        assert!(namesakes("green", &things).is_none());
        assert!(namesakes("priya", &[hits[0].clone(), hits[2].clone()]).is_none());
    }

    #[test]
    fn a_note_is_kept_with_the_full_name_chosen() {
        assert_eq!(
            with_the_full_name("Priya's rates go up to R450 an hour", "Priya Pillay").as_deref(),
            Some("Priya Pillay's rates go up to R450 an hour")
        );
        assert_eq!(
            with_the_full_name("send the invoices to priya by friday", "Priya Naidoo").as_deref(),
            Some("send the invoices to Priya Naidoo by friday")
        );
        assert_eq!(
            with_the_full_name("Priya Naidoo moved", "Priya Naidoo"),
            None
        );
        assert_eq!(
            with_the_full_name("the boiler is fixed", "Priya Naidoo"),
            None
        );
        assert!(is_a_full_name("Priya Naidoo"));
        let people = namesakes(
            "nick",
            &[
                memory(1, "Nick Papadakis runs the crane"),
                memory(2, "Nick Ferreira does the scaffolding"),
            ],
        )
        .unwrap();
        assert!(says_which(
            "nick p can do the lift on jan 8",
            "nick",
            &people
        ));
        assert!(says_which("Nick Ferreira's quote is in", "nick", &people));
        assert!(!says_which(
            "nick can do the lift on jan 8",
            "nick",
            &people
        ));
        assert!(!says_which("nick's van is free", "nick", &people));
        assert!(!is_a_full_name("Billing meeting (12 Nov)"));
        assert!(!is_a_full_name("Priya"));
        assert!(is_a_full_name("Sanne de Vries"));
        assert!(!is_a_full_name("Sanne de"));
        assert!(!is_a_full_name("Lunch at Oma's"));
    }

    #[test]
    fn a_first_name_typed_without_its_accents_is_the_name_with_them() {
        assert_eq!(
            full_name("joao", "João Freitas services the cold room").as_deref(),
            Some("João Freitas")
        );
        let hits = [
            memory(1, "João Abreu grows the proteas, mobile 963 418 270"),
            memory(2, "João Freitas services the cold room, 291 224 310"),
        ];
        let people = namesakes("joao", &hits).expect("two people");
        let labels: Vec<&str> = people.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["João Abreu", "João Freitas"]);
        assert_eq!(
            with_the_full_name("ring joao about the fridge", "João Freitas").as_deref(),
            Some("ring João Freitas about the fridge")
        );
    }
}
