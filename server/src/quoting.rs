//! Quoting what a user or a file sent in an error message: at most a few
//! dozen characters of it, so a 60 MiB value never comes back in a 400.

/// The most characters of the input an error quotes.
pub const MAX_QUOTED_CHARS: usize = 40;

/// `text` as an error quotes it: in quotes, escaped, cut to
/// [`MAX_QUOTED_CHARS`] with "…" when longer.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((end, _)) => format!("{:?}…", &text[..end]),
        None => format!("{text:?}"),
    }
}

/// A message that may hold input (a JSON parser's, say), with its middle
/// cut: its start (what is wrong, and the start of a quoted value) and its
/// end (what was expected, where) are kept, each at most
/// [`MAX_QUOTED_CHARS`] characters and a little more.
pub fn shortened(message: &str) -> String {
    const KEEP: usize = MAX_QUOTED_CHARS + 24;
    let count = message.chars().count();
    if count <= 2 * KEEP + 1 {
        return message.to_string();
    }
    let head: String = message.chars().take(KEEP).collect();
    let tail: String = message.chars().skip(count - KEEP).collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_value_is_quoted_in_part() {
        assert_eq!(quoted("short"), "\"short\"");
        let long = "x".repeat(10_000);
        let q = quoted(&long);
        assert!(q.chars().count() <= MAX_QUOTED_CHARS + 3, "{q}");
        assert!(q.ends_with('…'));
    }

    #[test]
    fn a_long_message_keeps_its_ends() {
        let message = format!(
            "invalid type: string \"{}\", expected a sequence at line 1 column 70000",
            "y".repeat(70_000)
        );
        let short = shortened(&message);
        assert!(short.chars().count() < 160, "{short}");
        assert!(short.starts_with("invalid type: string \"yyy"));
        assert!(short.ends_with("expected a sequence at line 1 column 70000"));
        assert_eq!(shortened("small"), "small");
    }
}
