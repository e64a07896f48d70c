//! The last guard between a model's text and the user: tool-call markup
//! that got past the format's parser never reaches the page.
//!
//! Small models write calls the parsers cannot read: unterminated, nested,
//! in a format other than the configured one, or mangled like
//! `{"name": "ask {"name": "ask_user", "arguments": …`. [`ShownText`] runs
//! on every text a model streams, whatever the tool format, and drops:
//!
//! * JSON objects shaped like a call or a tool's result — a `{` whose
//!   first key is `name`, `arguments`, `parameters`, `function`,
//!   `tool_name`, `tool_call` or `response` — to their closing brace
//!   (strings and nesting followed), or to the end of the turn when they
//!   never close;
//! * `<tool_call>`, `<function=…>` and `<tool_response>` blocks to their
//!   closing tag (or the end), the `<tools>` list of a prompt said back,
//!   stray closing tags and `<parameter=…>` tags, and chat-template tokens
//!   such as `<|im_end|>`.
//!
//! Text that could still become markup is held back until it is decided,
//! so a call split across stream chunks is never shown in part.

/// The first keys that make a JSON object a tool call, or a tool's
/// result said back (`{"response": "2 memories found"}`).
const CALL_KEYS: [&str; 7] = [
    "name",
    "arguments",
    "parameters",
    "function",
    "tool_name",
    "tool_call",
    "response",
];

/// Tags that open a block dropped up to its closing tag.
const BLOCKS: [(&str, &str); 5] = [
    ("<tool_call", "</tool_call>"),
    ("<function=", "</function>"),
    ("<tool_response", "</tool_response>"),
    ("<tools>", "</tools>"),
    ("<|", "|>"),
];

/// Tags dropped on their own, up to their `>`.
const LONE_TAGS: [&str; 6] = [
    "</tool_call",
    "</function",
    "<parameter=",
    "</parameter",
    "</tool_response",
    "</tools>",
];

/// Where the guard stands in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Ordinary text.
    Shown,
    /// Inside a call-shaped JSON object.
    Object {
        depth: u32,
        quote: Option<char>,
        escaped: bool,
    },
    /// Inside a block, until this closing tag.
    Block(&'static str),
    /// Inside a lone tag, until its `>`.
    Tag,
}

/// What the text at a `{` or `<` is.
enum Start {
    Text,
    /// Could still become markup: wait for more.
    Undecided,
    Object,
    /// A block: its opening text length and closing tag.
    Block(&'static str),
    Tag,
}

/// A streaming filter over a model's text (see the module docs).
#[derive(Debug)]
pub struct ShownText {
    /// Text received and not yet decided.
    held: String,
    state: State,
    /// Markup dropped since the last [`ShownText::take_dropped`].
    dropped: String,
}

impl Default for ShownText {
    fn default() -> Self {
        Self::new()
    }
}

impl ShownText {
    pub fn new() -> Self {
        Self {
            held: String::new(),
            state: State::Shown,
            dropped: String::new(),
        }
    }

    /// Feeds a chunk; returns the text that can be shown now.
    pub fn push(&mut self, chunk: &str) -> String {
        self.held.push_str(chunk);
        self.run(false)
    }

    /// The end of the text: what is still held is markup that never
    /// finished, and is dropped.
    pub fn finish(&mut self) -> String {
        let shown = self.run(true);
        self.dropped.push_str(&std::mem::take(&mut self.held));
        self.state = State::Shown;
        shown
    }

    /// The markup dropped so far (for the log, and to tell the model its
    /// call could not be read); empties it.
    pub fn take_dropped(&mut self) -> String {
        std::mem::take(&mut self.dropped)
    }

