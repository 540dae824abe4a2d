//! `hookwire serve` and the bridge through it: real daemon processes of the real binary, in
//! sandboxes with their own `HOME` and `XDG_RUNTIME_DIR`. The configuration has a Python
//! PicoClaw process hook (`tests/fixtures/daemon/counter.py`) that counts the tool calls it has
//! seen, so an answer tells which process answered: a daemon's that lives on, or a fresh one.

use std::{
    collections::BTreeSet,
    fs,
    io::{BufRead, BufReader, Write},
    ops::Deref,
    os::unix::{fs::PermissionsExt, net::UnixStream},
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    thread,
    time::{Duration, Instant},
};

use hook_protocol::daemon::{BridgeResult, CheckResult, FireResult, StatsResult};
use serde_json::{Value, json};

use crate::common::{Scratch, python};

/// How long any wait of these tests may last before it fails.
const PATIENCE: Duration = Duration::from_secs(10);

// ----------------------------------------------------------------------------------------------
// The sandbox.

/// `project/` (the agent's directory, a project with a `.hookwire/` marker), `home/`, `run/`
/// (`XDG_RUNTIME_DIR`), and `conf/` with the hook configuration: `picoclaw.json` (the counter
/// process hook) and `settings.json` (Claude Code command hooks).
struct Sandbox(Scratch);

