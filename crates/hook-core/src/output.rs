//! What one hook returns, in the engine's own terms, whatever its dialect.

use std::fmt;

use hook_protocol::{
    ChatMessage, Context, Event, HookResult, ToolResult,
    jcli::JcliAction,
    serde_json::{Map, Value},
};

/// A control-flow decision. `None` in [`HookOutput::action`] means continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Action {
    /// Halt the current step (j-cli `stop`).
    Stop,
    /// Skip the current step; siblings go on (j-cli `skip`).
    Skip,
    /// Refuse this tool call (PicoClaw `deny_tool`).
    DenyTool,
    /// Answer this tool call with [`HookOutput::respond`] (PicoClaw `respond`).
    Respond,
    /// End the turn with an error carrying the reason.
    AbortTurn,
    /// End the turn and roll back its history.
    HardAbort,
}

impl Action {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Stop => "stop",
            Action::Skip => "skip",
            Action::DenyTool => "deny_tool",
            Action::Respond => "respond",
            Action::AbortTurn => "abort_turn",
            Action::HardAbort => "hard_abort",
        }
    }
}

/// A tool call's permission decision short of a denial (a denial is [`Action::DenyTool`]).
///
/// Claude Code's `permissionDecision`; several hooks combine by precedence deny > defer > ask >
/// allow, which is this type's order (`Defer` is the greatest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Permission {
    /// Run the call without asking.
    Allow,
    /// Ask the person, whatever the permission rules say.
    Ask,
    /// Leave the call pending for the caller (Claude Code's `-p` mode ends the run).
    Defer,
}

impl Permission {
    /// `allow`, `ask` or `defer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Ask => "ask",
            Permission::Defer => "defer",
        }
    }
}

/// `ContextPatch`, `Field` and their per-field code, from the one list of replaceable context
/// fields ([`hook_protocol::for_each_context_field!`]).
macro_rules! context_fields {
    ($(($name:ident, $variant:ident, $ty:ty, $doc:literal)),* $(,)?) => {
        /// Replacements for context fields; a field left `None` stays as it was.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct ContextPatch {
            $(
                #[doc = concat!("New ", $doc, ".")]
                pub $name: Option<$ty>,
            )*
        }

        /// A field of [`Context`] that hooks may replace.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Field {
            $(
                #[doc = concat!("`", stringify!($name), "`")]
                $variant,
            )*
        }

        /// How many fields hooks may replace.
        const N_FIELDS: usize = [$(stringify!($name)),*].len();

        impl Field {
            /// Every replaceable field.
            pub const ALL: [Field; N_FIELDS] = [$(Field::$variant),*];

            /// The context member's name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Field::$variant => stringify!($name),)*
                }
            }
        }

        impl ContextPatch {
            /// Whether the patch replaces nothing.
            pub fn is_empty(&self) -> bool {
                true $(&& self.$name.is_none())*
            }

            /// Whether the patch sets `field`.
            pub fn sets(&self, field: Field) -> bool {
                match field {
                    $(Field::$variant => self.$name.is_some(),)*
                }
            }

            /// Drops `field` from the patch.
            pub fn clear(&mut self, field: Field) {
                match field {
                    $(Field::$variant => self.$name = None,)*
                }
            }

            /// Writes every set field into `context`, noting in `changed` those whose value changed.
            fn apply_fields(self, context: &mut Context, changed: &mut Vec<Field>) {
                $(put(&mut context.$name, self.$name, Field::$variant, changed);)*
            }
        }
    };
}

hook_protocol::for_each_context_field!(context_fields);

/// Writes `value`, when set, into `slot`; notes `field` when the value changed.
fn put<T: PartialEq>(slot: &mut Option<T>, value: Option<T>, field: Field, changed: &mut Vec<Field>) {
    if let Some(value) = value {
        if slot.as_ref() != Some(&value) {
            changed.push(field);
        }
        *slot = Some(value);
    }
}

impl ContextPatch {
    /// The fields the patch sets.
    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        Field::ALL.into_iter().filter(|field| self.sets(*field))
    }

    /// Writes every set field into `context`; returns the fields whose value actually changed.
    pub fn apply(self, context: &mut Context) -> Vec<Field> {
        let mut changed = Vec::new();
        self.apply_fields(context, &mut changed);
        if changed.contains(&Field::ToolResult) {
            // The agent's structured response described the result a hook just replaced.
            context.extra.remove("tool_response");
        }
        changed
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one hook returned: a decision, field replacements and effects.
///
/// The engine merges outputs along the chain: replacements pipeline into the context,
/// `inject_messages`, `additional_context` and `system_message` accumulate, `retry_feedback`
/// is last-writer-wins, and a halting action ends the chain.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutput {
    /// The decision; `None` continues.
    pub action: Option<Action>,
    /// Why (denials, aborts, approval decisions).
    pub reason: Option<String>,
    /// Field replacements.
    pub patch: ContextPatch,
    /// Messages to append to the conversation.
    pub inject_messages: Vec<ChatMessage>,
    /// Text to append to the system prompt.
    pub additional_context: Option<String>,
    /// A notice for the user.
    pub system_message: Option<String>,
    /// Feedback for another round.
    pub retry_feedback: Option<String>,
    /// `approve_tool`: `Some(false)` denies, `Some(true)` approves, `None` has no objection.
    pub approved: Option<bool>,
    /// The tool's result when `action` is [`Action::Respond`].
    pub respond: Option<ToolResult>,
    /// `pre_tool_execution`: allow, ask or defer (see [`Permission`]).
    pub permission: Option<Permission>,
    /// Members of an agent's answer hookwire passes through without interpreting them
    /// (Claude Code's `hookSpecificOutput.sessionTitle`, `watchPaths`, ...).
    pub agent_output: Map<String, Value>,
    /// Members of the answer its dialect does not have (a typo such as `aproved`): noted in the
    /// trace; on `approve_tool` they make the answer invalid, so the approval fails closed.
    pub unknown_fields: Vec<String>,
}