    fn run(&mut self, fin: bool) -> String {
        let text = std::mem::take(&mut self.held);
        let mut shown = String::new();
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            match self.state.clone() {
                State::Shown => {
                    let Some(j) = rest.find(['{', '<']) else {
                        shown.push_str(rest);
                        i = text.len();
                        break;
                    };
                    shown.push_str(&rest[..j]);
                    i += j;
                    match start_at(&text[i..], fin) {
                        Start::Text => {
                            shown.push_str(&text[i..i + 1]);
                            i += 1;
                        }
                        Start::Undecided => break,
                        Start::Object => {
                            self.state = State::Object {
                                depth: 0,
                                quote: None,
                                escaped: false,
                            }
                        }
                        Start::Block(close) => self.state = State::Block(close),
                        Start::Tag => self.state = State::Tag,
                    }
                }
                State::Object {
                    mut depth,
                    mut quote,
                    mut escaped,
                } => {
                    let mut end = None;
                    for (k, c) in rest.char_indices() {
                        if let Some(q) = quote {
                            if escaped {
                                escaped = false;
                            } else if c == '\\' {
                                escaped = true;
                            } else if c == q {
                                quote = None;
                            }
                            continue;
                        }
                        match c {
                            '"' => quote = Some('"'),
                            '{' | '[' => depth += 1,
                            '}' | ']' => {
                                depth = depth.saturating_sub(1);
                                if depth == 0 {
                                    end = Some(k + 1);
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    match end {
                        Some(end) => {
                            self.dropped.push_str(&rest[..end]);
                            self.state = State::Shown;
                            i += end;
                        }
                        None => {
                            self.dropped.push_str(rest);
                            self.state = State::Object {
                                depth,
                                quote,
                                escaped,
                            };
                            i = text.len();
                        }
                    }
                }
                State::Block(close) => match find_ignoring_case(rest, close) {
                    Some(k) => {
                        self.dropped.push_str(&rest[..k + close.len()]);
                        self.state = State::Shown;
                        i += k + close.len();
                    }
                    None => {
                        // Keep what could be the start of the closing tag.
                        let keep = floor_boundary(rest, rest.len().saturating_sub(close.len() - 1));
                        self.dropped.push_str(&rest[..keep]);
                        i += keep;
                        break;
                    }
                },
                State::Tag => match rest.find('>') {
                    Some(k) => {
                        self.dropped.push_str(&rest[..=k]);
                        self.state = State::Shown;
                        i += k + 1;
                    }
                    None => {
                        self.dropped.push_str(rest);
                        i = text.len();
                    }
                },
            }
        }
        self.held = text[i..].to_string();
        shown
    }
}

/// Drops every piece of tool-call markup from a whole text, and the code
/// fences left empty by it; trims the result.
pub fn without_markup(text: &str) -> String {
    let mut guard = ShownText::new();
    let mut shown = guard.push(text);
    shown.push_str(&guard.finish());
    without_empty_fences(&shown).trim().to_string()
}

/// Removes code fences with nothing but whitespace inside (what is left of
/// a fenced call once the call is dropped).
fn without_empty_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after_open = &rest[open + 3..];
        // The fence's language word, then only whitespace, then the close.
        let lang = after_open
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after_open.len());
        let body = &after_open[lang..];
        let blank = body.len() - body.trim_start().len();
        if body[blank..].starts_with("```") {
            out.push_str(rest[..open].trim_end_matches([' ', '\t']));
            rest = &body[blank + 3..];
            continue;
        }
        // A real code block: keep it whole.
        match body.find("```") {
            Some(close) => {
                let end = open + 3 + lang + close + 3;
                out.push_str(&rest[..end]);
                rest = &rest[end..];
            }
            None => {
                out.push_str(rest);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    // Collapse the blank lines a dropped block leaves.
    let mut collapsed = String::with_capacity(out.len());
    let mut newlines = 0;
    for c in out.chars() {
        if c == '\n' {
            newlines += 1;
            if newlines > 2 {
                continue;
            }
        } else if !c.is_whitespace() {
            newlines = 0;
        }
        collapsed.push(c);
    }
    collapsed
}

/// What the text at `s` (starting with `{` or `<`) is.
fn start_at(s: &str, fin: bool) -> Start {
    if s.starts_with('{') {
        return object_start(s, fin);
    }
    let lower: String = s.chars().take(24).collect::<String>().to_lowercase();
    for (open, close) in BLOCKS {
        if lower.starts_with(open) {
            return Start::Block(close);
        }
    }
    for tag in LONE_TAGS {
        if lower.starts_with(tag) {
            return Start::Tag;
        }
    }
    let could_become = BLOCKS
        .iter()
        .map(|(open, _)| *open)
        .chain(LONE_TAGS)
        .any(|tag| tag.starts_with(lower.as_str()));
    if could_become && !fin {
        Start::Undecided
    } else if could_become {
        // The text ends inside what can only be a tag's start.
        Start::Tag
    } else {
        Start::Text
    }
}

/// `{`, maybe more braces, whitespace or a backslash, then a quoted key:
/// a call when the key is one of [`CALL_KEYS`].
fn object_start(s: &str, fin: bool) -> Start {
    let undecided = if fin { Start::Object } else { Start::Undecided };
    let mut chars = s.char_indices().skip(1).peekable();
    let mut skipped = 0;
    let quote = loop {
        match chars.next() {
            None => return undecided,
            Some((_, c)) if c.is_whitespace() || c == '{' || c == '\\' => {
                skipped += 1;
                if skipped > 40 {
                    return Start::Text;
                }
            }
            Some((_, c @ ('"' | '\''))) => break c,
            Some(_) => return Start::Text,
        }
    };
    let mut key = String::new();
    for (_, c) in chars {
        if c == quote || c == '\\' {
            return if CALL_KEYS.contains(&key.to_lowercase().as_str()) {
                Start::Object
            } else {
                Start::Text
            };
        }
        if !(c.is_ascii_alphabetic() || c == '_') || key.len() >= 12 {
            return Start::Text;
        }
        key.push(c);
    }
    let key = key.to_lowercase();
    if CALL_KEYS.iter().any(|k| k.starts_with(key.as_str())) {
        undecided
    } else {
        Start::Text
    }
}

fn find_ignoring_case(haystack: &str, needle: &str) -> Option<usize> {
    haystack.char_indices().map(|(i, _)| i).find(|&i| {
        haystack
            .get(i..i + needle.len())
            .is_some_and(|part| part.eq_ignore_ascii_case(needle))
    })
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// True when `text` shows tool-call markup: what the guard must never let
/// through (used by the tests, here and in the API tests).
pub fn shows_markup(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let lower = squeezed.to_lowercase();
    lower.contains("{\"name\"")
        || lower.contains("{\"arguments\"")
        || lower.contains("<tool_call")
        || lower.contains("</tool_call")
        || lower.contains("<function=")
        || lower.contains("{\"response\"")
        || lower.contains("<tools>")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bad outputs of small models, the ones of issue 14 among them.
    pub const BAD_OUTPUTS: &[&str] = &[
        r#"{"name": "ask {"name": "ask_user", "arguments": {"name": "ask_user", "arguments":"#,
        r#"I set it. {"name": "store", "arguments": {"content": "Call Anna"}}"#,
        r#"{"name": "ask_user", "arguments": {"question": "Do you want to call Anna?", "options": ["Yes", "No"]}}"#,
        "<tool_call>\n{\"name\": \"store\", \"arguments\": {\"content\": \"Call Anna\"}}\n</tool_call>",
        "<tool_call>\n{\"name\": \"ask_user\", \"arguments\": {\"question\": \"Anything else?\"",
        "Done.\n<tool_call><function=ask_user><parameter=question>Anything else?</parameter></function></tool_call>",
        "<function=store><parameter=content>Call Anna</parameter>",
        "```json\n{\"name\": \"remind\", \"arguments\": {\"text\": \"Call Anna\", \"at\": \"2026-12-01T09:00\"}}\n```",
        "{{\"name\": \"search\", \"arguments\": {\"query\": \"notes\"}}}",
        "{ \"name\" : \"list_projects\", \"arguments\": {} } {\"name\": \"list_projects\"",
        "I'll ask. {\"arguments\": {\"question\": \"When?\"}, \"name\": \"ask_user\"}",
        "</tool_call> The reminder is set.<|im_end|>",
        "{\"name\": \"ask_user\", \"arguments\": {\"question\": \"a \\\"quoted\\\" {brace}\"}} ok",
        "{\"function\": {\"name\": \"store\"}} {'name': 'store'}",
        // The model saying its tools and their results back as its answer.
        "{\"response\": \"No results found.\"}{\"response\": \"2 memories found:\"}",
        "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"search\"}}\n</tools>\n\n1 memories found",
    ];

    /// Texts that must pass through unchanged.
    const PLAIN: &[&str] = &[
        "Your reminder is set for Tuesday 09:00 to call Anna.",
        "Use {braces} and x < y, or <b>bold</b>; {\"title\": \"Notes\"} is fine.",
        "Sets: {1, 2} and {} and {\"names\": 3}",
        "An arrow <- and a tag <tool> and <func> stay.",
    ];

    /// A small seeded generator: the same cases on every run.
    struct Seeded(u64);

    impl Seeded {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n.max(1) as u64) as usize
        }
    }

    fn boundary(s: &str, i: usize) -> usize {
        let mut i = i.min(s.len());
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    /// Feeds `text` in random chunks; returns everything shown.
    fn shown_in_chunks(text: &str, rng: &mut Seeded) -> String {
        let mut guard = ShownText::new();
        let mut shown = String::new();
        let mut at = 0;
        while at < text.len() {
            let next = boundary(text, at + 1 + rng.below(12));
            let next = if next <= at { text.len() } else { next };
            shown.push_str(&guard.push(&text[at..next]));
            at = next;
        }
        shown.push_str(&guard.finish());
        shown
    }

    #[test]
    fn the_mangled_answer_of_issue_14_shows_nothing() {
        assert_eq!(without_markup(BAD_OUTPUTS[0]), "");
        assert_eq!(without_markup(BAD_OUTPUTS[1]), "I set it.");
        assert_eq!(without_markup(BAD_OUTPUTS[5]), "Done.");
        assert_eq!(without_markup(BAD_OUTPUTS[7]), "");
        assert_eq!(without_markup(BAD_OUTPUTS[11]), "The reminder is set.");
        assert_eq!(without_markup(BAD_OUTPUTS[12]), "ok");
    }

    #[test]
    fn random_splits_and_truncations_of_bad_outputs_never_show_markup() {
        let mut rng = Seeded(0x5eed_1234_abcd_0001);
        for _ in 0..400 {
            for bad in BAD_OUTPUTS {
                // Whole, truncated anywhere, and with text around it.
                let cut = boundary(bad, rng.below(bad.len() + 1));
                for text in [
                    bad.to_string(),
                    bad[..cut].to_string(),
                    format!("Sure. {}\n\nThe reminder is set.", &bad[..cut]),
                    format!("{bad}{bad}"),
                ] {
                    let shown = shown_in_chunks(&text, &mut rng);
                    assert!(!shows_markup(&shown), "{text:?} showed {shown:?}");
                    assert!(!shows_markup(&without_markup(&text)), "{text:?}");
                }
            }
        }
    }

    /// Text as the model client shows it: the format's parser, then the
    /// guard.
    fn shown_through_the_parser(
        text: &str,
        format: super::super::markup::MarkupFormat,
        rng: &mut Seeded,
    ) -> String {
        use super::super::markup::{MarkupEvent, MarkupParser};
        let tools: Vec<serde_json::Value> = ["search", "list_projects", "store", "remind", "ask_user"]
            .iter()
            .map(|name| serde_json::json!({"type": "function", "function": {"name": name, "parameters": {}}}))
            .collect();
        let mut parser = MarkupParser::new(format, &tools);
        let mut guard = ShownText::new();
        let mut shown = String::new();
        let show = |events: Vec<MarkupEvent>, guard: &mut ShownText, shown: &mut String| {
            for event in events {
                if let MarkupEvent::Text(text) = event {
                    shown.push_str(&guard.push(&text));
                }
            }
        };
        let mut at = 0;
        while at < text.len() {
            let next = boundary(text, at + 1 + rng.below(9));
            let next = if next <= at { text.len() } else { next };
            show(parser.push(&text[at..next]), &mut guard, &mut shown);
            at = next;
        }
        show(parser.finish(), &mut guard, &mut shown);
        shown.push_str(&guard.finish());
        shown
    }

    #[test]
    fn through_each_format_s_parser_bad_outputs_never_show_markup() {
        use super::super::markup::MarkupFormat;
        let mut rng = Seeded(0x00ba_d0ff_5eed);
        for _ in 0..150 {
            for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
                for bad in BAD_OUTPUTS {
                    let cut = boundary(bad, rng.below(bad.len() + 1));
                    for text in [
                        bad.to_string(),
                        bad[..cut].to_string(),
                        format!("Ok. {bad} Done."),
                    ] {
                        let shown = shown_through_the_parser(&text, format, &mut rng);
                        assert!(
                            !shows_markup(&shown),
                            "{format:?} {text:?} showed {shown:?}"
                        );
                    }
                }
                for text in PLAIN {
                    assert_eq!(
                        &shown_through_the_parser(text, format, &mut rng),
                        text,
                        "{format:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn plain_text_passes_unchanged_under_any_split() {
        let mut rng = Seeded(42);
        for _ in 0..300 {
            for text in PLAIN {
                assert_eq!(&shown_in_chunks(text, &mut rng), text);
            }
        }
    }

    #[test]
    fn text_around_a_call_is_kept_in_order() {
        let mut rng = Seeded(7);
        for _ in 0..200 {
            let text = "Before. {\"name\": \"store\", \"arguments\": {\"content\": \"x}\"}} After.";
            assert_eq!(shown_in_chunks(text, &mut rng), "Before.  After.");
        }
    }

    #[test]
    fn what_was_dropped_can_be_told() {
        let mut guard = ShownText::new();
        let shown = guard.push("Hi {\"name\": \"store\"}");
        assert_eq!(shown, "Hi ");
        assert_eq!(guard.take_dropped(), "{\"name\": \"store\"}");
        assert_eq!(guard.take_dropped(), "");
    }

    #[test]
    fn empty_fences_left_by_a_dropped_call_go_too() {
        assert_eq!(
            without_markup("Done:\n```json\n{\"name\": \"store\"}\n```\nbye"),
            "Done:\n\nbye"
        );
        let code = "Here:\n```rust\nfn main() {}\n```";
        assert_eq!(without_markup(code), code);
    }
}