impl Deref for Sandbox {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

impl Sandbox {
    fn new() -> Sandbox {
        let scratch = Scratch::new("daemon");
        let root = scratch.root().to_path_buf();
        for dir in ["project/.hookwire", "home", "run", "conf"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        fs::set_permissions(root.join("run"), fs::Permissions::from_mode(0o700)).unwrap();
        let sandbox = Sandbox(scratch);
        let counter = fixture("counter.py");
        sandbox.write(
            "conf/picoclaw.json",
            &json!({"hooks": {"processes": {"counter": {
                "enabled": true,
                "command": [python(), counter, sandbox.path("conf/pids"), sandbox.path("conf/calls")],
                "intercept": ["before_tool"],
            }}}})
            .to_string(),
        );
        sandbox.settings("v1");
        sandbox
    }

    fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// Claude Code settings: context `text` on every prompt; on SessionStart, a hook that writes
    /// to `CLAUDE_ENV_FILE`.
    fn settings(&self, text: &str) {
        let context = json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}});
        self.write(
            "conf/settings.json",
            &serde_json::to_string_pretty(&json!({"hooks": {
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": format!("echo '{context}'")}]}],
                "SessionStart": [{"hooks": [{"type": "command", "command": format!("sh {}", fixture("env_file.sh").display())}]}],
            }}))
            .unwrap(),
        );
    }

    /// A `hookwire` command in the project with the sandbox's environment only.
    fn hookwire(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookwire"));
        command.args(args);
        self.environment(&mut command);
        command
    }

    /// Runs `command` in the project with the sandbox's environment only.
    fn environment(&self, command: &mut Command) {
        command
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("TMPDIR", std::env::temp_dir())
            .env("CLAUDE_PROJECT_DIR", self.project())
            // A daemon a failed test leaves behind goes away on its own.
            .env("HOOKWIRE_IDLE_TIMEOUT", "60");
    }

    /// `hookwire hook claude` over the sandbox's configuration.
    fn bridge(&self, extra: &[&str]) -> Command {
        let (picoclaw, settings) = (self.path("conf/picoclaw.json"), self.path("conf/settings.json"));
        let mut args = vec!["hook", "claude", "--no-default-config", "--config"];
        args.push(picoclaw.to_str().unwrap());
        args.push("--settings");
        args.push(settings.to_str().unwrap());
        args.extend(extra);
        self.hookwire(&args)
    }

    /// Runs `command` with `stdin`, within [`PATIENCE`].
    fn run(&self, command: Command, stdin: &str) -> Answer {
        let child = spawn_with_stdin(command, stdin);
        let output = wait_output(child);
        Answer {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// The bridge's answer to a PreToolUse of `tool` with `input`.
    fn pre_tool_use(&self, tool: &str, tool_input: Value, extra: &[&str]) -> Answer {
        self.run(self.bridge(extra), &input("PreToolUse", json!({"tool_name": tool, "tool_input": tool_input})))
    }

    fn socket(&self) -> PathBuf {
        let output = self.hookwire(&["serve", "--print-socket"]).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    }

    /// The running daemon's pid, from its pid file.
    fn daemon_pid(&self) -> Option<i32> {
        fs::read_to_string(self.socket().with_extension("pid")).ok()?.trim().parse().ok()
    }

    fn log(&self) -> String {
        fs::read_to_string(self.socket().with_extension("log")).unwrap_or_default()
    }

    /// One request to the daemon; the whole response.
    fn request(&self, method: &str, params: Value) -> Value {
        let mut stream = UnixStream::connect(self.socket()).expect("the daemon listens");
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let request = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        stream.write_all(format!("{request}\n").as_bytes()).unwrap();
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).unwrap();
        let response: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        assert_eq!(response["id"], 7, "{response}");
        response
    }

    /// Pids the counter hook wrote at start, in order.
    fn hook_pids(&self) -> Vec<i32> {
        fs::read_to_string(self.path("conf/pids")).unwrap_or_default().lines().filter_map(|l| l.parse().ok()).collect()
    }

    /// Stops the daemon (if one runs) and waits until it is gone.
    fn stop_daemon(&self) {
        let Some(pid) = self.daemon_pid() else { return };
        if let Ok(mut stream) = UnixStream::connect(self.socket()) {
            let _ = stream.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\n");
        }
        if !wait_until(|| !is_running(pid)) {
            kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.stop_daemon();
        for pid in self.hook_pids() {
            kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// The bridge's answer: what the agent reads.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }

    /// The reason of a PreToolUse deny.
    fn deny_reason(&self) -> String {
        let answer = self.json();
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{self:?}");
        answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().to_owned()
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/daemon").join(name)
}

/// A Claude Code hook input of `event` with `fields`, as the agent writes it.
fn input(event: &str, fields: Value) -> String {
    let mut object = json!({
        "session_id": "0f4c5b8e-2d7a-4c1e-9b3f-6a8d2e1c7b90",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": event,
    });
    object.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    format!("{object}\n")
}

fn spawn_with_stdin(mut command: Command, stdin: &str) -> Child {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child
}

fn wait_output(child: Child) -> Output {
    let pid = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    match receiver.recv_timeout(PATIENCE) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            kill(pid as i32, nix::sys::signal::Signal::SIGKILL);
            panic!("hookwire did not finish within {PATIENCE:?}");
        }
    }
}

fn kill(pid: i32, signal: nix::sys::signal::Signal) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
}

/// Whether `pid` is a live process (a zombie is not: PID 1 here may not reap orphans).
fn is_running(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Polls `condition` until it holds or [`PATIENCE`] passes.
fn wait_until(mut condition: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + PATIENCE;
    while Instant::now() < until {
        if condition() {
            return true;
        }
        thread::sleep(Duration::from_millis(20));
    }
    condition()
}

/// Live processes whose command line is `hookwire serve ...` for `root`.
fn serve_processes(root: &Path) -> Vec<i32> {
    let root = root.to_str().unwrap();
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let words: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            words.get(1) == Some(&&b"serve"[..]) && words.contains(&root.as_bytes()) && is_running(*pid)
        })
        .collect()
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

// ----------------------------------------------------------------------------------------------
// The tests.

#[test]
fn the_first_call_starts_the_daemon_which_keeps_the_hooks_state() {
    let sandbox = Sandbox::new();
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 2");
    assert_eq!(sandbox.hook_pids().len(), 1, "one process hook served both calls");
    let pid = sandbox.daemon_pid().expect("a daemon runs");
    assert!(is_running(pid));

    let socket = sandbox.socket();
    assert_eq!(socket.parent().unwrap(), sandbox.path("run/hookwire"));
    assert_eq!(mode(&socket), 0o600, "the socket is the user's alone");
    assert_eq!(mode(socket.parent().unwrap()), 0o700, "so is its directory");

    let stats: StatsResult = serde_json::from_value(sandbox.request("stats", json!({}))["result"].clone()).unwrap();
    assert_eq!(stats.pid as i32, pid);
    let counter =
        stats.configurations.iter().flat_map(|c| &c.hooks).find(|h| h.id == "user:counter:pre_tool_execution");
    assert_eq!(counter.map(|h| h.executions), Some(2), "{stats:?}");
    assert!(sandbox.log().contains("serving"), "{}", sandbox.log());
}

#[test]
fn answers_are_the_same_with_and_without_the_daemon() {
    let sandbox = Sandbox::new();
    let cases = [
        ("a deny", input("PreToolUse", json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}))),
        ("a context", input("UserPromptSubmit", json!({"prompt": "hello"}))),
        ("no decision", input("PreToolUse", json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}))),
        ("no hook on the event", input("Stop", json!({"stop_hook_active": false}))),
        ("not a hook input", "{\"hook_event_name\": \"NoSuchEvent\"}\n".to_owned()),
    ];
    // The first call starts the daemon; every case below then goes through it.
    sandbox.run(sandbox.bridge(&[]), &cases[0].1);
    assert!(sandbox.daemon_pid().is_some());
    for (name, stdin) in &cases {
        let through_daemon = sandbox.run(sandbox.bridge(&[]), stdin);
        let in_process = sandbox.run(sandbox.bridge(&["--no-daemon"]), stdin);
        assert_eq!(through_daemon, in_process, "{name}");
    }
    let deny = sandbox.run(sandbox.bridge(&[]), &cases[0].1);
    assert_eq!(deny.deny_reason(), "no rm -rf");
    let context = sandbox.run(sandbox.bridge(&[]), &cases[1].1);
    assert_eq!(context.json()["hookSpecificOutput"]["additionalContext"], "v1");
    assert_eq!(
        sandbox.run(sandbox.bridge(&[]), &cases[2].1),
        Answer { code: 0, stdout: String::new(), stderr: String::new() }
    );
    let stats = sandbox.request("stats", json!({}));
    assert!(stats["result"]["requests"].as_u64().unwrap() >= 8, "{stats}");
}

