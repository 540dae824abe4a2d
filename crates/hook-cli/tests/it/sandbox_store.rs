//! The sandbox each hook run had, in the decision store, through the real `hookwire` binary:
//! a trusted project's sandboxed bash hooks and a Claude Code command hook (confined by the
//! level default) fired with `hookwire fire` and through `hookwire hook claude`, then read
//! back with `hookwire log`. On this
//! kernel the policies are enforced; with the Landlock ABI capped at 3 (as an older kernel
//! would offer), the `best-effort` hooks run without TCP rules and the row says so, and the
//! `required` one is refused and the row says that.

use std::{fs, ops::Deref, process::Output};

use serde_json::Value;

use crate::common::{Scratch, stderr, stdout};

/// A scratch home with one trusted project.
struct Project(Scratch);

impl Deref for Project {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

/// The hooks of the project, all on `stop`: `confined` (`sandbox: required`, the default
/// policy: no network), `lax` (`best-effort`, no network) and `plain` (`sandbox: off`). (No
/// marker files: a file the commands name that appears after the trust voids it.)
const HOOKS_YAML: &str = "stop:
  - name: confined
    command: \"cat >/dev/null; echo '{}'\"
    sandbox: required
  - name: lax
    command: \"cat >/dev/null; echo '{}'\"
    sandbox:
      mode: best-effort
      network: none
  - name: plain
    command: \"cat >/dev/null; echo '{}'\"
    sandbox: off
";

impl Project {
    fn new(tag: &str) -> Project {
        let project = Project(Scratch::new(tag));
        project.write("work/proj/.hookwire/hooks.yaml", HOOKS_YAML);
        // A Claude Code hook: its dialect has no `sandbox:`, so the level default confines it.
        let settings = serde_json::json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "cat >/dev/null"}
        ]}]}});
        project.write("work/proj/.claude/settings.json", &settings.to_string());
        fs::create_dir_all(project.path("home")).unwrap();
        let output = project.hookwire("work/proj", &["trust", "--yes"]).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "trust: {}\n{}", stdout(&output), stderr(&output));
        project
    }

    /// `hookwire fire stop` in the project, with the Landlock ABI capped at `abi_cap` (none:
    /// the kernel's), project hooks that declare no sandbox confined `best-effort`, and the
    /// store at its default place under the scratch home.
    fn fire(&self, abi_cap: Option<&str>) -> Output {
        let mut command = self.hookwire("work/proj", &["fire", "stop", "--format", "json"]);
        command.env("HOOKWIRE_SANDBOX", "project=best-effort").env_remove("HOOKWIRE_STORE");
        match abi_cap {
            Some(cap) => command.env("HOOKWIRE_LANDLOCK_ABI_MAX", cap),
            None => command.env_remove("HOOKWIRE_LANDLOCK_ABI_MAX"),
        };
        command.output().unwrap()
    }

    /// `hookwire hook claude` on a Stop event in the project, in its own process, with the
    /// Landlock ABI capped at `abi_cap` (the bridge runs hookwire's own hooks of the project;
    /// Claude Code runs its settings' hooks itself).
    fn bridge_stop(&self, abi_cap: &str) -> Output {
        let input = serde_json::json!({
            "session_id": "4b0e9c1a-sandbox",
            "transcript_path": self.path("home/t.jsonl"),
            "cwd": self.path("work/proj"),
            "hook_event_name": "Stop",
            "stop_hook_active": false,
        });
        let mut command = self.hookwire("work/proj", &["hook", "claude"]);
        command
            .env("HOOKWIRE_NO_DAEMON", "1")
            .env("HOOKWIRE_LANDLOCK_ABI_MAX", abi_cap)
            .env_remove("HOOKWIRE_STORE")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = command.spawn().unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.to_string().as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }

    /// `hookwire log ARGS` over the store the fires wrote.
    fn log(&self, args: &[&str]) -> Output {
        let mut command = self.hookwire("work/proj", &[&["log", "-n", "1"], args].concat());
        command.env_remove("HOOKWIRE_STORE");
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(0), "log: {}\n{}", stdout(&output), stderr(&output));
        output
    }

    /// The newest fire's hook runs, by the hook's name, from `hookwire log --format json`.
    fn last_runs(&self) -> Vec<(String, Value)> {
        let text = stdout(&self.log(&["--format", "json"]));
        let fire: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
        fire["hooks"]
            .as_array()
            .unwrap_or_else(|| panic!("no hooks: {fire}"))
            .iter()
            .map(|run| {
                let id = run["hook_id"].as_str().unwrap();
                let name = id.split(':').nth(1).unwrap_or(id).to_owned();
                (name, run.clone())
            })
            .collect()
    }
}

