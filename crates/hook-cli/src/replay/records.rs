//! Reading session records: Claude Code transcripts (and hookwire's own, which share their
//! shape), Codex rollouts, Gemini CLI chat logs and Copilot CLI session event logs, into the tool
//! calls and prompts they hold.
//!
//! The shapes are the ones the agents write today (checked against records of Claude Code
//! 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0 and Copilot CLI 1.0.102 in
//! `tests/fixtures/replay/real/`) and the
//! older ones still found in people's home directories: Codex's `event_msg`/`user_message`
//! prompts, Gemini's one-JSON-document `session-*.json` chats.

use std::{
    collections::{BTreeSet, HashMap},
    path::{Path, PathBuf},
};

use hook_protocol::{
    Agent,
    serde_json::{self, Value, json},
};

use crate::hook;

/// One event to replay, read from a record.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) agent: Agent,
    pub(super) session: String,
    pub(super) time: Option<String>,
    /// The tool's name and input in the agent's own terms; `None` for a user prompt.
    pub(super) tool: Option<(String, Value)>,
    pub(super) prompt: Option<String>,
    pub(super) transcript: PathBuf,
}

/// What one record file held.
#[derive(Debug, Default)]
pub(super) struct Read {
    pub(super) calls: Vec<Call>,
    /// `file:line: why` for each record that did not parse.
    pub(super) errors: Vec<String>,
}

/// Every session record under `dir`, sorted: `*.jsonl`, and Gemini's older one-document
/// chats (`chats/session-*.json`).
pub(super) fn find_records(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            find_records(&path, out);
        } else if is_record(&path) {
            out.push(path);
        }
    }
}

fn is_record(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let in_chats = path.parent().and_then(Path::file_name).is_some_and(|d| d == "chats");
    name.ends_with(".jsonl") || (in_chats && name.starts_with("session-") && name.ends_with(".json"))
}

/// Claude Code's directory name for a project: every character that is not a letter or digit
/// becomes `-`.
pub(super) fn claude_project_dir(project: &Path) -> String {
    project.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// The record files `--agent` names for `project`, under the home directory `home`.
pub(super) fn agent_records(agent: Agent, project: &Path, home: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    match agent {
        Agent::Claude => {
            let dir = home.join(".claude").join("projects").join(claude_project_dir(project));
            find_records(&dir, &mut files);
        }
        Agent::Codex => {
            // `CODEX_HOME` moves Codex's whole state directory, as it does for Codex itself.
            let codex_home = std::env::var_os("CODEX_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".codex"));
            let mut all = Vec::new();
            find_records(&codex_home.join("sessions"), &mut all);
            files =
                all.into_iter().filter(|path| codex_cwd(path).is_some_and(|cwd| cwd.starts_with(project))).collect();
        }
        Agent::Gemini => {
            // Gemini CLI (0.61) keeps a project's chats in `~/.gemini/tmp/<dir>/chats/`, where
            // `<dir>` is a short name listed in `~/.gemini/projects.json`, with the project's
            // path in `<dir>/.project_root`. (Older versions named `<dir>` by a hash of the
            // path and wrote no `.project_root`: name such a directory on the command line.)
            let tmp = home.join(".gemini").join("tmp");
            let Ok(entries) = std::fs::read_dir(&tmp) else { return files };
            let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            dirs.sort();
            for dir in dirs {
                let root = std::fs::read_to_string(dir.join(".project_root")).ok();
                let same = |root: &str| {
                    let root = Path::new(root.trim());
                    root == project || root.canonicalize().ok().is_some_and(|r| Some(r) == project.canonicalize().ok())
                };
                if root.as_deref().is_some_and(same) {
                    find_records(&dir.join("chats"), &mut files);
                }
            }
        }
        Agent::Copilot => {
            // Copilot CLI (1.0.102) keeps each session's events in
            // `$COPILOT_HOME/session-state/<session id>/events.jsonl` (the `transcriptPath` of its
            // `agentStop` input); the first event, `session.start`, names the directory it ran in.
            let copilot_home = std::env::var_os("COPILOT_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .filter(|dir| dir.is_absolute())
                .unwrap_or_else(|| home.join(".copilot"));
            let Ok(entries) = std::fs::read_dir(copilot_home.join("session-state")) else { return files };
            let mut sessions: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path().join("events.jsonl"))).filter(|p| p.is_file()).collect();
            sessions.sort();
            files = sessions
                .into_iter()
                .filter(|path| copilot_cwd(path).is_some_and(|cwd| cwd.starts_with(project)))
                .collect();
        }
    }
    files
}

/// The directory a Copilot CLI session ran in: `data.context.cwd` of its `session.start`
/// (the first event of its `events.jsonl`).
fn copilot_cwd(path: &Path) -> Option<PathBuf> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(file).read_line(&mut first).ok()?;
    let start: Value = serde_json::from_str(first.trim()).ok()?;
    start.pointer("/data/context/cwd").and_then(Value::as_str).map(PathBuf::from)
}