#[test]
fn an_edit_reloads_and_a_bad_edit_keeps_the_previous_hooks() {
    let sandbox = Sandbox::new();
    let prompt = input("UserPromptSubmit", json!({"prompt": "hello"}));
    let context = |answer: &Answer| answer.json()["hookSpecificOutput"]["additionalContext"].clone();
    assert_eq!(context(&sandbox.run(sandbox.bridge(&[]), &prompt)), "v1");
    let pid = sandbox.daemon_pid().unwrap();

    sandbox.settings("v2");
    assert!(wait_until(|| context(&sandbox.run(sandbox.bridge(&[]), &prompt)) == "v2"), "the edit is picked up");

    // A typo in an event name: the file does not load, the hooks read before stay.
    let broken =
        fs::read_to_string(sandbox.path("conf/settings.json")).unwrap().replace("UserPromptSubmit", "UserPromptSubmt");
    sandbox.write("conf/settings.json", &broken);
    let reported = || {
        let check: CheckResult = serde_json::from_value(sandbox.request("check", json!({}))["result"].clone()).unwrap();
        !check.valid
    };
    assert!(wait_until(reported), "check reports the bad edit");
    let answer = sandbox.run(sandbox.bridge(&[]), &prompt);
    assert_eq!(context(&answer), "v2", "{answer:?}");
    assert!(answer.stderr.contains("does not load"), "{answer:?}");
    assert!(answer.stderr.contains("UserPromptSubmt"), "{answer:?}");
    let check = sandbox.request("check", json!({}));
    let bridge =
        check["result"]["configurations"].as_array().unwrap().iter().find(|c| c["agent"] == "claude").unwrap().clone();
    assert_eq!(bridge["loaded"], true);
    assert!(bridge["errors"][0].as_str().unwrap().contains("UserPromptSubmt"), "{bridge}");
    assert!(bridge["hooks"]["pre_send_message"].as_array().is_some_and(|ids| !ids.is_empty()), "{bridge}");
    assert!(sandbox.log().contains("the previous hooks stay in force"), "{}", sandbox.log());
    assert_eq!(sandbox.daemon_pid(), Some(pid), "the same daemon throughout");
}

