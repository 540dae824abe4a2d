//! `hookwire hook copilot`, `install copilot`, `check` and `fire` with Copilot CLI's hook files:
//! the real binary, real `bash`, `sh` and Python hooks, the real daemon.

use std::{
    fs,
    io::{Read, Write},
    path::Path,
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::common::{Scratch, both, python, stderr, stdout};

/// How long any wait of these tests may last before it fails (generous: never a speed test).
const PATIENCE: Duration = Duration::from_secs(20);

/// A Copilot guard in Python: reads the camelCase input (no event name in it) and denies a
/// shell command that touches `pwned`, saying what it read.
const PY_GUARD: &str = r#"import json, sys
data = json.load(sys.stdin)
assert "hook_event_name" not in data, "Copilot's camelCase input names no event"
args = data["toolArgs"]
if data["toolName"] == "bash" and "pwned" in args.get("command", ""):
    print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "py: no pwned (session %s)" % data["sessionId"]}))
"#;

/// A project with a `.hookwire/` marker, `HOME` and the XDG directories in the scratch.
fn scratch() -> Scratch {
    let scratch = Scratch::new("copilot");
    fs::create_dir_all(scratch.path("work/.hookwire")).unwrap();
    scratch
}

/// `hookwire ARGS` in `work/` without the daemon.
fn hookwire(scratch: &Scratch, args: &[&str]) -> Command {
    let mut command = scratch.hookwire("work", args);
    command.env("HOOKWIRE_NO_DAEMON", "1").env_remove("COPILOT_HOME").env_remove("CLAUDE_PROJECT_DIR");
    command
}

/// Runs `command` with `stdin`; (exit code, stdout, stderr).
fn run(mut command: Command, stdin: &str) -> (i32, String, String) {
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    (output.status.code().unwrap_or(-1), stdout(&output), stderr(&output))
}

/// `hookwire hook copilot` over `configs` (and nothing else), with `extra` arguments.
fn bridge(scratch: &Scratch, configs: &[&Path], extra: &[&str], input: &Value) -> (i32, String, String) {
    let mut args = vec!["hook", "copilot", "--no-default-config"];
    for config in configs {
        args.extend(["--config", config.to_str().unwrap()]);
    }
    args.extend(extra);
    run(hookwire(scratch, &args), &input.to_string())
}

fn pre_tool_use(command: &str) -> Value {
    json!({"sessionId": "s-1", "timestamp": 1_760_000_000_000_u64, "cwd": "/tmp",
           "toolName": "bash", "toolArgs": {"command": command, "description": "x"}})
}

fn answer(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout:?}"))
}

/// A Copilot hook file with `entries` on `event`.
fn copilot_file(event: &str, entries: Value) -> String {
    json!({"version": 1, "hooks": {event: entries}}).to_string()
}

