//! Incremental parsers for tool calls written as text markup by local models
//! (hermes tags, bare JSON objects, qwen-xml).
//!
//! The reply text arrives in arbitrary chunks. [`MarkupParser`] separates the
//! user-visible text from the tool calls:
//!
//! * text is emitted as soon as it cannot be the start of markup; only a
//!   suffix that could still turn into markup is held back;
//! * markup (`<tool_call>` blocks, `<function=…>` blocks, bare JSON calls and
//!   the code fences wrapping them) is never emitted as text;
//! * whitespace between a call and the next call (or the end of the stream)
//!   is dropped, whitespace followed by real text is kept.
//!
//! Recognised markup:
//!
//! * both formats: `<tool_call> … </tool_call>`, whose content may be a JSON
//!   call (`{"name": …, "arguments": …}`, also several of them) or qwen-xml
//!   (`<function=NAME><parameter=ARG>value</parameter></function>`); a stray
//!   `</tool_call>` is dropped, and so are `<tool_response>` tags a model
//!   echoes from its prompt;
//! * [`MarkupFormat::Hermes`]: bare JSON calls `{"name": …, "arguments": …}`
//!   whose name is a known tool, optionally wrapped in a ```` ```json ````
//!   (or plain ```` ``` ````, or any language) fence, optionally with doubled
//!   braces `{{ … }}`. Inside a code block that is shown as text (a fence
//!   not directly followed by a call), bare JSON is left alone. A bare object
//!   counts only with the top-level keys `name`, `arguments`/`parameters`;
//!   anything else (unknown name, extra keys, invalid JSON) is text;
//! * [`MarkupFormat::QwenXml`]: a `<function=…>` block without the
//!   surrounding `<tool_call>`.

use std::collections::HashMap;

use serde_json::{Map, Value};

const TOOL_OPEN: &str = "<tool_call>";
const TOOL_CLOSE: &str = "</tool_call>";
const FUNC_OPEN: &str = "<function=";
const FUNC_CLOSE: &str = "</function>";
const PARAM_OPEN: &str = "<parameter=";
const PARAM_CLOSE: &str = "</parameter>";
const FENCE: &str = "```";
const RESPONSE_OPEN: &str = "<tool_response>";
const RESPONSE_CLOSE: &str = "</tool_response>";

/// Keys allowed at the top level of a bare JSON call.
const TOP_KEYS: [&str; 3] = ["name", "arguments", "parameters"];
const KEY_NAME: usize = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkupFormat {
    Hermes,
    QwenXml,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParsedCall {
    pub name: String,
    /// Always a JSON object.
    pub arguments: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MarkupEvent {
    Text(String),
    Call(ParsedCall),
    Malformed(String),
}

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
        match self.parse_block(inner) {
            Some(calls) => {
                for call in calls {
                    self.emit_event(MarkupEvent::Call(call));
                }
            }
            None => self.emit_event(MarkupEvent::Malformed(inner.to_string())),
        }
    }

    /// Parses the content of a `<tool_call>` (or bare `<function=`) block.
    fn parse_block(&self, inner: &str) -> Option<Vec<ParsedCall>> {
        let text = strip_inner_fence(inner.trim());
        if text.starts_with(FUNC_OPEN) {
            return self.parse_xml_calls(text);
        }
        if text.starts_with('{') || text.starts_with('[') {
            return parse_json_calls(text);
        }
        if text.contains(FUNC_OPEN) {
            return self.parse_xml_calls(text);
        }
        None
    }

    fn parse_xml_calls(&self, text: &str) -> Option<Vec<ParsedCall>> {
        let mut calls = Vec::new();
        let mut rest = text;
        while let Some(i) = rest.find(FUNC_OPEN) {
            let after = &rest[i + FUNC_OPEN.len()..];
            let gt = after.find('>')?;
            let name = tag_name(&after[..gt])?;
            let (body, next) = split_element(&after[gt + 1..], FUNC_CLOSE, FUNC_OPEN);
            let arguments = self.parse_xml_params(name, body)?;
            calls.push(ParsedCall {
                name: name.to_string(),
                arguments,
            });
            rest = next;
        }
        (!calls.is_empty()).then_some(calls)
    }

    fn parse_xml_params(&self, function: &str, body: &str) -> Option<Value> {
        let properties = self
            .schemas
            .get(function)
            .and_then(|schema| schema.get("properties"));
        let mut map = Map::new();
        let mut rest = body;
        let mut found = false;
        while let Some(i) = rest.find(PARAM_OPEN) {
            found = true;
            let after = &rest[i + PARAM_OPEN.len()..];
            let gt = after.find('>')?;
            let name = tag_name(&after[..gt])?;
            let (raw, next) = split_element(&after[gt + 1..], PARAM_CLOSE, PARAM_OPEN);
            let schema = properties.and_then(|p| p.get(name));
            map.insert(name.to_string(), type_parameter(schema, raw));
            rest = next;
        }
        if !found {
            // Some models put a JSON object in the function body.
            let body = body.trim();
            if body.starts_with('{') {
                return match parse_lenient(body)? {
                    Value::Object(object) => Some(Value::Object(object)),
                    _ => None,
                };
            }
        }
        Some(Value::Object(map))
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

/// Strips a ```` ``` ```` fence around the whole content of a block.
fn strip_inner_fence(s: &str) -> &str {
    let Some(rest) = s.strip_prefix(FENCE) else {
        return s;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    let rest = rest.strip_suffix(FENCE).unwrap_or(rest);
    rest.trim()
}

/// The name written in `<function=NAME>` / `<parameter=NAME>`.
fn tag_name(raw: &str) -> Option<&str> {
    let name = raw.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    (!name.is_empty() && !name.contains('<')).then_some(name)
}

/// Splits `s` at the end of an element: returns (content, rest after the
/// closing tag). A missing closing tag ends the element at the next opening
/// tag of the same kind, or at the end.
fn split_element<'a>(s: &'a str, close: &str, open: &str) -> (&'a str, &'a str) {
    match (s.find(close), s.find(open)) {
        (Some(c), Some(o)) if o < c => (&s[..o], &s[o..]),
        (Some(c), _) => (&s[..c], &s[c + close.len()..]),
        (None, Some(o)) => (&s[..o], &s[o..]),
        (None, None) => (s, ""),
    }
}

/// Parses JSON, tolerating raw control characters (newlines…) in strings.
fn parse_lenient(s: &str) -> Option<Value> {
    serde_json::from_str(s)
        .ok()
        .or_else(|| serde_json::from_str(&escape_controls(s)).ok())
}

/// Escapes raw control characters inside JSON strings.
fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let (mut in_str, mut esc) = (false, false);
    for c in s.chars() {
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            } else if (c as u32) < 0x20 {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    _ => out.push_str(&format!("\\u{:04x}", c as u32)),
                }
                continue;
            }
        } else if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
    out
}

