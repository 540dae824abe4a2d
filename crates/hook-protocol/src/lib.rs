//! Wire types of hookwire: every type that crosses a process or file boundary.
//!
//! ```
//! use hook_protocol::{Agent, Event, HookResult, from_json_str, jcli::JcliAction};
//!
//! // One canonical name per event; the name each dialect gives it parses to the same event.
//! assert_eq!("before_tool".parse::<Event>(), Ok(Event::PreToolExecution)); // PicoClaw
//! assert_eq!("PreToolUse".parse::<Event>(), Ok(Event::PreToolExecution)); // Claude Code
//! assert_eq!(Agent::Gemini.event_name(Event::PreToolExecution), Some("BeforeTool"));
//! assert_eq!(Event::PreToolExecution.to_string(), "pre_tool_execution");
//!
//! // What a j-cli bash or llm hook prints; an error names the member at fault.
//! let result: HookResult = from_json_str(r#"{"action": "skip", "system_message": "no rm -rf"}"#).unwrap();
//! assert_eq!(result.action, Some(JcliAction::Skip));
//! let err = from_json_str::<HookResult>(r#"{"action": "explode"}"#).unwrap_err();
//! assert_eq!(err.path, "action");
//! ```
//!
//! The types, by dialect:
//!
//! - [`Event`]: the lifecycle events, with PicoClaw, Claude Code and Gemini CLI aliases; [`Agent`]:
//!   the agents of the Claude Code family and each one's event names.
//! - [`jcli`]: j-cli's `HookContext` (stdin) and `HookResult` (stdout) for bash and llm hooks.
//! - [`jsonrpc`] and [`picoclaw`]: the JSON-RPC 2.0 envelope and PicoClaw's process-hook methods.
//! - [`ToolResult`], [`ChatMessage`], [`ToolCall`], [`ToolDefinition`]: OpenAI function-calling shapes.
//! - [`config`]: the configuration files of j-cli and PicoClaw; [`agent_config`]: the `hooks`
//!   section of Claude Code, Gemini CLI and Codex settings.
//! - [`Context`]: hookwire's own event context, a superset of the above.
//! - [`session`]: a saved agent session and the hooks the model registered in it.
//! - [`daemon`]: the messages of the project daemon (`hookwire serve`) and its clients.
//! - [`trust`]: the trust store file: the projects whose hooks the user trusted.
//! - [`observe`]: observer notification kinds and their typed payloads.
//!
//! This crate has no I/O and no async runtime. [`schemas`] lists the JSON Schemas that
//! `cargo xtask schema` publishes.

mod agent;
pub mod agent_config;
pub mod config;
mod context;
pub mod daemon;
mod event;
pub mod hooktest;
pub mod jcli;
pub mod jsonrpc;
mod message;
pub mod observe;
pub mod picoclaw;
pub mod rules;
pub mod sandbox;
pub mod session;
pub mod time;
pub mod tool;
mod tool_result;
pub mod trust;

pub use agent::{Agent, UnknownAgentError};
pub use context::{Context, ToolClass, ToolView};
pub use event::{Event, UnknownEventError};
pub use jcli::{HookContext, HookResult};
pub use jsonrpc::Id;
pub use message::{
    ChatMessage, ContentPart, FunctionCall, FunctionDefinition, ImageUrl, MessageContent, Role, ToolCall,
    ToolDefinition,
};
pub use picoclaw::Meta;
pub use schemars;
pub use serde_json;
pub use tool_result::ToolResult;

use schemars::{JsonSchema, Schema, generate::SchemaSettings};
use serde::de::DeserializeOwned;

/// A JSON document that does not fit its type; `path` names the member (`result.action`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Where in the document, e.g. `call.arguments` or `.` for the root.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path == "." { f.write_str(&self.message) } else { write!(f, "at `{}`: {}", self.path, self.message) }
    }
}

impl std::error::Error for ParseError {}

