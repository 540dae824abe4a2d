//! What a turn reports: the events fired with their decisions, notices, tool activity, media
//! delivered, usage; and the [`TurnEvent`]s a caller can watch as they happen.

use std::{fmt, time::Duration};

use hook_core::{Decision, Effects, Field, TraceEntry};
use hook_llm::Usage;
use hook_protocol::{Event, ToolResult};

use crate::MediaItem;

/// One event the loop reached and what its hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub struct FiredEvent {
    /// The event.
    pub event: Event,
    /// The round of the turn it happened in (0 for the first model call).
    pub round: u32,
    /// The tool, for tool events (after rewrites by earlier hooks of the same call).
    pub tool_name: Option<String>,
    /// The combined decision (`continue` or `approved` when no hook is registered).
    pub decision: Decision,
    /// Why, when a hook said.
    pub reason: Option<String>,
    /// Fields the hooks changed.
    pub changed: Vec<Field>,
    /// What the hooks asked for besides field changes (notices, context, injected messages,
    /// feedback); only what the event honours.
    pub effects: Effects,
    /// One entry per hook that took part (ran, or was filtered or disabled): id, outcome,
    /// action, changed fields, attempts, duration, error.
    pub hooks: Vec<TraceEntry>,
}

impl fmt::Display for FiredEvent {
    /// `pre_tool_execution(bash) -> continue`, plus changed fields and the reason when present.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.event)?;
        if let Some(tool) = &self.tool_name {
            write!(f, "({tool})")?;
        }
        write!(f, " -> {}", self.decision)?;
        if !self.changed.is_empty() {
            let names: Vec<&str> = self.changed.iter().map(|f| f.as_str()).collect();
            write!(f, " [changed: {}]", names.join(", "))?;
        }
        if let Some(reason) = &self.reason {
            write!(f, " ({reason})")?;
        }
        Ok(())
    }
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TurnStatus {
    /// The model answered; `reply` holds its answer.
    Completed,
    /// A `pre_send_message` hook stopped the message: it was not added and the model not asked.
    Dropped {
        /// The hook's reason.
        reason: Option<String>,
        /// The hook's `retry_feedback`, for the user.
        feedback: Option<String>,
    },
    /// Every tool call of the last batch was answered with `response_handled` and its media
    /// delivered: the turn ended without another model call.
    ResponseHandled,
    /// A graceful cancel ended the turn; the remaining tool calls were skipped.
    Interrupted,
}

/// A tool call of the turn and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRecord {
    /// The tool as called (after `pre_tool_execution` rewrites).
    pub name: String,
    /// The arguments as JSON text (after rewrites).
    pub arguments: String,
    /// The call id.
    pub call_id: String,
    /// What the model was told.
    pub content: String,
    /// What became of the call.
    pub outcome: ToolOutcome,
    /// Whether it counts as failed.
    pub is_error: bool,
}

/// What became of one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolOutcome {
    /// The tool ran.
    Executed,
    /// A hook answered the call in the tool's place (PicoClaw `respond`).
    Responded,
    /// `pre_tool_execution` refused it.
    Denied,
    /// `approve_tool` refused it.
    ApprovalDenied,
    /// No hook or person approved it.
    NotApproved,
    /// The person said no.
    UserDenied,
    /// A hook deferred it to the caller.
    Deferred,
    /// A hook skipped it.
    Skipped,
    /// The turn ended before it ran.
    Interrupted,
}

impl ToolOutcome {
    /// The snake_case name, as reports and `--format json` print it.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolOutcome::Executed => "executed",
            ToolOutcome::Responded => "responded",
            ToolOutcome::Denied => "denied",
            ToolOutcome::ApprovalDenied => "approval_denied",
            ToolOutcome::NotApproved => "not_approved",
            ToolOutcome::UserDenied => "user_denied",
            ToolOutcome::Deferred => "deferred",
            ToolOutcome::Skipped => "skipped",
            ToolOutcome::Interrupted => "interrupted",
        }
    }
}

