//! GitHub Copilot CLI's hook contract: its hook input (camelCase, with no event name in it; or
//! Claude Code's snake_case shape for hooks registered under PascalCase event names), how it
//! reads a hook's answer (top-level camelCase JSON, exit codes), and hookwire answering as one
//! Copilot hook.
//!
//! What Copilot reads back, per event: `preToolUse` — `permissionDecision` (`allow`, `deny`,
//! `ask`), `permissionDecisionReason`, `modifiedArgs` (the new arguments), `additionalContext`;
//! `sessionStart` and `userPromptSubmitted` — `additionalContext`; `agentStop` — `decision:
//! "block"` with a `reason` (the agent takes another turn); `permissionRequest` — `behavior`
//! (`allow`, `deny`). Claude Code's `hookSpecificOutput` wrapper and plain text are ignored.
//! Exit codes: on `preToolUse` any non-zero exit denies the call (exit 2 with the hook's reason);
//! `permissionRequest` exit 2 denies; on every other event a non-zero exit is a warning.

use hook_protocol::{
    Agent, Context, Event, ToolResult,
    serde_json::{Map, Value, json},
};

use hook_core::{Decision, Field, FireOutcome, HookError, HookOutput, OutcomeClass, Permission, tail_chars};

use crate::{BridgeAnswer, CommandRun, InputError, input};

/// The members of a camelCase input that map onto [`Context`] fields (the rest is kept in
/// [`Context::extra`]).
const MAPPED: &[&str] =
    &["sessionId", "cwd", "toolName", "toolArgs", "toolInput", "prompt", "toolResult", "hook_event_name"];

/// Copilot's name of its shell tool in each payload shape: `bash` in its camelCase payload,
/// `Bash` in the Claude-like one.
const SHELL_NAMES: (&str, &str) = ("bash", "Bash");

/// The event of a Copilot hook input, from what the payload holds: `hook_event_name` (a
/// camelCase name the bridge was told with `--event`, or the PascalCase name of Copilot's
/// Claude-like payload), else inferred from the members only one event carries.
pub fn copilot_event(input: &Map<String, Value>) -> Result<Event, InputError> {
    if let Some(name) = input.get("hook_event_name").and_then(Value::as_str) {
        return Agent::Copilot.event(name).or_else(|| Agent::copilot_pascal_event(name)).ok_or_else(|| InputError {
            message: format!(
                "`{name}` is not a Copilot CLI hook event; known events: {}",
                Agent::Copilot.event_names().collect::<Vec<_>>().join(", ")
            ),
        });
    }
    let has = |key: &str| input.contains_key(key);
    let event = if has("toolResult") {
        Event::PostToolExecution
    } else if has("error") && has("toolName") {
        Event::PostToolExecutionFailure
    } else if has("hookName") && has("toolInput") {
        Event::ApproveTool
    } else if has("toolName") && has("toolArgs") {
        Event::PreToolExecution
    } else if has("prompt") {
        Event::PreSendMessage
    } else if has("initialPrompt") || has("source") {
        Event::SessionStart
    } else if has("stopReason") {
        Event::Stop
    } else if has("errorContext") {
        Event::ErrorOccurred
    } else if has("reason") {
        Event::SessionEnd
    } else {
        return Err(InputError {
            message: "cannot tell which Copilot CLI event this hook input is for (it names none, and has none of \
                      the members that tell one); install the hook as `hookwire hook copilot --event <eventName>`"
                .to_owned(),
        });
    };
    Ok(event)
}

/// Whether an input is in Copilot's Claude-like snake_case shape (its PascalCase events).
fn is_snake_shape(input: &Map<String, Value>) -> bool {
    let pascal = input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .is_some_and(|name| Agent::Copilot.event(name).is_none() && Agent::copilot_pascal_event(name).is_some());
    let has_camel = input.contains_key("sessionId") || input.contains_key("toolName");
    pascal || (!has_camel && (input.contains_key("tool_name") || input.contains_key("session_id")))
}

