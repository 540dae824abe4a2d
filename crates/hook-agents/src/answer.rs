//! Reading a Claude Code family hook's answer — exit code, stdout, stderr, or an http body —
//! into a [`HookOutput`], exactly as each agent reads it.
//!
//! "No decision" (the agents' fail-open) is an `Ok` output that changes nothing, or an `Err`
//! when the agent reports the hook as failed (a non-blocking error): the engine's failure policy
//! then decides, which is fail-open unless the hook asked to fail closed (`onFailure: block`,
//! or hookwire's `on_error: deny`).

use hook_protocol::{
    Agent, Context, Event, ToolResult,
    serde_json::{Map, Value},
};

use hook_core::{Action, HookError, HookOutput, Permission, capability, tail_chars};

/// What a finished command hook left behind.
#[derive(Debug, Clone, Copy)]
pub struct CommandRun<'a> {
    /// The exit code; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// Everything it printed on stdout.
    pub stdout: &'a str,
    /// Everything it printed on stderr.
    pub stderr: &'a str,
}

/// The reason Claude Code gives a denial that names none.
pub const BLOCKED_BY_HOOK: &str = "Blocked by hook";

/// Reads a command hook's answer for `event` as `agent` reads it.
pub fn read_command(
    agent: Agent,
    event: Event,
    run: CommandRun<'_>,
    context: &Context,
) -> Result<HookOutput, HookError> {
    match agent {
        Agent::Claude => read_claude(event, run, context),
        Agent::Gemini => read_gemini(event, run, context),
        Agent::Codex => read_codex(event, run, context),
        Agent::Copilot => crate::copilot::read_copilot(event, run),
    }
}

/// Reads an http hook's 2xx body (Claude Code's rules: empty = no decision, a JSON object = the
/// same answer as a command's stdout, anything else = a non-blocking error).
pub fn read_http_body(agent: Agent, event: Event, body: &str, context: &Context) -> Result<HookOutput, HookError> {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return Ok(HookOutput::default());
    }
    match hook_protocol::serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(object)) => decode(agent, event, &object, context, None).map_err(|m| invalid(m, body)),
        _ => Err(HookError::invalid_output("an http hook must answer with a JSON object or nothing", body)),
    }
}

/// A prompt hook's `{ok, reason}` as Claude Code applies it to `event`.
pub fn read_prompt_verdict(event: Event, ok: bool, reason: Option<String>) -> HookOutput {
    if ok {
        return HookOutput::default();
    }
    let reason = reason.filter(|r| !r.is_empty()).unwrap_or_else(|| "the prompt hook said no".to_owned());
    match event {
        Event::Stop | Event::SubagentStop => HookOutput { retry_feedback: Some(reason), ..HookOutput::default() },
        Event::PreToolExecution => HookOutput::deny(reason),
        Event::ApproveTool | Event::PermissionDenied => HookOutput::default(),
        _ => block(event, reason),
    }
}

/// What an `async: true` handler's answer can still do. Claude Code runs such a handler in the
/// background: the action goes on at once, so nothing it answers (a deny, a block, exit 2, a
/// rewrite, `continue: false`) decides anything; its `systemMessage` and `additionalContext` are
/// delivered later. hookwire waits for it in order, then keeps only those two.
pub fn async_answer(output: HookOutput) -> HookOutput {
    HookOutput {
        additional_context: output.additional_context,
        system_message: output.system_message,
        ..HookOutput::default()
    }
}

fn invalid(message: String, raw: &str) -> HookError {
    HookError::invalid_output(message, raw)
}

/// Whitespace as JavaScript's `trim` sees it: Unicode white space and the byte-order mark
/// (U+FEFF), which editors and PowerShell put before the JSON a hook prints. Claude Code and
/// Gemini CLI trim with it before they look for `{`.
fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// `text` trimmed at both ends as JavaScript's `trim` does.
fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_space)
}

/// `stdout` as a JSON object, when it is one (after leading white space or a byte-order mark).
fn json_object(stdout: &str) -> Option<Map<String, Value>> {
    let trimmed = stdout.trim_start_matches(is_js_space);
    if !trimmed.starts_with('{') {
        return None;
    }
    match hook_protocol::serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(object)) => Some(object),
        _ => None,
    }
}

