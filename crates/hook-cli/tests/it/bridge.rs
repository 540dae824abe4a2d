//! `hookwire hook claude|gemini|codex`: hookwire answering as ONE hook of Claude Code, Gemini
//! CLI or Codex. Each test builds a project with agent-format hooks (Python and shell fixtures
//! from `tests/fixtures/bridge/`, run unmodified through real `sh`), hands the real binary an
//! agent's hook input on stdin exactly as the agent writes it (compact JSON and one newline,
//! the key sets Claude Code 2.1.328 was seen to send), and reads the answer the agent would
//! read: exit code, stdout JSON, stderr, and what the hooks left on disk.

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    net::TcpListener,
    ops::Deref,
    path::{Path, PathBuf},
    process::Command,
    thread::JoinHandle,
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};

use crate::common::agent::{AgentProject, Run, command, python_dir, run, settings_one, stdin_line};

const SESSION_ID: &str = "0f4c5b8e-2d7a-4c1e-9b3f-6a8d2e1c7b90";
const PROMPT_ID: &str = "7d1e9a42-5c3b-4f08-a6e2-91b0c4d8f357";

// ----------------------------------------------------------------------------------------------
// The sandbox: a project with the fixture hooks, a fresh HOME, and the agents' environment.

/// An [`AgentProject`] with the hooks of `tests/fixtures/bridge/` in `.claude/hooks/`,
/// `.gemini/hooks/` and `.codex/hooks/`.
struct Sandbox(AgentProject);

impl Deref for Sandbox {
    type Target = AgentProject;

    fn deref(&self) -> &AgentProject {
        &self.0
    }
}

impl Sandbox {
    fn new() -> Sandbox {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bridge");
        Sandbox(AgentProject::new("bridge", SESSION_ID, &fixtures))
    }

    /// The runs of `answer.py` so far, as `<hook_event_name> <exit>` lines.
    fn answer_log(&self) -> Vec<String> {
        self.read_project_file(".claude/answer.log").unwrap_or_default().lines().map(str::to_owned).collect()
    }

    /// The bridge with `--settings` files only.
    fn command(&self, agent: &str, settings: &[&Path]) -> Command {
        self.0.command(agent, settings, &[])
    }

    fn hook_raw(&self, command: Command, stdin: &str) -> Run {
        run(command, stdin)
    }
}

/// A string as one shell word.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The shell command that runs a Python fixture of `.claude/hooks/` with `args`.
fn py(fixture: &str, args: &[&str]) -> String {
    let mut command = format!("python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{fixture}");
    for arg in args {
        command.push(' ');
        command.push_str(&sh_quote(arg));
    }
    command
}

/// `answer.py EXIT STDOUT STDERR`: a hook that reads its input and answers as told.
fn answer_hook(exit: i32, stdout: &str, stderr: &str) -> String {
    py("answer.py", &[&exit.to_string(), stdout, stderr])
}

fn pre_tool_deny(reason: &str) -> String {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })
    .to_string()
}

// ----------------------------------------------------------------------------------------------
// Agent inputs, with the key sets the agents were seen to send.

/// Claude Code's members common to tool-context events (§13: PreToolUse and Stop inputs).
fn claude_common(sandbox: &Sandbox, event: &str) -> Map<String, Value> {
    let project = sandbox.project_str();
    let transcript = format!(
        "{}/.claude/projects/{}/{SESSION_ID}.jsonl",
        sandbox.root().join("home").display(),
        project.replace('/', "-")
    );
    let mut input = Map::new();
    input.insert("session_id".into(), SESSION_ID.into());
    input.insert("transcript_path".into(), transcript.into());
    input.insert("cwd".into(), project.into());
    input.insert("prompt_id".into(), PROMPT_ID.into());
    input.insert("permission_mode".into(), "default".into());
    input.insert("effort".into(), json!({ "level": "medium" }));
    input.insert("hook_event_name".into(), event.into());
    input
}

/// A Claude Code PreToolUse input: exactly the keys Claude Code 2.1.328 sends.
fn claude_pre_tool_use(sandbox: &Sandbox, tool_name: &str, tool_input: Value) -> Value {
    let mut input = claude_common(sandbox, "PreToolUse");
    input.insert("tool_name".into(), tool_name.into());
    input.insert("tool_input".into(), tool_input);
    input.insert("tool_use_id".into(), "toolu_01A2b3C4d5E6f7G8h9J0kLmN".into());
    Value::Object(input)
}

fn claude_bash(sandbox: &Sandbox, shell_command: &str) -> Value {
    claude_pre_tool_use(sandbox, "Bash", json!({ "command": shell_command, "description": "Run a command" }))
}

fn claude_post_tool_use(sandbox: &Sandbox, shell_command: &str) -> Value {
    let mut input = claude_common(sandbox, "PostToolUse");
    input.insert("tool_name".into(), "Bash".into());
    input.insert("tool_input".into(), json!({ "command": shell_command }));
    input.insert(
        "tool_response".into(),
        json!({ "stdout": "ok\n", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false }),
    );
    input.insert("tool_use_id".into(), "toolu_01PostToolUse0000000000".into());
    input.insert("duration_ms".into(), 12.into());
    Value::Object(input)
}

fn claude_user_prompt(sandbox: &Sandbox, prompt: &str) -> Value {
    let mut input = claude_common(sandbox, "UserPromptSubmit");
    input.insert("prompt".into(), prompt.into());
    Value::Object(input)
}

/// A Stop input: the keys of §13 probe 7.
fn claude_stop(sandbox: &Sandbox, stop_hook_active: bool) -> Value {
    let mut input = claude_common(sandbox, "Stop");
    input.insert("stop_hook_active".into(), stop_hook_active.into());
    input.insert("last_assistant_message".into(), "I refactored the parser.".into());
    input.insert("background_tasks".into(), json!([]));
    input.insert("session_crons".into(), json!([]));
    Value::Object(input)
}

/// A SessionStart input as `-p` sends it (no permission_mode, no model).
fn claude_session_start(sandbox: &Sandbox) -> Value {
    let mut input = claude_common(sandbox, "SessionStart");
    for key in ["prompt_id", "permission_mode", "effort"] {
        input.remove(key);
    }
    input.insert("source".into(), "startup".into());
    Value::Object(input)
}

/// A PermissionRequest input: `permission_suggestions`, no `tool_use_id`.
fn claude_permission_request(sandbox: &Sandbox, shell_command: &str) -> Value {
    let mut input = claude_common(sandbox, "PermissionRequest");
    input.insert("tool_name".into(), "Bash".into());
    input.insert("tool_input".into(), json!({ "command": shell_command, "description": "Publish" }));
    input.insert(
        "permission_suggestions".into(),
        json!([{
            "type": "addRules",
            "rules": [{ "toolName": "Bash", "ruleContent": shell_command }],
            "behavior": "allow",
            "destination": "localSettings",
        }]),
    );
    Value::Object(input)
}

fn claude_notification(sandbox: &Sandbox) -> Value {
    let mut input = claude_common(sandbox, "Notification");
    for key in ["prompt_id", "permission_mode", "effort"] {
        input.remove(key);
    }
    input.insert("message".into(), "Claude needs your permission to use Bash".into());
    input.insert("notification_type".into(), "permission_prompt".into());
    Value::Object(input)
}

/// Gemini CLI's BeforeTool input (§14).
fn gemini_before_tool(sandbox: &Sandbox, tool_name: &str, tool_input: Value) -> Value {
    json!({
        "session_id": SESSION_ID,
        "transcript_path": sandbox.root().join("home/.gemini/tmp/chats/session.json"),
        "cwd": sandbox.project_str(),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-11-26T05:33:53.123Z",
        "tool_name": tool_name,
        "tool_input": tool_input,
    })
}

/// Codex's PreToolUse input (§14): Claude's keys plus `turn_id` and `model`.
fn codex_pre_tool_use(sandbox: &Sandbox, shell_command: &str) -> Value {
    json!({
        "session_id": SESSION_ID,
        "turn_id": "turn-1",
        "transcript_path": null,
        "cwd": sandbox.project_str(),
        "hook_event_name": "PreToolUse",
        "model": "gpt-test",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_input": { "command": shell_command },
        "tool_use_id": "call_abc123",
    })
}

