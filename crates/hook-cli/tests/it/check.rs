//! `hookwire check` beyond loading: every error of a file in one pass, durations written as
//! strings, unknown prompt placeholders, missing or non-executable scripts, approval guards that
//! fail open, PicoClaw syntax errors; and a process hook's hello refusal reaching the terminal
//! with its control characters escaped.

use std::{ops::Deref, process::Output};

use serde_json::Value;

use crate::common::{Scratch, chmod, json_stdout, stdout};

/// A scratch home and working directory; no real configuration leaks in.
struct Sandbox(Scratch);

impl Deref for Sandbox {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox(Scratch::new("check-test"))
    }

    fn run(&self, args: &[&str]) -> Output {
        self.hookwire("work", args).output().unwrap()
    }

    fn check(&self, config: &str) -> (String, Value) {
        let text = self.run(&["check", "--no-default-config", "--config", config]);
        let json = self.run(&["check", "--no-default-config", "--config", config, "--format", "json"]);
        (stdout(&text), json_stdout(&json))
    }
}

/// The `message` of each entry of `list` (`errors` or `warnings`) of a JSON report.
fn messages(report: &Value, list: &str) -> Vec<String> {
    report[list].as_array().unwrap().iter().map(|d| d["message"].as_str().unwrap().to_owned()).collect()
}

const FOUR_MISTAKES: &str = r#"pre_tool_execution:
  - name: a
    command: ./a.sh
    timeout: "5s"
  - name: b
    type: llm
  - name: c
    command: ./c.sh
    filter:
      tool_regex: '('
  - name: d
    command: ./d.sh
    on_eror: skip
pre_tool:
  - command: ./e.sh
"#;

#[test]
fn check_reports_every_mistake_of_a_file_in_one_run() {
    let sandbox = Sandbox::new();
    sandbox.write("work/hooks.yaml", FOUR_MISTAKES);
    let (text, report) = sandbox.check("hooks.yaml");
    let errors = report["errors"].as_array().unwrap();
    let at: Vec<(u64, Option<&str>)> =
        errors.iter().map(|e| (e["line"].as_u64().unwrap(), e["hook"].as_str())).collect();
    assert_eq!(at, [(4, Some("a")), (5, Some("b")), (10, Some("c")), (13, Some("d")), (14, None)], "{text}");
    assert!(messages(&report, "errors")[4].contains("unknown event `pre_tool`"));
    assert_eq!(text.lines().filter(|l| l.starts_with("error: ")).count(), 5, "{text}");
    assert_eq!(report["valid"], false);
}

/// The same for a j-cli JSON hooks file and a PicoClaw config: every mistake in one run, each
/// at its line with its hook, and neither file's valid hooks load.
#[test]
fn check_reports_every_mistake_of_json_and_picoclaw_files_in_one_run() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/hooks.json",
        concat!(
            "{\n",
            "  \"pre_tool_execution\": [\n",
            "    {\"name\": \"a\", \"command\": \"true\", \"timout\": 5},\n",
            "    {\"name\": \"b\", \"command\": \"true\", \"filter\": {\"tool_regex\": \"(\"}},\n",
            "    {\"name\": \"ok\", \"command\": \"true\"}\n",
            "  ],\n",
            "  \"after_everything\": [{\"name\": \"c\", \"command\": \"true\"}]\n",
            "}\n",
        ),
    );
    let (text, report) = sandbox.check("hooks.json");
    let at: Vec<(u64, Option<&str>)> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["line"].as_u64().unwrap(), e["hook"].as_str()))
        .collect();
    assert_eq!(at.len(), 3, "{text}");
    assert_eq!(at.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [3, 4, 7], "{text}");
    assert_eq!((at[0].1, at[1].1), (Some("a"), Some("b")), "{text}");
    assert_eq!(report["valid"], false);
    assert_eq!(report["events"], serde_json::json!({}), "no hook of a file with errors loads: {text}");

    sandbox.write(
        "work/picoclaw.json",
        concat!(
            "{\"hooks\": {\"processes\": {\n",
            "  \"p\": {\"enabled\": true, \"intercept\": [\"before_tool\"]},\n",
            "  \"q\": {\"enabled\": true, \"command\": [\"x\"], \"intercept\": [\"before_everything\"]},\n",
            "  \"r\": {\"enabled\": true, \"command\": [\"x\"], \"intercept\": [\"before_tool\"], \"timeout_ms\": 1e30}\n",
            "}}}\n",
        ),
    );
    let (text, report) = sandbox.check("picoclaw.json");
    let lines: Vec<u64> = report["errors"].as_array().unwrap().iter().map(|e| e["line"].as_u64().unwrap()).collect();
    for line in [2, 3, 4] {
        assert!(lines.contains(&line), "no command (2), unknown event (3), 1e30 timeout (4): {text}");
    }
    assert_eq!(report["valid"], false);
    assert_eq!(report["events"], serde_json::json!({}), "{text}");
}

#[test]
fn a_timeout_written_as_a_string_says_it_is_seconds() {
    let sandbox = Sandbox::new();
    sandbox.write("work/hooks.yaml", "stop:\n  - command: \"echo '{}'\"\n    timeout: \"5s\"\n");
    let (text, report) = sandbox.check("hooks.yaml");
    assert_eq!(
        messages(&report, "errors"),
        ["`timeout` is a number of seconds, not the string \"5s\": write `timeout: 5`"]
    );
    assert!(text.contains("hooks.yaml:3:14: hook `stop-0`: `timeout` is a number of seconds"), "{text}");
}

