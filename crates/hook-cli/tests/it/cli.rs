//! The `hookwire` binary, run as a user runs it: check, fire, trust, stats, against fixture
//! configurations of all three dialects, real `sh`, a real Python process hook, and a scripted
//! chat model over HTTP on 127.0.0.1.

use std::{
    fs,
    io::Write,
    ops::Deref,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

use hook_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::common::{Scratch, json_stdout, python, stderr, stdout};

/// A scratch home and work area: `HOME` and `XDG_CONFIG_HOME` point inside it, so no real
/// configuration leaks in.
struct Sandbox(Scratch);

impl Deref for Sandbox {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox(Scratch::new("cli"))
    }

    fn command(&self, cwd: &str, args: &[&str]) -> Command {
        self.hookwire(cwd, args)
    }

    fn run(&self, cwd: &str, args: &[&str]) -> Output {
        self.run_with_stdin(cwd, args, "")
    }

    fn run_with_stdin(&self, cwd: &str, args: &[&str], stdin: &str) -> Output {
        let mut child = self
            .command(cwd, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }

    /// Replaces the sandbox path with `[SANDBOX]` so snapshots are stable.
    fn redact(&self, text: &str) -> String {
        text.replace(&self.root().display().to_string(), "[SANDBOX]")
    }
}

fn repo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(relative).canonicalize().unwrap()
}

/// Durations and the sandbox's working directory vary; everything else in a fire's output is
/// deterministic.
fn without_durations(mut value: Value) -> Value {
    for entry in value["trace"].as_array_mut().into_iter().flatten() {
        entry["duration_ms"] = json!("[ms]");
    }
    if value["context"].get("cwd").is_some() {
        value["context"]["cwd"] = json!("[cwd]");
    }
    value
}

const JCLI_HOOKS: &str = r#"pre_send_message:
  - name: stamp
    command: "printf '{\"user_input\": \"[stamped] %s\"}' \"$(cat | python3 -c 'import sys,json; print(json.load(sys.stdin)[\"user_input\"])')\""
    timeout: 5
pre_tool_execution:
  - name: guard
    command: "cat >/dev/null; echo '{\"action\": \"skip\"}'"
    filter:
      tool_matcher: "Bash|Shell"
  - type: llm
    name: reviewer
    prompt: "Review {{tool_name}} {{tool_arguments}}"
    retry: 0
"#;

#[test]
fn check_lists_hooks_of_every_dialect_in_order() {
    let sandbox = Sandbox::new();
    let jcli = sandbox.write("work/hooks.yaml", JCLI_HOOKS);
    sandbox.write(
        "work/dir/dir-guard/HOOK.yaml",
        "events: [pre_tool_execution, approve_tool]\ncommand: guard.sh\npriority: -1\n",
    );
    sandbox.write_script("work/dir/dir-guard/guard.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    sandbox.write("work/dir/example/HOOK.yaml", "events: [stop]\ncommand: never-loaded\n");
    let picoclaw = sandbox.write(
        "work/picoclaw.json",
        r#"{"hooks": {"enabled": true, "defaults": {"interceptor_timeout_ms": 2000},
            "processes": {"weather": {"enabled": true, "command": ["python3", "weather.py"], "priority": 100,
                                      "intercept": ["before_llm", "before_tool"], "observe": ["*"]}}}}"#,
    );
    let args = ["check", "--no-default-config", "--format", "json", "--config"];
    let output = sandbox.run(
        "work",
        &[&args[..], &[jcli.to_str().unwrap(), "--config", "dir", "--config", picoclaw.to_str().unwrap()]].concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let listing = json_stdout(&output);
    insta::assert_json_snapshot!(serde_json::from_str::<Value>(&sandbox.redact(&listing.to_string())).unwrap());

    let text = sandbox.run("work", &["check", "--no-default-config", "--config", "hooks.yaml"]);
    assert_eq!(text.status.code(), Some(0));
    insta::assert_snapshot!(sandbox.redact(&stdout(&text)));
}

