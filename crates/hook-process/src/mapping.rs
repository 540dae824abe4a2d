//! The mapping between hookwire events and PicoClaw methods: which method an event calls, the
//! params built from the [`Context`], and how a result becomes a [`HookOutput`].

use std::sync::Arc;

use hook_core::{Action, HookError, HookInput, HookOutput};
use hook_protocol::{
    Context, Event, HookResult, Meta, ToolResult, from_json_value,
    picoclaw::{
        self, AfterLlmParams, AfterLlmResult, AfterToolParams, AfterToolPatch, AfterToolResult, ApproveToolParams,
        ApproveToolResult, BeforeLlmParams, BeforeLlmResult, BeforeToolParams, BeforeToolResult, LlmResponse, Mode,
        method,
    },
    serde_json::{self, Value},
};

/// Which method an event calls and the mode that enables it (`None`: a j-cli event, sent when
/// the hook lists it in `intercept`).
pub(crate) fn route(event: Event) -> (&'static str, Option<Mode>) {
    match event {
        Event::PreLlmRequest => (method::BEFORE_LLM, Some(Mode::Llm)),
        Event::PostLlmResponse => (method::AFTER_LLM, Some(Mode::Llm)),
        Event::PreToolExecution => (method::BEFORE_TOOL, Some(Mode::Tool)),
        Event::PostToolExecution | Event::PostToolExecutionFailure => (method::AFTER_TOOL, Some(Mode::Tool)),
        Event::ApproveTool => (method::APPROVE_TOOL, Some(Mode::Approve)),
        Event::SessionStart => ("hook.session_start", None),
        Event::SessionEnd => ("hook.session_end", None),
        Event::PreSendMessage => ("hook.pre_send_message", None),
        Event::PostSendMessage => ("hook.post_send_message", None),
        Event::Stop => ("hook.stop", None),
        Event::PreMicroCompact => ("hook.pre_micro_compact", None),
        Event::PostMicroCompact => ("hook.post_micro_compact", None),
        Event::PreAutoCompact => ("hook.pre_auto_compact", None),
        Event::PostAutoCompact => ("hook.post_auto_compact", None),
        Event::PermissionDenied => ("hook.permission_denied", None),
        Event::Notification => ("hook.notification", None),
        Event::SubagentStart => ("hook.subagent_start", None),
        Event::SubagentStop => ("hook.subagent_stop", None),
        Event::StopFailure => ("hook.stop_failure", None),
        Event::PostToolBatch => ("hook.post_tool_batch", None),
        Event::Setup => ("hook.setup", None),
        Event::UserPromptExpansion => ("hook.user_prompt_expansion", None),
        Event::InstructionsLoaded => ("hook.instructions_loaded", None),
        Event::ConfigChange => ("hook.config_change", None),
        Event::CwdChanged => ("hook.cwd_changed", None),
        Event::FileChanged => ("hook.file_changed", None),
        Event::DirectoryAdded => ("hook.directory_added", None),
        Event::TaskCreated => ("hook.task_created", None),
        Event::TaskCompleted => ("hook.task_completed", None),
        Event::TeammateIdle => ("hook.teammate_idle", None),
        Event::WorktreeCreate => ("hook.worktree_create", None),
        Event::WorktreeRemove => ("hook.worktree_remove", None),
        Event::Elicitation => ("hook.elicitation", None),
        Event::ElicitationResult => ("hook.elicitation_result", None),
        Event::MessageDisplay => ("hook.message_display", None),
        Event::PreModelSwitch => ("hook.pre_model_switch", None),
        Event::PostModelSwitch => ("hook.post_model_switch", None),
        Event::PreToolSelection => ("hook.pre_tool_selection", None),
    }
}

/// The modes the hello offers for a hook's events, in PicoClaw's order.
pub(crate) fn modes_for(events: &[Event], observes: bool) -> Vec<Mode> {
    let mut modes = Vec::new();
    if observes {
        modes.push(Mode::Observe);
    }
    for mode in [Mode::Llm, Mode::Tool, Mode::Approve] {
        if events.iter().any(|event| route(*event).1 == Some(mode)) {
            modes.push(mode);
        }
    }
    modes
}

