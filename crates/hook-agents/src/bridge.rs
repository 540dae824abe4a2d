//! hookwire answering as ONE hook of an agent: a [`FireOutcome`] of every configured hook,
//! written as the exit code, stdout and stderr from which the agent concludes the same thing.

use hook_protocol::{
    Agent, Context, Event,
    serde_json::{Map, Value, json},
};

use hook_core::{Decision, Field, FireOutcome, Permission};

/// What `hookwire hook <agent>` prints and exits with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeAnswer {
    /// The process's exit code.
    pub exit_code: i32,
    /// Its stdout: one JSON object, or nothing when nothing was decided.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
}

/// A failure of the bridge itself (bad input, bad configuration): a non-blocking error of the
/// agent — exit 1 with the message on stderr, which none of the three reads as a block.
pub fn failure_answer(message: &str) -> BridgeAnswer {
    BridgeAnswer { exit_code: 1, stdout: String::new(), stderr: format!("hookwire: {message}\n") }
}

/// [`failure_answer`] as `agent` needs it: Copilot CLI denies a tool call on any non-zero exit,
/// so there a failure of the bridge itself is exit 0 with `{}` (see
/// [`crate::copilot_failure_answer`]).
pub fn failure_answer_as(agent: Agent, message: &str) -> BridgeAnswer {
    match agent {
        Agent::Copilot => crate::copilot::copilot_failure_answer(message),
        _ => failure_answer(message),
    }
}

