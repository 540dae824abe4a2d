//! Claude Code, Gemini CLI and Codex `command` hooks, run unmodified through the real factory
//! and the engine: real `sh`, real Python scripts written against the agents' contracts.
//!
//! Tests that depend on the host's environment (`OTEL_*`, `CLAUDE_ENV_FILE`) run again in a child
//! process of this test binary whose environment they set, so nothing here mutates the
//! environment of a running process.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use hook_bash::{AgentCommandFactory, AgentCommandOptions};
use hook_core::{
    AgentHookDef, BuildError, Context, Decision, Engine, Event, FireOutcome, HookDefinition, HookError, HookFactory,
    HookSpec, Level, OutcomeClass, Permission,
};
use hook_protocol::{
    Agent,
    agent_config::AgentHandler,
    config::HookDef,
    serde_json::{self, Value, json},
};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// A fresh project directory (its name has a space: paths must survive the shell), removed on drop.
struct Project {
    dir: PathBuf,
}

impl Project {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("hook-bash-agent-{}-{name}", std::process::id())).join("proj dir");
        if let Some(parent) = dir.parent() {
            let _ = fs::remove_dir_all(parent);
        }
        fs::create_dir_all(dir.join(".claude/hooks")).expect("project dir");
        Project { dir }
    }

    fn path(&self) -> &Path {
        &self.dir
    }

    fn state_dir(&self) -> PathBuf {
        self.dir.parent().expect("parent").join("state")
    }

    fn options(&self) -> AgentCommandOptions {
        AgentCommandOptions {
            project_dir: Some(self.dir.clone()),
            state_dir: Some(self.state_dir()),
            ..AgentCommandOptions::default()
        }
    }

    /// Copies fixture `name` into `.claude/hooks/` and returns its path.
    fn install(&self, name: &str) -> PathBuf {
        let to = self.dir.join(".claude/hooks").join(name);
        fs::copy(fixture(name), &to).expect("copy fixture");
        to
    }

    fn read(&self, name: &str) -> String {
        fs::read_to_string(self.dir.join(name)).unwrap_or_else(|e| panic!("{name} not written by the hook: {e}"))
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        if let Some(parent) = self.dir.parent() {
            let _ = fs::remove_dir_all(parent);
        }
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent").join(name)
}

/// `'<path>'` for a shell command.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

fn handler(command: &str) -> AgentHandler {
    AgentHandler { kind: "command".into(), command: Some(command.into()), ..AgentHandler::default() }
}

fn def(agent: Agent, event_name: &str, handler: AgentHandler) -> AgentHookDef {
    AgentHookDef {
        agent,
        event_name: event_name.into(),
        matcher: None,
        handler,
        plugin_root: None,
        http_allowed_urls: None,
        http_allowed_env_vars: Vec::new(),
    }
}

/// The spec the loader makes of `def`, with a deadline of `timeout_secs`.
fn spec_of(def: AgentHookDef, timeout_secs: u64) -> HookSpec {
    let event = def.agent.event(&def.event_name).expect("an event of the agent");
    HookSpec {
        timeout: Some(Duration::from_secs(timeout_secs)),
        ..HookSpec::new("test-hook", Level::Project, "command", [event], HookDefinition::Agent(def.into()))
    }
}

async fn engine_with(options: AgentCommandOptions, specs: Vec<HookSpec>) -> Engine {
    let engine = Engine::builder().factory(Arc::new(AgentCommandFactory::new(options))).build();
    engine.replace_level(Level::Project, specs).await.expect("the hooks load");
    engine
}

/// Loads `def` (deadline 30 s) and fires its event once over `context`.
async fn fire(project: &Project, def: AgentHookDef, context: &mut Context) -> FireOutcome {
    fire_with(project.options(), def, 30, context).await
}

async fn fire_with(
    options: AgentCommandOptions,
    def: AgentHookDef,
    timeout: u64,
    context: &mut Context,
) -> FireOutcome {
    let event = def.agent.event(&def.event_name).expect("event");
    let engine = engine_with(options, vec![spec_of(def, timeout)]).await;
    let outcome =
        tokio::time::timeout(Duration::from_secs(20), engine.fire(event, context)).await.expect("fired in time");
    engine.shutdown().await;
    outcome
}