/// Reads one Copilot hook input into its event and a context (see [`copilot_event`]).
pub(crate) fn context_from_copilot(input: Map<String, Value>) -> Result<(Event, Context), InputError> {
    let event = copilot_event(&input)?;
    if is_snake_shape(&input) {
        let mut input = input;
        let name = Agent::Claude.event_name(event).unwrap_or(event.as_str());
        input.insert("hook_event_name".into(), name.into());
        let (_, context) = input::context_from_input(Agent::Claude, Value::Object(input))?;
        return Ok((event, context));
    }
    let mut input = input;
    let text = |value: Option<Value>| match value {
        Some(Value::String(text)) => Some(text),
        _ => None,
    };
    let mut context = Context {
        session_id: text(input.remove("sessionId")),
        cwd: text(input.remove("cwd")),
        tool_name: text(input.remove("toolName")),
        user_input: text(input.remove("prompt")),
        ..Context::default()
    };
    input.remove("hook_event_name");
    // `toolArgs` is an object; Copilot's docs type it loosely, so a JSON text is read too.
    let args = input.remove("toolArgs").or_else(|| input.remove("toolInput"));
    context.tool_arguments = match args {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text),
        Some(other) => Some(other.to_string()),
    };
    if let Some(result) = input.remove("toolResult") {
        let text = match result.get("textResultForLlm") {
            Some(Value::String(text)) => text.clone(),
            _ => result.to_string(),
        };
        context.tool_result = Some(ToolResult::text(text));
        // Kept whole for Copilot hooks, which read `resultType` too.
        input.insert("toolResult".into(), result);
    }
    if event == Event::PostToolExecutionFailure
        && let Some(error) = input.get("error").and_then(Value::as_str)
    {
        context.tool_error = Some(error.to_owned());
    }
    context.extra = input;
    Ok((event, context))
}

/// The milliseconds since the epoch, as Copilot's `timestamp`.
fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or_default()
}

/// The tool's name as a hook of `is_pascal` shape reads it: Copilot calls its shell `bash` in
/// its camelCase payload and `Bash` in its Claude-like one.
fn tool_name_for(name: &str, is_pascal: bool) -> String {
    match (name, is_pascal) {
        (n, true) if n == SHELL_NAMES.0 => SHELL_NAMES.1.to_owned(),
        (n, false) if n == SHELL_NAMES.1 => SHELL_NAMES.0.to_owned(),
        _ => name.to_owned(),
    }
}

/// The hook input line a Copilot hook registered under `event_name` reads for `event`: the
/// camelCase payload (no event name in it), or for a PascalCase name Claude Code's snake_case
/// one. Compact JSON, one newline.
pub fn copilot_input_line(event_name: &str, event: Event, context: &Context) -> Vec<u8> {
    let is_pascal = event_name.starts_with(|c: char| c.is_ascii_uppercase());
    if is_pascal {
        let mut input = input::hook_input(Agent::Claude, event, context);
        input.insert("hook_event_name".into(), event_name.into());
        if let Some(Value::String(name)) = input.get("tool_name") {
            let name = tool_name_for(name, true);
            input.insert("tool_name".into(), name.into());
        }
        return input::input_line(&input);
    }
    let mut input = Map::new();
    input.insert("sessionId".into(), context.session_id.clone().unwrap_or_default().into());
    let timestamp = context.extra.get("timestamp").cloned().unwrap_or_else(|| now_millis().into());
    input.insert("timestamp".into(), timestamp);
    let cwd = context.cwd.clone().or_else(|| std::env::current_dir().ok().map(|d| d.display().to_string()));
    input.insert("cwd".into(), cwd.unwrap_or_default().into());
    // Members of the other shape (a context read from a snake_case input) are not Copilot's.
    const SNAKE: &[&str] = &["session_id", "transcript_path", "hook_event_name", "tool_use_id", "tool_response"];
    for (key, value) in &context.extra {
        if !MAPPED.contains(&key.as_str()) && !SNAKE.contains(&key.as_str()) {
            input.insert(key.clone(), value.clone());
        }
    }
    let tool_name = context.tool_name.as_deref().map(|name| tool_name_for(name, false)).unwrap_or_default();
    match event {
        Event::PreToolExecution | Event::PostToolExecution | Event::PostToolExecutionFailure => {
            input.insert("toolName".into(), tool_name.into());
            input.insert("toolArgs".into(), input::tool_input(context));
        }
        Event::ApproveTool => {
            input.insert("toolName".into(), tool_name.into());
            input.insert("toolInput".into(), input::tool_input(context));
        }
        Event::PreSendMessage => {
            input.insert("prompt".into(), context.user_input.clone().unwrap_or_default().into());
        }
        _ => {}
    }
    if event == Event::PostToolExecution {
        let text = context.tool_result.as_ref().map(|r| r.for_llm.clone()).unwrap_or_default();
        let unchanged =
            context.extra.get("toolResult").filter(|r| r.get("textResultForLlm") == Some(&text.clone().into()));
        let result = unchanged.cloned().unwrap_or_else(|| json!({"resultType": "success", "textResultForLlm": text}));
        input.insert("toolResult".into(), result);
    }
    if event == Event::PostToolExecutionFailure {
        input.insert("error".into(), context.tool_error.clone().unwrap_or_default().into());
    }
    input::input_line(&input)
}

