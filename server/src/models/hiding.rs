//! Hiding a model key in text a model server sent: the one [`hide`] every
//! such text passes through before it is clipped, stored, logged or sent
//! (errors, garbage, the Model page's test reply, listing errors, a
//! reply's streamed text through [`StreamHider`], a step's answer).
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
    let windows: HashSet<&[u8]> = key.as_bytes().windows(MIN_HIDDEN_RUN).collect();
    hide_ranges(text, &hidden_ranges(text, &windows))
}

/// The byte ranges of `text` to hide: its runs of windows found in the
/// key, merged as they are found (windows come in order).
fn hidden_ranges(text: &str, windows: &HashSet<&[u8]>) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (start, window) in text.as_bytes().windows(MIN_HIDDEN_RUN).enumerate() {
        if !windows.contains(window) {
            continue;
        }
        let end = start + MIN_HIDDEN_RUN;
        match ranges.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => ranges.push((start, end)),
        }
    }
    ranges
}

/// `text` with `ranges` replaced by [`HIDDEN`].
fn hide_ranges(text: &str, ranges: &[(usize, usize)]) -> String {
    if ranges.is_empty() {
        return text.to_string();
    }
    let mut hidden = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in ranges {
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

/// [`hide`] for text that comes in parts (a streamed reply): a key said
/// back may be split between two parts, so the end of what came so far
/// that could still begin or continue a run is held until the next part
/// (at most [`MIN_HIDDEN_RUN`] − 1 bytes, or a run that reaches the end).
/// With no key configured, parts pass as they are and nothing is held.
pub struct StreamHider {
    key: Option<String>,
    held: String,
}

impl StreamHider {
    pub fn new(key: Option<&str>) -> Self {
        Self {
            key: key.filter(|k| !k.is_empty()).map(str::to_string),
            held: String::new(),
        }
    }

    /// What of the text so far can be shown now, hidden.
    pub fn push(&mut self, part: &str) -> String {
        let Some(key) = self.key.as_deref() else {
            return part.to_string();
        };
        self.held.push_str(part);
        let mut from = floor_boundary(
            &self.held,
            self.held.len().saturating_sub(MIN_HIDDEN_RUN - 1),
        );
        if key.len() < MIN_HIDDEN_RUN {
            // Hidden only whole: what could be the start of the key waits,
            // and so does a whole one across that point.
            from = floor_boundary(&self.held, self.held.len().saturating_sub(key.len() - 1));
            if let Some((start, _)) = self
                .held
                .match_indices(key)
                .find(|&(start, _)| start < from && start + key.len() > from)
            {
                from = start;
            }
            let rest = self.held.split_off(from);
            let ready = std::mem::replace(&mut self.held, rest);
            return ready.replace(key, HIDDEN);
        }
        let windows: HashSet<&[u8]> = key.as_bytes().windows(MIN_HIDDEN_RUN).collect();
        let ranges = hidden_ranges(&self.held, &windows);
        // A run over (or up to) the point where holding starts may go on
        // in the next part: it is held whole, to be hidden as one mark.
        if let Some(&(start, _)) = ranges.iter().find(|&&(_, end)| end >= from) {
            from = from.min(floor_boundary(&self.held, start));
        }
        let ready: Vec<(usize, usize)> =
            ranges.into_iter().filter(|&(_, end)| end < from).collect();
        let rest = self.held.split_off(from);
        let ready_text = std::mem::replace(&mut self.held, rest);
        hide_ranges(&ready_text, &ready)
    }

    /// The rest, hidden: the text has ended.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.held);
        hide(&rest, self.key.as_deref())
    }
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

    /// Everything `parts` give through a [`StreamHider`].
    fn streamed(parts: &[&str], key: Option<&str>) -> String {
        let mut hider = StreamHider::new(key);
        let mut out: String = parts.iter().map(|part| hider.push(part)).collect();
        out.push_str(&hider.finish());
        out
    }

    #[test]
    fn a_key_split_between_streamed_parts_is_hidden() {
        let said = format!("You sent Bearer {KEY}, thanks");
        // Every split point, and a part a character long.
        for at in 0..said.len() {
            let (a, b) = said.split_at(at);
            assert_eq!(streamed(&[a, b], Some(KEY)), hide(&said, Some(KEY)), "{at}");
        }
        let twice = format!("{KEY}{KEY} and {KEY}");
        for at in 0..twice.len() {
            let (a, b) = twice.split_at(at);
            assert_eq!(streamed(&[a, b], Some(KEY)), "[key] and [key]", "{at}");
        }
        let chars: Vec<String> = said.chars().map(String::from).collect();
        let parts: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(streamed(&parts, Some(KEY)), "You sent Bearer [key], thanks");
        assert_eq!(
            streamed(&["ab", "c key a", "bc"], Some("abc")),
            "[key] key [key]"
        );
    }

    #[test]
    fn without_a_key_streamed_parts_pass_at_once() {
        let mut hider = StreamHider::new(None);
        assert_eq!(hider.push("Hello"), "Hello");
        assert_eq!(hider.finish(), "");
        // With one, no more than the end that could begin a run waits.
        let mut hider = StreamHider::new(Some(KEY));
        assert_eq!(hider.push("Hello there, friend"), "Hello there,");
        assert_eq!(hider.finish(), " friend");
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
