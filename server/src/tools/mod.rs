//! The tools a reply's model may call: their JSON schemas, which of them a
//! caller is offered, and the implementations of all but `ask_user` (which
//! the tool loop runs itself, since it waits for the user).

pub mod lists;
pub mod run;

pub use run::{run_tool, ToolOutput};

use serde_json::{json, Value};

use crate::config::ToolFormat;
use crate::models::note::Note;
use crate::models::ChatMessage;

pub use app::protocol::tool_names::{ASK_USER, LIST_PROJECTS, REMIND, SEARCH, STORE};

/// Results handed to the model are cut to this many characters.
pub const MAX_RESULT_CHARS: usize = 4000;

/// The `ask_user` schema's own words for its parameters. A small model
/// copies them into its call ("options": ["2 to 5 short choices"]); an
/// option made of them is no choice (see `ask::normalize`).
pub const QUESTION_DESCRIPTION: &str = "the question, short";
pub const OPTIONS_DESCRIPTION: &str = "2 to 5 short choices";
pub const ALLOW_OTHER_DESCRIPTION: &str =
    "whether the user may answer in their own words (default true)";

/// What the caller of a reply allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    /// No writes (`store`, `remind`): Echo's default.
    pub read_only: bool,
    /// The caller can deliver an answer to `ask_user` (Chat API, Echo).
    pub can_answer: bool,
    /// The reply is spoken aloud (Echo): its first word should come soon
    /// after the user stops talking, so a memory that plainly answers is
    /// said as it is kept, without the model wording it first.
    pub spoken: bool,
}

impl Offer {
    pub const CHAT: Offer = Offer {
        read_only: false,
        can_answer: true,
        spoken: false,
    };
}

/// The writes a request asks for: a reply offers `store` only when the
/// user asked to save, `remind` only when they asked to be reminded (a
/// small model offered them stores and reminds unasked). What a request's
/// words ask for is read by `grounding::writes_asked`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WritesAsked {
    pub save: bool,
    pub remind: bool,
}

impl WritesAsked {
    pub const ALL: WritesAsked = WritesAsked {
        save: true,
        remind: true,
    };

    pub const NONE: WritesAsked = WritesAsked {
        save: false,
        remind: false,
    };

    /// Either's writes.
    pub fn or(self, other: WritesAsked) -> Self {
        Self {
            save: self.save || other.save,
            remind: self.remind || other.remind,
        }
    }
}

/// The tool schemas offered to the model (OpenAI format), every write
/// included unless the caller is read-only.
pub fn offered(format: ToolFormat, offer: Offer) -> Vec<Value> {
    offered_for(format, offer, WritesAsked::ALL)
}

/// The tool schemas offered for a request: the writes it asks for only.
///
/// The writes come last: a caller's offers then differ only in their tail,
/// and the model server's prompt cache keeps the schemas before it (with
/// the system prompt, which is the same for all of them) from one offer to
/// the next.
pub fn offered_for(format: ToolFormat, offer: Offer, writes: WritesAsked) -> Vec<Value> {
    if format == ToolFormat::None {
        return Vec::new();
    }
    let mut tools = vec![search_schema(), list_projects_schema()];
    if offer.can_answer {
        tools.push(ask_user_schema());
    }
    if !offer.read_only && writes.save {
        tools.push(store_schema());
    }
    if !offer.read_only && writes.remind {
        tools.push(remind_schema());
    }
    tools
}

/// True when `name` is among the offered tools.
pub fn is_offered(tools: &[Value], name: &str) -> bool {
    tools.iter().any(|t| t["function"]["name"] == name)
}

