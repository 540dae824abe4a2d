//! The mapping between hookwire events and PicoClaw methods: which method an event calls, the
//! params built from the [`Context`], and how a result becomes a [`HookOutput`].

use crate::{conn::Answer, extensions::Selection, outbox::Chunk};

use hook_core::{Action, HookError, HookInput, HookOutput, SharedBytes};
use hook_protocol::{
    Context, Event, HookResult, Meta, ToolResult, from_json_value,
    picoclaw::{
        self, AfterLlmParams, AfterLlmResult, AfterToolParams, AfterToolPatch, AfterToolResult, ApproveToolResult,
        BeforeLlmResult, BeforeToolResult, LlmResponse, Mode, method,
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
        Event::ErrorOccurred => ("hook.error_occurred", None),
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

pub(crate) fn to_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    // The params types hold only strings, numbers, maps and sequences: serializing cannot fail.
    serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec())
}

/// The serialized params of `input`'s event, shared by every process hook of the same event
/// that reads the same members: PicoClaw's payload for a hook that made no selection, only the
/// members it reads for one that did (`selection`). With `without_messages`, `before_llm`'s
/// `messages` are left out (a history-delta hook gets them from [`crate::extensions`]).
pub(crate) fn params(
    input: &HookInput<'_>,
    selection: Option<&Selection>,
    without_messages: Option<&'static str>,
) -> SharedBytes {
    let arguments = matches!(input.event, Event::PreToolExecution | Event::ApproveTool).then(|| tool_arguments(input));
    let arguments = arguments.as_deref();
    let Some(selection) = selection else {
        return match without_messages {
            Some(key) if input.event == Event::PreLlmRequest => input
                .serialized(key, |event, c| selected(event, c, &|m| m != "messages" && m != "last_message", arguments)),
            _ => picoclaw_params(input, arguments),
        };
    };
    let key = match without_messages {
        Some(key) if input.event == Event::PreLlmRequest => key,
        _ => selection.key,
    };
    let skip_messages = key != selection.key;
    input.serialized(key, |event, c| {
        selected(event, c, &|m| selection.has(m) && !(skip_messages && m == "messages"), arguments)
    })
}

/// The tool's arguments as they are sent (the context's text parsed and written compactly, as
/// PicoClaw does), serialized once per fire; empty when the context has none. A hook that
/// echoes them unchanged answers with these very bytes.
pub(crate) fn tool_arguments(input: &HookInput<'_>) -> SharedBytes {
    input.serialized("picoclaw.tool_arguments", |_, c| {
        let Some(value) = c.tool_arguments_value() else { return Vec::new() };
        // Written compactly the text rarely grows: sized once, a 1 MiB argument is not copied
        // through a dozen doublings of its buffer.
        let mut bytes = Vec::with_capacity(c.tool_arguments.as_deref().map_or(0, str::len) + 16);
        if serde_json::to_writer(&mut bytes, &value).is_err() {
            // A JSON value always serializes.
            return b"{}".to_vec();
        }
        bytes
    })
}

/// The params of `input`'s event as chunks of a request line: [`params`], except PicoClaw's
/// `before_tool` and `approve_tool` params with arguments, which are the members before the
/// arguments, the arguments ([`tool_arguments`], shared with the unchanged-echo check) and the
/// members after them, so that a large argument is never copied into the params.
pub(crate) fn params_chunks(input: &HookInput<'_>, selection: Option<&Selection>) -> Vec<Chunk> {
    let keys = match input.event {
        Event::PreToolExecution => ("picoclaw.before_tool.head", "picoclaw.before_tool.tail"),
        Event::ApproveTool => ("picoclaw.approve_tool.head", "picoclaw.approve_tool.tail"),
        _ => return vec![Chunk::Shared(params(input, selection, None), 0)],
    };
    let arguments = tool_arguments(input);
    if selection.is_some() || arguments.is_empty() {
        return vec![Chunk::Shared(params(input, selection, None), 0)];
    }
    let split = |c: &Context| {
        let tool = c.tool_name.as_deref().unwrap_or_default();
        let full = tool_params(full_meta(c), Some(tool), Some(b"0"), c.channel.clone(), c.chat_id.clone());
        // The placeholder `0` is the byte after the last `"arguments":` written before the
        // members that follow, which are only `channel` and `chat_id`.
        let at = full.windows(13).rposition(|w| w == b"\"arguments\":0").map_or(full.len(), |i| i + 12);
        (full[..at].to_vec(), full.get(at + 1..).unwrap_or_default().to_vec())
    };
    let head = input.serialized(keys.0, |_, c| split(c).0);
    let tail = input.serialized(keys.1, |_, c| split(c).1);
    vec![Chunk::Shared(head, 0), Chunk::Shared(arguments, 0), Chunk::Shared(tail, 0)]
}

