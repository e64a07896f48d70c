//! The incremental parser: separates text from tool-call markup as the
//! reply streams in, holding back only what could still become markup.

use std::collections::HashMap;

use serde_json::Value;

use super::json_text::parse_lenient;
use super::lenient::{call_from_value, parse_block};
use super::scan::{JsonScan, Scan};
use super::{
    MarkupEvent, MarkupFormat, FENCE, FUNC_CLOSE, FUNC_OPEN, PARAM_CLOSE, RESPONSE_CLOSE,
    RESPONSE_OPEN, TOOL_CLOSE, TOOL_OPEN,
};

/// How a bare JSON candidate relates to a code fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fenced {
    /// Not in a fence.
    No,
    /// `buf[..start]` is the fence opener (```` ```lang ```` + whitespace).
    Opening,
    /// Inside a fence whose opener was consumed together with an earlier call.
    Inside,
}

#[derive(Debug)]
enum Mode {
    /// Ordinary text.
    Text,
    /// A `{` at `buf[start]` that may start a bare JSON call.
    Json {
        scan: JsonScan,
        start: usize,
        fenced: Fenced,
    },
    /// Inside a block ending with `close`; the block content starts at `buf[0]`.
    Tag {
        close: &'static str,
        /// Where to resume searching for `close`.
        searched: usize,
        /// The block was opened inside a fence whose opener was consumed.
        fenced: bool,
    },
    /// After a call inside a code fence: waiting for the closing fence.
    FenceClose,
}

/// Incremental parser separating text from tool-call markup.
#[derive(Debug)]
pub struct MarkupParser {
    format: MarkupFormat,
    /// Tool name -> JSON schema of its parameters.
    schemas: HashMap<String, Value>,
    names: Vec<String>,
    /// Text received but not yet emitted or consumed.
    buf: String,
    mode: Mode,
    /// Inside a ``` code block that is shown as text.
    in_code: bool,
    out: Vec<MarkupEvent>,
    /// The last event was a call (or malformed call).
    after_call: bool,
    /// Whitespace seen after a call, emitted only if real text follows.
    pending_ws: String,
}

// Over 200 lines on purpose: one streaming state machine whose states share
// one buffer and position; split, each part would reach into the other.
impl MarkupParser {
    /// `tools` is the list of tool schemas in OpenAI format:
    /// `[{"type":"function","function":{"name":"search","description":"…","parameters":{"type":"object","properties":{"query":{"type":"string"},"options":{"type":"array","items":{"type":"string"}}, …},"required":[…]}}}, …]`
    pub fn new(format: MarkupFormat, tools: &[Value]) -> Self {
        let mut schemas = HashMap::new();
        let mut names = Vec::new();
        for tool in tools {
            let function = tool.get("function").unwrap_or(tool);
            let Some(name) = function.get("name").and_then(Value::as_str) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let params = function.get("parameters").cloned().unwrap_or(Value::Null);
            if schemas.insert(name.to_string(), params).is_none() {
                names.push(name.to_string());
            }
        }
        MarkupParser {
            format,
            schemas,
            names,
            buf: String::new(),
            mode: Mode::Text,
            in_code: false,
            out: Vec::new(),
            after_call: false,
            pending_ws: String::new(),
        }
    }

    /// Feed one streamed chunk; returns what can be decided so far, in order.
    pub fn push(&mut self, chunk: &str) -> Vec<MarkupEvent> {
        self.buf.push_str(chunk);
        self.process(false);
        std::mem::take(&mut self.out)
    }

    /// End of stream: flush everything.
    pub fn finish(&mut self) -> Vec<MarkupEvent> {
        self.process(true);
        self.buf.clear();
        self.mode = Mode::Text;
        self.in_code = false;
        self.after_call = false;
        self.pending_ws.clear();
        std::mem::take(&mut self.out)
    }

    fn process(&mut self, fin: bool) {
        loop {
            let progressed = match self.mode {
                Mode::Text => self.step_text(fin),
                Mode::Json { .. } => self.step_json(fin),
                Mode::Tag { .. } => self.step_tag(fin),
                Mode::FenceClose => self.step_fence_close(fin),
            };
            if !progressed {
                break;
            }
        }
    }

