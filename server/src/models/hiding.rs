//! Hiding a model key in text a model server sent: the one [`hide`] every
//! such text passes through before it is clipped, stored, logged or sent
//! (errors, garbage, the Model page's test reply, listing errors).
//!
//! A server may say the key back whole ("Incorrect API key provided:
//! sk-…") or in part (a gateway that shows its first characters, or
//! text clipped somewhere along the way), so any run of
//! [`MIN_HIDDEN_RUN`] or more characters of the key is hidden, not only
//! the whole key.

use std::collections::HashSet;

/// The shortest run of the key's characters that is hidden. A key shorter
/// than this is hidden only whole.
pub const MIN_HIDDEN_RUN: usize = 8;

/// What a hidden run is replaced with.
pub const HIDDEN: &str = "[key]";

/// `text` with every run of at least [`MIN_HIDDEN_RUN`] bytes that also
/// appears in `key` (and the whole key) replaced by [`HIDDEN`]. Linear in
/// the text: the runs are exactly the union of the text's 8-byte windows
/// found in the key, so each window is looked up once.
pub fn hide(text: &str, key: Option<&str>) -> String {
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return text.to_string();
    };
    if key.len() < MIN_HIDDEN_RUN {
        return text.replace(key, HIDDEN);
    }
    let key = key.as_bytes();
    let windows: HashSet<&[u8]> = key.windows(MIN_HIDDEN_RUN).collect();
    let bytes = text.as_bytes();
    // Byte ranges to hide, merged as they are found (windows come in order).
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (start, window) in bytes.windows(MIN_HIDDEN_RUN).enumerate() {
        if !windows.contains(window) {
            continue;
        }
        let end = start + MIN_HIDDEN_RUN;
        match ranges.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => ranges.push((start, end)),
        }
    }
    if ranges.is_empty() {
        return text.to_string();
    }
    let mut hidden = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in ranges {
        // A key of other than ASCII can match part of a character: hide
        // the whole character.
        let start = floor_boundary(text, start).max(at);
        let end = ceil_boundary(text, end);
        hidden.push_str(&text[at..start]);
        hidden.push_str(HIDDEN);
        at = end;
    }
    hidden.push_str(&text[at..]);
    hidden
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

    #[test]
    fn the_whole_key_is_hidden() {
        let said = format!("Incorrect API key provided: {KEY}. See the docs.");
        assert_eq!(
            hide(&said, Some(KEY)),
            "Incorrect API key provided: [key]. See the docs."
        );
    }

    #[test]
    fn any_run_of_eight_characters_of_the_key_is_hidden() {
        // A gateway that shows part of the key, and text clipped mid-key.
        let part = &KEY[5..30];
        let said = format!("key {part}*** is wrong; also {}", &KEY[..12]);
        let hidden = hide(&said, Some(KEY));
        assert_eq!(hidden, "key [key]*** is wrong; also [key]");
        // Seven characters are not a run.
        let short = format!("near {} miss", &KEY[10..17]);
        assert_eq!(hide(&short, Some(KEY)), short);
    }

    #[test]
    fn repeated_and_adjacent_runs_become_one_mark() {
        let said = format!("{KEY}{KEY} and {KEY}");
        assert_eq!(hide(&said, Some(KEY)), "[key] and [key]");
    }

    #[test]
    fn short_keys_and_no_key() {
        assert_eq!(hide("abc key abc", Some("abc")), "[key] key [key]");
        assert_eq!(hide("text", None), "text");
        assert_eq!(hide("text", Some("")), "text");
    }

    #[test]
    fn other_characters_are_kept_whole() {
        let key = "ключ-ключ-ключ-ключ";
        let said = format!("é {key} ü");
        assert_eq!(hide(&said, Some(key)), "é [key] ü");
        let part = &key[4..20];
        let hidden = hide(&format!("«{part}»"), Some(key));
        assert!(!hidden.contains(part) && hidden.contains(HIDDEN));
    }
}