/// The `cwd` of a Codex rollout's `session_meta` (its first line).
fn codex_cwd(path: &Path) -> Option<PathBuf> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(file).read_line(&mut first).ok()?;
    let meta: Value = serde_json::from_str(first.trim()).ok()?;
    meta.pointer("/payload/cwd").and_then(Value::as_str).map(PathBuf::from)
}

/// The text of a message's `content`: a string, or the `text` of its text blocks.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| matches!(b.get("type").and_then(Value::as_str), Some("text" | "input_text")))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// A Codex call's tool name and input as Codex's own `PreToolUse` names them: its shell tools
/// are `Bash` with the command line as `command`.
pub(super) fn codex_tool(payload: &Value) -> Option<(String, Value)> {
    let kind = payload.get("type").and_then(Value::as_str)?;
    let name = payload.get("name").and_then(Value::as_str).unwrap_or(kind).to_owned();
    let arguments = match kind {
        "function_call" => {
            let raw = payload.get("arguments")?;
            match raw {
                Value::String(text) => serde_json::from_str(text).unwrap_or_else(|_| json!({ "input": text })),
                other => other.clone(),
            }
        }
        "custom_tool_call" => match payload.get("input") {
            Some(Value::String(text)) => json!({ "command": text }),
            Some(other) => other.clone(),
            None => json!({}),
        },
        "local_shell_call" => payload.get("action").cloned().unwrap_or_else(|| json!({})),
        _ => return None,
    };
    let is_shell = matches!(name.as_str(), "shell" | "exec_command" | "container.exec" | "local_shell_call")
        || kind == "local_shell_call";
    if is_shell {
        let command = arguments.get("command").or_else(|| arguments.get("cmd"));
        let line = match command {
            Some(Value::Array(words)) => {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                // `["bash", "-lc", "<line>"]`: the line is what the model wrote.
                match words.as_slice() {
                    [shell, flag, line] if flag.starts_with('-') && flag.ends_with('c') && shell.ends_with("sh") => {
                        (*line).to_owned()
                    }
                    _ => words.join(" "),
                }
            }
            Some(Value::String(line)) => line.clone(),
            _ => String::new(),
        };
        return Some(("Bash".to_owned(), json!({ "command": line })));
    }
    if name == "apply_patch"
        && let Some(patch) = arguments.get("input").and_then(Value::as_str)
    {
        // Codex hands its hooks a patch as `command`, whichever way the model sent it.
        return Some((name, json!({ "command": patch })));
    }
    Some((name, arguments))
}

/// Reads one record file, whichever agent wrote it.
pub(super) fn read_records(path: &Path, shown: &str) -> Read {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return Read { calls: Vec::new(), errors: vec![format!("{shown}: cannot read it: {e}")] },
    };
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    // Gemini's older chats are one JSON document with every message.
    if path.extension().is_some_and(|ext| ext == "json") {
        return match hook::parse_input(text.as_bytes()) {
            Ok(document) => {
                let session = document.get("sessionId").and_then(Value::as_str).map(str::to_owned);
                let mut chat = GeminiChat { session, ..GeminiChat::default() };
                for message in document.get("messages").and_then(Value::as_array).into_iter().flatten() {
                    chat.upsert(message.clone());
                }
                let mut read = Read::default();
                chat.calls(path, &stem, &mut read);
                read
            }
            Err(e) => Read { calls: Vec::new(), errors: vec![format!("{shown}: not JSON: {e}")] },
        };
    }
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match hook::parse_input(line.as_bytes()) {
            Ok(Value::Object(record)) => lines.push((n + 1, Value::Object(record))),
            Ok(_) => errors.push(format!("{shown}:{}: not a JSON object", n + 1)),
            Err(e) => errors.push(format!("{shown}:{}: not JSON: {e}", n + 1)),
        }
    }
    let mut read = if lines.first().is_some_and(|(_, first)| is_gemini(first)) {
        read_gemini(&lines, path, &stem)
    } else if lines.first().is_some_and(|(_, first)| is_copilot(first)) {
        read_copilot(&lines, path, shown, &stem)
    } else {
        read_claude_codex(&lines, path, shown, &stem)
    };
    errors.append(&mut read.errors);
    read.errors = errors;
    read
}

