//! What a fire returns: the combined decision, the effects hooks accumulated, and one trace
//! record per hook.

use std::{fmt, time::Duration};

use hook_protocol::{
    ChatMessage, Event, ToolResult,
    serde_json::{Map, Value},
};

use crate::{Action, Field, HookError, HookId, OutcomeClass, Permission};

/// The combined decision of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Decision {
    /// Go on as normal.
    Continue,
    /// Halt the current step.
    Stop,
    /// Skip the current step.
    Skip,
    /// Refuse the tool call.
    DenyTool,
    /// Answer the tool call with [`FireOutcome::respond`].
    Respond,
    /// End the turn with [`FireOutcome::reason`].
    AbortTurn,
    /// End the turn and roll back its history.
    HardAbort,
    /// `approve_tool`: no approver objected.
    Approved,
    /// `approve_tool`: an approver denied (or failed closed).
    Denied,
}

impl Decision {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Continue => "continue",
            Decision::Stop => "stop",
            Decision::Skip => "skip",
            Decision::DenyTool => "deny_tool",
            Decision::Respond => "respond",
            Decision::AbortTurn => "abort_turn",
            Decision::HardAbort => "hard_abort",
            Decision::Approved => "approved",
            Decision::Denied => "denied",
        }
    }

    /// Whether the decision ends the chain.
    pub fn is_halt(self) -> bool {
        !matches!(self, Decision::Continue | Decision::Approved)
    }

    pub(crate) fn from_action(action: Action) -> Decision {
        match action {
            Action::Stop => Decision::Stop,
            Action::Skip => Decision::Skip,
            Action::DenyTool => Decision::DenyTool,
            Action::Respond => Decision::Respond,
            Action::AbortTurn => Decision::AbortTurn,
            Action::HardAbort => Decision::HardAbort,
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What hooks asked for besides field changes, accumulated along the chain.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effects {
    /// Messages to append to the conversation, in chain order.
    pub inject_messages: Vec<ChatMessage>,
    /// Text to append to the system prompt, in chain order.
    pub additional_context: Vec<String>,
    /// Notices for the user, in chain order.
    pub system_messages: Vec<String>,
    /// Feedback for another round; the last hook that set it wins.
    pub retry_feedback: Option<String>,
    /// Agent answer members passed through (see [`crate::HookOutput::agent_output`]); a later
    /// hook's member replaces an earlier one's.
    pub agent_output: Map<String, Value>,
}

impl Effects {
    /// Whether no hook asked for anything.
    pub fn is_empty(&self) -> bool {
        *self == Effects::default()
    }
}

/// Something a hook returned that its event cannot honour, so the chain ignored it.
///
/// Displays (and compares equal to) its name as traces print it: the field's name, `respond`,
/// `permission allow`, ``unknown field `acton` ``.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dropped {
    /// A replacement of a field the event does not let hooks change.
    Field(Field),
    /// `inject_messages`.
    InjectMessages,
    /// `additional_context`.
    AdditionalContext,
    /// `retry_feedback`.
    RetryFeedback,
    /// A permission outside `pre_tool_execution`.
    Permission(Permission),
    /// An action the event does not honour.
    Action(Action),
    /// `approved` outside `approve_tool`.
    Approved,
    /// A `respond` result without the `respond` action, or a `respond` the hook may not give.
    Respond,
    /// A member the answer's dialect does not have (a typo such as `aproved`).
    UnknownField(String),
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dropped::Field(field) => f.write_str(field.as_str()),
            Dropped::InjectMessages => f.write_str("inject_messages"),
            Dropped::AdditionalContext => f.write_str("additional_context"),
            Dropped::RetryFeedback => f.write_str("retry_feedback"),
            Dropped::Permission(permission) => write!(f, "permission {}", permission.as_str()),
            Dropped::Action(action) => f.write_str(action.as_str()),
            Dropped::Approved => f.write_str("approved"),
            Dropped::Respond => f.write_str("respond"),
            Dropped::UnknownField(name) => write!(f, "unknown field `{name}`"),
        }
    }
}

impl PartialEq<str> for Dropped {
    /// Compares by the displayed name, without allocating.
    fn eq(&self, other: &str) -> bool {
        match self {
            Dropped::Field(field) => field.as_str() == other,
            Dropped::InjectMessages => other == "inject_messages",
            Dropped::AdditionalContext => other == "additional_context",
            Dropped::RetryFeedback => other == "retry_feedback",
            Dropped::Permission(permission) => {
                other.strip_prefix("permission ").is_some_and(|rest| rest == permission.as_str())
            }
            Dropped::Action(action) => action.as_str() == other,
            Dropped::Approved => other == "approved",
            Dropped::Respond => other == "respond",
            Dropped::UnknownField(name) => other
                .strip_prefix("unknown field `")
                .and_then(|rest| rest.strip_suffix('`'))
                .is_some_and(|rest| rest == name),
        }
    }
}