/// `meta` with all seven keys, as PicoClaw writes it; absent when the context has none.
fn full_meta(context: &Context) -> Option<Meta> {
    context.meta.as_ref().map(|meta| Meta {
        agent_id: Some(meta.agent_id.clone().unwrap_or_default()),
        turn_id: Some(meta.turn_id.clone().unwrap_or_default()),
        parent_turn_id: Some(meta.parent_turn_id.clone().unwrap_or_default()),
        session_key: Some(meta.session_key.clone().unwrap_or_default()),
        iteration: Some(meta.iteration.unwrap_or(0)),
        trace_path: Some(meta.trace_path.clone().unwrap_or_default()),
        source: Some(meta.source.clone().unwrap_or_default()),
    })
}

/// The result `after_tool` carries: the tool's result, or for the failure event the error text
/// with `is_error: true`.
fn sent_tool_result(event: Event, context: &Context) -> ToolResult {
    let mut result = context.tool_result.clone().unwrap_or_default();
    if event == Event::PostToolExecutionFailure {
        if let Some(error) = &context.tool_error {
            result.for_llm = error.clone();
        }
        result.is_error = Some(true);
    }
    result.complete()
}

fn to_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    // The params types hold only strings, numbers, maps and sequences: serializing cannot fail.
    serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec())
}

/// The serialized params of `input`'s event, shared by every process hook of the same event.
pub(crate) fn params(input: &HookInput<'_>) -> Arc<[u8]> {
    match input.event {
        Event::PreLlmRequest => input.serialized("picoclaw.before_llm", |_, c| {
            to_bytes(&BeforeLlmParams {
                meta: full_meta(c),
                model: c.model.clone(),
                messages: c.messages.clone(),
                tools: c.tools.clone(),
                options: c.options.clone(),
                channel: c.channel.clone(),
                chat_id: c.chat_id.clone(),
                ..BeforeLlmParams::default()
            })
        }),
        Event::PostLlmResponse => input.serialized("picoclaw.after_llm", |_, c| {
            to_bytes(&AfterLlmParams {
                meta: full_meta(c),
                model: c.model.clone(),
                response: LlmResponse {
                    role: Some("assistant".into()),
                    content: c.assistant_output.clone(),
                    tool_calls: c.tool_calls.clone(),
                    ..LlmResponse::default()
                },
                channel: c.channel.clone(),
                chat_id: c.chat_id.clone(),
                ..AfterLlmParams::default()
            })
        }),
        Event::PreToolExecution => input.serialized("picoclaw.before_tool", |_, c| {
            to_bytes(&BeforeToolParams {
                meta: full_meta(c),
                tool: c.tool_name.clone().unwrap_or_default(),
                arguments: c.tool_arguments_value(),
                channel: c.channel.clone(),
                chat_id: c.chat_id.clone(),
                ..BeforeToolParams::default()
            })
        }),
        Event::PostToolExecution | Event::PostToolExecutionFailure => {
            input.serialized("picoclaw.after_tool", |event, c| {
                to_bytes(&AfterToolParams {
                    meta: full_meta(c),
                    tool: c.tool_name.clone().unwrap_or_default(),
                    arguments: c.tool_arguments_value(),
                    result: sent_tool_result(event, c),
                    duration: c.duration_ns,
                    channel: c.channel.clone(),
                    chat_id: c.chat_id.clone(),
                    ..AfterToolParams::default()
                })
            })
        }
        Event::ApproveTool => input.serialized("picoclaw.approve_tool", |_, c| {
            to_bytes(&ApproveToolParams {
                meta: full_meta(c),
                tool: c.tool_name.clone().unwrap_or_default(),
                arguments: c.tool_arguments_value(),
                channel: c.channel.clone(),
                chat_id: c.chat_id.clone(),
                ..ApproveToolParams::default()
            })
        }),
        _ => input.hook_context_json(),
    }
}

fn invalid(name: &str, method: &str, error: impl std::fmt::Display, raw: &Value) -> HookError {
    HookError::invalid_output(
        format!(
            "hook `{name}` answered {method} with an unusable result: {error}; see hook-process's docs for the \
             result of each method"
        ),
        &raw.to_string(),
    )
}

/// Reads `raw` as `T` without copying it; on failure, the error names the member.
fn parse<T: serde::de::DeserializeOwned>(name: &str, method: &str, raw: &Value) -> Result<T, HookError> {
    match T::deserialize(raw) {
        Ok(value) => Ok(value),
        Err(_) => match from_json_value::<T>(raw.clone()) {
            Err(e) => Err(invalid(name, method, e, raw)),
            Ok(value) => Ok(value),
        },
    }
}

