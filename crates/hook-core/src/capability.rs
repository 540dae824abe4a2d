//! The event table of docs/design.md as data: what each event lets hooks change and which
//! actions take effect. The chain drops (and notes in the trace) anything an event cannot
//! honour; config loading warns about filters that can never match.

use hook_protocol::Event;

use crate::{Action, Field};

/// What hooks may do on one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capability {
    /// Context fields a hook may replace.
    pub may_change: &'static [Field],
    /// Halting actions that take effect.
    pub actions: &'static [Action],
    /// `inject_messages` is honoured.
    pub inject_messages: bool,
    /// `additional_context` is honoured.
    pub additional_context: bool,
    /// `retry_feedback` is honoured.
    pub retry_feedback: bool,
    /// The event is a tool call's: `tool_name` and `tool_arguments` are filled, tool filters apply.
    pub is_tool_event: bool,
    /// The event is an approval: hooks answer approved / denied.
    pub is_approval: bool,
}

impl Capability {
    /// Whether nothing a hook returns can change the outcome: such events run their hooks
    /// concurrently.
    pub fn is_notify_only(&self) -> bool {
        self.may_change.is_empty()
            && self.actions.is_empty()
            && !self.inject_messages
            && !self.additional_context
            && !self.retry_feedback
            && !self.is_approval
    }

    /// Whether `action` takes effect on this event.
    pub fn allows(&self, action: Action) -> bool {
        self.actions.contains(&action)
    }

    /// Whether `field` may be replaced on this event.
    pub fn may_change(&self, field: Field) -> bool {
        self.may_change.contains(&field)
    }
}

const NOTHING: Capability = Capability {
    may_change: &[],
    actions: &[],
    inject_messages: false,
    additional_context: false,
    retry_feedback: false,
    is_tool_event: false,
    is_approval: false,
};

/// `stop` blocks the step (its reason goes to the model); `abort_turn` is Claude Code's
/// `continue: false`.
const STOP_OR_ABORT: &[Action] = &[Action::Stop, Action::AbortTurn, Action::HardAbort];

/// Events whose only decision is to block the step.
const BLOCKS: Capability = Capability { actions: &[Action::Stop], ..NOTHING };

