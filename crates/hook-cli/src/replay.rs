//! `hookwire replay FILE|DIR...`: reads recorded sessions — Claude Code transcripts, Codex
//! rollouts, hookwire's own transcripts (Claude Code's shape) — and fires every tool call as the
//! agent's `PreToolUse` and every user prompt as its `UserPromptSubmit` through the configured
//! hooks, without running any tool, to show what the hooks would have denied, asked or
//! rewritten.
//!
//! Hooks with side effects (`command`, `bash`, `process`, `http`, `prompt`, `llm`) run only with
//! `--run-hooks`: a replay must not re-send last week's commands to a webhook. The other kinds
//! (in-process ones such as rules) run; the skipped hooks are listed. A record that does not
//! parse is counted and named, never fatal.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

use clap::Args;
use hook_core::{FireOutcome, HookSpec};
use hook_host::Scope;
use hook_protocol::{
    Agent,
    serde_json::{self, Map, Value, json},
};

use crate::{ConfigArgs, Format, discover, engine, hook, test};

/// Hook kinds that reach outside hookwire (a process, a network, a model): run only with
/// `--run-hooks`.
const SIDE_EFFECT_KINDS: [&str; 6] = ["command", "bash", "process", "http", "prompt", "llm"];

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// Session records: JSONL files, or directories searched for `*.jsonl`.
    paths: Vec<PathBuf>,
    /// Replay this agent's records of the current project (`claude`: its
    /// `~/.claude/projects/<project>/*.jsonl`; `codex`: the rollouts under `~/.codex/sessions`
    /// whose session ran in the project).
    #[arg(long, value_name = "AGENT")]
    agent: Option<Agent>,
    /// Also run hooks with side effects (command, bash, process, http, prompt, llm).
    #[arg(long)]
    run_hooks: bool,
    #[command(flatten)]
    config: ConfigArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// One event to replay, read from a record.
#[derive(Debug, Clone)]
struct Call {
    agent: Agent,
    session: String,
    time: Option<String>,
    /// `None`: a user prompt.
    tool: Option<(String, Value)>,
    prompt: Option<String>,
    transcript: PathBuf,
}

/// What one record file held.
#[derive(Debug, Default)]
struct Read {
    calls: Vec<Call>,
    /// `file:line: why` for each record that did not parse.
    errors: Vec<String>,
}

/// One would-be decision.
#[derive(Debug, serde::Serialize)]
struct Finding {
    session: String,
    time: Option<String>,
    tool: Option<String>,
    input: Value,
    decision: &'static str,
    hook: Option<String>,
    reason: Option<String>,
}

fn find_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            find_jsonl(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
            out.push(path);
        }
    }
}

/// Claude Code's directory name for a project: every character that is not a letter or digit
/// becomes `-`.
fn claude_project_dir(project: &Path) -> String {
    project.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// The record files `--agent` names for `project`.
fn agent_records(agent: Agent, project: &Path) -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else { return Vec::new() };
    let mut files = Vec::new();
    match agent {
        Agent::Claude => {
            let dir = home.join(".claude").join("projects").join(claude_project_dir(project));
            find_jsonl(&dir, &mut files);
        }
        Agent::Codex => {
            let mut all = Vec::new();
            find_jsonl(&home.join(".codex").join("sessions"), &mut all);
            files = all
                .into_iter()
                .filter(|path| {
                    let first = std::fs::read_to_string(path).ok().and_then(|t| t.lines().next().map(str::to_owned));
                    let meta = first.and_then(|line| serde_json::from_str::<Value>(&line).ok());
                    let cwd = meta.as_ref().and_then(|m| m.pointer("/payload/cwd")).and_then(Value::as_str);
                    cwd.is_some_and(|cwd| Path::new(cwd).starts_with(project))
                })
                .collect();
        }
        // Neither keeps records hookwire reads yet.
        Agent::Gemini | Agent::Copilot => {}
    }
    files
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
fn codex_tool(payload: &Value) -> Option<(String, Value)> {
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
    Some((name, arguments))
}

/// Reads one record file: Claude Code (and hookwire) transcripts and Codex rollouts, line by
/// line; lines of other types are passed over.
fn read_records(path: &Path, shown: &str) -> Read {
    let mut read = Read::default();
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            read.errors.push(format!("{shown}: cannot read it: {e}"));
            return read;
        }
    };
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut codex_session: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let record: Value = match hook::parse_input(line.as_bytes()) {
            Ok(Value::Object(record)) => Value::Object(record),
            Ok(_) => {
                read.errors.push(format!("{shown}:{}: not a JSON object", n + 1));
                continue;
            }
            Err(e) => {
                read.errors.push(format!("{shown}:{}: not JSON: {e}", n + 1));
                continue;
            }
        };
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
                let session = record.get("sessionId").and_then(Value::as_str).unwrap_or(&stem).to_owned();
                let Some(content) = record.pointer("/message/content") else {
                    read.errors.push(format!("{shown}:{}: a `{kind}` record without `message.content`", n + 1));
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
                    match block.get("name").and_then(Value::as_str) {
                        Some(name) => {
                            let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                            read.calls.push(call(Agent::Claude, session.clone(), Some((name.to_owned(), input)), None));
                        }
                        None => read.errors.push(format!("{shown}:{}: a `tool_use` block without `name`", n + 1)),
                    }
                }
            }
            "session_meta" => {
                codex_session = record.pointer("/payload/id").and_then(Value::as_str).map(str::to_owned);
            }
            "response_item" | "event_msg" => {
                let session = codex_session.clone().unwrap_or_else(|| stem.clone());
                let Some(payload) = record.get("payload") else {
                    read.errors.push(format!("{shown}:{}: a `{kind}` record without `payload`", n + 1));
                    continue;
                };
                let item = payload.get("type").and_then(Value::as_str).unwrap_or_default();
                if kind == "event_msg" {
                    if item == "user_message"
                        && let Some(message) = payload.get("message").and_then(Value::as_str)
                    {
                        read.calls.push(call(Agent::Codex, session, None, Some(message.to_owned())));
                    }
                    continue;
                }
                if matches!(item, "function_call" | "custom_tool_call" | "local_shell_call") {
                    match codex_tool(payload) {
                        Some(tool) => read.calls.push(call(Agent::Codex, session, Some(tool), None)),
                        None => read.errors.push(format!("{shown}:{}: a `{item}` without its arguments", n + 1)),
                    }
                }
            }
            _ => {}
        }
    }
    read
}