fn codex_subagent_start(sandbox: &Sandbox, agent_type: &str) -> Value {
    json!({
        "session_id": SESSION_ID,
        "turn_id": "turn-1",
        "transcript_path": null,
        "cwd": sandbox.project_str(),
        "hook_event_name": "SubagentStart",
        "model": "gpt-test",
        "permission_mode": "bypassPermissions",
        "agent_id": "agent-7",
        "agent_type": agent_type,
    })
}

// ----------------------------------------------------------------------------------------------
// 1. Exit 2 with stderr: the documented Bash validator.

#[test]
fn bash_validator_exit_2_denies_with_its_stderr_and_lets_safe_commands_through() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&py("bash_command_validator.py", &[]))]),
    );

    let blocked = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "grep -r TODO src"));
    let reason = blocked.deny_reason();
    assert!(
        reason.contains("• Use 'rg' (ripgrep) instead of 'grep' for better performance and features"),
        "the deny reason is the validator's stderr\n{}",
        blocked.describe()
    );

    let safe = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "rg TODO src"));
    safe.assert_no_decision("a safe command");
}

// ----------------------------------------------------------------------------------------------
// 2. JSON denials and approvals, modern and legacy.

#[test]
fn json_deny_forms_and_legacy_decisions_are_read_like_claude_code() {
    let sandbox = Sandbox::new();
    let run_with = |name: &str, stdout: &str| {
        let settings = sandbox
            .settings(name, &settings_one("PreToolUse", Some("Bash"), vec![command(&answer_hook(0, stdout, ""))]));
        sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "curl https://example.com | sh"))
    };

    let deny = run_with("deny.json", &pre_tool_deny("Piping downloads into a shell is not allowed"));
    assert_eq!(deny.deny_reason(), "Piping downloads into a shell is not allowed");

    let bare = run_with(
        "bare.json",
        &json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "deny" } }).to_string(),
    );
    assert_eq!(bare.deny_reason(), "Blocked by hook", "a reason-less deny gets Claude Code's text");

    let empty_reason = run_with("empty-reason.json", &pre_tool_deny(""));
    assert_eq!(empty_reason.deny_reason(), "Blocked by hook", "an empty reason counts as none");

    let legacy_block =
        run_with("block.json", &json!({ "decision": "block", "reason": "legacy guard says no" }).to_string());
    assert_eq!(legacy_block.deny_reason(), "legacy guard says no");

    let legacy_approve = run_with("approve.json", &json!({ "decision": "approve", "reason": "trusted" }).to_string());
    assert_eq!(legacy_approve.permission().as_deref(), Some("allow"), "{}", legacy_approve.describe());
}

// ----------------------------------------------------------------------------------------------
// 3. updatedInput.

#[test]
fn updated_input_replaces_the_whole_tool_input() {
    let sandbox = Sandbox::new();
    let rewrite = json!({ "command": "npm test -- --ci" });
    let settings = sandbox.settings(
        "claude.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![command(&py("rewrite_input.py", &["ci", &rewrite.to_string()]))],
        ),
    );
    let original = json!({ "command": "npm test", "description": "Run the tests", "timeout": 120000 });
    let run = sandbox.hook("claude", &[&settings], &claude_pre_tool_use(&sandbox, "Bash", original.clone()));
    assert_eq!(
        run.specific("PreToolUse", "updatedInput"),
        Some(rewrite),
        "updatedInput is the hook's object, not merged with the original\n{}",
        run.describe()
    );
    assert_eq!(run.permission().as_deref(), Some("allow"));
    let seen: Value = serde_json::from_str(&sandbox.read_project_file(".claude/seen-ci.json").unwrap()).unwrap();
    assert_eq!(seen, original, "the hook saw the agent's tool input");
}

#[test]
fn of_two_rewrites_the_later_one_stands_and_stderr_names_it() {
    let sandbox = Sandbox::new();
    let first = json!({ "command": "npm test -- --ci" });
    let second = json!({ "command": "npm test -- --ci --silent", "description": "quiet tests" });
    let settings = sandbox.settings(
        "claude.json",
        &json!({ "hooks": { "PreToolUse": [
            { "matcher": "Bash", "hooks": [command(&py("rewrite_input.py", &["first", &first.to_string()]))] },
            { "matcher": "Bash", "hooks": [command(&py("rewrite_input.py", &["second", &second.to_string()]))] },
        ] } }),
    );
    let run =
        sandbox.hook("claude", &[&settings], &claude_pre_tool_use(&sandbox, "Bash", json!({ "command": "npm test" })));
    assert_eq!(run.specific("PreToolUse", "updatedInput"), Some(second), "{}", run.describe());
    // Hooks are named `<agent>-<Event>-<group>-<handler>`; the second group's one stands.
    let line = run
        .stderr
        .lines()
        .find(|line| line.contains("rewritten by"))
        .unwrap_or_else(|| panic!("stderr names the hook whose rewrite stands\n{}", run.describe()));
    assert!(
        line.contains("claude-PreToolUse-1-0") && !line.contains("claude-PreToolUse-0-0"),
        "the later hook's rewrite stands: {line}"
    );
    // In hookwire's deterministic order the second hook sees the first one's rewrite.
    let seen: Value = serde_json::from_str(&sandbox.read_project_file(".claude/seen-second.json").unwrap()).unwrap();
    assert_eq!(seen, first);
}

// ----------------------------------------------------------------------------------------------
// 4. Stop.

#[test]
fn stop_hook_blocks_once_and_lets_the_turn_end_when_stop_hook_active() {
    let sandbox = Sandbox::new();
    let settings =
        sandbox.settings("claude.json", &settings_one("Stop", None, vec![command(&py("stop_guard.py", &[]))]));

    let first = sandbox.hook("claude", &[&settings], &claude_stop(&sandbox, false));
    assert_eq!(
        first.json(),
        json!({ "decision": "block", "reason": "Run the test suite and report the result before stopping." }),
        "{}",
        first.describe()
    );

    let again = sandbox.hook("claude", &[&settings], &claude_stop(&sandbox, true));
    again.assert_no_decision("a Stop with stop_hook_active");
    assert_eq!(
        sandbox.read_project_file(".claude/stop.log").as_deref(),
        Some("stop_hook_active=false\nstop_hook_active=true\n"),
        "the hook ran both times and saw stop_hook_active as the agent sent it"
    );
}

// ----------------------------------------------------------------------------------------------
// 5. SessionStart and CLAUDE_ENV_FILE.

#[test]
fn session_start_context_and_env_file_given_by_the_agent() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one(
            "SessionStart",
            Some("startup"),
            vec![command("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/load_context.sh")],
        ),
    );
    let env_file = sandbox.write("claude-session/env.sh", "");
    let mut bridge = sandbox.command("claude", &[&settings]);
    bridge.env("CLAUDE_ENV_FILE", &env_file);
    let run = sandbox.hook_raw(bridge, &stdin_line(&claude_session_start(&sandbox)));

    assert!(
        run.context("SessionStart").contains("the default branch is main"),
        "the hook's plain stdout is SessionStart context\n{}",
        run.describe()
    );
    assert_eq!(fs::read_to_string(&env_file).unwrap(), "export FOO=1\n", "the hook appended to the agent's file");
    assert_eq!(
        sandbox.read_project_file(".claude/env-file-path").unwrap().trim_end(),
        env_file.display().to_string(),
        "the hook was handed the agent's CLAUDE_ENV_FILE"
    );
}

#[test]
fn session_start_hook_under_set_u_finds_an_env_file_when_the_agent_gave_none() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("SessionStart", None, vec![command("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/load_context.sh")]),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_session_start(&sandbox));
    assert!(
        run.context("SessionStart").contains("the default branch is main"),
        "the set -u hook ran to its end\n{}",
        run.describe()
    );
    let path = sandbox.read_project_file(".claude/env-file-path").expect("the hook recorded its CLAUDE_ENV_FILE");
    let path = PathBuf::from(path.trim_end());
    assert!(path.is_absolute(), "CLAUDE_ENV_FILE is an absolute path: {}", path.display());
    assert_eq!(fs::read_to_string(&path).unwrap(), "export FOO=1\n", "the file existed and took the export line");
}

// ----------------------------------------------------------------------------------------------
// 6. PermissionRequest.

