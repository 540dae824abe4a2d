//! Observer notifications: what a host tells observers about a turn without waiting for an answer
//! (PicoClaw's `hook.event`, see [`crate::picoclaw::EventParams`]).
//!
//! [`ObserverPayload`] has one variant per kind, each carrying a typed struct whose members are
//! the PascalCase names PicoClaw uses. The kind names come from the same enum
//! ([`ObserverKind`]), so a payload can never be sent under the wrong kind.
//!
//! ```
//! use hook_protocol::observe::{ObserverKind, ObserverPayload, ToolExecSkipped};
//!
//! let payload = ObserverPayload::ToolExecSkipped(ToolExecSkipped {
//!     tool: "write_file".into(),
//!     reason: "Tool execution denied by hook".into(),
//! });
//! assert_eq!(payload.kind(), ObserverKind::ToolExecSkipped);
//! assert_eq!(payload.kind().as_str(), "tool_exec_skipped");
//! assert_eq!(
//!     payload.to_value(),
//!     hook_protocol::serde_json::json!({"Tool": "write_file", "Reason": "Tool execution denied by hook"})
//! );
//! ```

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kind of an observer notification, by its wire name (`turn_start`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ObserverKind {
    /// A turn began.
    TurnStart,
    /// A turn ended.
    TurnEnd,
    /// A model request is about to be sent.
    LlmRequest,
    /// The model answered.
    LlmResponse,
    /// A tool call starts (or a hook answers it).
    ToolExecStart,
    /// A tool call finished.
    ToolExecEnd,
    /// A tool call did not run.
    ToolExecSkipped,
    /// Steering messages joined the conversation.
    SteeringInjected,
    /// A cancel or a steering message arrived.
    InterruptReceived,
    /// Something failed.
    Error,
}

impl ObserverKind {
    /// Every kind, in PicoClaw's order.
    pub const ALL: [ObserverKind; 10] = [
        ObserverKind::TurnStart,
        ObserverKind::TurnEnd,
        ObserverKind::LlmRequest,
        ObserverKind::LlmResponse,
        ObserverKind::ToolExecStart,
        ObserverKind::ToolExecEnd,
        ObserverKind::ToolExecSkipped,
        ObserverKind::SteeringInjected,
        ObserverKind::InterruptReceived,
        ObserverKind::Error,
    ];

    /// The wire name: `turn_start`, `tool_exec_end`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            ObserverKind::TurnStart => "turn_start",
            ObserverKind::TurnEnd => "turn_end",
            ObserverKind::LlmRequest => "llm_request",
            ObserverKind::LlmResponse => "llm_response",
            ObserverKind::ToolExecStart => "tool_exec_start",
            ObserverKind::ToolExecEnd => "tool_exec_end",
            ObserverKind::ToolExecSkipped => "tool_exec_skipped",
            ObserverKind::SteeringInjected => "steering_injected",
            ObserverKind::InterruptReceived => "interrupt_received",
            ObserverKind::Error => "error",
        }
    }

    /// The kind called `name`, if any.
    pub fn from_name(name: &str) -> Option<ObserverKind> {
        ObserverKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl fmt::Display for ObserverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An observer notification's kind and payload; serialised as `{"Kind": ..., "Payload": {...}}`,
/// the members of PicoClaw's `hook.event` params (which add `Meta`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "Kind", content = "Payload", rename_all = "snake_case")]
pub enum ObserverPayload {
    /// `turn_start`.
    TurnStart(TurnStart),
    /// `turn_end`.
    TurnEnd(TurnEnd),
    /// `llm_request`.
    LlmRequest(LlmRequest),
    /// `llm_response`.
    LlmResponse(LlmResponse),
    /// `tool_exec_start`.
    ToolExecStart(ToolExecStart),
    /// `tool_exec_end`.
    ToolExecEnd(ToolExecEnd),
    /// `tool_exec_skipped`.
    ToolExecSkipped(ToolExecSkipped),
    /// `steering_injected`.
    SteeringInjected(SteeringInjected),
    /// `interrupt_received`.
    InterruptReceived(InterruptReceived),
    /// `error`.
    Error(ErrorPayload),
}

impl ObserverPayload {
    /// The notification's kind.
    pub fn kind(&self) -> ObserverKind {
        match self {
            ObserverPayload::TurnStart(_) => ObserverKind::TurnStart,
            ObserverPayload::TurnEnd(_) => ObserverKind::TurnEnd,
            ObserverPayload::LlmRequest(_) => ObserverKind::LlmRequest,
            ObserverPayload::LlmResponse(_) => ObserverKind::LlmResponse,
            ObserverPayload::ToolExecStart(_) => ObserverKind::ToolExecStart,
            ObserverPayload::ToolExecEnd(_) => ObserverKind::ToolExecEnd,
            ObserverPayload::ToolExecSkipped(_) => ObserverKind::ToolExecSkipped,
            ObserverPayload::SteeringInjected(_) => ObserverKind::SteeringInjected,
            ObserverPayload::InterruptReceived(_) => ObserverKind::InterruptReceived,
            ObserverPayload::Error(_) => ObserverKind::Error,
        }
    }

    /// The payload alone, as the JSON object observers receive under `Payload`.
    pub fn to_value(&self) -> Value {
        let value = match self {
            ObserverPayload::TurnStart(p) => serde_json::to_value(p),
            ObserverPayload::TurnEnd(p) => serde_json::to_value(p),
            ObserverPayload::LlmRequest(p) => serde_json::to_value(p),
            ObserverPayload::LlmResponse(p) => serde_json::to_value(p),
            ObserverPayload::ToolExecStart(p) => serde_json::to_value(p),
            ObserverPayload::ToolExecEnd(p) => serde_json::to_value(p),
            ObserverPayload::ToolExecSkipped(p) => serde_json::to_value(p),
            ObserverPayload::SteeringInjected(p) => serde_json::to_value(p),
            ObserverPayload::InterruptReceived(p) => serde_json::to_value(p),
            ObserverPayload::Error(p) => serde_json::to_value(p),
        };
        // Plain structs of strings, numbers, booleans and JSON values: serialising cannot fail.
        value.unwrap_or(Value::Null)
    }
}

/// `turn_start`: the user's message opened a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct TurnStart {
    /// The user's message as sent.
    pub user_message: String,
    /// Media items sent with it.
    pub media_count: usize,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnEndStatus {
    /// The turn ran to its end (answered, dropped, interrupted gracefully or delivered).
    Completed,
    /// Cancelled or hard-aborted: the turn's history was rolled back.
    Aborted,
    /// Ended with an error.
    Error,
}

/// `turn_end`: the turn is over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct TurnEnd {
    /// How it ended.
    pub status: TurnEndStatus,
    /// Model requests made for replies.
    pub iterations: u32,
    /// Nanoseconds the turn took.
    pub duration: u64,
    /// The session's working directory.
    pub workspace: String,
    /// Characters in the final reply.
    pub final_content_len: usize,
    /// The user's message (as hooks left it).
    pub user_message: String,
    /// The final reply.
    pub final_content: String,
}