#[test]
fn the_bridge_denies_and_allows_with_hooks_of_every_dialect() {
    let scratch = scratch();
    let guard = scratch.write("conf/guard.py", PY_GUARD);
    let copilot = scratch.write(
        "conf/copilot/.github/hooks/guard.json",
        &copilot_file("preToolUse", json!([{"type": "command", "bash": format!("{} {}", python(), guard.display())}])),
    );
    // A j-cli bash hook reading hookwire's own context: the same tool vocabulary.
    let jcli = scratch.write(
        "conf/hooks.yaml",
        "pre_tool_execution:\n  - name: no-rm\n    command: |\n      grep -q 'rm -rf' && echo '{\"action\":\"skip\",\"reason\":\"jcli: no rm -rf\"}' || true\n",
    );
    // A Claude Code command hook in sh: exit 2 blocks `curl`.
    let claude = scratch.write(
        "conf/claude.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command",
            "command": "grep -q curl && { echo 'claude: no curl' >&2; exit 2; } || exit 0"}]}]}})
        .to_string(),
    );
    // The Claude Code file comes in by `--config` (its content says whose it is); `--settings`
    // of `hook copilot` is a Copilot hook file.
    let configs = [copilot.as_path(), jcli.as_path(), claude.as_path()];
    let claude_args = ["--event", "preToolUse"];

    let (code, out, err) = bridge(&scratch, &configs, &claude_args, &pre_tool_use("touch pwned"));
    assert_eq!(code, 0, "{out}{err}");
    let denied = answer(&out);
    assert_eq!(denied["permissionDecision"], "deny", "{out}{err}");
    assert_eq!(denied["permissionDecisionReason"], "py: no pwned (session s-1)");
    assert!(denied.get("hookSpecificOutput").is_none(), "top-level camelCase only: {out}");

    let (_, out, err) = bridge(&scratch, &configs, &claude_args, &pre_tool_use("rm -rf /"));
    assert_eq!(answer(&out)["permissionDecisionReason"], "jcli: no rm -rf", "{out}{err}");
    let (_, out, err) = bridge(&scratch, &configs, &claude_args, &pre_tool_use("curl x.io"));
    assert_eq!(answer(&out)["permissionDecisionReason"], "claude: no curl", "{out}{err}");

    // Allowed: no decision, still a JSON object Copilot reads as nothing.
    let (code, out, err) = bridge(&scratch, &configs, &claude_args, &pre_tool_use("ls"));
    assert_eq!((code, answer(&out)), (0, json!({})), "{err}");

    // `toolArgs` as a JSON text, and no `--event`: inferred from toolName + toolArgs.
    let mut input = pre_tool_use("");
    input["toolArgs"] = json!("{\"command\": \"touch pwned\"}");
    let (_, out, err) = bridge(&scratch, &configs[..2], &[], &input);
    assert_eq!(answer(&out)["permissionDecision"], "deny", "{out}{err}");

    // The PascalCase (Claude-like) payload names its event and the shell `Bash`.
    let pascal = json!({"hook_event_name": "PreToolUse", "session_id": "s-2", "cwd": "/tmp",
                        "tool_name": "Bash", "tool_input": {"command": "touch pwned"}});
    let (_, out, err) = bridge(&scratch, &configs[..2], &[], &pascal);
    assert_eq!(answer(&out)["permissionDecisionReason"], "py: no pwned (session s-2)", "{out}{err}");
}

#[test]
fn a_pascal_case_entry_reads_the_claude_like_payload() {
    let scratch = scratch();
    let hook = scratch.write(
        "conf/pascal.py",
        r#"import json, sys
data = json.load(sys.stdin)
if data.get("hook_event_name") == "PreToolUse" and data.get("tool_name") == "Bash" and "pwned" in data["tool_input"]["command"]:
    print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "pascal saw " + data["tool_name"]}))
"#,
    );
    let file = scratch.write(
        "conf/p/.github/hooks/p.json",
        &copilot_file("PreToolUse", json!([{"type": "command", "bash": format!("{} {}", python(), hook.display())}])),
    );
    let (_, out, err) = bridge(&scratch, &[&file], &["--event", "preToolUse"], &pre_tool_use("touch pwned"));
    assert_eq!(answer(&out)["permissionDecisionReason"], "pascal saw Bash", "{out}{err}");
}

#[test]
fn exit_codes_are_read_as_copilot_reads_them() {
    let scratch = scratch();
    let marker = scratch.path("ran");
    let file = scratch.write(
        "conf/x/.github/hooks/codes.json",
        &json!({"version": 1, "hooks": {
            "preToolUse": [{"type": "command", "bash": "cmd=$(cat); case \"$cmd\" in *two*) echo 'two says no' >&2; exit 2;; *one*) exit 1;; esac"}],
            "sessionStart": [{"type": "command", "bash": format!("touch {}; exit 1", marker.display())}],
        }})
        .to_string(),
    );
    let (code, out, err) = bridge(&scratch, &[&file], &["--event", "preToolUse"], &pre_tool_use("two"));
    assert_eq!((code, answer(&out)["permissionDecisionReason"].clone()), (0, json!("two says no")), "{err}");
    let (_, out, err) = bridge(&scratch, &[&file], &["--event", "preToolUse"], &pre_tool_use("one"));
    let one = answer(&out);
    assert_eq!(one["permissionDecision"], "deny", "any non-zero exit denies a tool call: {out}{err}");
    assert!(one["permissionDecisionReason"].as_str().unwrap().contains("hook errored"), "{one}");
    // On sessionStart a failing hook is a warning: nothing decided, exit 0.
    let start = json!({"sessionId": "s", "timestamp": 1, "cwd": "/tmp", "source": "new", "initialPrompt": "hi"});
    let (code, out, err) = bridge(&scratch, &[&file], &[], &start);
    assert!(marker.exists(), "the sessionStart hook ran: {err}");
    assert_eq!((code, answer(&out)), (0, json!({})), "{err}");
    assert!(err.contains("exit code 1"), "{err}");
}