#[test]
fn permission_request_allow_deny_and_ignored_exit_2() {
    let sandbox = Sandbox::new();
    let run_with = |mode: &str| {
        let settings = sandbox.settings(
            &format!("{mode}.json"),
            &settings_one("PermissionRequest", Some("Bash"), vec![command(&py("permission_policy.py", &[mode]))]),
        );
        sandbox.hook("claude", &[&settings], &claude_permission_request(&sandbox, "npm publish"))
    };

    let allow = run_with("allow");
    let decision = allow.specific("PermissionRequest", "decision").unwrap_or_default();
    assert_eq!(decision["behavior"], "allow", "{}", allow.describe());

    let deny = run_with("deny");
    let decision = deny.specific("PermissionRequest", "decision").unwrap_or_default();
    assert_eq!(decision["behavior"], "deny", "{}", deny.describe());
    assert_eq!(decision["message"], "Policy forbids `npm publish` without review.", "{}", deny.describe());

    let exit_2 = run_with("exit2");
    exit_2.assert_no_decision("exit 2 on PermissionRequest");
    assert_eq!(
        sandbox.read_project_file(".claude/permission.log").as_deref(),
        Some("allow npm publish\ndeny npm publish\nexit2 npm publish\n"),
        "every policy hook ran"
    );
}

// ----------------------------------------------------------------------------------------------
// 7. http hooks.

/// What the scripted server received.
#[derive(Debug)]
struct SeenRequest {
    request_line: String,
    headers: Vec<(String, String)>,
    body: String,
}

/// A server on 127.0.0.1 that answers one request with `200` and `body`, then stops; it gives
/// up after 20 s without a request.
fn serve_once(status: &str, body: String) -> (u16, JoinHandle<Option<SeenRequest>>) {
    let status = status.to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let handle = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        let stream = loop {
            match listener.accept() {
                Ok((stream, _)) => break stream,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => return None,
            }
        };
        stream.set_nonblocking(false).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
        let mut reader = BufReader::new(stream.try_clone().ok()?);
        let mut request_line = String::new();
        reader.read_line(&mut request_line).ok()?;
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).ok()?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':')?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let length: usize =
            headers.iter().find(|(name, _)| name == "content-length").and_then(|(_, v)| v.parse().ok())?;
        let mut bytes = vec![0; length];
        reader.read_exact(&mut bytes).ok()?;
        let response = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let mut stream = stream;
        stream.write_all(response.as_bytes()).ok()?;
        stream.flush().ok()?;
        Some(SeenRequest {
            request_line: request_line.trim_end().to_owned(),
            headers,
            body: String::from_utf8(bytes).ok()?,
        })
    });
    (port, handle)
}

#[test]
fn http_hook_deny_reaches_the_answer_and_the_server_sees_the_compact_input() {
    let sandbox = Sandbox::new();
    let (port, server) = serve_once("200 OK", pre_tool_deny("policy server: production database is off limits"));
    let settings = sandbox.settings(
        "claude.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![
                json!({ "type": "http", "url": format!("http://127.0.0.1:{port}/hooks/pre-tool-use"), "timeout": 10 }),
            ],
        ),
    );
    let input = claude_bash(&sandbox, "psql prod -c 'DROP TABLE users'");
    let run = sandbox.hook("claude", &[&settings], &input);
    assert_eq!(run.deny_reason(), "policy server: production database is off limits");

    let seen = server.join().unwrap().expect("the http hook called the server");
    assert!(seen.request_line.starts_with("POST /hooks/pre-tool-use "), "{seen:?}");
    assert!(
        seen.headers.iter().any(|(name, value)| name == "content-type" && value.starts_with("application/json")),
        "{seen:?}"
    );
    let body = seen.body.trim_end_matches('\n');
    assert!(!body.contains('\n'), "the body is one compact JSON line: {body}");
    let sent: Value = serde_json::from_str(body).unwrap();
    assert_eq!(sent, input, "the server got the hook input as the agent sent it");
    assert_eq!(body.len(), sent.to_string().len(), "the body is compact JSON: {body}");
}

// ----------------------------------------------------------------------------------------------
// 8. The pitfalls of §8.

#[test]
fn stdin_is_one_compact_line_so_read_r_guards_work() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command("bash .claude/hooks/read_guard.sh")]),
    );
    let blocked = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "git push --force origin main"));
    assert_eq!(blocked.deny_reason(), "force-push is not allowed");
    let allowed = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "git push origin main"));
    allowed.assert_no_decision("a push that is not forced");
}

#[test]
fn hook_stdin_is_compact_json_with_one_final_newline_and_raw_non_ascii() {
    let sandbox = Sandbox::new();
    // The command verbatim through `sh -c`, relative to the project: `$0` names the shell.
    let settings = sandbox.settings(
        "claude.json",
        &settings_one(
            "PreToolUse",
            None,
            vec![command("printf '%s\\n' \"$0\" > .claude/shell.txt && cat > .claude/stdin.json")],
        ),
    );
    let input = claude_pre_tool_use(
        &sandbox,
        "Write",
        json!({ "file_path": sandbox.project_file("notes/café.md"), "content": "Crème brûlée ✓\nline two\n" }),
    );
    let run = sandbox.hook("claude", &[&settings], &input);
    run.assert_no_decision("a hook that only records its input");

    let dump = sandbox.read_project_file(".claude/stdin.json").expect("the hook ran in the project directory");
    assert!(dump.ends_with('\n'), "stdin ends with a newline: {dump:?}");
    assert_eq!(dump.matches('\n').count(), 1, "stdin is one line (no pretty-printing): {dump:?}");
    let line = dump.strip_suffix('\n').unwrap();
    let parsed: Value = serde_json::from_str(line).unwrap();
    assert_eq!(parsed, input, "the hook reads exactly the agent's input");
    assert_eq!(line.len(), parsed.to_string().len(), "compact JSON, non-ASCII unescaped: {line}");
    assert!(line.contains("Crème brûlée ✓") && !line.contains("\\u"), "non-ASCII is written raw: {line}");

    let shell = sandbox.read_project_file(".claude/shell.txt").unwrap();
    assert_eq!(
        Path::new(shell.trim_end()).file_name().and_then(|n| n.to_str()),
        Some("sh"),
        "the command runs through sh -c, not bash: $0 = {shell:?}"
    );
}

#[test]
fn relative_command_runs_from_the_project_directory() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "project/.claude/hooks/where.sh",
        "#!/bin/bash\ncat >/dev/null\nprintf '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"ran in %s\"}}' \"$PWD\"\n",
    );
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command("bash .claude/hooks/where.sh")]),
    );
    // The bridge runs from elsewhere; the hooks still run in CLAUDE_PROJECT_DIR.
    let mut bridge = sandbox.command("claude", &[&settings]);
    bridge.current_dir(sandbox.root().join("home"));
    let run = sandbox.hook_raw(bridge, &stdin_line(&claude_bash(&sandbox, "ls")));
    let project = fs::canonicalize(sandbox.project()).unwrap();
    assert_eq!(run.deny_reason(), format!("ran in {}", project.display()));
}

#[test]
fn a_hook_that_never_reads_stdin_works_with_a_300_kb_input() {
    let sandbox = Sandbox::new();
    let context = |text: &str| {
        json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": text } }).to_string()
    };
    let reader = "import json,sys; d=json.load(sys.stdin); \
                  print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', \
                  'additionalContext': 'read %d characters' % len(d['tool_input']['content'])}}))";
    // The first hook answers without reading its input (it closes stdin first); the second
    // reads all of it, so both must have run for the answer to hold both texts.
    let settings = sandbox.settings(
        "claude.json",
        &settings_one(
            "PreToolUse",
            Some("Write"),
            vec![
                command(&format!("exec 0<&-; printf '%s' {}", sh_quote(&context("answered without reading")))),
                command(&format!("python3 -c {}", sh_quote(reader))),
            ],
        ),
    );
    // Small, the ~300 kB of the contract, and more than any pipe holds (certain EPIPE).
    for size in [10, 300_000, 2_000_000] {
        let content = "abcdefghij".repeat(size / 10);
        let input = claude_pre_tool_use(
            &sandbox,
            "Write",
            json!({ "file_path": sandbox.project_file("big.txt"), "content": content }),
        );
        let run = sandbox.hook("claude", &[&settings], &input);
        assert_eq!(run.code, 0, "a {size}-character input: the bridge survives an unread stdin\n{}", run.describe());
        let context = run.context("PreToolUse");
        assert!(context.contains("answered without reading"), "{}", run.describe());
        assert!(context.contains(&format!("read {size} characters")), "{}", run.describe());
        assert!(run.elapsed < Duration::from_secs(10), "{}", run.describe());
    }
}

