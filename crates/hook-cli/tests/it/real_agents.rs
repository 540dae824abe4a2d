//! `hookwire hook claude|gemini|codex` driven by the REAL agents: Claude Code, Codex CLI and
//! Gemini CLI run headless (`tests/agents/run_agent.py`) against a scripted model on 127.0.0.1.
//! Each project's settings file has ONE entry per event, which runs the bridge; the bridge runs
//! the real hooks of an inner settings file (`--settings inner.json`, the same agent's format,
//! fixtures in `tests/fixtures/real_agents/`) and answers as one hook. Every scenario checks what
//! the agent then did: the file system, and what the model was told.
//!
//! The agents are found in `HOOKWIRE_AGENTS_DIR`, else `<workspace>/target/agents`
//! (`tests/agents/install.sh`). When they are not installed each test prints
//! `skipped: real agents not installed (run tests/agents/install.sh)` and passes, unless `CI` is
//! set and `HOOKWIRE_REQUIRE_AGENTS=1`, when it fails. `HOOKWIRE_E2E_KEEP=1` keeps the scenario
//! directories; `HOOKWIRE_E2E_TEE=1` makes every outer entry save the agent's input to the bridge
//! and the bridge's answer next to them (`bridge-<event>-<n>.{in,out,err}`).

#![allow(clippy::print_stderr)]

use std::{
    fs,
    io::Read,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};

use crate::common::real::{agents_dir, available};

/// `run_agent.py --timeout`: the agent is killed after this long.
const AGENT_TIMEOUT_S: u64 = 120;
/// The test gives up on the driver itself a little later.
const DRIVER_DEADLINE: Duration = Duration::from_secs(AGENT_TIMEOUT_S + 30);

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real_agents").join(name);
    assert!(path.is_file(), "missing fixture {}", path.display());
    path
}

/// `text` quoted for `/bin/sh`.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn sh_path(path: &Path) -> String {
    sh_quote(&path.display().to_string())
}

/// `PROGRAM FIXTURE ARGS...`, quoted, as a hook command.
fn fixture_command(program: &str, fixture_name: &str, args: &[&str]) -> String {
    let mut command = format!("{program} {}", sh_path(&fixture(fixture_name)));
    for arg in args {
        command.push(' ');
        command.push_str(&sh_quote(arg));
    }
    command
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    Claude,
    Codex,
    Gemini,
}

impl Agent {
    fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// The project settings file the agent reads its hooks from.
    fn settings_file(self) -> &'static str {
        match self {
            Agent::Claude => ".claude/settings.json",
            Agent::Codex => ".codex/hooks.json",
            Agent::Gemini => ".gemini/settings.json",
        }
    }

    /// A hook timeout of 60 s in the agent's unit.
    fn timeout(self) -> u64 {
        match self {
            Agent::Claude | Agent::Codex => 60,
            Agent::Gemini => 60_000,
        }
    }

    fn pre_tool(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex => "PreToolUse",
            Agent::Gemini => "BeforeTool",
        }
    }

    fn stop(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex => "Stop",
            Agent::Gemini => "AfterAgent",
        }
    }

    fn prompt_submit(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex => "UserPromptSubmit",
            Agent::Gemini => "BeforeAgent",
        }
    }

    /// The name the agent's hooks see for its shell tool.
    fn shell_tool(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex => "Bash",
            Agent::Gemini => "run_shell_command",
        }
    }

    /// One handler of the agent's settings format (Gemini's carries `name`, unique per file).
    fn handler(self, name: &str, command: String) -> Value {
        let mut handler = json!({"type": "command", "command": command, "timeout": self.timeout()});
        if self == Agent::Gemini {
            handler["name"] = json!(name);
        }
        handler
    }
}

