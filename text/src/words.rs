//! How text becomes words for Imprint's English rules: one tokenizer for
//! every rule, the server's (what a request asks for, what a save keeps, a
//! reminder's time, a sum, an answer's claims, a question's options) and
//! Echo's (a spoken answer matched to the choices, noise, its own voice).
//!
//! Two cuts, each for what its readers need:
//! - [`plain`] / [`spans`]: words of letters and digits, an apostrophe
//!   kept inside ("what's", "Jan's"); every other mark cuts. Rules that
//!   compare words read these.
//! - [`terms`]: cut at spaces only, the marks around a term trimmed, so a
//!   clock time ("16:40", "8.05pm"), a number ("1,000", "3.5") or a
//!   percentage ("15%") stays one term. The time reader and the sums
//!   read these.
//!
//! Both lower-case (but [`spans`]) and read curly apostrophes as straight
//! ones: "Jan’s" and "Jan's" are one word.

/// The text's words, lower case: letters and digits, an apostrophe kept
/// inside a word ("what's"), at its edges dropped.
pub fn plain(text: &str) -> Vec<String> {
    spans(&folded(&text.to_lowercase()))
}

/// `text` with the accents of Latin letters dropped ("mãe" is "mae",
/// "joão" "joao", "ó" "o", "ß" stays): people type a name without the
/// accents their notes wrote it with, and the memories' search (SQLite's
/// `remove_diacritics`) and the sentence model already read them alike.
/// The Icelandic and Old English letters are typed as their English
/// spellings: "ð" as "d" ("skodun"), "þ" as "th" ("Thorsson"), "æ" as
/// "ae".
pub fn folded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            'þ' => out.push_str("th"),
            'æ' => out.push_str("ae"),
            'ð' => out.push('d'),
            other => out.push(unaccented(other)),
        }
    }
    out
}

/// A Latin letter without its accent (lower case; others unchanged).
fn unaccented(c: char) -> char {
    match c {
        'à'..='å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
        'ď' | 'đ' => 'd',
        'è'..='ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
        'ĥ' | 'ħ' => 'h',
        'ì'..='ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => 'i',
        'ĵ' => 'j',
        'ķ' => 'k',
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => 'l',
        'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
        'ò'..='ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => 'o',
        'ŕ' | 'ŗ' | 'ř' => 'r',
        'ś' | 'ŝ' | 'ş' | 'š' => 's',
        'ţ' | 'ť' | 'ŧ' => 't',
        'ù'..='ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
        'ŵ' => 'w',
        'ý' | 'ÿ' | 'ŷ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        other => other,
    }
}

/// As [`plain`], in the text's own case ("Jan's" stays "Jan's").
pub fn spans(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && !is_apostrophe(c))
        .map(|w| w.trim_matches(is_apostrophe))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace(['’', '‘'], "'"))
        .collect()
}

/// The text's terms, lower case, cut at spaces: the marks that end or
/// wrap a term (`. , ; : ! ? " ( )` and quotes) trimmed from its edges,
/// and a lone dash dropped. "Meet at 16:40, then 8.05pm (15%)." is
/// "meet", "at", "16:40", "then", "8.05pm", "15%".
pub fn terms(text: &str) -> Vec<String> {
    folded(&text.to_lowercase())
        .replace(['’', '‘'], "'")
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| EDGE_MARKS.contains(c)))
        .filter(|t| !t.is_empty() && !matches!(*t, "-" | "–" | "—"))
        .map(str::to_string)
        .collect()
}

/// The text's clauses, as punctuation or a dash between spaces sets them
/// apart ("my NHS number is 943 476 5919 - store it pls", "whats the safe
/// code, musu is locking up"): the rules that read a request's first
/// clause, or each of them, cut it here. "3.5" and "6.45pm" are cut too;
/// the readers of numbers and times read [`terms`] instead.
pub fn clauses(text: &str) -> impl Iterator<Item = &str> {
    text.split(" - ")
        .flat_map(|part| part.split([',', ';', '.', '!', '?', ':', '—', '–', '(', ')']))
}

