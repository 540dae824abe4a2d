//! The socket protocol of `hookwire serve`: one daemon per user and project that keeps the hooks
//! (and so process hooks) running between calls.
//!
//! Transport: a Unix stream socket; each message is one JSON-RPC 2.0 object ([`crate::jsonrpc`])
//! on one line. Requests on one connection may be pipelined; responses carry the request's id and
//! may come back in any order. The methods are [`Method`]; their params and results are the types
//! of this module.

use std::{collections::BTreeMap, fmt, path::PathBuf, str::FromStr};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Agent, ChatMessage, Context, ToolResult};

/// The methods a daemon serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Fire one event ([`FireParams`]): an event name and a context, answered with a
    /// [`FireResult`]; or an agent's hook input, answered with a [`BridgeResult`].
    Fire,
    /// Load a configuration if it is not served yet and list every served configuration
    /// ([`CheckResult`]).
    Check,
    /// Counters per hook ([`StatsResult`]).
    Stats,
    /// Re-read every configuration now, as the daemon does on its own when a file changes
    /// ([`ReloadResult`]).
    Reload,
    /// Stop: answer, remove the socket, take the hooks down, exit ([`ShutdownResult`]).
    Shutdown,
}

impl Method {
    /// Every method.
    pub const ALL: [Method; 5] = [Method::Fire, Method::Check, Method::Stats, Method::Reload, Method::Shutdown];

    /// The wire name: `fire`, `check`, `stats`, `reload`, `shutdown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Fire => "fire",
            Method::Check => "check",
            Method::Stats => "stats",
            Method::Reload => "reload",
            Method::Shutdown => "shutdown",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A method name the daemon does not serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMethodError {
    /// The name as sent.
    pub name: String,
}

impl fmt::Display for UnknownMethodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Method::ALL.iter().map(|m| m.as_str()).collect();
        write!(f, "unknown method `{}`; the daemon serves {}", self.name, names.join(", "))
    }
}

impl std::error::Error for UnknownMethodError {}

impl FromStr for Method {
    type Err = UnknownMethodError;

    fn from_str(name: &str) -> Result<Method, UnknownMethodError> {
        Method::ALL.into_iter().find(|m| m.as_str() == name).ok_or_else(|| UnknownMethodError { name: name.to_owned() })
    }
}

/// Error codes of the daemon, beyond JSON-RPC's own (`-32700`, `-32600`, `-32601`, `-32602`).
pub mod codes {
    /// The call needs something of the caller the daemon cannot give its hooks (a
    /// `CLAUDE_ENV_FILE` of the caller's own on a session-start event with command hooks): the
    /// caller should fire it in its own process.
    pub const RUN_IN_PROCESS: i64 = -32001;
    /// The caller is a different build of hookwire than the daemon (the binary was replaced):
    /// the caller should fire in its own process and may ask the daemon to shut down.
    pub const OTHER_BUILD: i64 = -32002;
    /// The call names a project root the daemon does not serve.
    pub const OTHER_PROJECT: i64 = -32003;
    /// The configuration of the call does not load (the error lists every problem).
    pub const CONFIGURATION_ERROR: i64 = -32004;
    /// The daemon is shutting down; connect again in a moment.
    pub const SHUTTING_DOWN: i64 = -32005;
}

/// Which configuration a call runs against: the daemon keeps one engine per distinct
/// selection. Paths are absolute (the daemon does not know the caller's directory).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct Selection {
    /// The agent whose hook input this is (`hookwire hook <agent>`); its own settings files are
    /// left out of the configuration, since the agent runs their hooks itself. Absent for a
    /// plain event (`hookwire fire`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Agent>,
    /// Settings files of `agent` to load at user level (`--settings`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<PathBuf>,
    /// hookwire configuration files or hook directories to load at user level (`--config`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<PathBuf>,
    /// Skip the user's and the project's configuration (`--no-default-config`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub no_default_config: bool,
    /// The caller's environment where it decides how hooks run: `CLAUDE_PROJECT_DIR`,
    /// `GEMINI_PROJECT_DIR` (the project directory of the agent's command hooks, part of the
    /// configuration) and `CLAUDE_ENV_FILE` (applied per call). Other variables are ignored.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// `fire` params. Either `event` (+ `context`): the result is a `FireResult`; or `agent` +
