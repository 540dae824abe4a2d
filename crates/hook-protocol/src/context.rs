//! hookwire's event context: everything a hook of any dialect may read about one event.
//!
//! It is j-cli's `HookContext` widened with what PicoClaw hooks see (tools, options, the
//! response's tool calls, the full `ToolResult`, meta). `hookwire fire` reads and prints it.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{ChatMessage, Event, HookContext, Meta, ToolCall, ToolDefinition, ToolResult, message::arguments_text};

/// The data of one event; fields are filled per event and absent when not filled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Context {
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The user's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_input: Option<String>,
    /// The conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<ChatMessage>>,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tools offered to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolDefinition>>,
    /// Model parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
    /// The model's reply text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_output: Option<String>,
    /// The tool calls of the model's reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The tool being called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The tool's arguments as JSON text (an object is accepted and kept as its text).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "arguments_text")]
    #[schemars(with = "Option<Value>")]
    pub tool_arguments: Option<String>,
    /// The id of the tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The tool's result; written as a plain string when only `for_llm` is set.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "tool_result_out",
        deserialize_with = "tool_result_in"
    )]
    #[schemars(with = "Option<ToolResultOrText>")]
    pub tool_result: Option<ToolResult>,
    /// Why the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_error: Option<String>,
    /// How long the tool ran, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<u64>,
    /// Tracing metadata for process hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Channel the turn came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Chat id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
    /// Members of an agent's hook input that have no field above (Claude Code's
    /// `transcript_path`, `permission_mode`, `source`, `stop_hook_active`, ...): handed unchanged
    /// to hooks of the Claude Code family.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A tool result given as text or as a ToolResult object.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code, reason = "exists only to describe the schema")]
enum ToolResultOrText {
    Text(String),
    Result(ToolResult),
}

fn tool_result_out<S: Serializer>(result: &Option<ToolResult>, serializer: S) -> Result<S::Ok, S::Error> {
    match result {
        Some(r) if *r == ToolResult::text(r.for_llm.clone()) => serializer.serialize_str(&r.for_llm),
        other => other.serialize(serializer),
    }
}

fn tool_result_in<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<ToolResult>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Result(ToolResult),
    }
    Ok(match Option::<Either>::deserialize(deserializer)? {
        None => None,
        Some(Either::Text(text)) => Some(ToolResult::text(text)),
        Some(Either::Result(result)) => Some(result),
    })
}

impl Context {
    /// The j-cli view of this context for `event`: what a bash or llm hook reads on stdin.
    pub fn to_hook_context(&self, event: Event) -> HookContext {
        HookContext {
            event,
            messages: self.messages.clone(),
            system_prompt: self.system_prompt.clone(),
            model: self.model.clone(),
            user_input: self.user_input.clone(),
            assistant_output: self.assistant_output.clone(),
            tool_name: self.tool_name.clone(),
            tool_arguments: self.tool_arguments.clone(),
            tool_result: self.tool_result.as_ref().map(|r| r.for_llm.clone()),
            tool_error: self.tool_error.clone(),
            session_id: self.session_id.clone(),
            cwd: self.cwd.clone(),
        }
    }

    /// The tool arguments as a JSON value: the parsed text, or the text as a string when it is not JSON.
    pub fn tool_arguments_value(&self) -> Option<Value> {
        self.tool_arguments
            .as_deref()
            .map(|text| serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())))
    }
}