/// A string property's schema.
fn text(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// An object's schema: its properties and the required ones.
fn parameters(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn function(name: &str, description: &str, parameters: Value) -> Value {
    json!({
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters}
    })
}

fn search_schema() -> Value {
    function(
        SEARCH,
        "Full-text search over the user's memories. Returns the best matches with their project and date.",
        parameters(
            json!({
                "query": text("words to look for"),
                "project": text("only memories of this project (a name from list_projects)"),
                "since": text("only memories from this date on (YYYY-MM-DD)"),
                "until": text("only memories up to this date (YYYY-MM-DD)"),
                "limit": {"type": "integer", "description": "how many results (default 10)"}
            }),
            &["query"],
        ),
    )
}

fn list_projects_schema() -> Value {
    function(
        LIST_PROJECTS,
        "Lists the user's projects with how many memories each has and their date range.",
        json!({"type": "object", "properties": {}}),
    )
}

fn store_schema() -> Value {
    function(
        STORE,
        "Saves a new memory for the user.",
        parameters(
            json!({
                "content": text("what to remember"),
                "project": text("the project it belongs to"),
                "tags": {"type": "array", "items": {"type": "string"}}
            }),
            &["content"],
        ),
    )
}

fn remind_schema() -> Value {
    function(
        REMIND,
        "Schedules a reminder at a date and time the user gave.",
        parameters(
            json!({
                "text": text("what to remind the user of"),
                "at": text("when, as an ISO 8601 date-time such as 2026-12-01T09:00")
            }),
            &["text", "at"],
        ),
    )
}

fn ask_user_schema() -> Value {
    function(
        ASK_USER,
        "Asks the user a short clarifying question and waits for the answer. Use it when the request is missing a detail that changes what you do and that search cannot settle.",
        parameters(
            json!({
                "question": text(QUESTION_DESCRIPTION),
                "options": {"type": "array", "items": {"type": "string"}, "description": OPTIONS_DESCRIPTION},
                "allow_other": {"type": "boolean", "description": ALLOW_OTHER_DESCRIPTION}
            }),
            &["question"],
        ),
    )
}

/// The messages of a reply's first model request: the system prompt, the
/// conversation, and just before the new user message, the time.
///
/// Ordered for the model server's prompt cache: for a given tool offer,
/// everything before the conversation is byte-identical in every reply
/// (the system prompt holds no date; the tools follow it in the request),
/// so a new reply reprocesses only what changed, from the conversation on.
/// The time, which changes every minute, is said once, at the end, as one
/// of Imprint's notes (which later replies do not repeat).
pub fn reply_messages(
    tools: &[Value],
    history: Vec<ChatMessage>,
    now: chrono::DateTime<chrono::Local>,
) -> Vec<ChatMessage> {
    let mut messages = Vec::with_capacity(history.len() + 2);
    messages.push(ChatMessage::System(system_prompt(tools)));
    messages.extend(history);
    let note = Note::Time(now).message();
    match messages.last() {
        Some(ChatMessage::User(_)) => messages.insert(messages.len() - 1, note),
        _ => messages.push(note),
    }
    messages
}

/// The system prompt: who the assistant is and the strategy guide (with
/// its one line on asking when `ask_user` is offered). The same for every
/// offer of a caller (whichever writes it holds) and every reply: the time
/// is in the last message instead.
pub fn system_prompt(tools: &[Value]) -> String {
    let mut prompt = String::from(
        "You are Imprint, the user's personal memory assistant. Imprint's note before the \
         user's latest message gives the current date and time. Answer briefly and plainly.",
    );
    if tools.is_empty() {
        return prompt;
    }
    prompt.push_str(
        "\n\nStrategy:\n\
         - Search the user's memories before answering questions about their past, notes or projects; use list_projects to learn project names.\n\
         - Answer from what the tools return; say so when nothing was found.",
    );
    // Said with or without the writes offered, so that offers share it.
    prompt.push_str("\n- Store a memory or set a reminder only when the user asks for it.");
    if is_offered(tools, ASK_USER) {
        prompt.push_str(
            "\n- Ask the user (ask_user) only when the answer changes what you do and search cannot settle it; never ask more than needed, and offer options.",
        );
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tools: &[Value]) -> Vec<String> {
        tools
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn read_only_offers_ask_user_but_no_writes() {
        let tools = offered(
            ToolFormat::Native,
            Offer {
                read_only: true,
                can_answer: true,
                spoken: false,
            },
        );
        assert_eq!(names(&tools), vec![SEARCH, LIST_PROJECTS, ASK_USER]);
    }

    #[test]
    fn ask_user_is_offered_only_to_callers_that_can_answer() {
        let tools = offered(
            ToolFormat::Hermes,
            Offer {
                read_only: false,
                can_answer: false,
                spoken: false,
            },
        );
        assert_eq!(names(&tools), vec![SEARCH, LIST_PROJECTS, STORE, REMIND]);
        let tools = offered(ToolFormat::Native, Offer::CHAT);
        assert!(names(&tools).contains(&ASK_USER.to_string()));
    }

    #[test]
    fn writes_are_offered_only_when_the_request_asks_for_them() {
        let for_writes = |save: bool, remind: bool| {
            names(&offered_for(
                ToolFormat::Hermes,
                Offer::CHAT,
                WritesAsked { save, remind },
            ))
        };
        assert_eq!(
            for_writes(false, false),
            vec![SEARCH, LIST_PROJECTS, ASK_USER]
        );
        assert_eq!(
            for_writes(false, true),
            vec![SEARCH, LIST_PROJECTS, ASK_USER, REMIND]
        );
        assert_eq!(
            for_writes(true, false),
            vec![SEARCH, LIST_PROJECTS, ASK_USER, STORE]
        );
        // Read-only callers get no write, asked or not.
        let read_only = Offer {
            read_only: true,
            can_answer: true,
            spoken: false,
        };
        assert_eq!(
            names(&offered_for(
                ToolFormat::Native,
                read_only,
                WritesAsked::ALL
            )),
            vec![SEARCH, LIST_PROJECTS, ASK_USER]
        );
    }

    #[test]
    fn a_callers_offers_share_the_system_prompt_and_differ_only_in_their_last_schemas() {
        let writes = [
            WritesAsked {
                save: false,
                remind: false,
            },
            WritesAsked {
                save: true,
                remind: false,
            },
            WritesAsked {
                save: false,
                remind: true,
            },
            WritesAsked::ALL,
        ];
        let offers: Vec<Vec<Value>> = writes
            .iter()
            .map(|w| offered_for(ToolFormat::Hermes, Offer::CHAT, *w))
            .collect();
        let plain = &offers[0];
        for tools in &offers {
            assert_eq!(system_prompt(tools), system_prompt(plain));
            assert_eq!(
                &tools[..plain.len()],
                &plain[..],
                "the offer without writes is their prefix"
            );
        }
    }

    #[test]
    fn tool_format_none_offers_nothing() {
        assert!(offered(ToolFormat::None, Offer::CHAT).is_empty());
    }

    #[test]
    fn the_asking_line_is_in_the_guide_only_with_ask_user() {
        let with = system_prompt(&offered(ToolFormat::Native, Offer::CHAT));
        assert!(with.contains("ask_user") && with.contains("offer options"));
        let without = system_prompt(&offered(
            ToolFormat::Native,
            Offer {
                read_only: false,
                can_answer: false,
                spoken: false,
            },
        ));
        assert!(!without.contains("ask_user"));
    }
}
