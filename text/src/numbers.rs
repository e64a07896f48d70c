//! Numbers said in words, as the time grammar and Echo's answers read
//! them: "seven", "twelve", "third", "nineteenth".

/// Class: the numbers people say in words where a count or an hour is
/// meant ("two hours", "at seven", "option three").
const CARDINALS: [&str; 13] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// Class: the ordinals people say in words for a day of the month or a
/// choice ("the third", "the second one"); the tens are read with them
/// ("twenty-first").
const ORDINALS: [&str; 19] = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
];

/// The number a plain (lower-case) word says: digits ("7") or a word
/// from zero to twelve ("seven").
pub fn cardinal(word: &str) -> Option<u32> {
    word.parse()
        .ok()
        .or_else(|| CARDINALS.iter().position(|n| *n == word).map(|n| n as u32))
}

/// The ordinal a plain word spells, "first" to "nineteenth"; not "1st"
/// (see [`ordinal`]).
pub fn spelled_ordinal(word: &str) -> Option<u32> {
    ORDINALS
        .iter()
        .position(|o| *o == word)
        .map(|n| n as u32 + 1)
}

/// The ordinal a plain word says, spelled ("third") or in figures
/// ("3rd").
pub fn ordinal(word: &str) -> Option<u32> {
    spelled_ordinal(word).or_else(|| {
        let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let ending = &word[digits.len()..];
        matches!(ending, "st" | "nd" | "rd" | "th")
            .then(|| digits.parse().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_words_and_figures() {
        assert_eq!(cardinal("seven"), Some(7));
        assert_eq!(cardinal("12"), Some(12));
        assert_eq!(cardinal("zero"), Some(0));
        assert_eq!(cardinal("seventh"), None);
        assert_eq!(spelled_ordinal("nineteenth"), Some(19));
        assert_eq!(spelled_ordinal("3rd"), None);
        assert_eq!(ordinal("3rd"), Some(3));
        assert_eq!(ordinal("second"), Some(2));
        assert_eq!(ordinal("21st"), Some(21));
        assert_eq!(ordinal("three"), None);
        assert_eq!(ordinal("rd"), None);
    }
}
