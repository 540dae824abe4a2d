//! `hookwire test`: a project with hooks of two dialects (a j-cli bash hook in
//! `.hookwire/hooks.yaml`, a Claude Code command hook in `.claude/settings.json`) and a test file
//! whose cases pass and fail, run by the real binary.

use std::process::Command;

use crate::common::{Scratch, both, json_stdout, stdout};

/// The j-cli guard denies `rm -rf ~` (j-cli's `skip`), the Claude Code hook blocks every `Write`
/// (exit 2), and one hook sits on an event no case fires.
fn project() -> Scratch {
    let sandbox = Scratch::new("hooktest");
    sandbox.write(
        "work/proj/.hookwire/hooks.yaml",
        r#"pre_tool_execution:
  - name: no-home-delete
    command: |
      input=$(cat)
      case "$input" in
        *'rm -rf ~'*) echo "deleting home from $(pwd)" >&2; echo '{"action": "skip", "reason": "deleting home is not allowed"}' ;;
        *) echo '{}' ;;
      esac
    filter:
      tool_name: Bash
post_llm_response:
  - name: never-reached
    command: "cat >/dev/null; echo '{}'"
"#,
    );
    sandbox.write(
        "work/proj/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "cat >/dev/null; echo 'no writes under /etc' >&2; exit 2"}]}]}}"#,
    );
    sandbox.write(
        "work/proj/hooktests/guards.hooktest.yaml",
        r#"# The project's guards, in Claude Code's terms.
agent: claude
cases:
  - name: home delete is denied
    event: PreToolUse
    input: {tool_name: Bash, tool_input: {command: "rm -rf ~"}}
    expect:
      decision: deny
      reason: {contains: home}
  - name: ls is allowed
    event: PreToolUse
    input: {tool_name: Bash, tool_input: {command: ls}}
    expect: {decision: allow}
  - name: a write is denied by the Claude Code hook
    event: PreToolUse
    input: {tool_name: Write, tool_input: {file_path: /etc/passwd, content: x}}
    expect: {decision: deny, reason: {matches: "under /etc$"}}
  - name: echo is wrongly expected to be denied
    event: PreToolUse
    input: {tool_name: Bash, tool_input: {command: "echo hi"}}
    expect: {decision: deny, reason: {contains: "nope"}}
"#,
    );
    sandbox
}

fn test_run(sandbox: &Scratch, args: &[&str]) -> std::process::Output {
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    sandbox.hookwire("work/proj", &all).output().unwrap()
}