/// The `sandbox` field of the run whose hook name contains `name`.
fn sandbox_of<'a>(runs: &'a [(String, Value)], name: &str) -> &'a Value {
    let (_, run) =
        runs.iter().find(|(hook, _)| hook.contains(name)).unwrap_or_else(|| panic!("no run of `{name}` in {runs:?}"));
    &run["sandbox"]
}

#[test]
fn the_store_records_the_sandbox_each_hook_run_had_and_log_shows_it() {
    let project = Project::new("sandbox-store");

    let output = project.fire(None);
    let runs = project.last_runs();
    assert_eq!(runs.len(), 4, "every hook ran: {runs:?}\n{}\n{}", stdout(&output), stderr(&output));
    for (name, run) in &runs {
        assert_eq!(run["outcome"], "no_change", "{name}: {runs:?}");
    }
    let abi = hook_sandbox::support().abi;
    assert!(abi >= 6, "this test needs Landlock ABI 6 or later; the kernel offers {abi}");
    let enforced = format!("enforced (Landlock ABI {abi})");
    assert_eq!(sandbox_of(&runs, "confined"), &Value::from(enforced.clone()), "{runs:?}");
    assert_eq!(sandbox_of(&runs, "lax"), &Value::from(enforced.clone()), "{runs:?}");
    assert_eq!(sandbox_of(&runs, "plain"), &Value::from("none"), "{runs:?}");
    // The Claude Code hook, confined by `HOOKWIRE_SANDBOX=project=best-effort`.
    let claude = runs.iter().find(|(_, run)| run["kind"] == "command").unwrap_or_else(|| panic!("{runs:?}"));
    assert_eq!(claude.1["sandbox"], Value::from(enforced.clone()), "{runs:?}");
    let text = stdout(&project.log(&[]));
    assert!(text.contains(&format!("sandbox {enforced}")), "{text}");

    // An older kernel, as far as hookwire can tell: TCP rules (ABI 4) are missing.
    let output = project.fire(Some("3"));
    let short = "Landlock ABI 3, not enforced: TCP rules (Landlock ABI 4), signal and abstract Unix socket scoping \
                 (Landlock ABI 6)";
    let runs = project.last_runs();
    assert_eq!(runs.len(), 4, "{runs:?}\n{}\n{}", stdout(&output), stderr(&output));
    let outcome = |name: &str| runs.iter().find(|(hook, _)| hook.contains(name)).map(|(_, run)| run["outcome"].clone());
    // `best-effort` ran, less confined than declared, and its row says how much less.
    assert_eq!(outcome("lax"), Some(Value::from("no_change")), "{runs:?}");
    assert_eq!(outcome("claude"), Some(Value::from("no_change")), "{runs:?}");
    assert_eq!(sandbox_of(&runs, "lax"), &Value::from(format!("best-effort: {short}")), "{runs:?}");
    let claude = runs.iter().find(|(_, run)| run["kind"] == "command").unwrap_or_else(|| panic!("{runs:?}"));
    assert_eq!(claude.1["sandbox"], Value::from(format!("best-effort: {short}")), "{runs:?}");
    // `required` did not start, and its row says why as well as its error.
    assert_ne!(
        outcome("confined"),
        Some(Value::from("no_change")),
        "a required sandbox that cannot apply ran: {runs:?}"
    );
    assert_eq!(sandbox_of(&runs, "confined"), &Value::from(format!("required, not started: {short}")), "{runs:?}");
    assert_eq!(sandbox_of(&runs, "plain"), &Value::from("none"), "{runs:?}");
    // The text log shows the shortfall on the hook's line.
    let text = stdout(&project.log(&[]));
    let lax = text.lines().find(|line| line.contains(":lax:")).unwrap_or_else(|| panic!("{text}"));
    assert!(lax.contains(&format!("sandbox best-effort: {short}")), "{text}");
    let plain = text.lines().find(|line| line.contains(":plain:")).unwrap_or_else(|| panic!("{text}"));
    assert!(!plain.contains("  sandbox "), "an unconfined run's line stays as it was: {text}");

    // The same through the bridge an agent calls: the row is the bridge's, with the shortfall.
    let output = project.bridge_stop("3");
    assert_eq!(output.status.code(), Some(0), "{}\n{}", stdout(&output), stderr(&output));
    let text = stdout(&project.log(&["--format", "json"]));
    let fire: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!((fire["origin"].as_str(), fire["agent"].as_str()), (Some("bridge"), Some("claude")), "{fire}");
    let runs = project.last_runs();
    assert_eq!(sandbox_of(&runs, "lax"), &Value::from(format!("best-effort: {short}")), "{runs:?}");
    assert_eq!(sandbox_of(&runs, "confined"), &Value::from(format!("required, not started: {short}")), "{runs:?}");
}
