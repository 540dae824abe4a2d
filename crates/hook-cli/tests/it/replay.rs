//! `hookwire replay`: recorded Claude Code sessions (tests/fixtures/replay/claude, in the shape
//! Claude Code writes them, with a line cut off mid-write) fired through a project's hooks of
//! two dialects without running any tool.

use std::path::PathBuf;

use crate::common::{Scratch, both, json_stdout, stdout};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay/claude")
}

/// A trusted project: a j-cli guard that denies `rm -rf ~` and a Claude Code hook that blocks
/// every `Write`; each leaves a mark in `ran.log` when it runs.
fn project() -> Scratch {
    let sandbox = Scratch::new("replay");
    sandbox.write(
        "work/proj/.hookwire/hooks.yaml",
        r#"pre_tool_execution:
  - name: no-home-delete
    command: |
      input=$(cat); echo jcli >> "$JCLI_PROJECT_DIR/ran.log" 2>/dev/null || echo jcli >> ran.log
      case "$input" in
        *'rm -rf ~'*) echo '{"action": "skip", "reason": "deleting home is not allowed"}' ;;
        *) echo '{}' ;;
      esac
    filter:
      tool_name: Bash
"#,
    );
    sandbox.write(
        "work/proj/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "cat >/dev/null; echo claude >> \"$CLAUDE_PROJECT_DIR/ran.log\"; echo 'no writes under /etc' >&2; exit 2"}]}]}}"#,
    );
    let trust = sandbox.hookwire("work/proj", &["trust", "--yes"]).output().unwrap();
    assert!(trust.status.success(), "{}", both(&trust));
    sandbox
}

#[test]
fn run_hooks_reports_the_would_be_denials_with_session_time_and_hook() {
    let sandbox = project();
    let dir = fixtures();
    let output = sandbox
        .hookwire("work/proj", &["replay", dir.to_str().unwrap(), "--run-hooks", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let report = json_stdout(&output);
    assert_eq!(report["tool_calls"], 6, "{report}");
    assert_eq!(report["prompts"], 2, "{report}");
    assert_eq!(report["sessions"], 2, "{report}");
    assert_eq!(report["denied"], 2, "{report}");
    assert_eq!((report["asked"].as_u64(), report["rewritten"].as_u64()), (Some(0), Some(0)), "{report}");
    // The line cut off mid-write is counted and named.
    assert_eq!(report["errors"], 1, "{report}");
    assert!(
        report["unparsed"][0].as_str().unwrap().contains("5b8e2c1a-7f3d-4c2e-9a1b-3d4e5f6a7b8c.jsonl:11:"),
        "{report}"
    );
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "{report}");
    assert_eq!(findings[0]["session"], "5b8e2c1a-7f3d-4c2e-9a1b-3d4e5f6a7b8c");
    assert_eq!(findings[0]["time"], "2026-11-19T09:12:09.771Z");
    assert_eq!(findings[0]["tool"], "Bash");
    assert_eq!(findings[0]["input"]["command"], "rm -rf ~/build-cache && rm -rf ~");
    assert_eq!(findings[0]["decision"], "deny");
    assert_eq!(findings[0]["hook"], "project:no-home-delete:pre_tool_execution");
    assert_eq!(findings[0]["reason"], "deleting home is not allowed");
    assert_eq!(findings[1]["tool"], "Write");
    assert_eq!(findings[1]["hook"], "project:claude-PreToolUse-0-0:pre_tool_execution");
    assert_eq!(findings[1]["reason"], "no writes under /etc");
    assert_eq!(report["skipped_hooks"], serde_json::json!([]));

    let text = sandbox.hookwire("work/proj", &["replay", dir.to_str().unwrap(), "--run-hooks"]).output().unwrap();
    let text = stdout(&text);
    assert!(
        text.ends_with(
            "6 tool calls and 2 prompts in 2 sessions; 2 would have been denied, 0 asked, 0 rewritten by 2 hooks; 1 errors\n"
        ),
        "{text}"
    );
}

#[test]
fn by_default_hooks_with_side_effects_are_skipped_and_named() {
    let sandbox = project();
    let dir = fixtures();
    let output =
        sandbox.hookwire("work/proj", &["replay", dir.to_str().unwrap(), "--format", "json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let report = json_stdout(&output);
    assert_eq!(report["tool_calls"], 6, "{report}");
    assert_eq!(report["denied"], 0, "{report}");
    let skipped: Vec<&str> = report["skipped_hooks"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert_eq!(skipped.len(), 2, "{report}");
    assert!(skipped.iter().any(|s| s.starts_with("project:no-home-delete (")), "{report}");
    assert!(skipped.iter().any(|s| s.starts_with("project:claude-PreToolUse-0-0 (")), "{report}");
    // Neither hook ran.
    assert!(!sandbox.path("work/proj/ran.log").exists());
}

#[test]
fn agent_claude_finds_the_projects_own_transcripts() {
    let sandbox = project();
    let project = sandbox.path("work/proj");
    let mangled: String =
        project.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let records = sandbox.path(&format!("home/.claude/projects/{mangled}"));
    std::fs::create_dir_all(&records).unwrap();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), records.join(entry.file_name())).unwrap();
    }
    let output = sandbox
        .hookwire("work/proj", &["replay", "--agent", "claude", "--run-hooks", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let report = json_stdout(&output);
    assert_eq!((report["tool_calls"].as_u64(), report["denied"].as_u64()), (Some(6), Some(2)), "{report}");
}

#[test]
fn codex_rollouts_replay_shell_calls_as_bash() {
    let sandbox = project();
    let rollout = [
        r#"{"timestamp":"2026-11-20T08:00:00.000Z","type":"session_meta","payload":{"id":"0199-codex-session","cwd":"/home/dev/shop","originator":"codex_cli_rs","cli_version":"0.46.0"}}"#,
        r#"{"timestamp":"2026-11-20T08:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"tidy up","kind":"plain"}}"#,
        r#"{"timestamp":"2026-11-20T08:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAA"}}"#,
        r#"{"timestamp":"2026-11-20T08:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rm -rf ~\"],\"workdir\":\"/home/dev/shop\"}","call_id":"call_1"}}"#,
        r#"{"timestamp":"2026-11-20T08:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":0}}"}}"#,
        r#"{"timestamp":"2026-11-20T08:00:05.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"}}"#,
        "not json at all",
    ]
    .join("\n");
    let file = sandbox.write("work/rollout-2026-11-20T08-00-00-0199.jsonl", &rollout);
    let output = sandbox
        .hookwire("work/proj", &["replay", file.to_str().unwrap(), "--run-hooks", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let report = json_stdout(&output);
    assert_eq!((report["tool_calls"].as_u64(), report["prompts"].as_u64()), (Some(2), Some(1)), "{report}");
    assert_eq!((report["denied"].as_u64(), report["errors"].as_u64()), (Some(1), Some(1)), "{report}");
    assert_eq!(report["findings"][0]["session"], "0199-codex-session", "{report}");
    assert_eq!(report["findings"][0]["input"]["command"], "rm -rf ~", "{report}");
}

#[test]
fn no_records_is_an_error() {
    let sandbox = project();
    let output = sandbox.hookwire("work/proj", &["replay"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
}