/// `input`: the result is a `BridgeResult`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FireParams {
    /// The event: a canonical name or any alias (`pre_tool_execution`, `before_tool`,
    /// `PreToolUse`). Not with `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The event's context: HookContext fields (`tool_name`, `tool_arguments`, ...), as
    /// `hookwire fire --context` reads them. Default `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// The hook input object an agent wrote on a hook's stdin (with its `hook_event_name`);
    /// needs `agent`. The result is then a `BridgeResult`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The `tool_input` member of `input` as the agent wrote it (compact, its members in the
    /// agent's order): hooks then read them in that order. Ignored when it says something else
    /// than `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_input_text: Option<String>,
    /// The configuration to fire through; `agent` goes with `input`.
    #[serde(flatten)]
    pub selection: Selection,
    /// The caller's working directory: the context's `cwd` when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The project root the caller expects the daemon to serve; a mismatch is refused
    /// (error `-32003`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// The caller's build of hookwire; a different one is refused (error `-32002`).
    /// Other clients leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
}

/// `fire` result for an agent's hook input: what `hookwire hook <agent>` prints and exits with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BridgeResult {
    /// The exit code.
    pub exit_code: i32,
    /// stdout: one JSON object the agent reads, or empty when nothing was decided.
    pub stdout: String,
    /// stderr: warnings and the failures of single hooks, for the agent's log.
    pub stderr: String,
}

/// `fire` result for an event: the object `hookwire fire --format json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FireResult {
    /// The canonical event name.
    pub event: String,
    /// The decision: `continue`, `modify`, `respond`, `deny_tool`, `abort_turn`, `hard_abort`, ...
    pub action: String,
    /// Why, when a hook gave a reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The context as the hooks left it.
    pub context: Context,
    /// What the hooks asked for besides the decision.
    pub effects: FireEffects,
    /// The tool result of a `respond` decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub respond: Option<ToolResult>,
    /// One record per hook, in run order.
    pub trace: Vec<TraceRecord>,
}

/// The effects of a fire; members are present only when set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FireEffects {
    /// Messages to add to the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inject_messages: Option<Vec<ChatMessage>>,
    /// Context for the model, one paragraph per hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Messages for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Feedback for another attempt (a Stop that continues the turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_feedback: Option<String>,
}

/// One hook's run in a fire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceRecord {
    /// `<level>:<name>:<event>`.
    pub id: String,
    /// `ok`, `filtered`, `disabled`, `timeout`, `error`, ...
    pub outcome: String,
    /// The hook's action, when it ran and answered.
    #[serde(default)]
    pub action: Option<String>,
    /// Context fields it changed.
    #[serde(default)]
    pub changed: Vec<String>,
    /// Attempts (retries included).
    pub attempts: u32,
    /// Time spent, in milliseconds.
    pub duration_ms: f64,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `check` params: the configuration to load if it is not served yet (default: the project's
/// own, as `hookwire check` loads it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckParams {
    /// The configuration.
    #[serde(flatten)]
    pub selection: Selection,
}

/// `check` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckResult {
    /// Every served configuration loaded without error (a bad edit makes this `false` while the
    /// previous hooks stay in force).
    pub valid: bool,
    /// The project root the daemon serves.
    pub root: String,
    /// The daemon's process id.
    pub pid: u32,
    /// Each served configuration.
    pub configurations: Vec<ConfigurationStatus>,
}