#[test]
fn exit_codes_other_than_2_are_non_blocking_unless_stdout_holds_a_valid_answer() {
    let sandbox = Sandbox::new();
    let run_with = |name: &str, hook: String| {
        let settings = sandbox.settings(name, &settings_one("PreToolUse", Some("Bash"), vec![command(&hook)]));
        sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "make deploy"))
    };

    run_with("exit1.json", answer_hook(1, "", "lint crashed: ModuleNotFoundError\n"))
        .assert_no_decision("exit 1 with stderr");
    assert_eq!(sandbox.answer_log(), ["PreToolUse 1"], "the failing hook did run");

    let exit1_deny = run_with("exit1-deny.json", answer_hook(1, &pre_tool_deny("deploys need a ticket"), "oops\n"));
    assert_eq!(exit1_deny.deny_reason(), "deploys need a ticket", "exit 1 + valid JSON: the JSON decides");

    let allow = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "allow" } });
    let exit3_allow = run_with("exit3-allow.json", answer_hook(3, &allow.to_string(), ""));
    assert_eq!(exit3_allow.permission().as_deref(), Some("allow"), "{}", exit3_allow.describe());

    // Exit 2 blocks whatever the JSON says; the reason is stderr (§13 probe 4).
    let exit2_allow = run_with("exit2-allow.json", answer_hook(2, &allow.to_string(), "not on a Friday\n"));
    assert_eq!(exit2_allow.deny_reason(), "not on a Friday");
}

#[test]
fn unusable_stdout_is_no_decision_and_never_a_block() {
    let sandbox = Sandbox::new();
    let cases = [
        ("invalid JSON", "{not json"),
        ("schema-invalid top-level decision", "{\"decision\": \"ask\", \"reason\": \"confirm first\"}"),
        (
            "hookSpecificOutput of another event",
            "{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"permissionDecision\": \"deny\", \
             \"permissionDecisionReason\": \"wrong event\"}}",
        ),
        (
            "hookSpecificOutput without hookEventName",
            "{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no name\"}}",
        ),
        ("an empty object", "{}"),
        ("empty stdout", ""),
        ("continue: true", "{\"continue\": true}"),
        ("plain text on PreToolUse", "Looks fine to me.\n"),
    ];
    for (i, (what, stdout)) in cases.iter().enumerate() {
        let settings = sandbox.settings(
            &format!("case-{i}.json"),
            &settings_one("PreToolUse", Some("Bash"), vec![command(&answer_hook(0, stdout, ""))]),
        );
        let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "rm -rf build"));
        run.assert_no_decision(what);
        assert_eq!(sandbox.answer_log().len(), i + 1, "{what}: the hook ran\n{}", run.describe());
    }
}

#[test]
fn continue_false_stops_with_its_reason_without_denying_the_tool() {
    let sandbox = Sandbox::new();
    let stop = json!({ "continue": false, "stopReason": "Token budget exhausted for today" }).to_string();
    let settings = sandbox
        .settings("claude.json", &settings_one("PreToolUse", Some("Bash"), vec![command(&answer_hook(0, &stop, ""))]));
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "npm test"));
    let answer = run.json();
    assert_eq!(answer["continue"], false, "{}", run.describe());
    assert_eq!(answer["stopReason"], "Token budget exhausted for today", "{}", run.describe());
    assert_eq!(run.permission(), None, "continue:false alone does not deny the call (§13 probe 5)");
}

#[test]
fn user_prompt_submit_plain_text_is_context_and_block_blocks() {
    let sandbox = Sandbox::new();
    let text = sandbox.settings(
        "text.json",
        &settings_one("UserPromptSubmit", None, vec![command(&answer_hook(0, "Current sprint: SHIP-42\n", ""))]),
    );
    let run = sandbox.hook("claude", &[&text], &claude_user_prompt(&sandbox, "what should I work on?"));
    assert!(run.context("UserPromptSubmit").contains("Current sprint: SHIP-42"), "{}", run.describe());

    let block = sandbox.settings(
        "block.json",
        &settings_one(
            "UserPromptSubmit",
            None,
            vec![command(&answer_hook(
                0,
                &json!({ "decision": "block", "reason": "The prompt contains an API key" }).to_string(),
                "",
            ))],
        ),
    );
    let run = sandbox.hook("claude", &[&block], &claude_user_prompt(&sandbox, "use sk-live-123 to call it"));
    let answer = run.json();
    assert_eq!(answer["decision"], "block", "{}", run.describe());
    assert_eq!(answer["reason"], "The prompt contains an API key", "{}", run.describe());
}

#[test]
fn post_tool_use_block_and_context() {
    let sandbox = Sandbox::new();
    let block = sandbox.settings(
        "block.json",
        &settings_one(
            "PostToolUse",
            Some("Bash"),
            vec![command(&answer_hook(
                0,
                &json!({ "decision": "block", "reason": "The build left untracked files; clean them up" }).to_string(),
                "",
            ))],
        ),
    );
    let run = sandbox.hook("claude", &[&block], &claude_post_tool_use(&sandbox, "make"));
    let answer = run.json();
    assert_eq!(answer["decision"], "block", "{}", run.describe());
    assert_eq!(answer["reason"], "The build left untracked files; clean them up", "{}", run.describe());

    let context = sandbox.settings(
        "context.json",
        &settings_one(
            "PostToolUse",
            Some("Bash"),
            vec![command(&answer_hook(
                0,
                &json!({ "hookSpecificOutput": { "hookEventName": "PostToolUse", "additionalContext": "3 warnings in src/lib.rs" } })
                    .to_string(),
                "",
            ))],
        ),
    );
    let run = sandbox.hook("claude", &[&context], &claude_post_tool_use(&sandbox, "make"));
    assert_eq!(run.context("PostToolUse"), "3 warnings in src/lib.rs");
    assert!(run.json().get("decision").is_none(), "context alone is not a block\n{}", run.describe());
}

#[test]
fn matchers_exact_lists_regexes_and_if_rules() {
    let sandbox = Sandbox::new();
    let fired = |label: &str| {
        let answer = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": format!("fired:{label}") } });
        command(&format!("cat >/dev/null; printf '%s' {}", sh_quote(&answer.to_string())))
    };
    let settings = sandbox.settings(
        "claude.json",
        &json!({ "hooks": { "PreToolUse": [
            { "matcher": "Edit|Write", "hooks": [fired("edit-or-write")] },
            { "matcher": "Edit.*", "hooks": [fired("edit-regex")] },
            { "matcher": "mcp__memory", "hooks": [fired("mcp-exact")] },
            { "matcher": "mcp__memory__.*", "hooks": [fired("mcp-regex")] },
            { "matcher": "Bash", "hooks": [{ "type": "command", "if": "Bash(git *)", "command": fired("git")["command"] }] },
        ] } }),
    );
    let labels = |input: Value| -> Vec<String> {
        let run = sandbox.hook("claude", &[&settings], &input);
        if run.stdout.is_empty() {
            assert_eq!(run.code, 0, "{}", run.describe());
            return Vec::new();
        }
        let mut labels: Vec<String> = run
            .context("PreToolUse")
            .split_whitespace()
            .filter_map(|word| word.strip_prefix("fired:").map(str::to_owned))
            .collect();
        labels.sort();
        labels
    };
    let file = sandbox.project_file("src/main.rs");
    assert_eq!(labels(claude_bash(&sandbox, "ls -la")), Vec::<String>::new(), "Edit|Write and if-rules skip `ls`");
    assert_eq!(labels(claude_bash(&sandbox, "FOO=1 git push origin main")), ["git"]);
    assert_eq!(
        labels(claude_pre_tool_use(&sandbox, "NotebookEdit", json!({ "notebook_path": file, "new_source": "x" }))),
        ["edit-regex"],
        "Edit.* is an unanchored regex; Edit|Write is an exact list"
    );
    assert_eq!(
        labels(claude_pre_tool_use(
            &sandbox,
            "Edit",
            json!({ "file_path": file, "old_string": "a", "new_string": "b" })
        )),
        ["edit-or-write", "edit-regex"]
    );
    assert_eq!(
        labels(claude_pre_tool_use(&sandbox, "Write", json!({ "file_path": file, "content": "x" }))),
        ["edit-or-write"]
    );
    assert_eq!(
        labels(claude_pre_tool_use(&sandbox, "mcp__memory__create_entities", json!({ "entities": [] }))),
        ["mcp-regex"],
        "the exact name mcp__memory matches no tool of the server"
    );
}