impl PartialEq<&str> for Dropped {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for Dropped {
    fn eq(&self, other: &String) -> bool {
        *self == *other.as_str()
    }
}

/// One hook's part in a fire.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEntry {
    /// The hook's stable id.
    pub id: HookId,
    /// How its run ended (`filtered` / `disabled` when it did not run).
    pub outcome: OutcomeClass,
    /// The action it returned that took effect.
    pub action: Option<Action>,
    /// Fields whose value it changed.
    pub changed: Vec<Field>,
    /// Changes and actions it returned that this event cannot honour; they were ignored. Each
    /// displays as its name (`tool_name`, `respond`, `unknown field `acton``).
    pub dropped: Vec<Dropped>,
    /// Attempts made (0 when it did not run).
    pub attempts: u32,
    /// Time spent, retries and backoff included.
    pub duration: Duration,
    /// The last error, when it failed.
    pub error: Option<HookError>,
    /// Why it did not run, when it was filtered out: the filter member, matcher or `if` rule
    /// that failed and the value it was compared with (`tool_matcher "Bash" did not match tool
    /// "bash"`).
    pub reason: Option<String>,
}

impl TraceEntry {
    pub(crate) fn not_run(id: HookId, outcome: OutcomeClass) -> Self {
        TraceEntry {
            id,
            outcome,
            action: None,
            changed: Vec::new(),
            dropped: Vec::new(),
            attempts: 0,
            duration: Duration::ZERO,
            error: None,
            reason: None,
        }
    }
}

/// The result of [`crate::Engine::fire`].
#[derive(Debug, Clone, PartialEq)]
pub struct FireOutcome {
    /// The event fired.
    pub event: Event,
    /// The combined decision.
    pub decision: Decision,
    /// Why (denials, aborts, failures that halted the chain).
    pub reason: Option<String>,
    /// The tool result to use when `decision` is [`Decision::Respond`].
    pub respond: Option<ToolResult>,
    /// `pre_tool_execution`: the strongest allow / ask / defer any hook gave (a denial is
    /// [`Decision::DenyTool`]).
    pub permission: Option<Permission>,
    /// Why: the reason the hook that gave [`FireOutcome::permission`] gave with it (an `ask`
    /// rule's "this push rewrites history"), for the agent to show the person.
    pub permission_reason: Option<String>,
    /// Fields the chain changed in the context, each once, in order of first change.
    pub changed: Vec<Field>,
    /// Effects accumulated along the chain.
    pub effects: Effects,
    /// One record per hook registered on the event, in run order (hooks after a halt are absent).
    pub trace: Vec<TraceEntry>,
}

impl FireOutcome {
    /// The outcome of a chain where nothing ran: `Approved` for `approve_tool`, else `Continue`.
    /// Allocates nothing.
    pub fn empty(event: Event) -> Self {
        let decision = if crate::capability(event).is_approval { Decision::Approved } else { Decision::Continue };
        FireOutcome {
            event,
            decision,
            reason: None,
            respond: None,
            permission: None,
            permission_reason: None,
            changed: Vec::new(),
            effects: Effects::default(),
            trace: Vec::new(),
        }
    }

    /// The hook whose change of `field` stands: the last one that changed it.
    pub fn changed_by(&self, field: Field) -> Option<&HookId> {
        self.trace.iter().rev().find(|entry| entry.changed.contains(&field)).map(|entry| &entry.id)
    }

    /// Whether the chain halted (any decision but `Continue` and `Approved`).
    pub fn is_halted(&self) -> bool {
        self.decision.is_halt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_displays_and_compares_as_its_trace_name() {
        let cases = [
            (Dropped::Field(Field::ToolName), "tool_name"),
            (Dropped::InjectMessages, "inject_messages"),
            (Dropped::AdditionalContext, "additional_context"),
            (Dropped::RetryFeedback, "retry_feedback"),
            (Dropped::Permission(Permission::Ask), "permission ask"),
            (Dropped::Action(Action::HardAbort), "hard_abort"),
            (Dropped::Approved, "approved"),
            (Dropped::Respond, "respond"),
            (Dropped::UnknownField("acton".into()), "unknown field `acton`"),
        ];
        for (dropped, name) in &cases {
            assert_eq!(dropped.to_string(), *name);
            assert_eq!(dropped, name);
            assert_eq!(*dropped, name.to_string());
            for (other, other_name) in &cases {
                assert_eq!(dropped == other_name, dropped == other, "{dropped} vs {other}");
            }
        }
        assert_ne!(Dropped::Permission(Permission::Allow), "permission ask");
        assert_ne!(Dropped::UnknownField("a".into()), "unknown field `a");
    }
}
