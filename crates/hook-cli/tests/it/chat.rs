//! `hookwire chat` end to end, through the real binary against a scripted OpenAI-compatible
//! server on 127.0.0.1: approval by default (denied without a terminal, `--yes`, `--allow`, a
//! Claude Code PreToolUse hook that blocks), a Stop hook reading `transcript_path`, file tools
//! confined to the project, `--resume`, an interactive approval and Ctrl-C through a
//! pseudo-terminal; and the CLI around it (`completions`, `man`, `--format json`, `fire
//! --exit-code`, `check` with nothing configured).

use std::{
    fs,
    ops::Deref,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use hook_llm::{Reply, ScriptedServer};
use hook_protocol::ToolCall;
use serde_json::{Value, json};

use crate::common::{Scratch, both, python, stderr, stdout};

/// The model-facing text of a call nobody approved (agent_loop::DENIED_NOT_APPROVED).
const NOT_APPROVED: &str = "Tool execution denied: this tool needs approval";

/// A scratch home and work area: `HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME` point inside it,
/// so no real configuration leaks in and sessions are saved there.
struct Sandbox(Scratch);

impl Deref for Sandbox {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox(Scratch::new("chat"))
    }

    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.path("home")),
            ("XDG_CONFIG_HOME", self.path("home/.config")),
            ("XDG_STATE_HOME", self.path("home/.local/state")),
        ]
    }

    fn command(&self, args: &[&str]) -> Command {
        self.hookwire("work", args)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `chat -p PROMPT` against `server`, hermetic, with `extra` flags.
    fn chat(&self, server: &ScriptedServer, prompt: &str, extra: &[&str]) -> Output {
        let base_url = server.base_url();
        let base = ["chat", "-p", prompt, "--base-url", &base_url, "--model", "scripted", "--no-default-config"];
        self.run(&[&base[..], extra].concat())
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/chat").join(name)
}

fn bash(id: &str, command: &str) -> ToolCall {
    ToolCall::new(id, "Bash", json!({"command": command}).to_string())
}

/// The content of the tool message answering `call_id` in the server's request `idx`.
fn tool_message(server: &ScriptedServer, idx: usize, call_id: &str) -> String {
    let requests = server.requests();
    let messages = requests[idx]["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no tool message for {call_id} in request {idx}: {messages:#?}"))
}

fn touch_script() -> [Reply; 2] {
    [Reply::ToolCalls(vec![bash("c1", "touch pwned")], None), Reply::Content("done".into())]
}

#[test]
fn a_tool_with_side_effects_is_denied_without_a_terminal() {
    let server = ScriptedServer::start(touch_script()).unwrap();
    let sandbox = Sandbox::new();
    let output = sandbox.chat(&server, "make a file", &[]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(!sandbox.path("work/pwned").exists());
    assert_eq!(server.n_requests(), 2);
    let message = tool_message(&server, 1, "c1");
    assert!(message.starts_with(NOT_APPROVED), "{message}");
    assert!(stderr(&output).contains("--allow Bash"), "{}", both(&output));
    assert!(stdout(&output).contains("assistant: done"), "{}", both(&output));
}

#[test]
fn yes_runs_every_tool_and_allow_runs_the_named_ones() {
    let server = ScriptedServer::start(touch_script()).unwrap();
    let sandbox = Sandbox::new();
    let output = sandbox.chat(&server, "make a file", &["--yes"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(sandbox.path("work/pwned").exists(), "{}", both(&output));

    let server = ScriptedServer::start(touch_script()).unwrap();
    let sandbox = Sandbox::new();
    let output = sandbox.chat(&server, "make a file", &["--allow", "Bash"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(sandbox.path("work/pwned").exists(), "{}", both(&output));

    let server = ScriptedServer::start(touch_script()).unwrap();
    let sandbox = Sandbox::new();
    let output = sandbox.chat(&server, "make a file", &["--allow", "Write"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(!sandbox.path("work/pwned").exists(), "--allow Write let Bash run");
}

#[test]
fn a_claude_code_pre_tool_use_hook_blocks_even_with_yes() {
    let server = ScriptedServer::start(touch_script()).unwrap();
    let sandbox = Sandbox::new();
    let settings = sandbox.write(
        "home/agent-settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat >/dev/null; echo 'touching files is not allowed here' >&2; exit 2"}
        ]}]}})
        .to_string(),
    );
    let output = sandbox.chat(&server, "make a file", &["--yes", "--settings", settings.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(!sandbox.path("work/pwned").exists());
    let message = tool_message(&server, 1, "c1");
    assert!(message.contains("touching files is not allowed here"), "{message}");
    assert!(stdout(&output).contains("[pre_tool_execution(Bash)] deny_tool"), "{}", both(&output));
}

#[test]
fn chat_records_its_fires_and_the_denial_in_the_decision_store() {
    let server = ScriptedServer::start(touch_script()).unwrap();
    let sandbox = Sandbox::new();
    let settings = sandbox.write(
        "home/agent-settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat >/dev/null; echo 'touching files is not allowed here' >&2; exit 2"}
        ]}]}})
        .to_string(),
    );
    let output = sandbox.chat(&server, "make a file", &["--yes", "--settings", settings.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));

    let log = sandbox.run(&["log", "--format", "json", "-n", "50"]);
    assert!(log.status.success(), "{}", both(&log));
    let fires: Vec<Value> = stdout(&log).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert!(fires.iter().all(|fire| fire["origin"] == "chat"), "{fires:#?}");
    let denial = fires
        .iter()
        .find(|fire| fire["event"] == "pre_tool_execution")
        .unwrap_or_else(|| panic!("no recorded tool call: {fires:#?}"));
    assert_eq!(denial["tool"], "Bash", "{denial:#}");
    assert_eq!(denial["verdict"], "deny", "{denial:#}");
    assert!(denial["reason"].as_str().unwrap_or("").contains("touching files is not allowed here"), "{denial:#}");
    let source = denial["hooks"][0]["source_file"].as_str().unwrap_or("");
    assert!(source.ends_with("agent-settings.json"), "the hook's source: {denial:#}");
}