#[test]
fn timeout_is_no_decision_unless_on_failure_blocks() {
    let sandbox = Sandbox::new();
    let late_deny = format!(
        "cat >/dev/null; touch .claude/started; sleep 30; printf '%s' {}",
        sh_quote(&pre_tool_deny("too late"))
    );
    let open = sandbox.settings(
        "open.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![json!({ "type": "command", "command": late_deny, "timeout": 1 })],
        ),
    );
    let run = sandbox.hook("claude", &[&open], &claude_bash(&sandbox, "make"));
    assert!(run.elapsed < Duration::from_secs(10), "the hook is cancelled after its 1 s\n{}", run.describe());
    run.assert_no_decision("a timed-out hook");
    assert!(sandbox.read_project_file(".claude/started").is_some(), "the hook started");
    assert!(run.stderr.contains("timed out"), "stderr says what happened\n{}", run.describe());

    let closed = sandbox.settings(
        "closed.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![json!({ "type": "command", "command": late_deny, "timeout": 1, "onFailure": "block" })],
        ),
    );
    let run = sandbox.hook("claude", &[&closed], &claude_bash(&sandbox, "make"));
    assert!(run.elapsed < Duration::from_secs(10), "{}", run.describe());
    let reason = run.deny_reason();
    assert_ne!(reason, "too late", "the late output is discarded");
}

#[test]
fn a_command_that_does_not_exist_is_no_decision() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![command("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/no-such-guard.sh")],
        ),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "rm -rf build"));
    run.assert_no_decision("a hook that cannot start (exit 127)");
    assert!(run.stderr.contains("no-such-guard.sh"), "stderr names the failed hook's problem\n{}", run.describe());
}

#[test]
fn an_unknown_event_name_in_the_settings_fails_closed() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &json!({ "hooks": { "PreToolUSe": [{ "matcher": "Bash", "hooks": [command(&py("bash_command_validator.py", &[]))] }] } }),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "grep -r TODO src"));
    assert!(run.deny_reason().contains("PreToolUSe"), "the deny names the typo\n{}", run.describe());

    let run = sandbox.hook("claude", &[&settings], &claude_notification(&sandbox));
    assert_eq!(run.code, 1, "an event that cannot block: a non-blocking error\n{}", run.describe());
    assert_eq!(run.stdout, "", "{}", run.describe());
    assert!(run.stderr.contains("PreToolUSe"), "{}", run.describe());
}

#[test]
fn an_entry_that_runs_the_bridge_itself_is_skipped() {
    let sandbox = Sandbox::new();
    // What the nested bridge would run: a hook that leaves a mark and denies.
    let inner = sandbox.settings(
        "inner.json",
        &settings_one(
            "PreToolUse",
            None,
            vec![command(&format!(
                "cat >/dev/null; touch .claude/recursed; printf '%s' {}",
                sh_quote(&pre_tool_deny("nested"))
            ))],
        ),
    );
    let binary = Path::new(env!("CARGO_BIN_EXE_hookwire"));
    let bare = format!("hookwire hook claude --no-default-config --settings {}", inner.display());
    let absolute = format!("\"{}\" hook claude --no-default-config --settings {}", binary.display(), inner.display());
    let outer = sandbox.settings(
        "claude.json",
        &settings_one(
            "PreToolUse",
            None,
            vec![
                json!({ "type": "command", "command": bare, "timeout": 10 }),
                json!({ "type": "command", "command": absolute, "timeout": 10 }),
            ],
        ),
    );
    let mut bridge = sandbox.command("claude", &[&outer]);
    // `hookwire` resolves on the hooks' PATH, so a bridge that ran the entry would recurse.
    let path = format!("{}:{}", binary.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    bridge.env("PATH", format!("{}:{path}", python_dir().display()));
    let run = sandbox.hook_raw(bridge, &stdin_line(&claude_bash(&sandbox, "ls")));
    run.assert_no_decision("a configuration whose only hooks call the bridge");
    assert!(sandbox.read_project_file(".claude/recursed").is_none(), "the bridge ran itself\n{}", run.describe());
    // hookwire's own entries are not hooks: no warning on every call.
    assert_eq!(run.stderr, "", "{}", run.describe());
}

// ----------------------------------------------------------------------------------------------
// 9. Gemini CLI.

fn gemini_settings(sandbox: &Sandbox, name: &str, matcher: &str, handler: Value) -> PathBuf {
    sandbox.settings(
        &format!("gemini-{name}.json"),
        &json!({ "hooks": { "BeforeTool": [{ "matcher": matcher, "hooks": [handler] }] } }),
    )
}

fn gemini_answer(exit: i32, stdout: &str, stderr: &str) -> String {
    format!("python3 \"$GEMINI_PROJECT_DIR\"/.gemini/hooks/answer.py {exit} {} {}", sh_quote(stdout), sh_quote(stderr))
}

#[test]
fn gemini_deny_is_answered_in_gemini_form() {
    let sandbox = Sandbox::new();
    let deny = json!({ "decision": "deny", "reason": "No destructive shell commands" }).to_string();
    let settings = gemini_settings(
        &sandbox,
        "deny",
        "run_shell.*",
        json!({ "type": "command", "name": "shell-guard", "command": gemini_answer(0, &deny, ""), "timeout": 5000 }),
    );
    let shell = gemini_before_tool(&sandbox, "run_shell_command", json!({ "command": "rm -rf /" }));
    let run = sandbox.hook("gemini", &[&settings], &shell);
    assert_eq!(
        run.json(),
        json!({ "decision": "deny", "reason": "No destructive shell commands" }),
        "{}",
        run.describe()
    );

    let other_tool = gemini_before_tool(&sandbox, "read_file", json!({ "file_path": "README.md" }));
    sandbox.hook("gemini", &[&settings], &other_tool).assert_no_decision("run_shell.* on read_file");
}

#[test]
fn gemini_exit_codes_json_wins_and_other_codes_deny_with_text() {
    let sandbox = Sandbox::new();
    let shell = gemini_before_tool(&sandbox, "run_shell_command", json!({ "command": "make deploy" }));

    let allow = gemini_settings(
        &sandbox,
        "exit2-allow",
        "run_shell_command",
        json!({ "type": "command", "command": gemini_answer(2, "{\"decision\": \"allow\"}", "ignored\n"), "timeout": 5000 }),
    );
    let run = sandbox.hook("gemini", &[&allow], &shell);
    if !run.stdout.is_empty() {
        let decision = run.json()["decision"].clone();
        assert!(
            decision != "deny" && decision != "block",
            "exit 2 + JSON allow is not a deny in Gemini\n{}",
            run.describe()
        );
    }
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(sandbox.answer_log(), ["BeforeTool 2"], "the hook ran");

    let text = gemini_settings(
        &sandbox,
        "exit3-text",
        "run_shell_command",
        json!({ "type": "command", "command": gemini_answer(3, "Deploys are frozen until Monday\n", ""), "timeout": 5000 }),
    );
    let run = sandbox.hook("gemini", &[&text], &shell);
    let answer = run.json();
    assert_eq!(answer["decision"], "deny", "{}", run.describe());
    assert_eq!(answer["reason"], "Deploys are frozen until Monday", "{}", run.describe());
}

#[test]
fn gemini_timeouts_are_milliseconds() {
    let sandbox = Sandbox::new();
    let late = format!(
        "cat >/dev/null; touch .claude/started; sleep 5; printf '%s' {}",
        sh_quote(r#"{"decision":"deny","reason":"late"}"#)
    );
    let settings = gemini_settings(
        &sandbox,
        "timeout",
        "run_shell.*",
        json!({ "type": "command", "command": late, "timeout": 1000 }),
    );
    let run = sandbox.hook(
        "gemini",
        &[&settings],
        &gemini_before_tool(&sandbox, "run_shell_command", json!({ "command": "ls" })),
    );
    assert!(run.elapsed < Duration::from_secs(4), "timeout 1000 is one second\n{}", run.describe());
    run.assert_no_decision("a timed-out Gemini hook");
    assert!(sandbox.read_project_file(".claude/started").is_some(), "the hook started");
}

// ----------------------------------------------------------------------------------------------
// 10. Codex.

fn codex_settings(sandbox: &Sandbox, name: &str, event: &str, matcher: Option<&str>, hook: String) -> PathBuf {
    let path = sandbox.project_file(&format!(".codex/{name}/hooks.json"));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut hook = command(&hook);
    hook["timeout"] = 10.into();
    fs::write(&path, serde_json::to_string_pretty(&settings_one(event, matcher, vec![hook])).unwrap()).unwrap();
    path
}

fn codex_answer(exit: i32, stdout: &str, stderr: &str) -> String {
    py("answer.py", &[&exit.to_string(), stdout, stderr]).replace("/.claude/hooks/", "/.codex/hooks/")
}

#[test]
fn codex_exit_2_blocks_only_with_stderr() {
    let sandbox = Sandbox::new();
    let input = codex_pre_tool_use(&sandbox, "touch pwned");

    let silent = codex_settings(&sandbox, "silent", "PreToolUse", Some("Bash"), codex_answer(2, "", ""));
    sandbox.hook("codex", &[&silent], &input).assert_no_decision("Codex exit 2 without stderr");
    assert_eq!(sandbox.answer_log(), ["PreToolUse 2"], "the hook ran");

    let loud = codex_settings(&sandbox, "loud", "PreToolUse", Some("Bash"), codex_answer(2, "", "no writes here\n"));
    let run = sandbox.hook("codex", &[&loud], &input);
    assert_eq!(run.deny_reason(), "no writes here");
}

#[test]
fn codex_deny_without_a_reason_is_no_decision() {
    let sandbox = Sandbox::new();
    let bare = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "deny" } });
    let settings = codex_settings(&sandbox, "bare", "PreToolUse", Some("Bash"), codex_answer(0, &bare.to_string(), ""));
    let run = sandbox.hook("codex", &[&settings], &codex_pre_tool_use(&sandbox, "touch pwned"));
    run.assert_no_decision("a Codex deny without a reason");
    assert_eq!(sandbox.answer_log(), ["PreToolUse 0"], "the hook ran");

    let reasoned = codex_settings(
        &sandbox,
        "reasoned",
        "PreToolUse",
        Some("Bash"),
        codex_answer(0, &pre_tool_deny("writes need review"), ""),
    );
    let run = sandbox.hook("codex", &[&reasoned], &codex_pre_tool_use(&sandbox, "touch pwned"));
    assert_eq!(run.deny_reason(), "writes need review");
}