#[test]
fn check_reports_every_error_with_file_line_and_column() {
    let sandbox = Sandbox::new();
    sandbox.write("work/bad.yaml", "pre_tool_execution:\n  - command: ok\n  - comand: typo\n");
    sandbox.write("work/zero.yaml", "stop:\n  - command: x\n    timeout: 0\n");
    sandbox.write(
        "work/regex.yaml",
        "pre_tool_execution:\n  - command: x\n    filter:\n      args_regex: \"(unclosed\"\n",
    );
    sandbox.write("work/good.yaml", "stop:\n  - command: \"echo '{}'\"\n");
    let output = sandbox.run(
        "work",
        &[
            "check",
            "--no-default-config",
            "--config",
            "bad.yaml",
            "--config",
            "zero.yaml",
            "--config",
            "regex.yaml",
            "--config",
            "good.yaml",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    let text = sandbox.redact(&stdout(&output));
    for (file, line) in [("bad.yaml", 3), ("zero.yaml", 2), ("regex.yaml", 4)] {
        let prefix = format!("[SANDBOX]/work/{file}:{line}:");
        assert!(text.contains(&prefix), "no `{prefix}` in:\n{text}");
    }
    assert!(text.contains("comand"), "{text}");
    assert!(text.contains("timeout: 0"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn fire_runs_bash_hooks_and_reports_each_action() {
    let sandbox = Sandbox::new();
    let hooks = sandbox.write(
        "work/hooks.yaml",
        r#"pre_send_message:
  - name: stamp
    command: "cat >/dev/null; echo '{\"user_input\": \"stamped\", \"system_message\": \"stamped it\"}'"
pre_tool_execution:
  - name: guard
    command: "cat >/dev/null; echo '{\"action\": \"skip\"}'"
    filter:
      tool_name: Bash
approve_tool:
  - name: approver
    command: "cat >/dev/null; echo '{\"action\": \"stop\", \"reason\": \"not on a Friday\"}'"
stop:
  - name: broken
    command: "echo oops >&2; exit 3"
"#,
    );
    let config = hooks.to_str().unwrap();
    let fire = |event: &str, context: &str| {
        sandbox.run_with_stdin(
            "work",
            &["fire", event, "--no-default-config", "--config", config, "--context", "-", "--format", "json"],
            context,
        )
    };

    let sent = fire("UserPromptSubmit", r#"{"user_input": "hello", "event": "ignored"}"#);
    assert_eq!(sent.status.code(), Some(0), "{}", stderr(&sent));
    let sent = json_stdout(&sent);
    assert_eq!(sent["event"], "pre_send_message");
    assert_eq!(sent["action"], "continue");
    assert_eq!(sent["context"]["user_input"], "stamped");
    assert_eq!(sent["effects"]["system_message"], "stamped it");
    assert_eq!(sent["trace"][0]["changed"], json!(["user_input"]));

    let skipped =
        json_stdout(&fire("before_tool", r#"{"tool_name": "Bash", "tool_arguments": {"command": "rm -rf /"}}"#));
    assert_eq!(skipped["action"], "skip");
    assert_eq!(skipped["context"]["tool_arguments"], r#"{"command":"rm -rf /"}"#);

    let filtered = json_stdout(&fire("pre_tool_execution", r#"{"tool_name": "Write"}"#));
    assert_eq!(filtered["action"], "continue");
    assert_eq!(filtered["trace"][0]["outcome"], "filtered");
    assert_eq!(filtered["trace"][0]["reason"], r#"tool_name "Bash" did not match tool "Write""#);

    let denied = json_stdout(&fire("approve_tool", r#"{"tool_name": "Bash"}"#));
    assert_eq!(denied["action"], "denied");
    assert_eq!(denied["reason"], "not on a Friday");

    let failed = json_stdout(&fire("stop", "{}"));
    assert_eq!(failed["action"], "continue", "a failing hook fails open by default");
    assert_eq!(failed["trace"][0]["outcome"], "crashed");
    assert!(failed["trace"][0]["error"].as_str().unwrap().contains("oops"), "{failed}");

    insta::assert_json_snapshot!([
        without_durations(sent),
        without_durations(skipped),
        without_durations(denied),
        without_durations(failed)
    ]);
}

#[test]
fn fire_warns_on_an_agent_input_and_reads_it_with_agent() {
    let sandbox = Sandbox::new();
    let hooks = sandbox.write(
        "work/hooks.yaml",
        r#"pre_tool_execution:
  - name: guard
    command: "cat >/dev/null; echo '{\"action\": \"skip\"}'"
    filter:
      tool_matcher: BASH
"#,
    );
    let config = hooks.to_str().unwrap();
    let input = r#"{"session_id": "s1", "cwd": "/proj", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"}, "tool_use_id": "t1", "colour": "blue"}"#;
    let fire = |args: &[&str]| {
        let mut all = vec!["fire", "--no-default-config", "--config", config, "--context", "-", "--format", "json"];
        all.extend_from_slice(args);
        sandbox.run_with_stdin("work", &all, input)
    };

    // Without --agent: the agent's members are named, with the flag that reads them.
    let plain = fire(&["pre_tool_execution"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let warnings = stderr(&plain);
    for name in ["`tool_input`", "`hook_event_name`", "`tool_use_id`", "--agent claude"] {
        assert!(warnings.contains(name), "no {name} in\n{warnings}");
    }
    assert!(warnings.contains("`colour` is not a hookwire context field"), "{warnings}");
    assert!(json_stdout(&plain)["context"].get("tool_arguments").is_none());

    // With --agent claude: the input is the agent's; EVENT comes from it.
    let read = fire(&["--agent", "claude"]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    let warnings = stderr(&read);
    assert!(!warnings.contains("hook input") && !warnings.contains("context field"), "{warnings}");
    // The load warns on the upper-case matcher, which never selects Claude Code's `Bash` (nor
    // Copilot CLI's `bash`).
    assert!(warnings.contains("`filter.tool_matcher` `BASH` matches no tool") && warnings.contains("`Bash`"));
    let read = json_stdout(&read);
    assert_eq!(read["event"], "pre_tool_execution");
    assert_eq!(read["context"]["tool_arguments"], r#"{"command":"rm -rf build"}"#);
    assert_eq!(
        read["context"]["tool"],
        json!({"input": {"command": "rm -rf build"}, "class": "shell",
        "command": "rm -rf build", "paths": []})
    );
    assert_eq!(read["trace"][0]["outcome"], "filtered");
    assert_eq!(read["trace"][0]["reason"], r#"tool_matcher "BASH" did not match tool "Bash""#);

    // EVENT and the input must agree.
    let mismatch = fire(&["stop", "--agent", "claude"]);
    assert_eq!(mismatch.status.code(), Some(2), "{}", stderr(&mismatch));
    assert!(stderr(&mismatch).contains("PreToolUse") || stderr(&mismatch).contains("pre_tool_execution"));
}

#[test]
fn fire_exit_codes() {
    let sandbox = Sandbox::new();
    sandbox.write("work/hooks.yaml", "stop:\n  - command: \"cat >/dev/null; echo '{}'\"\n");
    sandbox.write("work/broken.yaml", "stop:\n  - command: [unclosed\n");
    let base = ["fire", "stop", "--no-default-config", "--config"];
    let ok = sandbox.run("work", &[&base[..], &["hooks.yaml"]].concat());
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let bad_context =
        sandbox.run_with_stdin("work", &[&base[..], &["hooks.yaml", "--context", "-"]].concat(), "[1, 2]");
    assert_eq!(bad_context.status.code(), Some(1));
    assert!(stderr(&bad_context).contains("JSON object"), "{}", stderr(&bad_context));
    let not_json = sandbox.run_with_stdin("work", &[&base[..], &["hooks.yaml", "--context", "-"]].concat(), "{oops");
    assert_eq!(not_json.status.code(), Some(1));
    let bad_config = sandbox.run("work", &[&base[..], &["broken.yaml"]].concat());
    assert_eq!(bad_config.status.code(), Some(2));
    assert!(stderr(&bad_config).contains("broken.yaml:"), "{}", stderr(&bad_config));
    let bad_event = sandbox.run("work", &["fire", "PreToolUSE", "--no-default-config"]);
    assert_eq!(bad_event.status.code(), Some(2));
    assert!(stderr(&bad_event).contains("valid names are"), "{}", stderr(&bad_event));
}

#[test]
fn fire_runs_a_python_process_hook_that_answers_its_plugin_tool() {
    let sandbox = Sandbox::new();
    let plugin = repo_file("crates/hook-process/tests/fixtures/weather_plugin.py");
    let config = sandbox.write(
        "work/picoclaw.json",
        &json!({"hooks": {"processes": {"weather_plugin": {
            "enabled": true,
            "command": [python(), plugin],
            "intercept": ["before_llm", "before_tool"],
        }}}})
        .to_string(),
    );
    let config = config.to_str().unwrap();
    let injected = sandbox.run_with_stdin(
        "work",
        &["fire", "before_llm", "--no-default-config", "--config", config, "--context", "-"],
        r#"{"model": "m", "messages": [{"role": "user", "content": "weather in Beijing?"}], "tools": []}"#,
    );
    assert_eq!(injected.status.code(), Some(0), "{}", stderr(&injected));
    let injected = json_stdout(&injected);
    assert_eq!(injected["context"]["tools"][0]["function"]["name"], "get_weather");

    let answered = sandbox.run_with_stdin(
        "work",
        &["fire", "before_tool", "--no-default-config", "--config", config, "--context", "-"],
        r#"{"tool_name": "get_weather", "tool_arguments": {"city": "Beijing"}}"#,
    );
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    let answered = json_stdout(&answered);
    // The plugin did not inject the tool within this command's fire, and its config does not
    // list it under respond_tools: hookwire refuses the respond (docs/design.md, "Decisions").
    assert_eq!(answered["action"], "deny_tool", "{answered}");
    assert!(answered["reason"].as_str().unwrap().contains("respond_tools"), "{answered}");

    let allowed_config = sandbox.write(
        "work/allowed.json",
        &json!({"hooks": {"processes": {"weather_plugin": {
            "enabled": true,
            "command": [python(), plugin],
            "intercept": ["before_llm", "before_tool"],
            "respond_tools": ["get_weather"],
        }}}})
        .to_string(),
    );
    let answered = sandbox.run_with_stdin(
        "work",
        &["fire", "before_tool", "--no-default-config", "--config", allowed_config.to_str().unwrap(), "--context", "-"],
        r#"{"tool_name": "get_weather", "tool_arguments": {"city": "Beijing"}}"#,
    );
    let answered = json_stdout(&answered);
    assert_eq!(answered["action"], "respond", "{answered}");
    assert_eq!(answered["respond"]["for_llm"], "Beijing weather: Sunny, temperature 15°C, humidity 45%");
}

#[test]
fn fire_runs_an_llm_hook_against_a_scripted_model() {
    let server =
        ScriptedServer::start([Reply::Content("Looks risky.\n```json\n{\"action\": \"skip\"}\n```".into())]).unwrap();
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/hooks.yaml",
        "pre_tool_execution:\n  - type: llm\n    name: reviewer\n    prompt: \"Is {{tool_name}} {{tool_arguments}} safe?\"\n",
    );
    let output = sandbox.run_with_stdin(
        "work",
        &[
            "fire",
            "PreToolUse",
            "--no-default-config",
            "--config",
            "hooks.yaml",
            "--base-url",
            &server.base_url(),
            "--model",
            "scripted",
            "--context",
            "-",
        ],
        r#"{"tool_name": "Bash", "tool_arguments": "{\"command\":\"rm -rf /\"}"}"#,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let outcome = json_stdout(&output);
    assert_eq!(outcome["action"], "skip", "{outcome}");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["model"], "scripted");
    let prompt = requests[0]["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.starts_with(r#"Is Bash {"command":"rm -rf /"} safe?"#), "{prompt}");
}

#[test]
fn trust_is_refused_granted_and_invalidated() {
    let sandbox = Sandbox::new();
    sandbox.write("work/proj/.hookwire/hooks.yaml", "stop:\n  - name: guard\n    command: ./guard.sh\n");
    let script = sandbox.write_script("work/proj/guard.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    fs::create_dir_all(sandbox.path("work/proj/sub")).unwrap();

    let untrusted = sandbox.run("work/proj/sub", &["check"]);
    assert_eq!(untrusted.status.code(), Some(0));
    let text = stdout(&untrusted);
    assert!(text.contains("untrusted:") && text.contains("hookwire trust"), "{text}");
    assert!(!text.contains("project:guard:stop"), "an untrusted hook is listed as running:\n{text}");

    let trusted = sandbox.run("work/proj/sub", &["trust", "--yes"]);
    assert_eq!(trusted.status.code(), Some(0), "{}", stderr(&trusted));
    let shown = stdout(&trusted);
    assert!(shown.contains("hook project:guard:stop (bash)"), "{shown}");
    assert!(shown.contains("runs ") && shown.contains("guard.sh"), "{shown}");
    let listed = stdout(&sandbox.run("work/proj/sub", &["check"]));
    assert!(listed.contains("project:guard:stop"), "{listed}");

    fs::write(&script, "#!/bin/sh\ncat >/dev/null\necho '{} '\n").unwrap();
    let changed = stdout(&sandbox.run("work/proj/sub", &["check"]));
    assert!(changed.contains("untrusted:") && !changed.contains("project:guard:stop"), "{changed}");

    let list = stdout(&sandbox.run("work", &["trust", "--list"]));
    assert!(list.contains("proj"), "{list}");
    assert_eq!(sandbox.run("work/proj", &["trust", "--revoke"]).status.code(), Some(0));
    assert!(!stdout(&sandbox.run("work", &["trust", "--list"])).contains("proj"));
}

#[test]
fn stats_summarises_an_audit_log() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/hooks.yaml",
        "stop:\n  - name: fine\n    command: \"cat >/dev/null; echo '{}'\"\n  - name: broken\n    command: \"exit 1\"\n",
    );
    for _ in 0..3 {
        let output = sandbox
            .run("work", &["fire", "stop", "--no-default-config", "--config", "hooks.yaml", "--audit", "audit.jsonl"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    let audit = fs::read_to_string(sandbox.path("work/audit.jsonl")).unwrap();
    assert_eq!(audit.lines().count(), 6);
    let first: Value = serde_json::from_str(audit.lines().next().unwrap()).unwrap();
    for key in ["time_ms", "event", "id", "outcome", "action", "changed", "duration_ms", "attempts"] {
        assert!(first.get(key).is_some(), "audit line has no `{key}`: {first}");
    }
    let stats = sandbox.run("work", &["stats", "audit.jsonl"]);
    assert_eq!(stats.status.code(), Some(0));
    let text = stdout(&stats);
    let header: Vec<&str> = text.lines().next().unwrap_or_default().split_whitespace().collect();
    assert_eq!(header[1..6], ["runs", "ok", "failed", "filtered", "disabled"], "{text}");
    let broken = text.lines().find(|l| l.starts_with("user:broken:stop")).unwrap_or_else(|| panic!("{text}"));
    let columns: Vec<&str> = broken.split_whitespace().collect();
    assert_eq!(&columns[1..5], ["3", "0", "3", "0"], "{text}");
    let fine = text.lines().find(|l| l.starts_with("user:fine:stop")).unwrap();
    assert_eq!(&fine.split_whitespace().collect::<Vec<_>>()[1..5], ["3", "3", "0", "0"], "{text}");
}

/// The README's "Try it" block, run line by line as a reader would.
#[test]
fn readme_try_it_commands_work() {
    let readme = fs::read_to_string(repo_file("README.md")).unwrap();
    let block = readme
        .split("<!-- try-it -->")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("README has a `<!-- try-it -->` sh block");
    let sandbox = Sandbox::new();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_hookwire")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let output = Command::new("sh")
        .args(["-ec", block])
        .current_dir(sandbox.path("work"))
        .env("PATH", path)
        .env("HOME", sandbox.path("home"))
        .env("XDG_CONFIG_HOME", sandbox.path("home/.config"))
        .output()
        .unwrap();
    assert!(output.status.success(), "the README's commands failed:\n{}\n{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("\"action\":\"skip\""), "{text}");
}

#[test]
fn chat_runs_one_turn_with_hooks_against_an_openai_compatible_server() {
    let server = ScriptedServer::start([
        Reply::ToolCalls(vec![hook_protocol::ToolCall::new("c1", "bash", r#"{"command":"rm -rf /"}"#)], None),
        Reply::Content("I did not delete anything.".into()),
    ])
    .unwrap();
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/hooks.yaml",
        "pre_tool_execution:\n  - name: guard\n    command: \"cat >/dev/null; echo '{\\\"action\\\": \\\"skip\\\"}'\"\n",
    );
    let output = sandbox.run(
        "work",
        &[
            "chat",
            "-p",
            "clean up",
            "--base-url",
            &server.base_url(),
            "--model",
            "scripted",
            "--no-default-config",
            "--config",
            "hooks.yaml",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}\n{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("[pre_tool_execution(bash)] skip"), "{text}");
    assert!(text.contains("hook user:guard:pre_tool_execution → ok action=skip"), "{text}");
    assert!(text.contains("assistant: I did not delete anything."), "{text}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let tool_message = requests[1]["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap();
    assert!(tool_message["content"].as_str().unwrap().contains("skipped by hook"), "{tool_message}");
}

#[test]
fn without_a_home_project_hooks_stay_untrusted() {
    let sandbox = Sandbox::new();
    sandbox.write("work/proj/.jcli/hooks.yaml", "stop:\n  - name: guard\n    command: \"cat >/dev/null; echo '{}'\"\n");
    let output = sandbox
        .command("work/proj", &["check"])
        .env_remove("HOME")
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("untrusted:") && !text.contains("project:guard:stop"), "{text}");
}

#[test]
fn a_picoclaw_builtin_is_skipped_with_a_warning_not_an_error() {
    let sandbox = Sandbox::new();
    sandbox.write("work/picoclaw.json", r#"{"hooks": {"builtins": {"audit": {"enabled": true}}}}"#);
    let output = sandbox.run("work", &["check", "--no-default-config", "--config", "picoclaw.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.contains("warning:") && text.contains("hook `audit`") && text.contains("skipped"), "{text}");
}

/// Hooks run in process groups of their own, which a terminal's Ctrl-C does not reach: hookwire
/// itself must take them down.
#[test]
fn ctrl_c_leaves_no_hook_process_behind() {
    use nix::{
        errno::Errno,
        sys::signal::{Signal, kill, killpg},
        unistd::Pid,
    };
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("work/hook.pid");
    sandbox.write(
        "work/hooks.yaml",
        &format!(
            "stop:\n  - name: sleeper\n    timeout: 60\n    command: \"echo $$ > {}; sleep 30 & sleep 30\"\n",
            pid_file.display()
        ),
    );
    let child = sandbox
        .command("work", &["fire", "stop", "--no-default-config", "--config", "hooks.yaml"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let pgid = loop {
        if let Some(pid) = fs::read_to_string(&pid_file).ok().and_then(|t| t.trim().parse::<i32>().ok()) {
            break Pid::from_raw(pid);
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "the hook never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(killpg(pgid, None), Ok(()), "the hook's group should be running");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "took {:?}", started.elapsed());
    // The kill is synchronous; allow the kernel a moment to finish tearing the group down.
    let gone = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        killpg(pgid, None) == Err(Errno::ESRCH) || only_zombies_left(pgid.as_raw())
    });
    assert!(gone, "processes of the hook's group {pgid} survived Ctrl-C");
}

/// Whether every process still in group `pgid` is a zombie (PID 1 here may not reap orphans).
fn only_zombies_left(pgid: i32) -> bool {
    fs::read_dir("/proc").unwrap().flatten().all(|entry| {
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else { return true };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces, so split after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { return true };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.get(2).and_then(|g| g.parse::<i32>().ok()) != Some(pgid) || fields.first() == Some(&"Z")
    })
}
