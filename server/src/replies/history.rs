//! A session's stored messages as the model reads them in later turns.

use app::protocol::{Message, QuestionOutcome, Role};
use serde_json::Value;

use crate::models::{ChatMessage, ToolCallRequest};
use crate::tools::ASK_USER;

/// Converts stored history: consecutive tool rows become one assistant
/// message with their calls followed by their results, so the model sees
/// what it looked up and what the user was asked and answered.
pub fn history_to_messages(history: &[Message]) -> Vec<ChatMessage> {
    let mut messages = Vec::new();
    let mut index = 0;
    while index < history.len() {
        let message = &history[index];
        match message.role {
            Role::User => messages.push(ChatMessage::User(message.content.clone())),
            // A reply that failed before writing anything left only its
            // mark: nothing for the model to read.
            Role::Assistant if message.content.trim().is_empty() => {}
            Role::Assistant => messages.push(ChatMessage::Assistant {
                content: message.content.clone(),
                tool_calls: Vec::new(),
            }),
            Role::Tool => {
                let end = history[index..]
                    .iter()
                    .position(|m| m.role != Role::Tool)
                    .map_or(history.len(), |n| index + n);
                // Imprint's own questions are not the model's calls; what
                // the user chose is in the result of the call they served.
                let rows: Vec<&Message> = history[index..end]
                    .iter()
                    .filter(|row| !asked_by_imprint(row))
                    .collect();
                index = end;
                if rows.is_empty() {
                    continue;
                }
                let calls = rows
                    .iter()
                    .map(|row| ToolCallRequest {
                        id: format!("h{}", row.seq),
                        name: row.tool_name.clone().unwrap_or_default(),
                        arguments: call_arguments(row),
                    })
                    .collect();
                messages.push(ChatMessage::Assistant {
                    content: String::new(),
                    tool_calls: calls,
                });
                for row in &rows {
                    messages.push(ChatMessage::Tool {
                        call_id: format!("h{}", row.seq),
                        name: row.tool_name.clone().unwrap_or_default(),
                        content: tool_content(row),
                    });
                }
                continue;
            }
        }
        index += 1;
    }
    messages
}

fn asked_by_imprint(row: &Message) -> bool {
    row.tool_name.as_deref() == Some(ASK_USER)
        && row
            .tool_args
            .as_ref()
            .and_then(|a| a.get("origin"))
            .and_then(Value::as_str)
            == Some("imprint")
}

/// The arguments as the model wrote them (for `ask_user`, without the
/// bookkeeping Imprint adds).
fn call_arguments(row: &Message) -> Value {
    let mut args = row
        .tool_args
        .clone()
        .unwrap_or(Value::Object(Default::default()));
    if row.tool_name.as_deref() == Some(ASK_USER) {
        if let Some(map) = args.as_object_mut() {
            map.retain(|key, _| matches!(key.as_str(), "question" | "options" | "allow_other"));
        }
    }
    args
}

/// What the model read as the result.
fn tool_content(row: &Message) -> String {
    if row.tool_name.as_deref() == Some(ASK_USER) {
        let outcome = row.tool_args.as_ref().and_then(|a| a.get("outcome"));
        let answered = QuestionOutcome::read(outcome) == Some(QuestionOutcome::Answered);
        if answered {
            return format!("The user answered: {}", row.content);
        }
    }
    row.content.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(seq: i64, role: Role, content: &str, tool: Option<(&str, Value)>) -> Message {
        Message {
            seq,
            role,
            content: content.into(),
            tool_name: tool.as_ref().map(|t| t.0.to_string()),
            tool_args: tool.map(|t| t.1),
            created_at: String::new(),
            ended: None,
            error: None,
            html: None,
            status: None,
            row_id: None,
            found: None,
            reason: None,
        }
    }

    #[test]
    fn tool_rows_become_calls_and_results_and_answers_are_stated() {
        let history = vec![
            row(1, Role::User, "find my notes", None),
            row(
                2,
                Role::Tool,
                "2 memories found",
                Some(("search", json!({"query": "notes"}))),
            ),
            row(
                3,
                Role::Tool,
                "Billing",
                Some((
                    "ask_user",
                    json!({"question": "Which project?", "options": ["Imprint", "Billing"], "allow_other": true, "question_id": "q_1", "outcome": "answered"}),
                )),
            ),
            row(4, Role::Assistant, "Here they are.", None),
        ];
        let messages = history_to_messages(&history);
        assert_eq!(messages.len(), 5);
        assert_eq!(messages[0], ChatMessage::User("find my notes".into()));
        let ChatMessage::Assistant { tool_calls, .. } = &messages[1] else {
            panic!("expected the calls, got {:?}", messages[1]);
        };
        assert_eq!(tool_calls.len(), 2);
        assert_eq!(tool_calls[1].name, "ask_user");
        assert_eq!(
            tool_calls[1].arguments,
            json!({"question": "Which project?", "options": ["Imprint", "Billing"], "allow_other": true})
        );
        assert_eq!(
            messages[3],
            ChatMessage::Tool {
                call_id: "h3".into(),
                name: "ask_user".into(),
                content: "The user answered: Billing".into()
            }
        );
        assert!(
            matches!(&messages[4], ChatMessage::Assistant { content, .. } if content == "Here they are.")
        );
    }

    #[test]
    fn imprints_own_questions_are_not_shown_to_the_model_as_its_calls() {
        let history = vec![
            row(1, Role::User, "remind me about the dentist", None),
            row(
                2,
                Role::Tool,
                "Tomorrow, 09:00",
                Some((
                    "ask_user",
                    json!({"question": "What time should I remind you about the dentist?", "options": ["Tomorrow, 09:00"], "allow_other": true, "question_id": "q_1", "outcome": "answered", "origin": "imprint"}),
                )),
            ),
            row(
                3,
                Role::Tool,
                "The user chose Tuesday 2026-12-01 09:00. Reminder #1 set",
                Some((
                    "remind",
                    json!({"text": "dentist", "at": "2026-12-01T09:00:00+00:00"}),
                )),
            ),
            row(4, Role::Assistant, "Done.", None),
        ];
        let messages = history_to_messages(&history);
        assert_eq!(messages.len(), 4, "{messages:?}");
        let ChatMessage::Assistant { tool_calls, .. } = &messages[1] else {
            panic!("expected the calls, got {:?}", messages[1]);
        };
        assert_eq!(tool_calls.len(), 1);
        assert_eq!(tool_calls[0].name, "remind");
        assert!(
            matches!(&messages[2], ChatMessage::Tool { content, .. } if content.starts_with("The user chose"))
        );
    }

    #[test]
    fn a_failed_reply_that_wrote_nothing_is_left_out() {
        let history = vec![
            row(1, Role::User, "hello", None),
            row(2, Role::Assistant, "", None),
            row(3, Role::User, "hello again", None),
            row(4, Role::Assistant, "half an answ", None),
        ];
        let messages = history_to_messages(&history);
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert_eq!(messages[1], ChatMessage::User("hello again".into()));
    }
}
