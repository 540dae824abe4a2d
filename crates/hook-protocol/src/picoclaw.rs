//! PicoClaw's process-hook methods: params sent by the host and results returned by the hook.
//!
//! Casing follows the seed: `meta` keys and `hook.event` members are PascalCase, everything
//! else is snake_case. Every optional member stays absent when it was absent, so the seed's
//! examples round-trip unchanged.

use std::{collections::BTreeMap, fmt};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{ChatMessage, ToolCall, ToolDefinition, ToolResult};

/// Method names.
pub mod method {
    /// Handshake, always the first request.
    pub const HELLO: &str = "hook.hello";
    /// Before each model request.
    pub const BEFORE_LLM: &str = "hook.before_llm";
    /// After each model response.
    pub const AFTER_LLM: &str = "hook.after_llm";
    /// Before each tool call.
    pub const BEFORE_TOOL: &str = "hook.before_tool";
    /// After each tool call.
    pub const AFTER_TOOL: &str = "hook.after_tool";
    /// Approval of each tool call.
    pub const APPROVE_TOOL: &str = "hook.approve_tool";
    /// Observer notification.
    pub const EVENT: &str = "hook.event";
    /// Sent by hookwire when a call's deadline passed; the hook may stop working on it.
    pub const CANCEL: &str = "hook.cancel";
}

/// The protocol version hookwire speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// Event metadata for tracing; PascalCase keys as PicoClaw writes them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Meta {
    /// The agent's id.
    #[serde(rename = "AgentID", default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// `<agent>-turn-<n>`.
    #[serde(rename = "TurnID", default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The parent turn of a sub-turn.
    #[serde(rename = "ParentTurnID", default, skip_serializing_if = "Option::is_none")]
    pub parent_turn_id: Option<String>,
    /// The session.
    #[serde(rename = "SessionKey", default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    /// Round of the turn, from 0.
    #[serde(rename = "Iteration", default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<u64>,
    /// Where in the loop the event happened, e.g. `turn.tool.before`.
    #[serde(rename = "TracePath", default, skip_serializing_if = "Option::is_none")]
    pub trace_path: Option<String>,
    /// What started the turn, e.g. `runTurn`.
    #[serde(rename = "Source", default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A capability a process hook asks for in `hook.hello`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `hook.event` notifications.
    Observe,
    /// `hook.before_llm` / `hook.after_llm`.
    Llm,
    /// `hook.before_tool` / `hook.after_tool`.
    Tool,
    /// `hook.approve_tool`.
    Approve,
}

/// `hook.hello` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HelloParams {
    /// The hook's name from the configuration.
    pub name: String,
    /// Protocol version, currently 1.
    pub version: u32,
    /// Capabilities enabled by the configuration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<Mode>,
    /// hookwire's extensions on offer (absent from PicoClaw, which hooks ignore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hookwire: Option<ExtensionOffer>,
}

/// `hook.hello` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HelloResult {
    /// `false` refuses the mount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// The hook's own name for itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Why the hook refused (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Same as `reason`; either is accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A subset of the offered modes, to receive less than the configuration enables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modes: Option<Vec<Mode>>,
    /// The hookwire extensions the hook opts in to; absent: PicoClaw's payloads, unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hookwire: Option<ExtensionOptIn>,
}

/// The name of hookwire's extension member, in hello params and results, in method params
/// (`hookwire.history`) and in method results (`hookwire.ack`).
pub const EXTENSION_MEMBER: &str = "hookwire";

/// The version of hookwire's extensions described here.
pub const EXTENSION_VERSION: u32 = 1;

/// Extension names, as offered in [`ExtensionOffer::extensions`].
pub mod extension {
    /// Field selection: a hook names, per method, the params members it reads.
    pub const READS: &str = "reads";
    /// The `before_llm` message history as a delta against what the hook last acknowledged.
    pub const HISTORY_DELTA: &str = "history_delta";
    /// A hook names the methods whose params it never changes: next to other such hooks it
    /// runs at once instead of in turn.
    pub const READ_ONLY: &str = "read_only";
}

/// JSON-RPC error code a hook answers with when it cannot apply a history delta (it does not
/// hold the base version): the host sends the same call again with the whole history.
pub const HISTORY_RESYNC_CODE: i64 = -32090;

/// `hook.hello` params member `hookwire`: what the host offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExtensionOffer {
    /// The extensions' version, currently 1.
    pub version: u32,
    /// The extensions on offer: `reads`, `history_delta`, `read_only`.
    #[serde(default)]
    pub extensions: Vec<String>,
}