/// The hook input of `call` in its agent's terms.
fn input_of(call: &Call, cwd: &Path) -> Value {
    let event = match (&call.tool, call.agent) {
        (Some(_), Agent::Gemini) => "BeforeTool",
        (Some(_), _) => "PreToolUse",
        (None, Agent::Gemini) => "BeforeAgent",
        (None, _) => "UserPromptSubmit",
    };
    let mut input = Map::new();
    input.insert("hook_event_name".into(), event.into());
    input.insert("session_id".into(), call.session.clone().into());
    input.insert("cwd".into(), cwd.display().to_string().into());
    input.insert("transcript_path".into(), call.transcript.display().to_string().into());
    if let Some((name, tool_input)) = &call.tool {
        input.insert("tool_name".into(), name.clone().into());
        input.insert("tool_input".into(), tool_input.clone());
    }
    if let Some(prompt) = &call.prompt {
        input.insert("prompt".into(), prompt.clone().into());
    }
    Value::Object(input)
}

/// The hook that decided: the one whose action took effect, else the last that changed the
/// tool input, else the first that ran and changed something.
fn deciding_hook(outcome: &FireOutcome) -> Option<String> {
    let entry = outcome
        .trace
        .iter()
        .find(|entry| entry.action.is_some())
        .or_else(|| outcome.trace.iter().rev().find(|entry| !entry.changed.is_empty()))
        .or_else(|| outcome.trace.iter().find(|entry| entry.outcome == hook_core::OutcomeClass::Ok));
    entry.map(|entry| entry.id.to_string())
}

/// The configured hooks, and the ids of those a replay without `--run-hooks` leaves out.
fn split_specs(specs: Vec<HookSpec>, run_hooks: bool) -> (Vec<HookSpec>, Vec<String>) {
    if run_hooks {
        return (specs, Vec::new());
    }
    let (skipped, kept): (Vec<HookSpec>, Vec<HookSpec>) =
        specs.into_iter().partition(|spec| SIDE_EFFECT_KINDS.contains(&spec.kind.as_str()));
    let ids = skipped.iter().map(|spec| format!("{}:{} ({})", spec.level, spec.name, spec.source)).collect();
    (kept, ids)
}