fn action(name: &str, method: &str, action: picoclaw::Action, raw: &Value) -> Result<Option<Action>, HookError> {
    Ok(match action {
        picoclaw::Action::Continue | picoclaw::Action::Modify => None,
        picoclaw::Action::Respond if method == method::BEFORE_TOOL => Some(Action::Respond),
        picoclaw::Action::Respond => {
            return Err(invalid(name, method, "`respond` is only valid in hook.before_tool", raw));
        }
        picoclaw::Action::DenyTool => Some(Action::DenyTool),
        picoclaw::Action::AbortTurn => Some(Action::AbortTurn),
        picoclaw::Action::HardAbort => Some(Action::HardAbort),
    })
}

/// `Some(new)` when it differs from `old`.
fn changed<T: PartialEq>(new: Option<T>, old: Option<&T>) -> Option<T> {
    new.filter(|new| Some(new) != old)
}

/// Reads a hook's `result` for `event`.
pub(crate) fn output(name: &str, event: Event, context: &Context, raw: Value) -> Result<HookOutput, HookError> {
    let (method, _) = route(event);
    if event == Event::ApproveTool {
        return approval(name, raw);
    }
    if raw.is_null() {
        // PicoClaw keeps the value unchanged when the result is null.
        return Ok(HookOutput::default());
    }
    if !raw.is_object() {
        return Err(invalid(name, method, "expected a JSON object", &raw));
    }
    let mut output = HookOutput::default();
    match event {
        Event::PreLlmRequest => {
            let result: BeforeLlmResult = parse(name, method, &raw)?;
            output.action = action(name, method, result.action, &raw)?;
            output.reason = result.reason;
            if let Some(request) = result.request {
                output.patch.model = changed(request.model, context.model.as_ref());
                output.patch.messages = changed(request.messages, context.messages.as_ref());
                output.patch.tools = changed(request.tools, context.tools.as_ref());
                output.patch.options = changed(request.options, context.options.as_ref());
            }
        }
        Event::PostLlmResponse => {
            let result: AfterLlmResult = parse(name, method, &raw)?;
            output.action = action(name, method, result.action, &raw)?;
            output.reason = result.reason;
            if let Some(patch) = result.response {
                let response = patch.response().clone();
                output.patch.assistant_output = changed(response.content, context.assistant_output.as_ref());
                output.patch.tool_calls = changed(response.tool_calls, context.tool_calls.as_ref());
            }
        }
        Event::PreToolExecution => {
            let result: BeforeToolResult = parse(name, method, &raw)?;
            output.action = action(name, method, result.action, &raw)?;
            output.reason = result.reason;
            if let Some(call) = result.call {
                output.patch.tool_name = changed(call.tool, context.tool_name.as_ref());
                if let Some(arguments) = call.arguments
                    && Some(&arguments) != context.tool_arguments_value().as_ref()
                {
                    output.patch.tool_arguments = Some(match arguments {
                        Value::String(text) => text,
                        other => other.to_string(),
                    });
                }
            }
            if output.action == Some(Action::Respond) {
                match result.result {
                    Some(tool_result) => output.respond = Some(tool_result),
                    None => {
                        return Err(invalid(
                            name,
                            method,
                            "`respond` needs a `result` (the tool's result, e.g. {\"for_llm\": \"...\"})",
                            &raw,
                        ));
                    }
                }
            }
        }
        Event::PostToolExecution | Event::PostToolExecutionFailure => {
            let result: AfterToolResult = parse(name, method, &raw)?;
            output.action = action(name, method, result.action, &raw)?;
            output.reason = result.reason;
            if let Some(patch) = &result.result {
                // Merge member by member into what was sent: a member left out keeps its value.
                let inner = match patch {
                    AfterToolPatch::Envelope(_) => raw.get("result").and_then(|r| r.get("result")),
                    AfterToolPatch::Bare(_) => raw.get("result"),
                };
                let sent = sent_tool_result(event, context);
                let mut merged = serde_json::to_value(&sent).unwrap_or(Value::Null);
                if let (Some(Value::Object(members)), Value::Object(target)) = (inner, &mut merged) {
                    for (key, value) in members {
                        target.insert(key.clone(), value.clone());
                    }
                }
                let merged: ToolResult = from_json_value(merged).map_err(|e| invalid(name, method, e, &raw))?;
                if merged != sent {
                    if event == Event::PostToolExecutionFailure {
                        output.patch.tool_error = changed(Some(merged.for_llm), context.tool_error.as_ref());
                    } else {
                        output.patch.tool_result = Some(merged);
                    }
                }
            }
        }
        _ => {
            let result: HookResult = parse(name, method, &raw)?;
            output = HookOutput::from_hook_result(result, event, context);
        }
    }
    Ok(output)
}

