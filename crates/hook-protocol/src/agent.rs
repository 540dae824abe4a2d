//! The agents whose hooks hookwire runs and answers as — the Claude Code family (Claude Code,
//! Gemini CLI, Codex) and GitHub Copilot CLI — and the names each gives hookwire's events.

use std::{borrow::Cow, fmt, str::FromStr};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Event;

/// An agent whose hook contract hookwire speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    /// Claude Code (`.claude/settings.json`).
    Claude,
    /// Gemini CLI (`.gemini/settings.json`).
    Gemini,
    /// Codex (`.codex/hooks.json`).
    Codex,
    /// GitHub Copilot CLI (`.github/hooks/*.json`).
    Copilot,
}

/// One event's names in Claude Code, Gemini CLI, Codex and Copilot CLI (`None`: the agent has no
/// such event).
type Names = (Event, Option<&'static str>, Option<&'static str>, Option<&'static str>, Option<&'static str>);

/// Per event: its name in Claude Code, Gemini CLI, Codex and Copilot CLI (its camelCase names;
/// Copilot also takes Claude Code's PascalCase names, see [`Agent::copilot_pascal_event`]).
const NAMES: &[Names] = &[
    (Event::SessionStart, Some("SessionStart"), Some("SessionStart"), Some("SessionStart"), Some("sessionStart")),
    (Event::SessionEnd, Some("SessionEnd"), Some("SessionEnd"), None, Some("sessionEnd")),
    (
        Event::PreSendMessage,
        Some("UserPromptSubmit"),
        Some("BeforeAgent"),
        Some("UserPromptSubmit"),
        Some("userPromptSubmitted"),
    ),
    (Event::PreLlmRequest, None, Some("BeforeModel"), None, None),
    (Event::PostLlmResponse, None, Some("AfterModel"), None, None),
    (Event::PreToolExecution, Some("PreToolUse"), Some("BeforeTool"), Some("PreToolUse"), Some("preToolUse")),
    (Event::ApproveTool, Some("PermissionRequest"), None, Some("PermissionRequest"), Some("permissionRequest")),
    (Event::PostToolExecution, Some("PostToolUse"), Some("AfterTool"), Some("PostToolUse"), Some("postToolUse")),
    (Event::PostToolExecutionFailure, Some("PostToolUseFailure"), None, None, Some("postToolUseFailure")),
    (Event::Stop, Some("Stop"), Some("AfterAgent"), Some("Stop"), Some("agentStop")),
    (Event::PreAutoCompact, Some("PreCompact"), Some("PreCompress"), Some("PreCompact"), Some("preCompact")),
    (Event::PostAutoCompact, Some("PostCompact"), None, Some("PostCompact"), None),
    (Event::PermissionDenied, Some("PermissionDenied"), None, None, None),
    (Event::Notification, Some("Notification"), Some("Notification"), None, Some("notification")),
    (Event::SubagentStart, Some("SubagentStart"), None, Some("SubagentStart"), Some("subagentStart")),
    (Event::SubagentStop, Some("SubagentStop"), None, Some("SubagentStop"), Some("subagentStop")),
    (Event::StopFailure, Some("StopFailure"), None, Some("StopFailure"), None),
    (Event::PostToolBatch, Some("PostToolBatch"), None, None, None),
    (Event::Setup, Some("Setup"), None, None, None),
    (Event::UserPromptExpansion, Some("UserPromptExpansion"), None, None, None),
    (Event::InstructionsLoaded, Some("InstructionsLoaded"), None, None, None),
    (Event::ConfigChange, Some("ConfigChange"), None, None, None),
    (Event::CwdChanged, Some("CwdChanged"), None, None, None),
    (Event::FileChanged, Some("FileChanged"), None, None, None),
    (Event::DirectoryAdded, Some("DirectoryAdded"), None, None, None),
    (Event::TaskCreated, Some("TaskCreated"), None, None, None),
    (Event::TaskCompleted, Some("TaskCompleted"), None, None, None),
    (Event::TeammateIdle, Some("TeammateIdle"), None, None, None),
    (Event::WorktreeCreate, Some("WorktreeCreate"), None, None, None),
    (Event::WorktreeRemove, Some("WorktreeRemove"), None, None, None),
    (Event::Elicitation, Some("Elicitation"), None, None, None),
    (Event::ElicitationResult, Some("ElicitationResult"), None, None, None),
    (Event::MessageDisplay, Some("MessageDisplay"), None, None, None),
    (Event::PreModelSwitch, Some("PreModelSwitch"), None, None, None),
    (Event::PostModelSwitch, Some("PostModelSwitch"), None, None, None),
    (Event::PreToolSelection, None, Some("BeforeToolSelection"), None, None),
    (Event::ErrorOccurred, None, None, None, Some("errorOccurred")),
];

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 4] = [Agent::Claude, Agent::Gemini, Agent::Codex, Agent::Copilot];

    /// `claude`, `gemini`, `codex` or `copilot`: the word `hookwire hook` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
            Agent::Copilot => "copilot",
        }
    }

    /// The agent's product name, for messages.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Gemini => "Gemini CLI",
            Agent::Codex => "Codex",
            Agent::Copilot => "Copilot CLI",
        }
    }

    fn column(self, row: &Names) -> Option<&'static str> {
        match self {
            Agent::Claude => row.1,
            Agent::Gemini => row.2,
            Agent::Codex => row.3,
            Agent::Copilot => row.4,
        }
    }

    /// The event Copilot CLI calls `name` in its PascalCase spelling (`PreToolUse`, `Stop`, ...):
    /// Claude Code's name of an event Copilot has. Such a hook gets Claude Code's snake_case
    /// payload.
    pub fn copilot_pascal_event(name: &str) -> Option<Event> {
        NAMES.iter().find(|row| row.1 == Some(name) && row.4.is_some()).map(|row| row.0)
    }

    /// The event this agent calls `name` (exact, case-sensitive), if it has one by that name.
    pub fn event(self, name: &str) -> Option<Event> {
        NAMES.iter().find(|row| self.column(row) == Some(name)).map(|row| row.0)
    }

    /// This agent's name for `event`, if it has the event.
    pub fn event_name(self, event: Event) -> Option<&'static str> {
        NAMES.iter().find(|row| row.0 == event).and_then(|row| self.column(row))
    }

    /// Every event name this agent documents, in table order.
    pub fn event_names(self) -> impl Iterator<Item = &'static str> {
        NAMES.iter().filter_map(move |row| self.column(row))
    }

    /// The agent's own settings files holding hooks, relative to a home or project directory:
    /// the files an agent reads and runs itself (`hookwire hook <agent>` leaves them out).
    pub fn settings_files(self) -> &'static [&'static str] {
        match self {
            Agent::Claude => &[".claude/settings.json", ".claude/settings.local.json"],
            Agent::Gemini => &[".gemini/settings.json"],
            Agent::Codex => &[".codex/hooks.json"],
            // Copilot's hook files are every `*.json` of `.github/hooks`; its settings files
            // hold hooks too (`"hooks": {"preToolUse": [...]}`): a repository's two, and the
            // user's `$COPILOT_HOME/settings.json`.
            Agent::Copilot => &[
                ".github/hooks",
                ".github/copilot/settings.json",
                ".github/copilot/settings.local.json",
                ".copilot/settings.json",
            ],
        }
    }

    /// Whether `relative` (a path relative to a home or project directory, as found) is one of
    /// this agent's own hook files: a settings file of [`Agent::settings_files`], or for Copilot
    /// CLI a `*.json` of `.github/hooks/` (a repository's) or `.copilot/hooks/` (the user's).
    pub fn owns_file(self, relative: &std::path::Path) -> bool {
        if self.settings_files().iter().any(|file| relative == std::path::Path::new(file)) {
            return true;
        }
        if self != Agent::Copilot {
            return false;
        }
        let is_json = relative.extension().is_some_and(|ext| ext == "json");
        let dir = relative.parent().unwrap_or(std::path::Path::new(""));
        is_json && (dir == std::path::Path::new(".github/hooks") || dir == std::path::Path::new(".copilot/hooks"))
    }

    /// Whether this agent runs the hooks of the project file `relative` (relative to the project
    /// directory) itself, so that `hookwire hook <agent>` must leave it out: its own files
    /// ([`Agent::owns_file`]), and for Copilot CLI also Claude Code's `.claude/settings.json` and
    /// `.claude/settings.local.json`, which Copilot reads as repository configuration and whose
    /// hooks it runs (checked with Copilot CLI 1.0.102; it does not read the user's
    /// `~/.claude/settings.json`).
    pub fn runs_project_file(self, relative: &std::path::Path) -> bool {
        self.owns_file(relative) || (self == Agent::Copilot && Agent::Claude.owns_file(relative))
    }

    /// The environment variable holding the project directory for this agent's hooks.
    pub fn project_dir_var(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex => "CLAUDE_PROJECT_DIR",
            Agent::Gemini => "GEMINI_PROJECT_DIR",
            Agent::Copilot => "COPILOT_PROJECT_DIR",
        }
    }

    /// The default deadline of a handler of type `kind` on `event`, in seconds, as the agent
    /// documents it (Claude Code: command and http 600 s, 30 s on `UserPromptSubmit`, prompt 30 s,
    /// agent 60 s; Gemini CLI: 60 s; Codex: 600 s; Copilot CLI: 30 s).
    pub fn default_timeout_secs(self, kind: &str, event: Event) -> f64 {
        match (self, kind) {
            (Agent::Gemini, _) => 60.0,
            (Agent::Codex, _) => 600.0,
            (Agent::Copilot, _) => 30.0,
            (Agent::Claude, "prompt") => 30.0,
            (Agent::Claude, "agent") => 60.0,
            (Agent::Claude, _) if event == Event::PreSendMessage => 30.0,
            (Agent::Claude, _) if event == Event::MessageDisplay => 10.0,
            (Agent::Claude, _) => 600.0,
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An agent name other than `claude`, `gemini`, `codex` or `copilot`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownAgentError {
    /// The name as written.
    pub name: String,
}

impl fmt::Display for UnknownAgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown agent `{}`; write claude, gemini, codex or copilot", self.name)
    }
}