fn join(texts: &[String]) -> Option<String> {
    let texts: Vec<&str> = texts.iter().map(String::as_str).filter(|t| !t.is_empty()).collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// Codex's reason for a call a hook wanted asked about, when the hook gave none.
const CODEX_CANNOT_ASK: &str = "a hook asks for the person's confirmation, which Codex cannot ask for: denied";

/// The answer of `agent` for `outcome`, fired on `event`; `context` is the context as the chain
/// left it (for a rewritten tool input or result).
pub fn answer_as(agent: Agent, event: Event, outcome: &FireOutcome, context: &Context) -> BridgeAnswer {
    if agent == Agent::Copilot {
        return crate::copilot::answer_copilot(event, outcome, context);
    }
    let name = agent.event_name(event).unwrap_or(event.as_str());
    let mut top = Map::new();
    let mut specific = Map::new();
    let reason = outcome.reason.clone().unwrap_or_default();
    let effects = &outcome.effects;
    for (key, value) in &effects.agent_output {
        match key.as_str() {
            "continue" | "stopReason" => {
                top.insert(key.clone(), value.clone());
            }
            "permissionDecisionReason" if agent == Agent::Gemini => {}
            _ => {
                specific.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(text) = join(&effects.system_messages) {
        top.insert("systemMessage".into(), text.into());
    }
    if let Some(text) = join(&effects.additional_context) {
        specific.insert("additionalContext".into(), text.into());
    }
    let rewritten_input = outcome
        .changed
        .contains(&Field::ToolArguments)
        .then(|| super::input::tool_input(context))
        .filter(Value::is_object);

    if outcome.decision == Decision::AbortTurn || outcome.decision == Decision::HardAbort {
        top.insert("continue".into(), Value::Bool(false));
        top.insert("stopReason".into(), reason.clone().into());
    }
    let is_block = matches!(outcome.decision, Decision::Stop | Decision::Skip | Decision::DenyTool | Decision::Respond);
    let block_reason = || match (outcome.decision, &outcome.respond) {
        (Decision::Respond, Some(result)) if reason.is_empty() => result.for_llm.clone(),
        _ if reason.is_empty() => super::BLOCKED_BY_HOOK.to_owned(),
        _ => reason.clone(),
    };

    match (agent, event) {
        (Agent::Gemini, _) => {
            if is_block || (event == Event::Stop && effects.retry_feedback.is_some()) {
                let why = effects.retry_feedback.clone().filter(|_| !is_block).unwrap_or_else(block_reason);
                top.insert("decision".into(), "deny".into());
                top.insert("reason".into(), why.into());
            } else if outcome.permission == Some(Permission::Ask) {
                top.insert("decision".into(), "ask".into());
                if let Some(why) = &outcome.permission_reason {
                    top.insert("reason".into(), why.clone().into());
                }
            } else if outcome.permission == Some(Permission::Allow) {
                top.insert("decision".into(), "allow".into());
            }
            if let Some(input) = rewritten_input.filter(|_| event == Event::PreToolExecution) {
                specific.insert("tool_input".into(), input);
            }
            if event == Event::PostToolExecution
                && outcome.changed.contains(&Field::ToolResult)
                && !is_block
                && let Some(result) = &context.tool_result
            {
                top.insert("decision".into(), "deny".into());
                top.insert("reason".into(), result.for_llm.clone().into());
            }
        }
        (_, Event::PreToolExecution) => {
            if is_block {
                specific.insert("permissionDecision".into(), "deny".into());
                specific.insert("permissionDecisionReason".into(), block_reason().into());
            } else if let Some(permission) = outcome.permission {
                // Codex runs `allow` only together with a rewrite, and has no ask / defer.
                let is_supported =
                    agent != Agent::Codex || (permission == Permission::Allow && rewritten_input.is_some());
                if agent == Agent::Codex && permission == Permission::Ask {
                    // Codex cannot ask the person: a call that must be asked about is denied,
                    // never let through as "no decision".
                    let why = outcome.permission_reason.clone().unwrap_or_else(|| CODEX_CANNOT_ASK.to_owned());
                    specific.insert("permissionDecision".into(), "deny".into());
                    specific.insert("permissionDecisionReason".into(), why.into());
                } else if is_supported {
                    specific.insert("permissionDecision".into(), permission.as_str().into());
                    if permission == Permission::Ask
                        && !specific.contains_key("permissionDecisionReason")
                        && let Some(why) = &outcome.permission_reason
                    {
                        specific.insert("permissionDecisionReason".into(), why.clone().into());
                    }
                } else {
                    specific.remove("permissionDecisionReason");
                }
            } else {
                specific.remove("permissionDecisionReason");
            }
            if let Some(input) = rewritten_input
                && outcome.permission != Some(Permission::Defer)
            {
                if agent == Agent::Codex && !specific.contains_key("permissionDecision") {
                    specific.insert("permissionDecision".into(), "allow".into());
                }
                specific.insert("updatedInput".into(), input);
            }
        }
        (_, Event::ApproveTool) => {
            let mut verdict = Map::new();
            if outcome.decision == Decision::Denied {
                verdict.insert("behavior".into(), "deny".into());
                verdict.insert("message".into(), reason.clone().into());
            } else if outcome.permission == Some(Permission::Allow) {
                verdict.insert("behavior".into(), "allow".into());
                if let Some(input) = rewritten_input.filter(|_| agent == Agent::Claude) {
                    verdict.insert("updatedInput".into(), input);
                }
            }
            for key in ["updatedPermissions", "interrupt"] {
                if let Some(value) = specific.remove(key)
                    && !verdict.is_empty()
                    && agent == Agent::Claude
                {
                    verdict.insert(key.into(), value);
                }
            }
            if !verdict.is_empty() {
                specific.insert("decision".into(), Value::Object(verdict));
            }
        }
        (_, Event::Stop | Event::SubagentStop | Event::TaskCompleted | Event::TeammateIdle) => {
            if let Some(feedback) = &effects.retry_feedback {
                top.insert("decision".into(), "block".into());
                top.insert("reason".into(), feedback.clone().into());
            }
        }
        (_, Event::PostToolExecution) => {
            if is_block {
                top.insert("decision".into(), "block".into());
                top.insert("reason".into(), block_reason().into());
            }
            if agent == Agent::Claude
                && outcome.changed.contains(&Field::ToolResult)
                && let Some(result) = &context.tool_result
            {
                let value = hook_protocol::serde_json::from_str::<Value>(&result.for_llm)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| result.for_llm.clone().into());
                specific.insert("updatedToolOutput".into(), value);
            }
        }
        (_, Event::PostToolExecutionFailure) => {
            if is_block {
                let text = block_reason();
                let context = match specific.remove("additionalContext") {
                    Some(Value::String(earlier)) => format!("{earlier}\n\n{text}"),
                    _ => text,
                };
                specific.insert("additionalContext".into(), context.into());
            }
        }
        _ => {
            if is_block {
                top.insert("decision".into(), "block".into());
                top.insert("reason".into(), block_reason().into());
            }
        }
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), name.into());
        top.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if top.is_empty() {
        return BridgeAnswer { exit_code: 0, stdout: String::new(), stderr: String::new() };
    }
    let stdout = json!(top).to_string();
    BridgeAnswer { exit_code: 0, stdout: format!("{stdout}\n"), stderr: String::new() }
}