/// Parses JSON text into `T`, naming the offending member on error.
pub fn from_json_str<T: DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(path_error)?;
    deserializer.end().map_err(|e| ParseError { path: ".".into(), message: e.to_string() })?;
    Ok(value)
}

/// Converts a JSON value into `T`, naming the offending member on error.
pub fn from_json_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ParseError> {
    serde_path_to_error::deserialize(value).map_err(path_error)
}

fn path_error<E: std::fmt::Display>(error: serde_path_to_error::Error<E>) -> ParseError {
    ParseError { path: error.path().to_string(), message: error.inner().to_string() }
}

fn schema_of<T: JsonSchema>() -> Schema {
    SchemaSettings::draft2020_12().for_deserialize().into_generator().into_root_schema_for::<T>()
}

/// Every published schema: file stem and schema, in a fixed order.
pub fn schemas() -> Vec<(&'static str, Schema)> {
    use jsonrpc::{ErrorResponse, Notification, Request, Response};
    use picoclaw::*;
    vec![
        ("event", schema_of::<Event>()),
        ("context", schema_of::<Context>()),
        ("hook-context", schema_of::<HookContext>()),
        ("hook-result", schema_of::<HookResult>()),
        ("tool-result", schema_of::<ToolResult>()),
        ("rules-file", schema_of::<rules::RulesFile>()),
        ("jsonrpc-request", schema_of::<Request>()),
        ("jsonrpc-response", schema_of::<Response>()),
        ("jsonrpc-error", schema_of::<ErrorResponse>()),
        ("jsonrpc-notification", schema_of::<Notification>()),
        ("hello-params", schema_of::<HelloParams>()),
        ("hello-result", schema_of::<HelloResult>()),
        ("before-llm-params", schema_of::<BeforeLlmParams>()),
        ("before-llm-result", schema_of::<BeforeLlmResult>()),
        ("after-llm-params", schema_of::<AfterLlmParams>()),
        ("after-llm-result", schema_of::<AfterLlmResult>()),
        ("before-tool-params", schema_of::<BeforeToolParams>()),
        ("before-tool-result", schema_of::<BeforeToolResult>()),
        ("after-tool-params", schema_of::<AfterToolParams>()),
        ("after-tool-result", schema_of::<AfterToolResult>()),
        ("approve-tool-params", schema_of::<ApproveToolParams>()),
        ("approve-tool-result", schema_of::<ApproveToolResult>()),
        ("event-params", schema_of::<EventParams>()),
        ("cancel-params", schema_of::<CancelParams>()),
        ("hookwire-extension-offer", schema_of::<ExtensionOffer>()),
        ("hookwire-extension-opt-in", schema_of::<ExtensionOptIn>()),
        ("hookwire-params-extension", schema_of::<ParamsExtension>()),
        ("hookwire-result-extension", schema_of::<ResultExtension>()),
        ("hooks-file", schema_of::<config::HooksFile>()),
        ("hook-dir", schema_of::<config::HookDef>()),
        ("picoclaw-config", schema_of::<config::PicoClawConfig>()),
        ("agent-settings", schema_of::<agent_config::AgentSettings>()),
        ("session-state", schema_of::<session::SessionState>()),
        ("trust-file", schema_of::<trust::TrustFile>()),
        ("daemon-fire-params", schema_of::<daemon::FireParams>()),
        ("daemon-fire-result", schema_of::<daemon::FireResult>()),
        ("daemon-bridge-result", schema_of::<daemon::BridgeResult>()),
        ("daemon-check-params", schema_of::<daemon::CheckParams>()),
        ("daemon-check-result", schema_of::<daemon::CheckResult>()),
        ("daemon-stats-result", schema_of::<daemon::StatsResult>()),
        ("daemon-reload-result", schema_of::<daemon::ReloadResult>()),
        ("daemon-shutdown-result", schema_of::<daemon::ShutdownResult>()),
        ("observer-payload", schema_of::<observe::ObserverPayload>()),
        ("hooktest-file", schema_of::<hooktest::HookTestFile>()),
    ]
}