/// PicoClaw's params, every member, exactly as PicoClaw writes them.
fn picoclaw_params(input: &HookInput<'_>, arguments: Option<&[u8]>) -> SharedBytes {
    let all = |e, c: &Context| selected(e, c, &|_| true, arguments);
    match input.event {
        Event::PreLlmRequest => input.serialized("picoclaw.before_llm", all),
        Event::PostLlmResponse => input.serialized("picoclaw.after_llm", all),
        Event::PreToolExecution => input.serialized("picoclaw.before_tool", all),
        Event::PostToolExecution | Event::PostToolExecutionFailure => input.serialized("picoclaw.after_tool", all),
        Event::ApproveTool => input.serialized("picoclaw.approve_tool", all),
        _ => input.hook_context_json(),
    }
}

/// `BeforeLlmParams` as hookwire sends it, borrowing the context (a 5 MB history is not
/// copied to be serialized): the same members, in the same order, absent when `None`.
#[derive(serde::Serialize)]
struct BeforeLlmParamsRef<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    messages: Option<&'a [hook_protocol::ChatMessage]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a [hook_protocol::ToolDefinition]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<&'a serde_json::Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    channel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chat_id: Option<String>,
}

/// `{"meta":…,"tool":…,"arguments":…,"channel":…,"chat_id":…}` (the members of
/// `BeforeToolParams` and `ApproveToolParams`, in their order), with the arguments already
/// serialized.
fn tool_params(
    meta: Option<Meta>,
    tool: Option<&str>,
    arguments: Option<&[u8]>,
    channel: Option<String>,
    chat_id: Option<String>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(arguments.map_or(0, <[u8]>::len) + 128);
    out.push(b'{');
    let member = |out: &mut Vec<u8>, name: &str, bytes: &[u8]| {
        if out.len() > 1 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(bytes);
    };
    if let Some(meta) = meta {
        member(&mut out, "meta", &to_bytes(&meta));
    }
    if let Some(tool) = tool {
        member(&mut out, "tool", &to_bytes(&tool));
    }
    if let Some(arguments) = arguments.filter(|a| !a.is_empty()) {
        member(&mut out, "arguments", arguments);
    }
    if let Some(channel) = channel {
        member(&mut out, "channel", &to_bytes(&channel));
    }
    if let Some(chat_id) = chat_id {
        member(&mut out, "chat_id", &to_bytes(&chat_id));
    }
    out.push(b'}');
    out
}