#[test]
fn a_config_that_does_not_load_fails_closed_on_pre_tool_use_only() {
    let scratch = scratch();
    let bad = scratch.write("conf/b/.github/hooks/bad.json", r#"{"version": 2, "hooks": {"preToolUse": []}}"#);
    let (code, out, err) = bridge(&scratch, &[&bad], &["--event", "preToolUse"], &pre_tool_use("ls"));
    let denied = answer(&out);
    assert_eq!((code, denied["permissionDecision"].clone()), (0, json!("deny")), "{err}");
    let reason = denied["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("bad.json:1:2") && reason.contains("\"version\": 1"), "{reason}");
    let start = json!({"sessionId": "s", "timestamp": 1, "cwd": "/tmp", "source": "new"});
    let (code, out, err) = bridge(&scratch, &[&bad], &["--event", "sessionStart"], &start);
    assert_eq!((code, answer(&out)), (0, json!({})), "not a block on sessionStart: {err}");
    assert!(err.contains("bad.json"), "{err}");
}

#[test]
fn hookwires_own_failures_do_not_deny() {
    let scratch = scratch();
    let (code, out, err) = run(hookwire(&scratch, &["hook", "copilot", "--no-default-config"]), "not json");
    assert_eq!((code, out.trim()), (0, "{}"), "{err}");
    assert!(err.contains("not JSON"), "{err}");
    let (code, out, err) =
        run(hookwire(&scratch, &["hook", "copilot", "--no-default-config"]), r#"{"sessionId": "s"}"#);
    assert_eq!((code, out.trim()), (0, "{}"), "{err}");
    assert!(err.contains("--event"), "an event that cannot be told is named as such: {err}");
    let (code, out, err) =
        run(hookwire(&scratch, &["hook", "copilot", "--no-default-config", "--event", "beforeTool"]), "{}");
    assert_eq!((code, out.trim()), (0, "{}"), "{err}");
    assert!(err.contains("not a Copilot CLI hook event"), "{err}");
}

#[test]
fn held_back_project_hooks_deny_a_tool_call_with_the_trust_command() {
    let scratch = scratch();
    scratch.write("work/.hookwire/hooks.yaml", "pre_tool_execution:\n  - name: g\n    command: 'true'\n");
    let mut command = hookwire(&scratch, &["hook", "copilot", "--event", "preToolUse"]);
    command.env("COPILOT_PROJECT_DIR", scratch.path("work"));
    let (code, out, err) = run(command, &pre_tool_use("ls").to_string());
    let denied = answer(&out);
    assert_eq!((code, denied["permissionDecision"].clone()), (0, json!("deny")), "{out}{err}");
    assert!(denied["permissionDecisionReason"].as_str().unwrap().contains("hookwire trust"), "{denied}");
}

#[test]
fn check_lists_copilot_files_and_reports_a_powershell_only_entry() {
    let scratch = scratch();
    scratch.write(
        "work/.github/hooks/mixed.json",
        r#"{
  "version": 1,
  "hooks": {
    "preToolUse": [
      {"type": "command", "bash": "./guard.sh", "powershell": "./guard.ps1"},
      {"type": "command", "powershell": "./only.ps1"}
    ],
    "agentStop": [{"type": "command", "bash": "./stop.sh", "timeoutSec": 5}]
  }
}
"#,
    );
    let output =
        hookwire(&scratch, &["check", "--no-default-config", "--config", ".github/hooks/mixed.json"]).output().unwrap();
    let text = both(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("copilot-preToolUse-0") && text.contains("copilot-agentStop-0"), "{text}");
    assert!(text.contains("copilot-preToolUse-1") && text.contains("only a `powershell` command"), "{text}");
    assert!(text.contains("mixed.json:6:7"), "the warning names file:line:col: {text}");
    assert!(text.contains("mixed.json:5:7") && text.contains("mixed.json:8:19"), "specs name their place: {text}");

    let typo = scratch
        .write("work/typo.json", r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bsh": "x"}]}}"#);
    let _ = typo;
    let output = hookwire(&scratch, &["check", "--no-default-config", "--config", "typo.json"]).output().unwrap();
    assert!(!output.status.success(), "{}", both(&output));
}

#[test]
fn an_unknown_member_of_a_copilot_file_is_an_error_at_its_place() {
    let scratch = scratch();
    scratch.write(
        "work/.github/hooks/typo.json",
        "{\n  \"version\": 1,\n  \"hooks\": {\n    \"preToolUse\": [\n      {\"type\": \"command\", \"bash\": \"x\", \"timeout\": 5}\n    ]\n  }\n}\n",
    );
    let output =
        hookwire(&scratch, &["check", "--no-default-config", "--config", ".github/hooks/typo.json"]).output().unwrap();
    let text = both(&output);
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("typo.json:5:7") && text.contains("unknown member `timeout`"), "{text}");
}