/// `llm_request`: a model request is about to be sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct LlmRequest {
    /// The model asked.
    pub model: String,
    /// Messages in the request, the system prompt included.
    pub messages_count: usize,
    /// Tools offered.
    pub tools_count: usize,
    /// The request's `max_tokens` option as given (`0` when unset).
    pub max_tokens: Value,
    /// The request's `temperature` option as given (`0` when unset).
    pub temperature: Value,
}

/// `llm_response`: the model answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct LlmResponse {
    /// Characters of text in the answer.
    pub content_len: usize,
    /// Tool calls in the answer.
    pub tool_calls: usize,
    /// Whether the answer carried reasoning.
    pub has_reasoning: bool,
}

/// `tool_exec_start`: a tool call starts (or a hook answers it with `respond`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct ToolExecStart {
    /// The tool's name.
    pub tool: String,
    /// The arguments as JSON (the text itself when it is not JSON).
    pub arguments: Value,
}

/// `tool_exec_end`: a tool call finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct ToolExecEnd {
    /// The tool's name.
    pub tool: String,
    /// Nanoseconds the call took.
    pub duration: u64,
    /// Characters of the result for the model.
    #[serde(rename = "ForLLMLen")]
    pub for_llm_len: usize,
    /// Characters of the result for the user.
    pub for_user_len: usize,
    /// Whether the result is an error.
    pub is_error: bool,
    /// Whether the tool goes on in the background.
    #[serde(rename = "Async")]
    pub is_async: bool,
}

/// `tool_exec_skipped`: a tool call did not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct ToolExecSkipped {
    /// The tool's name.
    pub tool: String,
    /// Why: the tool message the model receives.
    pub reason: String,
}

/// `steering_injected`: queued user messages joined the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct SteeringInjected {
    /// Messages injected.
    pub count: usize,
    /// Their characters, all together.
    pub total_content_len: usize,
}

/// What kind of interrupt arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InterruptKind {
    /// Finish gracefully: the calls not yet started are skipped.
    Graceful,
    /// Stop at once and roll the turn back.
    HardAbort,
    /// The user queued messages for the running turn.
    Steering,
}

/// `interrupt_received`: a cancel or a steering message arrived.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct InterruptReceived {
    /// What arrived.
    pub kind: InterruptKind,
    /// The role of the messages it carries (`user`), empty when none.
    pub role: String,
    /// Characters of the messages it carries.
    pub content_len: usize,
    /// Messages queued.
    pub queue_depth: usize,
    /// Characters of a hint given with it.
    pub hint_len: usize,
}