/// `{"approved": bool, "reason"?}`; a missing `approved` denies.
fn approval(name: &str, raw: Value) -> Result<HookOutput, HookError> {
    let result = match &raw {
        Value::Null => ApproveToolResult::default(),
        Value::Object(_) => parse(name, method::APPROVE_TOOL, &raw)?,
        _ => return Err(invalid(name, method::APPROVE_TOOL, "expected {\"approved\": true|false}", &raw)),
    };
    let mut output = HookOutput::default();
    match result.approved {
        Some(approved) => {
            output.approved = Some(approved);
            output.reason = result.reason;
        }
        None => {
            output.approved = Some(false);
            output.reason = Some(format!("approval hook `{name}` returned no `approved` field"));
        }
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_picoclaw_order() {
        let events = [Event::ApproveTool, Event::PreToolExecution, Event::PreLlmRequest];
        assert_eq!(modes_for(&events, true), vec![Mode::Observe, Mode::Llm, Mode::Tool, Mode::Approve]);
        assert_eq!(modes_for(&[Event::PostToolExecutionFailure], false), vec![Mode::Tool]);
        assert!(modes_for(&[Event::Stop], false).is_empty());
    }

    #[test]
    fn call_without_tool_keeps_the_tool() {
        let context = Context {
            tool_name: Some("bash".into()),
            tool_arguments: Some(r#"{"command":"ls"}"#.into()),
            ..Context::default()
        };
        let raw = serde_json::json!({"action": "modify", "call": {"arguments": {"command": "pwd"}}});
        let output = output("h", Event::PreToolExecution, &context, raw).unwrap();
        assert_eq!(output.patch.tool_name, None);
        assert_eq!(output.patch.tool_arguments.as_deref(), Some(r#"{"command":"pwd"}"#));
    }

    #[test]
    fn after_tool_merges_envelope_and_bare() {
        let context = Context {
            tool_name: Some("echo".into()),
            tool_result: Some(ToolResult { for_user: Some("u".into()), ..ToolResult::text("old") }),
            ..Context::default()
        };
        for raw in [
            serde_json::json!({"action": "modify", "result": {"for_llm": "new"}}),
            serde_json::json!({"action": "modify", "result": {"tool": "echo", "result": {"for_llm": "new"}}}),
        ] {
            let output = output("h", Event::PostToolExecution, &context, raw).unwrap();
            let result = output.patch.tool_result.unwrap();
            assert_eq!(result.for_llm, "new");
            assert_eq!(result.for_user.as_deref(), Some("u"));
        }
    }

    #[test]
    fn failure_event_rewrites_tool_error() {
        let context = Context { tool_error: Some("boom".into()), ..Context::default() };
        let raw = serde_json::json!({"action": "modify", "result": {"for_llm": "boom (retry later)"}});
        let output = output("h", Event::PostToolExecutionFailure, &context, raw).unwrap();
        assert_eq!(output.patch.tool_error.as_deref(), Some("boom (retry later)"));
        assert!(output.patch.tool_result.is_none());
    }

    #[test]
    fn respond_without_result_is_invalid() {
        let raw = serde_json::json!({"action": "respond"});
        let error = output("plug", Event::PreToolExecution, &Context::default(), raw).unwrap_err();
        assert!(matches!(&error, HookError::InvalidOutput { message, .. } if message.contains("`plug`")), "{error}");
    }

    #[test]
    fn approval_without_approved_denies() {
        let output = output("gate", Event::ApproveTool, &Context::default(), serde_json::json!({})).unwrap();
        assert_eq!(output.approved, Some(false));
        assert_eq!(output.reason.as_deref(), Some("approval hook `gate` returned no `approved` field"));
    }

    #[test]
    fn jcli_events_read_hook_results() {
        let raw = serde_json::json!({"user_input": "rewritten"});
        let output = output("h", Event::PreSendMessage, &Context::default(), raw).unwrap();
        assert_eq!(output.patch.user_input.as_deref(), Some("rewritten"));
    }
}
