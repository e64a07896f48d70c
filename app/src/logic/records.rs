//! The Memories page's logic as plain Rust: the list as it grows page by
//! page and changes in place (edit, delete, undo), the fields as typed
//! (tags, project), the links to a row from a chat, and reminder labels.

use crate::protocol::tool_names::{REMIND, STORE};
use crate::protocol::{MeaningState, Memory, MemoryPage, Repeat, WordsOnly};

/// How long a deleted memory can be put back.
pub const UNDO_MS: u32 = 10_000;

/// Tags as typed: comma-separated, trimmed, blank ones dropped, each once
/// (any case).
pub fn parse_tags(text: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for tag in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if !tags.iter().any(|t| t.eq_ignore_ascii_case(tag)) {
            tags.push(tag.to_string());
        }
    }
    tags
}

/// Tags as the edit box shows them.
pub fn tags_text(tags: &[String]) -> String {
    tags.join(", ")
}

/// A project as typed: none when blank.
pub fn project_field(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The day of a stored time (`2026-11-30T…` → `2026-11-30`).
pub fn day(at: &str) -> &str {
    at.get(..10).unwrap_or(at)
}

/// Where the row a tool's write made is shown.
pub fn row_link(tool: &str, id: i64) -> Option<String> {
    match tool {
        STORE => Some(format!("/memories?memory={id}")),
        REMIND => Some(format!("/memories?reminder={id}")),
        _ => None,
    }
}

/// What a link to the page asks it to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Memory(i64),
    Reminder(i64),
}

/// The focus named by a page address's query (`?memory=7`).
pub fn focus(search: &str) -> Option<Focus> {
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| match pair.split_once('=')? {
            ("memory", id) => id.parse().ok().map(Focus::Memory),
            ("reminder", id) => id.parse().ok().map(Focus::Reminder),
            _ => None,
        })
}

/// What the Memories page says of finding by meaning: nothing once every
/// memory has its vector; else how far the filling in is, or why search
/// is by words only.
pub fn meaning_line(
    state: MeaningState,
    embedded: u64,
    total: u64,
    reason: Option<&WordsOnly>,
) -> Option<String> {
    match state {
        MeaningState::Ready => None,
        MeaningState::Loading => Some("Loading the model that finds memories by meaning…".into()),
        MeaningState::Filling => Some(format!(
            "Finding memories by meaning: {embedded} of {total} ready. Until then, search finds the rest by their words."
        )),
        MeaningState::Off => Some(match reason.map(why_words_only) {
            Some(why) => format!("Search finds memories by their words only: {why}."),
            None => "Search finds memories by their words only.".into(),
        }),
    }
}

/// Why search is by words only, as the page says it.
fn why_words_only(reason: &WordsOnly) -> String {
    const SET_UP: &str = "scripts/embedding-model.sh ensure sets it up";
    match reason {
        WordsOnly::TurnedOff => "it is turned off (IMPRINT_EMBEDDING_MODEL_DIR=off)".into(),
        WordsOnly::NotSetUp => format!("no embedding model is set up ({SET_UP})"),
        WordsOnly::FileMissing { file } => {
            format!("the embedding model's folder has no {file} ({SET_UP})")
        }
        WordsOnly::NotLoaded { error } => {
            format!("the embedding model could not be loaded: {error}")
        }
        WordsOnly::VectorsUnreadable { error } => {
            format!("the memories' vectors cannot be read: {error}")
        }
        WordsOnly::Stopped => "the embedding model stopped".into(),
    }
}

/// "1 memory", "2 memories".
pub fn count_memories(count: u64) -> String {
    let what = if count == 1 { "memory" } else { "memories" };
    format!("{count} {what}")
}

pub fn repeat_label(repeat: Option<Repeat>) -> &'static str {
    match repeat {
        None => "",
        Some(Repeat::Daily) => "every day",
        Some(Repeat::Weekdays) => "every weekday",
        Some(Repeat::Weekly) => "every week",
    }
}

/// The memories shown, as loaded page by page and changed in place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryList {
    pub items: Vec<Memory>,
    pub next_cursor: Option<String>,
}

/// A deleted memory and where it stood, for undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deleted {
    pub memory: Memory,
    pub index: usize,
}

/// A first page: the list starts from it.
impl From<MemoryPage> for MemoryList {
    fn from(page: MemoryPage) -> Self {
        Self {
            items: page.memories,
            next_cursor: page.next_cursor,
        }
    }
}

impl MemoryList {
    /// One memory alone (a link's row), with no page after it.
    pub fn one(memory: Memory) -> Self {
        Self {
            items: vec![memory],
            next_cursor: None,
        }
    }

    /// The next page, after what is shown (a row already shown is not
    /// shown twice).
    pub fn append(&mut self, page: MemoryPage) {
        for memory in page.memories {
            if !self.items.iter().any(|m| m.id == memory.id) {
                self.items.push(memory);
            }
        }
        self.next_cursor = page.next_cursor;
    }

    /// A new memory, at the top.
    pub fn add(&mut self, memory: Memory) {
        self.items.insert(0, memory);
    }

