//! `hookwire plugin build`: the plugins kept in `plugins/<agent>/` are exactly its output, the
//! launcher they ship behaves under a real `sh` with and without hookwire on PATH, and the REAL
//! agents (`tests/agents/run_agent.py`, skipped by `common::real` when they are absent)
//! install each plugin with their own commands and run a project's guard through it.

#![allow(clippy::print_stderr)]

use std::{
    collections::BTreeMap,
    fs,
    io::Write as _,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

use serde_json::{Value, json};

use crate::common::{
    Scratch,
    real::{self, agents_dir},
    stderr, stdout,
};

const AGENTS: [&str; 4] = ["claude", "gemini", "codex", "copilot"];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir`: relative path → (bytes, executable).
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, bool)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (Vec<u8>, bool)>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(relative, (fs::read(&path).unwrap(), meta.permissions().mode() & 0o111 != 0));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `hookwire plugin build --agent AGENT --out OUT EXTRA...` in the scratch directory.
fn build(scratch: &Scratch, agent: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["plugin", "build", "--agent", agent, "--out"];
    let out = out.display().to_string();
    args.push(&out);
    args.extend_from_slice(extra);
    scratch.hookwire("work", &args).output().unwrap()
}

fn build_ok(scratch: &Scratch, agent: &str, out: &Path) -> String {
    let output = build(scratch, agent, out, &[]);
    assert!(output.status.success(), "plugin build --agent {agent}: {}\n{}", stdout(&output), stderr(&output));
    stdout(&output)
}

/// Where the plugin's own root is inside a build of `agent`.
fn plugin_root(agent: &str) -> &'static str {
    if agent == "gemini" { "" } else { "plugins/hookwire/" }
}

#[test]
fn the_repository_plugins_are_what_the_generator_writes() {
    let scratch = Scratch::new("plugin-fresh");
    for agent in AGENTS {
        let out = scratch.path(&format!("built/{agent}"));
        build_ok(&scratch, agent, &out);
        let kept = workspace_root().join("plugins").join(agent);
        let (built, kept_files) = (tree(&out), tree(&kept));
        let names = |t: &BTreeMap<String, (Vec<u8>, bool)>| t.keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            names(&kept_files),
            names(&built),
            "plugins/{agent} has other files than the generator writes: regenerate it with \
             `hookwire plugin build --agent {agent} --out plugins/{agent}`"
        );
        for (path, (bytes, executable)) in &built {
            let (kept_bytes, kept_executable) = &kept_files[path];
            assert!(
                kept_bytes == bytes && kept_executable == executable,
                "plugins/{agent}/{path} differs from what the generator writes (text or executable bit): \
                 regenerate it with `hookwire plugin build --agent {agent} --out plugins/{agent}`"
            );
        }
    }
}

#[test]
fn the_codex_hooks_file_has_only_description_and_hooks() {
    let text = fs::read_to_string(workspace_root().join("plugins/codex/plugins/hookwire/hooks/hooks.json")).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    let mut keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["description", "hooks"], "Codex refuses a plugin hooks file with any other root key");
    // The manifest folder holds the manifest only.
    let folder: Vec<_> = fs::read_dir(workspace_root().join("plugins/codex/plugins/hookwire/.codex-plugin"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(folder, ["plugin.json"]);
}

#[test]
fn every_entry_runs_the_shipped_launcher_through_the_plugin_root() {
    let scratch = Scratch::new("plugin-entries");
    for (agent, placeholder) in
        [("claude", "${CLAUDE_PLUGIN_ROOT}"), ("gemini", "${extensionPath}"), ("codex", "${PLUGIN_ROOT}")]
    {
        let out = scratch.path(agent);
        build_ok(&scratch, agent, &out);
        let hooks: Value =
            serde_json::from_str(&fs::read_to_string(out.join(plugin_root(agent)).join("hooks/hooks.json")).unwrap())
                .unwrap();
        let events = hooks["hooks"].as_object().unwrap();
        assert!(events.len() >= 8, "{agent}: {events:?}");
        for (event, groups) in events {
            let command = groups[0]["hooks"][0]["command"].as_str().unwrap();
            assert_eq!(command, format!("sh \"{placeholder}/bin/hookwire-hook\" {agent}"), "{agent} {event}");
        }
        let manifest = out.join(plugin_root(agent)).join("bin/hookwire-hook");
        assert!(manifest.is_file(), "{agent}: the launcher is not in the plugin");
    }
    let out = scratch.path("copilot");
    build_ok(&scratch, "copilot", &out);
    let hooks: Value =
        serde_json::from_str(&fs::read_to_string(out.join("plugins/hookwire/hooks/hooks.json")).unwrap()).unwrap();
    assert_eq!(hooks["version"], 1);
    // (serde_json here sorts keys, so the order is checked on the text.)
    let text = fs::read_to_string(out.join("plugins/hookwire/hooks/hooks.json")).unwrap();
    // Every event `hookwire install copilot` writes: a plugin user gets the same protection.
    let expected = [
        "sessionStart",
        "sessionEnd",
        "userPromptSubmitted",
        "preToolUse",
        "permissionRequest",
        "postToolUse",
        "postToolUseFailure",
        "agentStop",
        "preCompact",
        "notification",
        "subagentStart",
        "subagentStop",
        "errorOccurred",
    ];
    let positions: Vec<usize> = expected.iter().map(|e| text.find(&format!("\"{e}\": [")).unwrap()).collect();
    assert!(positions.is_sorted(), "Copilot's events are not in its order:\n{text}");
    let events: Vec<&String> = hooks["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events.len(), expected.len(), "{events:?}");
    // The same events as the file `hookwire install copilot` writes.
    let installed = scratch.hookwire("work", &["install", "copilot", "--project"]).output().unwrap();
    assert!(installed.status.success(), "{}\n{}", stdout(&installed), stderr(&installed));
    let installed: Value =
        serde_json::from_str(&fs::read_to_string(scratch.path("work/.github/hooks/hookwire.json")).unwrap()).unwrap();
    let installed: Vec<&String> = installed["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events, installed, "the Copilot plugin and `hookwire install copilot` install different events");
    for event in events {
        let entry = &hooks["hooks"][event][0];
        assert_eq!(entry["bash"], format!("sh \"${{PLUGIN_ROOT}}/bin/hookwire-hook\" copilot --event {event}"));
        assert_eq!(entry["timeoutSec"], 600, "a Copilot timeout lets the tool run: the entry's is long");
    }
}

#[test]
fn build_replaces_a_previous_build_and_refuses_other_directories_without_force() {
    let scratch = Scratch::new("plugin-overwrite");
    let out = scratch.path("out");
    let printed = build_ok(&scratch, "claude", &out);
    assert!(printed.contains("claude plugin marketplace add") && printed.contains("hookwire@hookwire"), "{printed}");
    // A stale file of an older build goes: the directory is replaced as a whole.
    scratch.write("out/plugins/hookwire/stale.txt", "old");
    build_ok(&scratch, "gemini", &out);
    assert!(!out.join("plugins").exists(), "a file of the previous build stayed");
    assert!(out.join("gemini-extension.json").is_file());
    let leftovers: Vec<_> = fs::read_dir(scratch.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("hookwire-"))
        .collect();
    assert!(leftovers.is_empty(), "staging directories left behind: {leftovers:?}");

    // Someone's directory: refused, untouched; with --force our files are added and theirs stay.
    let mine = scratch.write("mine/notes.txt", "keep me");
    let refused = build(&scratch, "codex", &scratch.path("mine"), &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stdout(&refused));
    let message = stderr(&refused);
    assert!(message.contains("mine") && message.contains("--force"), "{message}");
    assert_eq!(tree(&scratch.path("mine")).len(), 1);
    let forced = build(&scratch, "codex", &scratch.path("mine"), &["--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert_eq!(fs::read_to_string(&mine).unwrap(), "keep me");
    assert!(scratch.path("mine/.agents/plugins/marketplace.json").is_file());

    // `--out .` where we are: a previous build is rewritten in place (renaming it away would
    // leave the shell in a deleted directory), someone's directory is refused.
    fs::create_dir_all(scratch.path("work/here")).unwrap();
    let here = scratch.hookwire("work/here", &["plugin", "build", "--agent", "gemini", "--out", "."]).output().unwrap();
    assert!(here.status.success(), "{}", stderr(&here));
    assert!(scratch.path("work/here/gemini-extension.json").is_file(), "{}", stdout(&here));
    assert!(!scratch.path("work/here/plugin").exists() && !scratch.path("work/plugin").exists());
    let again =
        scratch.hookwire("work/here", &["plugin", "build", "--agent", "gemini", "--out", "."]).output().unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    let refused_here =
        scratch.hookwire("work", &["plugin", "build", "--agent", "gemini", "--out", "."]).output().unwrap();
    assert_eq!(refused_here.status.code(), Some(2), "the scratch work directory is not a build");

    // A file where the directory should be.
    scratch.write("afile", "x");
    let not_dir = build(&scratch, "claude", &scratch.path("afile"), &["--force"]);
    assert_eq!(not_dir.status.code(), Some(2));
    assert!(stderr(&not_dir).contains("not a directory"), "{}", stderr(&not_dir));
}

// ------------------------------------------------------------------------------------------
// The launcher, under a real sh.

/// A directory holding only a `hookwire` link to the built binary.
fn bin_with_hookwire(scratch: &Scratch) -> PathBuf {
    let bin = scratch.path("bin");
    fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookwire"), bin.join("hookwire")).unwrap();
    bin
}

/// A PATH without hookwire (checked with `command -v`, as the launcher looks).
fn path_without_hookwire() -> String {
    let path = path_without_hookwire_from_env();
    let found = Command::new("sh").args(["-c", "command -v hookwire"]).env("PATH", &path).output().unwrap();
    assert!(!found.status.success(), "hookwire still found on {path}: {}", stdout(&found));
    path
}

/// `sh LAUNCHER ARGS` with `payload` on stdin, in `cwd`, with `path` as PATH.
fn launch(scratch: &Scratch, launcher: &Path, args: &[&str], payload: &str, path: &str, cwd: &Path) -> Output {
    let mut child = Command::new("sh")
        .arg(launcher)
        .args(args)
        .current_dir(cwd)
        .env("PATH", path)
        .env("HOME", scratch.path("home"))
        .env("XDG_CONFIG_HOME", scratch.path("home/.config"))
        .env("XDG_STATE_HOME", scratch.path("home/.local/state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The guard the tests trust: it skips any tool call that mentions `rm -rf` or `touch pwned`,
/// with [`GUARD_REASON`].
const GUARD: &str = "pre_tool_execution:\n  - name: no-pwn\n    command: \"if grep -q -e 'rm -rf' -e 'touch pwned'; then echo '{\\\"action\\\": \\\"skip\\\", \\\"reason\\\": \\\"hookwire guard: no pwned files\\\"}'; else echo '{}'; fi\"\n";

/// The reason [`GUARD`] gives, which must reach the model through each agent.
const GUARD_REASON: &str = "hookwire guard: no pwned files";

/// A project with [`GUARD`], trusted with the scratch home.
fn guarded_project(scratch: &Scratch) -> PathBuf {
    scratch.write("work/project/.hookwire/hooks.yaml", GUARD);
    let trusted = scratch.hookwire("work/project", &["trust", "--yes"]).output().unwrap();
    assert!(trusted.status.success(), "hookwire trust: {}\n{}", stdout(&trusted), stderr(&trusted));
    scratch.path("work/project")
}

fn claude_pre_tool(project: &Path, command: &str) -> String {
    json!({
        "session_id": "s1", "transcript_path": "/dev/null", "cwd": project, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1", "permission_mode": "default"
    })
    .to_string()
}

#[test]
fn with_hookwire_on_path_the_launcher_is_hookwire_hook() {
    let scratch = Scratch::new("plugin-launcher-present");
    build_ok(&scratch, "claude", &scratch.path("claude"));
    let launcher = scratch.path("claude/plugins/hookwire/bin/hookwire-hook");
    let project = guarded_project(&scratch);
    let path = format!("{}:{}", bin_with_hookwire(&scratch).display(), path_without_hookwire());

    let denied = launch(&scratch, &launcher, &["claude"], &claude_pre_tool(&project, "touch pwned"), &path, &project);
    assert_eq!(denied.status.code(), Some(0), "{}", stderr(&denied));
    let answer: Value = serde_json::from_slice(&denied.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&denied)));
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "the guard did not run: {answer}");
    assert!(!answer.to_string().contains("not installed"), "{answer}");

    let allowed = launch(&scratch, &launcher, &["claude"], &claude_pre_tool(&project, "ls"), &path, &project);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert!(!stdout(&allowed).contains("deny"), "{}", stdout(&allowed));

    // The arguments after the agent reach `hookwire hook`: an unknown option is its error.
    let passed = launch(&scratch, &launcher, &["claude", "--no-such-option"], "{}", &path, &project);
    assert_ne!(passed.status.code(), Some(0));
    assert!(stderr(&passed).contains("--no-such-option"), "{}", stderr(&passed));
}

/// One case of the launcher without hookwire: agent arguments, stdin, and what it must answer.
struct Absent {
    args: &'static [&'static str],
    payload: String,
    /// The JSON key path whose value must be `deny`, or None for a non-blocking event.
    deny_at: Option<&'static [&'static str]>,
    /// Where the message goes: a JSON key path on stdout, or None for stderr.
    message_at: Option<&'static [&'static str]>,
    disable: &'static str,
}

fn at<'a>(value: &'a Value, keys: &[&str]) -> &'a Value {
    keys.iter().fold(value, |v, k| &v[*k])
}

#[test]
fn without_hookwire_the_launcher_denies_tool_calls_and_tells_the_user_on_other_events() {
    let scratch = Scratch::new("plugin-launcher-absent");
    let path = path_without_hookwire();
    let payload = |event: &str| json!({"session_id": "s", "cwd": "/", "hook_event_name": event}).to_string();
    let copilot =
        json!({"sessionId": "s", "timestamp": 1, "cwd": "/", "toolName": "bash", "toolArgs": {"command": "ls"}})
            .to_string();
    // Pretty-printed input (one key per line) is read too.
    let pretty = serde_json::to_string_pretty(&json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"})).unwrap();
    let claude_deny: &[&str] = &["hookSpecificOutput", "permissionDecision"];
    let cases = [
        Absent {
            args: &["claude"],
            payload: payload("PreToolUse"),
            deny_at: Some(claude_deny),
            message_at: Some(&["hookSpecificOutput", "permissionDecisionReason"]),
            disable: "claude plugin disable hookwire@hookwire",
        },
        Absent {
            args: &["claude"],
            payload: pretty,
            deny_at: Some(claude_deny),
            message_at: Some(&["systemMessage"]),
            disable: "claude plugin disable",
        },
        Absent {
            args: &["claude"],
            payload: payload("SessionStart"),
            deny_at: None,
            message_at: Some(&["systemMessage"]),
            disable: "claude plugin disable",
        },
        Absent {
            args: &["gemini"],
            payload: payload("BeforeTool"),
            deny_at: Some(&["decision"]),
            message_at: Some(&["reason"]),
            disable: "gemini extensions disable hookwire",
        },
        Absent {
            args: &["gemini"],
            payload: payload("AfterAgent"),
            deny_at: None,
            message_at: Some(&["systemMessage"]),
            disable: "gemini extensions disable",
        },
        Absent {
            args: &["codex"],
            payload: payload("PreToolUse"),
            deny_at: Some(claude_deny),
            message_at: Some(&["hookSpecificOutput", "permissionDecisionReason"]),
            disable: "codex plugin remove hookwire@hookwire",
        },
        Absent {
            args: &["codex"],
            payload: payload("Stop"),
            deny_at: None,
            message_at: Some(&["systemMessage"]),
            disable: "codex plugin remove",
        },
        Absent {
            args: &["copilot", "--event", "preToolUse"],
            payload: copilot.clone(),
            deny_at: Some(&["permissionDecision"]),
            message_at: Some(&["permissionDecisionReason"]),
            disable: "copilot plugin disable hookwire@hookwire",
        },
        Absent {
            args: &["copilot", "--event", "sessionStart"],
            payload: copilot.clone(),
            deny_at: None,
            message_at: Some(&["additionalContext"]),
            disable: "copilot plugin disable",
        },
        Absent {
            args: &["copilot", "--event", "postToolUse"],
            payload: copilot,
            deny_at: None,
            message_at: None,
            disable: "copilot plugin disable",
        },
    ];
    build_ok(&scratch, "claude", &scratch.path("claude"));
    let launcher = scratch.path("claude/plugins/hookwire/bin/hookwire-hook");
    for case in cases {
        let what = format!("{:?} {}", case.args, case.payload);
        let output = launch(&scratch, &launcher, case.args, &case.payload, &path, scratch.root());
        assert_eq!(output.status.code(), Some(0), "{what}: {}", stderr(&output));
        let message = match case.message_at {
            Some(keys) => {
                let answer: Value = serde_json::from_slice(&output.stdout)
                    .unwrap_or_else(|e| panic!("{what}: {e}: {}", stdout(&output)));
                match case.deny_at {
                    Some(deny) => assert_eq!(at(&answer, deny), "deny", "{what}: {answer}"),
                    None => assert!(!answer.to_string().contains("deny"), "{what}: {answer}"),
                }
                at(&answer, keys)
                    .as_str()
                    .unwrap_or_else(|| panic!("{what}: no message at {keys:?}: {answer}"))
                    .to_owned()
            }
            None => {
                assert!(output.stdout.is_empty(), "{what}: {}", stdout(&output));
                stderr(&output)
            }
        };
        assert!(
            message.contains("hookwire is not installed")
                && message.contains("cargo install")
                && message.contains(case.disable),
            "{what}: {message}"
        );
    }
    // An agent the launcher does not know: an error, not an answer.
    let unknown = launch(&scratch, &launcher, &["vim"], "{}", &path, scratch.root());
    assert_eq!(unknown.status.code(), Some(1));
    assert!(stderr(&unknown).contains("unknown agent 'vim'"), "{}", stderr(&unknown));
}

// ------------------------------------------------------------------------------------------
// The real agents: each installs the generated plugin with its own commands into a fresh home,
// then runs headless in a project whose trusted guard denies `touch pwned`. The project has no
// agent settings file and the home no settings-installed hookwire: the plugin is the only way
// hookwire gets in.

/// `run_agent.py --timeout`, and the deadline of each install command.
const AGENT_TIMEOUT_S: u64 = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RealAgent {
    Claude,
    Gemini,
    Codex,
    Copilot,
}

impl RealAgent {
    fn name(self) -> &'static str {
        match self {
            RealAgent::Claude => "claude",
            RealAgent::Gemini => "gemini",
            RealAgent::Codex => "codex",
            RealAgent::Copilot => "copilot",
        }
    }

    /// The agent's own commands that install the plugin built at `dir`, as docs/plugins.md
    /// gives them.
    fn install_commands(self, dir: &str) -> Vec<Vec<String>> {
        let words = |text: &[&str]| text.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        match self {
            RealAgent::Claude => vec![
                words(&["plugin", "validate", dir]),
                words(&["plugin", "marketplace", "add", dir]),
                words(&["plugin", "install", "hookwire@hookwire"]),
            ],
            RealAgent::Gemini => {
                vec![words(&["extensions", "validate", dir]), words(&["extensions", "install", dir, "--consent"])]
            }
            RealAgent::Codex => {
                vec![words(&["plugin", "marketplace", "add", dir]), words(&["plugin", "add", "hookwire@hookwire"])]
            }
            RealAgent::Copilot => {
                vec![words(&["plugin", "marketplace", "add", dir]), words(&["plugin", "install", "hookwire@hookwire"])]
            }
        }
    }
}

/// The caller's PATH without any directory that holds a `hookwire`, so that the agent finds
/// only the one a test puts first (or none).
fn path_without_hookwire_from_env() -> String {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".to_owned());
    path.split(':')
        .filter(|dir| !dir.is_empty() && !Path::new(dir).join("hookwire").exists())
        .collect::<Vec<_>>()
        .join(":")
}

/// The agent's command line for `args`, with a fresh home and nothing from the caller's agent
/// configuration, under `timeout`.
fn agent_command(agent: RealAgent, scratch: &Scratch, args: &[String]) -> Command {
    let mut command = Command::new("timeout");
    command.arg(AGENT_TIMEOUT_S.to_string());
    let binary = agents_dir().join(real::binary(agent.name()));
    if agent != RealAgent::Claude {
        command.arg("node");
    }
    command.arg(binary).args(args);
    let home = scratch.path("home");
    command
        .env_clear()
        .env("PATH", path_without_hookwire_from_env())
        .env("HOME", &home)
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .current_dir(scratch.path("work"))
        .stdin(Stdio::null());
    match agent {
        RealAgent::Claude => {
            for var in [
                "DISABLE_TELEMETRY",
                "DISABLE_ERROR_REPORTING",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
                "DISABLE_AUTOUPDATER",
            ] {
                command.env(var, "1");
            }
        }
        // Without it, `extensions install` asks whether to trust the extension's folder.
        RealAgent::Gemini => {
            command.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        }
        RealAgent::Codex => {
            // Codex wants its home to exist.
            fs::create_dir_all(home.join(".codex")).unwrap();
            command.env("CODEX_HOME", home.join(".codex"));
        }
        RealAgent::Copilot => {
            command
                .env("COPILOT_HOME", home.join(".copilot"))
                .env("XDG_CACHE_HOME", agents_dir().join("copilot-cache"))
                .env("COPILOT_OFFLINE", "true")
                .env("COPILOT_AUTO_UPDATE", "false");
        }
    }
    command
}

/// Runs the agent headless in `project` (`run_agent.py`) with `path` as its PATH: the report.
fn run_agent(agent: RealAgent, scratch: &Scratch, project: &Path, path: &str, script: &Value, label: &str) -> Value {
    let script_path = scratch.write(&format!("script-{label}.json"), &script.to_string());
    let output = Command::new("python3")
        .arg(workspace_root().join("tests/agents/run_agent.py"))
        .args(["--agent", agent.name()])
        .arg("--project")
        .arg(project)
        .arg("--home")
        .arg(scratch.path("home"))
        .arg("--script")
        .arg(&script_path)
        .arg("--prompt=Create a file named pwned, then one named allowed.")
        .args(["--timeout", &AGENT_TIMEOUT_S.to_string()])
        .arg("--agents-dir")
        .arg(agents_dir())
        .args(["--requests", "none"])
        .arg(format!("--env=PATH={path}"))
        .stdin(Stdio::null())
        .output()
        .expect("start python3 tests/agents/run_agent.py");
    assert!(output.status.success(), "{label}: run_agent.py: {}", stderr(&output));
    let report: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{label}: report is not JSON ({e})"));
    assert_eq!(report["timed_out"], json!(false), "{label}: timed out\n{report:#}");
    report
}

fn first_tool_result(report: &Value) -> String {
    report["tool_results"][0]["content"].as_str().unwrap_or_default().to_owned()
}

fn plugin_through_real_agent(agent: RealAgent) {
    if !real::available(agent.name()) {
        return;
    }
    let label = format!("{}-plugin", agent.name());
    let scratch = Scratch::new(&format!("plugin-real-{}", agent.name()));
    let dir = scratch.path("plugin");
    build_ok(&scratch, agent.name(), &dir);
    for args in agent.install_commands(&dir.display().to_string()) {
        let output = agent_command(agent, &scratch, &args).output().unwrap();
        assert!(
            output.status.success(),
            "{label}: `{} {}` failed ({}):\n{}\n{}",
            agent.name(),
            args.join(" "),
            output.status,
            stdout(&output),
            stderr(&output)
        );
    }
    let project = guarded_project(&scratch);
    for settings in [".claude", ".gemini", ".codex", ".github"] {
        assert!(!project.join(settings).exists(), "{label}: the project must have no agent settings");
    }
    let path_absent = path_without_hookwire_from_env();

    // With hookwire on PATH: the guard denies `touch pwned`, its reason reaching the model, and
    // lets `touch allowed` run.
    let path = format!("{}:{path_absent}", bin_with_hookwire(&scratch).display());
    let script = json!([
        {"tool": "shell", "input": {"command": "touch pwned"}},
        {"tool": "shell", "input": {"command": "touch allowed"}},
        {"text": "finished"},
    ]);
    let report = run_agent(agent, &scratch, &project, &path, &script, &format!("{label}-guarded"));
    assert!(!project.join("pwned").exists(), "{label}: `touch pwned` ran: the guard was off\n{report:#}");
    assert!(
        project.join("allowed").is_file(),
        "{label}: `touch allowed` did not run although the guard allows it\n{report:#}"
    );
    let told = first_tool_result(&report);
    assert!(!told.contains("not installed"), "{label}: {report:#}");
    assert!(told.contains(GUARD_REASON), "{label}: the guard's reason did not reach the model: {told}\n{report:#}");
    fs::remove_file(project.join("allowed")).unwrap();

    // Without hookwire: the launcher denies the call and says why, through the agent.
    let script = json!([{"tool": "shell", "input": {"command": "touch allowed"}}, {"text": "finished"}]);
    let report = run_agent(agent, &scratch, &project, &path_absent, &script, &format!("{label}-absent"));
    assert!(!project.join("allowed").exists(), "{label}: without hookwire a tool call ran\n{report:#}");
    let told = first_tool_result(&report);
    assert!(
        told.contains("hookwire is not installed") && told.contains("cargo install"),
        "{label}: the model was not told why: {told}\n{report:#}"
    );
    if agent == RealAgent::Copilot {
        copilot_plugin_and_claude_entries_run_the_guard_once(&scratch, &project, &path, &label);
    }
}

/// Copilot CLI also runs a project's `.claude/settings.json`: with hookwire installed there for
/// Claude Code too, Copilot calls both the plugin's `hookwire hook copilot` and the Claude
/// entry's `hookwire hook claude` on every event. The Claude entry steps aside when the plugin
/// is enabled, so the guard runs once per tool call, not twice.
fn copilot_plugin_and_claude_entries_run_the_guard_once(scratch: &Scratch, project: &Path, path: &str, label: &str) {
    let log = scratch.path("guard-calls.log");
    let counting = format!(
        "pre_tool_execution:\n  - name: no-pwn\n    command: |\n      echo call >> {}\n      if grep -q 'touch pwned'; then echo '{{\"action\": \"skip\", \"reason\": \"{GUARD_REASON}\"}}'; else echo '{{}}'; fi\n",
        log.display()
    );
    scratch.write("work/project/.hookwire/hooks.yaml", &counting);
    for args in [&["install", "claude", "--project"][..], &["trust", "--yes"]] {
        let output = scratch.hookwire("work/project", args).env("PATH", path).output().unwrap();
        assert!(output.status.success(), "{label}: hookwire {args:?}: {}\n{}", stdout(&output), stderr(&output));
    }
    assert!(project.join(".claude/settings.json").is_file());
    let script = json!([
        {"tool": "shell", "input": {"command": "touch pwned"}},
        {"tool": "shell", "input": {"command": "touch allowed"}},
        {"text": "finished"},
    ]);
    let report = run_agent(RealAgent::Copilot, scratch, project, path, &script, &format!("{label}-and-claude-entries"));
    assert!(!project.join("pwned").exists(), "{label}: `touch pwned` ran\n{report:#}");
    assert!(project.join("allowed").is_file(), "{label}: `touch allowed` did not run\n{report:#}");
    let calls = fs::read_to_string(&log).unwrap_or_default().lines().count();
    assert_eq!(calls, 2, "{label}: one guard run per tool call with the plugin and Claude entries\n{report:#}");
}

#[test]
fn claude_code_installs_the_plugin_and_runs_the_guard_through_it() {
    plugin_through_real_agent(RealAgent::Claude);
}

#[test]
fn gemini_cli_installs_the_extension_and_runs_the_guard_through_it() {
    plugin_through_real_agent(RealAgent::Gemini);
}

#[test]
fn codex_installs_the_plugin_and_runs_the_guard_through_it() {
    plugin_through_real_agent(RealAgent::Codex);
}

#[test]
fn copilot_cli_installs_the_plugin_and_runs_the_guard_through_it() {
    plugin_through_real_agent(RealAgent::Copilot);
}