/// Whether the first record of a JSONL file is Gemini CLI's: its header (`sessionId` and
/// `projectHash`), a `$set`, or a message with `content` but no Claude-style `message`.
fn is_gemini(first: &Value) -> bool {
    first.get("projectHash").is_some()
        || first.get("$set").is_some()
        || (first.get("content").is_some()
            && first.get("message").is_none()
            && matches!(first.get("type").and_then(Value::as_str), Some("user" | "gemini")))
}

/// Whether the first record of a JSONL file is Copilot CLI's: an event `{"type": "session.…",
/// "data": {…}}` (its log starts with `session.start`).
fn is_copilot(first: &Value) -> bool {
    first.get("type").and_then(Value::as_str).is_some_and(|kind| kind.starts_with("session."))
        && first.get("data").is_some_and(Value::is_object)
}

/// A Copilot CLI session's `events.jsonl`: `session.start` names the session, each
/// `user.message` is a prompt (its `content`, as typed; `transformedContent` is what the model
/// got), each tool request of an `assistant.message` is a call (`name`, `arguments`), and a
/// `tool.execution_start` of a call no message listed is one too. Each `toolCallId` is replayed
/// once; the other events (turns, hooks, usage, results) are passed over.
fn read_copilot(lines: &[(usize, Value)], path: &Path, shown: &str, stem: &str) -> Read {
    let mut read = Read::default();
    let mut session = stem.to_owned();
    let mut seen_ids = BTreeSet::new();
    for (n, record) in lines {
        let time = record.get("timestamp").and_then(Value::as_str).map(str::to_owned);
        let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
        let Some(data) = record.get("data") else { continue };
        if kind == "session.start" {
            if let Some(id) = data.get("sessionId").and_then(Value::as_str) {
                session = id.to_owned();
            }
            continue;
        }
        let call = |session: &str, tool, prompt| Call {
            agent: Agent::Copilot,
            session: session.to_owned(),
            time: time.clone(),
            tool,
            prompt,
            transcript: path.to_path_buf(),
        };
        let mut tool_call = |read: &mut Read, id: Option<&str>, name: Option<&str>, arguments: Option<&Value>| {
            if let Some(id) = id
                && !seen_ids.insert(id.to_owned())
            {
                return;
            }
            let Some(name) = name else {
                read.errors.push(format!("{shown}:{n}: a Copilot tool call without its name"));
                return;
            };
            // Arguments arrive as an object; a JSON text is read too (a freeform tool's input is
            // kept as `input`).
            let arguments = match arguments {
                Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_else(|_| json!({ "input": text })),
                Some(other) => other.clone(),
                None => json!({}),
            };
            read.calls.push(call(&session, Some((name.to_owned(), arguments)), None));
        };
        match kind {
            "user.message" => {
                if let Some(prompt) = data.get("content").and_then(Value::as_str) {
                    read.calls.push(call(&session, None, Some(prompt.to_owned())));
                }
            }
            "assistant.message" => {
                for request in data.get("toolRequests").and_then(Value::as_array).into_iter().flatten() {
                    let id = request.get("toolCallId").and_then(Value::as_str);
                    tool_call(&mut read, id, request.get("name").and_then(Value::as_str), request.get("arguments"));
                }
            }
            "tool.execution_start" => {
                let id = data.get("toolCallId").and_then(Value::as_str);
                tool_call(&mut read, id, data.get("toolName").and_then(Value::as_str), data.get("arguments"));
            }
            _ => {}
        }
    }
    read
}

