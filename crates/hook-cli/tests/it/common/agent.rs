//! `hookwire hook <agent>` as the agents run it: a project with agent-format hooks, the
//! environment an agent gives its hooks, the input written as the agents write it, and the
//! answer read as they read it.

use std::{
    fs,
    io::Write,
    ops::Deref,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{OnceLock, mpsc},
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};

use super::{Scratch, chmod};

/// The longest any one bridge run may take before the test kills it and fails.
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(60);

/// A scratch directory holding `project/` (the agent's session directory), `home/` (a fresh
/// `HOME`), `run/` (`XDG_RUNTIME_DIR`, where hookwire keeps its state) and `settings/` (agent
/// settings files handed over with `--settings`).
pub(crate) struct AgentProject {
    scratch: Scratch,
    session_id: &'static str,
}

impl Deref for AgentProject {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.scratch
    }
}

impl AgentProject {
    /// A new project for the session `session_id`, with `hooks` (a fixture directory) copied
    /// into `.claude/hooks/`, `.gemini/hooks/` and `.codex/hooks/`.
    pub(crate) fn new(tag: &str, session_id: &'static str, hooks: &Path) -> AgentProject {
        let project = AgentProject { scratch: Scratch::new(tag), session_id };
        for dir in ["project", "run", "settings"] {
            fs::create_dir_all(project.path(dir)).unwrap();
        }
        for agent_dir in [".claude", ".gemini", ".codex"] {
            copy_tree(hooks, &project.project().join(agent_dir).join("hooks"));
        }
        project
    }

    /// The session id the agent's environment and inputs carry.
    pub(crate) fn session_id(&self) -> &'static str {
        self.session_id
    }

    pub(crate) fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// The project directory as the agents write it in `cwd` and `CLAUDE_PROJECT_DIR`.
    pub(crate) fn project_str(&self) -> String {
        self.project().display().to_string()
    }

    /// A file of the project (relative to it).
    pub(crate) fn project_file(&self, relative: &str) -> PathBuf {
        self.project().join(relative)
    }

    pub(crate) fn read_project_file(&self, relative: &str) -> Option<String> {
        fs::read_to_string(self.project_file(relative)).ok()
    }

    /// An agent settings file (for `--settings`), outside the project.
    pub(crate) fn settings(&self, name: &str, settings: &Value) -> PathBuf {
        self.write(&format!("settings/{name}"), &serde_json::to_string_pretty(settings).unwrap())
    }

    /// The bridge of `agent` with `--settings` files, `--config` files and the environment the
    /// agent gives its hooks: a fresh `HOME`, the project directory variables, and nothing of
    /// the surrounding session's agents.
    pub(crate) fn command(&self, agent: &str, settings: &[&Path], configs: &[&Path]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookwire"));
        command.arg("hook").arg(agent);
        for file in settings {
            command.arg("--settings").arg(file);
        }
        for file in configs {
            command.arg("--config").arg(file);
        }
        command.arg("--no-default-config");
        let path = format!("{}:{}", python_dir().display(), std::env::var("PATH").unwrap_or_default());
        command
            .current_dir(self.project())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("TMPDIR", std::env::temp_dir())
            .env("LANG", "C.UTF-8")
            .env("CLAUDE_PROJECT_DIR", self.project());
        match agent {
            "claude" => {
                command.env("CLAUDECODE", "1").env("CLAUDE_CODE_SESSION_ID", self.session_id);
            }
            "gemini" => {
                command
                    .env("GEMINI_PROJECT_DIR", self.project())
                    .env("GEMINI_CWD", self.project())
                    .env("GEMINI_SESSION_ID", self.session_id);
            }
            _ => {}
        }
        command
    }

    /// Runs the bridge of `agent` with `input` on stdin, written as the agents write it.
    pub(crate) fn hook(&self, agent: &str, settings: &[&Path], input: &Value) -> Run {
        run(self.command(agent, settings, &[]), &stdin_line(input))
    }
}

/// Runs `command` with `stdin` written while its output is read; kills it and fails the test
/// after [`RUN_LIMIT`].
pub(crate) fn run(mut command: Command, stdin: &str) -> Run {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hookwire binary starts");
    let pid = child.id();
    let mut pipe = child.stdin.take().unwrap();
    let payload = stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        // The bridge may answer without reading everything (it must not, but then the test
        // fails on the answer, not on EPIPE).
        let _ = pipe.write_all(&payload);
    });
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    let output = match receiver.recv_timeout(RUN_LIMIT) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
                nix::sys::signal::Signal::SIGKILL,
            );
            panic!("`hookwire hook` did not answer within {RUN_LIMIT:?}");
        }
    };
    let _ = writer.join();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// The input as the agents write it to a command hook: compact JSON, then one newline.