    /// Emits text up to the next markup candidate and switches mode.
    /// Returns false when it needs more input.
    fn step_text(&mut self, fin: bool) -> bool {
        let hermes = self.format == MarkupFormat::Hermes;
        let bytes = self.buf.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'<' => match tag_at(&self.buf[i..], self.format, fin) {
                    TagHit::None => {}
                    TagHit::Wait => {
                        self.flush_text(i);
                        return false;
                    }
                    TagHit::ToolOpen => {
                        self.flush_text(i);
                        let n = TOOL_OPEN.len().min(self.buf.len());
                        self.buf.drain(..n);
                        self.mode = Mode::Tag {
                            close: TOOL_CLOSE,
                            searched: 0,
                            fenced: false,
                        };
                        return true;
                    }
                    TagHit::FuncOpen => {
                        self.flush_text(i);
                        self.mode = Mode::Tag {
                            close: FUNC_CLOSE,
                            searched: 0,
                            fenced: false,
                        };
                        return true;
                    }
                    TagHit::Stray(len) => {
                        self.flush_text(i);
                        self.buf.drain(..len);
                        return true;
                    }
                },
                b'{' if hermes && !self.in_code => {
                    self.flush_text(i);
                    self.mode = Mode::Json {
                        scan: JsonScan::default(),
                        start: 0,
                        fenced: Fenced::No,
                    };
                    return true;
                }
                b'`' => {
                    let hit = if self.in_code {
                        closing_fence_at(&self.buf[i..], fin)
                    } else {
                        fence_at(&self.buf[i..], hermes, fin)
                    };
                    match hit {
                        FenceHit::None => {}
                        FenceHit::Wait => {
                            self.flush_text(i);
                            return false;
                        }
                        FenceHit::Plain => {
                            self.in_code = !self.in_code;
                            i += FENCE.len();
                            continue;
                        }
                        FenceHit::Json(j) => {
                            self.flush_text(i);
                            self.mode = Mode::Json {
                                scan: JsonScan::default(),
                                start: j,
                                fenced: Fenced::Opening,
                            };
                            return true;
                        }
                        FenceHit::Tag(j) => {
                            self.flush_text(i);
                            let n = (j + TOOL_OPEN.len()).min(self.buf.len());
                            self.buf.drain(..n);
                            self.mode = Mode::Tag {
                                close: TOOL_CLOSE,
                                searched: 0,
                                fenced: true,
                            };
                            return true;
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.flush_text(self.buf.len());
        false
    }

    fn step_json(&mut self, fin: bool) -> bool {
        let Mode::Json {
            scan,
            start,
            fenced,
        } = &mut self.mode
        else {
            return false;
        };
        let (start, fenced) = (*start, *fenced);
        let mut result = scan.feed(&self.buf.as_bytes()[start..], &self.names);
        if result == Scan::NeedMore && fin {
            result = if scan.finish() {
                Scan::Done
            } else {
                Scan::Invalid
            };
        }
        let (inner_start, inner_end, end) = (scan.inner_start, scan.inner_end, scan.end);
        match result {
            Scan::NeedMore => false,
            Scan::Done => {
                let object = &self.buf[start + inner_start..start + inner_end];
                match parse_lenient(object).and_then(|v| call_from_value(&v)) {
                    Some(call) => {
                        self.buf.drain(..start + end);
                        self.emit_event(MarkupEvent::Call(call));
                        self.mode = if fenced == Fenced::No {
                            Mode::Text
                        } else {
                            Mode::FenceClose
                        };
                    }
                    None => self.reject_json(fenced),
                }
                true
            }
            Scan::Invalid => {
                self.reject_json(fenced);
                true
            }
        }
    }

    /// The candidate is not a call: emit its first token as text and go on.
    fn reject_json(&mut self, fenced: Fenced) {
        match fenced {
            Fenced::No => self.flush_text(1),
            Fenced::Opening => {
                self.flush_text(FENCE.len());
                self.in_code = !self.in_code;
            }
            Fenced::Inside => {
                self.flush_text(1);
                // The opening fence was consumed, the closing one will be text.
                self.in_code = true;
            }
        }
        self.mode = Mode::Text;
    }

    fn step_tag(&mut self, fin: bool) -> bool {
        let Mode::Tag {
            close,
            searched,
            fenced,
        } = &mut self.mode
        else {
            return false;
        };
        let (close, fenced) = (*close, *fenced);
        let from = floor_char_boundary(&self.buf, *searched);
        let next = if fenced { Mode::FenceClose } else { Mode::Text };
        if let Some(k) = self.buf[from..].find(close).map(|k| k + from) {
            let inner: String = self.buf[..k].to_string();
            self.buf.drain(..k + close.len());
            self.mode = next;
            self.emit_block(&inner);
            return true;
        }
        if fin {
            let inner = std::mem::take(&mut self.buf);
            let inner = strip_partial_close(&inner);
            self.mode = next;
            self.emit_block(inner);
            return true;
        }
        *searched = self.buf.len().saturating_sub(close.len() - 1);
        false
    }

    fn step_fence_close(&mut self, fin: bool) -> bool {
        let ws = self.buf.len() - self.buf.trim_start().len();
        let rest = &self.buf[ws..];
        if rest.is_empty() {
            if fin {
                self.flush_text(ws);
                self.mode = Mode::Text;
                return true;
            }
            return false;
        }
        if rest.starts_with(FENCE) {
            self.buf.drain(..ws + FENCE.len());
            self.mode = Mode::Text;
            return true;
        }
        if rest.starts_with(TOOL_OPEN) {
            self.flush_text(ws);
            self.buf.drain(..TOOL_OPEN.len());
            self.mode = Mode::Tag {
                close: TOOL_CLOSE,
                searched: 0,
                fenced: true,
            };
            return true;
        }
        if !fin && (FENCE.starts_with(rest) || TOOL_OPEN.starts_with(rest)) {
            return false;
        }
        if rest.starts_with('{') && self.format == MarkupFormat::Hermes {
            self.flush_text(ws);
            self.mode = Mode::Json {
                scan: JsonScan::default(),
                start: 0,
                fenced: Fenced::Inside,
            };
            return true;
        }
        // Something else follows: the fence stays open, its end will be text.
        self.in_code = true;
        self.mode = Mode::Text;
        true
    }

    fn flush_text(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let text: String = self.buf.drain(..n).collect();
        self.emit_text(text);
    }

    fn emit_text(&mut self, text: String) {
        let text = if self.after_call {
            let rest = text.trim_start();
            self.pending_ws.push_str(&text[..text.len() - rest.len()]);
            if rest.is_empty() {
                return;
            }
            self.after_call = false;
            let mut joined = std::mem::take(&mut self.pending_ws);
            joined.push_str(rest);
            joined
        } else {
            text
        };
        if let Some(MarkupEvent::Text(last)) = self.out.last_mut() {
            last.push_str(&text);
        } else {
            self.out.push(MarkupEvent::Text(text));
        }
    }

    fn emit_event(&mut self, event: MarkupEvent) {
        self.pending_ws.clear();
        self.after_call = true;
        self.out.push(event);
    }

    /// Emits the calls parsed from the content of a block, or Malformed.
    fn emit_block(&mut self, inner: &str) {
        match parse_block(&self.schemas, inner) {
            Some(calls) => {
                for call in calls {
                    self.emit_event(MarkupEvent::Call(call));
                }
            }
            None => self.emit_event(MarkupEvent::Malformed(inner.to_string())),
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum TagHit {
    None,
    Wait,
    ToolOpen,
    FuncOpen,
    /// Markup that is dropped: a stray `</tool_call>`, or the
    /// `<tool_response>` tags small models echo from their prompt.
    Stray(usize),
}

/// What a `<` at the start of `s` (the rest of the buffer) starts.
fn tag_at(s: &str, format: MarkupFormat, fin: bool) -> TagHit {
    let mut tags: Vec<(&str, TagHit)> = vec![
        (TOOL_OPEN, TagHit::ToolOpen),
        (TOOL_CLOSE, TagHit::Stray(TOOL_CLOSE.len())),
        (RESPONSE_OPEN, TagHit::Stray(RESPONSE_OPEN.len())),
        (RESPONSE_CLOSE, TagHit::Stray(RESPONSE_CLOSE.len())),
    ];
    if format == MarkupFormat::QwenXml {
        tags.push((FUNC_OPEN, TagHit::FuncOpen));
    }
    let mut could_be = false;
    for (tag, hit) in tags {
        if s.starts_with(tag) {
            return hit;
        }
        could_be |= tag.starts_with(s);
    }
    if !could_be {
        TagHit::None
    } else if !fin {
        TagHit::Wait
    } else if s == &TOOL_OPEN[..TOOL_OPEN.len() - 1] {
        // "<tool_call" cut at the very end: an (empty) unclosed block.
        TagHit::ToolOpen
    } else {
        TagHit::None
    }
}

#[derive(Debug, PartialEq, Eq)]
enum FenceHit {
    /// Not a fence.
    None,
    /// Cannot decide yet.
    Wait,
    /// A fence that is text (three backticks).
    Plain,
    /// A fence opener followed by `{` at this offset.
    Json(usize),
    /// A fence opener followed by `<tool_call>` at this offset.
    Tag(usize),
}

fn closing_fence_at(s: &str, fin: bool) -> FenceHit {
    if s.starts_with(FENCE) {
        FenceHit::Plain
    } else if !fin && FENCE.starts_with(s) {
        FenceHit::Wait
    } else {
        FenceHit::None
    }
}

/// What a backtick at the start of `s` starts (outside a code block).
fn fence_at(s: &str, bare_json: bool, fin: bool) -> FenceHit {
    let wait = if fin { FenceHit::Plain } else { FenceHit::Wait };
    match closing_fence_at(s, fin) {
        FenceHit::Plain => {}
        other => return other,
    }
    // Any language tag: a call is recognised by its content, not the tag.
    let b = s.as_bytes();
    let mut j = FENCE.len();
    while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'-' | b'+')) {
        j += 1;
    }
    while j < b.len() && b[j].is_ascii_whitespace() {
        j += 1;
    }
    let rest = &s[j..];
    if rest.is_empty() {
        return wait;
    }
    if rest.starts_with('{') && bare_json {
        return FenceHit::Json(j);
    }
    if rest.starts_with(TOOL_OPEN) {
        return FenceHit::Tag(j);
    }
    if TOOL_OPEN.starts_with(rest) {
        return wait;
    }
    FenceHit::Plain
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Removes a trailing, partially written closing tag (stream cut mid-tag).
fn strip_partial_close(s: &str) -> &str {
    for tag in [TOOL_CLOSE, FUNC_CLOSE, PARAM_CLOSE] {
        for k in (2..tag.len()).rev() {
            if let Some(stripped) = s.strip_suffix(&tag[..k]) {
                return stripped;
            }
        }
    }
    s
}