/// The params of `event` with the members `read` accepts (`last_message`: only the last
/// message); `arguments` are the serialized tool arguments ([`tool_arguments`]).
fn selected(event: Event, c: &Context, read: &dyn Fn(&str) -> bool, arguments: Option<&[u8]>) -> Vec<u8> {
    fn pick<T: Clone>(read: &dyn Fn(&str) -> bool, member: &str, value: &Option<T>) -> Option<T> {
        if read(member) { value.clone() } else { None }
    }
    let meta = if read("meta") { full_meta(c) } else { None };
    let channel = pick(read, "channel", &c.channel);
    let chat_id = pick(read, "chat_id", &c.chat_id);
    match event {
        Event::PreLlmRequest => {
            let messages = c.messages.as_deref();
            let messages = if read("messages") {
                messages
            } else if read("last_message") {
                messages.map(|m| &m[m.len().saturating_sub(1)..])
            } else {
                None
            };
            let borrow = |member: &str| read(member).then_some(());
            to_bytes(&BeforeLlmParamsRef {
                meta,
                model: borrow("model").and(c.model.as_deref()),
                messages,
                tools: borrow("tools").and(c.tools.as_deref()),
                options: borrow("options").and(c.options.as_ref()),
                channel,
                chat_id,
            })
        }
        Event::PostLlmResponse => {
            let response = LlmResponse {
                role: Some("assistant".into()),
                content: c.assistant_output.clone(),
                tool_calls: c.tool_calls.clone(),
                ..LlmResponse::default()
            };
            let params = AfterLlmParams {
                meta,
                model: pick(read, "model", &c.model),
                response: if read("response") { response } else { LlmResponse::default() },
                channel,
                chat_id,
                ..AfterLlmParams::default()
            };
            if read("response") {
                return to_bytes(&params);
            }
            let mut value = serde_json::to_value(&params).unwrap_or(Value::Null);
            if let Value::Object(members) = &mut value {
                members.remove("response");
            }
            to_bytes(&value)
        }
        Event::PreToolExecution | Event::ApproveTool => tool_params(
            meta,
            read("tool").then(|| c.tool_name.as_deref().unwrap_or_default()),
            arguments.filter(|_| read("arguments")),
            channel,
            chat_id,
        ),
        Event::PostToolExecution | Event::PostToolExecutionFailure => {
            let params = AfterToolParams {
                meta,
                tool: if read("tool") { c.tool_name.clone().unwrap_or_default() } else { String::new() },
                arguments: if read("arguments") { c.tool_arguments_value() } else { None },
                result: if read("result") { sent_tool_result(event, c) } else { ToolResult::default() },
                duration: if read("duration") { c.duration_ns } else { None },
                channel,
                chat_id,
                ..AfterToolParams::default()
            };
            let bytes = to_bytes(&params);
            if read("tool") && read("result") {
                return bytes;
            }
            let mut value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            if let Value::Object(members) = &mut value {
                for member in ["tool", "result"] {
                    if !read(member) {
                        members.remove(member);
                    }
                }
            }
            to_bytes(&value)
        }
        _ => Vec::new(),
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

/// Reads a hook's answer to `input`.
pub(crate) fn answer(name: &str, input: &HookInput<'_>, answer: Answer) -> Result<HookOutput, HookError> {
    if input.event == Event::PreToolExecution
        && let Some(raw) = answer.raw()
        && let Some(output) = unchanged_call(input, raw)
    {
        return Ok(output);
    }
    output(name, input.event, input.context, answer.into_value())
}

/// `before_tool`'s result as the hook wrote it, its `call.arguments` left unparsed.
#[derive(serde::Deserialize)]
struct RawBeforeTool<'a> {
    #[serde(default)]
    action: picoclaw::Action,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default, borrow)]
    call: Option<RawCall<'a>>,
    /// Read (and dropped) so that a malformed `result` fails here as on the general path.
    #[serde(default)]
    #[allow(dead_code, reason = "read only to check it")]
    result: Option<ToolResult>,
}

#[derive(serde::Deserialize)]
struct RawCall<'a> {
    #[serde(default)]
    tool: Option<String>,
    #[serde(default, borrow)]
    arguments: Option<&'a serde_json::value::RawValue>,
}

