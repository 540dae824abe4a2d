//! The test file of `hookwire test` (`*.hooktest.yaml`): hook inputs in an agent's own terms and
//! the answer that agent should get from every configured hook.
//!
//! ```yaml
//! agent: claude
//! config: [.claude/settings.json, .hookwire/hooks.yaml]   # optional
//! cases:
//!   - name: a recursive delete of home is denied
//!     event: PreToolUse
//!     input: {tool_name: Bash, tool_input: {command: "rm -rf ~"}}
//!     expect:
//!       decision: deny
//!       reason: {contains: home}
//! ```
//!
//! `agent: hookwire` writes the cases in hookwire's own terms instead: `event` is a canonical
//! event name or alias (`pre_tool_execution`, `before_tool`, ...), `input` holds HookContext
//! fields (`tool_name`, `tool_arguments`, `user_input`, ...) as `hookwire fire --context` reads
//! them, and `expect` is read from the engine's outcome.
//!
//! Unknown members are errors everywhere, so a misspelt `expect` key cannot pass unnoticed.

use std::{borrow::Cow, fmt, str::FromStr};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::Agent;

/// The dialect a test file's cases are written in: an agent's hook input and answer, or
/// hookwire's own context and outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookTestAgent {
    /// The agent's own hook input, run through the bridge (`hookwire hook <agent>`).
    Agent(Agent),
    /// hookwire's own terms, run as `hookwire fire` runs an event.
    Hookwire,
}

impl HookTestAgent {
    /// The agent whose dialect this is; `None` for hookwire's own.
    pub fn agent(self) -> Option<Agent> {
        match self {
            HookTestAgent::Agent(agent) => Some(agent),
            HookTestAgent::Hookwire => None,
        }
    }

    /// The name as written in a test file.
    pub fn as_str(self) -> &'static str {
        match self {
            HookTestAgent::Agent(agent) => agent.as_str(),
            HookTestAgent::Hookwire => "hookwire",
        }
    }
}

impl From<Agent> for HookTestAgent {
    fn from(agent: Agent) -> Self {
        HookTestAgent::Agent(agent)
    }
}

impl fmt::Display for HookTestAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A test file's `agent` that names no dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialectError {
    /// The name as written.
    pub name: String,
}

impl fmt::Display for UnknownDialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown agent `{}`; write claude, gemini, codex, copilot or hookwire", self.name)
    }
}

impl std::error::Error for UnknownDialectError {}

impl FromStr for HookTestAgent {
    type Err = UnknownDialectError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "hookwire" {
            return Ok(HookTestAgent::Hookwire);
        }
        s.parse().map(HookTestAgent::Agent).map_err(|_| UnknownDialectError { name: s.to_owned() })
    }
}

impl Serialize for HookTestAgent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for HookTestAgent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for HookTestAgent {
    fn schema_name() -> Cow<'static, str> {
        "HookTestAgent".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The dialect of the cases: an agent's own hook input and answer, or `hookwire`'s own \
                            context and outcome.",
            "type": "string",
            "enum": ["claude", "gemini", "codex", "copilot", "hookwire"],
        })
    }
}

/// One test file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookTestFile {
    /// The dialect of every case's `input` and `expect`: `claude`, `gemini`, `codex`,
    /// `copilot`, or `hookwire` for hookwire's own event names, context fields and outcome.
    pub agent: HookTestAgent,
    /// The configuration files to load, relative to the project root (the nearest directory
    /// above the test file with `.hookwire/`, `.jcli/` or an agent's settings file; without
    /// one, the directory holding the file's `hooktests/` directory). Omitted: what
    /// decides for that agent in this project — the agent's own settings files' hooks and
    /// hookwire's (project and user level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Vec<String>>,
    /// The cases, run in order.
    pub cases: Vec<HookTestCase>,
}

/// One case: an event, its input, and the expected answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookTestCase {
    /// What the case shows; the name reports and JUnit test cases carry.
    pub name: String,
    /// The event in the agent's spelling (`PreToolUse`, `BeforeTool`, ...); with `agent:
    /// hookwire`, a canonical event name or alias (`pre_tool_execution`, `before_tool`, ...).
    pub event: String,
    /// The agent's hook input for the event. `session_id`, `cwd`, `hook_event_name` and
    /// `transcript_path` are filled in when omitted. With `agent: hookwire`: HookContext fields
    /// (`tool_name`, `tool_arguments` as JSON text or an object, `user_input`, ...), `cwd`
    /// filled in when omitted.
    #[serde(default)]
    pub input: Map<String, Value>,
    /// The expected answer; omitted: the case only has to run (and `--update` fills it in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<HookTestExpect>,
}

/// The answer a case expects, read in the agent's terms. An omitted member is not checked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookTestExpect {
    /// The decision the agent reads from the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<ExpectedDecision>,
    /// The reason given with the decision (the text the model or the user sees).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<TextMatch>,
    /// The additional context handed to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<TextMatch>,
    /// The tool input as rewritten by the hooks; compared as JSON, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Value>,
}

/// A decision as the agent reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExpectedDecision {
    /// The call goes ahead: an explicit allow, or no decision at all.
    Allow,
    /// The tool call is refused.
    Deny,
    /// The user is asked.
    Ask,
    /// The hook defers to the agent's own permission flow.
    Defer,
    /// The event's action is blocked (`decision: block`, a prompt, a stop).
    Block,
    /// Nothing is decided: the agent goes on.
    Continue,
    /// The agent stops (`continue: false`).
    Stop,
}

impl ExpectedDecision {
    /// The word as written in a test file.
    pub fn as_str(self) -> &'static str {
        match self {
            ExpectedDecision::Allow => "allow",
            ExpectedDecision::Deny => "deny",
            ExpectedDecision::Ask => "ask",
            ExpectedDecision::Defer => "defer",
            ExpectedDecision::Block => "block",
            ExpectedDecision::Continue => "continue",
            ExpectedDecision::Stop => "stop",
        }
    }
}

/// How a text is checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum TextMatch {
    /// The text contains this.
    Contains(String),
    /// The text is exactly this.
    Equals(String),
    /// The text matches this regular expression (anywhere in it).
    Matches(String),
}
