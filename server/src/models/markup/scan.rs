//! The incremental recogniser of a bare JSON call: byte by byte, it
//! rejects as soon as the text cannot be a call to a known tool, so that
//! ordinary text with braces is released quickly.

/// Keys allowed at the top level of a bare JSON call.
const TOP_KEYS: [&str; 3] = ["name", "arguments", "parameters"];
const KEY_NAME: usize = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scan {
    NeedMore,
    Invalid,
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Consume,
    Reprocess,
    Invalid,
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Lex {
    /// Expecting the first `{`.
    #[default]
    Start,
    /// After the first `{`: a second `{` means doubled braces.
    AfterOpen,
    Token,
    Str,
    StrEscape,
    StrHex(u8),
    Number,
    Literal(&'static [u8], usize),
    /// Doubled braces: the call object ended, an optional `}` may follow.
    OuterClose,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Expect {
    #[default]
    KeyOrEnd,
    Key,
    Colon,
    Value,
    ValueOrEnd,
    CommaOrEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Role {
    #[default]
    Other,
    TopKey,
    Name,
}

/// Byte-level recogniser of a JSON object that may be a call to a known
/// tool. It rejects as soon as the text cannot be such a call (not JSON,
/// a top-level key other than name/arguments/parameters, an unknown name), so
/// that ordinary text with braces is released quickly. The final check is
/// done by serde_json on the complete object.
#[derive(Debug, Default)]
pub(super) struct JsonScan {
    /// Bytes consumed.
    pos: usize,
    lex: Lex,
    expect: Expect,
    /// Open containers, `b'{'` or `b'['`; the call object is `stack[0]`.
    stack: Vec<u8>,
    role: Role,
    string_is_key: bool,
    /// Bytes of the top-level key or name being read.
    text: Vec<u8>,
    /// Index in TOP_KEYS of the key whose value comes next.
    top_key: Option<usize>,
    has_name: bool,
    doubled: bool,
    /// The call object is `input[inner_start..inner_end]`.
    pub(super) inner_start: usize,
    pub(super) inner_end: usize,
    /// End of the whole candidate (including an outer `}`).
    pub(super) end: usize,
}

// Over 200 lines on purpose: one byte-level recogniser whose steps share
// its cursor and nesting state; split, each part would reach into the other.
impl JsonScan {
    pub(super) fn feed(&mut self, input: &[u8], names: &[String]) -> Scan {
        while self.pos < input.len() {
            match self.step(input[self.pos], names) {
                Step::Consume => self.pos += 1,
                Step::Reprocess => {}
                Step::Invalid => return Scan::Invalid,
                Step::Done => return Scan::Done,
            }
        }
        Scan::NeedMore
    }

    /// End of input: true if the candidate is complete.
    pub(super) fn finish(&mut self) -> bool {
        if self.lex == Lex::OuterClose {
            self.end = self.inner_end;
            true
        } else {
            false
        }
    }

    /// `Consume` after `then` when the byte is the one expected (`ok`),
    /// else `Invalid`.
    fn accept(&mut self, ok: bool, then: impl FnOnce(&mut Self)) -> Step {
        if !ok {
            return Step::Invalid;
        }
        then(self);
        Step::Consume
    }

    fn step(&mut self, b: u8, names: &[String]) -> Step {
        match self.lex {
            Lex::Start => self.accept(b == b'{', |scan| scan.lex = Lex::AfterOpen),
            Lex::AfterOpen => {
                if b.is_ascii_whitespace() {
                    return Step::Consume;
                }
                self.stack.push(b'{');
                self.expect = Expect::KeyOrEnd;
                self.lex = Lex::Token;
                if b == b'{' {
                    self.doubled = true;
                    self.inner_start = self.pos;
                    Step::Consume
                } else {
                    Step::Reprocess
                }
            }
            Lex::OuterClose => {
                if b.is_ascii_whitespace() {
                    Step::Consume
                } else if b == b'}' {
                    self.end = self.pos + 1;
                    Step::Done
                } else {
                    self.end = self.inner_end;
                    Step::Done
                }
            }
            Lex::Str => match b {
                b'"' => {
                    self.lex = Lex::Token;
                    self.end_string(names)
                }
                b'\\' if self.role == Role::Other => {
                    self.lex = Lex::StrEscape;
                    Step::Consume
                }
                _ => self.string_byte(b, names),
            },
            Lex::StrEscape => {
                self.lex = match b {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Lex::Str,
                    b'u' => Lex::StrHex(4),
                    _ => return Step::Invalid,
                };
                Step::Consume
            }
            Lex::StrHex(n) => {
                if !b.is_ascii_hexdigit() {
                    return Step::Invalid;
                }
                self.lex = if n == 1 { Lex::Str } else { Lex::StrHex(n - 1) };
                Step::Consume
            }
            Lex::Number => {
                if b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E') {
                    Step::Consume
                } else {
                    self.lex = Lex::Token;
                    self.expect = Expect::CommaOrEnd;
                    Step::Reprocess
                }
            }
            Lex::Literal(word, i) => {
                if b != word[i] {
                    return Step::Invalid;
                }
                if i + 1 == word.len() {
                    self.lex = Lex::Token;
                    self.expect = Expect::CommaOrEnd;
                } else {
                    self.lex = Lex::Literal(word, i + 1);
                }
                Step::Consume
            }
            Lex::Token => self.token(b),
        }
    }

    fn string_byte(&mut self, b: u8, names: &[String]) -> Step {
        match self.role {
            Role::Other => Step::Consume,
            Role::TopKey => {
                self.text.push(b);
                if TOP_KEYS
                    .iter()
                    .any(|k| k.as_bytes().starts_with(&self.text))
                {
                    Step::Consume
                } else {
                    Step::Invalid
                }
            }
            Role::Name => {
                self.text.push(b);
                if names.iter().any(|n| n.as_bytes().starts_with(&self.text)) {
                    Step::Consume
                } else {
                    Step::Invalid
                }
            }
        }
    }

    fn end_string(&mut self, names: &[String]) -> Step {
        match self.role {
            Role::TopKey => {
                let Some(k) = TOP_KEYS.iter().position(|k| k.as_bytes() == self.text) else {
                    return Step::Invalid;
                };
                self.top_key = Some(k);
            }
            Role::Name => {
                if !names.iter().any(|n| n.as_bytes() == self.text) {
                    return Step::Invalid;
                }
                self.has_name = true;
            }
            Role::Other => {}
        }
        self.role = Role::Other;
        self.expect = if self.string_is_key {
            Expect::Colon
        } else {
            Expect::CommaOrEnd
        };
        Step::Consume
    }

    fn start_string(&mut self, is_key: bool, role: Role) -> Step {
        self.string_is_key = is_key;
        self.role = role;
        self.text.clear();
        self.lex = Lex::Str;
        Step::Consume
    }

    fn token(&mut self, b: u8) -> Step {
        if b.is_ascii_whitespace() {
            return Step::Consume;
        }
        let top_level = self.stack.len() == 1;
        match self.expect {
            Expect::KeyOrEnd | Expect::Key => match b {
                b'"' => {
                    let role = if top_level { Role::TopKey } else { Role::Other };
                    self.start_string(true, role)
                }
                b'}' if self.expect == Expect::KeyOrEnd => self.close(),
                _ => Step::Invalid,
            },
            Expect::Colon => self.accept(b == b':', |scan| scan.expect = Expect::Value),
            Expect::ValueOrEnd if b == b']' => self.close(),
            Expect::Value | Expect::ValueOrEnd => {
                if top_level {
                    match (self.top_key, b) {
                        (Some(KEY_NAME), b'"') => return self.start_string(false, Role::Name),
                        (Some(KEY_NAME), _) => return Step::Invalid,
                        (Some(_), b'{' | b'"') => {}
                        _ => return Step::Invalid,
                    }
                }
                self.start_value(b)
            }
            Expect::CommaOrEnd => match (b, self.stack.last()) {
                (b',', Some(b'{')) => {
                    self.expect = Expect::Key;
                    Step::Consume
                }
                (b',', Some(b'[')) => {
                    self.expect = Expect::Value;
                    Step::Consume
                }
                (b'}', Some(b'{')) | (b']', Some(b'[')) => self.close(),
                _ => Step::Invalid,
            },
        }
    }

    fn start_value(&mut self, b: u8) -> Step {
        match b {
            b'"' => self.start_string(false, Role::Other),
            b'{' => {
                self.stack.push(b'{');
                self.expect = Expect::KeyOrEnd;
                Step::Consume
            }
            b'[' => {
                self.stack.push(b'[');
                self.expect = Expect::ValueOrEnd;
                Step::Consume
            }
            b'-' | b'0'..=b'9' => {
                self.lex = Lex::Number;
                Step::Consume
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => Step::Invalid,
        }
    }

    fn literal(&mut self, word: &'static [u8]) -> Step {
        self.lex = Lex::Literal(word, 1);
        Step::Consume
    }

    fn close(&mut self) -> Step {
        self.stack.pop();
        if !self.stack.is_empty() {
            self.expect = Expect::CommaOrEnd;
            return Step::Consume;
        }
        if !self.has_name {
            return Step::Invalid;
        }
        self.inner_end = self.pos + 1;
        if self.doubled {
            self.lex = Lex::OuterClose;
            Step::Consume
        } else {
            self.end = self.pos + 1;
            Step::Done
        }
    }
}