/// One served configuration: what runs, and what went wrong when it was last read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigurationStatus {
    /// The configuration.
    #[serde(flatten)]
    pub selection: Selection,
    /// Hooks are mounted (a first load that failed leaves none).
    pub loaded: bool,
    /// Event → ids of the hooks that run on it, in run order.
    pub hooks: BTreeMap<String, Vec<String>>,
    /// Warnings of the last read.
    pub warnings: Vec<String>,
    /// Project files whose hooks do not run until trusted.
    pub untrusted: Vec<String>,
    /// Errors of the last read; when `loaded`, the hooks listed are the previous ones.
    pub errors: Vec<String>,
    /// How many times the configuration was read again after the first load.
    pub reloads: u64,
    /// When it was last read, UTC (`2026-11-25T23:10:44Z`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<String>,
}

/// `stats` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StatsResult {
    /// The daemon's process id.
    pub pid: u32,
    /// The project root the daemon serves.
    pub root: String,
    /// Milliseconds since the daemon started.
    pub uptime_ms: u64,
    /// Requests answered so far.
    pub requests: u64,
    /// Counters per configuration.
    pub configurations: Vec<ConfigurationStats>,
}

/// The counters of one configuration's hooks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigurationStats {
    /// The configuration.
    #[serde(flatten)]
    pub selection: Selection,
    /// Per hook id, sorted by id.
    pub hooks: Vec<HookStats>,
}

/// Counters of one hook id since its configuration was (re)loaded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookStats {
    /// `<level>:<name>:<event>`.
    pub id: String,
    /// Attempts run (each retry counts).
    pub executions: u64,
    /// Attempts that returned an output.
    pub successes: u64,
    /// Attempts that failed or timed out.
    pub failures: u64,
    /// Fires where the hook did not run (filtered or disabled).
    pub skips: u64,
    /// Time spent in attempts, in milliseconds.
    pub total_ms: f64,
    /// Observer notifications delivered.
    pub notifications: u64,
    /// Observer notifications dropped.
    pub dropped_notifications: u64,
}

/// `reload` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReloadResult {
    /// Each served configuration.
    pub configurations: Vec<ReloadStatus>,
}

/// What a reload did to one configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReloadStatus {
    /// The configuration.
    #[serde(flatten)]
    pub selection: Selection,
    /// Hooks were replaced (only levels whose hooks changed are restarted).
    pub changed: bool,
    /// Why the new configuration was refused; the previous hooks stay.
    pub errors: Vec<String>,
}

/// `shutdown` result, sent before the daemon stops.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShutdownResult {
    /// Always `true`.
    pub stopping: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_round_trip() {
        for method in Method::ALL {
            assert_eq!(method.as_str().parse::<Method>(), Ok(method));
            assert_eq!(serde_json::to_value(method).unwrap(), Value::String(method.as_str().into()));
        }
        assert!("fires".parse::<Method>().unwrap_err().to_string().contains("fire, check"));
    }

    #[test]
    fn fire_params_read_both_forms() {
        let bridge: FireParams = crate::from_json_str(
            r#"{"agent":"claude","input":{"hook_event_name":"Stop"},"settings":["/s.json"],"no_default_config":true,
                "env":{"CLAUDE_PROJECT_DIR":"/p"},"cwd":"/p"}"#,
        )
        .unwrap();
        assert_eq!(bridge.selection.agent, Some(Agent::Claude));
        assert_eq!(bridge.selection.settings, vec![PathBuf::from("/s.json")]);
        assert!(bridge.selection.no_default_config);
        let event: FireParams =
            crate::from_json_str(r#"{"event":"pre_tool_execution","context":{"tool_name":"Bash"}}"#).unwrap();
        assert_eq!(event.selection, Selection::default());
        assert_eq!(event.context.unwrap()["tool_name"], "Bash");
        // Absent members stay absent on the way out.
        assert_eq!(serde_json::to_string(&CheckParams::default()).unwrap(), "{}");
    }
}
