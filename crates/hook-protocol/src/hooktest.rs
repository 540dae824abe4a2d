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
//! Unknown members are errors everywhere, so a misspelt `expect` key cannot pass unnoticed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Agent;

/// One test file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookTestFile {
    /// The dialect of every case's `input` and `expect`: `claude`, `gemini` or `codex`.
    pub agent: Agent,
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
    /// The event in the agent's spelling (`PreToolUse`, `BeforeTool`, ...).
    pub event: String,
    /// The agent's hook input for the event. `session_id`, `cwd`, `hook_event_name` and
    /// `transcript_path` are filled in when omitted.
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
