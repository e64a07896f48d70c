//! How messages and tools are put to the model on the wire: OpenAI's
//! native shapes, or text markup for local models that write tool calls as
//! text.

use serde_json::{json, Value};

use super::ChatMessage;
use crate::config::ToolFormat;

/// One message as JSON. With `markup`, tool calls and results are written
/// as hermes-style text, which local chat templates understand.
pub(super) fn wire_message(message: &ChatMessage, markup: bool) -> Value {
    match message {
        ChatMessage::System(text) => json!({"role": "system", "content": text}),
        ChatMessage::User(text) => json!({"role": "user", "content": text}),
        ChatMessage::Assistant {
            content,
            tool_calls,
        } if markup => {
            let mut text = content.clone();
            for call in tool_calls {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&format!(
                    "<tool_call>\n{}\n</tool_call>",
                    json!({"name": call.name, "arguments": call.arguments})
                ));
            }
            json!({"role": "assistant", "content": text})
        }
        ChatMessage::Assistant {
            content,
            tool_calls,
        } => {
            let mut value = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                value["tool_calls"] = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments.to_string()},
                        })
                    })
                    .collect();
            }
            value
        }
        ChatMessage::Tool { content, .. } if markup => json!({
            "role": "user",
            "content": format!("<tool_response>\n{content}\n</tool_response>"),
        }),
        ChatMessage::Tool {
            call_id,
            name,
            content,
        } => json!({"role": "tool", "tool_call_id": call_id, "name": name, "content": content}),
    }
}

/// The system-prompt section that describes the tools for a model that
/// writes tool calls as text.
pub fn render_tools_for_markup(format: ToolFormat, tools: &[Value]) -> String {
    let mut text = String::from("# Tools\n\nYou may call one or more functions to help with the user's request. The functions:\n");
    for tool in tools {
        let function = &tool["function"];
        text.push_str(&format!(
            "\n- {}: {}\n  parameters: {}",
            function["name"].as_str().unwrap_or_default(),
            function["description"].as_str().unwrap_or_default(),
            function["parameters"],
        ));
    }
    match format {
        ToolFormat::QwenXml => text.push_str(
            "\n\nTo call a function, write exactly:\n<tool_call>\n<function=NAME>\n<parameter=ARGUMENT>\nvalue\n</parameter>\n</function>\n</tool_call>\nWrite nothing after a tool call; its result comes back in <tool_response> tags.",
        ),
        _ => text.push_str(
            "\n\nTo call a function, write exactly:\n<tool_call>\n{\"name\": \"NAME\", \"arguments\": {\"ARGUMENT\": \"value\"}}\n</tool_call>\nWrite nothing after a tool call; its result comes back in <tool_response> tags.",
        ),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::ToolCallRequest;

    fn assistant_with_call() -> ChatMessage {
        ChatMessage::Assistant {
            content: "Let me look.".into(),
            tool_calls: vec![ToolCallRequest {
                id: "c1".into(),
                name: "search".into(),
                arguments: json!({"query": "tea"}),
            }],
        }
    }

    #[test]
    fn native_messages_use_openai_tool_shapes() {
        let wire = wire_message(&assistant_with_call(), false);
        assert_eq!(wire["tool_calls"][0]["function"]["name"], "search");
        assert_eq!(
            wire["tool_calls"][0]["function"]["arguments"],
            "{\"query\":\"tea\"}"
        );
        let tool = ChatMessage::Tool {
            call_id: "c1".into(),
            name: "search".into(),
            content: "none".into(),
        };
        assert_eq!(wire_message(&tool, false)["tool_call_id"], "c1");
    }

    #[test]
    fn markup_messages_write_calls_and_results_as_text() {
        let wire = wire_message(&assistant_with_call(), true);
        let content = wire["content"].as_str().unwrap();
        assert!(content.starts_with("Let me look.\n<tool_call>"));
        assert!(content.contains("\"name\":\"search\""));
        assert!(wire.get("tool_calls").is_none());
        let tool = ChatMessage::Tool {
            call_id: "c1".into(),
            name: "search".into(),
            content: "none".into(),
        };
        let wire = wire_message(&tool, true);
        assert_eq!(wire["role"], "user");
        assert_eq!(wire["content"], "<tool_response>\nnone\n</tool_response>");
    }
}