/// `hook.hello` result member `hookwire`: what the hook opts in to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExtensionOptIn {
    /// Per method (`hook.before_llm` or `before_llm`), the params members the hook reads; a
    /// method left out receives every member. `last_message` (on `before_llm`) sends only the
    /// last message of the conversation, as a one-element `messages`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reads: BTreeMap<String, Vec<String>>,
    /// `true`: `before_llm`'s `messages` come as a delta against the version the hook last
    /// acknowledged ([`HistoryDelta`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub history_delta: bool,
    /// The methods (`hook.before_llm` or `before_llm`) on which the hook promises never to
    /// answer a change (a `request`, `response` or `call` member, or `result` on `after_tool`):
    /// it only decides and observes. Such hooks next to each other in a chain run at once; a change answered anyway
    /// is refused and halts the chain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_only: Vec<String>,
}

impl ExtensionOptIn {
    /// Whether the hook asked for nothing (it receives PicoClaw's payloads).
    pub fn is_empty(&self) -> bool {
        self.reads.is_empty() && !self.history_delta && self.read_only.is_empty()
    }
}

/// `hook.before_llm` params member `hookwire`, sent to hooks that opted in to the history delta.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParamsExtension {
    /// How `messages` relates to the hook's copy of the history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryDelta>,
}

/// The history of this call: `messages` holds the messages from index `keep` on; the hook's
/// history is its copy at version `base`, cut to its first `keep` messages, with `messages`
/// appended. Without `base`, `messages` is the whole history (a full resend, `keep` is 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryDelta {
    /// The version of the history after this call; the hook acknowledges it in its result.
    pub version: u64,
    /// The version the delta applies to; absent for a full resend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<u64>,
    /// How many messages of the base version are kept.
    #[serde(default)]
    pub keep: u64,
}

/// A method result's member `hookwire`, from a hook that opted in to the history delta.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultExtension {
    /// The history version the hook now holds (the `version` of the call's [`HistoryDelta`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack: Option<u64>,
}

/// The decision of an interceptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Pass through (with any returned changes).
    #[default]
    Continue,
    /// Apply the returned changes.
    Modify,
    /// Answer the tool call with `result` (before_tool only).
    Respond,
    /// Refuse the tool call (before_tool only).
    DenyTool,
    /// End the turn with an error carrying `reason`.
    AbortTurn,
    /// End the turn and roll back its history.
    HardAbort,
}

impl Action {
    /// Every action, with its wire name.
    pub const ALL: [(Action, &'static str); 6] = [
        (Action::Continue, "continue"),
        (Action::Modify, "modify"),
        (Action::Respond, "respond"),
        (Action::DenyTool, "deny_tool"),
        (Action::AbortTurn, "abort_turn"),
        (Action::HardAbort, "hard_abort"),
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        Action::ALL.iter().find(|(a, _)| *a == self).map_or("continue", |(_, name)| name)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if name.is_empty() {
            // PicoClaw normalises an empty action to `continue`.
            return Ok(Action::Continue);
        }
        Action::ALL.iter().find(|(_, n)| *n == name).map(|(a, _)| *a).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown action `{name}`; expected one of continue, modify, respond, deny_tool, abort_turn, hard_abort"
            ))
        })
    }
}

/// `hook.before_llm` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BeforeLlmParams {
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// PicoClaw's turn context (`inbound`, `route`, `scope`), passed through as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// Requested model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Conversation, system prompt first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<ChatMessage>>,
    /// Tools offered to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolDefinition>>,
    /// Model parameters (`temperature`, `max_tokens`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
    /// Channel the request came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Chat id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
    /// The loop is about to end gracefully.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graceful_terminal: Option<bool>,
    /// hookwire's history delta, for a hook that opted in to it (never sent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hookwire: Option<ParamsExtension>,
}

/// The changes a `before_llm` hook returns; members left out stay unchanged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LlmRequestPatch {
    /// New model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// New conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<ChatMessage>>,
    /// New tool list (tools added here may be answered by this hook with `respond`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolDefinition>>,
    /// New model parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
    /// Echoed params the host ignores (`meta`, `context`, `channel`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `hook.before_llm` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BeforeLlmResult {
    /// The decision.
    #[serde(default)]
    pub action: Action,
    /// Why (kept to the caller for `abort_turn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Changes to the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<LlmRequestPatch>,
    /// hookwire's acknowledgement of the history delta (the server SDK fills it in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hookwire: Option<ResultExtension>,
}

