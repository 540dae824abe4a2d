//! Event names: one canonical name per lifecycle point, plus the PicoClaw and Claude Code aliases.

use std::{borrow::Cow, fmt, str::FromStr};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in an agent's life where hooks run.
///
/// Serialized as its canonical (j-cli) name; parsed from the canonical name or any alias,
/// case-sensitively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Event {
    /// The session started.
    SessionStart,
    /// The session is ending.
    SessionEnd,
    /// A user message is about to be sent.
    PreSendMessage,
    /// A user message was added to the conversation.
    PostSendMessage,
    /// A request to the model is about to be made.
    PreLlmRequest,
    /// The model answered.
    PostLlmResponse,
    /// A tool call is about to run.
    PreToolExecution,
    /// A tool call asks for approval.
    ApproveTool,
    /// A tool call succeeded.
    PostToolExecution,
    /// A tool call failed or was skipped.
    PostToolExecutionFailure,
    /// The model is about to end its reply (no more tool calls).
    Stop,
    /// This round's micro compaction is about to run.
    PreMicroCompact,
    /// This round's micro compaction ran.
    PostMicroCompact,
    /// A full (summarising) compaction is about to run.
    PreAutoCompact,
    /// A full compaction ran.
    PostAutoCompact,
    /// A tool call was refused by the agent's permission check.
    PermissionDenied,
    /// The agent notifies the user (needs input, idle, ...).
    Notification,
    /// A subagent started.
    SubagentStart,
    /// A subagent is about to end its reply.
    SubagentStop,
    /// The turn ended on an error of the model API.
    StopFailure,
    /// A batch of parallel tool calls finished.
    PostToolBatch,
    /// The agent runs its setup (init or maintenance).
    Setup,
    /// A slash command or prompt template is about to expand.
    UserPromptExpansion,
    /// An instructions file (CLAUDE.md, ...) was loaded.
    InstructionsLoaded,
    /// A settings file changed during the session.
    ConfigChange,
    /// The working directory changed.
    CwdChanged,
    /// A watched file changed.
    FileChanged,
    /// A directory was added to the workspace.
    DirectoryAdded,
    /// A task was created.
    TaskCreated,
    /// A task was completed.
    TaskCompleted,
    /// A teammate went idle.
    TeammateIdle,
    /// A worktree is about to be created.
    WorktreeCreate,
    /// A worktree is about to be removed.
    WorktreeRemove,
    /// A tool server asks the user for input.
    Elicitation,
    /// The user answered a tool server's request for input.
    ElicitationResult,
    /// A message is about to be displayed.
    MessageDisplay,
    /// The model is about to be switched.
    PreModelSwitch,
    /// The model was switched.
    PostModelSwitch,
    /// The tools offered to the model are about to be chosen (Gemini's BeforeToolSelection).
    PreToolSelection,
    /// The agent ran into an error (a model call, a tool, ...), recoverable or not (Copilot
    /// CLI's errorOccurred): observe only.
    ErrorOccurred,
}

