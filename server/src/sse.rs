//! The one reader of server-sent events on the server side: the model's
//! stream, and the tests and benchmarks that watch Imprint's own streams.
//!
//! Bytes arrive in chunks of any size (a chunk may end inside a line or
//! inside a character). [`SseLines`] turns them into lines, as the model
//! client reads them (each `data:` line on its own, so `[DONE]` is acted on
//! at once); [`SseMessages`] gathers lines into messages (`id`, `data`), as
//! a browser's `EventSource` does. Lines end at `\n` (a `\r` before it is
//! dropped); one space after a field's colon is dropped; comments (lines
//! starting with `:`) are skipped.

/// One line of an event stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SseLine {
    /// `name: value` (or `name` alone, with an empty value).
    Field { name: String, value: String },
    /// An empty line: the end of a message.
    Blank,
}

/// Splits a byte stream into lines; keeps a partial line (and a partial
/// UTF-8 character) for the next chunk.
#[derive(Debug, Default)]
pub struct SseLines {
    pending: Vec<u8>,
}

impl SseLines {
    /// The lines completed by `chunk`, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseLine> {
        self.pending.extend_from_slice(chunk);
        let mut lines = Vec::new();
        while let Some(pos) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=pos).collect();
            lines.extend(read_line(&String::from_utf8_lossy(&line)));
        }
        lines
    }

    /// The end of the stream: a last line that had no line break.
    pub fn finish(&mut self) -> Option<SseLine> {
        let rest = std::mem::take(&mut self.pending);
        let rest = String::from_utf8_lossy(&rest);
        let rest = rest.trim();
        if rest.is_empty() {
            return None;
        }
        read_line(rest)
    }
}

fn read_line(line: &str) -> Option<SseLine> {
    let line = line.trim_end_matches(['\n', '\r']);
    if line.is_empty() {
        return Some(SseLine::Blank);
    }
    if line.starts_with(':') {
        return None;
    }
    let (name, value) = line.split_once(':').unwrap_or((line, ""));
    Some(SseLine::Field {
        name: name.to_string(),
        value: value.strip_prefix(' ').unwrap_or(value).to_string(),
    })
}

/// One message of an event stream: its id, if any, and its data lines
/// joined with `\n`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseMessage {
    pub id: Option<String>,
    pub data: String,
}

/// Gathers lines into messages. A message without a `data` line (a
/// keep-alive) is not one.
#[derive(Debug, Default)]
pub struct SseMessages {
    lines: SseLines,
    id: Option<String>,
    data: Option<String>,
}

impl SseMessages {
    /// The messages completed by `chunk`, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseMessage> {
        let lines = self.lines.push(chunk);
        lines.into_iter().filter_map(|l| self.line(l)).collect()
    }

    /// The end of the stream: a message that had no blank line after it.
    pub fn finish(&mut self) -> Option<SseMessage> {
        if let Some(line) = self.lines.finish() {
            if let Some(message) = self.line(line) {
                return Some(message);
            }
        }
        self.line(SseLine::Blank)
    }

    fn line(&mut self, line: SseLine) -> Option<SseMessage> {
        match line {
            SseLine::Blank => {
                let id = self.id.take();
                self.data.take().map(|data| SseMessage { id, data })
            }
            SseLine::Field { name, value } => {
                match name.as_str() {
                    "id" => self.id = Some(value),
                    "data" => match &mut self.data {
                        Some(data) => {
                            data.push('\n');
                            data.push_str(&value);
                        }
                        None => self.data = Some(value),
                    },
                    _ => {}
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, value: &str) -> SseLine {
        SseLine::Field {
            name: name.into(),
            value: value.into(),
        }
    }

    #[test]
    fn lines_survive_any_split_including_inside_a_character() {
        let input = "data: {\"a\":\"é\"}\r\n\n: keep-alive\ndata:[DONE]\n".as_bytes();
        for split in 0..input.len() {
            let mut lines = SseLines::default();
            let mut read = lines.push(&input[..split]);
            read.extend(lines.push(&input[split..]));
            assert_eq!(
                read,
                vec![
                    field("data", "{\"a\":\"é\"}"),
                    SseLine::Blank,
                    field("data", "[DONE]")
                ],
                "split {split}"
            );
            assert_eq!(lines.finish(), None);
        }
    }

    #[test]
    fn a_last_line_without_a_break_is_read_at_the_end() {
        let mut lines = SseLines::default();
        assert_eq!(lines.push(b"data: [DONE]"), vec![]);
        assert_eq!(lines.finish(), Some(field("data", "[DONE]")));
    }

    #[test]
    fn messages_gather_ids_and_data_lines() {
        let input =
            b"id: 7\ndata: {\"a\":1}\n\n: ping\n\nid: 8\ndata: one\ndata: two\n\ndata: last";
        let mut messages = SseMessages::default();
        let mut read = messages.push(input);
        read.extend(messages.finish());
        assert_eq!(
            read,
            vec![
                SseMessage {
                    id: Some("7".into()),
                    data: "{\"a\":1}".into()
                },
                SseMessage {
                    id: Some("8".into()),
                    data: "one\ntwo".into()
                },
                SseMessage {
                    id: None,
                    data: "last".into()
                },
            ]
        );
        assert_eq!(messages.finish(), None);
    }
}