/// Closes unterminated strings, objects and arrays (stream cut short).
fn close_unbalanced(s: &str) -> String {
    let mut stack = Vec::new();
    let (mut in_str, mut esc) = (false, false);
    for c in s.chars() {
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => stack.push(c),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    let mut out = s.trim_end().to_string();
    if in_str {
        if esc {
            out.pop();
        }
        out.push('"');
    }
    while out.ends_with(',') {
        out.pop();
    }
    while let Some(c) = stack.pop() {
        out.push(if c == '{' { '}' } else { ']' });
    }
    out
}

/// Parses the JSON content of a block: one call, a list of calls, several
/// calls one after another, doubled braces, or a call cut short.
fn parse_json_calls(text: &str) -> Option<Vec<ParsedCall>> {
    let mut candidates = vec![text.to_string()];
    if let Some(rest) = text.strip_prefix('{') {
        if rest.trim_start().starts_with('{') {
            candidates.push(rest.to_string());
            if let Some(inner) = rest.trim_end().strip_suffix('}') {
                candidates.push(inner.to_string());
            }
        }
    }
    for candidate in &candidates {
        let escaped = escape_controls(candidate);
        for source in [candidate.as_str(), escaped.as_str()] {
            if let Some(calls) = json_values_calls(source) {
                return Some(calls);
            }
        }
    }
    let repaired = close_unbalanced(&escape_controls(text));
    json_values_calls(&repaired)
}

/// All JSON values in `s` (one after another), each a call or list of calls.
fn json_values_calls(s: &str) -> Option<Vec<ParsedCall>> {
    let mut calls = Vec::new();
    for value in serde_json::Deserializer::from_str(s).into_iter::<Value>() {
        match value.ok()? {
            Value::Array(items) => {
                for item in &items {
                    calls.push(call_from_value(item)?);
                }
            }
            other => calls.push(call_from_value(&other)?),
        }
    }
    (!calls.is_empty()).then_some(calls)
}

/// `{"name": …, "arguments"|"parameters": {…} | "<json>"}` as a call.
fn call_from_value(value: &Value) -> Option<ParsedCall> {
    let object = value.as_object()?;
    if !object.contains_key("name") {
        // OpenAI style {"type": "function", "function": {…}}.
        return object
            .get("function")
            .filter(|f| f.is_object())
            .and_then(call_from_value);
    }
    let name = object.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(s)) => match parse_lenient(s)? {
            Value::Object(map) => Value::Object(map),
            _ => return None,
        },
        Some(_) => return None,
    };
    Some(ParsedCall {
        name: name.to_string(),
        arguments,
    })
}

/// Types one qwen-xml parameter's text by its JSON schema (exposed for reuse and tests).
///
/// One leading and one trailing line break (or whitespace character) is
/// removed from `raw` first. `string` keeps the text as is; `integer`,
/// `number` and `boolean` fall back to the (trimmed) string when the text does
/// not parse; `object` is parsed as JSON; `array` takes a JSON list, else one
/// item per non-empty line (bullets `- `, `* `, `1. ` stripped) or per comma,
/// each item typed by the `items` schema when it has a type (strings
/// otherwise). Without a known type, JSON is tried, else the string.
pub fn type_parameter(schema: Option<&Value>, raw: &str) -> Value {
    let raw = trim_one(raw);
    let text = raw.trim();
    let string = || Value::String(raw.to_string());
    match schema.and_then(schema_type) {
        Some("string") => string(),
        Some("integer") => parse_integer(text).unwrap_or_else(|| Value::String(text.to_string())),
        Some("number") => parse_number(text).unwrap_or_else(|| Value::String(text.to_string())),
        Some("boolean") => {
            if text.eq_ignore_ascii_case("true") {
                Value::Bool(true)
            } else if text.eq_ignore_ascii_case("false") {
                Value::Bool(false)
            } else {
                Value::String(text.to_string())
            }
        }
        Some("object") => parse_lenient(text).unwrap_or_else(string),
        Some("array") => parse_array(schema.and_then(|s| s.get("items")), text),
        Some("null") if text.is_empty() || text == "null" => Value::Null,
        _ => parse_lenient(text).unwrap_or_else(string),
    }
}