/// Every event with its canonical name and its aliases (PicoClaw first, then Claude Code, then
/// Gemini CLI, then Copilot CLI's camelCase names).
const NAMES: &[(Event, &str, &[&str])] = &[
    (Event::SessionStart, "session_start", &["SessionStart", "sessionStart"]),
    (Event::SessionEnd, "session_end", &["SessionEnd", "sessionEnd"]),
    (Event::PreSendMessage, "pre_send_message", &["UserPromptSubmit", "BeforeAgent", "userPromptSubmitted"]),
    (Event::PostSendMessage, "post_send_message", &[]),
    (Event::PreLlmRequest, "pre_llm_request", &["before_llm", "BeforeModel"]),
    (Event::PostLlmResponse, "post_llm_response", &["after_llm", "AfterModel"]),
    (Event::PreToolExecution, "pre_tool_execution", &["before_tool", "PreToolUse", "BeforeTool", "preToolUse"]),
    (Event::ApproveTool, "approve_tool", &["PermissionRequest", "permissionRequest"]),
    (Event::PostToolExecution, "post_tool_execution", &["after_tool", "PostToolUse", "AfterTool", "postToolUse"]),
    (Event::PostToolExecutionFailure, "post_tool_execution_failure", &["PostToolUseFailure", "postToolUseFailure"]),
    (Event::Stop, "stop", &["Stop", "AfterAgent", "agentStop"]),
    (Event::PreMicroCompact, "pre_micro_compact", &[]),
    (Event::PostMicroCompact, "post_micro_compact", &[]),
    (Event::PreAutoCompact, "pre_auto_compact", &["PreCompact", "PreCompress", "preCompact"]),
    (Event::PostAutoCompact, "post_auto_compact", &["PostCompact"]),
    (Event::PermissionDenied, "permission_denied", &["PermissionDenied"]),
    (Event::Notification, "notification", &["Notification"]),
    (Event::SubagentStart, "subagent_start", &["SubagentStart", "subagentStart"]),
    (Event::SubagentStop, "subagent_stop", &["SubagentStop", "subagentStop"]),
    (Event::StopFailure, "stop_failure", &["StopFailure"]),
    (Event::PostToolBatch, "post_tool_batch", &["PostToolBatch"]),
    (Event::Setup, "setup", &["Setup"]),
    (Event::UserPromptExpansion, "user_prompt_expansion", &["UserPromptExpansion"]),
    (Event::InstructionsLoaded, "instructions_loaded", &["InstructionsLoaded"]),
    (Event::ConfigChange, "config_change", &["ConfigChange"]),
    (Event::CwdChanged, "cwd_changed", &["CwdChanged"]),
    (Event::FileChanged, "file_changed", &["FileChanged"]),
    (Event::DirectoryAdded, "directory_added", &["DirectoryAdded"]),
    (Event::TaskCreated, "task_created", &["TaskCreated"]),
    (Event::TaskCompleted, "task_completed", &["TaskCompleted"]),
    (Event::TeammateIdle, "teammate_idle", &["TeammateIdle"]),
    (Event::WorktreeCreate, "worktree_create", &["WorktreeCreate"]),
    (Event::WorktreeRemove, "worktree_remove", &["WorktreeRemove"]),
    (Event::Elicitation, "elicitation", &["Elicitation"]),
    (Event::ElicitationResult, "elicitation_result", &["ElicitationResult"]),
    (Event::MessageDisplay, "message_display", &["MessageDisplay"]),
    (Event::PreModelSwitch, "pre_model_switch", &["PreModelSwitch"]),
    (Event::PostModelSwitch, "post_model_switch", &["PostModelSwitch"]),
    (Event::PreToolSelection, "pre_tool_selection", &["BeforeToolSelection"]),
    (Event::ErrorOccurred, "error_occurred", &["errorOccurred"]),
];

/// The registry keeps one bit per event in a `u64`.
const _: () = assert!(Event::ALL.len() <= 64);

impl Event {
    /// Every event, in lifecycle-table order.
    pub const ALL: [Event; 40] = [
        Event::SessionStart,
        Event::SessionEnd,
        Event::PreSendMessage,
        Event::PostSendMessage,
        Event::PreLlmRequest,
        Event::PostLlmResponse,
        Event::PreToolExecution,
        Event::ApproveTool,
        Event::PostToolExecution,
        Event::PostToolExecutionFailure,
        Event::Stop,
        Event::PreMicroCompact,
        Event::PostMicroCompact,
        Event::PreAutoCompact,
        Event::PostAutoCompact,
        Event::PermissionDenied,
        Event::Notification,
        Event::SubagentStart,
        Event::SubagentStop,
        Event::StopFailure,
        Event::PostToolBatch,
        Event::Setup,
        Event::UserPromptExpansion,
        Event::InstructionsLoaded,
        Event::ConfigChange,
        Event::CwdChanged,
        Event::FileChanged,
        Event::DirectoryAdded,
        Event::TaskCreated,
        Event::TaskCompleted,
        Event::TeammateIdle,
        Event::WorktreeCreate,
        Event::WorktreeRemove,
        Event::Elicitation,
        Event::ElicitationResult,
        Event::MessageDisplay,
        Event::PreModelSwitch,
        Event::PostModelSwitch,
        Event::PreToolSelection,
        Event::ErrorOccurred,
    ];

