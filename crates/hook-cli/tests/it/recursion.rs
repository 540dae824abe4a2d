//! A hook that runs `hookwire hook` itself, through a script (nothing in its command says so):
//! every hook child carries `HOOKWIRE_HOOK_DEPTH`, and the bridge refuses past a small depth
//! instead of recursing until the agent's deadline.

use std::{
    fs,
    io::Write,
    process::Stdio,
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::common::Scratch;

/// How long the whole chain may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// Whether `pid` is a live process (not a zombie).
fn is_running(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn a_hook_that_runs_the_bridge_again_is_refused_at_a_small_depth() {
    let scratch = Scratch::new("recursion");
    fs::create_dir_all(scratch.path("project/.hookwire")).unwrap();
    let (settings, pids) = (scratch.path("conf/settings.json"), scratch.path("conf/pids"));
    // The script writes its pid (the hookwire it becomes has the same), then runs the bridge
    // over the same settings. A safety net for a build without the bound: at level 12 it lets
    // the tool through, which this test then reports.
    let script = scratch.write(
        "conf/again.sh",
        &format!(
            "echo $$ >> '{}'\nlevel=$(( ${{LEVEL:-0}} + 1 )); export LEVEL=$level\n[ \"$level\" -gt 12 ] && exit 0\n\
             exec '{}' hook claude --no-default-config --settings '{}'\n",
            pids.display(),
            env!("CARGO_BIN_EXE_hookwire"),
            settings.display()
        ),
    );
    scratch.write(
        "conf/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": format!("sh '{}'", script.display()), "timeout": 30}
        ]}]}})
        .to_string(),
    );
    let input = json!({
        "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": scratch.path("project"),
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
    });

    let mut bridge = scratch.hookwire("project", &["hook", "claude", "--no-default-config", "--settings"]);
    bridge.arg(&settings).env("XDG_RUNTIME_DIR", scratch.path("home")).env_remove("HOOKWIRE_HOOK_DEPTH");
    let mut child = bridge.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("the bridge did not finish within {PATIENCE:?}");
        }
        thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));

    // Blocked, with a reason that says what happened and what to do.
    let reason = match output.status.code() {
        Some(2) => stderr.to_string(),
        _ => {
            let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}"));
            assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
            answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().to_owned()
        }
    };
    assert!(reason.contains("HOOKWIRE_HOOK_DEPTH=3") && reason.contains("Remove that call"), "{reason}");

    // Levels 1 to 3 ran the script; the bridge at depth 3 refused. All of them are gone.
    let levels: Vec<i32> = fs::read_to_string(&pids).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(levels.len(), 3, "{levels:?}");
    let until = Instant::now() + Duration::from_secs(10);
    while levels.iter().any(|pid| is_running(*pid)) && Instant::now() < until {
        thread::sleep(Duration::from_millis(50));
    }
    let alive: Vec<&i32> = levels.iter().filter(|pid| is_running(**pid)).collect();
    assert!(alive.is_empty(), "processes left: {alive:?}");
}