/// Claude Code (and hookwire) transcripts and Codex rollouts, line by line; lines of other
/// types (attachments, API request shapes, token counts…) are passed over.
fn read_claude_codex(lines: &[(usize, Value)], path: &Path, shown: &str, stem: &str) -> Read {
    let mut read = Read::default();
    let mut codex_session: Option<String> = None;
    // A tool call is written again when a message is re-recorded (a resumed or forked session,
    // a streamed message written in pieces): each id is replayed once.
    let mut seen_ids = BTreeSet::new();
    // Codex 0.169 records a prompt as an `item_completed` `UserMessage`; older versions as an
    // `event_msg` `user_message`. A version writing both must not count a prompt twice.
    let (mut user_messages, mut user_items) = (Vec::new(), Vec::new());
    for (n, record) in lines {
        let time = record.get("timestamp").and_then(Value::as_str).map(str::to_owned);
        let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
        let call = |agent, session: String, tool, prompt| Call {
            agent,
            session,
            time: time.clone(),
            tool,
            prompt,
            transcript: path.to_path_buf(),
        };
        match kind {
            "assistant" | "user" => {
                let session = record.get("sessionId").and_then(Value::as_str).unwrap_or(stem).to_owned();
                let Some(content) = record.pointer("/message/content") else {
                    read.errors.push(format!("{shown}:{n}: a `{kind}` record without `message.content`"));
                    continue;
                };
                if kind == "user" {
                    let is_tool_result = content.as_array().is_some_and(|blocks| {
                        blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                    });
                    let is_meta = record.get("isMeta").and_then(Value::as_bool) == Some(true);
                    if !is_tool_result
                        && !is_meta
                        && let Some(prompt) = content_text(content)
                    {
                        read.calls.push(call(Agent::Claude, session, None, Some(prompt)));
                    }
                    continue;
                }
                for block in content.as_array().into_iter().flatten() {
                    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    if let Some(id) = block.get("id").and_then(Value::as_str)
                        && !seen_ids.insert(format!("{session}/{id}"))
                    {
                        continue;
                    }
                    match block.get("name").and_then(Value::as_str) {
                        Some(name) => {
                            let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                            read.calls.push(call(Agent::Claude, session.clone(), Some((name.to_owned(), input)), None));
                        }
                        None => read.errors.push(format!("{shown}:{n}: a `tool_use` block without `name`")),
                    }
                }
            }
            "session_meta" => {
                codex_session = record.pointer("/payload/id").and_then(Value::as_str).map(str::to_owned);
            }
            "response_item" | "event_msg" => {
                let session = codex_session.clone().unwrap_or_else(|| stem.to_owned());
                let Some(payload) = record.get("payload") else {
                    read.errors.push(format!("{shown}:{n}: a `{kind}` record without `payload`"));
                    continue;
                };
                let item = payload.get("type").and_then(Value::as_str).unwrap_or_default();
                if kind == "event_msg" {
                    if item == "user_message"
                        && let Some(message) = payload.get("message").and_then(Value::as_str)
                    {
                        user_messages
                            .push((read.calls.len(), call(Agent::Codex, session, None, Some(message.to_owned()))));
                    } else if item == "item_completed"
                        && payload.pointer("/item/type").and_then(Value::as_str) == Some("UserMessage")
                    {
                        let parts = payload.pointer("/item/content").cloned().unwrap_or_default();
                        let text = content_text(&parts).unwrap_or_default();
                        user_items.push((read.calls.len(), call(Agent::Codex, session, None, Some(text))));
                    }
                    continue;
                }
                if matches!(item, "function_call" | "custom_tool_call" | "local_shell_call") {
                    if let Some(id) = payload.get("call_id").and_then(Value::as_str)
                        && !seen_ids.insert(format!("{session}/{id}"))
                    {
                        continue;
                    }
                    match codex_tool(payload) {
                        Some(tool) => read.calls.push(call(Agent::Codex, session, Some(tool), None)),
                        None => read.errors.push(format!("{shown}:{n}: a `{item}` without its arguments")),
                    }
                }
            }
            _ => {}
        }
    }
    // The prompts go back where they were read, before the calls that followed them.
    let prompts = if user_messages.is_empty() { user_items } else { user_messages };
    for (at, prompt) in prompts.into_iter().rev() {
        read.calls.insert(at, prompt);
    }
    read
}

/// A Gemini CLI chat being rebuilt from its log: the log appends each message, appends it
/// again when it changes (a model message gains its `toolCalls` once they ran), and `$set`s
/// the whole list when the history is rewritten.
#[derive(Debug, Default)]
struct GeminiChat {
    session: Option<String>,
    order: Vec<String>,
    messages: HashMap<String, Value>,
}

