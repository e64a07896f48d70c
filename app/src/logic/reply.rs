//! A reply on the page is one reducer over its events: the same events
//! replayed after a reload rebuild the same view, waiting card included.
//! Stored history turns into the same items, so a finished reply looks the
//! same before and after a reload.
//!
//! Markdown is rendered by the server: text is plain (`html: None`) while it
//! streams, and the answer's HTML arrives with `assistant_message` and with
//! stored assistant messages.

use crate::api::answers::Answer;
use serde_json::Value;

use crate::logic::activity::{self, Activity, Outcome};
use crate::protocol::tool_names::ASK_USER;
use crate::protocol::{
    Ended, Message, Question, QuestionOrigin, QuestionOutcome, QuestionReason, ReplyEvent, Role,
    ToolStatus, UnansweredReason,
};

/// The state of a question card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardState {
    Waiting,
    Answered(String),
    /// "You decide": the choice was left to Imprint (and the option it
    /// took for its own question, if any).
    LeftToImprint(Option<String>),
    /// No answer came in time; the reply went on without one.
    TimedOut,
    /// The reply was stopped while the question waited.
    Stopped,
}

impl CardState {
    /// A card closed without an answer, for an `unanswered` event's
    /// `reason` (`chosen`: what Imprint took when it was left to it).
    pub fn closed(reason: UnansweredReason, chosen: Option<String>) -> Self {
        match reason {
            UnansweredReason::LeftToImprint => CardState::LeftToImprint(chosen),
            UnansweredReason::TimedOut => CardState::TimedOut,
            UnansweredReason::Stopped => CardState::Stopped,
        }
    }

    /// What a closed card says.
    pub fn summary(&self) -> Option<String> {
        match self {
            CardState::Waiting => None,
            CardState::Answered(text) => Some(format!("Answered: {text}")),
            CardState::LeftToImprint(None) => Some("Left to Imprint".into()),
            CardState::LeftToImprint(Some(chosen)) => {
                Some(format!("Left to Imprint: it chose {chosen}"))
            }
            CardState::TimedOut => {
                Some("No answer came; the reply went on with its best assumption.".into())
            }
            CardState::Stopped => Some("Not answered: the reply was stopped.".into()),
        }
    }
}

/// One thing shown in a reply.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplyItem {
    /// Text written by the model (Markdown), and its HTML once the server
    /// rendered it: `None` while it streams (shown as plain text).
    Text { text: String, html: Option<String> },
    /// A tool call; `result` (the text the model read) and `outcome` once
    /// it finished.
    Tool {
        id: String,
        name: String,
        args: Value,
        result: Option<String>,
        outcome: Option<Outcome>,
    },
    Question {
        question: Question,
        state: CardState,
    },
}

impl ReplyItem {
    /// A tool item's activity line: `None` for other items and for calls
    /// that get no line (repeats, questions not asked, `ask_user` calls,
    /// which show as their cards).
    pub fn activity(&self) -> Option<Activity> {
        let ReplyItem::Tool { name, outcome, .. } = self else {
            return None;
        };
        match outcome {
            _ if name == ASK_USER => None,
            None => Some(activity::running(name)),
            Some(outcome) => activity::finished(name, outcome),
        }
    }

    /// Whether the item shows at all.
    pub fn is_drawn(&self) -> bool {
        !matches!(self, ReplyItem::Tool { .. }) || self.activity().is_some()
    }
}

/// How the reply stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyStatus {
    Writing,
    Stopped,
    Failed(String),
    Finished,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReplyView {
    pub items: Vec<ReplyItem>,
    pub status: ReplyStatus,
    /// The sequence number of the last event applied.
    pub last_seq: u64,
    /// True once `done` arrived: the reply is over.
    pub done: bool,
}

impl Default for ReplyView {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            status: ReplyStatus::Writing,
            last_seq: 0,
            done: false,
        }
    }
}