/// A top-level string member of an answer; a member of another type is a schema error.
fn string(object: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(format!("`{key}` must be a string, not {other}")),
    }
}

/// `stdout` as a JSON object, when it is one.
fn json_object(stdout: &str) -> Option<Map<String, Value>> {
    match hook_protocol::serde_json::from_str::<Value>(
        stdout.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}'),
    ) {
        Ok(Value::Object(object)) => Some(object),
        _ => None,
    }
}

/// Reads a Copilot answer object for `event`.
fn decode(event: Event, object: &Map<String, Value>) -> Result<HookOutput, String> {
    let mut output = HookOutput::default();
    let context = string(object, "additionalContext")?.filter(|c| !c.is_empty());
    match event {
        Event::PreToolExecution => {
            let reason = string(object, "permissionDecisionReason")?.filter(|r| !r.is_empty());
            match string(object, "permissionDecision")?.as_deref() {
                None => {}
                Some("deny") => {
                    output.action = Some(hook_core::Action::DenyTool);
                    output.reason = Some(reason.unwrap_or_else(|| crate::BLOCKED_BY_HOOK.to_owned()));
                }
                Some("allow") => output.permission = Some(Permission::Allow),
                Some("ask") => {
                    output.permission = Some(Permission::Ask);
                    if let Some(reason) = reason {
                        output.agent_output.insert("permissionDecisionReason".into(), reason.into());
                    }
                }
                Some(other) => return Err(format!("`permissionDecision` must be allow, deny or ask, not {other:?}")),
            }
            match object.get("modifiedArgs") {
                None | Some(Value::Null) => {}
                Some(Value::Object(args)) => {
                    output.patch.tool_arguments = Some(Value::Object(args.clone()).to_string())
                }
                Some(other) => return Err(format!("`modifiedArgs` must be an object, not {other}")),
            }
            output.additional_context = context;
        }
        Event::SessionStart | Event::PreSendMessage => output.additional_context = context,
        Event::Stop | Event::SubagentStop => match string(object, "decision")?.as_deref() {
            None | Some("allow" | "approve") => {}
            Some("block") => {
                let reason = string(object, "reason")?.filter(|r| !r.is_empty());
                output.retry_feedback = Some(reason.unwrap_or_else(|| crate::BLOCKED_BY_HOOK.to_owned()));
            }
            Some(other) => return Err(format!("`decision` must be \"block\", not {other:?}")),
        },
        Event::ApproveTool => match string(object, "behavior")?.as_deref() {
            None => {}
            Some("allow") => output.approved = Some(true),
            Some("deny") => {
                output.approved = Some(false);
                let message = string(object, "message")?.filter(|m| !m.is_empty());
                output.reason = Some(message.unwrap_or_else(|| "denied by a permissionRequest hook".to_owned()));
            }
            Some(other) => return Err(format!("`behavior` must be allow or deny, not {other:?}")),
        },
        _ => {}
    }
    Ok(output)
}

/// Reads a Copilot command hook's answer for `event` as Copilot CLI reads it.
pub(crate) fn read_copilot(event: Event, run: CommandRun<'_>) -> Result<HookOutput, HookError> {
    let json = json_object(run.stdout);
    let stderr = run.stderr.trim();
    match (run.exit_code, event) {
        (Some(0), _) => match json {
            Some(object) => decode(event, &object).map_err(|m| HookError::invalid_output(m, run.stdout)),
            // Plain text means nothing to Copilot.
            None => Ok(HookOutput::default()),
        },
        // preToolUse fails closed: exit 2 with the hook's reason, any other failure "errored".
        (code, Event::PreToolExecution) => {
            let own = json
                .and_then(|object| decode(event, &object).ok())
                .and_then(|o| o.reason.filter(|_| o.action.is_some()));
            let reason = match code {
                Some(2) => own
                    .or_else(|| (!stderr.is_empty()).then(|| stderr.to_owned()))
                    .unwrap_or_else(|| "hook exited with code 2".to_owned()),
                Some(n) => format!("(hook errored: exit code {n}){}", with_colon(stderr)),
                None => format!("(hook errored: ended by a signal){}", with_colon(stderr)),
            };
            Ok(HookOutput::deny(reason))
        }
        (Some(2), Event::ApproveTool) => Ok(HookOutput {
            approved: Some(false),
            reason: Some(if stderr.is_empty() { "hook exited with code 2".to_owned() } else { stderr.to_owned() }),
            ..HookOutput::default()
        }),
        // A warning in Copilot: the hook failed, nothing was decided.
        (code, _) => Err(HookError::ProcessExited {
            status: code.map_or_else(|| "a signal".to_owned(), |code| format!("exit code {code}")),
            stderr_tail: tail_chars(run.stderr, 400),
        }),
    }
}