impl GeminiChat {
    fn upsert(&mut self, message: Value) {
        let id =
            message.get("id").and_then(Value::as_str).map_or_else(|| format!("#{}", self.order.len()), str::to_owned);
        if self.messages.insert(id.clone(), message).is_none() {
            self.order.push(id);
        }
    }

    fn calls(&self, path: &Path, stem: &str, read: &mut Read) {
        let session = self.session.clone().unwrap_or_else(|| stem.to_owned());
        for id in &self.order {
            let message = &self.messages[id];
            let time = message.get("timestamp").and_then(Value::as_str).map(str::to_owned);
            let call = |tool, prompt| Call {
                agent: Agent::Gemini,
                session: session.clone(),
                time: time.clone(),
                tool,
                prompt,
                transcript: path.to_path_buf(),
            };
            match message.get("type").and_then(Value::as_str) {
                Some("user") => {
                    if let Some(prompt) = gemini_prompt(message.get("content")) {
                        read.calls.push(call(None, Some(prompt)));
                    }
                }
                Some("gemini") => {
                    for tool_call in message.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                        let Some(name) = tool_call.get("name").and_then(Value::as_str) else { continue };
                        let args = tool_call.get("args").cloned().unwrap_or_else(|| json!({}));
                        read.calls.push(call(Some((name.to_owned(), args)), None));
                    }
                }
                _ => {}
            }
        }
    }
}

/// A Gemini user message's prompt: its text parts. Tool responses (`functionResponse` parts)
/// and the `<session_context>` Gemini CLI writes at the start of a chat are not prompts.
fn gemini_prompt(content: Option<&Value>) -> Option<String> {
    let text = match content? {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            if parts.iter().any(|p| p.get("functionResponse").is_some()) {
                return None;
            }
            let texts: Vec<&str> = parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
            texts.join("\n")
        }
        _ => return None,
    };
    (!text.is_empty() && !text.trim_start().starts_with("<session_context>")).then_some(text)
}

/// A Gemini CLI chat log (0.61's `session-*.jsonl`): a header line, then messages and `$set`s.
fn read_gemini(lines: &[(usize, Value)], path: &Path, stem: &str) -> Read {
    let mut chat = GeminiChat::default();
    for (_, record) in lines {
        if let Some(set) = record.get("$set") {
            if let Some(messages) = set.get("messages").and_then(Value::as_array) {
                chat.order.clear();
                chat.messages.clear();
                for message in messages {
                    chat.upsert(message.clone());
                }
            }
        } else if record.get("type").is_some() {
            chat.upsert(record.clone());
        } else if let Some(session) = record.get("sessionId").and_then(Value::as_str) {
            chat.session = Some(session.to_owned());
        }
    }
    let mut read = Read::default();
    chat.calls(path, stem, &mut read);
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_shell_calls_read_as_bash_command_lines() {
        let call = json!({"type": "function_call", "name": "shell",
            "arguments": "{\"command\":[\"bash\",\"-lc\",\"rm -rf ~\"]}", "call_id": "c1"});
        assert_eq!(codex_tool(&call), Some(("Bash".to_owned(), json!({"command": "rm -rf ~"}))));
        let patch = json!({"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch"});
        assert_eq!(codex_tool(&patch), Some(("apply_patch".to_owned(), json!({"command": "*** Begin Patch"}))));
        let exec = json!({"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\": \"cat .env\"}"});
        assert_eq!(codex_tool(&exec), Some(("Bash".to_owned(), json!({"command": "cat .env"}))));
    }

    #[test]
    fn claude_project_dirs_are_mangled_as_claude_code_does() {
        assert_eq!(claude_project_dir(Path::new("/home/me/my.proj")), "-home-me-my-proj");
    }

    #[test]
    fn session_context_and_tool_responses_are_not_gemini_prompts() {
        assert_eq!(gemini_prompt(Some(&json!([{"text": "tidy up"}]))), Some("tidy up".to_owned()));
        assert_eq!(gemini_prompt(Some(&json!([{"text": "<session_context>\nThis is the Gemini CLI."}]))), None);
        assert_eq!(gemini_prompt(Some(&json!([{"functionResponse": {"name": "x", "response": {}}}]))), None);
    }
}
