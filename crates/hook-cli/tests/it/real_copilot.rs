//! `hookwire hook copilot` driven by the REAL GitHub Copilot CLI: it runs headless
//! (`tests/agents/run_agent.py --agent copilot`) against a scripted model on 127.0.0.1, with the
//! bridge installed by `hookwire install copilot --project` and the project's guards in
//! `.hookwire/`, trusted with `hookwire trust --yes`. Every scenario checks what Copilot then did:
//! the file system, and what the model was told.
//!
//! The agent is found by `common::real` (`HOOKWIRE_AGENTS_DIR`, else `<workspace>/target/agents`);
//! when it is not installed each test prints `skipped: real agents not installed` and passes,
//! unless `CI` is set and `HOOKWIRE_REQUIRE_AGENTS=1`.

#![allow(clippy::print_stderr)]

use std::{
    fs,
    io::Read,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::common::real::{agents_dir, available};

/// `run_agent.py --timeout`: the agent is killed after this long.
const AGENT_TIMEOUT_S: u64 = 150;
/// The test gives up on the driver itself a little later.
const DRIVER_DEADLINE: Duration = Duration::from_secs(AGENT_TIMEOUT_S + 30);

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A temporary project (with `.hookwire/`) and a fresh HOME; removed on drop.
struct Scenario {
    label: String,
    root: PathBuf,
}

impl Scenario {
    fn new(label: &str) -> Option<Scenario> {
        if !available("copilot") {
            return None;
        }
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "hookwire-real-copilot-{}-{}-{label}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&root);
        for dir in ["project/.hookwire", "home", "run"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        fs::set_permissions(root.join("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        Some(Scenario { label: format!("copilot/{label}"), root })
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// `hookwire ARGS` in the project, with the scenario's HOME.
    fn hookwire(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookwire"));
        self.environment(&mut command);
        command.args(args).current_dir(self.project()).stdin(Stdio::null());
        command
    }

    fn environment(&self, command: &mut Command) {
        command
            .env("HOME", self.path("home"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("HOOKWIRE_NO_DAEMON")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("RUST_LOG");
    }

    fn ok(&self, args: &[&str]) {
        let output = self.hookwire(args).output().unwrap();
        assert!(
            output.status.success(),
            "{}: hookwire {args:?}: {}{}",
            self.label,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Installs the bridge and trusts the project as it is now.
    fn install_and_trust(&self) {
        self.ok(&["install", "copilot", "--project"]);
        self.ok(&["trust", "--yes"]);
    }

    /// Runs Copilot on `prompt` with the model `script`; the driver's report.
    fn run(&self, script: Value, prompt: &str) -> Value {
        let script_path = self.path("script.json");
        fs::write(&script_path, script.to_string()).unwrap();
        let mut command = Command::new("python3");
        self.environment(&mut command);
        command
            .arg(workspace_root().join("tests/agents/run_agent.py"))
            .args(["--agent", "copilot", "--project"])
            .arg(self.project())
            .arg("--home")
            .arg(self.path("home"))
            .arg("--script")
            .arg(&script_path)
            .arg(format!("--prompt={prompt}"))
            .args(["--timeout", &AGENT_TIMEOUT_S.to_string(), "--agents-dir"])
            .arg(agents_dir())
            .args(["--requests", "main"])
            .arg(format!("--env=XDG_RUNTIME_DIR={}", self.path("run").display()))
            .arg("--env=HOOKWIRE_IDLE_TIMEOUT=60")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let mut child = command.spawn().expect("start python3 tests/agents/run_agent.py");
        let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let out_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = out.read_to_string(&mut text);
            text
        });
        let err_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > DRIVER_DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{}: run_agent.py still running after {DRIVER_DEADLINE:?}", self.label);
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let (stdout, stderr) = (out_reader.join().unwrap(), err_reader.join().unwrap());
        assert!(status.success(), "{}: run_agent.py failed ({status}):\n{stderr}\n{stdout}", self.label);
        let report: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{}: report is not JSON ({e}):\n{stdout}\n{stderr}", self.label));
        eprintln!("[{}] exit {} in {:.1}s", self.label, report["exit_code"], started.elapsed().as_secs_f64());
        report
    }
}

impl Drop for Scenario {
    fn drop(&mut self) {
        // The daemon a scenario started: stopped by its pid file.
        for entry in fs::read_dir(self.path("run/hookwire")).into_iter().flatten().flatten() {
            if entry.path().extension().is_some_and(|e| e == "pid")
                && let Ok(pid) = fs::read_to_string(entry.path()).unwrap_or_default().trim().parse::<i32>()
            {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
            }
        }
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// What the model was told about each tool call, in order.
fn tool_results(report: &Value) -> Vec<String> {
    report["tool_results"]
        .as_array()
        .map(|results| results.iter().map(|r| r["content"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

fn dump(report: &Value) -> String {
    let mut value = report.clone();
    value["requests"] = json!("<requests>");
    serde_json::to_string_pretty(&value).unwrap()
}

#[test]
fn real_copilot_a_trusted_guard_denies_and_an_allowed_call_runs() {
    let Some(s) = Scenario::new("guard") else { return };
    fs::write(
        s.path("project/.hookwire/hooks.yaml"),
        "pre_tool_execution:\n  - name: no-pwned\n    command: |\n      grep -q pwned && echo '{\"action\":\"skip\",\"reason\":\"hookwire guard: no pwned files\"}' || true\n",
    )
    .unwrap();
    s.install_and_trust();
    let script = json!([
        {"tool": "shell", "input": {"command": "touch pwned"}},
        {"tool": "shell", "input": {"command": "touch allowed.txt"}},
        {"text": "all done"}
    ]);
    let report = s.run(script, "make two files");
    let results = tool_results(&report);
    assert!(!s.path("project/pwned").exists(), "the guard's deny stopped the call\n{}", dump(&report));
    assert!(s.path("project/allowed.txt").exists(), "the allowed call ran\n{}", dump(&report));
    assert!(
        results.first().is_some_and(|r| r.contains("Denied by preToolUse hook") && r.contains("no pwned files")),
        "the reason reaches the model: {results:#?}\n{}",
        dump(&report)
    );
}

/// A PicoClaw process hook in Python that denies shell commands mentioning `pwned`, naming its
/// pid and how many calls it has seen.
const PROCESS_HOOK: &str = r#"import json, os, sys
with open(sys.argv[1], "a") as pids:
    pids.write(f"{os.getpid()}\n")
calls = 0
for line in sys.stdin:
    message = json.loads(line)
    if not message.get("id"):
        continue
    method, params = message.get("method"), message.get("params") or {}
    if method == "hook.hello":
        result = {"ok": True, "name": "guard"}
    elif method == "hook.before_tool":
        calls += 1
        args = params.get("arguments") or {}
        if "pwned" in str(args.get("command", "")):
            result = {"action": "deny_tool", "reason": f"process guard pid {os.getpid()} call {calls}"}
        else:
            result = {"action": "continue"}
    else:
        result = {"action": "continue"}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
"#;

#[test]
fn real_copilot_a_process_hook_denies_and_lives_across_calls_through_the_daemon() {
    let Some(s) = Scenario::new("process") else { return };
    let hook = s.path("guard.py");
    fs::write(&hook, PROCESS_HOOK).unwrap();
    let pids = s.path("pids");
    fs::write(
        s.path("project/.hookwire/hooks.json"),
        json!({"hooks": {"processes": {"guard": {
            "enabled": true,
            "command": ["python3", hook, pids],
            "intercept": ["before_tool"],
        }}}})
        .to_string(),
    )
    .unwrap();
    s.install_and_trust();
    let script = json!([
        {"tool": "shell", "input": {"command": "touch pwned1"}},
        {"tool": "shell", "input": {"command": "touch pwned2"}},
        {"tool": "shell", "input": {"command": "touch fine.txt"}},
        {"text": "all done"}
    ]);
    let started = Instant::now();
    let report = s.run(script, "make three files");
    let results = tool_results(&report);
    let context = dump(&report);
    assert!(!s.path("project/pwned1").exists() && !s.path("project/pwned2").exists(), "{context}");
    assert!(s.path("project/fine.txt").exists(), "the allowed call ran\n{context}");
    let pid_lines: Vec<String> = fs::read_to_string(&pids).unwrap_or_default().lines().map(str::to_owned).collect();
    assert_eq!(pid_lines.len(), 1, "one process hook for all calls: {pid_lines:?}\n{context}");
    let pid = &pid_lines[0];
    assert!(results.first().is_some_and(|r| r.contains(&format!("process guard pid {pid} call 1"))), "{results:#?}");
    assert!(results.get(1).is_some_and(|r| r.contains(&format!("process guard pid {pid} call 2"))), "{results:#?}");
    // The daemon never held Copilot's pipes: the run did not wait out the daemon's life.
    assert!(started.elapsed() < Duration::from_secs(AGENT_TIMEOUT_S), "{context}");
}

/// With hookwire installed as Copilot's hook, every hook file Copilot runs itself — the
/// repository's `.github/hooks/*.json` and `.github/copilot/settings.json`, a project's
/// `.claude/settings.json`, the user's `$COPILOT_HOME/settings.json` and `hooks/*.json` — runs
/// exactly once per tool call (Copilot runs it; the bridge leaves it alone), and hookwire's own
/// hook runs once too, through the bridge.
#[test]
fn real_copilot_runs_its_own_hook_files_once_with_the_bridge_installed() {
    let Some(s) = Scenario::new("once") else { return };
    let log = s.path("count.log");
    let tag = |tag: &str| format!("cat >/dev/null; echo {tag} >> {}", log.display());
    let copilot = |t: &str| json!({"preToolUse": [{"type": "command", "bash": tag(t), "timeoutSec": 60}]});
    let files = [
        ("project/.github/hooks/count.json", json!({"version": 1, "hooks": copilot("repo-hooks")})),
        ("project/.github/copilot/settings.json", json!({"hooks": copilot("repo-settings")})),
        (
            "project/.claude/settings.json",
            json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": tag("claude-project")}]}]}}),
        ),
        ("home/.copilot/settings.json", json!({"hooks": copilot("user-settings")})),
        ("home/.copilot/hooks/count.json", json!({"version": 1, "hooks": copilot("user-hooks")})),
    ];
    for (path, value) in &files {
        fs::create_dir_all(s.path(path).parent().unwrap()).unwrap();
        fs::write(s.path(path), value.to_string()).unwrap();
    }
    fs::write(
        s.path("project/.hookwire/hooks.yaml"),
        format!("pre_tool_execution:\n  - name: count\n    command: '{}'\n", tag("hookwire")),
    )
    .unwrap();
    s.install_and_trust();
    let script = json!([
        {"tool": "shell", "input": {"command": "touch one.txt"}},
        {"tool": "shell", "input": {"command": "touch two.txt"}},
        {"text": "all done"}
    ]);
    let report = s.run(script, "make two files");
    assert!(s.path("project/one.txt").exists() && s.path("project/two.txt").exists(), "{}", dump(&report));
    let mut lines: Vec<String> = fs::read_to_string(&log).unwrap_or_default().lines().map(str::to_owned).collect();
    lines.sort();
    let expected: Vec<&str> =
        ["claude-project", "hookwire", "repo-hooks", "repo-settings", "user-hooks", "user-settings"]
            .iter()
            .flat_map(|tag| [*tag, *tag])
            .collect();
    assert_eq!(lines, expected, "each hook once per tool call (two calls)\n{}", dump(&report));
}

/// `hookwire install copilot --user` writes `$COPILOT_HOME/hooks/hookwire.json`, and the real
/// Copilot runs it (without `--project`, nothing in the repository): a trusted guard denies.
#[test]
fn real_copilot_runs_the_user_level_install() {
    let Some(s) = Scenario::new("user") else { return };
    fs::write(
        s.path("project/.hookwire/hooks.yaml"),
        "pre_tool_execution:\n  - name: no-pwned\n    command: |\n      grep -q pwned && echo '{\"action\":\"skip\",\"reason\":\"user install: no pwned\"}' || true\n",
    )
    .unwrap();
    let mut install = s.hookwire(&["install", "copilot", "--user"]);
    install.env("COPILOT_HOME", s.path("home/.copilot"));
    let output = install.output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let written = s.path("home/.copilot/hooks/hookwire.json");
    assert!(written.is_file(), "install --user writes $COPILOT_HOME/hooks/hookwire.json");
    assert!(!s.path("project/.github").exists(), "a user install writes nothing in the project");
    s.ok(&["trust", "--yes"]);
    let script = json!([
        {"tool": "shell", "input": {"command": "touch pwned"}},
        {"tool": "shell", "input": {"command": "touch allowed.txt"}},
        {"text": "all done"}
    ]);
    let report = s.run(script, "make two files");
    let results = tool_results(&report);
    assert!(!s.path("project/pwned").exists(), "the user-level bridge denied\n{}", dump(&report));
    assert!(s.path("project/allowed.txt").exists(), "{}", dump(&report));
    assert!(results.first().is_some_and(|r| r.contains("user install: no pwned")), "{results:#?}");
}

/// A project where hookwire is installed for Claude Code only: Copilot CLI runs the project's
/// `.claude/settings.json` too, so it calls `hookwire hook claude` with its own input. That
/// call is answered as Copilot's (the guard denies, the rest runs) — not refused as an input it
/// cannot read, which made Copilot deny every tool call. With the Copilot bridge installed as
/// well, the Claude entry steps aside: the guard runs once per call.
#[test]
fn real_copilot_in_a_project_installed_for_claude_code_is_guarded_not_blocked() {
    let Some(s) = Scenario::new("claude-entry") else { return };
    let log = s.path("guard-calls.log");
    fs::write(
        s.path("project/.hookwire/hooks.yaml"),
        format!(
            "pre_tool_execution:\n  - name: no-pwned\n    command: |\n      echo call >> {}\n      grep -q pwned && echo '{{\"action\":\"skip\",\"reason\":\"hookwire guard: no pwned files\"}}' || true\n",
            log.display()
        ),
    )
    .unwrap();
    s.ok(&["install", "claude", "--project"]);
    s.ok(&["trust", "--yes"]);
    let script = json!([
        {"tool": "shell", "input": {"command": "touch pwned"}},
        {"tool": "shell", "input": {"command": "touch allowed.txt"}},
        {"text": "all done"}
    ]);
    let report = s.run(script.clone(), "make two files");
    assert!(!s.path("project/pwned").exists(), "the guard denied through the Claude entry\n{}", dump(&report));
    assert!(s.path("project/allowed.txt").exists(), "the allowed call ran\n{}", dump(&report));

    fs::remove_file(s.path("project/allowed.txt")).unwrap();
    fs::write(&log, "").unwrap();
    s.ok(&["install", "copilot", "--project"]);
    s.ok(&["trust", "--yes"]);
    let report = s.run(script, "make two files");
    assert!(!s.path("project/pwned").exists(), "{}", dump(&report));
    assert!(s.path("project/allowed.txt").exists(), "{}", dump(&report));
    let calls = fs::read_to_string(&log).unwrap().lines().count();
    assert_eq!(calls, 2, "one guard run per tool call with both entries installed\n{}", dump(&report));
}
