//! The `when` matcher of guard rules through the built binary: `hookwire check` refuses a
//! rules file whose expression has a mistake, at the place of the expression in the file and
//! with what to fix; `hookwire hook claude` denies a real Claude Code payload by a `when` rule,
//! and asks when the expression cannot be evaluated on the call.

use std::{
    io::Write as _,
    process::{Output, Stdio},
};

use serde_json::{Value, json};

use crate::common::{Scratch, both, stdout};

/// `hookwire ARGS` in `work/`, hermetic, with `input` on stdin when given.
fn run(scratch: &Scratch, args: &[&str], input: Option<&str>) -> Output {
    let mut command = scratch.hookwire("work", args);
    command.env("HOOKWIRE_MANAGED_DIR", scratch.path("managed")).env("HOOKWIRE_NO_DAEMON", "1");
    command.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("hookwire starts");
    if let Some(input) = input {
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// A Claude Code PreToolUse input for `tool` with `input`, in `cwd`.
fn claude_pre_tool_use(cwd: &str, tool: &str, input: Value) -> String {
    json!({
        "session_id": "3f9a1c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b",
        "transcript_path": format!("{cwd}/t.jsonl"),
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_01A2b3C4d5E6f7G8h9J0kLmN",
    })
    .to_string()
}

/// The `permissionDecision` and its reason in a Claude Code answer.
fn decision(output: &Output) -> (Value, String) {
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    let specific = &answer["hookSpecificOutput"];
    (
        specific["permissionDecision"].clone(),
        specific["permissionDecisionReason"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn check_refuses_a_when_with_a_mistake_at_its_place_in_the_file() {
    let scratch = Scratch::new("rules-when-check");
    for (text, place, says) in [
        (
            "rules:\n  - name: big-write\n    tools: [write]\n    when: size(input.content) > 1000000 && tol == 'Write'\n",
            ":4:11: ",
            "`when` reads the unknown variable `tol` (at 1:34 of the expression); the variables are tool, class",
        ),
        (
            "rules:\n  - name: big-write\n    reason: too big\n    when: \"size(input.content) >\"\n",
            ":4:12: ",
            "`when` is not a valid CEL expression (at 1:22 of the expression)",
        ),
        (
            "rules:\n  - name: mcp\n    when: >-\n      tool.startswith('mcp__github__')\n",
            ":4:7: ",
            "`when` calls the unknown function `startswith` (at 1:6 of the expression)",
        ),
    ] {
        let file = scratch.write("bad.yaml", text);
        let file_arg = file.display().to_string();
        let output = run(&scratch, &["check", "--no-default-config", "--config", &file_arg], None);
        assert_eq!(output.status.code(), Some(2), "a refused rules file is an error: {}", both(&output));
        let expected = format!("{file_arg}{place}");
        let all = both(&output);
        assert!(all.contains(&expected) && all.contains(says), "expected `{expected}` and `{says}` in:\n{all}");
        assert!(stdout(&output).contains(&format!("  {file_arg}  refused")), "{all}");
    }
}

#[test]
fn the_claude_code_bridge_denies_by_a_when_rule_and_asks_when_it_cannot_tell() {
    let scratch = Scratch::new("rules-when-bridge");
    let rules = scratch.write(
        "rules.yaml",
        "\
rules:
  - name: big-write
    tools: [write]
    when: size(input.content) > 1000000
    reason: a file over 1 MB is not written by the agent
  - name: fetch-allowlist
    tools: [fetch]
    when: \"!input.url.matches('^https://docs[.]rs/')\"
    reason: only docs.rs
",
    );
    let rules_arg = rules.display().to_string();
    let work = scratch.path("work").display().to_string();
    let bridge = ["hook", "claude", "--no-default-config", "--config", &rules_arg];
    let write = |content: String| {
        claude_pre_tool_use(&work, "Write", json!({"file_path": format!("{work}/out.bin"), "content": content}))
    };

    let big = run(&scratch, &bridge, Some(&write("x".repeat(1_000_001))));
    let (verdict, reason) = decision(&big);
    assert_eq!(verdict, "deny", "{}", both(&big));
    assert!(reason.contains("a file over 1 MB") && reason.contains("big-write"), "{reason}");

    let small = run(&scratch, &bridge, Some(&write("hello".into())));
    assert!(small.status.success(), "{}", both(&small));
    assert_eq!(decision(&small).0, Value::Null, "a small write passes: {}", both(&small));

    let fetch = |url: &str| claude_pre_tool_use(&work, "WebFetch", json!({"url": url, "prompt": "summarize"}));
    assert_eq!(decision(&run(&scratch, &bridge, Some(&fetch("https://evil.example/x")))).0, "deny");
    assert_eq!(decision(&run(&scratch, &bridge, Some(&fetch("https://docs.rs/cel")))).0, Value::Null);

    // A fetch without a url: the expression fails on it, so the rule asks (its default
    // `undetermined`) rather than letting the call through.
    let no_url = claude_pre_tool_use(&work, "WebFetch", json!({"prompt": "p"}));
    let odd = run(&scratch, &bridge, Some(&no_url));
    assert_eq!(decision(&odd).0, "ask", "{}", both(&odd));
    // `rules explain` on the same input says why (exit 3: ask).
    let explain =
        ["rules", "explain", "--agent", "claude", "--no-default-config", "--config", &rules_arg, "--format", "json"];
    let explained = run(&scratch, &explain, Some(&no_url));
    assert_eq!(explained.status.code(), Some(3), "{}", both(&explained));
    let out: Value = serde_json::from_slice(&explained.stdout).unwrap_or(Value::Null);
    assert_eq!(out["decided_by"]["rule"], "fetch-allowlist", "{out}");
    assert!(out.to_string().contains("could not be evaluated on this call (No such key: url)"), "{out}");
}
