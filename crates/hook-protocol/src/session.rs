//! A saved agent session and the session hooks the model registered (`register_hook`): what
//! agent-loop writes when a session is saved and reads when it is restored.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{
    ChatMessage, Event,
    config::{HookFilter, OnError},
};

/// One session hook as the model asked for it through `register_hook`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionHookDef {
    /// The event it runs on.
    pub event: Event,
    /// `bash` or `llm`.
    #[serde(rename = "type", default = "default_kind")]
    pub kind: String,
    /// The shell command (bash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The prompt template (llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The model to ask (llm), instead of the agent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Seconds (default 10 for bash, 30 for llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// Extra attempts (default 0 for bash, 1 for llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<u32>,
    /// `skip`, `stop` or `deny`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnError>,
    /// Conditions it runs under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<HookFilter>,
}

fn default_kind() -> String {
    "bash".to_owned()
}

impl SessionHookDef {
    /// The `register_hook` arguments that register this hook (what approval sees on restore).
    pub fn to_arguments(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Value::Object(map) = &mut value {
            map.insert("action".into(), Value::String("register".into()));
        }
        value
    }
}

/// A session as saved: agent-loop's `Session::restore` brings it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionState {
    /// The session id.
    pub id: String,
    /// The working directory.
    pub cwd: PathBuf,
    /// The conversation (no system message).
    pub history: Vec<ChatMessage>,
    /// Hooks the model registered, in order.
    #[serde(default)]
    pub hooks: Vec<SessionHookDef>,
    /// Turns run so far (turn ids go on from here).
    #[serde(default)]
    pub n_turns: u64,
}
