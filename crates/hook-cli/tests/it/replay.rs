//! `hookwire replay`: recorded Claude Code sessions (tests/fixtures/replay/claude, in the shape
//! Claude Code writes them, with a line cut off mid-write) fired through a project's hooks of
//! two dialects without running any tool.

use std::path::PathBuf;

use serde_json::json;

use crate::common::{
    Scratch, both, json_stdout,
    real::{agents_dir, available},
    stderr, stdout,
};

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

// ---------------------------------------------------------------------------------------------
// Records written by the real agents (tests/fixtures/replay/real, README there): one session
// each of Claude Code 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0 and Copilot CLI 1.0.102 with the
// same five tool calls — `ls -la` and a read of `.env` in one model turn, `git push --force origin main`, a
// file write, `rm -rf ~` — after one prompt.

fn real_records() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay/real")
}

/// A trusted project whose hookwire configuration is `packs: [recommended]`, plus `extra`
/// hooks of hookwire's format when given.
fn recommended_project(extra: Option<&str>) -> Scratch {
    let sandbox = Scratch::new("replay-real");
    sandbox.write("work/proj/.hookwire/hooks.yaml", "packs: [recommended]\n");
    if let Some(extra) = extra {
        sandbox.write("work/proj/.jcli/hooks.yaml", extra);
    }
    let trust = sandbox.hookwire("work/proj", &["trust", "--yes"]).output().unwrap();
    assert!(trust.status.success(), "{}", both(&trust));
    sandbox
}

fn replay_json(sandbox: &Scratch, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["replay", "--format", "json"];
    all.extend_from_slice(args);
    let output =
        sandbox.hookwire("work/proj", &all).env_remove("CODEX_HOME").env_remove("COPILOT_HOME").output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    json_stdout(&output)
}

/// `(tool, rule)` of each finding; the rule is also the one its reason names.
fn tools_and_rules(report: &serde_json::Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let rule = f["rule"].as_str().unwrap_or("?");
            let reason = f["reason"].as_str().unwrap_or_default();
            assert!(reason.contains(&format!("(hookwire rule {rule})")), "{f}");
            (f["tool"].as_str().unwrap_or_default().to_owned(), rule.to_owned())
        })
        .collect()
}

#[test]
fn real_records_of_four_agents_replay_through_the_recommended_packs() {
    let sandbox = recommended_project(None);
    // (file, session, (tool, rule) of each denial)
    type Expected<'a> = (&'a str, &'a str, [(&'a str, &'a str); 3]);
    let expected: [Expected<'_>; 4] = [
        (
            "claude-2.1.328.jsonl",
            "a5228c6e-50ea-4f48-b3e8-0a1a4535c267",
            [
                ("Read", "secrets/read-secret-file"),
                ("Bash", "git/push-force"),
                ("Bash", "filesystem/rm-recursive-critical"),
            ],
        ),
        (
            "codex-0.169.0-rollout.jsonl",
            "01a21a1e-ed6e-77e0-a172-5cd0b86af07e",
            [
                ("Bash", "secrets/shell-read-secret-file"),
                ("Bash", "git/push-force"),
                ("Bash", "filesystem/rm-recursive-critical"),
            ],
        ),
        (
            "gemini-0.61.0-session.jsonl",
            "6b0773ef-91be-419b-95b1-d2d30d30e9de",
            [
                ("read_file", "secrets/read-secret-file"),
                ("run_shell_command", "git/push-force"),
                ("run_shell_command", "filesystem/rm-recursive-critical"),
            ],
        ),
        (
            "copilot-1.0.102-events.jsonl",
            "1d9ba071-db24-4aef-822b-3db320f03756",
            [
                ("view", "secrets/read-secret-file"),
                ("bash", "git/push-force"),
                ("bash", "filesystem/rm-recursive-critical"),
            ],
        ),
    ];
    for (file, session, findings) in expected {
        let path = real_records().join(file);
        let report = replay_json(&sandbox, &[path.to_str().unwrap()]);
        let counts = ["tool_calls", "prompts", "sessions", "denied", "asked", "rewritten", "errors"]
            .map(|key| report[key].as_u64().unwrap_or(u64::MAX));
        assert_eq!(counts, [5, 1, 1, 3, 0, 0, 0], "{file}: {report}");
        let want: Vec<(String, String)> = findings.iter().map(|(t, r)| ((*t).to_owned(), (*r).to_owned())).collect();
        assert_eq!(tools_and_rules(&report), want, "{file}: {report}");
        for finding in report["findings"].as_array().unwrap() {
            assert_eq!(finding["session"], session, "{file}: {report}");
            assert_eq!(finding["decision"], "deny", "{file}: {report}");
            assert_eq!(finding["hook"], "project:rules:hooks.yaml:pre_tool_execution", "{file}: {report}");
            // The Copilot session was recorded later than the others.
            let started = if file.starts_with("copilot") { "2026-11-27T00:04:" } else { "2026-11-26T23:09:" };
            assert!(finding["time"].as_str().is_some_and(|t| t.starts_with(started)), "{file}: {report}");
        }
        assert_eq!(report["findings"][2]["input"]["command"], "rm -rf ~", "{file}: {report}");
    }
    // The four together: a directory is searched.
    let report = replay_json(&sandbox, &[real_records().to_str().unwrap()]);
    let counts = ["tool_calls", "prompts", "sessions", "denied", "errors"].map(|key| report[key].as_u64());
    assert_eq!(counts, [Some(20), Some(4), Some(4), Some(12), Some(0)], "{report}");
}

