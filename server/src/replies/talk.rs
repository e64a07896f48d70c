//! What was said in a reply ([`Talk`]): the user's request and the answers
//! they gave during it (the words grounded arguments must come from), the
//! conversation as the model reads it with the tools it is offered, and
//! the text the user has been shown. Changed only here.

use std::sync::Arc;

use serde_json::Value;

use crate::grounding::when::Stated;
use crate::grounding::UserWords;
use crate::models::ChatMessage;
use crate::tools::{self, Offer, WritesAsked, ASK_USER};

pub(super) struct Talk {
    /// The user's message this reply answers.
    request: String,
    /// The answers the user gave to questions during it.
    answers: Vec<String>,
    /// Every message sent to the model so far (the system prompt first).
    messages: Vec<ChatMessage>,
    /// The tools offered (a shared set, see `ToolSets`).
    tools: Arc<Vec<Value>>,
    /// The caller allows no writes (writes are then not offered at all).
    read_only: bool,
    /// Echo says the reply aloud.
    spoken: bool,
    /// Everything the user has been shown, across turns.
    text: String,
    /// The moment of the event a reminder is set against, as the
    /// memories give it (read again when a restored reply runs).
    event: Option<Stated>,
}

impl Talk {
    pub(super) fn new(
        request: String,
        messages: Vec<ChatMessage>,
        tools: Arc<Vec<Value>>,
        offer: Offer,
    ) -> Self {
        Self::restored(request, Vec::new(), messages, tools, offer, String::new())
    }

    /// As stored with the reply's state; the text shown so far goes on.
    pub(super) fn restored(
        request: String,
        answers: Vec<String>,
        messages: Vec<ChatMessage>,
        tools: Arc<Vec<Value>>,
        offer: Offer,
        text: String,
    ) -> Self {
        Self {
            request,
            answers,
            messages,
            tools,
            read_only: offer.read_only,
            spoken: offer.spoken,
            text,
            event: None,
        }
    }

    pub(super) fn request(&self) -> &str {
        &self.request
    }

    pub(super) fn answers(&self) -> &[String] {
        &self.answers
    }

    /// The user's words: the request and their answers, with the writes
    /// the request was `judged` to ask for.
    pub(super) fn user_words(&self, judged: WritesAsked) -> UserWords<'_> {
        UserWords {
            request: &self.request,
            answers: &self.answers,
            judged,
            event: self.event,
        }
    }

    /// The moment of the event the reminder asked for is set against.
    pub(super) fn set_event(&mut self, moment: Stated) {
        self.event = Some(moment);
    }

    /// An answer the user gave, kept among their words.
    pub(super) fn add_answer(&mut self, text: String) {
        self.answers.push(text);
    }

    /// Takes back the last answer (one that named a memory, not words a
    /// time or a project may be read from).
    pub(super) fn drop_last_answer(&mut self) {
        self.answers.pop();
    }

    pub(super) fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    pub(super) fn push(&mut self, message: ChatMessage) {
        self.messages.push(message);
    }

    pub(super) fn extend(&mut self, messages: impl IntoIterator<Item = ChatMessage>) {
        self.messages.extend(messages);
    }

    /// Adds Imprint's notes to the request, as the model reads it.
    pub(super) fn note_on_request(&mut self, notes: Vec<String>) {
        if let Some(ChatMessage::User(text)) = self.messages.last_mut() {
            for note in notes {
                text.push_str(&format!("\n\n({note})"));
            }
        }
    }

    pub(super) fn tools(&self) -> &Arc<Vec<Value>> {
        &self.tools
    }

    pub(super) fn offers(&self, name: &str) -> bool {
        tools::is_offered(&self.tools, name)
    }

    /// Offers another set of tools (the writes a judged kind asks for).
    pub(super) fn reoffer(&mut self, tools: Arc<Vec<Value>>) {
        self.tools = tools;
    }

    pub(super) fn read_only(&self) -> bool {
        self.read_only
    }

    /// True when Echo says the reply aloud.
    pub(super) fn spoken(&self) -> bool {
        self.spoken
    }

    /// Which tools this reply was offered (read back from its set).
    pub(super) fn offer(&self) -> Offer {
        Offer {
            read_only: self.read_only,
            can_answer: self.offers(ASK_USER),
            spoken: self.spoken,
        }
    }

    pub(super) fn shown(&self) -> &str {
        &self.text
    }

    pub(super) fn show(&mut self, text: &str) {
        self.text.push_str(text);
    }
}