/// A model response as PicoClaw passes it to `after_llm`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LlmResponse {
    /// `assistant` (shown by the seed; PicoClaw's own type has no such field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The text of the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Tool calls in the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// Anything else (`finish_reason`, `usage`, `reasoning_content`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `hook.after_llm` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AfterLlmParams {
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// PicoClaw's turn context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// The model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The response.
    pub response: LlmResponse,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Chat id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
}

/// What an `after_llm` hook returns under `response`: PicoClaw's envelope
/// (`{"model":…, "response":{…}}`) or, as hook authors also write, the bare response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AfterLlmPatch {
    /// `{"model"?, "response": {...}}`.
    Envelope(AfterLlmEnvelope),
    /// `{"content"?, "tool_calls"?}`.
    Bare(LlmResponse),
}

/// The `after_llm` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AfterLlmEnvelope {
    /// The model (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The new response; members left out stay unchanged.
    pub response: LlmResponse,
    /// Echoed params the host ignores.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AfterLlmPatch {
    /// The response inside, whichever form was used.
    pub fn response(&self) -> &LlmResponse {
        match self {
            AfterLlmPatch::Envelope(envelope) => &envelope.response,
            AfterLlmPatch::Bare(response) => response,
        }
    }
}

/// `hook.after_llm` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AfterLlmResult {
    /// The decision.
    #[serde(default)]
    pub action: Action,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Changes to the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<AfterLlmPatch>,
}

/// `hook.before_tool` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BeforeToolParams {
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// PicoClaw's turn context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// Tool name.
    pub tool: String,
    /// Tool arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Chat id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
}

/// A rewritten tool call; a member left out keeps its value (a `call` without `tool` keeps the tool).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCallPatch {
    /// New tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// New arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Echoed params the host ignores.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `hook.before_tool` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BeforeToolResult {
    /// The decision.
    #[serde(default)]
    pub action: Action,
    /// Why (the text of a denial).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Changes to the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<ToolCallPatch>,
    /// The tool's result, for `respond`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
}

/// `hook.after_tool` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AfterToolParams {
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// PicoClaw's turn context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// Tool name.
    pub tool: String,
    /// Tool arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// What the tool returned.
    pub result: ToolResult,
    /// How long the tool ran, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<u64>,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Chat id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
}

/// What an `after_tool` hook returns under `result`: PicoClaw's envelope
/// (`{"tool":…, "result":{…}}`) or the bare ToolResult.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AfterToolPatch {
    /// `{"tool"?, "arguments"?, "result": {...}, "duration"?}`.
    Envelope(AfterToolEnvelope),
    /// `{"for_llm": ...}`.
    Bare(ToolResult),
}

/// The `after_tool` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AfterToolEnvelope {
    /// Tool name (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The new result.
    pub result: ToolResult,
    /// Echoed params the host ignores.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AfterToolPatch {
    /// The result inside, whichever form was used.
    pub fn result(&self) -> &ToolResult {
        match self {
            AfterToolPatch::Envelope(envelope) => &envelope.result,
            AfterToolPatch::Bare(result) => result,
        }
    }
}

/// `hook.after_tool` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AfterToolResult {
    /// The decision.
    #[serde(default)]
    pub action: Action,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Changes to the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<AfterToolPatch>,
}

/// `hook.approve_tool` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApproveToolParams {
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// PicoClaw's turn context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// Tool name (after any `before_tool` rewrite).
    pub tool: String,
    /// Tool arguments (after any rewrite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Chat id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
}

/// `hook.approve_tool` result. A missing `approved` denies (fail-closed).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApproveToolResult {
    /// `true` allows the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
    /// Why it was denied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `hook.event` params: an observer notification (PascalCase members).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventParams {
    /// e.g. `tool_exec_start`.
    #[serde(rename = "Kind")]
    pub kind: String,
    /// Event metadata.
    #[serde(rename = "Meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Kind-specific data, PascalCase members (`Tool`, `Arguments`, ...).
    #[serde(rename = "Payload", default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
}

/// `hook.cancel` params: the id of a call whose deadline passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CancelParams {
    /// The request id.
    pub id: crate::Id,
    /// Why, e.g. `deadline of 5s passed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The observer notification kinds of the seed, in its order.
pub const OBSERVER_KINDS: [&str; 10] = [
    "turn_start",
    "turn_end",
    "llm_request",
    "llm_response",
    "tool_exec_start",
    "tool_exec_end",
    "tool_exec_skipped",
    "steering_injected",
    "interrupt_received",
    "error",
];