    /// An edited memory, in its place.
    pub fn update(&mut self, memory: Memory) {
        if let Some(shown) = self.items.iter_mut().find(|m| m.id == memory.id) {
            *shown = memory;
        }
    }

    pub fn remove(&mut self, id: i64) -> Option<Deleted> {
        let index = self.items.iter().position(|m| m.id == id)?;
        Some(Deleted {
            memory: self.items.remove(index),
            index,
        })
    }

    /// A memory put back (undo), where it stood.
    pub fn put_back(&mut self, deleted: Deleted) {
        if self.items.iter().any(|m| m.id == deleted.memory.id) {
            return;
        }
        let index = deleted.index.min(self.items.len());
        self.items.insert(index, deleted.memory);
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_meaning_line_says_how_far_the_filling_in_is_or_why_words_only() {
        use super::meaning_line;
        use crate::protocol::MeaningState;
        assert_eq!(meaning_line(MeaningState::Ready, 5, 5, None), None);
        let filling = meaning_line(MeaningState::Filling, 1200, 5000, None).unwrap();
        assert!(filling.contains("1200 of 5000"), "{filling}");
        let off = meaning_line(
            MeaningState::Off,
            0,
            3,
            Some(&crate::protocol::WordsOnly::FileMissing {
                file: "tokenizer.json".into(),
            }),
        )
        .unwrap();
        assert!(
            off.contains("words only") && off.contains("has no tokenizer.json"),
            "{off}"
        );
        assert!(meaning_line(MeaningState::Loading, 0, 0, None).is_some());
    }

    use super::*;

    fn memory(id: i64) -> Memory {
        Memory {
            id,
            content: format!("m{id}"),
            project: None,
            tags: vec![],
            created_at: "2026-11-30T10:00:00.000Z".into(),
        }
    }

    fn page(ids: &[i64], next: Option<&str>) -> MemoryPage {
        MemoryPage {
            memories: ids.iter().map(|&id| memory(id)).collect(),
            next_cursor: next.map(str::to_string),
        }
    }

    fn ids(list: &MemoryList) -> Vec<i64> {
        list.items.iter().map(|m| m.id).collect()
    }

    #[test]
    fn pages_append_without_repeating_a_row() {
        let mut list = MemoryList::from(page(&[5, 4], Some("c1")));
        list.append(page(&[4, 3], None));
        assert_eq!(ids(&list), [5, 4, 3]);
        assert_eq!(list.next_cursor, None);
        let list = MemoryList::from(page(&[9], Some("c")));
        assert_eq!(ids(&list), [9]);
        assert_eq!(list.next_cursor.as_deref(), Some("c"));
        let alone = MemoryList::one(memory(7));
        assert_eq!((ids(&alone), alone.next_cursor), (vec![7], None));
    }

    #[test]
    fn a_deleted_memory_goes_back_where_it_stood() {
        let mut list = MemoryList::from(page(&[3, 2, 1], None));
        let deleted = list.remove(2).unwrap();
        assert_eq!(ids(&list), [3, 1]);
        list.put_back(deleted.clone());
        assert_eq!(ids(&list), [3, 2, 1]);
        list.put_back(deleted);
        assert_eq!(ids(&list), [3, 2, 1], "once");
        assert_eq!(list.remove(42), None);
        let mut edited = memory(1);
        edited.content = "changed".into();
        list.update(edited);
        assert_eq!(list.items[2].content, "changed");
        list.add(memory(4));
        assert_eq!(ids(&list), [4, 3, 2, 1]);
    }

    #[test]
    fn counts_say_memory_or_memories() {
        assert_eq!(count_memories(1), "1 memory");
        assert_eq!(count_memories(0), "0 memories");
        assert_eq!(count_memories(12000), "12000 memories");
    }

    #[test]
    fn fields_are_read_as_typed() {
        assert_eq!(parse_tags(" a, b ,,A, c "), ["a", "b", "c"]);
        assert!(parse_tags(" , ").is_empty());
        assert_eq!(tags_text(&["a".into(), "b".into()]), "a, b");
        assert_eq!(project_field("  "), None);
        assert_eq!(project_field(" Home ").as_deref(), Some("Home"));
        assert_eq!(day("2026-11-30T10:00:00.000Z"), "2026-11-30");
    }

    #[test]
    fn links_name_the_row_and_the_page_finds_it() {
        let memory = row_link(STORE, 7).unwrap();
        let reminder = row_link(REMIND, 8).unwrap();
        assert_eq!(row_link("search", 1), None);
        let query = |link: &str| link.split_once('?').map(|(_, q)| q.to_string());
        assert_eq!(focus(&query(&memory).unwrap()), Some(Focus::Memory(7)));
        assert_eq!(
            focus(&format!("?{}", query(&reminder).unwrap())),
            Some(Focus::Reminder(8))
        );
        assert_eq!(focus("?memory=x"), None);
        assert_eq!(focus(""), None);
        assert_eq!(repeat_label(Some(Repeat::Weekdays)), "every weekday");
    }
}
