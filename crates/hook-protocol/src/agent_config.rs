//! The `hooks` section of the Claude Code family's settings files: Claude Code's
//! `settings.json` and plugin `hooks/hooks.json`, Gemini CLI's `settings.json`, Codex's
//! `hooks.json`. One shape: event name → matcher groups → handlers.
//!
//! Unknown members are ignored everywhere, as the agents ignore them (published configurations
//! carry `statusMessage`, `description`, `enabled`, ...). Members hookwire reads are checked
//! strictly: a wrong type is an error, never a silently ignored guard.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A settings file of the Claude Code family; only the members that concern hooks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentSettings {
    /// Event name (the agent's own spelling) → matcher groups, run in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<BTreeMap<String, Vec<MatcherGroup>>>,
    /// Claude Code: `true` turns every hook of this file off.
    #[serde(default, rename = "disableAllHooks", skip_serializing_if = "Option::is_none")]
    pub disable_all_hooks: Option<bool>,
    /// Claude Code: URL patterns (`*` wildcards) http hooks may call; absent = any.
    #[serde(default, rename = "allowedHttpHookUrls", skip_serializing_if = "Option::is_none")]
    pub allowed_http_hook_urls: Option<Vec<String>>,
    /// Claude Code: environment variables any http hook's headers may read.
    #[serde(default, rename = "httpHookAllowedEnvVars", skip_serializing_if = "Option::is_none")]
    pub http_hook_allowed_env_vars: Option<Vec<String>>,
}

/// Handlers that run when the event's matched value (a tool name, a session source, ...)
/// matches `matcher`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatcherGroup {
    /// The pattern: absent, `""` or `*` match everything; see the agent's matcher rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// Gemini CLI: run this event's hooks one after another (hookwire always does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<bool>,
    /// The handlers, in order.
    #[serde(default)]
    pub hooks: Vec<AgentHandler>,
}

/// One handler: a `command`, `http`, `prompt`, `mcp_tool` or `agent` hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentHandler {
    /// `command`, `http`, `prompt`, `mcp_tool` or `agent`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `command`: the shell command (or, with `args`, the program).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// `command`: arguments; present = exec form, no shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// `command`: `bash` (default) or `powershell`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// `http`: where the input is POSTed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `http`: request headers; `$VAR` / `${VAR}` are replaced only for `allowedEnvVars`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// `http`: variables the headers may read.
    #[serde(default, rename = "allowedEnvVars", skip_serializing_if = "Option::is_none")]
    pub allowed_env_vars: Option<Vec<String>>,
    /// `prompt` / `agent`: the prompt; `$ARGUMENTS` is the hook input JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// `prompt` / `agent`: the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Deadline: seconds (Claude Code, Codex) or milliseconds (Gemini CLI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// Codex's spelling of `timeout` (seconds).
    #[serde(default, rename = "timeoutSec", skip_serializing_if = "Option::is_none")]
    pub timeout_sec: Option<f64>,
    /// Claude Code: a permission rule (`Bash(git *)`) the tool call must match.
    #[serde(default, rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_rule: Option<String>,
    /// Claude Code: `block` makes a hook that fails block the action; `continue` (default) does not.
    #[serde(default, rename = "onFailure", skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<String>,
    /// Runs in the background with no say in the outcome.
    #[serde(default, rename = "async", skip_serializing_if = "Option::is_none")]
    pub is_async: Option<bool>,
    /// Claude Code: runs in the background like `async`, and may wake the agent when it ends
    /// with exit 2; it has no say in the action either.
    #[serde(default, rename = "asyncRewake", skip_serializing_if = "Option::is_none")]
    pub async_rewake: Option<bool>,
    /// Gemini CLI: the hook's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Gemini CLI: environment added for the hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Copilot CLI: the directory the command runs in, relative to the project (default: the
    /// project directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// `mcp_tool`: the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// `mcp_tool`: the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// `mcp_tool`: the tool's input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
}

impl AgentHandler {
    /// Whether it runs in the background (`async` or `asyncRewake`): the agent does not wait
    /// for it, and its answer decides nothing.
    pub fn runs_async(&self) -> bool {
        self.is_async == Some(true) || self.async_rewake == Some(true)
    }
}