#[test]
fn a_stale_socket_is_replaced() {
    let sandbox = Sandbox::new();
    let socket = sandbox.socket();
    fs::create_dir_all(socket.parent().unwrap()).unwrap();
    fs::set_permissions(socket.parent().unwrap(), fs::Permissions::from_mode(0o700)).unwrap();
    // A socket whose daemon is gone: the file stays, connecting is refused. A child process
    // binds it and exits: a listener bound here could be held open for a moment by another
    // test's child forked before its exec, and answer the connect below.
    let status = Command::new("python3")
        .args(["-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])"])
        .arg(&socket)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(socket.exists());
    assert!(UnixStream::connect(&socket).is_err());

    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    assert!(UnixStream::connect(&socket).is_ok(), "a new daemon listens");
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 2");
    assert!(sandbox.log().contains("removing the stale socket"), "{}", sandbox.log());
}

#[test]
fn the_daemon_exits_when_idle_and_removes_its_socket() {
    let sandbox = Sandbox::new();
    let mut daemon = sandbox.hookwire(&["serve", "--idle-timeout", "0.5"]).stderr(Stdio::null()).spawn().unwrap();
    let socket = sandbox.socket();
    assert!(wait_until(|| UnixStream::connect(&socket).is_ok()), "the daemon listens");
    let started = Instant::now();
    assert!(wait_output_status(&mut daemon).success());
    assert!(started.elapsed() >= Duration::from_millis(300), "{:?}", started.elapsed());
    assert!(!socket.exists(), "the socket is removed");
    assert!(!socket.with_extension("pid").exists());
    assert!(sandbox.log().contains("idle"), "{}", sandbox.log());
}

#[test]
fn two_concurrent_first_calls_start_one_daemon() {
    let sandbox = Sandbox::new();
    let stdin = input("PreToolUse", json!({"tool_name": "Count", "tool_input": {}}));
    let children: Vec<Child> = (0..2).map(|_| spawn_with_stdin(sandbox.bridge(&[]), &stdin)).collect();
    let reasons: BTreeSet<String> = children
        .into_iter()
        .map(|child| {
            let output = wait_output(child);
            let answer = Answer {
                code: output.status.code().unwrap_or(-1),
                stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            };
            answer.deny_reason()
        })
        .collect();
    assert_eq!(reasons, BTreeSet::from(["call 1".to_owned(), "call 2".to_owned()]), "one hook process, one daemon");
    assert!(wait_until(|| serve_processes(&sandbox.project()).len() == 1), "{:?}", serve_processes(&sandbox.project()));
    assert_eq!(sandbox.hook_pids().len(), 1);
}