#[test]
fn install_and_uninstall_round_trip() {
    let scratch = scratch();
    let file = scratch.path("work/.github/hooks/hookwire.json");
    let output = hookwire(&scratch, &["install", "copilot", "--project"]).output().unwrap();
    assert!(output.status.success(), "{}", both(&output));
    let written: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["version"], 1);
    let bash = written["hooks"]["preToolUse"][0]["bash"].as_str().unwrap();
    assert!(bash.ends_with(" hook copilot --event preToolUse"), "{bash}");
    assert_eq!(written["hooks"]["agentStop"][0]["bash"].as_str().unwrap().rsplit(' ').next(), Some("agentStop"));
    // Again: nothing to change.
    let output = hookwire(&scratch, &["install", "copilot"]).output().unwrap();
    assert!(stdout(&output).contains("nothing to change"), "{}", both(&output));
    // The file is the bridge's own: `check` and the bridge leave its entries out.
    let output = hookwire(&scratch, &["check"]).output().unwrap();
    assert!(!stdout(&output).contains("copilot-preToolUse"), "{}", both(&output));
    let output = hookwire(&scratch, &["install", "copilot", "--uninstall"]).output().unwrap();
    assert!(output.status.success(), "{}", both(&output));
    assert!(!file.exists() && !scratch.path("work/.github").exists(), "install created them; uninstall removes them");
    // A file of that name with someone else's entry is never overwritten.
    scratch.write(
        "work/.github/hooks/hookwire.json",
        &copilot_file("preToolUse", json!([{"type": "command", "bash": "./mine.sh"}])),
    );
    let output = hookwire(&scratch, &["install", "copilot"]).output().unwrap();
    assert!(!output.status.success() && stderr(&output).contains("./mine.sh"), "{}", both(&output));
}