impl ReplyView {
    /// Applies one event; events at or before `last_seq` are ignored, so a
    /// resumed stream can overlap what was seen.
    pub fn apply(&mut self, seq: u64, event: ReplyEvent) {
        if seq != 0 && seq <= self.last_seq {
            return;
        }
        self.last_seq = seq.max(self.last_seq);
        match event {
            ReplyEvent::Token { text } => match self.items.last_mut() {
                Some(ReplyItem::Text { text: existing, .. }) => existing.push_str(&text),
                _ => self.items.push(ReplyItem::Text { text, html: None }),
            },
            ReplyEvent::ToolCall { id, name, args } => {
                self.items.push(ReplyItem::Tool {
                    id,
                    name,
                    args,
                    result: None,
                    outcome: None,
                });
            }
            ReplyEvent::ToolResult {
                id,
                result,
                status,
                args: ran_with,
                found,
                row_id,
                reason,
                ..
            } => {
                for item in self.items.iter_mut().rev() {
                    if let ReplyItem::Tool {
                        id: call,
                        args,
                        result: slot,
                        outcome,
                        ..
                    } = item
                    {
                        if *call == id {
                            *slot = Some(result);
                            *outcome = Some(Outcome {
                                status,
                                // The arguments it ran with (a time the
                                // user gave), else the call's own.
                                args: ran_with.unwrap_or_else(|| args.clone()),
                                found,
                                row_id,
                                reason,
                            });
                            break;
                        }
                    }
                }
            }
            // A reply restored after a restart poses its question again:
            // the same card waits again rather than a second one.
            ReplyEvent::Question(question) => {
                let same = self.items.iter_mut().find_map(|item| match item {
                    ReplyItem::Question { question: q, state } if q.id == question.id => {
                        Some(state)
                    }
                    _ => None,
                });
                match same {
                    Some(state) => *state = CardState::Waiting,
                    None => self.items.push(ReplyItem::Question {
                        question,
                        state: CardState::Waiting,
                    }),
                }
            }
            ReplyEvent::Answer { id, text } => self.close_card(&id, CardState::Answered(text)),
            ReplyEvent::Unanswered { id, reason, chosen } => {
                self.close_card(&id, CardState::closed(reason, chosen))
            }
            ReplyEvent::AssistantMessage { text, html } => {
                self.status = ReplyStatus::Finished;
                if html.is_some() {
                    self.finish_text(text, html);
                }
            }
            ReplyEvent::Error { error } => {
                self.status = ReplyStatus::Failed(error);
                self.close_waiting();
            }
            ReplyEvent::Stopped => {
                self.status = ReplyStatus::Stopped;
                self.close_waiting();
            }
            ReplyEvent::Done => self.done = true,
        }
    }

    /// The answer replaces the streamed pieces of text with one rendered
    /// message after the reply's other items: as history stores it (the
    /// whole text in one assistant message after the tool rows), so the view
    /// does not change when history takes over.
    fn finish_text(&mut self, text: String, html: Option<String>) {
        self.items
            .retain(|item| !matches!(item, ReplyItem::Text { .. }));
        self.items.push(ReplyItem::Text { text, html });
    }

    fn close_card(&mut self, id: &str, new_state: CardState) {
        for item in &mut self.items {
            if let ReplyItem::Question { question, state } = item {
                if question.id == id {
                    *state = new_state.clone();
                }
            }
        }
    }

    /// The reply ended: a card still waiting was stopped.
    fn close_waiting(&mut self) {
        for item in &mut self.items {
            if let ReplyItem::Question { state, .. } = item {
                if *state == CardState::Waiting {
                    *state = CardState::Stopped;
                }
            }
        }
    }

    /// The question waiting for an answer, if any.
    pub fn waiting_question(&self) -> Option<&Question> {
        self.items.iter().find_map(|item| match item {
            ReplyItem::Question {
                question,
                state: CardState::Waiting,
            } => Some(question),
            _ => None,
        })
    }
}

/// One entry of a chat's history as shown.
#[derive(Clone, Debug, PartialEq)]
pub enum HistoryEntry {
    User(String),
    /// `html`: the server's rendering of `text` (plain text when absent).
    Assistant {
        text: String,
        html: Option<String>,
        /// How it ended when it did not finish normally, and the error.
        ended: Option<Ended>,
        error: Option<String>,
    },
    Item(ReplyItem),
}