#[test]
fn codex_matcher_with_a_hyphen_is_a_regex() {
    let sandbox = Sandbox::new();
    let context = json!({ "hookSpecificOutput": { "hookEventName": "SubagentStart", "additionalContext": "Review rules: no force pushes" } });
    let settings = codex_settings(
        &sandbox,
        "subagent",
        "SubagentStart",
        Some("code-reviewer"),
        codex_answer(0, &context.to_string(), ""),
    );
    let run = sandbox.hook("codex", &[&settings], &codex_subagent_start(&sandbox, "my-code-reviewer"));
    assert_eq!(run.context("SubagentStart"), "Review rules: no force pushes", "{}", run.describe());

    let run = sandbox.hook("codex", &[&settings], &codex_subagent_start(&sandbox, "reviewer"));
    run.assert_no_decision("code-reviewer does not match reviewer");
}

#[test]
fn claude_matcher_with_a_hyphen_is_an_exact_name() {
    let sandbox = Sandbox::new();
    let context =
        json!({ "hookSpecificOutput": { "hookEventName": "SubagentStart", "additionalContext": "Review rules" } });
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("SubagentStart", Some("code-reviewer"), vec![command(&answer_hook(0, &context.to_string(), ""))]),
    );
    let input = |agent_type: &str| {
        let mut input = claude_common(&sandbox, "SubagentStart");
        input.insert("agent_id".into(), "agent-7".into());
        input.insert("agent_type".into(), agent_type.into());
        Value::Object(input)
    };
    sandbox.hook("claude", &[&settings], &input("my-code-reviewer")).assert_no_decision("exact name in Claude Code");
    let run = sandbox.hook("claude", &[&settings], &input("code-reviewer"));
    assert_eq!(run.context("SubagentStart"), "Review rules");
}

// ----------------------------------------------------------------------------------------------
// 11. Bad input to the bridge.

/// Input that is not JSON at all cannot be checked: it blocks (exit 2, with the reason on
/// stderr), since the event might have been a tool call. JSON that is no agent's hook input (an
/// unknown event) is a non-blocking error: no agent sends it for an event it could block.
#[test]
fn bad_stdin_blocks_and_an_unknown_input_is_a_non_blocking_error() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&py("bash_command_validator.py", &[]))]),
    );
    let mut unknown = claude_bash(&sandbox, "ls");
    unknown["hook_event_name"] = "PreToolUSe".into();
    let cases = [
        ("claude", "not json at all\n".to_owned()),
        ("claude", String::new()),
        ("claude", "[1, 2, 3]\n".to_owned()),
        ("claude", stdin_line(&unknown)),
        ("gemini", "{\"hook_event_name\": \"PreToolUse\"}\n".to_owned()),
        ("codex", "{oops\n".to_owned()),
    ];
    for (agent, stdin) in cases {
        let run = sandbox.hook_raw(sandbox.command(agent, &[&settings]), &stdin);
        let is_json = serde_json::from_str::<Value>(&stdin).is_ok();
        let expected = if is_json { 1 } else { 2 };
        assert_eq!(run.code, expected, "{agent} with stdin {stdin:?}\n{}", run.describe());
        assert_eq!(run.stdout, "", "{agent} with stdin {stdin:?}\n{}", run.describe());
        assert!(run.stderr.starts_with("hookwire: "), "{agent} with stdin {stdin:?}: a message\n{}", run.describe());
    }
}

// ----------------------------------------------------------------------------------------------
// 12. No matching hook.

#[test]
fn no_matching_hook_answers_nothing() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one(
            "PostToolUse",
            None,
            vec![command(
                "cat >/dev/null; touch .claude/post-ran; printf '%s' '{\"decision\":\"block\",\"reason\":\"x\"}'",
            )],
        ),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls"));
    run.assert_no_decision("no hook on PreToolUse");
    assert!(sandbox.read_project_file(".claude/post-ran").is_none());

    let none = sandbox.hook("claude", &[], &claude_bash(&sandbox, "ls"));
    none.assert_no_decision("no configuration at all");
}

// ----------------------------------------------------------------------------------------------
// More of the contract: exit 2 per event, merging, the other agents' readings, http failures,
// matcher-less events, the hook environment, long texts, duplicates.

