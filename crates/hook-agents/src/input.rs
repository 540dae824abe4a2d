//! The hook input of the Claude Code family: hookwire's [`Context`] to the JSON object an
//! agent's hook reads on stdin (or in an http body), and back.

use hook_protocol::{
    Agent, Context, Event, ToolResult,
    serde_json::{Map, Value},
};

/// Input members that map onto [`Context`] fields; every other member is kept in
/// [`Context::extra`] and handed back unchanged.
const MAPPED: &[&str] = &[
    "session_id",
    "cwd",
    "hook_event_name",
    "prompt",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "last_assistant_message",
];

/// An agent's hook input that hookwire cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InputError {
    /// What is wrong.
    pub message: String,
}

/// Reads one hook input object of `agent` into the event it names and a context.
///
/// The event comes from `hook_event_name` (older Claude Code builds wrote `event`), in the
/// agent's own spelling; Copilot CLI's input names none, see [`crate::copilot_event`]. Members with a [`Context`] field fill it (`prompt` → `user_input`,
/// `tool_input` → `tool_arguments`, `tool_response` → `tool_result`, `error` → `tool_error`,
/// `last_assistant_message` / `prompt_response` → `assistant_output`); the rest are kept as
/// they are in [`Context::extra`].
pub fn context_from_input(agent: Agent, input: Value) -> Result<(Event, Context), InputError> {
    let Value::Object(mut input) = input else {
        return Err(InputError { message: format!("the {} hook input must be a JSON object", agent.display_name()) });
    };
    if agent == Agent::Copilot {
        return crate::copilot::context_from_copilot(input);
    }
    let name = input
        .get("hook_event_name")
        .or_else(|| input.get("event"))
        .and_then(Value::as_str)
        .ok_or_else(|| InputError { message: "the hook input has no `hook_event_name`".to_owned() })?
        .to_owned();
    let event = agent.event(&name).ok_or_else(|| InputError {
        message: format!(
            "`{name}` is not a {} event; known events: {}",
            agent.display_name(),
            agent.event_names().collect::<Vec<_>>().join(", ")
        ),
    })?;
    let text = |value: Option<Value>| match value {
        Some(Value::String(text)) => Some(text),
        _ => None,
    };
    let mut context = Context {
        session_id: text(input.remove("session_id")),
        cwd: text(input.remove("cwd")),
        tool_name: text(input.remove("tool_name")),
        tool_call_id: text(input.remove("tool_use_id")),
        ..Context::default()
    };
    input.remove("hook_event_name");
    // `prompt` is the user's message; Gemini's AfterAgent carries it beside its reply.
    if let Some(prompt) = input.get("prompt").and_then(Value::as_str) {
        context.user_input = Some(prompt.to_owned());
        input.remove("prompt");
    }
    if let Some(tool_input) = input.remove("tool_input") {
        context.tool_arguments = Some(tool_input.to_string());
    }
    context.assistant_output = text(input.remove("last_assistant_message"))
        .or_else(|| input.get("prompt_response").and_then(Value::as_str).map(str::to_owned));
    if let Some(response) = input.get("tool_response") {
        context.tool_result = Some(ToolResult::text(value_text(response)));
    }
    if let Some(error) = input.get("error").and_then(Value::as_str)
        && matches!(event, Event::PostToolExecutionFailure | Event::PermissionDenied)
    {
        context.tool_error = Some(error.to_owned());
    }
    if let Some(model) = input.get("model").and_then(Value::as_str) {
        context.model = Some(model.to_owned());
    }
    context.extra = input;
    Ok((event, context))
}

/// A JSON value as text: a string as it is, anything else serialized.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The hook input object of `agent` for `event`: what its hooks read.
///
/// The members hookwire keeps in [`Context::extra`] come back unchanged; the fields hooks may
/// have changed earlier in the chain (`tool_input`, `tool_response`, `prompt`, ...) are written
/// from the context as it is now.
pub fn hook_input(agent: Agent, event: Event, context: &Context) -> Map<String, Value> {
    let mut input = Map::new();
    input.insert("session_id".into(), context.session_id.clone().unwrap_or_default().into());
    let transcript = context.extra.get("transcript_path").cloned().unwrap_or(Value::Null);
    input.insert("transcript_path".into(), transcript);
    let cwd = context.cwd.clone().or_else(|| std::env::current_dir().ok().map(|d| d.display().to_string()));
    input.insert("cwd".into(), cwd.unwrap_or_default().into());
    let name = agent.event_name(event).unwrap_or(event.as_str());
    input.insert("hook_event_name".into(), name.into());
    for (key, value) in &context.extra {
        if !MAPPED.contains(&key.as_str()) {
            input.insert(key.clone(), value.clone());
        }
    }
    let is_tool_event = hook_core::capability(event).is_tool_event;
    if is_tool_event {
        input.insert("tool_name".into(), context.tool_name.clone().unwrap_or_default().into());
        input.insert("tool_input".into(), tool_input(context));
        // Gemini CLI sends no call id: a hook reading `.tool_use_id // "none"` must not see "".
        if event != Event::ApproveTool && (agent != Agent::Gemini || context.tool_call_id.is_some()) {
            input.insert("tool_use_id".into(), context.tool_call_id.clone().unwrap_or_default().into());
        }
    }
    if let Some(result) = &context.tool_result
        && matches!(event, Event::PostToolExecution)
    {
        // The agent's own structured response (`extra.tool_response`, removed when a hook
        // replaces the result); else the result's text, as JSON when it is an object.
        if !context.extra.contains_key("tool_response") {
            let value = hook_protocol::serde_json::from_str::<Value>(&result.for_llm)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| Value::String(result.for_llm.clone()));
            input.insert("tool_response".into(), value);
        }
    }
    if event == Event::PostToolExecutionFailure {
        input.insert("error".into(), context.tool_error.clone().unwrap_or_default().into());
    }
    match event {
        Event::PreSendMessage | Event::UserPromptExpansion => {
            input.insert("prompt".into(), context.user_input.clone().unwrap_or_default().into());
        }
        Event::Stop | Event::SubagentStop if agent == Agent::Gemini => {
            input.insert("prompt".into(), context.user_input.clone().unwrap_or_default().into());
            input.insert("prompt_response".into(), context.assistant_output.clone().unwrap_or_default().into());
            input.entry("stop_hook_active").or_insert(Value::Bool(false));
        }
        Event::Stop | Event::SubagentStop => {
            if let Some(text) = &context.assistant_output {
                input.insert("last_assistant_message".into(), text.clone().into());
            }
            input.entry("stop_hook_active").or_insert(Value::Bool(false));
        }
        Event::SessionStart => {
            input.entry("source").or_insert_with(|| "startup".into());
        }
        _ => {}
    }
    if agent == Agent::Gemini {
        input.entry("timestamp").or_insert_with(|| now_rfc3339().into());
    }
    input
}