    /// The canonical name, e.g. `pre_tool_execution`.
    pub fn as_str(self) -> &'static str {
        NAMES[self.index()].1
    }

    /// The other names this event answers to, e.g. `before_tool` and `PreToolUse`.
    pub fn aliases(self) -> &'static [&'static str] {
        NAMES[self.index()].2
    }

    /// PicoClaw's name for this event (`before_tool`), if PicoClaw has one.
    pub fn picoclaw_name(self) -> Option<&'static str> {
        match self {
            Event::PreLlmRequest => Some("before_llm"),
            Event::PostLlmResponse => Some("after_llm"),
            Event::PreToolExecution => Some("before_tool"),
            Event::PostToolExecution => Some("after_tool"),
            Event::ApproveTool => Some("approve_tool"),
            _ => None,
        }
    }

    /// Position in [`Event::ALL`]; stable, usable as an array index.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Every accepted name (canonical names and aliases), for error messages and schemas.
    pub fn all_names() -> impl Iterator<Item = &'static str> {
        NAMES.iter().flat_map(|(_, name, aliases)| std::iter::once(*name).chain(aliases.iter().copied()))
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event name that is neither a canonical name nor an alias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEventError {
    /// The name as written.
    pub name: String,
}

impl fmt::Display for UnknownEventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown event `{}`", self.name)?;
        if let Some(near) = nearest_name(&self.name) {
            write!(f, " (did you mean `{near}`?)")?;
        }
        f.write_str("; valid names are: ")?;
        for (i, event) in Event::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(event.as_str())?;
        }
        f.write_str(" (and their PicoClaw, Claude Code, Gemini CLI and Copilot CLI names, e.g. before_tool, PreToolUse, BeforeTool, preToolUse)")
    }
}

/// The accepted name closest to `name` (by edit distance, ignoring case and `_`), when it is
/// close enough to be a typo of it.
fn nearest_name(name: &str) -> Option<&'static str> {
    let key = |s: &str| s.chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect::<Vec<char>>();
    let wanted = key(name);
    Event::all_names()
        .map(|candidate| (edit_distance(&wanted, &key(candidate)), candidate))
        .filter(|(distance, _)| *distance <= 2.max(wanted.len() / 4))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance between two character sequences.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb { diagonal } else { 1 + diagonal.min(above).min(row[j]) };
            diagonal = above;
        }
    }
    row[b.len()]
}

impl std::error::Error for UnknownEventError {}

impl FromStr for Event {
    type Err = UnknownEventError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NAMES
            .iter()
            .find(|(_, name, aliases)| *name == s || aliases.contains(&s))
            .map(|(event, _, _)| *event)
            .ok_or_else(|| UnknownEventError { name: s.to_owned() })
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Event {
    fn schema_name() -> Cow<'static, str> {
        "Event".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Event::all_names().collect();
        json_schema!({
            "description": "A hook event: the canonical name or one of its PicoClaw / Claude Code aliases (case-sensitive).",
            "type": "string",
            "enum": names,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse_case_sensitively() {
        for event in Event::ALL {
            assert_eq!(event.as_str().parse::<Event>(), Ok(event));
            for alias in event.aliases() {
                assert_eq!(alias.parse::<Event>(), Ok(event));
            }
            assert_eq!(Event::ALL[event.index()], event);
        }
        assert_eq!("before_tool".parse::<Event>(), Ok(Event::PreToolExecution));
        assert_eq!("Stop".parse::<Event>(), Ok(Event::Stop));
        let err = "PRE_TOOL_EXECUTION".parse::<Event>().unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(
                "unknown event `PRE_TOOL_EXECUTION` (did you mean `pre_tool_execution`?); valid names are: session_start"
            ),
            "{message}"
        );
        assert!(message.contains("PreToolUse"), "{message}");
        let typo = "PreToolUSe".parse::<Event>().unwrap_err().to_string();
        assert!(typo.contains("(did you mean `PreToolUse`?)"), "{typo}");
        let far = "after_everything".parse::<Event>().unwrap_err().to_string();
        assert!(!far.contains("did you mean"), "{far}");
    }
}