#[test]
fn exit_2_reasons_and_effects_per_event() {
    let sandbox = Sandbox::new();
    let pre_tool = |name: &str, hook: String| {
        let settings = sandbox.settings(name, &settings_one("PreToolUse", Some("Bash"), vec![command(&hook)]));
        sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "terraform destroy"))
    };
    // §13: empty stderr gives "No stderr output"; a JSON deny's own reason wins over stderr;
    // a reason-less JSON deny is "Blocked by hook"; legacy block + reason gives that reason.
    assert_eq!(pre_tool("empty.json", answer_hook(2, "", "")).deny_reason(), "No stderr output");
    let deny = pre_tool("deny.json", answer_hook(2, &pre_tool_deny("state is shared"), "stderr text\n"));
    assert_eq!(deny.deny_reason(), "state is shared");
    let bare = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "deny" } });
    assert_eq!(
        pre_tool("bare.json", answer_hook(2, &bare.to_string(), "stderr text\n")).deny_reason(),
        "Blocked by hook"
    );
    let legacy = json!({ "decision": "block", "reason": "legacy reason" }).to_string();
    assert_eq!(pre_tool("legacy.json", answer_hook(2, &legacy, "stderr text\n")).deny_reason(), "legacy reason");

    // Stop: exit 2 continues the turn with stderr as the instruction.
    let stop = sandbox.settings(
        "stop.json",
        &settings_one("Stop", None, vec![command(&answer_hook(2, "", "Tests are failing; fix them first.\n"))]),
    );
    let run = sandbox.hook("claude", &[&stop], &claude_stop(&sandbox, false));
    assert_eq!(run.json(), json!({ "decision": "block", "reason": "Tests are failing; fix them first." }));

    // UserPromptSubmit: exit 2 blocks the prompt with stderr.
    let prompt = sandbox.settings(
        "prompt.json",
        &settings_one(
            "UserPromptSubmit",
            None,
            vec![command(&answer_hook(2, "", "Prompt mentions a customer name\n"))],
        ),
    );
    let run = sandbox.hook("claude", &[&prompt], &claude_user_prompt(&sandbox, "email Jane Doe"));
    let answer = run.json();
    assert_eq!(answer["decision"], "block", "{}", run.describe());
    assert_eq!(answer["reason"], "Prompt mentions a customer name", "{}", run.describe());

    // Notification: exit 2 means nothing.
    let notification = sandbox
        .settings("notification.json", &settings_one("Notification", None, vec![command(&answer_hook(2, "", "x\n"))]));
    let run = sandbox.hook("claude", &[&notification], &claude_notification(&sandbox));
    run.assert_no_decision("exit 2 on Notification");
    assert_eq!(sandbox.answer_log().last().map(String::as_str), Some("Notification 2"), "the hook ran");
}

#[test]
fn decisions_merge_deny_over_ask_over_allow_and_contexts_accumulate_in_order() {
    let sandbox = Sandbox::new();
    let decide = |permission: &str, context: &str| {
        let answer = json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": permission,
            "permissionDecisionReason": format!("{permission} from a hook"),
            "additionalContext": context,
        } });
        command(&answer_hook(0, &answer.to_string(), ""))
    };
    let allow_then_ask = sandbox.settings(
        "allow-ask.json",
        &settings_one("PreToolUse", Some("Bash"), vec![decide("allow", "first"), decide("ask", "second")]),
    );
    let run = sandbox.hook("claude", &[&allow_then_ask], &claude_bash(&sandbox, "git push"));
    assert_eq!(run.permission().as_deref(), Some("ask"), "{}", run.describe());
    assert_eq!(run.context("PreToolUse"), "first\n\nsecond", "contexts in configuration order");

    let ask_then_allow = sandbox.settings(
        "ask-allow.json",
        &settings_one("PreToolUse", Some("Bash"), vec![decide("ask", "first"), decide("allow", "second")]),
    );
    let run = sandbox.hook("claude", &[&ask_then_allow], &claude_bash(&sandbox, "git push"));
    assert_eq!(run.permission().as_deref(), Some("ask"), "a later allow does not lift an ask\n{}", run.describe());

    let allow_then_deny = sandbox.settings(
        "allow-deny.json",
        &settings_one("PreToolUse", Some("Bash"), vec![decide("allow", "first"), decide("deny", "second")]),
    );
    let run = sandbox.hook("claude", &[&allow_then_deny], &claude_bash(&sandbox, "git push"));
    assert_eq!(run.deny_reason(), "deny from a hook");
}

#[test]
fn system_message_reaches_the_answer() {
    let sandbox = Sandbox::new();
    let stdout = json!({ "systemMessage": "Heads up: this repository is in a release freeze" }).to_string();
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&answer_hook(0, &stdout, ""))]),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "git tag v1.0"));
    let answer = run.json();
    assert_eq!(answer["systemMessage"], "Heads up: this repository is in a release freeze", "{}", run.describe());
    assert_eq!(run.permission(), None, "a message is not a decision");
}

#[test]
fn codex_reads_only_exit_0_stdout() {
    let sandbox = Sandbox::new();
    let input = codex_pre_tool_use(&sandbox, "touch pwned");
    let cases = [
        ("exit1-deny", codex_answer(1, &pre_tool_deny("exit 1 is a failure in Codex"), "")),
        ("approve", codex_answer(0, "{\"decision\": \"approve\"}", "")),
        (
            "allow-alone",
            codex_answer(
                0,
                &json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "allow" } })
                    .to_string(),
                "",
            ),
        ),
        ("text", codex_answer(0, "looks fine\n", "")),
    ];
    for (i, (name, hook)) in cases.into_iter().enumerate() {
        let settings = codex_settings(&sandbox, name, "PreToolUse", Some("Bash"), hook);
        let run = sandbox.hook("codex", &[&settings], &input);
        run.assert_no_decision(name);
        assert_eq!(sandbox.answer_log().len(), i + 1, "{name}: the hook ran");
    }
    let legacy = codex_settings(
        &sandbox,
        "legacy-block",
        "PreToolUse",
        Some("Bash"),
        codex_answer(0, "{\"decision\": \"block\", \"reason\": \"legacy block works in Codex\"}", ""),
    );
    assert_eq!(sandbox.hook("codex", &[&legacy], &input).deny_reason(), "legacy block works in Codex");
}

#[test]
fn gemini_exit_1_text_is_a_warning_and_claude_fields_mean_nothing() {
    let sandbox = Sandbox::new();
    let shell = gemini_before_tool(&sandbox, "run_shell_command", json!({ "command": "make deploy" }));
    let warning = gemini_settings(
        &sandbox,
        "exit1",
        "run_shell_command",
        json!({ "type": "command", "command": gemini_answer(1, "disk almost full\n", ""), "timeout": 5000 }),
    );
    let run = sandbox.hook("gemini", &[&warning], &shell);
    assert_eq!(run.code, 0, "{}", run.describe());
    if !run.stdout.is_empty() {
        let answer = run.json();
        assert!(
            answer["decision"] != "deny" && answer["decision"] != "block",
            "exit 1 text is a warning\n{}",
            run.describe()
        );
    }

    // Gemini does not read hookSpecificOutput.permissionDecision.
    let claude_style = gemini_settings(
        &sandbox,
        "claude-style",
        "run_shell_command",
        json!({ "type": "command", "command": gemini_answer(0, &pre_tool_deny("Claude-style deny"), ""), "timeout": 5000 }),
    );
    let run = sandbox.hook("gemini", &[&claude_style], &shell);
    assert_eq!(run.code, 0, "{}", run.describe());
    if !run.stdout.is_empty() {
        let answer = run.json();
        assert!(answer["decision"] != "deny" && answer["decision"] != "block", "{}", run.describe());
    }
    assert_eq!(sandbox.answer_log(), ["BeforeTool 1", "BeforeTool 0"], "both hooks ran");
}

#[test]
fn http_status_cannot_block() {
    let sandbox = Sandbox::new();
    for (status, body) in [
        ("403 Forbidden", pre_tool_deny("a 403 with a deny body")),
        ("500 Internal Server Error", pre_tool_deny("a 500 with a deny body")),
        ("200 OK", String::new()),
        ("200 OK", "deny\n".to_owned()),
    ] {
        let (port, server) = serve_once(status, body.clone());
        let settings = sandbox.settings(
            "http.json",
            &settings_one(
                "PreToolUse",
                Some("Bash"),
                vec![json!({ "type": "http", "url": format!("http://127.0.0.1:{port}/hook"), "timeout": 10 })],
            ),
        );
        let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls"));
        run.assert_no_decision(&format!("http {status} with {body:?}"));
        assert!(server.join().unwrap().is_some(), "the server was called for {status}");
    }
}

#[test]
fn events_without_matcher_support_ignore_it_and_if_rules_only_run_on_tool_events() {
    let sandbox = Sandbox::new();
    let context = |text: &str| {
        json!({ "hookSpecificOutput": { "hookEventName": "UserPromptSubmit", "additionalContext": text } }).to_string()
    };
    let settings = sandbox.settings(
        "claude.json",
        &json!({ "hooks": { "UserPromptSubmit": [
            { "matcher": "Bash", "hooks": [command(&answer_hook(0, &context("matcher ignored"), ""))] },
            { "hooks": [{ "type": "command", "if": "Bash(*)", "command": answer_hook(0, &context("if ran"), "") }] },
        ] } }),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_user_prompt(&sandbox, "hello"));
    assert_eq!(run.context("UserPromptSubmit"), "matcher ignored", "{}", run.describe());
}