/// The text's sentences, as a sentence's end, a semicolon or a dash sets
/// them apart ("I'm a bit worried. And where does he keep his EpiPen"):
/// commas and colons stay inside.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split(" - ")
        .flat_map(|part| part.split(['.', '!', '?', ';', '—', '–']))
}

/// The last of `parts` with a word in it, trimmed; "" when none has.
pub fn last_filled<'a>(parts: impl Iterator<Item = &'a str>) -> &'a str {
    parts
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .last()
        .unwrap_or_default()
}

/// The text's first clause (see [`clauses`]); the whole text when it has
/// no mark.
pub fn first_clause(text: &str) -> &str {
    clauses(text).next().unwrap_or(text)
}

/// Class: the prepositions that tie a thing to what qualifies it ("the
/// meeting with Anna", "…, for the roof job") or a pronoun to a verb
/// ("about it").
const PREPOSITIONS: &[&str] = &[
    "about",
    "at",
    "by",
    "for",
    "from",
    "in",
    "near",
    "of",
    "on",
    "regarding",
    "to",
    "with",
];

/// True for a plain (lower-case) preposition: "about", "with", "for".
pub fn is_preposition(word: &str) -> bool {
    PREPOSITIONS.contains(&word)
}

/// Marks that end or wrap a term, never inside one that means something.
const EDGE_MARKS: &str = ".,;:!?\"'()“”[]";

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’' | '‘')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_are_cut_at_marks_and_spaced_dashes_only() {
        let parts: Vec<&str> = clauses("my e-mail is new - store it pls, ta (work one)").collect();
        assert_eq!(
            parts,
            ["my e-mail is new", "store it pls", " ta ", "work one", ""]
        );
        assert_eq!(
            first_clause("hey whats the gate code? ben is locked out"),
            "hey whats the gate code"
        );
        assert_eq!(first_clause("no marks at all"), "no marks at all");
        assert_eq!(
            last_filled(sentences("I'm worried. And, well, where is it? ")),
            "And, well, where is it"
        );
        assert_eq!(last_filled(clauses("what is it, the code?")), "the code");
        assert_eq!(last_filled(clauses(" ... ")), "");
    }

    #[test]
    fn a_word_typed_without_its_accents_is_the_word_with_them() {
        assert_eq!(plain("Mãe's key box"), plain("mae's key box"));
        assert_eq!(plain("João Abreu"), ["joao", "abreu"]);
        assert_eq!(plain("Seán Ó Súilleabháin"), ["sean", "o", "suilleabhain"]);
        assert_eq!(plain("Łódź, Škoda, Øresund"), ["lodz", "skoda", "oresund"]);
        assert_eq!(terms("às 19h15, €386,40"), ["as", "19h15", "€386,40"]);
        // The Icelandic letters as they are typed in English.
        assert_eq!(plain("skoðun Þórsson Ærø"), ["skodun", "thorsson", "aero"]);
        // Letters of their own stay: "ß", and other scripts.
        assert_eq!(plain("Straße Дом"), ["straße", "дом"]);
    }

    #[test]
    fn plain_words_keep_an_inner_apostrophe_and_nothing_else() {
        assert_eq!(
            plain("What's Jan’s number? 'Call' him, at 0176-555!"),
            ["what's", "jan's", "number", "call", "him", "at", "0176", "555"]
        );
        assert_eq!(spans("Jan's PIN"), ["Jan's", "PIN"]);
        assert!(plain(" ... !? ").is_empty());
    }

    #[test]
    fn terms_keep_times_numbers_and_percentages_whole() {
        assert_eq!(
            terms("Meet at 16:40, then 8.05pm (15%) — about 1,000 km."),
            ["meet", "at", "16:40", "then", "8.05pm", "15%", "about", "1,000", "km"]
        );
        assert_eq!(terms("“Saturday”: it’s 3.5"), ["saturday", "it's", "3.5"]);
    }
}