/// A Bash tool call in `project`.
fn bash_call(project: &Project, command: &str) -> Context {
    tool_call(project, "Bash", json!({ "command": command, "description": "test call" }))
}

fn tool_call(project: &Project, tool: &str, input: Value) -> Context {
    Context {
        session_id: Some("sess-1".into()),
        cwd: Some(project.path().display().to_string()),
        tool_name: Some(tool.into()),
        tool_arguments: Some(input.to_string()),
        tool_call_id: Some("toolu_01".into()),
        ..Context::default()
    }
}

fn session_start(project: &Project) -> Context {
    Context { session_id: Some("sess-1".into()), cwd: Some(project.path().display().to_string()), ..Context::default() }
}

/// The error of the only hook of `outcome`, if it failed.
fn hook_error(outcome: &FireOutcome) -> Option<&HookError> {
    assert_eq!(outcome.trace.len(), 1, "{:?}", outcome.trace);
    outcome.trace[0].error.as_ref()
}

/// The tool arguments in `context`, parsed.
fn arguments(context: &Context) -> Value {
    serde_json::from_str(context.tool_arguments.as_deref().expect("arguments")).expect("JSON arguments")
}

const CHILD_VAR: &str = "HOOK_BASH_AGENT_TEST_CHILD";

/// `true` in the child process running test `name` (run the body); in the parent, runs the test
/// in a child of this binary with `set` added to and `unset` removed from its environment,
/// asserts that it passed, and returns `false`.
fn in_child(name: &str, set: &[(&str, &str)], unset: &[&str]) -> bool {
    if std::env::var(CHILD_VAR).as_deref() == Ok(name) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let mut command = std::process::Command::new(exe);
    let path = format!("{}::{name}", module_path!().trim_start_matches("it::"));
    command.args([path.as_str(), "--exact", "--nocapture", "--test-threads=1"]).env(CHILD_VAR, name);
    for (key, value) in set {
        command.env(key, value);
    }
    for key in unset {
        command.env_remove(key);
    }
    let output = command.output().expect("run the child test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the child run of `{name}` failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "the child did not run `{name}`:\n{stdout}");
    false
}

// ---------------------------------------------------------------------------------------------
// 1-3: decisions
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_python_bash_validator_blocks_rm_rf_with_its_stderr_and_allows_ls() {
    let project = Project::new("validator");
    let script = project.install("bash_validator.py");
    let hook = || def(Agent::Claude, "PreToolUse", handler(&format!("python3 {}", quoted(&script))));

    let mut context = bash_call(&project, "rm -rf /tmp/build");
    let outcome = fire(&project, hook(), &mut context).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert_eq!(outcome.reason.as_deref(), Some("Blocked: `rm -rf` is not allowed here"));
    assert!(hook_error(&outcome).is_none());

    let mut context = bash_call(&project, "ls -la");
    let outcome = fire(&project, hook(), &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    assert_eq!(outcome.reason, None);
    assert_eq!(outcome.permission, None, "silence never approves");
    assert!(hook_error(&outcome).is_none(), "{outcome:?}");
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::NoChange);
}

#[tokio::test]
async fn json_deny_and_legacy_block_deny_with_their_reason() {
    let project = Project::new("json-deny");
    let script = project.install("permission_deny.py");
    let hook = def(Agent::Claude, "PreToolUse", handler(&format!("python3 {}", quoted(&script))));
    let mut context = bash_call(&project, "curl example.com");
    let outcome = fire(&project, hook, &mut context).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert_eq!(outcome.reason.as_deref(), Some("policy forbids: curl example.com"));

    let legacy = r#"cat > /dev/null; echo '{"decision": "block", "reason": "legacy says no"}'"#;
    let mut context = bash_call(&project, "ls");
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler(legacy)), &mut context).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert_eq!(outcome.reason.as_deref(), Some("legacy says no"));
}