/// stderr as a reason: verbatim, less its final newline.
fn stderr_reason(stderr: &str) -> String {
    let line = stderr.strip_suffix('\n').unwrap_or(stderr);
    line.strip_suffix('\r').unwrap_or(line).to_owned()
}

fn exited(run: &CommandRun<'_>) -> HookError {
    let status = match run.exit_code {
        Some(code) => format!("exit code {code}"),
        None => "a signal".to_owned(),
    };
    HookError::ProcessExited { status, stderr_tail: tail_chars(run.stderr, 400) }
}

/// A "block this step" output, as far as `event` can be blocked.
fn block(event: Event, reason: String) -> HookOutput {
    match event {
        Event::PreToolExecution => HookOutput::deny(reason),
        Event::Stop | Event::SubagentStop | Event::TaskCompleted | Event::TeammateIdle => {
            HookOutput { retry_feedback: Some(reason), ..HookOutput::default() }
        }
        _ if capability(event).allows(Action::Stop) => {
            HookOutput { action: Some(Action::Stop), reason: Some(reason), ..HookOutput::default() }
        }
        // Events that cannot block show the text to the user.
        _ => HookOutput { system_message: Some(reason), ..HookOutput::default() },
    }
}

/// Events whose plain (non-JSON) stdout on exit 0 becomes context.
fn plain_text_is_context(agent: Agent, event: Event) -> bool {
    match agent {
        Agent::Claude => matches!(event, Event::PreSendMessage | Event::UserPromptExpansion | Event::SessionStart),
        Agent::Codex => matches!(event, Event::PreSendMessage | Event::SessionStart | Event::SubagentStart),
        Agent::Gemini | Agent::Copilot => false,
    }
}

fn plain_text(agent: Agent, event: Event, stdout: &str) -> HookOutput {
    let text = stdout.trim();
    if text.is_empty() || !plain_text_is_context(agent, event) {
        return HookOutput::default();
    }
    HookOutput { additional_context: Some(text.to_owned()), ..HookOutput::default() }
}

fn read_claude(event: Event, run: CommandRun<'_>, context: &Context) -> Result<HookOutput, HookError> {
    let json = json_object(run.stdout);
    match run.exit_code {
        Some(0) => match json {
            Some(object) => decode(Agent::Claude, event, &object, context, None).map_err(|m| invalid(m, run.stdout)),
            None => Ok(plain_text(Agent::Claude, event, run.stdout)),
        },
        Some(2) => {
            // Exit 2 blocks whatever the JSON says; a valid JSON still adds its side effects and
            // a blocking reason of its own.
            let stderr = stderr_reason(run.stderr);
            let fallback = if stderr.is_empty() { "No stderr output".to_owned() } else { stderr };
            let decoded = json.and_then(|object| decode(Agent::Claude, event, &object, context, None).ok());
            match event {
                // Exit 2 means nothing to these.
                Event::ApproveTool
                | Event::Notification
                | Event::InstructionsLoaded
                | Event::StopFailure
                | Event::PermissionDenied => Ok(decoded.unwrap_or_default()),
                _ => {
                    let mut output = decoded.unwrap_or_default();
                    let own_reason = output.reason.take().filter(|_| output.action == Some(Action::DenyTool));
                    let blocked = block(event, own_reason.unwrap_or(fallback));
                    output.action = blocked.action.or(output.action.filter(|a| *a == Action::AbortTurn));
                    output.reason = blocked.reason;
                    output.permission = None;
                    if blocked.retry_feedback.is_some() {
                        output.retry_feedback = blocked.retry_feedback;
                    }
                    if let Some(message) = blocked.system_message {
                        output.system_message = Some(message);
                    }
                    Ok(output)
                }
            }
        }
        // Any other exit: the JSON alone decides when it is a valid answer; otherwise a
        // non-blocking error.
        _ => match json.map(|object| decode(Agent::Claude, event, &object, context, None)) {
            Some(Ok(output)) => Ok(output),
            _ => Err(exited(&run)),
        },
    }
}