#[test]
fn a_daemon_killed_mid_call_leaves_the_caller_a_refusal_and_runs_no_hook_twice() {
    let sandbox = Sandbox::new();
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    let pid = sandbox.daemon_pid().unwrap();
    let slow =
        spawn_with_stdin(sandbox.bridge(&[]), &input("PreToolUse", json!({"tool_name": "Slow", "tool_input": {}})));
    // Killed while its hook is busy with the call (it answers after 1.5 s).
    let calls = || fs::read_to_string(sandbox.path("conf/calls")).unwrap_or_default();
    assert!(wait_until(|| calls().lines().any(|tool| tool == "Slow")), "{}", calls());
    kill(pid, nix::sys::signal::Signal::SIGKILL);
    let output = wait_output(slow);
    assert_eq!(output.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    // The hook had the call: it is not run a second time in the caller's process. The tool
    // call is refused, with what happened and what to do.
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default();
    assert!(reason.contains("stopped answering mid-call") && reason.contains("--no-daemon"), "{answer}");
    assert_eq!(calls().lines().filter(|tool| *tool == "Slow").count(), 1, "the hook ran twice: {}", calls());
    // The next call finds the dead daemon's socket and starts a new one.
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    assert_ne!(sandbox.daemon_pid(), Some(pid));
}

#[test]
fn no_hook_process_outlives_the_daemon() {
    let sandbox = Sandbox::new();
    // Stopped by its `shutdown` method.
    sandbox.pre_tool_use("Count", json!({}), &[]);
    let (daemon, hook) = (sandbox.daemon_pid().unwrap(), sandbox.hook_pids()[0]);
    assert!(is_running(hook));
    let response = sandbox.request("shutdown", Value::Null);
    assert_eq!(response["result"]["stopping"], true, "{response}");
    assert!(wait_until(|| !is_running(daemon)), "the daemon exits");
    assert!(!is_running(hook), "the hook process {hook} is gone with its daemon");
    assert!(!sandbox.socket().exists());

    // Stopped by SIGTERM.
    sandbox.pre_tool_use("Count", json!({}), &[]);
    let (daemon, hook) = (sandbox.daemon_pid().unwrap(), sandbox.hook_pids()[1]);
    kill(daemon, nix::sys::signal::Signal::SIGTERM);
    assert!(wait_until(|| !is_running(daemon)), "the daemon exits on SIGTERM");
    assert!(!is_running(hook), "the hook process {hook} is gone with its daemon");
    assert!(!sandbox.socket().exists(), "{}", sandbox.log());
    assert!(sandbox.log().contains("stopping (SIGTERM)"), "{}", sandbox.log());
}

#[test]
fn a_session_start_hook_gets_the_callers_env_file() {
    let sandbox = Sandbox::new();
    sandbox.pre_tool_use("Count", json!({}), &[]);
    assert!(sandbox.daemon_pid().is_some());
    let env_file = sandbox.write("conf/session.env", "");
    let mut command = sandbox.bridge(&[]);
    command.env("CLAUDE_ENV_FILE", &env_file);
    let answer = sandbox.run(command, &input("SessionStart", json!({"source": "startup"})));
    assert_eq!(answer.code, 0, "{answer:?}");
    assert_eq!(fs::read_to_string(&env_file).unwrap(), "export FROM_HOOK=1\n");
}

#[test]
fn a_python_host_fires_through_the_daemon() {
    let sandbox = Sandbox::new();
    // A user-level hooks file: what a host's plain `fire` runs.
    sandbox.write(
        "home/.config/hookwire/hooks.yaml",
        "pre_tool_execution:\n  - name: no-rm-rf\n    command: \"if grep -q 'rm -rf'; then echo '{\\\"action\\\": \\\"skip\\\"}'; else echo '{}'; fi\"\n",
    );
    let context = r#"{"tool_name": "Bash", "tool_arguments": {"command": "rm -rf /"}}"#;
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/python_client.py");
    let mut host = Command::new(python());
    host.arg(&client).args(["pre_tool_execution", context]);
    sandbox.environment(&mut host);
    host.env("HOOKWIRE", env!("CARGO_BIN_EXE_hookwire"));
    let from_python = wait_output(host.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap());
    assert!(from_python.status.success(), "{}", String::from_utf8_lossy(&from_python.stderr));
    assert!(sandbox.daemon_pid().is_some(), "the client started the daemon");
    let from_cli =
        sandbox.run(sandbox.hookwire(&["fire", "pre_tool_execution", "--context", "-", "--format", "json"]), context);
    assert_eq!(from_cli.code, 0, "{from_cli:?}");

    let typed: FireResult = serde_json::from_slice(&from_python.stdout).unwrap();
    assert_eq!(typed.trace[0].id, "user:no-rm-rf:pre_tool_execution");
    let without_durations = |text: &[u8]| {
        let mut value: Value = serde_json::from_slice(text).unwrap();
        for entry in value["trace"].as_array_mut().unwrap() {
            entry.as_object_mut().unwrap().remove("duration_ms");
        }
        value
    };
    let (from_python, from_cli) =
        (without_durations(&from_python.stdout), without_durations(from_cli.stdout.as_bytes()));
    assert_eq!(from_python, from_cli);
    assert_eq!(from_python["action"], "skip");
}

#[test]
fn the_socket_speaks_json_rpc() {
    let sandbox = Sandbox::new();
    let mut daemon = sandbox.hookwire(&["serve"]).stderr(Stdio::null()).spawn().unwrap();
    assert!(wait_until(|| UnixStream::connect(sandbox.socket()).is_ok()));
    let (picoclaw, settings) = (sandbox.path("conf/picoclaw.json"), sandbox.path("conf/settings.json"));
    let bridge = sandbox.request(
        "fire",
        json!({
            "agent": "claude",
            "input": serde_json::from_str::<Value>(&input("PreToolUse", json!({"tool_name": "Count", "tool_input": {}}))).unwrap(),
            "configs": [picoclaw],
            "settings": [settings],
            "no_default_config": true,
        }),
    );
    let result: BridgeResult =
        serde_json::from_value(bridge["result"].clone()).unwrap_or_else(|e| panic!("{e}: {bridge}"));
    assert_eq!(result.exit_code, 0);
    assert!(result.stdout.contains("call 1"), "{result:?}");

    let unknown = sandbox.request("fires", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let bad_event = sandbox.request("fire", json!({"event": "pre_tool_use_typo"}));
    assert_eq!(bad_event["error"]["code"], -32602, "{bad_event}");
    let no_agent = sandbox.request("fire", json!({"input": {}}));
    assert_eq!(no_agent["error"]["code"], -32602, "{no_agent}");

    // Garbage gets a parse error, and the connection still serves.
    let mut stream = UnixStream::connect(sandbox.socket()).unwrap();
    stream.write_all(b"not json\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"stats\"}\n").unwrap();
    let mut lines = BufReader::new(stream).lines();
    // Answers come as requests complete, in any order.
    let mut answers: Vec<Value> =
        (0..2).map(|_| serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap()).collect();
    answers.sort_by_key(|answer| answer["id"].as_i64().unwrap_or(0));
    assert_eq!(answers[0]["error"]["code"], -32700, "{answers:?}");
    assert_eq!(answers[1]["id"], 2, "{answers:?}");
    assert_eq!(answers[1]["result"]["pid"], daemon.id(), "{answers:?}");

    sandbox.request("shutdown", json!({}));
    assert!(wait_output_status(&mut daemon).success());
}

/// Waits for `child` to exit, within [`PATIENCE`].
fn wait_output_status(child: &mut Child) -> std::process::ExitStatus {
    let until = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < until, "the daemon did not exit");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_directory_others_may_enter_is_refused() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path("run/hookwire");
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let serve = sandbox.run(sandbox.hookwire(&["serve"]), "");
    assert_eq!(serve.code, 2, "{serve:?}");
    assert!(serve.stderr.contains("open to other users"), "{serve:?}");
    // The bridge does not use it, and answers from its own process.
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    assert!(!sandbox.socket().exists());
}

#[test]
fn trust_is_checked_again_on_reload() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "project/.hookwire/hooks.yaml",
        "pre_tool_execution:\n  - name: no-ls\n    command: \"echo '{\\\"action\\\": \\\"skip\\\"}'\"\n",
    );
    let picoclaw = sandbox.path("conf/picoclaw.json");
    // The project's own configuration too: no --no-default-config.
    let call = || {
        let command = sandbox.hookwire(&["hook", "claude", "--config", picoclaw.to_str().unwrap()]);
        sandbox.run(command, &input("PreToolUse", json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})))
    };
    let untrusted = call();
    // Held back, the guard did not run: Claude Code is asked to ask the person.
    assert!(untrusted.stdout.contains("\"permissionDecision\":\"ask\""), "{untrusted:?}");
    assert!(
        untrusted.stdout.contains("not trusted yet") && untrusted.stdout.contains("hookwire trust"),
        "{untrusted:?}"
    );
    assert!(untrusted.stderr.contains("hookwire trust"), "{untrusted:?}");
    assert!(sandbox.daemon_pid().is_some());

    let trust = sandbox.run(sandbox.hookwire(&["trust", "--yes"]), "");
    assert_eq!(trust.code, 0, "{trust:?}");
    assert!(wait_until(|| call().stdout.contains("\"deny\"")), "the trusted hook runs after the reload");

    // A change to the trusted file withdraws the trust.
    sandbox.write(
        "project/.hookwire/hooks.yaml",
        "pre_tool_execution:\n  - name: no-ls\n    command: \"echo '{\\\"action\\\": \\\"skip\\\"}' # changed\"\n",
    );
    assert!(
        wait_until(|| {
            let stdout = call().stdout;
            stdout.contains("\"ask\"") && stdout.contains("changed since it was trusted")
        }),
        "the changed file is not trusted, and the person is asked"
    );
}