#[tokio::test]
async fn updated_input_replaces_the_whole_tool_input() {
    let project = Project::new("rewrite");
    let script = project.install("rewrite_input.py");
    let hook = def(Agent::Claude, "PreToolUse", handler(&format!("python3 {}", quoted(&script))));
    let mut context = bash_call(&project, "make deploy");
    let outcome = fire(&project, hook, &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    assert_eq!(outcome.permission, Some(Permission::Allow));
    // `description` is gone: the rewrite is the whole new input, not merged into the old one.
    assert_eq!(arguments(&context), json!({ "command": "echo would run: make deploy" }));
}

#[tokio::test]
async fn the_matcher_gates_the_hook() {
    let project = Project::new("matcher");
    let hook = || AgentHookDef {
        matcher: Some("Bash".into()),
        ..def(Agent::Claude, "PreToolUse", handler("echo 'bash only' >&2; exit 2"))
    };
    let mut context = tool_call(&project, "Read", json!({ "file_path": "/etc/hosts" }));
    let outcome = fire(&project, hook(), &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::Filtered);

    let mut context = bash_call(&project, "ls");
    let outcome = fire(&project, hook(), &mut context).await;
    assert_eq!(outcome.decision, Decision::DenyTool);
    assert_eq!(outcome.reason.as_deref(), Some("bash only"));
}

// ---------------------------------------------------------------------------------------------
// 4-5: stdin
// ---------------------------------------------------------------------------------------------

/// A Bash call whose input is about 300 kB.
fn big_call(project: &Project) -> Context {
    bash_call(project, &format!("echo {}", "x".repeat(300_000)))
}

#[tokio::test]
async fn a_hook_that_never_reads_a_300_kb_input_finishes_cleanly() {
    let project = Project::new("no-read");
    let mut context = big_call(&project);
    let started = Instant::now();
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler("sleep 0.1; echo '{}'")), &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::NoChange);
    assert_eq!(outcome.decision, Decision::Continue);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_hook_that_exits_early_or_talks_before_reading_does_not_block() {
    let project = Project::new("big-stdin");
    // 2 MiB: more than any pipe takes, so the write meets a closed pipe (EPIPE) or a full one.
    let huge = || bash_call(&project, &"y".repeat(2 << 20));
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler("exit 0")), &mut huge()).await;
    assert!(hook_error(&outcome).is_none(), "a hook that does not read its stdin is fine: {:?}", outcome.trace);

    // 256 kB on stdout before reading stdin: stdout must be read while stdin is written.
    let command = "head -c 262144 /dev/zero | tr '\\0' a; cat > /dev/null; echo";
    let started = Instant::now();
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler(command)), &mut huge()).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert_eq!(outcome.decision, Decision::Continue, "plain PreToolUse stdout decides nothing");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn read_r_sees_the_whole_input_on_line_one() {
    let project = Project::new("read-r");
    let command = r#"read -r line; printf '%s' "$line" > "$CLAUDE_PROJECT_DIR/line.json""#;
    let mut context = big_call(&project);
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler(command)), &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let line: Value = serde_json::from_str(&project.read("line.json")).expect("line 1 is the whole JSON object");
    assert_eq!(line["hook_event_name"], "PreToolUse");
    assert_eq!(line["tool_name"], "Bash");
    assert_eq!(line["session_id"], "sess-1");
    assert_eq!(line["tool_use_id"], "toolu_01");
    assert_eq!(line["cwd"], project.path().display().to_string());
    let command = line["tool_input"]["command"].as_str().expect("the command");
    assert_eq!(command.len(), "echo ".len() + 300_000);
    assert_eq!(line["tool_input"]["description"], "test call");
}