#[test]
fn unknown_placeholders_in_llm_prompts_are_warned_about() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/hooks.yaml",
        "pre_tool_execution:\n  - name: review\n    type: llm\n    prompt: 'Is {{tool_name}} with {{tool_args}} safe? {{ tool_name }} Answer {\"action\": \"skip\"}'\n",
    );
    let (text, report) = sandbox.check("hooks.yaml");
    assert_eq!(report["valid"], true);
    let warnings = messages(&report, "warnings");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("the prompt's `{{tool_args}}` is not a placeholder"), "{warnings:?}");
    assert!(warnings[0].contains("{{tool_arguments}}"), "the known ones are listed: {warnings:?}");
    assert!(warnings[1].starts_with("the prompt's `{{ tool_name }}`"), "{warnings:?}");
    assert!(text.contains("warning: ") && text.contains("hook `review`: the prompt's `{{tool_args}}`"), "{text}");
}

#[test]
fn missing_and_non_executable_scripts_are_warned_about() {
    let sandbox = Sandbox::new();
    let plain = sandbox.write("work/scripts/plain.sh", "#!/bin/sh\necho '{}'\n");
    chmod(&plain, 0o644);
    let fine = sandbox.write("work/scripts/fine.sh", "#!/bin/sh\necho '{}'\n");
    chmod(&fine, 0o755);
    sandbox.write(
        "work/hooks.yaml",
        "stop:\n  - name: missing\n    command: ./scripts/gone.sh --flag\n  - name: plain\n    command: FOO=1 ./scripts/plain.sh\n  - name: fine\n    command: ./scripts/fine.sh\n  - name: on-path\n    command: echo '{}'\n",
    );
    sandbox.write(
        "work/picoclaw.json",
        r#"{"hooks": {"processes": {"proc": {"enabled": true, "command": ["./nowhere/plugin"], "intercept": ["before_tool"]}}}}"#,
    );
    sandbox.write(
        "work/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/plain.sh"}]}]}}"#,
    );
    for (config, expected) in [
        ("hooks.yaml", vec![("missing", "does not exist"), ("plain", "is not executable")]),
        ("picoclaw.json", vec![("proc", "does not exist")]),
    ] {
        let (text, report) = sandbox.check(config);
        let got: Vec<(String, String)> = report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["message"].as_str().unwrap().starts_with("runs `"))
            .map(|w| (w["hook"].as_str().unwrap().to_owned(), w["message"].as_str().unwrap().to_owned()))
            .collect();
        assert_eq!(got.len(), expected.len(), "{config}: {got:?}\n{text}");
        for ((hook, message), (want_hook, want)) in got.iter().zip(&expected) {
            assert_eq!(hook, want_hook);
            assert!(message.contains(want), "{message}");
        }
    }
    // A Claude Code `command` handler likewise.
    let (text, _) = sandbox.check("settings.json");
    assert!(text.contains("runs `./scripts/plain.sh`, which is not executable: `chmod +x"), "{text}");
}

#[test]
fn an_approval_guard_that_fails_open_is_warned_about() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/hooks.yaml",
        "approve_tool:\n  - name: open\n    command: \"echo '{}'\"\n    on_error: skip\n  - name: closed\n    command: \"echo '{}'\"\n  - name: stops\n    command: \"echo '{}'\"\n    on_error: stop\n",
    );
    let (_, report) = sandbox.check("hooks.yaml");
    let warnings = report["warnings"].as_array().unwrap();
    let open: Vec<&str> = warnings
        .iter()
        .filter(|w| w["message"].as_str().unwrap().contains("approve_tool"))
        .map(|w| w["hook"].as_str().unwrap())
        .collect();
    assert_eq!(open, ["open"]);
}

#[test]
fn a_picoclaw_file_with_a_syntax_error_reports_the_syntax_error() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "work/picoclaw.yaml",
        "hooks:\n  enabled: true\n  processes:\n    weather:\n      enabled: true\n      command: [\"python3\", \"weather.py\"\n      intercept: [before_tool]\n",
    );
    let (text, report) = sandbox.check("picoclaw.yaml");
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(!text.contains("unknown event"), "{text}");
    assert_eq!((errors[0]["line"].as_u64(), errors[0]["column"].as_u64()), (Some(7), Some(16)), "{text}");
}

#[test]
fn a_hello_refusal_reaches_the_terminal_with_control_characters_escaped() {
    let sandbox = Sandbox::new();
    let script = sandbox.write(
        "work/refuser.py",
        r#"import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "hook.hello":
        reason = "no\u001b[2J\u001b]52;c;aGk=\u0007 thanks"
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"ok": False, "reason": reason}}) + "\n")
        sys.stdout.flush()
"#,
    );
    let config = format!(
        r#"{{"hooks": {{"processes": {{"refuser": {{"enabled": true, "command": ["python3", "{}"], "intercept": ["before_tool"]}}}}}}}}"#,
        script.display()
    );
    sandbox.write("work/picoclaw.json", &config);
    sandbox.write("work/context.json", r#"{"tool_name": "Bash", "tool_arguments": {"command": "ls"}}"#);
    let output = sandbox.run(&[
        "fire",
        "pre_tool_execution",
        "--no-default-config",
        "--config",
        "picoclaw.json",
        "--context",
        "context.json",
    ]);
    let all = [output.stdout.as_slice(), output.stderr.as_slice()].concat();
    let all = String::from_utf8_lossy(&all);
    assert!(all.contains("[2J"), "the refusal is shown: {all}");
    assert!(
        !all.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
        "a raw control character reached the terminal: {all:?}"
    );
}