pub(crate) fn stdin_line(input: &Value) -> String {
    format!("{input}\n")
}

/// Copies the tree `from` into `to`, every file executable (as a checkout with modes would).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            chmod(&target, 0o755);
        }
    }
}

/// The directory of the real Python interpreter, first on the hooks' PATH.
pub(crate) fn python_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| PathBuf::from(super::python()).parent().unwrap().to_path_buf())
}

/// A command handler.
pub(crate) fn command(command: &str) -> Value {
    json!({ "type": "command", "command": command })
}

/// A Claude Code / Codex style settings object with one matcher group on `event`.
pub(crate) fn settings_one(event: &str, matcher: Option<&str>, handlers: Vec<Value>) -> Value {
    let mut group = Map::new();
    if let Some(matcher) = matcher {
        group.insert("matcher".into(), matcher.into());
    }
    group.insert("hooks".into(), Value::Array(handlers));
    json!({ "hooks": { event: [Value::Object(group)] } })
}

/// One bridge run: what the agent reads.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) elapsed: Duration,
}

impl Run {
    pub(crate) fn describe(&self) -> String {
        format!(
            "exit code {}, after {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.elapsed, self.stdout, self.stderr
        )
    }

    /// The answer: exit 0 and one JSON object on one line of stdout.
    pub(crate) fn json(&self) -> Value {
        assert_eq!(self.code, 0, "the bridge must answer with exit 0\n{}", self.describe());
        let line = self.stdout.strip_suffix('\n').unwrap_or(&self.stdout);
        assert!(!line.contains('\n'), "the answer must be one JSON line\n{}", self.describe());
        match serde_json::from_str::<Value>(line) {
            Ok(value @ Value::Object(_)) => value,
            _ => panic!("stdout is not one JSON object\n{}", self.describe()),
        }
    }

    /// Nothing decided: exit 0 and no output at all, which every agent reads as "proceed as if
    /// there were no hook" (silence never approves).
    pub(crate) fn assert_no_decision(&self, what: &str) {
        assert_eq!(self.code, 0, "{what}: the bridge must answer with exit 0\n{}", self.describe());
        assert_eq!(self.stdout, "", "{what}: nothing was decided, so nothing may be printed\n{}", self.describe());
    }

    /// `hookSpecificOutput.<key>` of the answer, checking `hookEventName`.
    pub(crate) fn specific(&self, event: &str, key: &str) -> Option<Value> {
        let answer = self.json();
        let specific = answer.get("hookSpecificOutput")?;
        assert_eq!(
            specific["hookEventName"],
            event,
            "hookSpecificOutput must name the event it answers\n{}",
            self.describe()
        );
        specific.get(key).cloned()
    }

    /// The PreToolUse `permissionDecision` of the answer, if any.
    pub(crate) fn permission(&self) -> Option<String> {
        if self.stdout.is_empty() {
            assert_eq!(self.code, 0, "{}", self.describe());
            return None;
        }
        self.specific("PreToolUse", "permissionDecision").map(|v| v.as_str().unwrap().to_owned())
    }

    /// The reason of a PreToolUse deny (asserting it is one).
    pub(crate) fn deny_reason(&self) -> String {
        assert_eq!(self.permission().as_deref(), Some("deny"), "expected a PreToolUse deny\n{}", self.describe());
        self.json()["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_else(|| panic!("a deny carries its reason\n{}", self.describe()))
            .to_owned()
    }

    /// `hookSpecificOutput.additionalContext` of an answer to `event`.
    pub(crate) fn context(&self, event: &str) -> String {
        self.specific(event, "additionalContext")
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("expected additionalContext\n{}", self.describe()))
    }

    /// A top-level `decision: block` answer's reason (Stop, PostToolUse, UserPromptSubmit).
    pub(crate) fn block_reason(&self) -> String {
        let answer = self.json();
        assert_eq!(answer["decision"], "block", "expected a block\n{}", self.describe());
        answer["reason"]
            .as_str()
            .unwrap_or_else(|| panic!("a block carries its reason\n{}", self.describe()))
            .to_owned()
    }
}
