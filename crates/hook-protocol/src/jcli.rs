//! j-cli's command-hook wire: `HookContext` JSON on a hook's stdin, `HookResult` JSON on its stdout.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ChatMessage, Event, message::arguments_text};

/// What a bash or llm hook reads: fields are filled per event and absent when not filled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookContext {
    /// The event being fired (canonical name).
    pub event: Event,
    /// The conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<ChatMessage>>,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The user's message (on `stop`: the final assistant text, as j-cli does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_input: Option<String>,
    /// The model's reply text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_output: Option<String>,
    /// The tool being called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The tool's arguments as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "arguments_text")]
    pub tool_arguments: Option<String>,
    /// The tool's result text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_result: Option<String>,
    /// Why the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_error: Option<String>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// hookwire's derived view of the tool call (class, command, paths); see
    /// [`crate::Context::tool`]. Read-only: a hook cannot answer a change to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<crate::context::ToolView>,
}

/// j-cli's control-flow action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JcliAction {
    /// Halt the current step (drop the message, abort the request, deny the approval, ...).
    Stop,
    /// Skip the current step; siblings go on (`pre_tool_execution`: skip this call).
    Skip,
}

/// What a bash or llm hook prints: only the fields to change; `{}` or nothing means no change.
/// Unknown fields are ignored (and listed in [`HookResult::unknown_fields`]); the legacy `"abort": true` is read as `"action": "stop"`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(from = "HookResultWire")]
pub struct HookResult {
    /// Replaces the user's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_input: Option<String>,
    /// Replaces the reply text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_output: Option<String>,
    /// Replaces the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<ChatMessage>>,
    /// Replaces the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Replaces the tool arguments (JSON text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_arguments: Option<String>,
    /// Replaces the tool result text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_result: Option<String>,
    /// Replaces the tool error text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_error: Option<String>,
    /// Messages appended to the conversation (accumulate across the chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inject_messages: Option<Vec<ChatMessage>>,
    /// `stop` or `skip`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<JcliAction>,
    /// Feedback for another round (added as a user message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_feedback: Option<String>,
    /// Text appended to the system prompt (accumulates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// A notice for the user (accumulates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// `approve_tool` only: `false` denies; absent means no objection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
    /// `approve_tool` only: why it was denied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Members the hook printed that a HookResult does not have (`aproved`), in name order:
    /// ignored, but reported — and an approval that has any fails closed.
    #[serde(skip)]
    #[schemars(skip)]
    pub unknown_fields: Vec<String>,
}

impl HookResult {
    /// Whether the result changes nothing (`{}`).
    pub fn is_empty(&self) -> bool {
        *self == HookResult::default()
    }
}

/// The accepted input form of [`HookResult`], with the legacy `abort` flag.
#[derive(Deserialize, JsonSchema)]
struct HookResultWire {
    #[serde(default)]
    user_input: Option<String>,
    #[serde(default)]
    assistant_output: Option<String>,
    #[serde(default)]
    messages: Option<Vec<ChatMessage>>,
    #[serde(default)]
    system_prompt: Option<String>,
    /// JSON text; an object is accepted and kept as its text.
    #[serde(default, deserialize_with = "arguments_text")]
    #[schemars(with = "Option<serde_json::Value>")]
    tool_arguments: Option<String>,
    #[serde(default)]
    tool_result: Option<String>,
    #[serde(default)]
    tool_error: Option<String>,
    #[serde(default)]
    inject_messages: Option<Vec<ChatMessage>>,
    #[serde(default)]
    action: Option<JcliAction>,
    #[serde(default)]
    retry_feedback: Option<String>,
    #[serde(default)]
    additional_context: Option<String>,
    #[serde(default)]
    system_message: Option<String>,
    #[serde(default)]
    approved: Option<bool>,
    #[serde(default)]
    reason: Option<String>,
    /// Legacy (j-cli ≤ 12.9): `true` means `"action": "stop"`.
    #[serde(default)]
    abort: Option<bool>,
    /// Anything else.
    #[serde(flatten)]
    #[schemars(skip)]
    other: std::collections::BTreeMap<String, serde::de::IgnoredAny>,
}

impl From<HookResultWire> for HookResult {
    fn from(wire: HookResultWire) -> Self {
        let action = match (wire.action, wire.abort) {
            (Some(action), _) => Some(action),
            (None, Some(true)) => Some(JcliAction::Stop),
            (None, _) => None,
        };
        HookResult {
            user_input: wire.user_input,
            assistant_output: wire.assistant_output,
            messages: wire.messages,
            system_prompt: wire.system_prompt,
            tool_arguments: wire.tool_arguments,
            tool_result: wire.tool_result,
            tool_error: wire.tool_error,
            inject_messages: wire.inject_messages,
            action,
            retry_feedback: wire.retry_feedback,
            additional_context: wire.additional_context,
            system_message: wire.system_message,
            approved: wire.approved,
            reason: wire.reason,
            unknown_fields: wire.other.into_keys().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// j-cli's wire is j-cli's own and carries only some context fields; those it carries keep
    /// the context's names, so a renamed or removed context field cannot drift from it.
    #[test]
    fn jcli_members_mirror_context_fields() {
        let context = crate::Context {
            session_id: Some("s".into()),
            cwd: Some("/".into()),
            user_input: Some("hi".into()),
            messages: Some(Vec::new()),
            system_prompt: Some("p".into()),
            model: Some("m".into()),
            assistant_output: Some("a".into()),
            tool_name: Some("Bash".into()),
            tool_arguments: Some("{}".into()),
            tool_result: Some(crate::ToolResult::text("ok")),
            tool_error: Some("e".into()),
            ..crate::Context::default()
        };
        let hook_context = serde_json::to_value(context.to_hook_context(Event::Stop)).unwrap();
        let serde_json::Value::Object(members) = hook_context else { panic!("not an object") };
        for name in members.keys().filter(|name| *name != "event") {
            let is_context_field = crate::Context::REPLACEABLE.contains(&name.as_str())
                || crate::Context::NOT_REPLACEABLE.contains(&name.as_str());
            assert!(is_context_field, "HookContext member `{name}` is not a Context field");
        }
        let result = HookResult {
            user_input: Some("u".into()),
            assistant_output: Some("a".into()),
            messages: Some(Vec::new()),
            system_prompt: Some("p".into()),
            tool_arguments: Some("{}".into()),
            tool_result: Some("r".into()),
            tool_error: Some("e".into()),
            ..HookResult::default()
        };
        let serde_json::Value::Object(members) = serde_json::to_value(result).unwrap() else { panic!("not an object") };
        assert_eq!(members.len(), 7);
        for name in members.keys() {
            assert!(
                crate::Context::REPLACEABLE.contains(&name.as_str()),
                "HookResult member `{name}` is not replaceable"
            );
        }
    }

    #[test]
    fn legacy_abort_reads_as_stop_and_unknown_fields_are_ignored() {
        let result: HookResult = serde_json::from_str(r#"{"abort":true,"_switch_model":"x"}"#).unwrap();
        assert_eq!(result.action, Some(JcliAction::Stop));
        let result: HookResult = serde_json::from_str(r#"{"abort":false}"#).unwrap();
        assert!(result.is_empty());
        let result: HookResult = serde_json::from_str(r#"{"tool_arguments":{"command":"ls"}}"#).unwrap();
        assert_eq!(result.tool_arguments.as_deref(), Some(r#"{"command":"ls"}"#));
    }
}