fn with_colon(text: &str) -> String {
    if text.is_empty() { String::new() } else { format!(": {text}") }
}

/// hookwire's own failure (unreadable input, an event it cannot tell) answered to Copilot:
/// exit 0 with `{}` and the message on stderr. Copilot denies a `preToolUse` call on ANY
/// non-zero exit, so a failure of the bridge itself must not read as a decision.
pub fn copilot_failure_answer(message: &str) -> BridgeAnswer {
    BridgeAnswer { exit_code: 0, stdout: "{}\n".to_owned(), stderr: format!("hookwire: {message}\n") }
}

fn join(texts: &[String]) -> Option<String> {
    let texts: Vec<&str> = texts.iter().map(String::as_str).filter(|t| !t.is_empty()).collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// The answer of ONE Copilot hook for `outcome`, fired on `event`: top-level camelCase JSON on
/// stdout, always exit 0 (a denial is said in the JSON). What Copilot does not read (system
/// messages) goes to stderr.
pub(crate) fn answer_copilot(event: Event, outcome: &FireOutcome, context: &Context) -> BridgeAnswer {
    let mut top = Map::new();
    let mut stderr = String::new();
    let effects = &outcome.effects;
    if let Some(text) = join(&effects.system_messages) {
        stderr.push_str(&format!("{text}\n"));
    }
    let reason = outcome.reason.clone().filter(|r| !r.is_empty());
    let is_block = matches!(outcome.decision, Decision::Stop | Decision::Skip | Decision::DenyTool | Decision::Respond);
    let block_reason = || match (outcome.decision, &outcome.respond, &reason) {
        (_, _, Some(reason)) => reason.clone(),
        (Decision::Respond, Some(result), None) => result.for_llm.clone(),
        _ => crate::BLOCKED_BY_HOOK.to_owned(),
    };
    let context_text = join(&effects.additional_context);
    // A hook that overran its deadline decided nothing; Copilot itself runs the tool when a hook
    // times out, so hookwire, which answers before Copilot's own deadline, denies instead.
    let overran = outcome
        .trace
        .iter()
        .find(|entry| matches!(entry.outcome, OutcomeClass::TimedOut | OutcomeClass::BudgetExhausted));
    match event {
        Event::PreToolExecution => {
            if is_block || matches!(outcome.decision, Decision::AbortTurn | Decision::HardAbort) {
                top.insert("permissionDecision".into(), "deny".into());
                top.insert("permissionDecisionReason".into(), block_reason().into());
            } else if let Some(entry) = overran {
                let why = format!(
                    "hookwire: hook {} did not answer within its deadline, so this call is denied (a guard that \
                     cannot answer must not let it through); make it faster or raise its timeout",
                    entry.id
                );
                top.insert("permissionDecision".into(), "deny".into());
                top.insert("permissionDecisionReason".into(), why.into());
            } else {
                match outcome.permission {
                    Some(Permission::Allow) => {
                        top.insert("permissionDecision".into(), "allow".into());
                    }
                    Some(Permission::Ask) => {
                        top.insert("permissionDecision".into(), "ask".into());
                        if let Some(why) = effects.agent_output.get("permissionDecisionReason") {
                            top.insert("permissionDecisionReason".into(), why.clone());
                        } else if let Some(why) = &outcome.permission_reason {
                            top.insert("permissionDecisionReason".into(), why.clone().into());
                        }
                    }
                    _ => {}
                }
                if outcome.changed.contains(&Field::ToolArguments) {
                    let args = input::tool_input(context);
                    top.insert("modifiedArgs".into(), args);
                }
            }
            if let Some(text) = context_text {
                top.insert("additionalContext".into(), text.into());
            }
        }
        Event::ApproveTool => {
            if outcome.decision == Decision::Denied {
                top.insert("behavior".into(), "deny".into());
                top.insert("message".into(), reason.unwrap_or_default().into());
            } else if outcome.permission == Some(Permission::Allow) {
                top.insert("behavior".into(), "allow".into());
            }
        }
        Event::Stop | Event::SubagentStop => {
            if let Some(feedback) = &effects.retry_feedback {
                top.insert("decision".into(), "block".into());
                top.insert("reason".into(), feedback.clone().into());
            }
        }
        Event::SessionStart | Event::PreSendMessage => {
            let mut texts: Vec<String> = context_text.into_iter().collect();
            if is_block {
                // Copilot cannot block these: the reason reaches the model as context.
                texts.push(block_reason());
            }
            if !texts.is_empty() {
                top.insert("additionalContext".into(), texts.join("\n\n").into());
            }
        }
        _ => {
            if is_block {
                stderr.push_str(&format!("hookwire: {}\n", block_reason()));
            }
        }
    }
    BridgeAnswer { exit_code: 0, stdout: format!("{}\n", Value::Object(top)), stderr }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_protocol::serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn the_event_is_inferred_from_the_members() {
        let cases = [
            (json!({"toolName": "bash", "toolArgs": {}, "toolResult": {}}), Event::PostToolExecution),
            (json!({"toolName": "bash", "toolArgs": {}, "error": "boom"}), Event::PostToolExecutionFailure),
            (json!({"hookName": "x", "toolName": "bash", "toolInput": {}}), Event::ApproveTool),
            (json!({"toolName": "bash", "toolArgs": "{}"}), Event::PreToolExecution),
            (json!({"prompt": "hi"}), Event::PreSendMessage),
            (json!({"source": "new", "initialPrompt": "hi"}), Event::SessionStart),
            (json!({"stopReason": "end_turn"}), Event::Stop),
            (json!({"error": {"message": "m"}, "errorContext": "model_call"}), Event::ErrorOccurred),
            (json!({"reason": "complete"}), Event::SessionEnd),
            (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}), Event::PreToolExecution),
            (json!({"hook_event_name": "agentStop", "reason": "x"}), Event::Stop),
        ];
        for (input, event) in cases {
            assert_eq!(copilot_event(&object(input.clone())).ok(), Some(event), "{input}");
        }
        let err = copilot_event(&object(json!({"sessionId": "s"}))).unwrap_err();
        assert!(err.message.contains("--event"), "{err}");
        assert!(copilot_event(&object(json!({"hook_event_name": "beforeTool"}))).is_err());
    }

    #[test]
    fn tool_args_as_an_object_or_a_json_text() {
        for args in [json!({"command": "ls"}), json!("{\"command\":\"ls\"}")] {
            let input = object(
                json!({"hook_event_name": "preToolUse", "toolName": "bash", "toolArgs": args, "sessionId": "s", "timestamp": 5}),
            );
            let (event, context) = context_from_copilot(input).unwrap();
            assert_eq!(event, Event::PreToolExecution);
            assert_eq!(context.tool.as_ref().map(|t| t.command.clone()), None, "the engine derives the view");
            assert_eq!(hook_protocol::tool::tool_view(&context).and_then(|v| v.command), Some("ls".to_owned()));
            let line = String::from_utf8(copilot_input_line("preToolUse", event, &context)).unwrap();
            let back: Value = hook_protocol::serde_json::from_str(&line).unwrap();
            assert_eq!(back["toolArgs"], json!({"command": "ls"}));
            assert_eq!(back["timestamp"], 5);
            assert!(back.get("hook_event_name").is_none(), "{line}");
        }
    }

    #[test]
    fn answers_are_read_as_copilot_reads_them() {
        let run = |code, stdout, stderr| CommandRun { exit_code: code, stdout, stderr };
        let deny = read_copilot(
            Event::PreToolExecution,
            run(Some(0), r#"{"permissionDecision":"deny","permissionDecisionReason":"no"}"#, ""),
        )
        .unwrap();
        assert_eq!((deny.action, deny.reason.as_deref()), (Some(hook_core::Action::DenyTool), Some("no")));
        let wrapped = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#;
        assert_eq!(read_copilot(Event::PreToolExecution, run(Some(0), wrapped, "")).unwrap().action, None);
        let errored = read_copilot(Event::PreToolExecution, run(Some(1), "", "oops")).unwrap();
        assert_eq!(errored.action, Some(hook_core::Action::DenyTool));
        let two = read_copilot(Event::PreToolExecution, run(Some(2), "", "because\n")).unwrap();
        assert_eq!(two.reason.as_deref(), Some("because"));
        assert!(read_copilot(Event::SessionStart, run(Some(1), "", "")).is_err(), "a warning");
        let stop = read_copilot(Event::Stop, run(Some(0), r#"{"decision":"block","reason":"more"}"#, "")).unwrap();
        assert_eq!(stop.retry_feedback.as_deref(), Some("more"));
    }
}