/// What the page says under a reply that did not finish normally.
pub fn ending_note(ended: Ended, error: Option<&str>) -> String {
    match ended {
        Ended::Stopped => "Stopped.".into(),
        Ended::Interrupted => "Imprint stopped while writing this reply.".into(),
        Ended::CutOff => "The model's answer was cut off.".into(),
        Ended::Length => "The model reached its length limit: the answer may be unfinished.".into(),
        Ended::Error => match error {
            Some(error) if !error.is_empty() => format!("The reply failed: {error}"),
            _ => "The reply failed.".into(),
        },
    }
}

/// Whether the page offers Retry under stored history: the last message
/// is a reply that did not finish normally, or a user message nothing
/// answered. Tool rows with no answer after them are such a reply too,
/// also when the page holds only them (a long reply's newest rows: its
/// user message is on an older page).
pub fn offers_retry(messages: &[Message]) -> bool {
    match messages.iter().rev().find(|m| m.role != Role::Tool) {
        Some(m) if m.role == Role::User => true,
        Some(m) => m.ended.is_some(),
        None => !messages.is_empty(),
    }
}

/// Stored messages as the page shows them: tool rows become activity
/// lines (or nothing, for repeats), `ask_user` rows of questions that were
/// posed answered (or unanswered) cards.
pub fn history_entries(messages: &[Message]) -> Vec<HistoryEntry> {
    messages
        .iter()
        .filter_map(|m| match m.role {
            Role::User => Some(HistoryEntry::User(m.content.clone())),
            Role::Assistant => Some(HistoryEntry::Assistant {
                text: m.content.clone(),
                html: m.html.clone(),
                ended: m.ended,
                error: m.error.clone(),
            }),
            Role::Tool => {
                let item = tool_item(m);
                item.is_drawn().then_some(HistoryEntry::Item(item))
            }
        })
        .collect()
}