/// One scenario: a temporary project, a fresh HOME, an inner settings file holding the real
/// hooks, and the project settings file whose entries run the bridge. Removed on drop.
#[derive(Debug)]
struct Scenario {
    agent: Agent,
    label: String,
    root: PathBuf,
    project: PathBuf,
    home: PathBuf,
    /// event name -> matcher groups of the inner settings file.
    inner: Map<String, Value>,
    /// The file the bridge is given with `--settings` (`inner.json`, written from `inner`).
    inner_path: PathBuf,
}

impl Scenario {
    /// None (after printing why) when the agent is not installed.
    fn new(agent: Agent, label: &str) -> Option<Scenario> {
        if !available(agent.name()) {
            return None;
        }
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "hookwire-real-agents-{}-{}-{}-{label}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            agent.name(),
        ));
        let _ = fs::remove_dir_all(&root);
        let project = root.join("project");
        let home = root.join("home");
        fs::create_dir_all(&project).unwrap();
        fs::create_dir_all(&home).unwrap();
        let inner_path = root.join("inner.json");
        Some(Scenario {
            agent,
            label: format!("{}/{label}", agent.name()),
            root,
            project,
            home,
            inner: Map::new(),
            inner_path,
        })
    }

    fn in_project(&self, relative: &str) -> PathBuf {
        self.project.join(relative)
    }

    fn in_root(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Adds an inner hook (`command` run by the bridge) on `event`, in a group of its own.
    fn hook(&mut self, event: &str, matcher: Option<&str>, command: String) {
        let n = self.inner.values().map(|groups| groups.as_array().map_or(0, Vec::len)).sum::<usize>();
        let mut group = json!({"hooks": [self.agent.handler(&format!("inner-{n}"), command)]});
        if let Some(matcher) = matcher {
            group["matcher"] = json!(matcher);
        }
        self.inner.entry(event.to_owned()).or_insert_with(|| json!([])).as_array_mut().unwrap().push(group);
    }

    /// `python3 FIXTURE ARGS...` as a hook command.
    fn python(&self, fixture_name: &str, args: &[&str]) -> String {
        fixture_command("python3", fixture_name, args)
    }

    /// `sh FIXTURE ARGS...` as a hook command.
    fn sh(&self, fixture_name: &str, args: &[&str]) -> String {
        fixture_command("sh", fixture_name, args)
    }

    /// Writes `inner.json` and the agent's project settings file: ONE entry per inner event,
    /// with no matcher, running `hookwire hook <agent> --no-default-config --settings inner.json`.
    fn write_settings(&self) {
        fs::write(self.in_root("inner.json"), serde_json::to_string_pretty(&json!({"hooks": self.inner})).unwrap())
            .unwrap();
        let bridge = format!(
            "{} hook {} --no-default-config --settings {}",
            sh_path(Path::new(env!("CARGO_BIN_EXE_hookwire"))),
            self.agent.name(),
            sh_path(&self.inner_path),
        );
        let tee = std::env::var("HOOKWIRE_E2E_TEE").as_deref() == Ok("1");
        let mut outer = Map::new();
        for event in self.inner.keys() {
            let command = if tee {
                // Each call gets its own files; the pipeline's status is the bridge's.
                let base = sh_path(&self.in_root(&format!("bridge-{event}")));
                format!(
                    "n=$(date +%s%N); tee {base}-$n.in | {bridge} >{base}-$n.out 2>{base}-$n.err; rc=$?; \
                     cat {base}-$n.out; cat {base}-$n.err >&2; exit $rc"
                )
            } else {
                bridge.clone()
            };
            outer.insert(event.clone(), json!([{"hooks": [self.agent.handler(&format!("bridge-{event}"), command)]}]));
        }
        let settings = self.in_project(self.agent.settings_file());
        fs::create_dir_all(settings.parent().unwrap()).unwrap();
        fs::write(&settings, serde_json::to_string_pretty(&json!({"hooks": outer})).unwrap()).unwrap();
    }

    /// Runs the agent on `prompt` with the model `script`; returns the driver's report.
    fn run(&self, script: Value, prompt: &str, extra_args: &[&str]) -> Report {
        self.write_settings();
        let script_path = self.in_root("script.json");
        fs::write(&script_path, script.to_string()).unwrap();
        let mut command = Command::new("python3");
        command
            .arg(workspace_root().join("tests/agents/run_agent.py"))
            .args(["--agent", self.agent.name()])
            .arg("--project")
            .arg(&self.project)
            .arg("--home")
            .arg(&self.home)
            .arg("--script")
            .arg(&script_path)
            .arg(format!("--prompt={prompt}"))
            .args(["--timeout", &AGENT_TIMEOUT_S.to_string()])
            .arg("--agents-dir")
            .arg(agents_dir())
            .args(["--requests", "main"])
            .args(extra_args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let mut child = command.spawn().expect("start python3 tests/agents/run_agent.py");
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let err_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
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
        let stdout = out_reader.join().unwrap();
        let stderr = err_reader.join().unwrap();
        assert!(status.success(), "{}: run_agent.py failed ({status}):\n{stderr}\n{stdout}", self.label);
        let value: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{}: report is not JSON ({e}):\n{stdout}\n{stderr}", self.label));
        let report = Report { label: self.label.clone(), value };
        eprintln!(
            "[{}] exit {} in {:.1}s (agent {}s), final_text {:?}",
            self.label,
            report.value["exit_code"],
            started.elapsed().as_secs_f64(),
            report.value["elapsed_s"],
            report.final_text(),
        );
        report
    }
}

impl Drop for Scenario {
    fn drop(&mut self) {
        if std::env::var("HOOKWIRE_E2E_KEEP").as_deref() == Ok("1") {
            eprintln!("[{}] kept {}", self.label, self.root.display());
        } else {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// The JSON report of `run_agent.py`.
#[derive(Debug)]
struct Report {
    label: String,
    value: Value,
}

impl Report {
    fn final_text(&self) -> Option<&str> {
        self.value["final_text"].as_str()
    }

    /// `(content, is_error)` of each tool result the model got, in order.
    fn tool_results(&self) -> Vec<(String, Value)> {
        self.value["tool_results"]
            .as_array()
            .map(|results| {
                results
                    .iter()
                    .map(|r| (r["content"].as_str().unwrap_or_default().to_owned(), r["is_error"].clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn extra_messages(&self) -> Vec<String> {
        self.value["extra_messages"]
            .as_array()
            .map(|messages| messages.iter().map(|m| m.as_str().unwrap_or_default().to_owned()).collect())
            .unwrap_or_default()
    }

    /// The bodies of the conversation requests the model got, serialised, in order.
    fn main_requests(&self) -> Vec<String> {
        self.value["requests"]
            .as_array()
            .map(|requests| requests.iter().filter(|r| r["kind"] == "main").map(|r| r["body"].to_string()).collect())
            .unwrap_or_default()
    }

    /// A dump for failure messages: everything but the request bodies.
    fn dump(&self) -> String {
        let mut value = self.value.clone();
        if let Some(requests) = value["requests"].as_array_mut() {
            let n = requests.len();
            value["requests"] = json!(format!("<{n} requests>"));
        }
        if let Some(output) = value.get_mut("agent_output") {
            let text = output.to_string();
            if text.len() > 3000 {
                *output = json!(format!("{}...", &text[..text.floor_char_boundary(3000)]));
            }
        }
        serde_json::to_string_pretty(&value).unwrap()
    }

    /// The run ended normally: not killed, exit 0, and the model's scripted final text.
    fn assert_finished(&self, final_text: &str) {
        assert_eq!(self.value["timed_out"], json!(false), "{}: timed out\n{}", self.label, self.dump());
        assert_eq!(self.value["exit_code"], json!(0), "{}: agent exit code\n{}", self.label, self.dump());
        assert_eq!(self.final_text(), Some(final_text), "{}: final text\n{}", self.label, self.dump());
    }

    fn assert_extra_message_contains(&self, needle: &str) -> String {
        let messages = self.extra_messages();
        let found = messages.iter().find(|m| m.contains(needle)).cloned();
        found.unwrap_or_else(|| {
            panic!("{}: no extra message contains {needle:?}; got {messages:#?}\n{}", self.label, self.dump())
        })
    }
}

fn read_lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path).unwrap_or_default().lines().map(str::to_owned).collect()
}

// ------------------------------------------------------------------------------------------
// 1. Deny: an `rm -rf` validator blocks through the bridge; a harmless command is not blocked.

fn deny_then_allow(agent: Agent) {
    let Some(mut s) = Scenario::new(agent, "deny") else { return };
    fs::create_dir_all(s.in_project("victim")).unwrap();
    fs::write(s.in_project("victim/keep.txt"), "precious").unwrap();
    let seen = s.in_root("commands-seen.jsonl");
    let validator = s.python("deny_rm_rf.py", &[&seen.display().to_string()]);
    s.hook(agent.pre_tool(), Some(agent.shell_tool()), validator);
    let script = json!([
        {"tool": "shell", "input": {"command": "rm -rf ./victim"}},
        {"tool": "shell", "input": {"command": "touch created"}},
        {"text": "finished"},
    ]);
    let report = s.run(script, "Delete the victim directory, then create a file named created.", &[]);
    let results = report.tool_results();
    for (i, (content, is_error)) in results.iter().enumerate() {
        eprintln!("[{}] tool_results[{i}] (is_error {is_error}): {content:?}", s.label);
    }
    report.assert_finished("finished");
    assert_eq!(
        read_lines(&seen),
        [r#""rm -rf ./victim""#, r#""touch created""#],
        "{}: the inner validator did not see both commands",
        s.label
    );
    assert!(s.in_project("victim/keep.txt").is_file(), "{}: victim was deleted despite the deny", s.label);
    assert_eq!(results.len(), 2, "{}: tool results\n{}", s.label, report.dump());
    assert!(
        results[0].0.contains("rm -rf is not allowed"),
        "{}: the model was not told the reason: {:?}",
        s.label,
        results[0].0
    );
    if agent != Agent::Codex {
        // The Responses API has no error flag.
        assert_eq!(results[0].1, json!(true), "{}: the denied call is not an error", s.label);
    }
    assert!(s.in_project("created").is_file(), "{}: `touch created` did not run although allowed", s.label);
    assert!(
        !results[1].0.contains("not allowed"),
        "{}: the allowed call was reported blocked: {:?}",
        s.label,
        results[1].0
    );
}

#[test]
fn claude_deny_then_allow() {
    deny_then_allow(Agent::Claude);
}

#[test]
fn codex_deny_then_allow() {
    deny_then_allow(Agent::Codex);
}

#[test]
fn gemini_deny_then_allow() {
    deny_then_allow(Agent::Gemini);
}

// ------------------------------------------------------------------------------------------
// 2. Stop block once: the turn continues with the reason, then ends (no loop).

fn stop_block_once(agent: Agent) {
    let Some(mut s) = Scenario::new(agent, "stop") else { return };
    let seen = s.in_root("stop-hook-active.jsonl");
    let hook = s.python("stop_once.py", &[&seen.display().to_string()]);
    s.hook(agent.stop(), None, hook);
    let script = json!([{"text": "first answer"}, {"text": "finished"}]);
    let report = s.run(script, "Say something.", &[]);
    let requests = report.main_requests();
    let feedback = report.assert_extra_message_contains("please run the tests");
    eprintln!("[{}] feedback the model got: {feedback:?}", s.label);
    eprintln!("[{}] stop_hook_active seen by the inner hook: {:?}", s.label, read_lines(&seen));
    // Gemini CLI's `-p` JSON response joins the texts of both model answers (so it does with a
    // plain AfterAgent hook, no bridge).
    report.assert_finished(if agent == Agent::Gemini { "first answerfinished" } else { "finished" });
    assert_eq!(
        requests.len(),
        2,
        "{}: expected 2 model requests (answer, continued answer)\n{}",
        s.label,
        report.dump()
    );
    assert!(!requests[0].contains("please run the tests"), "{}: the first request already has the reason", s.label);
    assert!(requests[1].contains("please run the tests"), "{}: the second request lacks the reason", s.label);
    match agent {
        Agent::Claude => assert!(feedback.starts_with("Stop hook feedback:\n"), "{}: {feedback:?}", s.label),
        Agent::Codex => assert!(feedback.contains("<hook_prompt"), "{}: {feedback:?}", s.label),
        Agent::Gemini => {}
    }
    assert_eq!(read_lines(&seen), ["false", "true"], "{}: the inner Stop hook's inputs", s.label);
}

#[test]
fn claude_stop_block_once() {
    stop_block_once(Agent::Claude);
}

#[test]
fn codex_stop_block_once() {
    stop_block_once(Agent::Codex);
}

#[test]
fn gemini_after_agent_block_once() {
    stop_block_once(Agent::Gemini);
}

// ------------------------------------------------------------------------------------------
// 3. Context reaches the model.

#[test]
fn claude_context_from_prompt_submit_and_session_start() {
    let Some(mut s) = Scenario::new(Agent::Claude, "context") else { return };
    let first = s.python("context.py", &["e2e prompt context: the codeword is PELICAN"]);
    let second = s.python("context.py", &["e2e prompt context: the second codeword is OSPREY"]);
    let session = s.sh("plain_stdout.sh", &["e2e session context: the codeword is HERON"]);
    s.hook("UserPromptSubmit", None, first);
    s.hook("UserPromptSubmit", None, second);
    s.hook("SessionStart", None, session);
    let report = s.run(json!([{"text": "finished"}]), "What is the codeword?", &[]);
    for message in report.extra_messages() {
        eprintln!("[{}] extra message: {message:?}", s.label);
    }
    report.assert_finished("finished");
    let prompt = report.assert_extra_message_contains("the codeword is PELICAN");
    assert!(prompt.starts_with("UserPromptSubmit hook additional context: "), "{}: {prompt:?}", s.label);
    // Both inner hooks' contexts come through the one answer.
    report.assert_extra_message_contains("the second codeword is OSPREY");
    report.assert_extra_message_contains("e2e session context: the codeword is HERON");
}

fn prompt_context(agent: Agent) {
    let Some(mut s) = Scenario::new(agent, "context") else { return };
    let first = s.python("context.py", &["e2e prompt context: the codeword is PELICAN"]);
    let second = s.python("context.py", &["e2e prompt context: the second codeword is OSPREY"]);
    s.hook(agent.prompt_submit(), None, first);
    s.hook(agent.prompt_submit(), None, second);
    let report = s.run(json!([{"text": "finished"}]), "What is the codeword?", &[]);
    for message in report.extra_messages() {
        eprintln!("[{}] extra message: {message:?}", s.label);
    }
    report.assert_finished("finished");
    report.assert_extra_message_contains("the codeword is PELICAN");
    report.assert_extra_message_contains("the second codeword is OSPREY");
}

#[test]
fn codex_context_from_prompt_submit() {
    prompt_context(Agent::Codex);
}

#[test]
fn gemini_context_from_before_agent() {
    prompt_context(Agent::Gemini);
}

// ------------------------------------------------------------------------------------------
// 4. updatedInput (Claude): the rewritten command runs, the original does not.

#[test]
fn claude_updated_input() {
    let Some(mut s) = Scenario::new(Agent::Claude, "updated-input") else { return };
    let rewrite = s.python("rewrite_touch.py", &[]);
    s.hook("PreToolUse", Some("Bash"), rewrite);
    let script = json!([{"tool": "shell", "input": {"command": "touch a"}}, {"text": "finished"}]);
    // No tool is pre-allowed: the call runs only because the hook's `allow` comes through.
    let report = s.run(script, "Create a file named a.", &["--allowed-tools="]);
    let results = report.tool_results();
    for (i, (content, is_error)) in results.iter().enumerate() {
        eprintln!("[{}] tool_results[{i}] (is_error {is_error}): {content:?}", s.label);
    }
    report.assert_finished("finished");
    assert!(s.in_project("b").is_file(), "{}: b was not created\n{}", s.label, report.dump());
    assert!(!s.in_project("a").exists(), "{}: a was created: the rewrite was ignored", s.label);
    assert_eq!(results.len(), 1, "{}: tool results", s.label);
    assert_ne!(results[0].1, json!(true), "{}: the rewritten call failed: {:?}", s.label, results[0].0);
}

// ------------------------------------------------------------------------------------------
// 5. SessionStart env file (Claude): an inner hook's exports reach the session's Bash calls.

#[test]
fn claude_session_start_env_file() {
    let Some(mut s) = Scenario::new(Agent::Claude, "env-file") else { return };
    let hook = s.sh("env_file.sh", &[]);
    s.hook("SessionStart", None, hook);
    let script =
        json!([{"tool": "shell", "input": {"command": "echo $HOOKWIRE_E2E > envcheck"}}, {"text": "finished"}]);
    let report = s.run(script, "Record HOOKWIRE_E2E.", &[]);
    let envcheck = fs::read_to_string(s.in_project("envcheck")).unwrap_or_else(|e| format!("<{e}>"));
    eprintln!("[{}] envcheck: {envcheck:?}", s.label);
    report.assert_finished("finished");
    assert_eq!(envcheck.trim(), "yes", "{}: the export did not reach Bash\n{}", s.label, report.dump());
}

// ------------------------------------------------------------------------------------------
// 6. Fail open: an inner hook that crashes does not block the prompt; the hooks after it run.

fn crash_fails_open(agent: Agent) {
    let Some(mut s) = Scenario::new(agent, "crash") else { return };
    let crash = s.python("crash.py", &[]);
    let context = s.python("context.py", &["e2e context after a crashed hook"]);
    s.hook(agent.prompt_submit(), None, crash);
    s.hook(agent.prompt_submit(), None, context);
    let report = s.run(json!([{"text": "finished"}]), "Say hello.", &[]);
    let requests = report.main_requests();
    for message in report.extra_messages() {
        eprintln!("[{}] extra message: {message:?}", s.label);
    }
    eprintln!("[{}] model requests: {}", s.label, requests.len());
    report.assert_finished("finished");
    assert_eq!(requests.len(), 1, "{}: the model did not get the prompt\n{}", s.label, report.dump());
    assert!(requests[0].contains("Say hello."), "{}: the prompt is not in the request", s.label);
    report.assert_extra_message_contains("e2e context after a crashed hook");
    let blocked = report.extra_messages().into_iter().find(|m| m.to_lowercase().contains("blocked"));
    assert!(blocked.is_none(), "{}: a block reached the model: {blocked:?}", s.label);
}

#[test]
fn claude_crashing_hook_fails_open() {
    crash_fails_open(Agent::Claude);
}

#[test]
fn codex_crashing_hook_fails_open() {
    crash_fails_open(Agent::Codex);
}

#[test]
fn gemini_crashing_hook_fails_open() {
    crash_fails_open(Agent::Gemini);
}

// ------------------------------------------------------------------------------------------
// 7. Fail closed: when the bridge cannot load its configuration (a missing `--settings` file),
//    it blocks the prompt (documented: a broken guard must not let the action through).

fn missing_settings_fails_closed(agent: Agent) {
    let Some(mut s) = Scenario::new(agent, "missing-settings") else { return };
    let context = s.python("context.py", &["e2e context that must not arrive"]);
    s.hook(agent.prompt_submit(), None, context);
    s.inner_path = s.in_root("missing.json");
    let report = s.run(json!([{"text": "finished"}]), "Say hello.", &[]);
    let requests = report.main_requests();
    let answer = match agent {
        Agent::Gemini => report.value["agent_output"]["warnings"].to_string(),
        Agent::Claude | Agent::Codex => format!("{:?}", report.final_text()),
    };
    eprintln!("[{}] model requests: {}, agent's answer: {answer}", s.label, requests.len());
    assert_eq!(report.value["timed_out"], json!(false), "{}: timed out\n{}", s.label, report.dump());
    assert_eq!(requests.len(), 0, "{}: the prompt reached the model\n{}", s.label, report.dump());
    match agent {
        Agent::Claude => {
            let text = report.final_text().unwrap_or_default();
            assert!(text.starts_with("UserPromptSubmit operation blocked by hook:"), "{}: {text:?}", s.label);
            assert!(text.contains("missing.json: no such file"), "{}: {text:?}", s.label);
        }
        Agent::Gemini => assert!(answer.contains("Agent execution blocked: --settings"), "{}: {answer}", s.label),
        Agent::Codex => assert_eq!(report.final_text(), None, "{}", s.label),
    }
}

#[test]
fn claude_missing_settings_fails_closed() {
    missing_settings_fails_closed(Agent::Claude);
}

#[test]
fn codex_missing_settings_fails_closed() {
    missing_settings_fails_closed(Agent::Codex);
}

#[test]
fn gemini_missing_settings_fails_closed() {
    missing_settings_fails_closed(Agent::Gemini);
}

// ------------------------------------------------------------------------------------------
// First run: the documented path, in the order a person takes it. `hookwire install <agent>
// --project` writes the agent's settings; the guard is the README's, in `.hookwire/hooks.yaml`;
// `hookwire trust --yes` records the project; then the real agent runs with the home those
// commands used (no `--settings`, no `--config`: discovery and the trust store as a user has them).

/// The README's guard: skips any tool call whose input mentions `rm -rf`.
const README_GUARD: &str = "pre_tool_execution:\n  - name: no-rm-rf\n    command: \"if grep -q 'rm -rf'; then echo '{\\\"action\\\": \\\"skip\\\"}'; else echo '{}'; fi\"\n";

/// The order of a first run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// install → guard → trust.
    InstallFirst,
    /// guard → trust → install.
    TrustFirst,
    /// install → guard → trust, then the guard edited (by the agent, say) before the run.
    EditedAfterTrust,
}

/// A project and a home for one documented first run; removed on drop.
struct FirstRun {
    agent: Agent,
    label: String,
    root: PathBuf,
}

impl FirstRun {
    fn new(agent: Agent, order: Order) -> Option<FirstRun> {
        if !available(agent.name()) {
            return None;
        }
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "hookwire-first-run-{}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            agent.name()
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("project/victim")).unwrap();
        fs::create_dir_all(root.join("home")).unwrap();
        fs::write(root.join("project/victim/keep.txt"), "precious").unwrap();
        Some(FirstRun { agent, label: format!("{}/first-run-{order:?}", agent.name()), root })
    }

    fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    /// `hookwire ARGS` in the project, with the home the agent will have (no XDG variables:
    /// the driver gives the agent none either), which must succeed.
    fn hookwire(&self, args: &[&str]) {
        let output = Command::new(env!("CARGO_BIN_EXE_hookwire"))
            .args(args)
            .current_dir(self.project())
            .env("HOME", self.root.join("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}: hookwire {args:?}:\n{}\n{}",
            self.label,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn guard(&self, text: &str) {
        fs::create_dir_all(self.project().join(".hookwire")).unwrap();
        fs::write(self.project().join(".hookwire/hooks.yaml"), text).unwrap();
    }

    /// The agent asked to `rm -rf victim`, then to `touch created`.
    fn run(&self) -> Report {
        let script = json!([
            {"tool": "shell", "input": {"command": "rm -rf victim"}},
            {"tool": "shell", "input": {"command": "touch created"}},
            {"text": "finished"},
        ]);
        let script_path = self.root.join("script.json");
        fs::write(&script_path, script.to_string()).unwrap();
        let output = Command::new("python3")
            .arg(workspace_root().join("tests/agents/run_agent.py"))
            .args(["--agent", self.agent.name()])
            .arg("--project")
            .arg(self.project())
            .arg("--home")
            .arg(self.root.join("home"))
            .arg("--script")
            .arg(&script_path)
            .arg("--prompt=Delete the victim directory, then create a file named created.")
            .args(["--timeout", &AGENT_TIMEOUT_S.to_string()])
            .arg("--agents-dir")
            .arg(agents_dir())
            .args(["--requests", "main"])
            .stdin(Stdio::null())
            .output()
            .expect("start python3 tests/agents/run_agent.py");
        assert!(output.status.success(), "{}: run_agent.py: {}", self.label, String::from_utf8_lossy(&output.stderr));
        let value: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{}: report is not JSON ({e})", self.label));
        Report { label: self.label.clone(), value }
    }
}

impl Drop for FirstRun {
    fn drop(&mut self) {
        if std::env::var("HOOKWIRE_E2E_KEEP").as_deref() == Ok("1") {
            eprintln!("[{}] kept {}", self.label, self.root.display());
        } else {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

fn documented_first_run(agent: Agent, order: Order) {
    let Some(run) = FirstRun::new(agent, order) else { return };
    match order {
        Order::InstallFirst | Order::EditedAfterTrust => {
            run.hookwire(&["install", agent.name(), "--project"]);
            run.guard(README_GUARD);
            run.hookwire(&["trust", "--yes"]);
        }
        Order::TrustFirst => {
            run.guard(README_GUARD);
            run.hookwire(&["trust", "--yes"]);
            run.hookwire(&["install", agent.name(), "--project"]);
        }
    }
    if order == Order::EditedAfterTrust {
        run.guard(&README_GUARD.replace("rm -rf", "rm -fr"));
    }
    let report = run.run();
    let results = report.tool_results();
    assert_eq!(report.value["timed_out"], json!(false), "{}: timed out\n{}", run.label, report.dump());
    assert!(
        run.project().join("victim/keep.txt").is_file(),
        "{}: `rm -rf victim` ran: the guard was off\n{}",
        run.label,
        report.dump()
    );
    assert!(!results.is_empty(), "{}: the model got no tool result\n{}", run.label, report.dump());
    if order == Order::EditedAfterTrust {
        // Not silently: what the model (Gemini, Codex) or the person (Claude Code's ask) is told
        // names the change and the command.
        let told = format!("{}{}", results[0].0, report.value["agent_output"]);
        assert!(
            told.contains("held back") || agent == Agent::Claude,
            "{}: the refusal does not say why: {told}\n{}",
            run.label,
            report.dump()
        );
    } else {
        assert!(
            run.project().join("created").is_file(),
            "{}: `touch created` did not run although the guard allows it\n{}",
            run.label,
            report.dump()
        );
    }
}

#[test]
fn claude_first_run_install_then_guard_then_trust() {
    documented_first_run(Agent::Claude, Order::InstallFirst);
}

#[test]
fn claude_first_run_guard_trust_then_install() {
    documented_first_run(Agent::Claude, Order::TrustFirst);
}

#[test]
fn claude_first_run_guard_edited_after_trust() {
    documented_first_run(Agent::Claude, Order::EditedAfterTrust);
}

#[test]
fn gemini_first_run_install_then_guard_then_trust() {
    documented_first_run(Agent::Gemini, Order::InstallFirst);
}

#[test]
fn gemini_first_run_guard_trust_then_install() {
    documented_first_run(Agent::Gemini, Order::TrustFirst);
}

#[test]
fn gemini_first_run_guard_edited_after_trust() {
    documented_first_run(Agent::Gemini, Order::EditedAfterTrust);
}

#[test]
fn codex_first_run_install_then_guard_then_trust() {
    documented_first_run(Agent::Codex, Order::InstallFirst);
}

#[test]
fn codex_first_run_guard_trust_then_install() {
    documented_first_run(Agent::Codex, Order::TrustFirst);
}

#[test]
fn codex_first_run_guard_edited_after_trust() {
    documented_first_run(Agent::Codex, Order::EditedAfterTrust);
}