/// The output of a `before_tool` answer whose arguments are, byte for byte, the ones sent (an
/// unchanged echo), read without parsing them; `None` when the general path must read it (the
/// arguments differ in any byte, an error to report, a `respond`).
fn unchanged_call(input: &HookInput<'_>, raw: &[u8]) -> Option<HookOutput> {
    let answer: RawBeforeTool<'_> = serde_json::from_slice(raw).ok()?;
    let action = match answer.action {
        picoclaw::Action::Continue | picoclaw::Action::Modify => None,
        picoclaw::Action::DenyTool => Some(Action::DenyTool),
        picoclaw::Action::AbortTurn => Some(Action::AbortTurn),
        picoclaw::Action::HardAbort => Some(Action::HardAbort),
        picoclaw::Action::Respond => return None,
    };
    let mut output = HookOutput { action, reason: answer.reason, ..HookOutput::default() };
    if let Some(call) = answer.call {
        if let Some(arguments) = call.arguments
            && arguments.get().as_bytes() != &*tool_arguments(input)
        {
            return None;
        }
        output.patch.tool_name = changed(call.tool, input.context.tool_name.as_ref());
    }
    Some(output)
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

    fn input<'a>(event: Event, context: &'a Context, cache: &'a hook_core::SerializedCache) -> HookInput<'a> {
        HookInput::new(event, context, std::time::Instant::now(), 1, cache)
    }

    #[test]
    fn tool_params_are_what_picoclaws_types_write() {
        let meta = hook_protocol::Meta { agent_id: Some("a".into()), ..Default::default() };
        for (arguments, meta, channel) in [
            (Some(r#"{"b": 1, "a": [true, null, "x\"y"]}"#), Some(meta), Some("cli")),
            (Some("not json"), None, None),
            (None, None, Some("c")),
        ] {
            let context = Context {
                tool_name: Some("bash".into()),
                tool_arguments: arguments.map(str::to_owned),
                meta,
                channel: channel.map(str::to_owned),
                ..Context::default()
            };
            for event in [Event::PreToolExecution, Event::ApproveTool] {
                let cache = hook_core::SerializedCache::default();
                let sent = params(&input(event, &context, &cache), None, None);
                let expected = to_bytes(&hook_protocol::picoclaw::BeforeToolParams {
                    meta: full_meta(&context),
                    tool: "bash".into(),
                    arguments: context.tool_arguments_value(),
                    channel: context.channel.clone(),
                    ..Default::default()
                });
                assert_eq!(String::from_utf8_lossy(&sent), String::from_utf8_lossy(&expected));
                let chunks = params_chunks(&input(event, &context, &cache), None);
                let joined: Vec<u8> = chunks.iter().flat_map(|c| c.bytes().iter().copied()).collect();
                assert_eq!(String::from_utf8_lossy(&joined), String::from_utf8_lossy(&expected));
            }
        }
    }

    #[test]
    fn an_unchanged_echo_is_read_without_parsing_and_reads_as_the_general_path_does() {
        let context = Context {
            tool_name: Some("bash".into()),
            tool_arguments: Some(r#"{"command": "ls", "n": 1}"#.into()),
            ..Context::default()
        };
        let cache = hook_core::SerializedCache::default();
        let input = input(Event::PreToolExecution, &context, &cache);
        let _ = params(&input, None, None);
        let cases = [
            // Byte for byte what was sent: the fast path answers.
            (r#"{"action":"modify","call":{"tool":"bash","arguments":{"command":"ls","n":1}}}"#, true),
            (r#"{"action":"deny_tool","reason":"no","call":{"arguments":{"command":"ls","n":1}}}"#, true),
            (r#"{"action":"continue"}"#, true),
            // Same value, other bytes; a change; a respond; an error: the general path.
            (r#"{"action":"modify","call":{"arguments":{"n": 1, "command": "ls"}}}"#, false),
            (r#"{"action":"modify","call":{"arguments":{"command":"pwd","n":1}}}"#, false),
            (r#"{"action":"respond","result":{"for_llm":"x"}}"#, false),
            (r#"{"action":"explode"}"#, false),
        ];
        for (raw, fast) in cases {
            assert_eq!(unchanged_call(&input, raw.as_bytes()).is_some(), fast, "{raw}");
            let via_raw = answer("h", &input, Answer::Raw(raw.as_bytes().to_vec(), 0..raw.len()));
            let via_value = output("h", Event::PreToolExecution, &context, serde_json::from_str(raw).unwrap());
            assert_eq!(format!("{via_raw:?}"), format!("{via_value:?}"), "{raw}");
        }
    }

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