fn read_gemini(event: Event, run: CommandRun<'_>, context: &Context) -> Result<HookOutput, HookError> {
    let text = if js_trim(run.stdout).is_empty() { js_trim(run.stderr) } else { js_trim(run.stdout) };
    // A JSON string holding JSON is parsed twice.
    let parsed = hook_protocol::serde_json::from_str::<Value>(text).ok().and_then(|value| match value {
        Value::String(inner) => hook_protocol::serde_json::from_str::<Value>(&inner).ok(),
        other => Some(other),
    });
    if let Some(Value::Object(object)) = parsed {
        return decode(Agent::Gemini, event, &object, context, None).map_err(|m| invalid(m, text));
    }
    if text.is_empty() {
        return Ok(HookOutput::default());
    }
    // A signal counts as exit 0.
    match run.exit_code.unwrap_or(0) {
        0 => Ok(HookOutput { system_message: Some(text.to_owned()), ..HookOutput::default() }),
        1 => Ok(HookOutput { system_message: Some(format!("Warning: {text}")), ..HookOutput::default() }),
        _ => Ok(gemini_deny(event, text.to_owned())),
    }
}

fn gemini_deny(event: Event, reason: String) -> HookOutput {
    match event {
        Event::PostToolExecution => {
            // Gemini replaces the tool's result with the reason.
            let mut output = HookOutput::default();
            output.patch.tool_result = Some(ToolResult::text(reason));
            output
        }
        _ => block(event, reason),
    }
}

fn read_codex(event: Event, run: CommandRun<'_>, context: &Context) -> Result<HookOutput, HookError> {
    match run.exit_code {
        Some(0) => {
            let trimmed = run.stdout.trim_start();
            if trimmed.starts_with('{') || trimmed.starts_with('[') {
                let object = json_object(run.stdout).ok_or_else(|| {
                    HookError::invalid_output("the hook printed JSON that is not an object", run.stdout)
                })?;
                return decode(Agent::Codex, event, &object, context, None).map_err(|m| invalid(m, run.stdout));
            }
            Ok(plain_text(Agent::Codex, event, run.stdout))
        }
        Some(2) if !run.stderr.trim().is_empty() => match event {
            Event::ApproveTool => Err(exited(&run)),
            _ => Ok(block(event, stderr_reason(run.stderr))),
        },
        _ => Err(exited(&run)),
    }
}