/// A j-cli command hook (a side effect: it runs only with `--run-hooks`) that denies deleting
/// home, beside the recommended packs.
const HOME_GUARD: &str = r#"pre_tool_execution:
  - name: no-home-delete
    command: |
      input=$(cat); echo ran >> guard.log
      case "$input" in
        *'rm -rf ~'*) echo '{"action": "skip", "reason": "deleting home is not allowed"}' ;;
        *) echo '{}' ;;
      esac
"#;

#[test]
fn real_records_replay_through_a_command_hook_only_with_run_hooks() {
    let sandbox = recommended_project(Some(HOME_GUARD));
    let dir = real_records();
    let report = replay_json(&sandbox, &[dir.to_str().unwrap()]);
    assert_eq!((report["tool_calls"].as_u64(), report["denied"].as_u64()), (Some(20), Some(12)), "{report}");
    let skipped = report["skipped_hooks"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{report}");
    assert!(skipped[0].as_str().unwrap().starts_with("project:no-home-delete ("), "{report}");
    assert!(!sandbox.path("work/proj/guard.log").exists(), "the command hook ran without --run-hooks");

    let report = replay_json(&sandbox, &[dir.to_str().unwrap(), "--run-hooks"]);
    assert_eq!((report["tool_calls"].as_u64(), report["denied"].as_u64()), (Some(20), Some(12)), "{report}");
    // The rules file decides first for `rm -rf ~`; the command hook also ran on every call
    // the rules let through (20 calls and 4 prompts, minus the 12 denied).
    let ran = std::fs::read_to_string(sandbox.path("work/proj/guard.log")).unwrap_or_default();
    assert!(ran.lines().count() >= 6, "guard ran {} times\n{report}", ran.lines().count());

    // Without the packs the command hook alone decides: one `rm -rf ~` per agent.
    let only_guard = Scratch::new("replay-real-guard");
    only_guard.write("work/proj/.hookwire/hooks.yaml", HOME_GUARD);
    let trust = only_guard.hookwire("work/proj", &["trust", "--yes"]).output().unwrap();
    assert!(trust.status.success(), "{}", both(&trust));
    let report = replay_json(&only_guard, &[dir.to_str().unwrap(), "--run-hooks"]);
    assert_eq!((report["tool_calls"].as_u64(), report["denied"].as_u64()), (Some(20), Some(4)), "{report}");
    for finding in report["findings"].as_array().unwrap() {
        assert_eq!(finding["input"]["command"], "rm -rf ~", "{report}");
        assert_eq!(finding["hook"], "project:no-home-delete:pre_tool_execution", "{report}");
        assert_eq!(finding["rule"], serde_json::Value::Null, "{report}");
        assert_eq!(finding["reason"], "deleting home is not allowed", "{report}");
    }
}

// ---------------------------------------------------------------------------------------------
// The real agents, when installed (found and skipped by `common::real`): each runs a scripted session in a fresh HOME, then `hookwire replay --agent`
// finds that session's record by itself and replays it.

#[test]
fn a_real_agents_own_record_replays_with_the_right_counts_and_denials() {
    for agent in ["claude", "codex", "gemini", "copilot"] {
        if !available(agent) {
            continue;
        }
        let sandbox = recommended_project(None);
        let project = sandbox.path("work/proj");
        sandbox.write("work/proj/.env", "API_TOKEN=not-a-real-secret\n");
        // Nothing here harms anything when it runs: there is no git repository to push from,
        // and `rmdir` of a home that is not empty fails.
        let read = match agent {
            "claude" => json!({"tool": "Read", "input": {"file_path": project.join(".env")}}),
            "gemini" => json!({"tool": "read_file", "input": {"file_path": project.join(".env")}}),
            "copilot" => json!({"tool": "view", "input": {"path": project.join(".env")}}),
            _ => json!({"tool": "shell", "input": {"command": "cat .env"}}),
        };
        let script = json!([
            {"tools": [{"tool": "shell", "input": {"command": "ls -la"}}, read]},
            {"tool": "shell", "input": {"command": "git push --force origin main"}},
            {"tool": "shell", "input": {"command": "rmdir ~"}},
            {"text": "all done"}
        ]);
        let script_path = sandbox.write("script.json", &script.to_string());
        let output = std::process::Command::new("python3")
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents/run_agent.py"))
            .args(["--agent", agent, "--timeout", "120", "--requests", "none", "--allowed-tools=Bash Read"])
            .arg("--project")
            .arg(&project)
            .arg("--home")
            .arg(sandbox.path("home"))
            .arg("--script")
            .arg(&script_path)
            .arg("--agents-dir")
            .arg(agents_dir())
            .arg("--prompt=tidy up the release")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(output.status.success(), "{agent}: run_agent.py failed\n{}", both(&output));
        let run = json_stdout(&output);
        assert_eq!(run["exit_code"], 0, "{agent}: {run}");

        let report = replay_json(&sandbox, &["--agent", agent]);
        let counts = ["tool_calls", "prompts", "sessions", "denied", "errors"].map(|key| report[key].as_u64());
        assert_eq!(counts, [Some(4), Some(1), Some(1), Some(3), Some(0)], "{agent}: {report}");
        let rules: Vec<String> = tools_and_rules(&report).into_iter().map(|(_, rule)| rule).collect();
        let read_rule = if agent == "codex" { "secrets/shell-read-secret-file" } else { "secrets/read-secret-file" };
        assert_eq!(rules, [read_rule, "git/push-force", "filesystem/rm-recursive-critical"], "{agent}: {report}");
    }
}

/// The real records placed where their agents keep them for the project `work/proj`.
fn place_real_records(sandbox: &Scratch) {
    let project = sandbox.path("work/proj");
    let real = real_records();
    let mangled: String =
        project.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let claude = sandbox.path(&format!("home/.claude/projects/{mangled}"));
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::copy(real.join("claude-2.1.328.jsonl"), claude.join("a5228c6e-50ea-4f48-b3e8-0a1a4535c267.jsonl"))
        .unwrap();
    // Codex finds a rollout by the `cwd` of its first line.
    let rollout = std::fs::read_to_string(real.join("codex-0.169.0-rollout.jsonl")).unwrap();
    sandbox.write(
        "home/.codex/sessions/2026/11/26/rollout-2026-11-26T23-09-24-01a21a1e.jsonl",
        &rollout.replace("/home/dev/shop", &project.display().to_string()),
    );
    // An other project's rollout is not replayed.
    sandbox.write("home/.codex/sessions/2026/11/26/rollout-2026-11-26T23-10-00-other.jsonl", &rollout);
    // Gemini finds a chat directory by its `.project_root`.
    let chat = std::fs::read_to_string(real.join("gemini-0.61.0-session.jsonl")).unwrap();
    sandbox.write("home/.gemini/tmp/proj/.project_root", &project.display().to_string());
    sandbox.write("home/.gemini/tmp/proj/chats/session-2026-11-26T23-09-6b0773ef.jsonl", &chat);
    sandbox.write("home/.gemini/tmp/other/.project_root", "/home/dev/shop");
    sandbox.write("home/.gemini/tmp/other/chats/session-2026-11-26T23-10-aaaa.jsonl", &chat);
    // Copilot keeps a session's events in `session-state/<id>/events.jsonl`; the first event
    // names the directory it ran in.
    let events = std::fs::read_to_string(real.join("copilot-1.0.102-events.jsonl")).unwrap();
    sandbox.write(
        "home/.copilot/session-state/1d9ba071-db24-4aef-822b-3db320f03756/events.jsonl",
        &events.replace("/home/dev/shop", &project.display().to_string()),
    );
    sandbox.write("home/.copilot/session-state/2aaaaaaa-other/events.jsonl", &events);
}

#[test]
fn agent_finds_each_agents_records_of_the_current_project() {
    let sandbox = recommended_project(None);
    place_real_records(&sandbox);
    for agent in ["claude", "codex", "gemini", "copilot"] {
        let report = replay_json(&sandbox, &["--agent", agent]);
        let counts = ["tool_calls", "prompts", "sessions", "denied", "errors"].map(|key| report[key].as_u64());
        assert_eq!(counts, [Some(5), Some(1), Some(1), Some(3), Some(0)], "{agent}: {report}");
    }
    // No records of this agent for the project: a clear error, exit 2.
    let empty = recommended_project(None);
    let output = empty.hookwire("work/proj", &["replay", "--agent", "gemini"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    assert!(stderr(&output).contains("no gemini session records of "), "{}", both(&output));
}

#[test]
fn since_keeps_the_records_from_then_on_and_refuses_what_is_not_a_time() {
    let sandbox = recommended_project(None);
    let dir = real_records();
    let dir = dir.to_str().unwrap();
    // The Claude session ran 23:09:21–23:09:23, Codex 23:09:24, Gemini 23:09:28–29, Copilot the
    // next day at 00:04:34.
    let report = replay_json(&sandbox, &[dir, "--since", "2026-11-26T23:09:24Z"]);
    let counts = ["tool_calls", "prompts", "sessions", "denied"].map(|key| report[key].as_u64());
    assert_eq!(counts, [Some(15), Some(3), Some(3), Some(9)], "{report}");
    let report = replay_json(&sandbox, &[dir, "--since", "2026-11-27"]);
    assert_eq!((report["tool_calls"].as_u64(), report["sessions"].as_u64()), (Some(5), Some(1)), "{report}");
    let report = replay_json(&sandbox, &[dir, "--since", "2026-11-27T00:05:00Z"]);
    assert_eq!((report["tool_calls"].as_u64(), report["sessions"].as_u64()), (Some(0), Some(0)), "{report}");
    // Same instant, another offset.
    let report = replay_json(&sandbox, &[dir, "--since", "2026-11-27T01:09:28+02:00"]);
    assert_eq!(report["tool_calls"].as_u64(), Some(10), "{report}");
    // The records are older than a few weeks from the clock of any machine running this.
    let report = replay_json(&sandbox, &[dir, "--since", "30m"]);
    assert!(report["tool_calls"].as_u64().is_some(), "{report}");
    for bad in ["7", "7 days", "last week", "2026-11-26T23:09", "3y"] {
        let output = sandbox.hookwire("work/proj", &["replay", dir, "--since", bad]).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{bad}: {}", both(&output));
        let error = stderr(&output);
        assert!(error.contains(&format!("--since {bad:?}")) && error.contains("7d"), "{bad}: {error}");
    }
}
