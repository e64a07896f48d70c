//! A found memory as one line the model reads ("[7] (Thesis, 2026-11-16)
//! …"), and the same line read back: the one format search results,
//! Imprint's lookups and its own answers share.

use crate::store::Memory;

/// "1 memory found", "3 memories found".
pub fn memories_found(count: usize) -> String {
    match count {
        1 => "1 memory found".to_string(),
        n => format!("{n} memories found"),
    }
}

/// The most characters of a found memory's content that go into a prompt
/// or a reply: a long memory is cut, with "…", so one question about it
/// never copies it whole into every turn and into the stored answer.
pub const MAX_FOUND_CHARS: usize = 2_000;

/// A memory as search results show it to the model:
/// "[7] (Thesis, 2026-11-16) Thesis: the survey budget is 400 EUR", its
/// content cut to [`MAX_FOUND_CHARS`].
pub fn memory_line(memory: &Memory) -> String {
    let project = memory.project.as_deref().unwrap_or("no project");
    let date = memory.created_at.get(..10).unwrap_or(&memory.created_at);
    let content = match memory.content.char_indices().nth(MAX_FOUND_CHARS) {
        Some((end, _)) => format!("{}…", &memory.content[..end]),
        None => memory.content.clone(),
    };
    format!("[{}] ({project}, {date}) {content}", memory.id)
}

/// A memory line read back ([`memory_line`]).
#[derive(Debug, PartialEq)]
pub struct MemoryLine<'a> {
    pub id: i64,
    /// `None` for "no project".
    pub project: Option<&'a str>,
    /// "2026-11-16".
    pub day: &'a str,
    pub content: &'a str,
}

impl<'a> MemoryLine<'a> {
    /// `None` for any line [`memory_line`] did not write.
    pub fn read(line: &'a str) -> Option<Self> {
        let rest = line.strip_prefix('[')?;
        let (id, rest) = rest.split_once("] (")?;
        let id = id.parse().ok()?;
        // A project's name may hold ", " or ")": the day is what ends it
        // (the first day so written: the content may hold one too).
        let at = (0..rest.len()).find(|&i| {
            rest.get(i..i + 2) == Some(", ")
                && rest.get(i + 12..i + 14) == Some(") ")
                && rest
                    .get(i + 2..i + 12)
                    .is_some_and(|day| chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok())
        })?;
        let project = &rest[..at];
        Some(Self {
            id,
            project: (project != "no project").then_some(project),
            day: &rest[at + 2..at + 12],
            content: &rest[at + 14..],
        })
    }

    /// The memory's words with its project's name: what names the thing
    /// it is about ("the van" of "when is the pop-top roof going on the
    /// van?" is the project "Camper van build").
    pub fn named_text(&self) -> String {
        named_text(self.content, self.project)
    }

    /// The key search results carry for it ([`found_memories`]'s facts).
    pub fn fact(&self) -> String {
        memory_fact(self.id)
    }
}

/// `content` and the name of its `project` (see [`MemoryLine::named_text`]).
pub fn named_text(content: &str, project: Option<&str>) -> String {
    match project {
        Some(project) => format!("{content} ({project})"),
        None => content.to_string(),
    }
}

pub(crate) fn memory_fact(id: i64) -> String {
    format!("memory:{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_memory_is_cut_before_it_is_shown() {
        let memory = Memory {
            id: 7,
            content: "é".repeat(50_000),
            project: None,
            tags: vec![],
            created_at: "2026-11-16T10:00:00.000Z".into(),
        };
        let line = memory_line(&memory);
        let read = MemoryLine::read(&line).unwrap();
        assert_eq!(read.content.chars().count(), MAX_FOUND_CHARS + 1);
        assert!(read.content.ends_with('…'));
    }
}