/// The main type of a schema (`"type"`, first non-null of a type list, or
/// guessed from the other keywords).
fn schema_type(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => return Some(t),
        Some(Value::Array(types)) => {
            let mut types = types.iter().filter_map(Value::as_str);
            let first = types.clone().next();
            return types.find(|t| *t != "null").or(first);
        }
        _ => {}
    }
    if schema.get("properties").is_some() {
        return Some("object");
    }
    if schema.get("items").is_some() {
        return Some("array");
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        if !values.is_empty() && values.iter().all(Value::is_string) {
            return Some("string");
        }
    }
    ["anyOf", "oneOf"].iter().find_map(|key| {
        schema
            .get(*key)?
            .as_array()?
            .iter()
            .filter_map(schema_type)
            .find(|t| *t != "null")
    })
}

fn trim_one(s: &str) -> &str {
    let s = s
        .strip_prefix("\r\n")
        .or_else(|| s.strip_prefix(|c: char| c.is_whitespace()))
        .unwrap_or(s);
    s.strip_suffix("\r\n")
        .or_else(|| s.strip_suffix(|c: char| c.is_whitespace()))
        .unwrap_or(s)
}

fn parse_integer(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::from(u));
    }
    let f = text.parse::<f64>().ok()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::from(f as i64))
}

fn parse_number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::from(u));
    }
    let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
    // Rust also accepts "inf"/"nan" spellings; those are excluded above.
    serde_json::Number::from_f64(f).map(Value::Number)
}

fn parse_array(items_schema: Option<&Value>, text: &str) -> Value {
    if text.is_empty() {
        return Value::Array(Vec::new());
    }
    if text.starts_with('[') {
        if let Some(Value::Array(items)) = parse_lenient(text) {
            return Value::Array(items);
        }
    }
    if text.starts_with('"') {
        // "a", "b" without the brackets.
        if let Some(Value::Array(items)) = parse_lenient(&format!("[{text}]")) {
            return Value::Array(items);
        }
    }
    let body = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    let items: Vec<&str> = if body.contains('\n') {
        body.lines().map(|line| strip_bullet(line.trim())).collect()
    } else {
        body.split(',').collect()
    };
    let item_type = items_schema.filter(|s| schema_type(s).is_some());
    Value::Array(
        items
            .into_iter()
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| match item_type {
                Some(schema) => type_parameter(Some(schema), item),
                None => Value::String(item.to_string()),
            })
            .collect(),
    )
}

/// Strips a list bullet: `- `, `* `, `+ `, `• `, `1. `, `1) `.
fn strip_bullet(line: &str) -> &str {
    for bullet in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return rest;
        }
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let rest = &line[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return rest;
        }
    }
    line
}

// ---------------------------------------------------------------------------
// Incremental recogniser for bare JSON calls.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scan {
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
struct JsonScan {
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
    inner_start: usize,
    inner_end: usize,
    /// End of the whole candidate (including an outer `}`).
    end: usize,
}