#[test]
fn passing_and_failing_cases_report_expected_got_and_the_trace() {
    let sandbox = project();
    let output = test_run(&sandbox, &[]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(text.starts_with("hookwire test: the project's hooks run without a trust check"), "{text}");
    assert_eq!(text.lines().last(), Some("3 passed, 1 failed"), "{text}");
    for passed in ["home delete is denied", "ls is allowed", "a write is denied by the Claude Code hook"] {
        assert!(text.contains(&format!("ok    hooktests/guards.hooktest.yaml: {passed}\n")), "{passed}: {text}");
    }
    let failure = text.split("FAIL  hooktests/guards.hooktest.yaml: echo is wrongly expected to be denied\n").nth(1);
    let failure = failure.unwrap_or_else(|| panic!("no failure line: {text}"));
    assert!(failure.contains("decision: expected deny, got no decision (the agent goes on)"), "{failure}");
    assert!(failure.contains(r#"reason: expected text that contains "nope", got none"#), "{failure}");
    assert!(failure.contains("expected: decision deny, reason contains \"nope\""), "{failure}");
    assert!(failure.contains("got:      decision none"), "{failure}");
    // The trace names the hook that ran and where it is declared, and why the other did not.
    let hooks_yaml = sandbox.path("work/proj/.hookwire/hooks.yaml");
    assert!(
        failure
            .contains(&format!("project:no-home-delete:pre_tool_execution no_change ({}:2:5)", hooks_yaml.display())),
        "{failure}"
    );
    assert!(failure.contains(r#"matcher "Write" did not match tool "Bash""#), "{failure}");
    // A test run records no trust.
    assert!(!sandbox.path("home/.config/hookwire/trust.json").exists());
}

#[test]
fn the_deciding_hook_and_a_failing_hooks_stderr_tail_are_in_the_trace() {
    let sandbox = project();
    sandbox.write(
        "work/proj/hooktests/guards.hooktest.yaml",
        "agent: claude\ncases:\n  - name: home delete is asked\n    event: PreToolUse\n    input: {tool_name: Bash, tool_input: {command: \"rm -rf ~\"}}\n    expect: {decision: ask}\n",
    );
    let output = test_run(&sandbox, &[]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(text.contains("decision: expected ask, got deny"), "{text}");
    assert!(text.contains("project:no-home-delete:pre_tool_execution ok"), "{text}");
    assert!(text.contains("skip: deleting home is not allowed"), "{text}");
    assert!(text.ends_with("0 passed, 1 failed\n"), "{text}");

    sandbox.write(
        "work/proj/.hookwire/hooks.yaml",
        "pre_tool_execution:\n  - name: broken\n    command: \"cat >/dev/null; echo 'guard.py: line 3: boom' >&2; exit 3\"\n",
    );
    let output = test_run(&sandbox, &[]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(text.contains("project:broken:pre_tool_execution"), "{text}");
    assert!(text.contains("guard.py: line 3: boom"), "{text}");
}

#[test]
fn filter_runs_only_matching_cases_and_all_passing_exits_0() {
    let sandbox = project();
    let output = test_run(&sandbox, &["--filter", "denied by"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(stdout(&output).ends_with("1 passed, 0 failed\n"), "{}", both(&output));
}

#[test]
fn junit_is_valid_xml_with_the_counts_and_names() {
    let sandbox = project();
    let output = test_run(&sandbox, &["--format", "junit"]);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    let script = r#"
import sys, json, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
suites = root.findall("testsuite") if root.tag == "testsuites" else [root]
cases = [c for s in suites for c in s.findall("testcase")]
print(json.dumps({
    "tests": sum(int(s.get("tests")) for s in suites),
    "failures": sum(int(s.get("failures")) for s in suites),
    "names": [c.get("name") for c in cases],
    "failed": [c.get("name") for c in cases if c.find("failure") is not None],
    "message": [c.find("failure").get("message") for c in cases if c.find("failure") is not None],
    "body": [c.find("failure").text for c in cases if c.find("failure") is not None],
}))
"#;
    let mut python = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    python.stdin.take().unwrap().write_all(&output.stdout).unwrap();
    let parsed = python.wait_with_output().unwrap();
    assert!(parsed.status.success(), "not XML python reads:\n{}", stdout(&output));
    let report: serde_json::Value = serde_json::from_slice(&parsed.stdout).unwrap();
    assert_eq!(report["tests"], 4, "{report}");
    assert_eq!(report["failures"], 1, "{report}");
    assert_eq!(
        report["names"],
        serde_json::json!([
            "home delete is denied",
            "ls is allowed",
            "a write is denied by the Claude Code hook",
            "echo is wrongly expected to be denied"
        ])
    );
    assert_eq!(report["failed"], serde_json::json!(["echo is wrongly expected to be denied"]));
    assert!(report["message"][0].as_str().unwrap().contains("decision: expected deny"), "{report}");
    assert!(report["body"][0].as_str().unwrap().contains("trace:"), "{report}");
}

#[test]
fn json_reports_each_case() {
    let sandbox = project();
    let output = test_run(&sandbox, &["--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    let report = json_stdout(&output);
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64()), (Some(3), Some(1)), "{report}");
    let failed = &report["cases"][3];
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["file"], "hooktests/guards.hooktest.yaml");
    assert_eq!(failed["expected"]["decision"], "deny");
    assert_eq!(failed["got"]["decision"], serde_json::Value::Null);
    assert_eq!(failed["trace"][0]["hook"], "project:no-home-delete:pre_tool_execution");
    assert_eq!(report["cases"][0]["got"]["decision"], "deny");
}

#[test]
fn coverage_names_the_hook_no_case_reaches() {
    let sandbox = project();
    let output = test_run(&sandbox, &["--filter", "is denied", "--coverage"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(
        text.contains("coverage: 1 configured hook(s) no case ran:\n  project:never-reached:post_llm_response ("),
        "{text}"
    );
    assert!(!text.contains("no-home-delete:pre_tool_execution ("), "{text}");
    let required = test_run(&sandbox, &["--filter", "is denied", "--require-coverage"]);
    assert_eq!(required.status.code(), Some(1), "{}", both(&required));
}

#[test]
fn a_test_file_that_does_not_load_exits_2_with_file_line_and_column() {
    let sandbox = project();
    sandbox
        .write("work/proj/hooktests/bad.hooktest.yaml", "agent: claude\ncases:\n  - name: x\n    evnt: PreToolUse\n");
    let output = test_run(&sandbox, &["hooktests/bad.hooktest.yaml"]);
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    let err = crate::common::stderr(&output);
    assert!(err.contains("hooktests/bad.hooktest.yaml:4:5: unknown field `evnt`"), "{err}");
    assert!(err.contains("did you mean `event`?"), "{err}");
    let nothing = sandbox.hookwire("work", &["test"]).output().unwrap();
    assert_eq!(nothing.status.code(), Some(2), "{}", both(&nothing));
}

/// The repository's own examples carry a test file; CI runs it through this test, on a copy
/// (so no project around the checkout can change what loads).
#[test]
fn the_demo_examples_pass_their_own_test_file_and_a_broken_guard_fails_it() {
    let sandbox = Scratch::new("hooktest-demo");
    let demo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo");
    crate::common::agent::copy_tree(&demo, &sandbox.path("work/demo"));
    let output = sandbox.hookwire("work/demo", &["test", "hooktests"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(stdout(&output).ends_with("5 passed, 0 failed\n"), "{}", both(&output));

    // The same file catches a guard that stopped guarding.
    sandbox.write_script("work/demo/hooks/no-rm-rf/guard.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    let output = sandbox.hookwire("work/demo", &["test", "hooktests"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    let text = stdout(&output);
    assert!(text.contains("FAIL  hooktests/demo.hooktest.yaml: a recursive delete is denied"), "{text}");
    assert!(text.ends_with("4 passed, 1 failed\n"), "{text}");
}

#[test]
fn update_writes_the_answers_into_failing_and_missing_expectations_and_keeps_the_rest() {
    let sandbox = project();
    let file = sandbox.path("work/proj/hooktests/guards.hooktest.yaml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("  # filled in by --update\n  - name: a write with no expectation yet\n    event: PreToolUse\n    input: {tool_name: Write, tool_input: {file_path: /etc/hosts, content: x}}\n");
    std::fs::write(&file, &text).unwrap();
    let output = test_run(&sandbox, &["--update"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(stdout(&output).ends_with("5 passed, 0 failed\n"), "{}", both(&output));
    let updated = std::fs::read_to_string(&file).unwrap();
    // Comments and passing cases stay as written.
    assert!(updated.starts_with("# The project's guards, in Claude Code's terms.\nagent: claude\n"), "{updated}");
    assert!(updated.contains("      reason: {contains: home}\n"), "{updated}");
    assert!(updated.contains("    expect: {decision: deny, reason: {matches: \"under /etc$\"}}\n"), "{updated}");
    assert!(updated.contains("  # filled in by --update\n"), "{updated}");
    // The wrong expectation is rewritten, the missing one filled in.
    assert!(
        updated.contains(
            "    input: {tool_name: Bash, tool_input: {command: \"echo hi\"}}\n    expect:\n      decision: allow\n  #"
        ),
        "{updated}"
    );
    assert!(
        updated.ends_with(
            "content: x}}\n    expect:\n      decision: deny\n      reason: {equals: \"no writes under /etc\"}\n"
        ),
        "{updated}"
    );
    let again = test_run(&sandbox, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", both(&again));
    assert!(stdout(&again).ends_with("5 passed, 0 failed\n"), "{}", both(&again));
}

/// A project whose one hook logs `start` and `end` around a half-second sleep, and a file of
/// six cases: four pass, two fail.
fn slow_project() -> Scratch {
    let sandbox = Scratch::new("hooktest-jobs");
    sandbox.write(
        "work/proj/.hookwire/hooks.yaml",
        r#"pre_tool_execution:
  - name: slow-guard
    command: |
      input=$(cat)
      echo start >> jobs.log
      sleep 0.5
      echo end >> jobs.log
      case "$input" in
        *'rm -rf'*) echo '{"action": "skip", "reason": "no recursive deletes"}' ;;
        *) echo '{}' ;;
      esac
"#,
    );
    let mut cases = String::from("agent: claude\ncases:\n");
    for (n, (command, decision)) in [
        ("ls", "allow"),
        ("rm -rf /", "deny"),
        ("pwd", "deny"),
        ("rm -rf ~", "deny"),
        ("id", "allow"),
        ("rm -rf x", "allow"),
    ]
    .iter()
    .enumerate()
    {
        cases.push_str(&format!(
            "  - name: case {n} {command}\n    event: PreToolUse\n    input: {{tool_name: Bash, tool_input: {{command: \"{command}\"}}}}\n    expect: {{decision: {decision}}}\n"
        ));
    }
    sandbox.write("work/proj/hooktests/slow.hooktest.yaml", &cases);
    sandbox
}

#[test]
fn jobs_run_cases_at_once_and_report_the_same_in_the_same_order() {
    let sandbox = slow_project();
    let log = sandbox.path("work/proj/jobs.log");
    let mut reports = Vec::new();
    for jobs in ["1", "4"] {
        let _ = std::fs::remove_file(&log);
        let output = test_run(&sandbox, &["--jobs", jobs, "--format", "json"]);
        assert_eq!(output.status.code(), Some(1), "--jobs {jobs}: {}", both(&output));
        let mut report = json_stdout(&output);
        for case in report["cases"].as_array_mut().unwrap() {
            // The same hook ran, in another process each time: its trace is the same.
            case.as_object_mut().unwrap().remove("got");
        }
        let names: Vec<&str> =
            report["cases"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["case 0 ls", "case 1 rm -rf /", "case 2 pwd", "case 3 rm -rf ~", "case 4 id", "case 5 rm -rf x"],
            "--jobs {jobs}: {report}"
        );
        let statuses: Vec<&str> =
            report["cases"].as_array().unwrap().iter().map(|c| c["status"].as_str().unwrap()).collect();
        assert_eq!(statuses, ["passed", "passed", "failed", "passed", "passed", "failed"], "--jobs {jobs}");
        let events = std::fs::read_to_string(&log).unwrap();
        let events: Vec<&str> = events.lines().collect();
        assert_eq!(events.len(), 12, "--jobs {jobs}: {events:?}");
        // How many hooks were running at once, at most.
        let (mut now, mut most) = (0, 0);
        for event in &events {
            now += if *event == "start" { 1 } else { -1 };
            most = most.max(now);
        }
        if jobs == "1" {
            assert_eq!(most, 1, "--jobs 1 ran cases at once: {events:?}");
        } else {
            assert!((2..=4).contains(&most), "--jobs 4 ran {most} at once: {events:?}");
        }
        reports.push(report);
    }
    assert_eq!(reports[0], reports[1]);

    // The text report too: the same lines in the same order.
    let one = stdout(&test_run(&sandbox, &["--jobs", "1"]));
    let four = stdout(&test_run(&sandbox, &["--jobs", "4"]));
    assert_eq!(one, four);
    assert!(one.ends_with("4 passed, 2 failed\n"), "{one}");

    let zero = test_run(&sandbox, &["--jobs", "0"]);
    assert_eq!(zero.status.code(), Some(2), "{}", both(&zero));
}

/// A rules file of three rules and the git pack, and cases that reach two of the rules and
/// one rule of the pack.
#[test]
fn coverage_names_each_rule_no_case_reaches() {
    let sandbox = Scratch::new("hooktest-rules");
    sandbox.write(
        "work/proj/.hookwire/hooks.yaml",
        r#"packs: [git]
rules:
  - name: no-curl
    tools: [shell]
    command: [curl]
    reason: "no downloads"
  - name: no-wget
    tools: [shell]
    command: [wget]
    reason: "no downloads"
  - name: no-shutdown
    tools: [shell]
    command: [shutdown]
    reason: "not the machine"
allow:
  - name: curl-localhost
    tools: [shell]
    command: [curl]
    args: ["http://127.0.0.1*"]
"#,
    );
    sandbox.write(
        "work/proj/hooktests/rules.hooktest.yaml",
        r#"agent: claude
cases:
  - name: curl is denied
    event: PreToolUse
    input: {tool_name: Bash, tool_input: {command: "curl https://example.com"}}
    expect: {decision: deny, reason: {contains: "no downloads"}}
  - name: wget is denied
    event: PreToolUse
    input: {tool_name: Bash, tool_input: {command: "wget https://example.com"}}
    expect: {decision: deny}
  - name: a forced push is denied
    event: PreToolUse
    input: {tool_name: Bash, tool_input: {command: "git push --force origin main"}}
    expect: {decision: deny, reason: {contains: "git/push-force"}}
"#,
    );
    let output = test_run(&sandbox, &["--coverage"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    // The git pack's 19 rules but `git/push-force`, and `no-shutdown`.
    let left = 19;
    assert!(text.contains(&format!("coverage: {left} rule(s) no case reached:\n")), "{text}");
    assert!(text.contains("  rule no-shutdown of project:rules:hooks.yaml:pre_tool_execution ("), "{text}");
    assert!(text.contains("  rule git/reset-hard of "), "{text}");
    for reached in ["rule no-curl ", "rule no-wget ", "rule git/push-force ", "curl-localhost"] {
        assert!(!text.contains(reached), "{reached}: {text}");
    }
    assert!(text.ends_with("3 passed, 0 failed\n"), "{text}");

    let json = json_stdout(&test_run(&sandbox, &["--coverage", "--format", "json"]));
    let rules: Vec<&str> =
        json["uncovered"].as_array().unwrap().iter().filter_map(|entry| entry["rule"].as_str()).collect();
    assert_eq!(rules.len(), left, "{json}");
    assert!(rules.contains(&"no-shutdown") && !rules.contains(&"git/push-force"), "{json}");

    // Reaching it covers it; --require-coverage fails while any is left.
    let required = test_run(&sandbox, &["--require-coverage"]);
    assert_eq!(required.status.code(), Some(1), "{}", both(&required));
    let filtered = test_run(&sandbox, &["--coverage", "--filter", "curl"]);
    let text = stdout(&filtered);
    assert!(text.contains("  rule no-wget of ") && !text.contains("  rule no-curl of "), "{text}");
}

/// The project's guards once more, in hookwire's own terms (`agent: hookwire`): canonical event
/// names and aliases, HookContext fields, expectations read from the engine's outcome.
const NATIVE: &str = r#"# The guards in hookwire's own terms.
agent: hookwire
cases:
  - name: home delete is denied
    event: pre_tool_execution
    input: {tool_name: Bash, tool_arguments: {command: "rm -rf ~"}}
    expect:
      decision: deny
      reason: {contains: home}
  - name: ls is allowed
    event: before_tool
    input: {tool_name: Bash, tool_arguments: '{"command": "ls"}'}
    expect: {decision: allow}
  - name: a prompt is wrongly expected to be blocked
    event: pre_send_message
    input: {user_input: hello}
    expect: {decision: block, reason: {contains: nope}}
"#;

#[test]
fn hookwire_dialect_cases_run_through_the_engine_as_fire_does() {
    let sandbox = project();
    sandbox.write("work/proj/hooktests/native.hooktest.yaml", NATIVE);
    let output = test_run(&sandbox, &["hooktests/native.hooktest.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(text.contains("ok    hooktests/native.hooktest.yaml: home delete is denied\n"), "{text}");
    assert!(text.contains("ok    hooktests/native.hooktest.yaml: ls is allowed\n"), "{text}");
    let failure =
        text.split("FAIL  hooktests/native.hooktest.yaml: a prompt is wrongly expected to be blocked\n").nth(1);
    let failure = failure.unwrap_or_else(|| panic!("no failure line: {text}"));
    assert!(failure.contains("decision: expected block, got no decision (the agent goes on)"), "{failure}");
    assert!(failure.contains("expected: decision block, reason contains \"nope\""), "{failure}");
    assert!(failure.contains("got:      decision none"), "{failure}");
    assert!(failure.contains("(no hook is configured on this event)"), "{failure}");
    assert!(text.ends_with("2 passed, 1 failed\n"), "{text}");

    // The deny's trace names the hook that decided, from its file.
    sandbox.write(
        "work/proj/hooktests/native.hooktest.yaml",
        &NATIVE.replace("decision: deny\n      reason: {contains: home}", "decision: ask"),
    );
    let text = stdout(&test_run(&sandbox, &["hooktests/native.hooktest.yaml", "--filter", "home"]));
    assert!(text.contains("decision: expected ask, got deny"), "{text}");
    assert!(text.contains("project:no-home-delete:pre_tool_execution ok ("), "{text}");
    assert!(text.contains("skip: deleting home is not allowed"), "{text}");
}

#[test]
fn hookwire_dialect_counts_in_json_and_junit() {
    let sandbox = project();
    sandbox.write("work/proj/hooktests/native.hooktest.yaml", NATIVE);
    let output = test_run(&sandbox, &["hooktests/native.hooktest.yaml", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    let report = json_stdout(&output);
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64()), (Some(2), Some(1)), "{report}");
    assert_eq!(report["cases"][0]["got"]["decision"], "deny", "{report}");
    assert_eq!(report["cases"][0]["got"]["reason"], "deleting home is not allowed", "{report}");
    assert_eq!(report["cases"][2]["status"], "failed", "{report}");
    assert_eq!(report["cases"][2]["expected"]["decision"], "block", "{report}");

    let output = test_run(&sandbox, &["hooktests/native.hooktest.yaml", "--format", "junit"]);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    let xml = stdout(&output);
    assert!(xml.contains("<testsuites name=\"hookwire test\" tests=\"3\" failures=\"1\">"), "{xml}");
    assert!(xml.contains("<testcase name=\"ls is allowed\""), "{xml}");
    assert!(xml.contains("<testcase name=\"a prompt is wrongly expected to be blocked\""), "{xml}");
}

#[test]
fn hookwire_dialect_unknown_event_is_a_load_error_at_its_line_and_column() {
    let sandbox = project();
    sandbox.write(
        "work/proj/hooktests/bad.hooktest.yaml",
        "agent: hookwire\ncases:\n  - name: x\n    event: pre_tool_exec\n    input: {tool_name: Bash}\n",
    );
    let output = test_run(&sandbox, &["hooktests/bad.hooktest.yaml"]);
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    let err = crate::common::stderr(&output);
    assert!(err.contains("hooktests/bad.hooktest.yaml:4:12: "), "{err}");
    assert!(err.contains("pre_tool_exec"), "{err}");
    // A member that is no context field fails its case, naming it.
    sandbox.write(
        "work/proj/hooktests/bad.hooktest.yaml",
        "agent: hookwire\ncases:\n  - name: x\n    event: pre_tool_execution\n    input: {tool_name: Bash, tool_input: {command: ls}}\n",
    );
    let output = test_run(&sandbox, &["hooktests/bad.hooktest.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(stdout(&output).contains("input: `tool_input` is not a hookwire context field"), "{}", both(&output));
}

#[test]
fn update_writes_hookwire_dialect_expectations() {
    let sandbox = project();
    let file = sandbox.path("work/proj/hooktests/native.hooktest.yaml");
    sandbox.write(
        "work/proj/hooktests/native.hooktest.yaml",
        &format!(
            "{NATIVE}  - name: no expectation yet\n    event: pre_tool_execution\n    input: {{tool_name: Bash, tool_arguments: {{command: \"rm -rf ~\"}}}}\n"
        ),
    );
    let output = test_run(&sandbox, &["hooktests/native.hooktest.yaml", "--update"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let updated = std::fs::read_to_string(&file).unwrap();
    assert!(updated.starts_with("# The guards in hookwire's own terms.\n"), "{updated}");
    assert!(updated.contains("    input: {user_input: hello}\n    expect:\n      decision: continue\n"), "{updated}");
    assert!(
        updated
            .ends_with("    expect:\n      decision: deny\n      reason: {equals: \"deleting home is not allowed\"}\n"),
        "{updated}"
    );
    let again = test_run(&sandbox, &["hooktests/native.hooktest.yaml"]);
    assert_eq!(again.status.code(), Some(0), "{}", both(&again));
    assert!(stdout(&again).ends_with("4 passed, 0 failed\n"), "{}", both(&again));
}

#[test]
fn hookwire_dialect_reads_the_rewritten_arguments_and_the_added_context() {
    let sandbox = project();
    sandbox.write(
        "work/proj/.hookwire/hooks.yaml",
        r#"pre_tool_execution:
  - name: dry-run
    command: |
      cat >/dev/null
      echo '{"tool_arguments": "{\"command\": \"ls --dry-run\"}", "additional_context": "ran dry"}'
"#,
    );
    sandbox.write(
        "work/proj/hooktests/native.hooktest.yaml",
        r#"agent: hookwire
cases:
  - name: the call is made dry
    event: pre_tool_execution
    input: {tool_name: Bash, tool_arguments: {command: ls}}
    expect: {decision: allow, context: {equals: ran dry}, updated_input: {command: ls --dry-run}}
  - name: the wrong rewrite is reported
    event: pre_tool_execution
    input: {tool_name: Bash, tool_arguments: {command: ls}}
    expect: {updated_input: {command: ls}}
"#,
    );
    let output = test_run(&sandbox, &["hooktests/native.hooktest.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(text.contains("ok    hooktests/native.hooktest.yaml: the call is made dry\n"), "{text}");
    assert!(text.contains(r#"updated_input: expected {"command":"ls"}, got {"command":"ls --dry-run"}"#), "{text}");
    assert!(text.ends_with("1 passed, 1 failed\n"), "{text}");
}