const TABLE: [Capability; Event::ALL.len()] = [
    // session_start
    Capability { actions: &[Action::AbortTurn], additional_context: true, ..NOTHING },
    // session_end
    NOTHING,
    // pre_send_message
    Capability {
        may_change: &[Field::UserInput],
        actions: &[Action::Stop, Action::AbortTurn],
        additional_context: true,
        retry_feedback: true,
        ..NOTHING
    },
    // post_send_message
    NOTHING,
    // pre_llm_request
    Capability {
        may_change: &[Field::Messages, Field::SystemPrompt, Field::Model, Field::Tools, Field::Options],
        actions: &[Action::Stop, Action::AbortTurn, Action::HardAbort],
        inject_messages: true,
        additional_context: true,
        ..NOTHING
    },
    // post_llm_response
    Capability {
        may_change: &[Field::AssistantOutput, Field::ToolCalls],
        actions: &[Action::Stop, Action::AbortTurn, Action::HardAbort],
        retry_feedback: true,
        ..NOTHING
    },
    // pre_tool_execution
    Capability {
        may_change: &[Field::ToolName, Field::ToolArguments],
        actions: &[Action::Skip, Action::DenyTool, Action::Respond, Action::Stop, Action::AbortTurn, Action::HardAbort],
        additional_context: true,
        is_tool_event: true,
        ..NOTHING
    },
    // approve_tool: an approver may rewrite the call it approves (Claude Code's `updatedInput`).
    Capability { may_change: &[Field::ToolArguments], is_tool_event: true, is_approval: true, ..NOTHING },
    // post_tool_execution: `stop` is Claude Code's `decision: block` (the reason goes to the model).
    Capability {
        may_change: &[Field::ToolResult],
        actions: STOP_OR_ABORT,
        additional_context: true,
        is_tool_event: true,
        ..NOTHING
    },
    // post_tool_execution_failure
    Capability {
        may_change: &[Field::ToolError],
        actions: STOP_OR_ABORT,
        additional_context: true,
        is_tool_event: true,
        ..NOTHING
    },
    // stop
    Capability {
        actions: &[Action::Stop, Action::AbortTurn],
        additional_context: true,
        retry_feedback: true,
        ..NOTHING
    },
    // pre_micro_compact
    Capability { actions: &[Action::Stop], ..NOTHING },
    // post_micro_compact
    Capability { may_change: &[Field::Messages], ..NOTHING },
    // pre_auto_compact
    Capability { actions: &[Action::Stop], additional_context: true, ..NOTHING },
    // post_auto_compact
    Capability { may_change: &[Field::Messages], ..NOTHING },
    // permission_denied
    Capability { is_tool_event: true, ..NOTHING },
    // notification
    NOTHING,
    // subagent_start
    Capability { additional_context: true, ..NOTHING },
    // subagent_stop
    Capability {
        actions: &[Action::Stop, Action::AbortTurn],
        additional_context: true,
        retry_feedback: true,
        ..NOTHING
    },
    // stop_failure
    NOTHING,
    // post_tool_batch
    Capability { actions: STOP_OR_ABORT, additional_context: true, ..NOTHING },
    // setup
    Capability { additional_context: true, ..NOTHING },
    // user_prompt_expansion
    Capability { actions: &[Action::Stop, Action::AbortTurn], additional_context: true, ..NOTHING },
    // instructions_loaded
    NOTHING,
    // config_change
    BLOCKS,
    // cwd_changed
    NOTHING,
    // file_changed
    NOTHING,
    // directory_added
    NOTHING,
    // task_created
    BLOCKS,
    // task_completed
    Capability { actions: STOP_OR_ABORT, ..NOTHING },
    // teammate_idle
    Capability { actions: STOP_OR_ABORT, ..NOTHING },
    // worktree_create
    BLOCKS,
    // worktree_remove
    NOTHING,
    // elicitation
    BLOCKS,
    // elicitation_result
    BLOCKS,
    // message_display
    NOTHING,
    // pre_model_switch
    BLOCKS,
    // post_model_switch
    NOTHING,
    // pre_tool_selection
    Capability { may_change: &[Field::Tools], actions: STOP_OR_ABORT, ..NOTHING },
    // error_occurred: Copilot CLI reads nothing back from its errorOccurred hooks.
    NOTHING,
];

/// What hooks may do on `event`.
pub fn capability(event: Event) -> &'static Capability {
    &TABLE[event.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_design() {
        let notify_only: Vec<Event> = Event::ALL.into_iter().filter(|e| capability(*e).is_notify_only()).collect();
        assert_eq!(
            notify_only,
            [
                Event::SessionEnd,
                Event::PostSendMessage,
                Event::PermissionDenied,
                Event::Notification,
                Event::StopFailure,
                Event::InstructionsLoaded,
                Event::CwdChanged,
                Event::FileChanged,
                Event::DirectoryAdded,
                Event::WorktreeRemove,
                Event::MessageDisplay,
                Event::PostModelSwitch,
                Event::ErrorOccurred,
            ]
        );
        // Claude Code's SessionStart hooks answer with context: they run in order.
        assert!(capability(Event::SessionStart).additional_context);
        assert!(capability(Event::PreToolExecution).allows(Action::Respond));
        assert!(!capability(Event::PostToolExecution).allows(Action::Respond));
        assert!(capability(Event::PostToolExecutionFailure).may_change(Field::ToolError));
        assert!(capability(Event::ApproveTool).is_approval);
        let tool_events: Vec<Event> = Event::ALL.into_iter().filter(|e| capability(*e).is_tool_event).collect();
        assert_eq!(
            tool_events,
            [
                Event::PreToolExecution,
                Event::ApproveTool,
                Event::PostToolExecution,
                Event::PostToolExecutionFailure,
                Event::PermissionDenied,
            ]
        );
    }
}