#[test]
fn a_stop_hook_reads_the_transcript_and_blocks_once() {
    let server = ScriptedServer::start([
        Reply::Content("Here is an answer without it.".into()),
        Reply::Content("MARKER: here it is.".into()),
    ])
    .unwrap();
    let sandbox = Sandbox::new();
    let command = format!("{} {}", python(), fixture("stop_check.py").display());
    let settings = sandbox.write(
        "home/claude.json",
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}}).to_string(),
    );
    let output = sandbox.chat(&server, "answer", &["--settings", settings.to_str().unwrap(), "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let turn: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", both(&output)));
    assert_eq!(turn["status"], "completed");
    assert_eq!(turn["reply"], "MARKER: here it is.");
    assert_eq!(server.n_requests(), 2, "the stop hook asked for a second round");
    let second = server.requests()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(second.last().unwrap()["content"], "Your answer must contain MARKER.");
    // The hook saw the last reply in the transcript, and `stop_hook_active` on its second run.
    let inputs: Vec<Value> = fs::read_to_string(sandbox.path("work/stop-inputs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    assert_eq!(inputs[0]["last"], "Here is an answer without it.");
    assert_eq!(inputs[0]["stop_hook_active"], false);
    assert_eq!(inputs[1]["last"], "MARKER: here it is.");
    assert_eq!(inputs[1]["stop_hook_active"], true);
    assert_eq!(inputs[0]["permission_mode"], "default");
    let id = turn["session_id"].as_str().unwrap();
    assert_eq!(inputs[0]["session_id"], id);
    let transcript = sandbox.path(&format!("home/.local/state/hookwire/sessions/{id}/transcript.jsonl"));
    assert_eq!(turn["transcript_path"], transcript.display().to_string());
    let kinds: Vec<String> = fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant"]);
}

#[test]
fn file_tools_stay_inside_the_project_whatever_the_model_asks() {
    let sandbox = Sandbox::new();
    sandbox.write("secret.txt", "the secret\n");
    std::os::unix::fs::symlink("/etc", sandbox.path("work/etc")).unwrap();
    std::os::unix::fs::symlink(sandbox.path("secret.txt"), sandbox.path("work/notes.txt")).unwrap();
    let outside = sandbox.path("outside.txt").display().to_string();
    let call = |id: &str, tool: &str, args: Value| ToolCall::new(id, tool, args.to_string());
    let server = ScriptedServer::start([
        Reply::ToolCalls(
            vec![
                call("w1", "Write", json!({"file_path": "../outside.txt", "content": "pwned"})),
                call("w2", "Write", json!({"file_path": outside, "content": "pwned"})),
                call("w3", "Write", json!({"file_path": "etc/hookwire-pwned", "content": "pwned"})),
                call(
                    "e1",
                    "Edit",
                    json!({"file_path": "notes.txt", "old_string": "the secret", "new_string": "pwned"}),
                ),
                call("r1", "Read", json!({"file_path": "etc/passwd"})),
                call("r2", "Read", json!({"file_path": "../secret.txt"})),
                call("w4", "Write", json!({"file_path": "inside.txt", "content": "fine\n"})),
                call("e2", "Edit", json!({"file_path": "inside.txt", "old_string": "fine", "new_string": "edited"})),
                call("r3", "Read", json!({"file_path": "inside.txt"})),
            ],
            None,
        ),
        Reply::Content("done".into()),
    ])
    .unwrap();
    let output = sandbox.chat(&server, "go", &["--yes"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    for id in ["w1", "w2", "w3", "e1", "r1", "r2"] {
        let message = tool_message(&server, 1, id);
        assert!(
            message.contains("outside the working directory") || message.contains("symbolic link"),
            "{id}: {message}"
        );
        assert!(!message.contains("the secret") && !message.contains("root:"), "{id} leaked: {message}");
    }
    assert!(!sandbox.path("outside.txt").exists());
    assert_eq!(fs::read_to_string(sandbox.path("secret.txt")).unwrap(), "the secret\n");
    assert_eq!(fs::read_to_string(sandbox.path("work/inside.txt")).unwrap(), "edited\n");
    assert_eq!(tool_message(&server, 1, "r3"), "     1\tedited\n");
}

#[test]
fn resume_continues_a_saved_session() {
    let server =
        ScriptedServer::start([Reply::Content("first answer".into()), Reply::Content("second answer".into())]).unwrap();
    let sandbox = Sandbox::new();
    let first = sandbox.chat(&server, "remember 42", &["--format", "json"]);
    assert_eq!(first.status.code(), Some(0), "{}", both(&first));
    let first: Value = serde_json::from_slice(&first.stdout).unwrap();
    let id = first["session_id"].as_str().unwrap().to_owned();
    let second = sandbox.chat(&server, "what number?", &["--format", "json", "--resume", &id]);
    assert_eq!(second.status.code(), Some(0), "{}", both(&second));
    let second: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(second["session_id"], id.as_str());
    assert_eq!(second["turn_id"], "agent-turn-2");
    let messages = server.requests()[1]["messages"].clone();
    let texts: Vec<&str> = messages.as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert_eq!(texts[1..], ["remember 42", "first answer", "what number?"]);
    let transcript = fs::read_to_string(second["transcript_path"].as_str().unwrap()).unwrap();
    assert_eq!(transcript.lines().count(), 4);

    let missing = sandbox.chat(&server, "x", &["--resume", "no-such-session"]);
    assert_eq!(missing.status.code(), Some(2), "{}", both(&missing));
    let bad = sandbox.chat(&server, "x", &["--resume", "../../etc"]);
    assert_eq!(bad.status.code(), Some(2), "{}", both(&bad));
}

#[test]
fn chat_exit_codes() {
    let sandbox = Sandbox::new();
    // A model error: the server fails.
    let server = ScriptedServer::start([Reply::Status(500, "overloaded".into())]).unwrap();
    let failed = sandbox.chat(&server, "hi", &["--model-timeout", "5"]);
    assert_eq!(failed.status.code(), Some(1), "{}", both(&failed));
    assert!(stderr(&failed).contains("error:"), "{}", both(&failed));
    // A configuration error: a settings file that does not load, a missing one, no server.
    sandbox.write("work/bad.json", r#"{"hooks": {"PreToolUSe": []}}"#);
    let bad = sandbox.chat(&server, "hi", &["--settings", "bad.json"]);
    assert_eq!(bad.status.code(), Some(2), "{}", both(&bad));
    let missing = sandbox.chat(&server, "hi", &["--settings", "nope.json"]);
    assert_eq!(missing.status.code(), Some(2), "{}", both(&missing));
    let no_server = sandbox.run(&["chat", "-p", "hi", "--no-default-config"]);
    assert_eq!(no_server.status.code(), Some(2), "{}", both(&no_server));
    assert!(stderr(&no_server).contains("OPENAI_BASE_URL"), "{}", both(&no_server));
    let usage = sandbox.run(&["chat", "--model-timeout", "-1"]);
    assert_eq!(usage.status.code(), Some(2), "{}", both(&usage));
    // A hook that ends the turn: the turn completed as the hooks decided.
    let server = ScriptedServer::start(touch_script()).unwrap();
    sandbox.write(
        "work/abort.json",
        &claude_pre_tool(r#"cat >/dev/null; echo '{"continue": false, "stopReason": "enough"}'"#),
    );
    let aborted = sandbox.chat(&server, "hi", &["--config", "abort.json"]);
    assert_eq!(aborted.status.code(), Some(0), "{}", both(&aborted));
    assert!(stdout(&aborted).contains("turn ended by a hook"), "{}", both(&aborted));
    let help = sandbox.run(&["chat", "--help"]);
    let help = stdout(&help);
    for code in ["0 ", "1 ", "2 ", "130"] {
        assert!(help.contains(&format!("  {code}")), "--help does not document exit code {code}:\n{help}");
    }
}

/// Runs `hookwire chat` (the REPL) in a pseudo-terminal, typing as `plan` says.
fn drive(sandbox: &Sandbox, server: &ScriptedServer, extra: &[&str], plan: Value) -> Value {
    let plan_path = sandbox.write("plan.json", &plan.to_string());
    let base_url = server.base_url();
    let mut args = vec![
        env!("CARGO_BIN_EXE_hookwire"),
        "chat",
        "--base-url",
        &base_url,
        "--model",
        "scripted",
        "--no-default-config",
    ];
    args.extend_from_slice(extra);
    let output = Command::new(python())
        .arg(fixture("pty_driver.py"))
        .arg(&plan_path)
        .arg("--")
        .args(&args)
        .current_dir(sandbox.path("work"))
        .envs(sandbox.env())
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("HOOKWIRE_MODEL")
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("the driver failed ({e}):\n{}", both(&output)))
}

#[test]
fn on_a_terminal_the_person_answers_no_then_always() {
    let server = ScriptedServer::start([
        Reply::ToolCalls(vec![bash("c1", "touch one")], None),
        Reply::ToolCalls(vec![bash("c2", "touch two")], None),
        Reply::ToolCalls(vec![bash("c3", "touch three")], None),
        Reply::Content("all done".into()),
    ])
    .unwrap();
    let sandbox = Sandbox::new();
    let result = drive(
        &sandbox,
        &server,
        &[],
        json!([
            {"expect": "> "},
            {"send": "make files\n"},
            {"expect": "$ touch one"},
            {"expect": "Allow?"},
            {"send": "n\n"},
            {"expect": "$ touch two"},
            {"expect": "Allow?"},
            {"send": "a\n"},
            {"expect": "assistant: all done"},
            {"expect": "> "},
            {"send": "\u{4}"},
        ]),
    );
    let output = result["output"].as_str().unwrap();
    assert_eq!(result["failed"], Value::Null, "{output}");
    assert_eq!(result["exit_code"], 0, "{output}");
    assert!(!sandbox.path("work/one").exists(), "{output}");
    assert!(sandbox.path("work/two").exists(), "{output}");
    assert!(sandbox.path("work/three").exists(), "`always` should cover the third call: {output}");
    assert_eq!(output.matches("Allow?").count(), 2, "the third call was asked about: {output}");
    assert_eq!(tool_message(&server, 1, "c1"), "Tool execution denied by the user");
}

#[test]
fn ctrl_c_cancels_a_slow_tool_and_returns_to_the_prompt() {
    let server = ScriptedServer::start([
        Reply::ToolCalls(vec![bash("c1", "echo $$ > sleep.pid; sleep 30")], None),
        Reply::Content("after the cancel".into()),
    ])
    .unwrap();
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("work/sleep.pid");
    let started = Instant::now();
    let result = drive(
        &sandbox,
        &server,
        &["--yes"],
        json!([
            {"expect": "> "},
            {"send": "sleep a while\n"},
            {"wait_file": pid_file},
            {"sleep": 0.2},
            {"send": "\u{3}"},
            {"expect": "turn cancelled"},
            {"expect": "> "},
            {"send": "and now?\n"},
            {"expect": "assistant: after the cancel"},
            {"expect": "> "},
            {"send": "\u{3}"},
            {"sleep": 0.3},
            {"send": "\u{3}"},
        ]),
    );
    let output = result["output"].as_str().unwrap();
    assert_eq!(result["failed"], Value::Null, "{output}");
    assert_eq!(result["exit_code"], 130, "two Ctrl-C within 2 s quit: {output}");
    assert!(started.elapsed() < Duration::from_secs(25), "took {:?}", started.elapsed());
    let pid: i32 = fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z"), "the tool survived Ctrl-C: {stat}");
    // The cancelled turn was rolled back: the second request starts from the new message.
    let texts: Vec<String> = server.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(texts.last().map(String::as_str), Some("and now?"));
}

#[test]
fn completions_and_the_manual_page_come_from_the_cli_definition() {
    let sandbox = Sandbox::new();
    for (shell, needle) in [("bash", "complete -F"), ("zsh", "#compdef hookwire"), ("fish", "complete -c hookwire")] {
        let output = sandbox.run(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{}", both(&output));
        let script = stdout(&output);
        assert!(script.contains(needle), "{shell}: {script}");
        assert!(script.contains("resume") && script.contains("exit-code"), "{shell} misses flags");
    }
    let man = sandbox.run(&["man"]);
    assert_eq!(man.status.code(), Some(0), "{}", both(&man));
    let page = stdout(&man);
    assert!(page.contains(".TH hookwire") && page.contains("completions"), "{page}");
    let chat = stdout(&sandbox.run(&["man", "chat"]));
    assert!(chat.contains("hookwire\\-chat") && chat.contains("\\-\\-resume") && chat.contains("130"), "{chat}");
    assert_eq!(sandbox.run(&["man", "nope"]).status.code(), Some(2));
}

/// A Claude Code settings file whose PreToolUse command hook runs `command`.
fn claude_pre_tool(command: &str) -> String {
    json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}).to_string()
}

#[test]
fn fire_exit_code_maps_the_decision() {
    let sandbox = Sandbox::new();
    let jcli = |json: &str| format!("pre_tool_execution:\n  - command: \"cat >/dev/null; echo '{json}'\"\n");
    for (name, text, code) in [
        ("continue.yaml", jcli("{}"), 0),
        ("skip.yaml", jcli(r#"{\"action\": \"skip\"}"#), 3),
        ("stop.yaml", jcli(r#"{\"action\": \"stop\"}"#), 3),
        ("deny.json", claude_pre_tool("cat >/dev/null; echo no >&2; exit 2"), 3),
        ("abort.json", claude_pre_tool(r#"cat >/dev/null; echo '{"continue": false, "stopReason": "enough"}'"#), 4),
    ] {
        let path = sandbox.write(&format!("work/{name}"), &text);
        let path = path.to_str().unwrap();
        let context = ["--context", "-"];
        let args = ["fire", "PreToolUse", "--no-default-config", "--exit-code", "--config", path];
        let mut child = sandbox
            .command(&[&args[..], &context[..]].concat())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(br#"{"tool_name": "Bash", "tool_arguments": {"command": "ls"}}"#)
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(code), "{name}: {}", both(&output));
        let without = sandbox.run(&["fire", "PreToolUse", "--no-default-config", "--config", path]);
        assert_eq!(without.status.code(), Some(0), "without --exit-code, {name} exits 0: {}", both(&without));
    }
    let approval = sandbox.write(
        "work/approve.yaml",
        "approve_tool:\n  - command: \"cat >/dev/null; echo '{\\\"approved\\\": false}'\"\n",
    );
    let output = sandbox.run(&[
        "fire",
        "approve_tool",
        "--no-default-config",
        "--exit-code",
        "--config",
        approval.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", both(&output));
    let help = stdout(&sandbox.run(&["fire", "--help"]));
    assert!(help.contains("--exit-code") && help.contains("abort_turn"), "{help}");
}

#[test]
fn check_says_where_it_looked_and_reports_structured_diagnostics() {
    let sandbox = Sandbox::new();
    let nothing = sandbox.run(&["check"]);
    assert_eq!(nothing.status.code(), Some(0), "{}", both(&nothing));
    let text = stdout(&nothing);
    assert!(text.contains("no hooks configured"), "{text}");
    assert!(text.contains("looked in:"), "{text}");
    let home = sandbox.path("home").display().to_string();
    assert!(text.contains(&format!("{home}/.config/hookwire/hooks.yaml")), "{text}");
    assert!(text.contains(&format!("{home}/.claude/settings.json")), "{text}");

    sandbox.write("work/bad.yaml", "pre_tool_execution:\n  - command: ok\n  - comand: typo\n");
    sandbox.write("work/picoclaw.json", r#"{"hooks": {"builtins": {"audit": {"enabled": true}}}}"#);
    let args = ["check", "--no-default-config", "--format", "json", "--config", "bad.yaml", "--config"];
    let output = sandbox.run(&[&args[..], &["picoclaw.json", "--config", "missing.yaml"]].concat());
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    let checked: Value = serde_json::from_slice(&output.stdout).unwrap();
    let errors = checked["errors"].as_array().unwrap();
    let typo = errors.iter().find(|e| e["file"].as_str().is_some_and(|f| f.ends_with("bad.yaml"))).unwrap();
    assert_eq!((&typo["line"], &typo["column"]), (&json!(3), &json!(5)), "{typo}");
    assert!(typo["message"].as_str().unwrap().contains("comand"), "{typo}");
    assert!(typo["text"].as_str().unwrap().contains("bad.yaml:3:5"), "{typo}");
    assert!(errors.iter().any(|e| e["file"].as_str().is_some_and(|f| f.ends_with("missing.yaml"))), "{errors:?}");
    let warning = &checked["warnings"][0];
    assert_eq!(warning["hook"], "audit", "{warning}");
    assert!(warning["file"].as_str().unwrap().ends_with("picoclaw.json"), "{warning}");
    assert!(checked["searched"].as_array().unwrap().iter().any(|s| s["level"] == "--config"), "{checked}");
}

#[test]
fn stats_prints_json_too() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/audit.jsonl",
        "{\"id\": \"user:a:stop\", \"outcome\": \"ok\", \"duration_ms\": 2.0}\n\
         {\"id\": \"user:a:stop\", \"outcome\": \"failed\", \"duration_ms\": 4.0}\nnot json\n\
         {\"id\": \"user:a:stop\", \"outcome\": \"filtered\", \"duration_ms\": 0.0}\n\
         {\"id\": \"user:a:stop\", \"outcome\": \"filtered\", \"duration_ms\": 0.0}\n\
         {\"id\": \"user:a:stop\", \"outcome\": \"disabled\", \"duration_ms\": 0.0}\n",
    );
    let output = sandbox.run(&["stats", "audit.jsonl", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let stats: Value = serde_json::from_slice(&output.stdout).unwrap();
    // Runs that did not happen are counted by name and take no part in the durations.
    assert_eq!(
        stats["hooks"],
        json!([{"id": "user:a:stop", "runs": 5, "ok": 1, "failed": 1, "filtered": 2, "disabled": 1,
                "median_ms": 2.0, "p95_ms": 4.0}])
    );
    assert_eq!(stats["warnings"][0]["line"], 3);
}

#[test]
fn a_429_with_retry_after_is_retried_and_a_silent_server_times_out() {
    let sandbox = Sandbox::new();
    let server = ScriptedServer::start([
        Reply::http(429, "slow down").with_header("retry-after", "1"),
        Reply::Content("after the wait".into()),
    ])
    .unwrap();
    let started = std::time::Instant::now();
    let retried = sandbox.chat(&server, "hi", &[]);
    assert_eq!(retried.status.code(), Some(0), "{}", both(&retried));
    assert!(stdout(&retried).contains("after the wait"), "{}", both(&retried));
    assert_eq!(server.n_requests(), 2);
    assert!(started.elapsed() >= std::time::Duration::from_millis(900), "Retry-After was not honoured");

    let silent =
        ScriptedServer::start([Reply::Content("too late".into()).delayed(std::time::Duration::from_secs(60))]).unwrap();
    let started = std::time::Instant::now();
    let timed_out = sandbox.chat(&silent, "hi", &["--model-timeout", "2"]);
    let elapsed = started.elapsed();
    assert_eq!(timed_out.status.code(), Some(1), "{}", both(&timed_out));
    assert!(elapsed < std::time::Duration::from_secs(20), "took {elapsed:?}");
    assert!(
        stderr(&timed_out).contains("2s")
            || stderr(&timed_out).contains("timed out")
            || stderr(&timed_out).contains("did not answer"),
        "{}",
        both(&timed_out)
    );
}

/// On a terminal the reply streams: a tool call whose arguments arrive split across chunks is
/// assembled and run, and the text that follows is printed as it arrives.
#[test]
fn on_a_terminal_a_streamed_tool_call_split_across_chunks_runs() {
    use hook_llm::StreamChunk;
    let first = |args: &str| json!({"tool_calls": [{"index": 0, "function": {"arguments": args}}]});
    let server = ScriptedServer::start([
        Reply::Stream(vec![
            StreamChunk::Delta(json!({"role": "assistant", "content": ""})),
            StreamChunk::Delta(json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                                     "function": {"name": "Bash", "arguments": "{\"comm"}}]})),
            StreamChunk::Delta(first("and\": \"touch str")),
            StreamChunk::Delta(first("eamed\"}")),
            StreamChunk::Finish("tool_calls".into()),
        ]),
        Reply::streamed_text(["stream", "ed and ", "done"]),
    ])
    .unwrap();
    let sandbox = Sandbox::new();
    let result = drive(
        &sandbox,
        &server,
        &["--yes"],
        json!([
            {"expect": "> "},
            {"send": "go\n"},
            {"expect": "streamed and done"},
            {"expect": "> "},
            {"send": "\u{4}"},
        ]),
    );
    let output = result["output"].as_str().unwrap();
    assert_eq!(result["failed"], Value::Null, "{output}");
    assert_eq!(result["exit_code"], 0, "{output}");
    assert!(sandbox.path("work/streamed").exists(), "the assembled call did not run: {output}");
    assert_eq!(server.requests()[0]["stream"], true, "the request asked for a stream");
}

/// `chat -p` against `server` as a child process, with stdout and stderr captured.
fn spawn_chat(sandbox: &Sandbox, server: &ScriptedServer, prompt: &str, extra: &[&str]) -> std::process::Child {
    let base_url = server.base_url();
    let base = ["chat", "-p", prompt, "--base-url", &base_url, "--model", "scripted", "--no-default-config"];
    sandbox.command(&[&base[..], extra].concat()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Waits for `child` at most `limit`; kills it (and fails) past that.
fn wait_at_most(mut child: std::process::Child, limit: Duration, what: &str) -> Output {
    let until = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > until {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("{what}: still running after {limit:?}:\n{}", both(&output));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn wait_for_file(path: &Path, limit: Duration) {
    let until = Instant::now() + limit;
    while !path.exists() {
        assert!(Instant::now() < until, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The model reads a FIFO planted in the project: reading it would wait for a writer forever
/// (and hold the process past SIGTERM). The tool refuses it at once and says why.
#[test]
fn a_fifo_the_model_reads_is_refused_not_waited_on() {
    let sandbox = Sandbox::new();
    nix::unistd::mkfifo(&sandbox.path("work/pipe"), nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let read = |id: &str, tool: &str, args: Value| ToolCall::new(id, tool, args.to_string());
    let server = ScriptedServer::start([
        Reply::ToolCalls(
            vec![read("r1", "Read", json!({"file_path": "pipe"})), read("r2", "read_file", json!({"path": "pipe"}))],
            None,
        ),
        Reply::Content("done".into()),
    ])
    .unwrap();
    let child = spawn_chat(&sandbox, &server, "read the pipe", &[]);
    let output = wait_at_most(child, Duration::from_secs(60), "chat reading a FIFO");
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    for id in ["r1", "r2"] {
        let message = tool_message(&server, 1, id);
        assert!(message.contains("named pipe (FIFO), not a regular file"), "{id}: {message}");
    }
}

/// SIGTERM and SIGHUP end `hookwire chat` promptly with 128 + the signal, whatever it is doing:
/// running a session-start hook that sleeps (before any turn), or a tool in a turn. The hook's
/// and the tool's processes go too.
#[test]
fn sigterm_and_sighup_end_chat_promptly_at_any_step() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let gone = |pid_file: &Path| {
        let pid: i32 = fs::read_to_string(pid_file).unwrap().trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z") {
                return;
            }
            assert!(Instant::now() < until, "process {pid} of {} survived: {stat}", pid_file.display());
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // A session-start hook that takes a minute: SIGTERM while it runs.
    let sandbox = Sandbox::new();
    let settings = sandbox.write(
        "home/slow-start.json",
        &json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": "cat >/dev/null; echo $$ > start.pid; exec sleep 60"}
        ]}]}})
        .to_string(),
    );
    let server = ScriptedServer::start([Reply::Content("never".into())]).unwrap();
    let child = spawn_chat(&sandbox, &server, "hi", &["--settings", settings.to_str().unwrap()]);
    let pid = Pid::from_raw(child.id() as i32);
    wait_for_file(&sandbox.path("work/start.pid"), Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    kill(pid, Signal::SIGTERM).unwrap();
    let output = wait_at_most(child, Duration::from_secs(20), "chat after SIGTERM in a session-start hook");
    assert_eq!(output.status.code(), Some(143), "{}", both(&output));
    assert!(sent.elapsed() < Duration::from_secs(20), "took {:?}", sent.elapsed());
    gone(&sandbox.path("work/start.pid"));
    assert_eq!(server.n_requests(), 0, "a turn ran after SIGTERM");

    // A tool that takes a minute: SIGHUP during the turn.
    let sandbox = Sandbox::new();
    let server = ScriptedServer::start([
        Reply::ToolCalls(vec![bash("c1", "echo $$ > tool.pid; exec sleep 60")], None),
        Reply::Content("never".into()),
    ])
    .unwrap();
    let child = spawn_chat(&sandbox, &server, "wait", &["--yes"]);
    let pid = Pid::from_raw(child.id() as i32);
    wait_for_file(&sandbox.path("work/tool.pid"), Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(200));
    kill(pid, Signal::SIGHUP).unwrap();
    let output = wait_at_most(child, Duration::from_secs(20), "chat after SIGHUP in a turn");
    assert_eq!(output.status.code(), Some(129), "{}", both(&output));
    gone(&sandbox.path("work/tool.pid"));
}

/// The id of a first session run in `work`, whose state then gets crafted.
fn first_session(sandbox: &Sandbox) -> String {
    let server = ScriptedServer::start([Reply::Content("first".into())]).unwrap();
    let first = sandbox.chat(&server, "hi", &["--format", "json"]);
    assert_eq!(first.status.code(), Some(0), "{}", both(&first));
    let first: Value = serde_json::from_slice(&first.stdout).unwrap();
    first["session_id"].as_str().unwrap().to_owned()
}

/// A crafted `state.json` is not trusted: an `id` of `../../x` does not move the session out of
/// the sessions directory, a `cwd` of `/` does not open the disk to the file tools, and a
/// session is continued only from the directory it was started in.
#[test]
fn resume_refuses_a_crafted_state() {
    let sandbox = Sandbox::new();
    let id = first_session(&sandbox);
    let sessions = sandbox.path("home/.local/state/hookwire/sessions");
    let state_path = sessions.join(&id).join("state.json");
    let state: Value = serde_json::from_str(&fs::read_to_string(&state_path).unwrap()).unwrap();
    let craft = |name: &str, key: &str, value: Value| {
        let mut crafted = state.clone();
        crafted["id"] = json!(name);
        crafted[key] = value;
        fs::create_dir_all(sessions.join(name)).unwrap();
        fs::write(sessions.join(name).join("state.json"), crafted.to_string()).unwrap();
    };
    let server = ScriptedServer::start([Reply::ToolCalls(
        vec![ToolCall::new("r1", "Read", json!({"file_path": "/etc/hostname"}).to_string())],
        None,
    )])
    .unwrap();

    craft("escape", "id", json!("../../../escaped"));
    let output = sandbox.chat(&server, "hi", &["--resume", "escape"]);
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    assert!(stderr(&output).contains("names the session"), "{}", both(&output));
    assert!(!sandbox.path("home/.local/escaped").exists(), "the session was saved outside the sessions directory");

    craft("root", "cwd", json!("/"));
    let output = sandbox.chat(&server, "hi", &["--resume", "root"]);
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    let text = stderr(&output);
    assert!(text.contains("was started in /,") && text.contains("from that directory"), "{}", both(&output));
    assert_eq!(server.n_requests(), 0, "a turn ran with a crafted state");

    // A genuine session, resumed from another directory: refused, with the directory to use.
    fs::create_dir_all(sandbox.path("elsewhere")).unwrap();
    let mut output =
        sandbox.hookwire("elsewhere", &["chat", "-p", "x", "--base-url", &server.base_url(), "--resume", &id]);
    let output = output.output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    let work = sandbox.path("work").canonicalize().unwrap();
    assert!(stderr(&output).contains(&format!("was started in {}", work.display())), "{}", both(&output));
    assert_eq!(server.n_requests(), 0);
}

/// Sessions hold whole conversations: the sessions directory and each session's are `0700`,
/// the state and the transcript `0600`, under a umask that would leave them open.
#[test]
fn sessions_are_private_to_their_user() {
    use std::os::unix::fs::PermissionsExt as _;

    let sandbox = Sandbox::new();
    let id = first_session(&sandbox);
    let mode =
        |p: &Path| fs::metadata(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())).permissions().mode() & 0o777;
    let sessions = sandbox.path("home/.local/state/hookwire/sessions");
    assert_eq!(mode(&sessions), 0o700, "the sessions directory");
    assert_eq!(mode(&sessions.join(&id)), 0o700, "the session's directory");
    assert_eq!(mode(&sessions.join(&id).join("state.json")), 0o600, "state.json");
    assert_eq!(mode(&sessions.join(&id).join("transcript.jsonl")), 0o600, "transcript.jsonl");
}
