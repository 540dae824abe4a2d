//! The runtime contracts of the agents whose hooks hookwire runs and answers as — the Claude
//! Code family (Claude Code, Gemini CLI, Codex) and GitHub Copilot CLI (`copilot.rs`): their
//! hook input, how their hooks' answers read, their matchers, and hookwire answering as one of
//! their hooks.
//!
//! Executors (`hook-bash` for `command`, `hook-llm` for `http` and `prompt`) run the handlers;
//! this crate holds the contract they share, so every handler type reads answers the same way.
//! The agents' settings files are read by `hook-config`; the derived tool view each hook sees is
//! in [`hook_protocol::tool`] (the engine fills it).
//!
//! ```
//! use hook_protocol::{Agent, Event, serde_json::json};
//!
//! // What Claude Code writes on a hook's stdin, as hookwire's own context.
//! let input = json!({
//!     "hook_event_name": "PreToolUse",
//!     "session_id": "s-1",
//!     "tool_name": "Bash",
//!     "tool_input": {"command": "ls"},
//! });
//! let (event, context) = hook_agents::context_from_input(Agent::Claude, input).expect("a valid input");
//! assert_eq!(event, Event::PreToolExecution);
//! assert_eq!(context.tool_name.as_deref(), Some("Bash"));
//! ```

mod answer;
mod bridge;
mod copilot;
mod gate;
mod input;
pub mod matcher;
pub mod spill;
mod urls;

pub use answer::{BLOCKED_BY_HOOK, CommandRun, async_answer, read_command, read_http_body, read_prompt_verdict};
pub use bridge::{BridgeAnswer, answer_as, failure_answer, failure_answer_as};
pub use copilot::{copilot_event, copilot_failure_answer, copilot_input_line};
pub use gate::{AgentGate, matched_member};
pub use hook_protocol::tool::{refresh_tool_view, tool_class, tool_view};
pub use input::{
    InputError, context_from_input, hook_input, input_line, input_line_of, keep_tool_input_order, tool_input,
    tool_input_text,
};
pub use urls::url_allowed;

use std::sync::Arc;

use async_trait::async_trait;

use hook_core::{BuildError, BuiltHook, Hook, HookDefinition, HookError, HookFactory, HookInput, HookOutput, HookSpec};

/// Builds the handler types hookwire loads but cannot run (`mcp_tool`, `agent`): each run fails
/// with a message saying so, recorded in the trace — never a silent pass. `hookwire check`
/// reports them as unsupported.
#[derive(Debug, Clone, Copy)]
pub struct UnsupportedFactory {
    kind: &'static str,
}

impl UnsupportedFactory {
    /// The factory of handler type `kind` (`mcp_tool` or `agent`).
    pub fn new(kind: &'static str) -> Self {
        UnsupportedFactory { kind }
    }
}

/// The handler types of the family that hookwire does not run.
pub const UNSUPPORTED_KINDS: [&str; 2] = ["mcp_tool", "agent"];

#[async_trait]
impl HookFactory for UnsupportedFactory {
    fn kind(&self) -> &str {
        self.kind
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let HookDefinition::Agent(def) = &spec.definition else {
            return Err(BuildError::Invalid {
                message: format!("`{}` hooks come from agent settings files", self.kind),
            });
        };
        let gate =
            AgentGate::compile(def, spec.events.first().copied().unwrap_or(hook_protocol::Event::PreToolExecution))
                .map_err(|err| BuildError::Invalid { message: err.to_string() })?;
        let hook = Unsupported { kind: self.kind, name: spec.name.clone() };
        Ok(BuiltHook::new(Arc::new(hook)).with_gate(Arc::new(gate)))
    }
}

#[derive(Debug)]
struct Unsupported {
    kind: &'static str,
    name: String,
}

#[async_trait]
impl Hook for Unsupported {
    async fn call(&self, _input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        Err(HookError::Unavailable {
            message: format!(
                "hook `{}` is of type `{}`, which hookwire does not run; it decided nothing (write it as a `command` hook to have it run)",
                self.name, self.kind
            ),
        })
    }
}