impl JsonScan {
    fn feed(&mut self, input: &[u8], names: &[String]) -> Scan {
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
    fn finish(&mut self) -> bool {
        if self.lex == Lex::OuterClose {
            self.end = self.inner_end;
            true
        } else {
            false
        }
    }

    fn step(&mut self, b: u8, names: &[String]) -> Step {
        match self.lex {
            Lex::Start => {
                if b == b'{' {
                    self.lex = Lex::AfterOpen;
                    Step::Consume
                } else {
                    Step::Invalid
                }
            }
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
            Expect::Colon => {
                if b == b':' {
                    self.expect = Expect::Value;
                    Step::Consume
                } else {
                    Step::Invalid
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<Value> {
        vec![
            json!({"type": "function", "function": {
                "name": "search",
                "description": "Search the web",
                "parameters": {"type": "object", "properties": {
                    "query": {"type": "string"},
                    "options": {"type": "array", "items": {"type": "string"}},
                    "limit": {"type": "integer"},
                    "weight": {"type": "number"},
                    "exact": {"type": "boolean"},
                    "filters": {"type": "object"},
                    "note": {"type": ["string", "null"]}
                }, "required": ["query"]}
            }}),
            json!({"type": "function", "function": {
                "name": "read_file",
                "parameters": {"type": "object", "properties": {
                    "path": {"type": "string"},
                    "lines": {"type": "array", "items": {"type": "integer"}}
                }}
            }}),
            json!({"type": "function", "function": {"name": "get_time"}}),
        ]
    }

    #[derive(Debug, PartialEq)]
    struct Outcome {
        text: String,
        calls: Vec<ParsedCall>,
        malformed: Vec<String>,
        /// Events with consecutive texts merged.
        events: Vec<MarkupEvent>,
    }

    fn collect(events: Vec<MarkupEvent>) -> Outcome {
        let mut outcome = Outcome {
            text: String::new(),
            calls: Vec::new(),
            malformed: Vec::new(),
            events: Vec::new(),
        };
        for event in events {
            match &event {
                MarkupEvent::Text(t) => {
                    assert!(!t.is_empty(), "empty text event");
                    outcome.text.push_str(t);
                }
                MarkupEvent::Call(c) => {
                    assert!(c.arguments.is_object(), "arguments not an object: {c:?}");
                    outcome.calls.push(c.clone());
                }
                MarkupEvent::Malformed(m) => outcome.malformed.push(m.clone()),
            }
            match (outcome.events.last_mut(), event) {
                (Some(MarkupEvent::Text(last)), MarkupEvent::Text(t)) => last.push_str(&t),
                (_, event) => outcome.events.push(event),
            }
        }
        outcome
    }

    fn run_chunks(format: MarkupFormat, chunks: &[&str]) -> (Vec<MarkupEvent>, Outcome) {
        let mut parser = MarkupParser::new(format, &tools());
        let mut all = Vec::new();
        for chunk in chunks {
            all.extend(parser.push(chunk));
        }
        all.extend(parser.finish());
        let outcome = collect(all.clone());
        (all, outcome)
    }

    fn run(format: MarkupFormat, input: &str) -> Outcome {
        run_chunks(format, &[input]).1
    }

    fn call(name: &str, arguments: Value) -> ParsedCall {
        ParsedCall {
            name: name.to_string(),
            arguments,
        }
    }

    const ALWAYS_FORBIDDEN: [&str; 3] = ["<tool_call", "</tool_call>", "<function="];

    fn assert_clean_text(events: &[MarkupEvent], forbidden: &[&str], context: &str) {
        let mut all_text = String::new();
        for event in events {
            if let MarkupEvent::Text(t) = event {
                all_text.push_str(t);
                for f in ALWAYS_FORBIDDEN.iter().chain(forbidden) {
                    assert!(!t.contains(f), "{context}: text event {t:?} contains {f:?}");
                }
            }
        }
        for f in ALWAYS_FORBIDDEN.iter().chain(forbidden) {
            assert!(
                !all_text.contains(f),
                "{context}: text {all_text:?} contains {f:?}"
            );
        }
    }

    /// Checks the unsplit result, then every two-chunk split and the
    /// one-char-at-a-time feeding against it.
    fn check_splits(
        format: MarkupFormat,
        input: &str,
        text: &str,
        calls: &[ParsedCall],
        forbidden: &[&str],
    ) {
        let (events, whole) = run_chunks(format, &[input]);
        assert_eq!(whole.text, text, "text of {input:?}");
        assert_eq!(whole.calls, calls, "calls of {input:?}");
        assert!(whole.malformed.is_empty(), "malformed in {input:?}");
        assert_clean_text(&events, forbidden, input);
        for (i, _) in input.char_indices().skip(1) {
            let (events, split) = run_chunks(format, &[&input[..i], &input[i..]]);
            assert_eq!(split, whole, "split of {input:?} at {i}");
            assert_clean_text(&events, forbidden, &format!("{input:?} split at {i}"));
        }
        let chars: Vec<String> = input.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let (events, by_char) = run_chunks(format, &chars);
        assert_eq!(by_char, whole, "char by char {input:?}");
        assert_clean_text(&events, forbidden, &format!("{input:?} char by char"));
    }

    const CALL_JSON: [&str; 2] = ["\"name\"", "\"arguments\""];

    // --- hermes -------------------------------------------------------------

    #[test]
    fn hermes_tag_call() {
        let out = run(
            MarkupFormat::Hermes,
            "Let me check.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"rust\", \"limit\": 3}}\n</tool_call>",
        );
        assert_eq!(out.text, "Let me check.\n");
        assert_eq!(
            out.calls,
            vec![call("search", json!({"query": "rust", "limit": 3}))]
        );
        assert!(out.malformed.is_empty());
    }

    #[test]
    fn echoed_tool_response_tags_are_dropped_at_any_split() {
        for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
            check_splits(
                format,
                "<tool_response>I'll remind you at 10:05.</tool_response> Done.",
                "I'll remind you at 10:05. Done.",
                &[],
                &["<tool_", "response>"],
            );
        }
        // Something that only starts like the tag stays text.
        check_splits(
            MarkupFormat::Hermes,
            "a <tool_resp> b",
            "a <tool_resp> b",
            &[],
            &[],
        );
    }

    #[test]
    fn hermes_parameters_synonym_and_string_arguments() {
        let out = run(
            MarkupFormat::Hermes,
            "<tool_call>{\"name\": \"search\", \"parameters\": {\"query\": \"a\"}}</tool_call>\
             <tool_call>{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"b\\\"}\"}</tool_call>",
        );
        assert_eq!(out.text, "");
        assert_eq!(
            out.calls,
            vec![
                call("search", json!({"query": "a"})),
                call("search", json!({"query": "b"}))
            ]
        );
    }

    #[test]
    fn hermes_tag_accepts_unknown_name_and_missing_arguments() {
        let out = run(
            MarkupFormat::Hermes,
            "<tool_call>{\"name\": \"other_tool\"}</tool_call>",
        );
        assert_eq!(out.calls, vec![call("other_tool", json!({}))]);
        assert_eq!(out.text, "");
    }

    #[test]
    fn hermes_several_calls_in_one_tag() {
        let out = run(
            MarkupFormat::Hermes,
            "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"a\"}}\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
        );
        assert_eq!(
            out.calls,
            vec![
                call("search", json!({"query": "a"})),
                call("get_time", json!({}))
            ]
        );
    }

    #[test]
    fn bare_json_call() {
        let out = run(
            MarkupFormat::Hermes,
            "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}",
        );
        assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
        assert_eq!(out.text, "");
    }

    #[test]
    fn bare_json_variants() {
        let cases = [
            "```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```",
            "```\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```",
            "{{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}}",
            "{{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}",
            "{\"name\": \"search\", \"parameters\": {\"query\": \"x\"}}",
            "{\"arguments\": {\"query\": \"x\"}, \"name\": \"search\"}",
            "{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"x\\\"}\"}",
        ];
        for input in cases {
            let out = run(MarkupFormat::Hermes, input);
            assert_eq!(
                out.calls,
                vec![call("search", json!({"query": "x"}))],
                "{input}"
            );
            assert_eq!(out.text, "", "{input}");
            assert!(out.malformed.is_empty(), "{input}");
        }
    }

    #[test]
    fn bare_json_without_arguments_is_empty_object() {
        let out = run(MarkupFormat::Hermes, "{\"name\": \"get_time\"}");
        assert_eq!(out.calls, vec![call("get_time", json!({}))]);
    }

    #[test]
    fn bare_json_raw_newline_in_string() {
        let out = run(
            MarkupFormat::Hermes,
            "{\"name\": \"search\", \"arguments\": {\"query\": \"two\nlines\"}}",
        );
        assert_eq!(
            out.calls,
            vec![call("search", json!({"query": "two\nlines"}))]
        );
    }

    #[test]
    fn several_bare_calls() {
        let out = run(
            MarkupFormat::Hermes,
            "I will do two things.\n{\"name\": \"search\", \"arguments\": {\"query\": \"a\"}}\n\
             {\"name\": \"read_file\", \"arguments\": {\"path\": \"/x\"}}{\"name\": \"get_time\"}\n",
        );
        assert_eq!(out.text, "I will do two things.\n");
        assert_eq!(
            out.calls,
            vec![
                call("search", json!({"query": "a"})),
                call("read_file", json!({"path": "/x"})),
                call("get_time", json!({}))
            ]
        );
    }

    #[test]
    fn ordinary_json_is_text() {
        let cases = [
            "Here: {\"a\": 1} done",
            "{\"name\": \"unknown_tool\", \"arguments\": {\"q\": 1}}",
            "{\"name\": \"search\", \"arguments\": 5}",
            "{\"name\": \"search\", \"arguments\": {}, \"extra\": true}",
            "{\"name\": \"search\", \"arguments\": \"not json\"}",
            "{\"name\": \"sear\"}",
            "{}",
            "```json\n{\"a\": 1}\n```",
            "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}",
        ];
        for input in cases {
            let out = run(MarkupFormat::Hermes, input);
            assert_eq!(out.text, input);
            assert!(out.calls.is_empty(), "{input}");
            assert!(out.malformed.is_empty(), "{input}");
        }
    }

    #[test]
    fn code_blocks_are_left_alone() {
        let input =
            "```python\nx = {\"name\": \"search\", \"arguments\": {}}\nprint(x)\n```\nDone {ok}";
        let out = run(MarkupFormat::Hermes, input);
        assert_eq!(out.text, input);
        assert!(out.calls.is_empty());
        // A closing fence followed by a call does not swallow the fence.
        let input = "```python\n{\"a\": 1}\n{\"name\": \"get_time\"}\n```";
        let out = run(MarkupFormat::Hermes, input);
        assert_eq!(out.text, input);
        assert!(out.calls.is_empty());
        // A fence of any language directly holding a call is markup.
        let out = run(
            MarkupFormat::Hermes,
            "```tool_code\n{\"name\": \"get_time\"}\n```",
        );
        assert_eq!(out.text, "");
        assert_eq!(out.calls, vec![call("get_time", json!({}))]);
        let input = "```\ncode\n```\n{\"name\": \"get_time\"}";
        let out = run(MarkupFormat::Hermes, input);
        assert_eq!(out.text, "```\ncode\n```\n");
        assert_eq!(out.calls, vec![call("get_time", json!({}))]);
    }

    #[test]
    fn fenced_tool_call_tag_drops_the_fence() {
        let out = run(
            MarkupFormat::Hermes,
            "Ok.\n```\n<tool_call>{\"name\": \"get_time\"}</tool_call>\n```\nBye",
        );
        assert_eq!(out.text, "Ok.\n\nBye");
        assert_eq!(out.calls, vec![call("get_time", json!({}))]);
    }

    #[test]
    fn stray_closing_tag_is_dropped() {
        let out = run(
            MarkupFormat::Hermes,
            "{\"name\": \"get_time\"}\n</tool_call>",
        );
        assert_eq!(out.text, "");
        assert_eq!(out.calls, vec![call("get_time", json!({}))]);
    }

    #[test]
    fn unclosed_tag_at_end_still_yields_the_call() {
        let out = run(
            MarkupFormat::Hermes,
            "Searching.<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n",
        );
        assert_eq!(out.text, "Searching.");
        assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
        // Cut inside the closing tag, and cut before the last braces.
        let out = run(
            MarkupFormat::Hermes,
            "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}</tool_",
        );
        assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
        let out = run(
            MarkupFormat::Hermes,
            "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"x\"",
        );
        assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
        assert_eq!(out.text, "");
    }

    #[test]
    fn malformed_tag_yields_malformed_and_no_text() {
        for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
            let out = run(format, "Hi <tool_call>{\"name\": oops}</tool_call>");
            assert_eq!(out.text, "Hi ");
            assert!(out.calls.is_empty());
            assert_eq!(out.malformed, vec!["{\"name\": oops}".to_string()]);

            let out = run(format, "<tool_call>just words</tool_call>");
            assert_eq!(out.text, "");
            assert_eq!(out.malformed, vec!["just words".to_string()]);

            // Unclosed and unparsable at the end of the stream.
            let out = run(format, "<tool_call>\n{{{ nope");
            assert_eq!(out.text, "");
            assert_eq!(out.malformed, vec!["\n{{{ nope".to_string()]);

            let out = run(format, "<tool_call><function=search</tool_call>");
            assert_eq!(out.text, "");
            assert_eq!(out.malformed.len(), 1);
        }
    }

    #[test]
    fn plain_text_is_streamed_before_finish() {
        for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
            let mut parser = MarkupParser::new(format, &tools());
            let mut text = String::new();
            for chunk in ["Hello", " there,", " how are", " you"] {
                for event in parser.push(chunk) {
                    match event {
                        MarkupEvent::Text(t) => text.push_str(&t),
                        other => panic!("unexpected {other:?}"),
                    }
                }
            }
            assert_eq!(text, "Hello there, how are you");
            assert!(parser.finish().is_empty());
        }
    }

    #[test]
    fn only_a_possible_markup_prefix_is_held_back() {
        let mut parser = MarkupParser::new(MarkupFormat::Hermes, &tools());
        let out = collect(parser.push("Sure <tool"));
        assert_eq!(out.text, "Sure ");
        let out = collect(parser.push("box> is fine, a {b"));
        assert_eq!(out.text, "<toolbox> is fine, a {b");
        let out = collect(parser.push(" and {\"name\": \"sea"));
        assert_eq!(out.text, " and ");
        let out = collect(parser.push("l\"} ok"));
        assert_eq!(out.text, "{\"name\": \"seal\"} ok");
        let out = collect(parser.push(" ``"));
        assert_eq!(out.text, " ");
        let out = collect(parser.finish());
        assert_eq!(out.text, "``");
    }

    #[test]
    fn held_text_is_flushed_at_finish() {
        let out = run(MarkupFormat::Hermes, "a <tool_ca");
        assert_eq!(out.text, "a <tool_ca");
        let out = run(
            MarkupFormat::Hermes,
            "value {\"name\": \"search\", \"arguments\": {\"q",
        );
        assert_eq!(out.text, "value {\"name\": \"search\", \"arguments\": {\"q");
        assert!(out.calls.is_empty());
        let out = run(MarkupFormat::QwenXml, "x <functio");
        assert_eq!(out.text, "x <functio");
    }

    // --- qwen-xml -----------------------------------------------------------

    const QWEN_CALL: &str = "I'll search.\n<tool_call>\n<function=search>\n<parameter=query>\n  rust  async \n</parameter>\n\
        <parameter=limit>\n10\n</parameter>\n<parameter=weight>\n0.5\n</parameter>\n\
        <parameter=exact>\nTRUE\n</parameter>\n<parameter=filters>\n{\"lang\": \"en\"}\n</parameter>\n\
        <parameter=options>\n[\"a\", \"b\"]\n</parameter>\n<parameter=extra>\n[1, 2]\n</parameter>\n\
        <parameter=comment>\nhello there\n</parameter>\n</function>\n</tool_call>\nDone.";

    #[test]
    fn qwen_xml_call_typed_by_schema() {
        let out = run(MarkupFormat::QwenXml, QWEN_CALL);
        assert_eq!(out.text, "I'll search.\n\nDone.");
        assert_eq!(
            out.calls,
            vec![call(
                "search",
                json!({
                    "query": "  rust  async ",
                    "limit": 10,
                    "weight": 0.5,
                    "exact": true,
                    "filters": {"lang": "en"},
                    "options": ["a", "b"],
                    "extra": [1, 2],
                    "comment": "hello there"
                })
            )]
        );
    }

    #[test]
    fn qwen_xml_string_is_never_parsed() {
        let out = run(
            MarkupFormat::QwenXml,
            "<tool_call><function=search><parameter=query>123</parameter><parameter=note>true</parameter></function></tool_call>",
        );
        assert_eq!(
            out.calls,
            vec![call("search", json!({"query": "123", "note": "true"}))]
        );
    }

    #[test]
    fn qwen_xml_multiline_value_and_several_functions() {
        let out = run(
            MarkupFormat::QwenXml,
            "<tool_call>\n<function=search>\n<parameter=query>\nline one\nline two\n</parameter>\n</function>\n\
             <function=get_time>\n</function>\n</tool_call>",
        );
        assert_eq!(
            out.calls,
            vec![
                call("search", json!({"query": "line one\nline two"})),
                call("get_time", json!({}))
            ]
        );
    }

    #[test]
    fn qwen_xml_unclosed_at_end() {
        let out = run(
            MarkupFormat::QwenXml,
            "<tool_call>\n<function=search>\n<parameter=query>\nrust\n</parameter>\n<parameter=limit>\n5\n",
        );
        assert_eq!(out.text, "");
        assert_eq!(
            out.calls,
            vec![call("search", json!({"query": "rust", "limit": 5}))]
        );
        let out = run(
            MarkupFormat::QwenXml,
            "<tool_call>\n<function=search>\n<parameter=query>\nrust\n</param",
        );
        assert_eq!(out.calls, vec![call("search", json!({"query": "rust"}))]);
    }

    #[test]
    fn qwen_xml_bare_function_block() {
        let out = run(
            MarkupFormat::QwenXml,
            "Checking.\n<function=read_file>\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n</tool_call>",
        );
        assert_eq!(out.text, "Checking.\n");
        assert_eq!(
            out.calls,
            vec![call("read_file", json!({"path": "/etc/hosts"}))]
        );
    }

    #[test]
    fn tag_content_format_is_sniffed() {
        let out = run(
            MarkupFormat::QwenXml,
            "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"q\"}}</tool_call>",
        );
        assert_eq!(out.calls, vec![call("search", json!({"query": "q"}))]);
        let out = run(
            MarkupFormat::Hermes,
            "<tool_call><function=search><parameter=limit>4</parameter></function></tool_call>",
        );
        assert_eq!(out.calls, vec![call("search", json!({"limit": 4}))]);
    }

    #[test]
    fn qwen_xml_does_not_take_bare_json() {
        let input = "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}";
        let out = run(MarkupFormat::QwenXml, input);
        assert_eq!(out.text, input);
        assert!(out.calls.is_empty());
    }

    // --- type_parameter -----------------------------------------------------

    #[test]
    fn type_parameter_scalars() {
        let s = |t: &str| json!({ "type": t });
        assert_eq!(
            type_parameter(Some(&s("string")), "\n 42 \n"),
            json!(" 42 ")
        );
        assert_eq!(type_parameter(Some(&s("string")), " x "), json!("x"));
        assert_eq!(
            type_parameter(Some(&s("string")), "\n\nx\n\n"),
            json!("\nx\n")
        );
        assert_eq!(type_parameter(Some(&s("integer")), " 42 "), json!(42));
        assert_eq!(type_parameter(Some(&s("integer")), "-7"), json!(-7));
        assert_eq!(type_parameter(Some(&s("integer")), "3.0"), json!(3));
        assert_eq!(type_parameter(Some(&s("integer")), "many"), json!("many"));
        assert_eq!(type_parameter(Some(&s("integer")), "2.5"), json!("2.5"));
        assert_eq!(type_parameter(Some(&s("number")), "2.5"), json!(2.5));
        assert_eq!(type_parameter(Some(&s("number")), "1e3"), json!(1000.0));
        assert_eq!(type_parameter(Some(&s("number")), "12"), json!(12));
        assert_eq!(type_parameter(Some(&s("number")), "nan"), json!("nan"));
        assert_eq!(type_parameter(Some(&s("boolean")), "True"), json!(true));
        assert_eq!(type_parameter(Some(&s("boolean")), "FALSE\n"), json!(false));
        assert_eq!(type_parameter(Some(&s("boolean")), "yes"), json!("yes"));
        assert_eq!(
            type_parameter(Some(&s("object")), "{\"a\": [1]}"),
            json!({"a": [1]})
        );
        assert_eq!(type_parameter(Some(&s("object")), "{oops"), json!("{oops"));
        assert_eq!(
            type_parameter(Some(&json!({"type": ["null", "integer"]})), "5"),
            json!(5)
        );
    }

    #[test]
    fn type_parameter_unknown_tries_json() {
        assert_eq!(type_parameter(None, "12"), json!(12));
        assert_eq!(type_parameter(None, "{\"a\": true}"), json!({"a": true}));
        assert_eq!(
            type_parameter(None, "\nplain words\n"),
            json!("plain words")
        );
        assert_eq!(type_parameter(Some(&json!({})), "null"), json!(null));
    }

    #[test]
    fn type_parameter_arrays() {
        let strings = json!({"type": "array", "items": {"type": "string"}});
        let a = Some(&strings);
        assert_eq!(type_parameter(a, "[\"x\", \"y\"]"), json!(["x", "y"]));
        assert_eq!(type_parameter(a, "\nx\ny\n\n z \n"), json!(["x", "y", "z"]));
        assert_eq!(
            type_parameter(a, "- first item\n* second, with comma\n3. third\n10) tenth"),
            json!(["first item", "second, with comma", "third", "tenth"])
        );
        assert_eq!(type_parameter(a, "x, y ,, z"), json!(["x", "y", "z"]));
        assert_eq!(type_parameter(a, "single"), json!(["single"]));
        assert_eq!(type_parameter(a, "[x, y]"), json!(["x", "y"]));
        assert_eq!(type_parameter(a, "\"x\", \"y\""), json!(["x", "y"]));
        assert_eq!(type_parameter(a, "\n\n"), json!([]));
        let numbers = json!({"type": "array", "items": {"type": "integer"}});
        assert_eq!(type_parameter(Some(&numbers), "1, 2, 3"), json!([1, 2, 3]));
        let untyped = json!({"type": "array"});
        assert_eq!(type_parameter(Some(&untyped), "1, b"), json!(["1", "b"]));
    }

    // --- chunk splits -------------------------------------------------------

    #[test]
    fn splits_hermes_tag_with_text_around() {
        check_splits(
            MarkupFormat::Hermes,
            "Let me look. <tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"ünï {x} <y>\"}}\n</tool_call>\nFound it: a < b.",
            "Let me look. \nFound it: a < b.",
            &[call("search", json!({"query": "ünï {x} <y>"}))],
            &CALL_JSON,
        );
    }

    #[test]
    fn splits_fenced_bare_json() {
        check_splits(
            MarkupFormat::Hermes,
            "Sure:\n```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```\nok",
            "Sure:\n\nok",
            &[call("search", json!({"query": "x"}))],
            &["```", "json", "\"name\"", "\"arguments\""],
        );
        check_splits(
            MarkupFormat::Hermes,
            "```\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n{\"name\": \"get_time\"}\n```",
            "",
            &[
                call("search", json!({"query": "x"})),
                call("get_time", json!({})),
            ],
            &["```", "\"name\""],
        );
    }

    #[test]
    fn splits_doubled_brace() {
        check_splits(
            MarkupFormat::Hermes,
            "{{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}} then text",
            " then text",
            &[call("search", json!({"query": "x"}))],
            &["{", "}", "\"name\""],
        );
        check_splits(
            MarkupFormat::Hermes,
            "{{\"name\": \"get_time\", \"arguments\": {}}\nok",
            "\nok",
            &[call("get_time", json!({}))],
            &["{", "}", "\"name\""],
        );
    }

    #[test]
    fn splits_bare_calls_on_lines() {
        check_splits(
            MarkupFormat::Hermes,
            "Two calls:\n{\"name\": \"search\", \"parameters\": {\"query\": \"a\"}}\n{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"/x\\\"}\"}\n",
            "Two calls:\n",
            &[
                call("search", json!({"query": "a"})),
                call("read_file", json!({"path": "/x"})),
            ],
            &CALL_JSON,
        );
    }

    #[test]
    fn splits_qwen_xml_arrays() {
        let expected = [call("search", json!({"query": "q", "options": ["a", "b"]}))];
        for options in ["[\"a\", \"b\"]", "- a\n- b", "a\nb", "a, b", " a ,b "] {
            let input = format!(
                "Text before <tool_call>\n<function=search>\n<parameter=query>\nq\n</parameter>\n<parameter=options>\n{options}\n</parameter>\n</function>\n</tool_call> after"
            );
            check_splits(
                MarkupFormat::QwenXml,
                &input,
                "Text before  after",
                &expected,
                &["<parameter", "</function>"],
            );
        }
    }

    #[test]
    fn splits_qwen_xml_bare_function() {
        check_splits(
            MarkupFormat::QwenXml,
            "Reading:\n<function=read_file>\n<parameter=path>\n/tmp/a b\n</parameter>\n<parameter=lines>\n1, 2\n</parameter>\n</function>\nThen more.",
            "Reading:\n\nThen more.",
            &[call("read_file", json!({"path": "/tmp/a b", "lines": [1, 2]}))],
            &["<parameter", "</function>"],
        );
    }

    #[test]
    fn splits_text_with_lone_brackets() {
        for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
            for input in [
                "if a < b then {x}",
                "use {braces} freely",
                "a <tool> and </tool> and <function> and {\"a\": 1} and {\"name\": \"nope\"}",
                "math: {{x}} < {y} <",
                "inline `code` and ``double`` and ```python\nprint({1: 2})\n``` end {",
                "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}, \"id\": 1}",
            ] {
                check_splits(format, input, input, &[], &[]);
            }
        }
    }

    #[test]
    fn splits_malformed_tag() {
        let input = "Hi <tool_call>{\"name\": \"search\", \"arguments\": [1]}</tool_call> bye";
        let (_, whole) = run_chunks(MarkupFormat::Hermes, &[input]);
        assert_eq!(whole.text, "Hi  bye");
        assert_eq!(
            whole.malformed,
            vec!["{\"name\": \"search\", \"arguments\": [1]}".to_string()]
        );
        for (i, _) in input.char_indices().skip(1) {
            let (events, split) = run_chunks(MarkupFormat::Hermes, &[&input[..i], &input[i..]]);
            assert_eq!(split, whole, "split at {i}");
            assert_clean_text(&events, &["\"name\""], input);
        }
    }

    #[test]
    fn parser_is_reusable_after_finish() {
        let mut parser = MarkupParser::new(MarkupFormat::Hermes, &tools());
        parser.push("<tool_call>{\"name\": \"get_time\"");
        let first = collect(parser.finish());
        assert_eq!(first.calls, vec![call("get_time", json!({}))]);
        let mut second = parser.push("plain");
        second.extend(parser.finish());
        assert_eq!(second, vec![MarkupEvent::Text("plain".to_string())]);
    }

    #[test]
    fn large_call_in_small_chunks() {
        let big = "word {x} <y> ".repeat(20_000);
        let args = json!({"query": big});
        let input = format!(
            "Start {{\"name\": \"search\", \"arguments\": {args}}}<tool_call>{{\"name\": \"search\", \"arguments\": {args}}}</tool_call>end"
        );
        let chunks: Vec<&str> = input
            .as_bytes()
            .chunks(3)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        let (_, out) = run_chunks(MarkupFormat::Hermes, &chunks);
        assert_eq!(out.text, "Start end");
        assert_eq!(out.calls.len(), 2);
        assert!(out.calls.iter().all(|c| c.arguments == args));
    }
}