/// The state letter of `pid` in `/proc/<pid>/stat` (`R`, `S`, `T`...).
fn process_state(pid: i32) -> Option<char> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

#[test]
fn a_stopped_daemon_gets_a_refusal_and_no_hook_runs_twice() {
    let sandbox = Sandbox::new();
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    let pid = sandbox.daemon_pid().expect("a daemon runs");
    kill(pid, nix::sys::signal::Signal::SIGSTOP);
    assert!(wait_until(|| process_state(pid) == Some('T')), "the daemon stops");

    // Within PATIENCE, or `run` fails: the bridge must not wait for the agent to kill it.
    let started = Instant::now();
    let answer = sandbox.pre_tool_use("Count", json!({}), &[]);
    let waited = started.elapsed();
    kill(pid, nix::sys::signal::Signal::SIGCONT);
    assert!(waited < PATIENCE, "{waited:?}");
    let reason = if answer.code == 2 { answer.stderr.clone() } else { answer.deny_reason() };
    assert!(reason.contains("did not answer") && reason.contains("stopped"), "{answer:?}");
    assert!(reason.contains(&format!("kill -CONT {pid}")), "the reason says how to fix it: {answer:?}");

    // Resumed, the daemon may still read the request the bridge left and run the hook once; the
    // bridge itself ran nothing: no second counter process, no second run.
    thread::sleep(Duration::from_millis(500));
    assert_eq!(sandbox.hook_pids().len(), 1, "the bridge started no hook of its own");
    let calls = fs::read_to_string(sandbox.path("conf/calls")).unwrap_or_default();
    assert!(calls.lines().filter(|l| *l == "Count").count() <= 2, "{calls}");
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).code, 0, "the resumed daemon answers again");
}