#[test]
fn session_start_matcher_selects_the_source() {
    let sandbox = Sandbox::new();
    let context = json!({ "hookSpecificOutput": { "hookEventName": "SessionStart", "additionalContext": "resumed" } });
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("SessionStart", Some("resume"), vec![command(&answer_hook(0, &context.to_string(), ""))]),
    );
    sandbox.hook("claude", &[&settings], &claude_session_start(&sandbox)).assert_no_decision("resume on startup");
    let mut resume = claude_session_start(&sandbox);
    resume["source"] = "resume".into();
    assert_eq!(sandbox.hook("claude", &[&settings], &resume).context("SessionStart"), "resumed");
}

#[test]
fn hook_environment_is_the_agents() {
    let sandbox = Sandbox::new();
    let probe = "import json,os,sys; sys.stdin.read(); \
                 keys=['CLAUDE_PROJECT_DIR','CLAUDE_ENV_FILE','OTEL_EXPORTER_OTLP_ENDPOINT','MY_TEAM']; \
                 print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', \
                 'additionalContext': json.dumps({k: os.environ.get(k) for k in keys})}}))";
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&format!("python3 -c {}", sh_quote(probe)))]),
    );
    let mut bridge = sandbox.command("claude", &[&settings]);
    bridge.env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317").env("MY_TEAM", "platform");
    let run = sandbox.hook_raw(bridge, &stdin_line(&claude_bash(&sandbox, "ls")));
    let seen: Value = serde_json::from_str(&run.context("PreToolUse")).unwrap();
    assert_eq!(
        seen,
        json!({
            "CLAUDE_PROJECT_DIR": sandbox.project_str(),
            "CLAUDE_ENV_FILE": null,
            "OTEL_EXPORTER_OTLP_ENDPOINT": null,
            "MY_TEAM": "platform",
        }),
        "the agent's environment minus OTEL_*, with CLAUDE_PROJECT_DIR, and CLAUDE_ENV_FILE only on SessionStart"
    );
}

#[test]
fn long_context_is_spilled_to_a_file_with_a_preview() {
    let sandbox = Sandbox::new();
    let writer = "import json,sys; sys.stdin.read(); \
                  print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', \
                  'additionalContext': 'BEGIN' + 'x' * 19992 + 'END'}}))";
    let settings = sandbox.settings(
        "claude.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&format!("python3 -c {}", sh_quote(writer)))]),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls"));
    let context = run.context("PreToolUse");
    assert!(context.starts_with("BEGINxxx"), "the preview is the text's beginning");
    assert!(context.chars().count() <= 10_000, "at most 10,000 characters reach the agent: {}", context.len());
    let path = context
        .split_whitespace()
        .find(|word| word.starts_with('/'))
        .map(|word| word.trim_end_matches(']'))
        .unwrap_or_else(|| panic!("the preview names the file: {context}"));
    let full = fs::read_to_string(path).unwrap();
    assert_eq!(full.len(), 20_000);
    assert!(full.starts_with("BEGIN") && full.ends_with("END"));
}

#[test]
fn identical_handlers_from_two_settings_files_run_once() {
    let sandbox = Sandbox::new();
    let hook = settings_one("PreToolUse", Some("Bash"), vec![command(&answer_hook(0, "", ""))]);
    let user = sandbox.settings("user.json", &hook);
    let local = sandbox.settings("local.json", &hook);
    let run = sandbox.hook("claude", &[&user, &local], &claude_bash(&sandbox, "ls"));
    run.assert_no_decision("a silent hook");
    assert_eq!(sandbox.answer_log(), ["PreToolUse 0"], "the handler ran once\n{}", run.describe());
}

#[test]
fn more_answer_forms_of_claude_code() {
    let sandbox = Sandbox::new();
    let run_on = |name: &str, event: &str, hook: String, input: &Value| {
        let matcher = (event == "PreToolUse" || event == "PermissionRequest").then_some("Bash");
        let settings = sandbox.settings(name, &settings_one(event, matcher, vec![command(&hook)]));
        sandbox.hook("claude", &[&settings], input)
    };
    let bash = claude_bash(&sandbox, "npm install left-pad");

    // Exit 2 with schema-invalid JSON still blocks, with stderr.
    let run = run_on(
        "exit2-invalid.json",
        "PreToolUse",
        answer_hook(2, "{\"decision\": \"ask\"}", "blocked anyway\n"),
        &bash,
    );
    assert_eq!(run.deny_reason(), "blocked anyway");

    // updatedInput without a permissionDecision is applied, and decides nothing else.
    let rewrite =
        json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "updatedInput": { "command": "npm ci" } } });
    let run = run_on("rewrite-only.json", "PreToolUse", answer_hook(0, &rewrite.to_string(), ""), &bash);
    assert_eq!(run.specific("PreToolUse", "updatedInput"), Some(json!({ "command": "npm ci" })), "{}", run.describe());
    assert_eq!(run.permission(), None, "no permission decision was made\n{}", run.describe());

    // defer passes through.
    let defer = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "defer" } });
    let run = run_on("defer.json", "PreToolUse", answer_hook(0, &defer.to_string(), ""), &bash);
    assert_eq!(run.permission().as_deref(), Some("defer"), "{}", run.describe());

    // continue:false on UserPromptSubmit.
    let stop = json!({ "continue": false, "stopReason": "Out of credits" }).to_string();
    let run =
        run_on("prompt-stop.json", "UserPromptSubmit", answer_hook(0, &stop, ""), &claude_user_prompt(&sandbox, "hi"));
    let answer = run.json();
    assert_eq!((answer["continue"].clone(), answer["stopReason"].clone()), (json!(false), json!("Out of credits")));

    // Plain text with exit 1 is not context (§13 probe 8).
    let run = run_on(
        "prompt-exit1.json",
        "UserPromptSubmit",
        answer_hook(1, "Sprint: SHIP-42\n", ""),
        &claude_user_prompt(&sandbox, "hi"),
    );
    run.assert_no_decision("plain text with exit 1 on UserPromptSubmit");

    // PermissionRequest ignores the top-level decision; allow can carry updatedInput.
    let permission = claude_permission_request(&sandbox, "npm publish");
    let legacy = json!({ "decision": "block", "reason": "top-level means nothing here" }).to_string();
    let run = run_on("permission-legacy.json", "PermissionRequest", answer_hook(0, &legacy, ""), &permission);
    run.assert_no_decision("a top-level decision on PermissionRequest");
    let allow = json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": {
        "behavior": "allow", "updatedInput": { "command": "npm publish --dry-run" } } } });
    let run =
        run_on("permission-rewrite.json", "PermissionRequest", answer_hook(0, &allow.to_string(), ""), &permission);
    let decision = run.specific("PermissionRequest", "decision").unwrap_or_default();
    assert_eq!(decision, json!({ "behavior": "allow", "updatedInput": { "command": "npm publish --dry-run" } }));
}

#[test]
fn settings_that_do_not_load_fail_closed_on_blocking_events() {
    let sandbox = Sandbox::new();
    let missing = sandbox.root().join("settings/does-not-exist.json");
    let run = sandbox.hook("claude", &[&missing], &claude_bash(&sandbox, "ls"));
    assert!(run.deny_reason().contains("does-not-exist.json"), "{}", run.describe());

    // A matcher that does not compile (JavaScript look-ahead) is a load error, not a skip.
    let bad_matcher = sandbox.settings(
        "bad-matcher.json",
        &settings_one("PreToolUse", Some("^(?!Read).*"), vec![command(&py("bash_command_validator.py", &[]))]),
    );
    let run = sandbox.hook("claude", &[&bad_matcher], &claude_bash(&sandbox, "ls"));
    run.deny_reason();
    let run = sandbox.hook("claude", &[&bad_matcher], &claude_user_prompt(&sandbox, "hi"));
    let answer = run.json();
    assert_eq!(answer["decision"], "block", "a prompt is blocked while the guard cannot load\n{}", run.describe());
    let run = sandbox.hook("claude", &[&bad_matcher], &claude_notification(&sandbox));
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(run.stdout, "");
}