impl std::fmt::Display for ToolOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ToolOutcome {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What one turn did.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnReport {
    /// `<agent>-turn-<n>`.
    pub turn_id: String,
    /// How the turn ended.
    pub status: TurnStatus,
    /// The assistant's final answer (after `post_llm_response` rewrites); empty when dropped or
    /// when the response was delivered as media.
    pub reply: String,
    /// Every event reached, in order, with the hooks' decisions.
    pub events: Vec<FiredEvent>,
    /// `system_message` notices from hooks, and the loop's own notices, in order.
    pub notices: Vec<String>,
    /// `for_user` texts of tool results (not silent).
    pub for_user: Vec<String>,
    /// Tool calls, in order.
    pub tools: Vec<ToolRecord>,
    /// Media delivered to the caller (results with `response_handled`).
    pub media: Vec<MediaItem>,
    /// Model calls made (summaries for compaction included in `usage`, not here).
    pub rounds: u32,
    /// Token counts summed over the turn's model calls.
    pub usage: Usage,
    /// Wall time of the turn.
    pub duration: Duration,
}

impl TurnReport {
    pub(crate) fn new(turn_id: String) -> Self {
        TurnReport {
            turn_id,
            status: TurnStatus::Completed,
            reply: String::new(),
            events: Vec::new(),
            notices: Vec::new(),
            for_user: Vec::new(),
            tools: Vec::new(),
            media: Vec::new(),
            rounds: 0,
            usage: Usage::default(),
            duration: Duration::ZERO,
        }
    }

    /// The events as lines (`FiredEvent`'s `Display`), for logs and snapshots.
    pub fn event_lines(&self) -> Vec<String> {
        self.events.iter().map(ToString::to_string).collect()
    }

    /// The events reached, in order.
    pub fn event_names(&self) -> Vec<Event> {
        self.events.iter().map(|e| e.event).collect()
    }

    /// The first fired `event`, if any.
    pub fn first(&self, event: Event) -> Option<&FiredEvent> {
        self.events.iter().find(|e| e.event == event)
    }

    /// How many times `event` was reached.
    pub fn count(&self, event: Event) -> usize {
        self.events.iter().filter(|e| e.event == event).count()
    }
}

/// Something that happened during a turn, delivered to [`crate::Session::on_event`] listeners as
/// it happens.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TurnEvent {
    /// The turn started.
    TurnStarted {
        /// `<agent>-turn-<n>`.
        turn_id: String,
    },
    /// Hooks are about to run on an event (sent only when some are registered on it); the
    /// matching [`TurnEvent::Fired`] follows when they are done.
    Firing {
        /// The event.
        event: Event,
        /// The tool, for tool events.
        tool_name: Option<String>,
    },
    /// An event was fired (or reached with no hooks).
    Fired(FiredEvent),
    /// A request went to the model; the answer (or the failure) comes next.
    ModelRequested {
        /// The round of the turn.
        round: u32,
        /// `reply` (the turn's own request) or `summary` (auto compaction).
        purpose: &'static str,
    },
    /// A hook's `system_message`, or a notice of the loop.
    Notice(String),
    /// A tool is about to run.
    ToolStarted {
        /// The tool.
        name: String,
        /// Its arguments (JSON text).
        arguments: String,
    },
    /// A tool call ended (ran, or was answered by a hook).
    ToolFinished {
        /// The tool.
        name: String,
        /// Its result.
        result: ToolResult,
    },
    /// A tool call did not run.
    ToolSkipped {
        /// The tool.
        name: String,
        /// Why (the text the model is given).
        reason: String,
    },
    /// Media were delivered to the caller.
    MediaDelivered(MediaItem),
    /// Steering messages went into the conversation.
    SteeringInjected {
        /// How many.
        count: usize,
    },
    /// The model answered.
    AssistantText(String),
    /// A piece of the model's text as it streams in (only with
    /// [`crate::AgentBuilder::streaming`]); [`TurnEvent::AssistantText`] still follows with the
    /// whole text, as `post_llm_response` left it.
    AssistantDelta(String),
}