#[test]
fn the_daemons_bridge_fires_and_a_hosts_socket_fires_are_recorded_with_their_origin() {
    let sandbox = Sandbox::new();
    // The bridge starts the daemon; the fire is the daemon's, not this process's.
    assert_eq!(sandbox.pre_tool_use("Count", json!({}), &[]).deny_reason(), "call 1");
    assert!(sandbox.daemon_pid().is_some());
    // A host's plain fire over the socket (what `serve` answers for any language).
    let plain = sandbox.request(
        "fire",
        json!({
            "event": "pre_tool_execution",
            "context": {"tool_name": "Count", "tool_arguments": {}},
            "configs": [sandbox.path("conf/picoclaw.json")],
            "no_default_config": true,
        }),
    );
    assert!(plain["result"].is_object(), "{plain}");
    sandbox.stop_daemon();

    let log = sandbox.run(sandbox.hookwire(&["log", "--format", "json", "-n", "10"]), "");
    assert_eq!(log.code, 0, "{log:?}");
    let fires: Vec<Value> = log.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let origins: Vec<&str> = fires.iter().map(|fire| fire["origin"].as_str().unwrap_or("?")).collect();
    assert!(origins.contains(&"daemon"), "the bridge's fire through the daemon: {fires:#?}");
    assert!(origins.contains(&"serve"), "the host's fire over the socket: {fires:#?}");
    let daemon = fires.iter().find(|fire| fire["origin"] == "daemon").unwrap();
    assert_eq!(daemon["agent"], "claude", "{daemon:#}");
    assert_eq!(daemon["verdict"], "deny", "{daemon:#}");
    assert_eq!(daemon["reason"], "call 1", "{daemon:#}");
    let text = daemon.to_string();
    assert!(text.contains("user:counter:pre_tool_execution"), "the hook that decided: {daemon:#}");
}