impl HookOutput {
    /// Whether the output changes and decides nothing.
    pub fn is_no_change(&self) -> bool {
        self.action.is_none()
            && self.patch.is_empty()
            && self.inject_messages.is_empty()
            && self.additional_context.is_none()
            && self.system_message.is_none()
            && self.retry_feedback.is_none()
            && self.approved.is_none()
            && self.respond.is_none()
            && self.permission.is_none()
            && self.agent_output.is_empty()
    }

    /// Skips the current step, with a reason.
    pub fn skip(reason: impl Into<String>) -> Self {
        HookOutput { action: Some(Action::Skip), reason: Some(reason.into()), ..HookOutput::default() }
    }

    /// Refuses the tool call (or, on `approve_tool`, denies it), with a reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        HookOutput { action: Some(Action::DenyTool), reason: Some(reason.into()), ..HookOutput::default() }
    }

    /// Replaces the tool call's arguments (JSON text).
    pub fn with_tool_arguments(arguments: impl Into<String>) -> Self {
        let mut output = HookOutput::default();
        output.patch.tool_arguments = Some(arguments.into());
        output
    }

    /// Reads a j-cli `HookResult` (from a bash or llm hook) for `event`.
    ///
    /// `tool_result` text replaces the result's `for_llm` and keeps its other members;
    /// `"action": "stop"` on `approve_tool` is a denial.
    pub fn from_hook_result(result: HookResult, event: Event, context: &Context) -> HookOutput {
        let action = match result.action {
            None => None,
            Some(JcliAction::Stop) => Some(Action::Stop),
            Some(JcliAction::Skip) => Some(Action::Skip),
        };
        let approved = match (event, result.approved, action) {
            (Event::ApproveTool, Some(approved), _) => Some(approved),
            (Event::ApproveTool, None, Some(Action::Stop)) => Some(false),
            (_, approved, _) => approved,
        };
        let tool_result = result.tool_result.map(|text| {
            let mut merged = context.tool_result.clone().unwrap_or_default();
            merged.for_llm = text;
            merged
        });
        HookOutput {
            action,
            reason: result.reason,
            patch: ContextPatch {
                user_input: result.user_input,
                messages: result.messages,
                system_prompt: result.system_prompt,
                assistant_output: result.assistant_output,
                tool_arguments: result.tool_arguments,
                tool_result,
                tool_error: result.tool_error,
                ..ContextPatch::default()
            },
            inject_messages: result.inject_messages.unwrap_or_default(),
            additional_context: result.additional_context,
            system_message: result.system_message,
            retry_feedback: result.retry_feedback,
            approved,
            respond: None,
            permission: None,
            agent_output: Map::new(),
            unknown_fields: result.unknown_fields,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_the_replaceable_context_members_in_order() {
        assert_eq!(Field::ALL.map(Field::as_str), Context::REPLACEABLE);
        let mut sorted = Field::ALL;
        sorted.sort();
        assert_eq!(sorted, Field::ALL, "Field's order is the list's order");
    }

    #[test]
    fn a_patch_applies_each_field_it_sets() {
        let patch = ContextPatch {
            user_input: Some("hi".into()),
            tool_result: Some(ToolResult::text("ok")),
            tool_error: Some("failed".into()),
            ..ContextPatch::default()
        };
        assert_eq!(patch.fields().collect::<Vec<_>>(), [Field::UserInput, Field::ToolResult, Field::ToolError]);
        let mut cleared = patch.clone();
        cleared.clear(Field::ToolError);
        assert!(!cleared.sets(Field::ToolError) && cleared.sets(Field::UserInput));
        let mut context = Context { tool_error: Some("failed".into()), ..Context::default() };
        context.extra.insert("tool_response".into(), Value::from("stale"));
        assert_eq!(patch.apply(&mut context), [Field::UserInput, Field::ToolResult]);
        assert_eq!(context.user_input.as_deref(), Some("hi"));
        assert!(context.extra.is_empty(), "a replaced result drops the agent's structured response");
        assert!(ContextPatch::default().is_empty());
    }
}