fn tool_item(m: &Message) -> ReplyItem {
    let name = m.tool_name.clone().unwrap_or_default();
    let args = m.tool_args.clone().unwrap_or(Value::Null);
    // A question was posed only if its row carries the id it was asked
    // under; a call Imprint did not ask is no card.
    let posed = args
        .get("question_id")
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty());
    if name != ASK_USER || !posed {
        let status = match (m.status, name.as_str()) {
            (Some(status), _) => status,
            (None, ASK_USER) => ToolStatus::NotAsked,
            (None, _) => ToolStatus::Done,
        };
        return ReplyItem::Tool {
            id: m.seq.to_string(),
            name,
            outcome: Some(Outcome {
                status,
                args: args.clone(),
                found: m.found,
                row_id: m.row_id,
                reason: m.reason.clone(),
            }),
            args,
            result: Some(m.content.clone()),
        };
    }
    let text = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let question = Question {
        id: text("question_id"),
        question: text("question"),
        options: args
            .get("options")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|o| o.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        allow_other: args
            .get("allow_other")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        expires_at: None,
        origin: match text("origin").as_str() {
            "imprint" => QuestionOrigin::Imprint,
            _ => QuestionOrigin::Model,
        },
        reason: args
            .get("reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        why: args
            .get("why")
            .and_then(|why| QuestionReason::read(why).ok()),
    };
    // A row with no outcome it can read was closed by a stop.
    let state = match QuestionOutcome::read(args.get("outcome")) {
        Some(QuestionOutcome::Answered) => CardState::Answered(m.content.clone()),
        Some(QuestionOutcome::LeftToImprint) => CardState::LeftToImprint(
            args.get("chosen")
                .and_then(Value::as_str)
                .map(str::to_string),
        ),
        Some(QuestionOutcome::TimedOut) => CardState::TimedOut,
        Some(QuestionOutcome::Stopped) | None => CardState::Stopped,
    };
    ReplyItem::Question { question, state }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question(id: &str) -> Question {
        Question {
            id: id.into(),
            question: "Which project?".into(),
            options: vec!["Imprint".into(), "Billing".into()],
            allow_other: true,
            expires_at: None,
            origin: QuestionOrigin::Model,
            reason: None,
            why: None,
        }
    }

    fn events() -> Vec<ReplyEvent> {
        vec![
            ReplyEvent::Token {
                text: "Let me ".into(),
            },
            ReplyEvent::Token {
                text: "look.".into(),
            },
            ReplyEvent::ToolCall {
                id: "c1".into(),
                name: "search".into(),
                args: json!({"query": "notes"}),
            },
            ReplyEvent::ToolResult {
                id: "c1".into(),
                name: "search".into(),
                result: "2 found".into(),
                status: ToolStatus::Done,
                row_id: None,
                args: None,
                found: Some(2),
                reason: None,
            },
            ReplyEvent::ToolCall {
                id: "c2".into(),
                name: "ask_user".into(),
                args: json!({}),
            },
            ReplyEvent::Question(question("q1")),
        ]
    }

    #[test]
    fn events_build_text_tools_and_a_waiting_card() {
        let mut view = ReplyView::default();
        for (i, e) in events().into_iter().enumerate() {
            view.apply(i as u64 + 1, e);
        }
        assert_eq!(
            view.items[0],
            ReplyItem::Text {
                text: "Let me look.".into(),
                html: None
            }
        );
        assert!(
            matches!(&view.items[1], ReplyItem::Tool { result: Some(r), .. } if r == "2 found")
        );
        assert_eq!(view.waiting_question().map(|q| q.id.as_str()), Some("q1"));
        assert_eq!(view.status, ReplyStatus::Writing);
    }

    #[test]
    fn replaying_with_overlap_rebuilds_the_same_view() {
        let mut live = ReplyView::default();
        for (i, e) in events().into_iter().enumerate() {
            live.apply(i as u64 + 1, e);
        }
        let mut resumed = ReplyView::default();
        for (i, e) in events().into_iter().enumerate().take(4) {
            resumed.apply(i as u64 + 1, e);
        }
        // The stream resumes from 3: events 3 and 4 arrive again.
        for (i, e) in events().into_iter().enumerate().skip(2) {
            resumed.apply(i as u64 + 1, e);
        }
        assert_eq!(resumed, live);
    }

    #[test]
    fn answers_and_stops_close_cards() {
        let mut view = ReplyView::default();
        view.apply(1, ReplyEvent::Question(question("q1")));
        view.apply(
            2,
            ReplyEvent::Answer {
                id: "q1".into(),
                text: "Billing".into(),
            },
        );
        assert!(view.waiting_question().is_none());
        assert!(
            matches!(&view.items[0], ReplyItem::Question { state: CardState::Answered(a), .. } if a == "Billing")
        );

        let mut view = ReplyView::default();
        view.apply(1, ReplyEvent::Question(question("q2")));
        view.apply(2, ReplyEvent::Stopped);
        view.apply(3, ReplyEvent::Done);
        assert_eq!(view.status, ReplyStatus::Stopped);
        assert!(view.done);
        let ReplyItem::Question { state, .. } = &view.items[0] else {
            panic!()
        };
        assert_eq!(
            state.summary().unwrap(),
            "Not answered: the reply was stopped."
        );

        let mut view = ReplyView::default();
        view.apply(1, ReplyEvent::Question(question("q3")));
        view.apply(
            2,
            ReplyEvent::Unanswered {
                id: "q3".into(),
                reason: UnansweredReason::TimedOut,
                chosen: None,
            },
        );
        let ReplyItem::Question { state, .. } = &view.items[0] else {
            panic!()
        };
        assert!(state.summary().unwrap().contains("best assumption"));
    }

    #[test]
    fn a_question_left_to_imprint_says_so_and_what_it_chose() {
        let mut view = ReplyView::default();
        view.apply(1, ReplyEvent::Question(question("q1")));
        view.apply(
            2,
            ReplyEvent::Unanswered {
                id: "q1".into(),
                reason: UnansweredReason::LeftToImprint,
                chosen: Some("Imprint".into()),
            },
        );
        assert!(view.waiting_question().is_none());
        let ReplyItem::Question { state, .. } = &view.items[0] else {
            panic!()
        };
        assert_eq!(
            state.summary().unwrap(),
            "Left to Imprint: it chose Imprint"
        );
        let row = Message {
            seq: 2,
            role: Role::Tool,
            content: "The user left the choice to you.".into(),
            tool_name: Some("ask_user".into()),
            tool_args: Some(
                json!({"question": "When?", "question_id": "q", "outcome": "left_to_imprint", "chosen": "Tomorrow 09:00", "origin": "imprint"}),
            ),
            created_at: String::new(),
            ended: None,
            error: None,
            html: None,
            status: None,
            row_id: None,
            found: None,
            reason: None,
        };
        let HistoryEntry::Item(ReplyItem::Question { state, .. }) = &history_entries(&[row])[0]
        else {
            panic!()
        };
        assert_eq!(
            *state,
            CardState::LeftToImprint(Some("Tomorrow 09:00".into()))
        );
    }

    #[test]
    fn stored_questions_become_closed_cards() {
        let row = |content: &str, outcome: &str| Message {
            seq: 2,
            role: Role::Tool,
            content: content.into(),
            tool_name: Some("ask_user".into()),
            tool_args: Some(
                json!({"question": "Which?", "options": ["A", "B"], "allow_other": false, "question_id": "q", "outcome": outcome}),
            ),
            created_at: String::new(),
            ended: None,
            error: None,
            html: None,
            status: None,
            row_id: None,
            found: None,
            reason: None,
        };
        let entries = history_entries(&[
            row("B", "answered"),
            row("x", "timeout"),
            row("x", "timed_out"),
            row("x", "left_to_imprint"),
            row("x", "stopped"),
            row("x", "something newer"),
        ]);
        let HistoryEntry::Item(ReplyItem::Question { question, state }) = &entries[0] else {
            panic!()
        };
        assert_eq!((question.options.len(), question.allow_other), (2, false));
        assert_eq!(*state, CardState::Answered("B".into()));
        let HistoryEntry::Item(ReplyItem::Question { state, .. }) = &entries[1] else {
            panic!()
        };
        assert_eq!(*state, CardState::TimedOut);
        assert_eq!(
            entries[1], entries[2],
            "old `timeout` rows read as timed_out"
        );
        let HistoryEntry::Item(ReplyItem::Question { state, .. }) = &entries[3] else {
            panic!()
        };
        assert_eq!(state.summary().unwrap(), "Left to Imprint");
        let HistoryEntry::Item(ReplyItem::Question { state, .. }) = &entries[4] else {
            panic!()
        };
        assert_eq!(*state, CardState::Stopped);
        assert_eq!(
            entries[4], entries[5],
            "an outcome it cannot read was a stop"
        );
    }

    #[test]
    fn each_closed_card_says_what_became_of_its_question() {
        let words = |reason, chosen: Option<&str>| {
            CardState::closed(reason, chosen.map(str::to_string))
                .summary()
                .unwrap()
        };
        assert_eq!(
            words(UnansweredReason::TimedOut, None),
            "No answer came; the reply went on with its best assumption."
        );
        assert_eq!(
            words(UnansweredReason::Stopped, None),
            "Not answered: the reply was stopped."
        );
        assert_eq!(
            words(UnansweredReason::LeftToImprint, None),
            "Left to Imprint"
        );
        assert_eq!(
            words(UnansweredReason::LeftToImprint, Some("Billing")),
            "Left to Imprint: it chose Billing"
        );
        assert_eq!(
            CardState::Answered("Billing".into()).summary().unwrap(),
            "Answered: Billing"
        );
        assert_eq!(CardState::Waiting.summary(), None);
    }

    fn tool_row(name: &str, args: Value, status: Option<ToolStatus>) -> Message {
        Message {
            seq: 3,
            role: Role::Tool,
            content: "result".into(),
            tool_name: Some(name.into()),
            tool_args: Some(args),
            created_at: String::new(),
            ended: None,
            error: None,
            html: None,
            status,
            row_id: None,
            found: None,
            reason: None,
        }
    }

    fn lines(items: &[ReplyItem]) -> Vec<String> {
        items
            .iter()
            .filter_map(ReplyItem::activity)
            .map(|a| a.text)
            .collect()
    }

    fn cards(items: &[ReplyItem]) -> usize {
        items
            .iter()
            .filter(|i| matches!(i, ReplyItem::Question { .. }))
            .count()
    }

    /// The reply of issue 14 as its events came: the model's guessed time
    /// while Imprint asked, then refused saves and questions not asked.
    fn the_reminder_reply() -> Vec<ReplyEvent> {
        let call = |id: &str, name: &str, args: Value| ReplyEvent::ToolCall {
            id: id.into(),
            name: name.into(),
            args,
        };
        let result = |id: &str, name: &str, status, args: Option<Value>| ReplyEvent::ToolResult {
            id: id.into(),
            name: name.into(),
            result: "…".into(),
            status,
            row_id: (status == ToolStatus::Done).then_some(7),
            args,
            found: None,
            reason: None,
        };
        let mut imprint_question = question("q1");
        imprint_question.question = "What time should I remind you to call Anna?".into();
        imprint_question.origin = QuestionOrigin::Imprint;
        let mut events = vec![
            call(
                "c1",
                "remind",
                json!({"text": "Call Anna", "at": "2026-12-01T09:00"}),
            ),
            ReplyEvent::Question(imprint_question),
            ReplyEvent::Answer {
                id: "q1".into(),
                text: "Tomorrow, 09:00".into(),
            },
            result(
                "c1",
                "remind",
                ToolStatus::Done,
                Some(json!({"text": "Call Anna", "at": "2026-12-01T09:00:00.000+00:00"})),
            ),
        ];
        for i in 0..4 {
            let store = format!("s{i}");
            let ask = format!("a{i}");
            events.push(call(&store, "store", json!({"content": "Call Anna"})));
            events.push(result(&store, "store", ToolStatus::Refused, None));
            events.push(call(
                &ask,
                "ask_user",
                json!({"question": "Do you want to call Anna?", "options": ["Yes", "No"]}),
            ));
            events.push(result(&ask, "ask_user", ToolStatus::NotAsked, None));
        }
        events
    }

    #[test]
    fn a_call_waiting_on_imprints_question_shows_no_guessed_time() {
        let mut view = ReplyView::default();
        let events = the_reminder_reply();
        for (i, e) in events.iter().take(2).cloned().enumerate() {
            view.apply(i as u64 + 1, e);
        }
        assert_eq!(lines(&view.items), ["Setting a reminder…"]);
        for (i, e) in events.into_iter().enumerate().skip(2) {
            view.apply(i as u64 + 1, e);
        }
        let shown = lines(&view.items);
        assert_eq!(
            shown
                .iter()
                .filter(|l| l.starts_with("Reminder set"))
                .count(),
            1
        );
        assert_eq!(shown[0], "Reminder set for Tue 1 Dec 09:00: Call Anna");
        assert!(shown.iter().all(|l| !l.starts_with("Saved")), "{shown:?}");
        // One card: the question that was asked; the four not asked are none.
        assert_eq!(cards(&view.items), 1);
    }

    #[test]
    fn refused_and_repeated_calls_never_read_as_done() {
        let mut view = ReplyView::default();
        for (i, e) in the_reminder_reply().into_iter().enumerate() {
            view.apply(i as u64 + 1, e);
        }
        let muted: Vec<_> = view
            .items
            .iter()
            .filter_map(ReplyItem::activity)
            .filter(|a| a.muted)
            .collect();
        assert_eq!(muted.len(), 4);
        assert!(muted
            .iter()
            .all(|a| a.text == "Not saved (you didn't ask to save)"));
        view.apply(
            100,
            ReplyEvent::ToolCall {
                id: "r".into(),
                name: "remind".into(),
                args: json!({"text": "Call Anna", "at": "2026-12-01T09:00"}),
            },
        );
        view.apply(
            101,
            ReplyEvent::ToolResult {
                id: "r".into(),
                name: "remind".into(),
                result: "Already done".into(),
                status: ToolStatus::Repeated,
                row_id: None,
                args: None,
                found: None,
                reason: None,
            },
        );
        let repeat = view.items.last().unwrap();
        assert!(!repeat.is_drawn() && repeat.activity().is_none());
    }

    #[test]
    fn only_stored_questions_that_were_posed_are_cards() {
        let posed = tool_row(
            "ask_user",
            json!({"question": "What time?", "options": [], "question_id": "q9", "outcome": "answered", "origin": "imprint"}),
            Some(ToolStatus::Done),
        );
        let not_asked = tool_row(
            "ask_user",
            json!({"question": "Do you want to call Anna?", "options": ["Yes", "No"]}),
            Some(ToolStatus::NotAsked),
        );
        // Stored before rows carried a status: no id, so never posed.
        let old_not_asked = tool_row(
            "ask_user",
            json!({"question": "Do you want to call Anna?", "options": ["Yes", "No"]}),
            None,
        );
        let refused_store = tool_row(
            "store",
            json!({"content": "Call Anna"}),
            Some(ToolStatus::Refused),
        );
        let repeated = tool_row(
            "remind",
            json!({"text": "Call Anna", "at": "2026-12-01T09:00"}),
            Some(ToolStatus::Repeated),
        );
        let set = tool_row(
            "remind",
            json!({"text": "Call Anna", "at": "2026-12-01T09:00:00.000+00:00"}),
            Some(ToolStatus::Done),
        );
        let entries = history_entries(&[
            posed,
            not_asked,
            old_not_asked,
            refused_store,
            repeated,
            set,
        ]);
        let items: Vec<ReplyItem> = entries
            .into_iter()
            .map(|e| match e {
                HistoryEntry::Item(item) => item,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(cards(&items), 1);
        assert!(matches!(
            &items[0],
            ReplyItem::Question { question, state: CardState::Answered(_) } if question.id == "q9"
        ));
        assert_eq!(
            lines(&items),
            [
                "Not saved (you didn't ask to save)",
                "Reminder set for Tue 1 Dec 09:00: Call Anna"
            ]
        );
    }

    #[test]
    fn the_answer_brings_its_html_in_place_of_the_streamed_text() {
        let mut view = ReplyView::default();
        for (i, e) in events().into_iter().take(4).enumerate() {
            view.apply(i as u64 + 1, e);
        }
        view.apply(
            5,
            ReplyEvent::Token {
                text: " **Two** notes.".into(),
            },
        );
        // Streamed text stays plain.
        assert!(matches!(
            &view.items[2],
            ReplyItem::Text { text, html: None } if text == " **Two** notes."
        ));
        view.apply(
            6,
            ReplyEvent::AssistantMessage {
                text: "Let me look. **Two** notes.".into(),
                html: Some("<p>Let me look. <strong>Two</strong> notes.</p>".into()),
            },
        );
        assert_eq!(view.status, ReplyStatus::Finished);
        // One rendered message after the tool activity, as history has it.
        assert_eq!(view.items.len(), 2);
        assert!(matches!(&view.items[0], ReplyItem::Tool { name, .. } if name == "search"));
        assert_eq!(
            view.items[1],
            ReplyItem::Text {
                text: "Let me look. **Two** notes.".into(),
                html: Some("<p>Let me look. <strong>Two</strong> notes.</p>".into()),
            }
        );
    }

    #[test]
    fn an_answer_without_html_keeps_the_plain_text() {
        let mut view = ReplyView::default();
        view.apply(1, ReplyEvent::Token { text: "Hi".into() });
        view.apply(
            2,
            ReplyEvent::AssistantMessage {
                text: "Hi".into(),
                html: None,
            },
        );
        assert_eq!(view.status, ReplyStatus::Finished);
        assert_eq!(
            view.items,
            [ReplyItem::Text {
                text: "Hi".into(),
                html: None
            }]
        );
    }

    #[test]
    fn stored_assistant_messages_carry_their_html() {
        let message = |role, content: &str, html: Option<&str>| Message {
            seq: 1,
            role,
            content: content.into(),
            tool_name: None,
            tool_args: None,
            created_at: String::new(),
            ended: None,
            error: None,
            html: html.map(str::to_string),
            status: None,
            row_id: None,
            found: None,
            reason: None,
        };
        let entries = history_entries(&[
            message(Role::User, "**hi**", None),
            message(
                Role::Assistant,
                "**Hello**",
                Some("<p><strong>Hello</strong></p>"),
            ),
            message(Role::Assistant, "old", None),
        ]);
        assert_eq!(entries[0], HistoryEntry::User("**hi**".into()));
        assert_eq!(
            entries[1],
            HistoryEntry::Assistant {
                text: "**Hello**".into(),
                html: Some("<p><strong>Hello</strong></p>".into()),
                ended: None,
                error: None,
            }
        );
        assert!(matches!(
            &entries[2],
            HistoryEntry::Assistant { html: None, .. }
        ));
    }

    fn assistant(ended: Option<Ended>) -> Message {
        Message {
            seq: 2,
            role: Role::Assistant,
            content: "w0".into(),
            tool_name: None,
            tool_args: None,
            created_at: String::new(),
            ended,
            error: ended
                .filter(|e| *e == Ended::Error)
                .map(|_| "the model answered 503".into()),
            html: None,
            status: None,
            row_id: None,
            found: None,
            reason: None,
        }
    }

    fn user() -> Message {
        Message {
            role: Role::User,
            ended: None,
            error: None,
            ..assistant(None)
        }
    }

    #[test]
    fn a_question_posed_again_after_a_restart_is_the_same_card() {
        let mut view = ReplyView::default();
        view.apply(1, ReplyEvent::Question(question("q1")));
        view.apply(2, ReplyEvent::Question(question("q1")));
        assert_eq!(view.items.len(), 1);
        assert_eq!(view.waiting_question().map(|q| q.id.as_str()), Some("q1"));
        view.apply(
            3,
            ReplyEvent::Answer {
                id: "q1".into(),
                text: "Billing".into(),
            },
        );
        assert!(view.waiting_question().is_none());
    }

    #[test]
    fn a_stored_ending_is_kept_with_its_error_and_says_what_happened() {
        let entries = history_entries(&[user(), assistant(Some(Ended::Error))]);
        let HistoryEntry::Assistant { ended, error, .. } = &entries[1] else {
            panic!("{entries:?}")
        };
        assert_eq!(*ended, Some(Ended::Error));
        assert_eq!(
            ending_note(Ended::Error, error.as_deref()),
            "The reply failed: the model answered 503"
        );
        assert_eq!(
            ending_note(Ended::Interrupted, None),
            "Imprint stopped while writing this reply."
        );
        assert_eq!(ending_note(Ended::Stopped, None), "Stopped.");
        assert!(ending_note(Ended::CutOff, None).contains("cut off"));
        assert!(ending_note(Ended::Length, None).contains("length limit"));
    }

    #[test]
    fn retry_is_offered_after_a_marked_reply_or_an_unanswered_message_only() {
        for ended in [
            Ended::Interrupted,
            Ended::Error,
            Ended::CutOff,
            Ended::Stopped,
        ] {
            assert!(offers_retry(&[user(), assistant(Some(ended))]), "{ended:?}");
        }
        assert!(offers_retry(&[user()]), "a message nothing answered");
        assert!(
            !offers_retry(&[user(), assistant(None)]),
            "a finished answer"
        );
        assert!(!offers_retry(&[]));
        let tool = Message {
            role: Role::Tool,
            tool_name: Some("search".into()),
            ..user()
        };
        assert!(offers_retry(&[
            user(),
            tool.clone(),
            assistant(Some(Ended::Interrupted))
        ]));
        assert!(
            offers_retry(&[user(), tool.clone()]),
            "tool rows and no answer"
        );
        assert!(
            offers_retry(&[tool.clone(), tool]),
            "a page of tool rows only, the user message on an older page"
        );
    }
}