/// Where an `error` happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorStage {
    /// The turn ended with an error.
    Turn,
    /// A model request failed.
    Llm,
    /// A compaction's summary request failed.
    Compact,
}

/// `error`: something failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct ErrorPayload {
    /// Where.
    pub stage: ErrorStage,
    /// What happened.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::picoclaw::OBSERVER_KINDS;

    #[test]
    fn the_kinds_are_picoclaws_kinds_in_its_order() {
        let names: Vec<&str> = ObserverKind::ALL.iter().map(|kind| kind.as_str()).collect();
        assert_eq!(names, OBSERVER_KINDS);
        for name in OBSERVER_KINDS {
            let kind = ObserverKind::from_name(name).unwrap_or_else(|| panic!("no ObserverKind for `{name}`"));
            // The serde name is the wire name.
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
        }
        assert_eq!(ObserverKind::from_name("turn_begin"), None);
    }

    #[test]
    fn each_variant_is_sent_under_its_own_kind() {
        let payloads = [
            ObserverPayload::TurnStart(TurnStart { user_message: "hi".into(), media_count: 0 }),
            ObserverPayload::TurnEnd(TurnEnd {
                status: TurnEndStatus::Completed,
                iterations: 1,
                duration: 5,
                workspace: "/w".into(),
                final_content_len: 2,
                user_message: "hi".into(),
                final_content: "ok".into(),
            }),
            ObserverPayload::LlmRequest(LlmRequest {
                model: "m".into(),
                messages_count: 2,
                tools_count: 0,
                max_tokens: json!(0),
                temperature: json!(0),
            }),
            ObserverPayload::LlmResponse(LlmResponse { content_len: 2, tool_calls: 0, has_reasoning: false }),
            ObserverPayload::ToolExecStart(ToolExecStart { tool: "t".into(), arguments: json!({}) }),
            ObserverPayload::ToolExecEnd(ToolExecEnd {
                tool: "t".into(),
                duration: 0,
                for_llm_len: 0,
                for_user_len: 0,
                is_error: false,
                is_async: false,
            }),
            ObserverPayload::ToolExecSkipped(ToolExecSkipped { tool: "t".into(), reason: "r".into() }),
            ObserverPayload::SteeringInjected(SteeringInjected { count: 1, total_content_len: 3 }),
            ObserverPayload::InterruptReceived(InterruptReceived {
                kind: InterruptKind::Graceful,
                role: String::new(),
                content_len: 0,
                queue_depth: 0,
                hint_len: 0,
            }),
            ObserverPayload::Error(ErrorPayload { stage: ErrorStage::Turn, message: "m".into() }),
        ];
        let kinds: Vec<ObserverKind> = payloads.iter().map(ObserverPayload::kind).collect();
        assert_eq!(kinds, ObserverKind::ALL, "one payload per kind, in order");
        for payload in payloads {
            let tagged = serde_json::to_value(&payload).unwrap();
            assert_eq!(tagged["Kind"], payload.kind().as_str());
            assert_eq!(tagged["Payload"], payload.to_value());
            let back: ObserverPayload = serde_json::from_value(tagged).unwrap();
            assert_eq!(back, payload);
        }
    }

    #[test]
    fn payloads_serialise_as_the_untyped_payloads_did() {
        let end = ObserverPayload::ToolExecEnd(ToolExecEnd {
            tool: "list_dir".into(),
            duration: 1234,
            for_llm_len: 10,
            for_user_len: 0,
            is_error: true,
            is_async: false,
        });
        assert_eq!(
            end.to_value(),
            json!({"Tool": "list_dir", "Duration": 1234, "ForLLMLen": 10, "ForUserLen": 0, "IsError": true, "Async": false})
        );
        let interrupt = ObserverPayload::InterruptReceived(InterruptReceived {
            kind: InterruptKind::HardAbort,
            role: String::new(),
            content_len: 0,
            queue_depth: 0,
            hint_len: 0,
        });
        assert_eq!(
            interrupt.to_value(),
            json!({"Kind": "hard_abort", "Role": "", "ContentLen": 0, "QueueDepth": 0, "HintLen": 0})
        );
        let end = ObserverPayload::TurnEnd(TurnEnd {
            status: TurnEndStatus::Aborted,
            iterations: 2,
            duration: 99,
            workspace: "/tmp/w".into(),
            final_content_len: 4,
            user_message: "go".into(),
            final_content: "done".into(),
        });
        assert_eq!(
            end.to_value(),
            json!({
                "Status": "aborted",
                "Iterations": 2,
                "Duration": 99,
                "Workspace": "/tmp/w",
                "FinalContentLen": 4,
                "UserMessage": "go",
                "FinalContent": "done",
            })
        );
    }
}