#[test]
fn fire_and_test_run_copilot_hooks() {
    let scratch = scratch();
    let file = scratch.write(
        "conf/f/.github/hooks/f.json",
        &copilot_file("preToolUse", json!([{"type": "command",
            "bash": "grep -q pwned && echo '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"fired\"}' || true"}])),
    );
    let output = hookwire(
        &scratch,
        &["fire", "--agent", "copilot", "--context", "-", "--no-default-config", "--config", file.to_str().unwrap()],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .and_then(|mut child| {
        let mut input = pre_tool_use("touch pwned");
        input["hook_event_name"] = json!("preToolUse");
        child.stdin.take().unwrap().write_all(input.to_string().as_bytes())?;
        child.wait_with_output()
    })
    .unwrap();
    assert!(stdout(&output).contains("fired"), "{}", both(&output));
}

/// A process hook (the daemon keeps it alive) answering Copilot calls: the same PID twice, and a
/// bridge call that started the daemon returns with its pipes closed.
#[test]
fn the_daemon_keeps_a_process_hook_alive_across_copilot_calls() {
    let scratch = scratch();
    fs::create_dir_all(scratch.path("run")).unwrap();
    fs::set_permissions(scratch.path("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let counter = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/daemon/counter.py");
    let pids = scratch.path("pids");
    let config = scratch.write(
        "conf/picoclaw.json",
        &json!({"hooks": {"processes": {"counter": {
            "enabled": true,
            "command": [python(), counter, pids, scratch.path("calls")],
            "intercept": ["before_tool"],
        }}}})
        .to_string(),
    );
    let command = || {
        let mut command = scratch.hookwire(
            "work",
            &["hook", "copilot", "--event", "preToolUse", "--no-default-config", "--config", config.to_str().unwrap()],
        );
        command
            .env("XDG_RUNTIME_DIR", scratch.path("run"))
            .env("HOOKWIRE_IDLE_TIMEOUT", "60")
            .env_remove("HOOKWIRE_NO_DAEMON");
        command
    };
    let mut count = pre_tool_use("");
    count["toolName"] = json!("Count");
    // The first call starts the daemon: its stdout and stderr must close when it answers, or
    // Copilot (which waits for both to close) would stall.
    let started = Instant::now();
    let mut child = command().stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(count.to_string().as_bytes()).unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let mut first = String::new();
    out.read_to_string(&mut first).unwrap();
    let first_err = reader.join().unwrap();
    assert!(started.elapsed() < PATIENCE, "stdout and stderr closed only after {:?}", started.elapsed());
    child.wait().unwrap();
    let (_, second, second_err) = run(command(), &count.to_string());
    let pids_seen: Vec<String> = fs::read_to_string(&pids).unwrap_or_default().lines().map(str::to_owned).collect();
    let daemon = scratch.path("run/hookwire");
    let stop = || {
        // Stop the daemon this test started, by its pid file.
        for entry in fs::read_dir(&daemon).into_iter().flatten().flatten() {
            if entry.path().extension().is_some_and(|e| e == "pid")
                && let Ok(pid) = fs::read_to_string(entry.path()).unwrap_or_default().trim().parse::<i32>()
            {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
            }
        }
    };
    stop();
    let reasons =
        [answer(&first)["permissionDecisionReason"].clone(), answer(&second)["permissionDecisionReason"].clone()];
    let context = format!("{first}{first_err}{second}{second_err}");
    // One process answered both: its count went on.
    assert_eq!(reasons, [json!("call 1"), json!("call 2")], "{context}");
    assert_eq!(pids_seen.len(), 1, "one process hook, alive across the calls: {pids_seen:?} {context}");
}

#[test]
fn hooktest_cases_in_copilot_terms() {
    let scratch = scratch();
    scratch.write(
        "work/.github/hooks/guard.json",
        &copilot_file("preToolUse", json!([{"type": "command",
            "bash": "grep -q pwned && echo '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no pwned here\"}' || true"}])),
    );
    scratch.write(
        "work/hooktests/copilot.hooktest.yaml",
        r#"agent: copilot
config: [.github/hooks/guard.json]
cases:
  - name: pwned is denied
    event: preToolUse
    input: {toolName: bash, toolArgs: {command: "touch pwned"}}
    expect: {decision: deny, reason: {contains: no pwned}}
  - name: ls is allowed
    event: preToolUse
    input: {toolName: bash, toolArgs: {command: ls}}
    expect: {decision: allow}
"#,
    );
    let output = hookwire(&scratch, &["test", "hooktests/copilot.hooktest.yaml"]).output().unwrap();
    let text = both(&output);
    assert!(output.status.success(), "{text}");
    assert!(stdout(&output).contains("2 passed, 0 failed"), "{text}");
}

#[test]
fn a_hook_that_overruns_denies_a_tool_call() {
    let scratch = scratch();
    let file = scratch.write(
        "conf/s/.github/hooks/slow.json",
        &copilot_file("preToolUse", json!([{"type": "command", "bash": "cat >/dev/null; sleep 5", "timeoutSec": 1}])),
    );
    let started = Instant::now();
    let (code, out, err) = bridge(&scratch, &[&file], &["--event", "preToolUse"], &pre_tool_use("ls"));
    assert!(started.elapsed() < PATIENCE);
    let denied = answer(&out);
    assert_eq!((code, denied["permissionDecision"].clone()), (0, json!("deny")), "{out}{err}");
    assert!(denied["permissionDecisionReason"].as_str().unwrap().contains("deadline"), "{denied}");
}

#[test]
fn check_agent_copilot_leaves_copilots_own_files_to_copilot() {
    let scratch = scratch();
    let own = scratch.write(
        "work/.github/hooks/guard.json",
        &copilot_file("preToolUse", json!([{"type": "command", "bash": "./guard.sh"}])),
    );
    let searched = |args: &[&str]| -> Vec<Value> {
        let output = hookwire(&scratch, args).output().unwrap();
        let value: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", both(&output)));
        value["searched"].as_array().cloned().unwrap_or_default()
    };
    let own = own.display().to_string();
    let all = searched(&["check", "--format", "json"]);
    let listed = all.iter().find(|place| place["path"] == own.as_str());
    assert_eq!(listed.map(|p| p["level"].clone()), Some(json!("project")), "{all:#?}");
    let for_copilot = searched(&["check", "--agent", "copilot", "--format", "json"]);
    assert!(!for_copilot.iter().any(|place| place["path"] == own.as_str()), "{for_copilot:#?}");
    let home_hooks = scratch.path("home/.copilot/hooks").display().to_string();
    assert!(all.iter().any(|place| place["path"] == home_hooks.as_str()), "the user's place is listed: {all:#?}");
}

/// Every file whose hooks the real Copilot CLI runs itself (its hook files, its settings files,
/// and a project's `.claude/settings*.json`, which Copilot reads as repository configuration):
/// `hookwire hook copilot` leaves them to Copilot (running them too would run them twice), while
/// `fire --agent copilot` and `check` see them. The user's `~/.claude/settings.json`, which
/// Copilot does not read, still runs through the bridge.
#[test]
fn the_bridge_leaves_every_file_copilot_runs_itself_to_copilot() {
    let scratch = scratch();
    let log = scratch.path("log");
    let tag = |tag: &str| format!("cat >/dev/null; echo {tag} >> {}", log.display());
    let copilot_entries = |t: &str| json!({"preToolUse": [{"type": "command", "bash": tag(t)}]});
    let claude_entries = |t: &str| json!({"PreToolUse": [{"hooks": [{"type": "command", "command": tag(t)}]}]});
    let files = [
        ("home/.copilot/settings.json", json!({"model": "x", "hooks": copilot_entries("user-settings")})),
        ("home/.copilot/hooks/u.json", json!({"version": 1, "hooks": copilot_entries("user-hooks")})),
        ("work/.github/hooks/p.json", json!({"version": 1, "hooks": copilot_entries("repo-hooks")})),
        ("work/.github/copilot/settings.json", json!({"hooks": copilot_entries("repo-settings")})),
        ("work/.github/copilot/settings.local.json", json!({"hooks": copilot_entries("repo-local")})),
        ("work/.claude/settings.json", json!({"hooks": claude_entries("claude-project")})),
        ("work/.claude/settings.local.json", json!({"hooks": claude_entries("claude-local")})),
        ("home/.claude/settings.json", json!({"hooks": claude_entries("claude-user")})),
    ];
    for (path, value) in &files {
        scratch.write(path, &value.to_string());
    }
    let trusted = hookwire(&scratch, &["trust", "--yes"]).output().unwrap();
    assert!(trusted.status.success(), "{}", both(&trusted));
    let lines = || {
        let mut lines: Vec<String> = fs::read_to_string(&log).unwrap_or_default().lines().map(str::to_owned).collect();
        lines.sort();
        let _ = fs::remove_file(&log);
        lines
    };

    let mut command = hookwire(&scratch, &["hook", "copilot", "--event", "preToolUse"]);
    command.env("COPILOT_PROJECT_DIR", scratch.path("work"));
    let (code, out, err) = run(command, &pre_tool_use("ls").to_string());
    assert_eq!((code, answer(&out)), (0, json!({})), "{err}");
    assert_eq!(lines(), ["claude-user"], "the bridge runs only what Copilot does not run itself: {err}");

    let mut command = hookwire(&scratch, &["fire", "--agent", "copilot", "--context", "-"]);
    let mut input = pre_tool_use("ls");
    input["hook_event_name"] = json!("preToolUse");
    input["cwd"] = json!(scratch.path("work"));
    command.env("COPILOT_PROJECT_DIR", scratch.path("work"));
    let (code, out, err) = run(command, &input.to_string());
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        lines(),
        [
            "claude-local",
            "claude-project",
            "claude-user",
            "repo-hooks",
            "repo-local",
            "repo-settings",
            "user-hooks",
            "user-settings"
        ],
        "fire sees every hook that decides for Copilot: {out}{err}"
    );

    let output = hookwire(&scratch, &["check", "--format", "json"]).output().unwrap();
    let checked = serde_json::from_slice::<Value>(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", both(&output)));
    let searched = checked["searched"].as_array().cloned().unwrap_or_default();
    for path in ["home/.copilot/settings.json", "work/.github/copilot/settings.json"] {
        let path = scratch.path(path).display().to_string();
        assert!(
            searched.iter().any(|place| place["path"] == path.as_str() && place["loaded"] == true),
            "{path}: {searched:#?}"
        );
    }
    let output = hookwire(&scratch, &["check", "--agent", "copilot", "--format", "json"]).output().unwrap();
    let checked = serde_json::from_slice::<Value>(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", both(&output)));
    let searched = checked["searched"].as_array().cloned().unwrap_or_default();
    for (path, _) in &files[..7] {
        let path = scratch.path(path).display().to_string();
        assert!(!searched.iter().any(|place| place["path"] == path.as_str()), "{path} is Copilot's: {searched:#?}");
    }
    let claude_user = scratch.path("home/.claude/settings.json").display().to_string();
    assert!(searched.iter().any(|place| place["path"] == claude_user.as_str()), "{searched:#?}");
}

/// A settings file's hooks in the hook-file shape (a `version` inside `"hooks"`) are run by
/// Copilot CLI silently as nothing: hookwire says so at the file's place instead of reading a
/// guard Copilot never runs.
#[test]
fn a_copilot_settings_file_in_the_hook_file_shape_is_an_error() {
    let scratch = scratch();
    scratch.write(
        "home/.copilot/settings.json",
        "{\n  \"model\": \"x\",\n  \"hooks\": {\"version\": 1, \"hooks\": {\"preToolUse\": []}}\n}\n",
    );
    let output = hookwire(&scratch, &["check"]).output().unwrap();
    let text = both(&output);
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("settings.json:3:3") && text.contains("directly under `hooks`"), "{text}");
    // The settings' other members are Copilot's own and no error; a typo in an entry is.
    scratch.write(
        "home/.copilot/settings.json",
        r#"{"model": "x", "hooks": {"preToolUse": [{"type": "command", "bash": "true", "timout": 5}]}}"#,
    );
    let output = hookwire(&scratch, &["check"]).output().unwrap();
    let text = both(&output);
    assert!(!output.status.success() && text.contains("unknown member `timout`"), "{text}");
    scratch.write(
        "home/.copilot/settings.json",
        r#"{"model": "x", "hooks": {"preToolUse": [{"type": "command", "bash": "true"}]}}"#,
    );
    let output = hookwire(&scratch, &["check"]).output().unwrap();
    let text = both(&output);
    assert!(output.status.success() && text.contains("copilot-preToolUse-0"), "{text}");
}

/// `hookwire test` with no `config:` loads everything that decides for the agent: a guard in the
/// user's `$COPILOT_HOME/settings.json` and one in the repository's `.github/copilot/settings.json`
/// both decide the cases.
#[test]
fn hooktest_default_config_sees_copilots_settings_files() {
    let scratch = scratch();
    let deny = |word: &str| {
        json!({"hooks": {"preToolUse": [{"type": "command", "bash": format!(
            "grep -q {word} && echo '{{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no {word} here\"}}' || true"
        )}]}})
        .to_string()
    };
    scratch.write("home/.copilot/settings.json", &deny("pwned"));
    scratch.write("work/.github/copilot/settings.json", &deny("owned"));
    let trusted = hookwire(&scratch, &["trust", "--yes"]).output().unwrap();
    assert!(trusted.status.success(), "{}", both(&trusted));
    scratch.write(
        "work/hooktests/copilot.hooktest.yaml",
        r#"agent: copilot
cases:
  - name: the user's settings deny pwned
    event: preToolUse
    input: {toolName: bash, toolArgs: {command: "touch pwned"}}
    expect: {decision: deny, reason: {contains: no pwned}}
  - name: the repository's settings deny owned
    event: preToolUse
    input: {toolName: bash, toolArgs: {command: "touch owned"}}
    expect: {decision: deny, reason: {contains: no owned}}
  - name: ls is allowed
    event: preToolUse
    input: {toolName: bash, toolArgs: {command: ls}}
    expect: {decision: allow}
"#,
    );
    let output = hookwire(&scratch, &["test", "hooktests/copilot.hooktest.yaml"]).output().unwrap();
    let text = both(&output);
    assert!(output.status.success() && stdout(&output).contains("3 passed, 0 failed"), "{text}");
}