/// Reads an answer object. `Err` carries the schema violation, which the agent reports as a
/// non-blocking error.
fn decode(
    agent: Agent,
    event: Event,
    object: &Map<String, Value>,
    context: &Context,
    _command: Option<&str>,
) -> Result<HookOutput, String> {
    let mut output = HookOutput::default();
    let string = |key: &str| -> Result<Option<String>, String> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!("`{key}` must be a string, not {other}")),
        }
    };
    let boolean = |key: &str| -> Result<Option<bool>, String> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(format!("`{key}` must be true or false, not {other}")),
        }
    };
    let is_continue = boolean("continue")?;
    let stop_reason = string("stopReason")?;
    boolean("suppressOutput")?;
    output.system_message = string("systemMessage")?;
    let decision = string("decision")?;
    let reason = string("reason")?;
    let name = agent.event_name(event).unwrap_or(event.as_str());

    // hookSpecificOutput counts only when it names this event.
    let specific = match object.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(specific)) => {
            let names_event = specific.get("hookEventName").and_then(Value::as_str) == Some(name);
            (names_event || agent == Agent::Gemini).then_some(specific)
        }
        Some(other) => return Err(format!("`hookSpecificOutput` must be an object, not {other}")),
    };
    let specific_string = |key: &str| -> Result<Option<String>, String> {
        match specific.and_then(|s| s.get(key)) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!("`hookSpecificOutput.{key}` must be a string, not {other}")),
        }
    };
    output.additional_context = specific_string("additionalContext")?.filter(|c| !c.is_empty());

    match agent {
        Agent::Gemini => decode_gemini_decision(event, decision.as_deref(), reason, specific, context, &mut output)?,
        Agent::Claude | Agent::Codex | Agent::Copilot => {
            if let Some(decision) = decision.as_deref()
                && !matches!(decision, "approve" | "block")
            {
                return Err(format!("`decision` must be \"approve\" or \"block\", not {decision:?}"));
            }
            decode_claude_decision(agent, event, decision.as_deref(), reason, specific, &mut output)?;
        }
    }
    if is_continue == Some(false) {
        if agent == Agent::Codex && event == Event::PreToolExecution {
            return Err("Codex does not support `continue: false` on PreToolUse".to_owned());
        }
        let reason = stop_reason.unwrap_or_else(|| "stopped by hook".to_owned());
        if output.action.is_some_and(|a| a != Action::AbortTurn) {
            // A denial in the same answer stands; the stop travels with it.
            output.agent_output.insert("continue".into(), Value::Bool(false));
            output.agent_output.insert("stopReason".into(), reason.into());
        } else {
            output.action = Some(Action::AbortTurn);
            output.reason = Some(reason);
        }
    }
    if let Some(specific) = specific {
        for (key, value) in specific {
            if !INTERPRETED.contains(&key.as_str()) {
                output.agent_output.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(output)
}

/// `hookSpecificOutput` members hookwire interprets; the others pass through.
const INTERPRETED: &[&str] = &[
    "hookEventName",
    "additionalContext",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "decision",
    "updatedToolOutput",
    "updatedMCPToolOutput",
    "tool_input",
];

fn decode_claude_decision(
    agent: Agent,
    event: Event,
    decision: Option<&str>,
    reason: Option<String>,
    specific: Option<&Map<String, Value>>,
    output: &mut HookOutput,
) -> Result<(), String> {
    let get = |key: &str| specific.and_then(|s| s.get(key)).filter(|v| !v.is_null());
    match event {
        Event::PreToolExecution => {
            let permission = match get("permissionDecision") {
                None => None,
                Some(Value::String(p)) if matches!(p.as_str(), "allow" | "deny" | "ask" | "defer") => Some(p.as_str()),
                Some(other) => {
                    return Err(format!("`permissionDecision` must be allow, deny, ask or defer, not {other}"));
                }
            };
            let permission_reason = match get("permissionDecisionReason") {
                None => None,
                Some(Value::String(text)) => Some(text.clone()),
                Some(other) => return Err(format!("`permissionDecisionReason` must be a string, not {other}")),
            };
            let updated = match get("updatedInput") {
                None => None,
                Some(Value::Object(input)) => Some(Value::Object(input.clone())),
                Some(other) => return Err(format!("`updatedInput` must be an object, not {other}")),
            };
            if agent == Agent::Codex {
                match (permission, &updated) {
                    (Some("ask" | "defer"), _) => {
                        return Err(format!("Codex does not support permissionDecision {permission:?}"));
                    }
                    (Some("allow"), None) => return Err("Codex supports `allow` only with `updatedInput`".to_owned()),
                    (Some("deny"), _) if permission_reason.as_deref().is_none_or(str::is_empty) => {
                        return Err("Codex needs a non-empty permissionDecisionReason with deny".to_owned());
                    }
                    _ => {}
                }
                if decision == Some("approve") {
                    return Err("Codex does not support `decision: approve`".to_owned());
                }
            }
            let legacy = match decision {
                Some("approve") => Some("allow"),
                Some("block") => Some("deny"),
                _ => None,
            };
            match permission.or(legacy) {
                Some("deny") => {
                    let why = if permission.is_some() { permission_reason } else { reason };
                    output.action = Some(Action::DenyTool);
                    output.reason = Some(why.filter(|r| !r.is_empty()).unwrap_or_else(|| BLOCKED_BY_HOOK.to_owned()));
                }
                Some(p) => {
                    output.permission = Some(match p {
                        "allow" => Permission::Allow,
                        "ask" => Permission::Ask,
                        _ => Permission::Defer,
                    });
                    if let Some(why) = permission_reason.or(reason) {
                        output.agent_output.insert("permissionDecisionReason".into(), why.into());
                    }
                }
                None => {}
            }
            if let Some(updated) = updated
                && permission != Some("defer")
            {
                output.patch.tool_arguments = Some(updated.to_string());
            }
        }
        Event::ApproveTool => {
            let Some(verdict) = get("decision") else { return Ok(()) };
            let Value::Object(verdict) = verdict else {
                return Err(format!("`hookSpecificOutput.decision` must be an object, not {verdict}"));
            };
            match verdict.get("behavior").and_then(Value::as_str) {
                Some("allow") => output.approved = Some(true),
                Some("deny") => {
                    output.approved = Some(false);
                    let message = verdict.get("message").and_then(Value::as_str).filter(|m| !m.is_empty());
                    output.reason = Some(message.map_or_else(
                        || match agent {
                            Agent::Codex => "PermissionRequest hook denied approval".to_owned(),
                            _ => "denied by a PermissionRequest hook".to_owned(),
                        },
                        str::to_owned,
                    ));
                }
                other => return Err(format!("`decision.behavior` must be allow or deny, not {other:?}")),
            }
            if agent == Agent::Codex
                && ["updatedInput", "updatedPermissions", "interrupt"].iter().any(|k| verdict.contains_key(*k))
            {
                return Err("Codex does not support updatedInput, updatedPermissions or interrupt here".to_owned());
            }
            if let Some(Value::Object(updated)) = verdict.get("updatedInput") {
                output.patch.tool_arguments = Some(Value::Object(updated.clone()).to_string());
            }
            for key in ["updatedPermissions", "interrupt"] {
                if let Some(value) = verdict.get(key) {
                    output.agent_output.insert(key.into(), value.clone());
                }
            }
        }
        _ => {
            if decision == Some("block") {
                let reason = reason.filter(|r| !r.is_empty());
                if agent == Agent::Codex && reason.is_none() {
                    return Err("Codex needs a non-empty `reason` with `decision: block`".to_owned());
                }
                let blocked = block(event, reason.unwrap_or_else(|| BLOCKED_BY_HOOK.to_owned()));
                output.action = blocked.action;
                output.reason = blocked.reason;
                output.retry_feedback = output.retry_feedback.take().or(blocked.retry_feedback);
                if blocked.system_message.is_some() {
                    output.system_message = blocked.system_message;
                }
            }
            if event == Event::PostToolExecution
                && let Some(updated) = get("updatedToolOutput").or_else(|| get("updatedMCPToolOutput"))
            {
                output.patch.tool_result = Some(ToolResult::text(match updated {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                }));
            }
        }
    }
    Ok(())
}

fn decode_gemini_decision(
    event: Event,
    decision: Option<&str>,
    reason: Option<String>,
    specific: Option<&Map<String, Value>>,
    context: &Context,
    output: &mut HookOutput,
) -> Result<(), String> {
    match decision {
        None => {}
        Some("deny" | "block") => {
            let reason = reason.filter(|r| !r.is_empty()).unwrap_or_else(|| BLOCKED_BY_HOOK.to_owned());
            let denied = gemini_deny(event, reason);
            output.action = denied.action;
            output.reason = denied.reason;
            output.retry_feedback = denied.retry_feedback;
            if denied.patch.tool_result.is_some() {
                output.patch.tool_result = denied.patch.tool_result;
            }
            if denied.system_message.is_some() {
                output.system_message = denied.system_message;
            }
        }
        Some("ask") => output.permission = Some(Permission::Ask),
        Some("allow" | "approve") if event == Event::PreToolExecution => output.permission = Some(Permission::Allow),
        Some("allow" | "approve") => {}
        Some(other) => return Err(format!("`decision` must be allow, deny, block, ask or approve, not {other:?}")),
    }
    // BeforeTool's `tool_input` is merged over the model's arguments.
    if event == Event::PreToolExecution
        && let Some(Value::Object(patch)) = specific.and_then(|s| s.get("tool_input"))
    {
        let mut merged = match super::input::tool_input(context) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        for (key, value) in patch {
            merged.insert(key.clone(), value.clone());
        }
        output.patch.tool_arguments = Some(Value::Object(merged).to_string());
    }
    Ok(())
}