/// The tool input object of the call (an argument text that is not an object becomes `{}`).
pub fn tool_input(context: &Context) -> Value {
    context
        .tool_arguments
        .as_deref()
        .and_then(|text| hook_protocol::serde_json::from_str::<Value>(text).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(Map::new()))
}

/// The order the agents write the common members in; other members follow in name order.
const KEY_ORDER: &[&str] = &[
    "session_id",
    "turn_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "permission_mode",
    "effort",
    "hook_event_name",
    "timestamp",
    "model",
    "source",
    "prompt",
    "tool_name",
    "tool_input",
    "tool_response",
    "tool_use_id",
];

/// The input as the agents write it to a command hook: compact JSON, non-ASCII unescaped, the
/// common members first in the agents' order (a guard that greps `"tool_name":"Bash"` before
/// `"command"` sees them in the order it was written against), then one newline.
pub fn input_line(input: &Map<String, Value>) -> Vec<u8> {
    write_line(input, None)
}

/// [`input_line`] of [`hook_input`], with `tool_input` written as the call's argument text
/// itself when that is a JSON object: its members keep the order the agent (or the hook that
/// rewrote them) wrote them in, where a parsed map would sort them.
pub fn input_line_of(agent: Agent, event: Event, context: &Context) -> Vec<u8> {
    let input = hook_input(agent, event, context);
    let raw = context
        .tool_arguments
        .as_deref()
        .filter(|_| input.contains_key("tool_input"))
        .filter(|text| hook_protocol::serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object()))
        .map(compact);
    write_line(&input, raw.as_deref())
}

/// The line of [`input_line`]; `tool_input`, when given, is written as that text.
fn write_line(input: &Map<String, Value>, tool_input: Option<&str>) -> Vec<u8> {
    let mut line = Vec::with_capacity(256 + tool_input.map_or(0, str::len));
    line.push(b'{');
    let known = KEY_ORDER.iter().filter_map(|key| input.get_key_value(*key));
    let others = input.iter().filter(|(key, _)| !KEY_ORDER.contains(&key.as_str()));
    for (i, (key, value)) in known.chain(others).enumerate() {
        if i > 0 {
            line.push(b',');
        }
        // Strings and values serialize infallibly into a Vec.
        let _ = hook_protocol::serde_json::to_writer(&mut line, key);
        line.push(b':');
        match tool_input {
            Some(raw) if key == "tool_input" => line.extend_from_slice(raw.as_bytes()),
            _ => {
                let _ = hook_protocol::serde_json::to_writer(&mut line, value);
            }
        }
    }
    line.extend_from_slice(b"}\n");
    line
}

/// The `tool_input` member of an agent's hook input text, compact, with its members in the
/// order written; `None` when there is none or the text is not a JSON object.
pub fn tool_input_text(input_text: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[serde(borrow)]
        tool_input: Option<&'a hook_protocol::serde_json::value::RawValue>,
    }
    let raw: Raw<'_> = hook_protocol::serde_json::from_str(input_text).ok()?;
    let text = raw.tool_input?.get();
    text.trim_start().starts_with('{').then(|| compact(text))
}

/// Makes the context's argument text `raw` (the agent's own text of the same arguments, see
/// [`tool_input_text`]) when both say the same: hooks then read the members in the agent's
/// order.
pub fn keep_tool_input_order(context: &mut Context, raw: &str) {
    let parse = |text: &str| hook_protocol::serde_json::from_str::<Value>(text).ok();
    if let Some(current) = context.tool_arguments.as_deref().and_then(parse)
        && Some(current) == parse(raw)
    {
        context.tool_arguments = Some(raw.to_owned());
    }
}

/// Valid JSON text without the whitespace between its tokens (strings are copied as they are).
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}

/// The current UTC time as `2026-11-26T05:33:53Z`.
fn now_rfc3339() -> String {
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = hook_protocol::time::civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_line_is_compact_in_the_agents_order_with_one_newline() {
        let input: Map<String, Value> = hook_protocol::serde_json::from_str(
            r#"{"zeta": 1, "tool_input": {"command": "ls"}, "hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", "note": "é"}"#,
        )
        .unwrap();
        let line = String::from_utf8(input_line(&input)).unwrap();
        assert_eq!(
            line,
            "{\"session_id\":\"s\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},\"note\":\"é\",\"zeta\":1}\n"
        );
        let back: Map<String, Value> = hook_protocol::serde_json::from_str(&line).unwrap();
        assert_eq!(back, input);
    }
}