#[tokio::test]
async fn stdin_is_compact_json_and_one_newline_with_non_ascii_unescaped() {
    let project = Project::new("stdin-bytes");
    let command = r#"cat > "$CLAUDE_PROJECT_DIR/stdin.bin""#;
    let mut context = bash_call(&project, "echo héllo ✓ 😀 \"q\"");
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler(command)), &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let bytes = fs::read(project.path().join("stdin.bin")).expect("stdin dumped");
    assert_eq!(bytes.last(), Some(&b'\n'), "ends with a newline");
    assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1, "exactly one newline, at the end");
    let body = &bytes[..bytes.len() - 1];
    let text = std::str::from_utf8(body).expect("UTF-8");
    assert!(text.contains("héllo ✓ 😀"), "non-ASCII is written as UTF-8, not \\u escapes: {text}");
    assert!(!text.contains("\\u"), "{text}");
    let value: Value = serde_json::from_str(text).expect("JSON");
    let object = value.as_object().expect("an object").clone();
    let compact = hook_agents::input_line(&object);
    assert_eq!(&compact[..compact.len() - 1], body, "compact: no spaces, no indentation, the agents' key order");
    assert!(text.starts_with(r#"{"session_id":"#), "{text}");
    assert_eq!(value["tool_input"]["command"], "echo héllo ✓ 😀 \"q\"");
    assert_eq!(value["hook_event_name"], "PreToolUse");
}

// ---------------------------------------------------------------------------------------------
// 6-7: environment and working directory
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_environment_and_working_directory_are_the_agents() {
    let set = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317"),
        ("OTEL_SERVICE_NAME", "agent"),
        ("HOOK_BASH_AGENT_TEST_KEEP", "kept"),
    ];
    if !in_child("the_environment_and_working_directory_are_the_agents", &set, &["CLAUDE_ENV_FILE"]) {
        return;
    }
    let project = Project::new("env");
    project.install("env_report.sh");
    // A relative command: it only works from the project directory.
    let hook = def(Agent::Claude, "PreToolUse", handler("bash .claude/hooks/env_report.sh"));
    let mut context = bash_call(&project, "ls");
    // The session's cwd is elsewhere: the hook still runs in the project directory.
    context.cwd = Some(std::env::temp_dir().display().to_string());
    let outcome = fire(&project, hook, &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let report = project.read("env-report.txt");
    let canonical = fs::canonicalize(project.path()).expect("canonical project dir");
    let expected = format!(
        "pwd={}\nproject={}\nclaudecode=1\notel_endpoint=unset\notel_service=unset\ninherited=kept\nenv_file=unset\n",
        canonical.display(),
        project.path().display()
    );
    assert_eq!(report, expected);
}

#[tokio::test]
async fn the_project_dir_defaults_to_the_sessions_cwd() {
    let project = Project::new("default-project");
    let options = AgentCommandOptions { state_dir: Some(project.state_dir()), ..AgentCommandOptions::default() };
    let command = r#"printf '%s\n' "$CLAUDE_PROJECT_DIR" "$(pwd -P)" > "$CLAUDE_PROJECT_DIR/where.txt""#;
    let mut context = bash_call(&project, "ls");
    let outcome = fire_with(options, def(Agent::Claude, "PreToolUse", handler(command)), 30, &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let canonical = fs::canonicalize(project.path()).expect("canonical");
    assert_eq!(project.read("where.txt"), format!("{}\n{}\n", project.path().display(), canonical.display()));
}

#[tokio::test]
async fn claude_env_file_exists_for_session_start_only() {
    if !in_child("claude_env_file_exists_for_session_start_only", &[], &["CLAUDE_ENV_FILE"]) {
        return;
    }
    let project = Project::new("env-file");
    let script = project.install("session_env.sh");
    let hook = def(Agent::Claude, "SessionStart", handler(&format!("sh {}", quoted(&script))));
    let mut context = session_start(&project);
    let outcome = fire(&project, hook, &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert!(outcome.effects.system_messages.is_empty(), "the `set -u` hook died: {:?}", outcome.effects);
    let env_file = project.state_dir().join("env/sess-1.sh");
    assert_eq!(fs::read_to_string(&env_file).expect("the env file"), "export FOO=1\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(&env_file).expect("meta").permissions().mode() & 0o777, 0o600);
    }

    // The other session-start events get it too; it is appended to, never truncated.
    for event_name in ["Setup", "CwdChanged", "FileChanged"] {
        let hook = def(Agent::Claude, event_name, handler(&format!("sh {}", quoted(&script))));
        let outcome = fire(&project, hook, &mut session_start(&project)).await;
        assert!(hook_error(&outcome).is_none(), "{event_name}: {:?}", outcome.trace);
    }
    assert_eq!(fs::read_to_string(&env_file).expect("the env file"), "export FOO=1\n".repeat(4));

    let command = r#"printf '%s' "${CLAUDE_ENV_FILE-unset}" > "$CLAUDE_PROJECT_DIR/pre.txt""#;
    let mut context = bash_call(&project, "ls");
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler(command)), &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert_eq!(project.read("pre.txt"), "unset");
}

#[tokio::test]
async fn an_inherited_claude_env_file_is_kept_and_created() {
    let inherited =
        std::env::temp_dir().join(format!("hook-bash-agent-{}-inherited-env", std::process::id())).join("agent/env.sh");
    let name = "an_inherited_claude_env_file_is_kept_and_created";
    let value = inherited.display().to_string();
    if !in_child(name, &[("CLAUDE_ENV_FILE", &value)], &[]) {
        let _ = inherited.parent().and_then(Path::parent).map(fs::remove_dir_all);
        return;
    }
    let inherited = PathBuf::from(std::env::var_os("CLAUDE_ENV_FILE").expect("set by the parent"));
    let project = Project::new("inherited-env");
    let command = r#"test -f "$CLAUDE_ENV_FILE" && printf '%s' "$CLAUDE_ENV_FILE" > "$CLAUDE_PROJECT_DIR/seen.txt""#;
    let outcome =
        fire(&project, def(Agent::Claude, "SessionStart", handler(command)), &mut session_start(&project)).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert_eq!(project.read("seen.txt"), inherited.display().to_string());
    assert_eq!(fs::read(&inherited).expect("created").len(), 0, "created empty");
    assert!(!project.state_dir().join("env").exists(), "no file of hookwire's own");
}

#[tokio::test]
async fn plugin_hooks_get_their_root_and_a_data_directory() {
    let project = Project::new("plugin");
    let root = project.path().join("plugins/fmt");
    fs::create_dir_all(&root).expect("plugin root");
    let command = r#"test -d "$PLUGIN_DATA" && printf '%s\n' "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA" "$PLUGIN_ROOT" "$PLUGIN_DATA" > "$CLAUDE_PROJECT_DIR/plugin.txt""#;
    let hook = AgentHookDef { plugin_root: Some(root.clone()), ..def(Agent::Codex, "PreToolUse", handler(command)) };
    let mut context = bash_call(&project, "ls");
    let outcome = fire(&project, hook, &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let report = project.read("plugin.txt");
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 4, "{report}");
    assert_eq!(lines[0], root.display().to_string());
    assert_eq!(lines[2], lines[0]);
    assert_eq!(lines[3], lines[1]);
    let data = Path::new(lines[1]);
    assert!(data.starts_with(project.state_dir().join("plugin-data")), "{}", data.display());
    assert!(data.is_dir());
}

#[tokio::test]
async fn gemini_substitutes_its_variables_into_the_command_shell_quoted() {
    let project = Project::new("gemini-vars");
    let sub = project.path().join("sub");
    fs::create_dir_all(&sub).expect("sub");
    // Unquoted on purpose: the path has a space, so only a quoted textual substitution keeps
    // each one a single word.
    let command = r#"printf '%s\n' $GEMINI_PROJECT_DIR ${GEMINI_PROJECT_DIR} $GEMINI_CWD $GEMINI_SESSION_ID $CLAUDE_PROJECT_DIR "$(printenv GEMINI_CWD)" > $GEMINI_PROJECT_DIR/gemini.txt"#;
    let mut context = tool_call(&project, "run_shell_command", json!({ "command": "ls" }));
    context.cwd = Some(sub.display().to_string());
    let env = [("HOOK_OWN".to_owned(), "from settings".to_owned())].into_iter().collect();
    let handler = AgentHandler {
        env: Some(env),
        ..handler(&format!("{command}; echo \"$HOOK_OWN\" >> $GEMINI_CWD/../gemini.txt"))
    };
    let outcome = fire(&project, def(Agent::Gemini, "BeforeTool", handler), &mut context).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let (p, s) = (project.path().display(), sub.display());
    assert_eq!(project.read("gemini.txt"), format!("{p}\n{p}\n{s}\nsess-1\n{p}\n{s}\nfrom settings\n"));
}

#[tokio::test]
async fn output_over_the_cap_stops_the_hook() {
    let project = Project::new("cap");
    let options = AgentCommandOptions { max_stdout_bytes: 1000, ..project.options() };
    let hook = def(Agent::Claude, "PreToolUse", handler("head -c 5000 /dev/zero | tr '\\0' a; sleep 30"));
    let started = Instant::now();
    let outcome = fire_with(options, hook, 30, &mut bash_call(&project, "ls")).await;
    match hook_error(&outcome) {
        Some(HookError::InvalidOutput { message, .. }) => {
            assert!(message.contains("hook `test-hook`") && message.contains("1000 bytes on stdout"), "{message}");
        }
        other => panic!("expected invalid_output, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5), "stopped at once: {:?}", started.elapsed());
}

// ---------------------------------------------------------------------------------------------
// 8: timeouts
// ---------------------------------------------------------------------------------------------

/// The live (not zombie) processes whose process group is `pgid`.
fn live_members(pgid: i32) -> Vec<(i32, String)> {
    let mut live = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else { return live };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let Some((head, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let comm = head.split_once('(').map(|(_, c)| c.to_owned()).unwrap_or_default();
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) == Some(pgid) && fields.first() != Some(&"Z") {
            live.push((pid, comm));
        }
    }
    live
}

#[tokio::test]
async fn a_timeout_kills_the_hook_and_decides_nothing() {
    let project = Project::new("timeout");
    let command = r#"echo $$ > "$CLAUDE_PROJECT_DIR/pid"; sleep 30; echo '{"decision":"block","reason":"late"}'"#;
    let mut context = bash_call(&project, "ls");
    let started = Instant::now();
    let outcome =
        fire_with(project.options(), def(Agent::Claude, "PreToolUse", handler(command)), 1, &mut context).await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?} with `timeout: 1`");
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
    assert!(matches!(hook_error(&outcome), Some(HookError::Timeout { .. })), "{:?}", outcome.trace);
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::TimedOut);
    assert_eq!(outcome.decision, Decision::Continue, "a timed-out hook decides nothing");
    let pgid: i32 = project.read("pid").trim().parse().expect("a pid");
    let until = Instant::now() + Duration::from_secs(3);
    while !live_members(pgid).is_empty() && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(live_members(pgid), vec![], "the hook's `sh` and `sleep` must be gone");
}

// ---------------------------------------------------------------------------------------------
// 9-10: exit codes, per agent
// ---------------------------------------------------------------------------------------------

const DENY_JSON: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json says no"}}"#;
const ALLOW_JSON: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;

#[tokio::test]
async fn claude_reads_exit_codes_and_json_together() {
    let project = Project::new("claude-exits");
    let run = |command: String| {
        let project = &project;
        async move {
            let mut context = bash_call(project, "ls");
            fire(project, def(Agent::Claude, "PreToolUse", handler(&command)), &mut context).await
        }
    };

    // Exit 1 with stderr: a non-blocking error; the tool proceeds under the default policy.
    let outcome = run("echo 'something broke' >&2; exit 1".into()).await;
    match hook_error(&outcome) {
        Some(HookError::ProcessExited { status, stderr_tail }) => {
            assert!(status.contains('1'), "{status}");
            assert!(stderr_tail.contains("something broke"), "{stderr_tail}");
        }
        other => panic!("expected a non-blocking error, got {other:?}"),
    }
    assert_eq!(outcome.decision, Decision::Continue);

    // Exit 1 with a valid JSON deny: the JSON decides.
    let outcome = run(format!("echo '{DENY_JSON}'; exit 1")).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert_eq!(outcome.decision, Decision::DenyTool);
    assert_eq!(outcome.reason.as_deref(), Some("json says no"));

    // Exit 3 with a JSON allow: allowed, no error.
    let outcome = run(format!("echo '{ALLOW_JSON}'; exit 3")).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(outcome.permission, Some(Permission::Allow));

    // A typo'd script path: exit 127 from sh, a non-blocking error, never a crash or a block.
    let outcome = run("./.claude/hooks/no-such-guard.sh".into()).await;
    assert!(matches!(hook_error(&outcome), Some(HookError::ProcessExited { .. })), "{:?}", outcome.trace);
    assert_eq!(outcome.decision, Decision::Continue);

    // Exit 2 with a JSON allow still blocks under Claude Code (the Gemini test's opposite).
    let outcome = run(r#"echo '{"decision":"approve"}'; echo 'exit two' >&2; exit 2"#.into()).await;
    assert_eq!(outcome.decision, Decision::DenyTool);
    assert_eq!(outcome.reason.as_deref(), Some("exit two"));
}

#[tokio::test]
async fn gemini_and_codex_read_exit_codes_their_own_way() {
    let project = Project::new("other-agents");
    let gemini_call = || tool_call(&project, "run_shell_command", json!({ "command": "ls" }));

    // Gemini CLI: exit 2 with a JSON allow is an allow.
    let hook = def(Agent::Gemini, "BeforeTool", handler(r#"echo '{"decision":"allow"}'; exit 2"#));
    let outcome = fire(&project, hook, &mut gemini_call()).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    assert_eq!(outcome.permission, Some(Permission::Allow));

    // Gemini CLI: exit 3 with plain text denies with that text.
    let hook = def(Agent::Gemini, "BeforeTool", handler("echo 'not on my watch'; exit 3"));
    let outcome = fire(&project, hook, &mut gemini_call()).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert_eq!(outcome.reason.as_deref(), Some("not on my watch"));

    // Codex: exit 2 with nothing on stderr is a failure, not a block.
    let hook = def(Agent::Codex, "PreToolUse", handler("cat > /dev/null; exit 2"));
    let outcome = fire(&project, hook, &mut bash_call(&project, "ls")).await;
    assert!(matches!(hook_error(&outcome), Some(HookError::ProcessExited { .. })), "{:?}", outcome.trace);
    assert_eq!(outcome.decision, Decision::Continue);

    // ... and with a reason on stderr it blocks.
    let hook = def(Agent::Codex, "PreToolUse", handler("echo 'codex says no' >&2; exit 2"));
    let outcome = fire(&project, hook, &mut bash_call(&project, "ls")).await;
    assert_eq!(outcome.decision, Decision::DenyTool);
    assert_eq!(outcome.reason.as_deref(), Some("codex says no"));
}

// ---------------------------------------------------------------------------------------------
// 11: spilling long answers
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_long_additional_context_is_spilled_to_a_file() {
    let project = Project::new("spill");
    let script = project.install("long_context.py");
    let hook = def(Agent::Claude, "SessionStart", handler(&format!("python3 {}", quoted(&script))));
    let outcome = fire(&project, hook, &mut session_start(&project)).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let full = "ab€".repeat(5000);
    assert_eq!(outcome.effects.additional_context.len(), 1, "{:?}", outcome.effects);
    let preview = &outcome.effects.additional_context[0];
    let head: String = full.chars().take(2000).collect();
    let (shown, note) = preview.split_once("\n… [output truncated: ").expect("a truncation note");
    assert_eq!(shown, head, "the first 2,000 characters");
    let path = note
        .strip_prefix("15000 characters; full text in ")
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or_else(|| panic!("unexpected note: {note}"));
    let path = Path::new(path);
    assert!(path.starts_with(project.state_dir()), "{}", path.display());
    assert_eq!(fs::read_to_string(path).expect("the spilled text"), full);
}

// ---------------------------------------------------------------------------------------------
// 12: exec form
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn exec_form_runs_the_program_with_substituted_args_and_no_shell() {
    let project = Project::new("exec");
    project.install("dump_args.py");
    let root = project.path().join("plugins/lint");
    fs::create_dir_all(&root).expect("plugin root");
    let args = [
        "${CLAUDE_PROJECT_DIR}/.claude/hooks/dump_args.py",
        "${CLAUDE_PROJECT_DIR}",
        "a b;c $HOME `id`",
        "$CLAUDE_PROJECT_DIR",
        "${CLAUDE_PLUGIN_ROOT}/x",
    ];
    let handler = AgentHandler {
        args: Some(args.iter().map(|a| (*a).to_owned()).collect()),
        shell: Some("powershell".into()),
        ..handler("python3")
    };
    let hook = AgentHookDef { plugin_root: Some(root.clone()), ..def(Agent::Claude, "PreToolUse", handler) };
    let outcome = fire(&project, hook, &mut bash_call(&project, "ls")).await;
    assert!(hook_error(&outcome).is_none(), "{:?}", outcome.trace);
    let report: Value = serde_json::from_str(&project.read("argv.json")).expect("JSON report");
    let p = project.path().display().to_string();
    assert_eq!(
        report["argv"],
        json!([p, "a b;c $HOME `id`", "$CLAUDE_PROJECT_DIR", format!("{}/x", root.display())]),
        "placeholders substituted, nothing else: no word splitting, no expansion"
    );
    assert_eq!(report["cwd"], fs::canonicalize(project.path()).expect("canonical").display().to_string());
}

#[tokio::test]
async fn an_exec_form_program_that_cannot_start_names_the_hook_and_the_program() {
    let project = Project::new("exec-missing");
    let handler = AgentHandler { args: Some(vec!["--check".into()]), ..handler("hookwire-no-such-program") };
    let outcome = fire(&project, def(Agent::Claude, "PreToolUse", handler), &mut bash_call(&project, "ls")).await;
    match hook_error(&outcome) {
        Some(HookError::SpawnFailed { command, message }) => {
            assert_eq!(command, "hookwire-no-such-program");
            assert!(message.contains("hook `test-hook`"), "{message}");
            assert!(message.contains("`hookwire-no-such-program` was not found"), "{message}");
        }
        other => panic!("expected SpawnFailed, got {other:?}"),
    }
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::SpawnFailed);
    assert_eq!(outcome.decision, Decision::Continue, "fails open");
}

// ---------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_factory_refuses_what_it_cannot_run_naming_the_hook() {
    let factory = AgentCommandFactory::new(AgentCommandOptions::default());
    assert_eq!(factory.kind(), "command");
    let invalid = |spec: HookSpec| {
        let factory = factory.clone();
        async move {
            match factory.build(&spec).await {
                Err(BuildError::Invalid { message }) => message,
                other => panic!("expected BuildError::Invalid, got {other:?}"),
            }
        }
    };
    let http = AgentHandler { kind: "http".into(), url: Some("http://127.0.0.1:9".into()), ..AgentHandler::default() };
    let message = invalid(spec_of(def(Agent::Claude, "PreToolUse", http), 5)).await;
    assert!(message.contains("hook `test-hook`") && message.contains("`http`"), "{message}");

    for command in [None, Some("  ")] {
        let handler = AgentHandler { command: command.map(str::to_owned), ..handler("x") };
        let message = invalid(spec_of(def(Agent::Claude, "PreToolUse", handler), 5)).await;
        assert!(message.contains("hook `test-hook`") && message.contains("no `command`"), "{message}");
    }

    let bad_matcher =
        AgentHookDef { matcher: Some("Bash(".into()), ..def(Agent::Claude, "PreToolUse", handler("true")) };
    let message = invalid(spec_of(bad_matcher, 5)).await;
    assert!(message.contains("hook `test-hook`"), "{message}");

    let jcli = HookSpec::new(
        "test-hook",
        Level::Project,
        "command",
        [Event::PreToolExecution],
        HookDefinition::Command(HookDef { command: Some("true".into()), ..HookDef::default() }),
    );
    let message = invalid(jcli).await;
    assert!(message.contains("hook `test-hook`") && message.contains("settings file"), "{message}");

    let built = factory.build(&spec_of(def(Agent::Claude, "PreToolUse", handler("true")), 5)).await.expect("builds");
    assert!(built.gate.is_some(), "the matcher travels as the gate");
    assert!(built.outlasts_chain, "the agent's deadline may stretch the chain's");
    let hook = factory.build_hook(&spec_of(def(Agent::Gemini, "BeforeTool", handler("true")), 5)).expect("builds");
    assert_eq!((hook.name(), hook.agent(), hook.command(), hook.args()), ("test-hook", Agent::Gemini, "true", None));
    assert!(format!("{hook:?}").contains("AgentCommandHook"));
}