impl std::error::Error for UnknownAgentError {}

impl FromStr for Agent {
    type Err = UnknownAgentError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Agent::ALL.into_iter().find(|agent| agent.as_str() == s).ok_or_else(|| UnknownAgentError { name: s.to_owned() })
    }
}

impl Serialize for Agent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Agent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Agent {
    fn schema_name() -> Cow<'static, str> {
        "Agent".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "An agent whose hooks hookwire answers as.",
            "type": "string",
            "enum": ["claude", "gemini", "codex", "copilot"],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_name_is_also_a_global_alias_of_the_same_event() {
        for agent in Agent::ALL {
            for name in agent.event_names() {
                let event = agent.event(name).unwrap();
                assert_eq!(name.parse::<Event>(), Ok(event), "{agent} {name}");
                assert_eq!(agent.event_name(event), Some(name));
            }
        }
    }

    #[test]
    fn names_are_per_agent() {
        assert_eq!(Agent::Gemini.event("BeforeTool"), Some(Event::PreToolExecution));
        assert_eq!(Agent::Claude.event("BeforeTool"), None);
        assert_eq!(Agent::Codex.event("Notification"), None);
        assert_eq!(Agent::Claude.event("pretooluse"), None);
        assert_eq!("gemini".parse::<Agent>(), Ok(Agent::Gemini));
        assert_eq!(Agent::Copilot.event("preToolUse"), Some(Event::PreToolExecution));
        assert_eq!(Agent::Copilot.event("agentStop"), Some(Event::Stop));
        assert_eq!(Agent::Copilot.event("errorOccurred"), Some(Event::ErrorOccurred));
        assert_eq!(Agent::Copilot.event("PreToolUse"), None);
        assert_eq!(Agent::copilot_pascal_event("PreToolUse"), Some(Event::PreToolExecution));
        assert_eq!(Agent::copilot_pascal_event("Stop"), Some(Event::Stop));
        assert_eq!(Agent::copilot_pascal_event("CwdChanged"), None);
        assert_eq!("copilot".parse::<Agent>(), Ok(Agent::Copilot));
    }
}