/// `hookwire replay`.
pub(crate) async fn run(args: ReplayArgs) -> u8 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = discover::project_root(&cwd).unwrap_or_else(|| cwd.clone());
    let mut files = Vec::new();
    for path in &args.paths {
        let path = hook::absolute(path, &cwd);
        if path.is_dir() {
            find_jsonl(&path, &mut files);
        } else {
            files.push(path);
        }
    }
    if let Some(agent) = args.agent {
        files.extend(agent_records(agent, &project));
    }
    if files.is_empty() {
        eprintln!("error: no session records: name JSONL files or directories, or use --agent claude|codex");
        return 2;
    }
    // What decides for the agent with hookwire installed: hookwire's configuration and the
    // agents' own settings files, checked against trust as `hookwire hook` checks them.
    let sources = discover::discover_except(&args.config.configs, args.config.no_default_config, &cwd, None).sources;
    let roots = if args.config.no_default_config { Vec::new() } else { discover::project_roots(&cwd) };
    let mut loaded = engine::load_scoped(&sources, &Scope { skip: None, roots });
    loaded.errors.splice(0..0, engine::missing_configs(&args.config.configs, &cwd));
    eprint!("{}", hook::notes_of(&loaded));
    if let Some(problem) = hook::load_problem(&loaded) {
        eprintln!("error: {problem}");
        return 2;
    }
    let (specs, skipped) = split_specs(loaded.specs, args.run_hooks);
    let engine = engine::engine_for(engine::lazy_model(None, None), Some(project.clone()));
    let errors = engine::mount(&engine, specs).await;
    if !errors.is_empty() {
        engine.shutdown().await;
        eprintln!("error: cannot start the hooks: {}", errors.join("; "));
        return 2;
    }

    let mut record_errors = Vec::new();
    let (mut tool_calls, mut prompts) = (0usize, 0usize);
    let mut sessions = BTreeSet::new();
    let mut findings = Vec::new();
    let mut fire_errors = 0usize;
    for file in &files {
        let shown = file.strip_prefix(&cwd).unwrap_or(file).display().to_string();
        let read = read_records(file, &shown);
        record_errors.extend(read.errors);
        for call in read.calls {
            sessions.insert(call.session.clone());
            if call.tool.is_some() {
                tool_calls += 1;
            } else {
                prompts += 1;
            }
            let (event, context) = match hook_agents::context_from_input(call.agent, input_of(&call, &project)) {
                Ok(read) => read,
                Err(e) => {
                    record_errors.push(format!("{shown}: session {}: {e}", call.session));
                    continue;
                }
            };
            let (answer, outcome) = hook::fire_bridge_traced(&engine, call.agent, event, context, &project).await;
            fire_errors += outcome.trace.iter().filter(|e| e.error.is_some()).count();
            let got = test::read_answer(event, &answer);
            let decision = match got.decision {
                Some(decision @ ("deny" | "ask" | "block" | "stop")) => decision,
                _ if got.updated_input.is_some() => "rewrite",
                _ => continue,
            };
            findings.push(Finding {
                session: call.session.clone(),
                time: call.time.clone(),
                tool: call.tool.as_ref().map(|(name, _)| name.clone()),
                input: call.tool.as_ref().map_or_else(
                    || json!({ "prompt": call.prompt.clone().unwrap_or_default() }),
                    |(_, input)| input.clone(),
                ),
                decision,
                hook: deciding_hook(&outcome),
                reason: got.reason.clone(),
            });
        }
    }
    engine::shutdown_one_shot(&engine).await;

    let count = |words: &[&str]| findings.iter().filter(|f| words.contains(&f.decision)).count();
    let (denied, asked, rewritten) = (count(&["deny", "block", "stop"]), count(&["ask"]), count(&["rewrite"]));
    let deciders: BTreeSet<&str> = findings.iter().filter_map(|f| f.hook.as_deref()).collect();
    let errors = record_errors.len() + fire_errors;
    match args.format {
        Format::Json => {
            let report = json!({
                "tool_calls": tool_calls,
                "prompts": prompts,
                "sessions": sessions.len(),
                "denied": denied,
                "asked": asked,
                "rewritten": rewritten,
                "errors": errors,
                "unparsed": record_errors,
                "skipped_hooks": skipped,
                "findings": findings,
            });
            outln!("{report}");
        }
        Format::Text => {
            for f in &findings {
                outln!(
                    "{} {} {}: {} by {}{}",
                    f.session,
                    f.time.as_deref().unwrap_or("-"),
                    f.tool.as_deref().unwrap_or("prompt"),
                    f.decision,
                    f.hook.as_deref().unwrap_or("?"),
                    f.reason.as_deref().map_or_else(String::new, |r| format!(": {r}"))
                );
                outln!("    input: {}", hook_core::head_chars(&f.input.to_string(), 300));
            }
            if !skipped.is_empty() {
                outln!("skipped (hooks with side effects run only with --run-hooks): {}", skipped.join(", "));
            }
            for error in &record_errors {
                outln!("unparsed: {error}");
            }
            outln!(
                "{tool_calls} tool calls and {prompts} prompts in {} sessions; {denied} would have been denied, \
                 {asked} asked, {rewritten} rewritten by {} hooks; {errors} errors",
                sessions.len(),
                deciders.len()
            );
        }
    }
    0
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
    }

    #[test]
    fn claude_project_dirs_are_mangled_as_claude_code_does() {
        assert_eq!(claude_project_dir(Path::new("/home/me/my.proj")), "-home-me-my-proj");
    }
}
