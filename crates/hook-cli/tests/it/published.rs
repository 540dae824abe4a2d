//! Hooks in the shapes people publish for Claude Code, Gemini CLI and Codex, run unmodified
//! through `hookwire hook claude|gemini|codex`.
//!
//! The fixtures in `tests/fixtures/published/` are our own scripts written after the patterns
//! of published hooks (bash + jq validators, Python `json.load(sys.stdin)` guards, node stdin
//! collectors, `uv run --script` style files, plugin `hooks.json` files; the README there lists
//! each pattern and where it is common). Each test writes a settings file as users write them
//! (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`, `Edit|MultiEdit|Write`, `mcp__github__.*`),
//! hands the real binary the agent's stdin for a realistic event, and checks what the agent
//! would read: exit code, stdout JSON, stderr, and what the hooks left on disk.

use std::{
    fs,
    ops::Deref,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use serde_json::{Map, Value, json};

use crate::common::agent::{AgentProject, Run, command, copy_tree, run, settings_one, stdin_line};

const SESSION_ID: &str = "5b7e2c1a-93d4-4f6b-8a0e-1c2d3e4f5a6b";

// ----------------------------------------------------------------------------------------------
// The sandbox.

/// An [`AgentProject`] with the fixture hooks of `tests/fixtures/published/hooks/` in
/// `.claude/hooks/`, `.gemini/hooks/` and `.codex/hooks/`, and the fixture plugin in
/// `plugins/commit-guard/`.
struct Sandbox(AgentProject);

impl Deref for Sandbox {
    type Target = AgentProject;

    fn deref(&self) -> &AgentProject {
        &self.0
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/published")
}

impl Sandbox {
    fn new() -> Sandbox {
        let sandbox = Sandbox(AgentProject::new("published", SESSION_ID, &fixtures().join("hooks")));
        copy_tree(&fixtures().join("plugin"), &sandbox.plugin());
        sandbox
    }

    fn plugin(&self) -> PathBuf {
        self.path("plugins/commit-guard")
    }

    /// Where Claude Code keeps this session's transcript (under the sandbox's HOME).
    fn transcript(&self) -> PathBuf {
        self.path("home/.claude/projects")
            .join(self.project_str().replace('/', "-"))
            .join(format!("{}.jsonl", self.session_id()))
    }

    /// Writes the session's transcript: one JSON object per line.
    fn write_transcript(&self, entries: &[Value]) {
        let path = self.transcript();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text: String = entries.iter().map(|e| format!("{e}\n")).collect();
        // Real transcripts end with the line being written; readers must skip a partial one.
        text.push_str("{\"type\":\"assistant\",\"mess");
        fs::write(path, text).unwrap();
    }

    /// Runs `command` with `input` on stdin: compact JSON and one newline.
    fn run(&self, command: Command, input: &Value) -> Run {
        run(command, &stdin_line(input))
    }
}

/// Whether `tool` is on PATH; when it is not, says why the test is skipped (on stderr, which
/// the test harness shows).
#[allow(clippy::print_stderr, reason = "a skipped test says why")]
fn have(tool: &str, test: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipping {test}: `{tool}` is not installed (`which {tool}` found nothing)");
    }
    found
}

// ----------------------------------------------------------------------------------------------
// Settings as users write them.

/// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/<script>`: the documented, quoted form.
fn project_hook(script: &str) -> String {
    format!("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{script}")
}

// ----------------------------------------------------------------------------------------------
// Agent inputs.

fn claude_common(sandbox: &Sandbox, event: &str) -> Map<String, Value> {
    let mut input = Map::new();
    input.insert("session_id".into(), SESSION_ID.into());
    input.insert("transcript_path".into(), sandbox.transcript().display().to_string().into());
    input.insert("cwd".into(), sandbox.project_str().into());
    input.insert("permission_mode".into(), "default".into());
    input.insert("hook_event_name".into(), event.into());
    input
}

fn claude_tool(sandbox: &Sandbox, event: &str, tool_name: &str, tool_input: Value) -> Value {
    let mut input = claude_common(sandbox, event);
    input.insert("tool_name".into(), tool_name.into());
    input.insert("tool_input".into(), tool_input);
    input.insert("tool_use_id".into(), "toolu_01PublishedHooks000000".into());
    Value::Object(input)
}

fn claude_bash(sandbox: &Sandbox, shell_command: &str) -> Value {
    claude_tool(sandbox, "PreToolUse", "Bash", json!({ "command": shell_command, "description": "Run it" }))
}

/// A PostToolUse input for a Write of `file_path` (relative to the project).
fn claude_post_write(sandbox: &Sandbox, file_path: &Path, content: &str) -> Value {
    let mut input = claude_tool(
        sandbox,
        "PostToolUse",
        "Write",
        json!({ "file_path": file_path.display().to_string(), "content": content }),
    );
    input["tool_response"] =
        json!({ "type": "create", "filePath": file_path.display().to_string(), "content": content });
    input
}

fn claude_event(sandbox: &Sandbox, event: &str, extra: Value) -> Value {
    let mut input = claude_common(sandbox, event);
    for (key, value) in extra.as_object().unwrap() {
        input.insert(key.clone(), value.clone());
    }
    Value::Object(input)
}

// ----------------------------------------------------------------------------------------------
// PreToolUse: Bash validators, JSON decisions, file guards.

#[test]
fn bash_jq_validator_under_set_euo_pipefail_blocks_with_exit_2() {
    if !have("jq", "bash_jq_validator_under_set_euo_pipefail_blocks_with_exit_2") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&project_hook("block-dangerous.sh"))]),
    );

    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "git push --force origin main"));
    assert_eq!(
        run.deny_reason(),
        "BLOCKED: 'git push --force' is not allowed in this repository.\n\
         Ask the user to run it themselves if it is really needed.",
        "exit 2: the whole stderr, trailing newline trimmed, is the reason"
    );

    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "cargo test")).assert_no_decision("a safe command");

    // A tool input without `command` (the matcher is Bash, but hooks see odd inputs): the
    // `// empty` fallback keeps `set -u` happy and the hook decides nothing.
    let odd = claude_tool(&sandbox, "PreToolUse", "Bash", json!({ "description": "no command" }));
    sandbox.hook("claude", &[&settings], &odd).assert_no_decision("no command in the input");
}

#[test]
fn file_guard_on_edit_multiedit_write_denies_env_and_lock_files_with_jq_json() {
    if !have("jq", "file_guard_on_edit_multiedit_write_denies_env_and_lock_files_with_jq_json") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("PreToolUse", Some("Edit|MultiEdit|Write"), vec![command(&project_hook("protect-files.sh"))]),
    );
    let project = sandbox.project();
    let env = project.join(".env").display().to_string();
    let lock = project.join("package-lock.json").display().to_string();

    let write_env = claude_tool(&sandbox, "PreToolUse", "Write", json!({ "file_path": env, "content": "KEY=1\n" }));
    assert_eq!(
        sandbox.hook("claude", &[&settings], &write_env).deny_reason(),
        format!("Write on {env}: .env files hold secrets and are off limits.")
    );

    let multi_edit = claude_tool(
        &sandbox,
        "PreToolUse",
        "MultiEdit",
        json!({ "file_path": lock, "edits": [{ "old_string": "1.0.0", "new_string": "1.0.1" }] }),
    );
    assert!(
        sandbox.hook("claude", &[&settings], &multi_edit).deny_reason().contains("is a lock file"),
        "MultiEdit is matched by the list"
    );

    let edit_example = claude_tool(
        &sandbox,
        "PreToolUse",
        "Edit",
        json!({ "file_path": project.join(".env.example").display().to_string(), "old_string": "A", "new_string": "B" }),
    );
    sandbox.hook("claude", &[&settings], &edit_example).assert_no_decision(".env.example is allowed");

    // Read is not in the matcher list: the guard does not even run.
    let read_env = claude_tool(&sandbox, "PreToolUse", "Read", json!({ "file_path": env }));
    sandbox.hook("claude", &[&settings], &read_env).assert_no_decision("Read is not matched");
}

#[test]
fn uv_script_style_hook_run_by_its_path_answers_ask_and_allow() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![json!({ "type": "command", "command": project_hook("uv-script-guard.py"), "timeout": 60 })],
        ),
    );
    let publish = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "npm publish --access public"));
    assert_eq!(publish.permission().as_deref(), Some("ask"), "{}", publish.describe());
    assert_eq!(
        publish.json()["hookSpecificOutput"]["permissionDecisionReason"],
        "Publishing a package: confirm the version first."
    );

    let status = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "git status --short"));
    assert_eq!(status.permission().as_deref(), Some("allow"), "{}", status.describe());

    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "make")).assert_no_decision("no output");
}

#[test]
fn a_deny_among_many_hooks_wins_and_silent_or_crashing_hooks_decide_nothing() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "PreToolUse": [
            { "matcher": "*", "hooks": [command(&project_hook("silent.sh"))] },
            { "matcher": "", "hooks": [command(&format!("python3 {}", project_hook("crashes.py")))] },
            { "matcher": "Bash", "hooks": [command(&project_hook("uv-script-guard.py"))] },
            { "hooks": [command(&format!("python3 {}", project_hook("codex-guard.py")))] },
        ] } }),
    );

    // silent (nothing), crashes (exit 1, traceback), allow, deny: the deny stands.
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls && git reset --hard"));
    assert_eq!(run.deny_reason(), "git reset --hard discards work; use git stash.");

    // Without the deny, the allow of one hook stands; the crash is only a note on stderr.
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls -la"));
    assert_eq!(run.permission().as_deref(), Some("allow"), "{}", run.describe());
    assert!(run.stderr.contains("KeyError"), "the crash's traceback is reported on stderr\n{}", run.describe());

    // Only the silent and crashing hooks: no decision at all, never a block.
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "make"));
    run.assert_no_decision("a silent hook and a hook that exits 1");
}

#[test]
fn huge_and_non_utf8_output_is_survived() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "quiet.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&project_hook("noisy-output.sh"))]),
    );
    // A megabyte of junk on stdout of a PreToolUse hook that exits 0: Claude Code ignores it.
    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls")).assert_no_decision("junk stdout");

    let block = sandbox.settings(
        "block.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&format!("{} block", project_hook("noisy-output.sh")))]),
    );
    let run = sandbox.hook("claude", &[&block], &claude_bash(&sandbox, "ls"));
    let reason = run.deny_reason();
    assert!(reason.starts_with("refused: caf\u{fffd} yyy"), "stderr is decoded lossily: {:.40}", reason);
    assert!(reason.chars().count() <= 10_000, "a long reason is cut to a preview: {} chars", reason.chars().count());
}

#[test]
fn mcp_tool_matchers_select_one_server() {
    if !have("jq", "mcp_tool_matchers_select_one_server") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "PreToolUse": [
            { "matcher": "mcp__github__.*", "hooks": [command(&project_hook("mcp-audit.sh"))] },
            // An exact name (only letters, digits and _): it matches no tool of the server.
            { "matcher": "mcp__memory", "hooks": [command(&format!("{} block", project_hook("noisy-output.sh")))] },
        ] } }),
    );
    let merge = claude_tool(&sandbox, "PreToolUse", "mcp__github__merge_pull_request", json!({ "pull_number": 7 }));
    let run = sandbox.hook("claude", &[&settings], &merge);
    assert_eq!(run.deny_reason(), "Merging is done by a human after review.", "the legacy block form denies");

    let list = claude_tool(&sandbox, "PreToolUse", "mcp__github__list_issues", json!({ "state": "open" }));
    sandbox.hook("claude", &[&settings], &list).assert_no_decision("an allowed GitHub tool");

    let memory = claude_tool(&sandbox, "PreToolUse", "mcp__memory__create_entities", json!({ "entities": [] }));
    sandbox.hook("claude", &[&settings], &memory).assert_no_decision("`mcp__memory` is exact and matches nothing");

    // Bash is neither: no hook runs.
    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls")).assert_no_decision("Bash");
}

#[test]
fn stdin_is_one_compact_line_for_read_t_and_grep_o_readers() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("PreToolUse", None, vec![command(&project_hook("oneline-reader.sh"))]),
    );
    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "echo 'a: \"b\"'")).assert_no_decision("a logger");
    assert_eq!(
        sandbox.read_project_file(".claude/oneline.log").as_deref(),
        Some(format!("PreToolUse {}\n", sandbox.transcript().display()).as_str()),
        "`read -t` got the whole input and `grep -o '\"key\":\"...\"'` found both fields"
    );
}

// ----------------------------------------------------------------------------------------------
// PostToolUse: formatters and lint feedback.

#[test]
fn post_tool_use_formatter_rewrites_the_written_file_and_answers_nothing() {
    if !have("jq", "post_tool_use_formatter_rewrites_the_written_file_and_answers_nothing") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one(
            "PostToolUse",
            Some("Write|Edit|MultiEdit"),
            vec![json!({ "type": "command", "command": project_hook("format-on-save.sh"), "timeout": 30 })],
        ),
    );
    let file = sandbox.project_file("src/app.py");
    let content = "def main():\n\treturn 1   \n\n\n";
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, content).unwrap();

    let run = sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, &file, content));
    run.assert_no_decision("a formatter prints nothing on stdout");
    assert_eq!(fs::read_to_string(&file).unwrap(), "def main():\n    return 1\n", "the formatter ran on the file");

    // A file the formatter does not handle, and one that does not exist: still nothing.
    let readme = sandbox.project_file("README.md");
    fs::write(&readme, "# x  \n").unwrap();
    sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, &readme, "# x  \n")).assert_no_decision("md");
    assert_eq!(fs::read_to_string(&readme).unwrap(), "# x  \n");
    let gone = sandbox.project_file("gone.py");
    sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, &gone, "")).assert_no_decision("missing file");
}

#[test]
fn post_tool_use_lint_block_goes_back_to_the_model() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one(
            "PostToolUse",
            Some("Edit|Write"),
            vec![command(&format!("python3 {}", project_hook("lint-feedback.py")))],
        ),
    );
    let file = sandbox.project_file("web/index.js");
    let content = "const a = 1;\nconsole.log(a);\n";
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, content).unwrap();

    let run = sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, &file, content));
    assert_eq!(run.block_reason(), format!("Lint errors in {}:\nline 2: remove console.log", file.display()));

    fs::write(&file, "const a = 1;\n").unwrap();
    let run = sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, &file, "const a = 1;\n"));
    assert_eq!(run.context("PostToolUse"), "lint: clean");
}

// ----------------------------------------------------------------------------------------------
// UserPromptSubmit and SessionStart context.

#[test]
fn user_prompt_submit_plain_text_and_json_context_accumulate_and_secrets_block() {
    let sandbox = Sandbox::new();
    fs::write(sandbox.project_file("TODO.md"), "- ship 1.0\n").unwrap();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "UserPromptSubmit": [ { "hooks": [
            command(&project_hook("prompt-context.sh")),
            command(&format!("python3 {}", project_hook("prompt-guard.py"))),
        ] } ] } }),
    );
    let prompt = |text: &str| claude_event(&sandbox, "UserPromptSubmit", json!({ "prompt": text }));

    let run = sandbox.hook("claude", &[&settings], &prompt("add a test for the parser"));
    let context = run.context("UserPromptSubmit");
    let plain = "Project conventions: 4-space indentation; tests live in tests/.\nOpen items:\n- ship 1.0";
    let from_json = format!("session {SESSION_ID} in {}", sandbox.project_str());
    assert!(context.contains(plain), "the plain-text hook's stdout is context\n{}", run.describe());
    assert!(context.contains(&from_json), "the JSON hook's additionalContext too\n{}", run.describe());
    assert!(context.find(plain) < context.find(&from_json), "in configuration order\n{}", run.describe());

    let run = sandbox.hook("claude", &[&settings], &prompt("use sk-abcdefghijklmnopqrstuvwx for the API"));
    assert_eq!(run.block_reason(), "Your prompt seems to contain an API key; remove it and try again.");
}

#[test]
fn session_start_plain_text_context_and_guarded_env_file() {
    if !have("jq", "session_start_plain_text_context_and_guarded_env_file") {
        return;
    }
    let sandbox = Sandbox::new();
    fs::write(sandbox.project_file("NOTES.md"), "Deploys go through CI only.\n").unwrap();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("SessionStart", Some("startup|resume"), vec![command(&project_hook("session-context.sh"))]),
    );
    let start = |source: &str| {
        claude_event(&sandbox, "SessionStart", json!({ "source": source, "model": "claude-sonnet-4-5" }))
    };

    let run = sandbox.hook("claude", &[&settings], &start("startup"));
    assert_eq!(run.context("SessionStart"), "Session startup in project.\nDeploys go through CI only.");

    let mut bridge = sandbox.command("claude", &[&settings], &[]);
    let env_file = sandbox.write("env/session.sh", "");
    bridge.env("CLAUDE_ENV_FILE", &env_file);
    let run = sandbox.run(bridge, &start("resume"));
    assert_eq!(run.context("SessionStart"), "Session resume in project.\nDeploys go through CI only.");
    assert_eq!(fs::read_to_string(&env_file).unwrap(), "export NODE_ENV=development\n", "appended to the agent's file");

    sandbox.hook("claude", &[&settings], &start("clear")).assert_no_decision("`clear` is not matched");
}

// ----------------------------------------------------------------------------------------------
// Stop, Notification, PreCompact, transcripts.

#[test]
fn stop_hook_blocks_until_tests_pass_and_respects_stop_hook_active() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("Stop", None, vec![command(&format!("python3 {}", project_hook("stop-until-tests-pass.py")))]),
    );
    let stop = |active: bool| {
        claude_event(
            &sandbox,
            "Stop",
            json!({ "stop_hook_active": active, "last_assistant_message": "Done: the parser is refactored." }),
        )
    };

    let run = sandbox.hook("claude", &[&settings], &stop(false));
    assert_eq!(
        run.block_reason(),
        "Tests are not passing yet (status: unknown). Run the test suite and fix the failures."
    );
    assert_eq!(run.json().as_object().unwrap().len(), 2, "a Stop block is decision + reason\n{}", run.describe());

    sandbox.hook("claude", &[&settings], &stop(true)).assert_no_decision("stop_hook_active ends the loop");

    fs::write(sandbox.project_file(".test-status"), "pass\n").unwrap();
    sandbox.hook("claude", &[&settings], &stop(false)).assert_no_decision("tests pass");
}

fn transcript_entries(last_text: &str) -> Vec<Value> {
    vec![
        json!({ "type": "summary", "summary": "Refactoring", "leafUuid": "u0" }),
        json!({ "type": "user", "message": { "role": "user", "content": "refactor the parser" }, "uuid": "u1" }),
        json!({ "type": "assistant", "message": { "role": "assistant", "content": [
            { "type": "thinking", "thinking": "..." },
            { "type": "tool_use", "id": "toolu_1", "name": "Edit", "input": {} },
        ] }, "uuid": "u2" }),
        json!({ "type": "user", "message": { "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": "toolu_1", "content": "ok" },
        ] }, "uuid": "u3" }),
        json!({ "type": "assistant", "message": { "role": "assistant", "content": [
            { "type": "text", "text": last_text },
        ] }, "uuid": "u4" }),
    ]
}

#[test]
fn stop_hook_reading_the_transcript_jsonl_blocks_with_exit_2() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("Stop", None, vec![command(&format!("python3 {}", project_hook("transcript-check.py")))]),
    );
    let stop = claude_event(&sandbox, "Stop", json!({ "stop_hook_active": false }));

    sandbox.write_transcript(&transcript_entries("Parser refactored. The docs I'll do that later."));
    let run = sandbox.hook("claude", &[&settings], &stop);
    assert_eq!(run.block_reason(), "You said you would finish something later. Finish it now.");

    sandbox.write_transcript(&transcript_entries("Parser refactored and documented."));
    sandbox.hook("claude", &[&settings], &stop).assert_no_decision("nothing promised");
}

#[test]
fn node_stop_hook_reading_stdin_to_the_end_and_the_transcript() {
    if !have("node", "node_stop_hook_reading_stdin_to_the_end_and_the_transcript") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("Stop", Some(""), vec![command(&format!("node {}", project_hook("transcript-check.mjs")))]),
    );
    let stop = |active: bool| claude_event(&sandbox, "Stop", json!({ "stop_hook_active": active }));
    sandbox.write_transcript(&transcript_entries("Done, but TODO: error handling."));
    let run = sandbox.hook("claude", &[&settings], &stop(false));
    assert_eq!(run.block_reason(), "Resolve the TODO you left before stopping.");
    sandbox.hook("claude", &[&settings], &stop(true)).assert_no_decision("stop_hook_active");
}

#[test]
fn continue_true_with_suppress_output_decides_nothing() {
    if !have("node", "continue_true_with_suppress_output_decides_nothing") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": {
            "UserPromptSubmit": [ { "hooks": [command(&format!("node {}", project_hook("continue-true.js")))] } ],
            "PostToolUse": [ { "matcher": "*", "hooks": [command(&format!("node {}", project_hook("continue-true.js")))] } ],
        } }),
    );
    let prompt = claude_event(&sandbox, "UserPromptSubmit", json!({ "prompt": "hello" }));
    // Not a decision, and its JSON is not passed on as plain-text context either.
    sandbox.hook("claude", &[&settings], &prompt).assert_no_decision("`continue: true` on UserPromptSubmit");
    let file = sandbox.project_file("a.txt");
    let run = sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, &file, "a"));
    run.assert_no_decision("`continue: true` on PostToolUse");
}

#[test]
fn notification_hook_only_logs() {
    if !have("jq", "notification_hook_only_logs") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox
        .settings("settings.json", &settings_one("Notification", None, vec![command(&project_hook("notify-log.sh"))]));
    let input = claude_event(
        &sandbox,
        "Notification",
        json!({ "message": "Claude is waiting for your input", "notification_type": "idle_prompt" }),
    );
    sandbox.hook("claude", &[&settings], &input).assert_no_decision("a logger");
    assert_eq!(
        fs::read_to_string(sandbox.root().join("home/.claude/logs/notifications.log")).unwrap(),
        "idle_prompt\tClaude is waiting for your input\n",
        "the hook ran with the agent's HOME"
    );
}

#[test]
fn pre_compact_hook_backs_up_the_transcript() {
    let sandbox = Sandbox::new();
    sandbox.write_transcript(&transcript_entries("hello"));
    let settings = sandbox.settings(
        "settings.json",
        &settings_one(
            "PreCompact",
            Some("auto"),
            vec![command(&format!("python3 {}", project_hook("precompact-backup.py")))],
        ),
    );
    let compact =
        |trigger: &str| claude_event(&sandbox, "PreCompact", json!({ "trigger": trigger, "custom_instructions": "" }));
    sandbox.hook("claude", &[&settings], &compact("auto")).assert_no_decision("a backup hook");
    let backup = sandbox.project_file(&format!(".claude/backups/{SESSION_ID}-auto.jsonl"));
    assert_eq!(fs::read_to_string(backup).unwrap(), fs::read_to_string(sandbox.transcript()).unwrap());

    sandbox.hook("claude", &[&settings], &compact("manual")).assert_no_decision("manual is not matched");
    assert!(!sandbox.project_file(&format!(".claude/backups/{SESSION_ID}-manual.jsonl")).exists());
}

// ----------------------------------------------------------------------------------------------
// Settings shapes from the wild.

#[test]
fn inline_jq_logger_in_the_settings_command_appends_to_a_home_file() {
    if !have("jq", "inline_jq_logger_in_the_settings_command_appends_to_a_home_file") {
        return;
    }
    let sandbox = Sandbox::new();
    let logger = r#"jq -r '"\(.tool_input.command) - \(.tool_input.description // "No description")"' >> ~/.claude/bash-command-log.txt"#;
    fs::create_dir_all(sandbox.root().join("home/.claude")).unwrap();
    let settings = sandbox.settings("settings.json", &settings_one("PreToolUse", Some("Bash"), vec![command(logger)]));
    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "cargo build")).assert_no_decision("a logger");
    assert_eq!(
        fs::read_to_string(sandbox.root().join("home/.claude/bash-command-log.txt")).unwrap(),
        "cargo build - Run it\n"
    );
}

#[test]
fn unquoted_and_relative_script_paths_and_unknown_group_members_work() {
    if !have("jq", "unquoted_and_relative_script_paths_and_unknown_group_members_work") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({
            "$schema": "https://json.schemastore.org/claude-code-settings.json",
            "permissions": { "allow": ["Bash(npm run lint)"] },
            "hooks": { "PreToolUse": [
                // Unquoted variable, as many READMEs show.
                { "matcher": "Bash", "hooks": [ { "type": "command",
                    "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/block-dangerous.sh" } ] },
                // A relative path run from the project directory, and `tools`, a member Claude
                // Code does not know (so the group matches every tool).
                { "tools": ["Edit", "Write"], "hooks": [ { "type": "command",
                    "command": "bash .claude/hooks/protect-files.sh", "timeout": 10 } ] },
            ] }
        }),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "rm -rf ~"));
    assert!(run.deny_reason().starts_with("BLOCKED: 'rm -rf ~'"), "{}", run.describe());
    let read_env = claude_tool(
        &sandbox,
        "PreToolUse",
        "Read",
        json!({ "file_path": sandbox.project_file(".env").display().to_string() }),
    );
    assert!(sandbox.hook("claude", &[&settings], &read_env).deny_reason().contains(".env files hold secrets"));
}

#[test]
fn timeouts_written_in_milliseconds_in_claude_settings_still_load() {
    let sandbox = Sandbox::new();
    // Published examples write `"timeout": 10000` or `120000` meaning milliseconds; Claude Code
    // reads seconds and runs the hook. hookwire must not refuse the file (which would fail
    // closed on every PreToolUse).
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "PreToolUse": [
            { "matcher": "Bash", "hooks": [
                { "type": "command", "command": format!("python3 {}", project_hook("codex-guard.py")), "timeout": 10000 },
                { "type": "command", "command": project_hook("silent.sh"), "timeout": 120000 },
            ] },
        ] } }),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls"));
    run.assert_no_decision("both hooks run, silent");
    assert!(
        run.stderr.contains("`timeout: 120000` seconds is over 24 hours (were milliseconds meant?)"),
        "the capped timeout is reported\n{}",
        run.describe()
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "git reset --hard HEAD~1"));
    assert_eq!(run.deny_reason(), "git reset --hard discards work; use git stash.");

    // Beyond what the agent's timer holds (about 24 days) the agent would kill the hook at once:
    // that switches a guard off, so the file is refused and blocking events fail closed.
    let absurd = sandbox.settings(
        "absurd.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![json!({ "type": "command", "command": "true", "timeout": 1e30 })],
        ),
    );
    let run = sandbox.hook("claude", &[&absurd], &claude_bash(&sandbox, "ls"));
    assert!(
        run.deny_reason()
            .ends_with("`timeout` must be a number of seconds the agent can wait (at most 24 days); got 1e30"),
        "{}",
        run.describe()
    );
}

// ----------------------------------------------------------------------------------------------
// Plugins.

#[test]
fn plugin_hooks_json_with_claude_plugin_root() {
    let sandbox = Sandbox::new();
    let hooks_json = sandbox.plugin().join("hooks/hooks.json");
    let bash = |command: &str| {
        let bridge = sandbox.command("claude", &[], &[&hooks_json]);
        sandbox.run(bridge, &claude_bash(&sandbox, command))
    };
    let run = bash("git commit -m 'fix the parser'");
    assert_eq!(run.deny_reason(), "Commit messages must start with a ticket number such as ABC-123.");
    bash("git commit -m 'ABC-42 fix the parser'").assert_no_decision("a ticket number");
    bash("ls").assert_no_decision("not a commit");

    let start = claude_event(&sandbox, "SessionStart", json!({ "source": "startup" }));
    let run = sandbox.run(sandbox.command("claude", &[], &[&hooks_json]), &start);
    assert_eq!(run.context("SessionStart"), "commit-guard plugin active (root: commit-guard)");
}

// ----------------------------------------------------------------------------------------------
// Gemini CLI and Codex.

#[test]
fn gemini_before_tool_guard_and_after_tool_logger() {
    if !have("jq", "gemini_before_tool_guard_and_after_tool_logger") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "gemini-settings.json",
        &json!({ "hooks": {
            "BeforeTool": [ { "matcher": "write_file|replace", "hooks": [ {
                "name": "file-guard", "type": "command",
                "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/gemini-file-guard.sh", "timeout": 5000,
            } ] } ],
            "AfterTool": [ { "matcher": "*", "hooks": [ {
                "name": "tool-logger", "type": "command",
                "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/gemini-log-tools.sh",
                "description": "Log all tool executions",
            } ] } ],
        } }),
    );
    let gemini = |event: &str, tool: &str, tool_input: Value| {
        let mut input = json!({
            "session_id": SESSION_ID,
            "transcript_path": sandbox.root().join("home/.gemini/tmp/chats/session.json"),
            "cwd": sandbox.project_str(),
            "hook_event_name": event,
            "timestamp": "2026-11-26T05:33:53.123Z",
            "tool_name": tool,
            "tool_input": tool_input,
        });
        if event == "AfterTool" {
            input["tool_response"] = json!({ "llmContent": "ok", "returnDisplay": "ok" });
        }
        input
    };
    let env = sandbox.project_file(".env").display().to_string();
    let run = sandbox.hook(
        "gemini",
        &[&settings],
        &gemini("BeforeTool", "write_file", json!({ "file_path": env, "content": "A=1" })),
    );
    assert_eq!(
        run.json(),
        json!({ "decision": "deny", "reason": format!("Gemini may not write {env}") }),
        "{}",
        run.describe()
    );

    let readme = sandbox.project_file("README.md").display().to_string();
    let run = sandbox.hook(
        "gemini",
        &[&settings],
        &gemini("BeforeTool", "replace", json!({ "file_path": readme, "old_string": "a", "new_string": "b" })),
    );
    assert_eq!(run.json(), json!({ "decision": "allow" }), "the guard's own allow\n{}", run.describe());

    let run =
        sandbox.hook("gemini", &[&settings], &gemini("AfterTool", "run_shell_command", json!({ "command": "ls" })));
    assert_eq!(
        run.json(),
        json!({ "systemMessage": "Logged: run_shell_command" }),
        "plain text on exit 0 is a notice for the user, never a deny\n{}",
        run.describe()
    );
    assert_eq!(
        sandbox.read_project_file(".gemini/tool-log.txt").as_deref(),
        Some("tool executed: run_shell_command\n"),
        "the logger ran with GEMINI_PROJECT_DIR"
    );
}

#[test]
fn codex_pre_tool_use_guard_json_deny_and_exit_2() {
    let sandbox = Sandbox::new();
    let path = sandbox.project_file(".codex/hooks.json");
    fs::write(
        &path,
        serde_json::to_string_pretty(&settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![json!({ "type": "command", "command": "python3 .codex/hooks/codex-guard.py", "timeout": 30 })],
        ))
        .unwrap(),
    )
    .unwrap();
    let codex = |command: &str| {
        json!({
            "session_id": SESSION_ID,
            "turn_id": "turn-3",
            "transcript_path": null,
            "cwd": sandbox.project_str(),
            "hook_event_name": "PreToolUse",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": { "command": command },
            "tool_use_id": "call_7",
        })
    };
    let run = sandbox.hook("codex", &[&path], &codex("git reset --hard origin/main"));
    assert_eq!(run.deny_reason(), "git reset --hard discards work; use git stash.");
    let run = sandbox.hook("codex", &[&path], &codex("rm -rf build"));
    assert_eq!(run.deny_reason(), "rm -rf is blocked by the Codex guard");
    sandbox.hook("codex", &[&path], &codex("cargo check")).assert_no_decision("a safe command");
}

// ----------------------------------------------------------------------------------------------
// Fixed: each of these broke a published hook before.

#[test]
fn json_after_a_byte_order_mark_is_read_as_json() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("PreToolUse", Some("Bash"), vec![command(&format!("python3 {}", project_hook("bom-json.py")))]),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "psql -c 'DROP TABLE users'"));
    assert_eq!(run.deny_reason(), "No destructive SQL from the agent.", "the BOM is trimmed as JavaScript trims");
    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "psql -c 'SELECT 1'")).assert_no_decision("silent");
}

/// A guard written inline in the settings with bash syntax (`[[ ... == *pattern* ]]`).
const BASH_SYNTAX_GUARD: &str = r#"input=$(cat); if [[ "$input" == *'"command":"rm '* ]]; then echo '{"decision": "block", "reason": "no rm from the agent"}'; fi"#;

#[test]
fn gemini_commands_run_under_bash_as_gemini_runs_them() {
    if !have("bash", "gemini_commands_run_under_bash_as_gemini_runs_them") {
        return;
    }
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "gemini-settings.json",
        &json!({ "hooks": { "BeforeTool": [ { "matcher": "run_shell_command", "hooks": [
            { "name": "rm-guard", "type": "command", "command": BASH_SYNTAX_GUARD, "timeout": 5000 },
        ] } ] } }),
    );
    let input = json!({
        "session_id": SESSION_ID,
        "transcript_path": sandbox.root().join("home/.gemini/tmp/chats/session.json"),
        "cwd": sandbox.project_str(),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-11-26T05:33:53.123Z",
        "tool_name": "run_shell_command",
        "tool_input": { "command": "rm -rf build" },
    });
    let run = sandbox.hook("gemini", &[&settings], &input);
    // Under /bin/sh (dash) `[[` is "not found", the `if` fails and the guard is silently off.
    assert_eq!(run.json(), json!({ "decision": "deny", "reason": "no rm from the agent" }), "{}", run.describe());
}

#[test]
fn codex_commands_run_under_the_users_shell() {
    if !have("bash", "codex_commands_run_under_the_users_shell") {
        return;
    }
    let sandbox = Sandbox::new();
    let path = sandbox.project_file(".codex/hooks.json");
    fs::write(&path, settings_one("PreToolUse", Some("Bash"), vec![command(BASH_SYNTAX_GUARD)]).to_string()).unwrap();
    let input = json!({
        "session_id": SESSION_ID,
        "turn_id": "turn-1",
        "transcript_path": null,
        "cwd": sandbox.project_str(),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": { "command": "rm -rf build" },
        "tool_use_id": "call_1",
    });
    let bash = String::from_utf8(Command::new("sh").args(["-c", "command -v bash"]).output().unwrap().stdout).unwrap();
    let mut bridge = sandbox.command("codex", &[&path], &[]);
    bridge.env("SHELL", bash.trim());
    let run = sandbox.run(bridge, &input);
    assert_eq!(run.deny_reason(), "no rm from the agent", "Codex runs `$SHELL -lc`: bash syntax works");
}

#[test]
fn hooks_read_exactly_the_members_the_agent_sent() {
    let sandbox = Sandbox::new();
    let dump = |agent: &str| command(&format!("cat > \"$CLAUDE_PROJECT_DIR\"/{agent}-input.json"));
    let seen = |agent: &str| -> Value {
        serde_json::from_str(&sandbox.read_project_file(&format!("{agent}-input.json")).unwrap()).unwrap()
    };
    let gemini = sandbox.settings(
        "gemini-settings.json",
        &json!({ "hooks": { "BeforeTool": [ { "matcher": ".*", "hooks": [dump("gemini")] } ] } }),
    );
    let codex = sandbox.settings("codex.json", &settings_one("PreToolUse", None, vec![dump("codex")]));
    let claude = sandbox.settings("claude.json", &settings_one("PreToolUse", None, vec![dump("claude")]));

    // Gemini CLI sends no `tool_use_id`; its MCP members come through as they are.
    let input = json!({
        "session_id": SESSION_ID,
        "transcript_path": sandbox.root().join("home/.gemini/tmp/chats/session.json"),
        "cwd": sandbox.project_str(),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-11-26T05:33:53.123Z",
        "tool_name": "mcp_github_list_issues",
        "tool_input": { "owner": "o", "repo": "r" },
        "mcp_context": { "server_name": "github", "tool_name": "list_issues" },
        "original_request_name": "mcp_github_list_issues",
    });
    sandbox.hook("gemini", &[&gemini], &input).assert_no_decision("a dump");
    assert_eq!(seen("gemini"), input);

    // Codex: `turn_id`, `model`, a null `transcript_path`.
    let input = json!({
        "session_id": SESSION_ID,
        "turn_id": "turn-9",
        "transcript_path": null,
        "cwd": sandbox.project_str(),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "acceptEdits",
        "tool_name": "apply_patch",
        "tool_input": { "command": "*** Begin Patch\n*** End Patch\n" },
        "tool_use_id": "call_9",
    });
    sandbox.hook("codex", &[&codex], &input).assert_no_decision("a dump");
    assert_eq!(seen("codex"), input);

    // Claude Code: members hookwire does not know (a newer build's) are passed on untouched.
    let mut input = claude_bash(&sandbox, "ls");
    input["prompt_id"] = "p-1".into();
    input["effort"] = json!({ "level": "high" });
    input["agent_id"] = "agent-3".into();
    input["future_member"] = json!({ "x": [1, 2.5, null, "é"] });
    sandbox.hook("claude", &[&claude], &input).assert_no_decision("a dump");
    assert_eq!(seen("claude"), input);
}

#[test]
fn task_matchers_select_the_renamed_agent_tool_and_codex_aliases_select_its_tools() {
    let sandbox = Sandbox::new();
    // Subagent hooks published before Claude Code renamed `Task` to `Agent` (2.1.63) match
    // `Task`; Claude Code still runs them for `Agent`, through its legacy-name table.
    let log = |name: &str| command(&format!("jq -r '.tool_name' >> \"$CLAUDE_PROJECT_DIR\"/{name}.log"));
    if !have("jq", "task_matchers_select_the_renamed_agent_tool_and_codex_aliases_select_its_tools") {
        return;
    }
    let claude = sandbox.settings(
        "claude.json",
        &json!({ "hooks": { "PreToolUse": [
            { "matcher": "Task", "hooks": [log("task-exact")] },
            { "matcher": "Task|Bash", "hooks": [log("task-list")] },
            { "matcher": "^Task$", "hooks": [log("task-regex")] },
            { "hooks": [ { "type": "command", "if": "Task(review *)",
                "command": "cat >/dev/null; echo 'reviews go through the review agent' >&2; exit 2" } ] },
        ] } }),
    );
    let agent = claude_tool(
        &sandbox,
        "PreToolUse",
        "Agent",
        json!({ "description": "Review", "prompt": "review the parser change", "subagent_type": "code-reviewer" }),
    );
    let run = sandbox.hook("claude", &[&claude], &agent);
    assert_eq!(run.deny_reason(), "reviews go through the review agent", "the `if` rule names the tool `Task`");
    for name in ["task-exact", "task-list", "task-regex"] {
        assert_eq!(sandbox.read_project_file(&format!("{name}.log")).as_deref(), Some("Agent\n"), "{name}");
    }

    // Codex gives `apply_patch` the matcher aliases `Write` and `Edit`.
    let codex = sandbox.settings("codex.json", &settings_one("PreToolUse", Some("Edit|Write"), vec![log("codex")]));
    let patch = json!({
        "session_id": SESSION_ID,
        "turn_id": "turn-1",
        "transcript_path": null,
        "cwd": sandbox.project_str(),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "tool_name": "apply_patch",
        "tool_input": { "command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n" },
        "tool_use_id": "call_2",
    });
    sandbox.hook("codex", &[&codex], &patch).assert_no_decision("a logger");
    assert_eq!(sandbox.read_project_file("codex.log").as_deref(), Some("apply_patch\n"));
}

#[test]
fn gemini_extension_hooks_with_extension_path_and_separator_variables() {
    let sandbox = Sandbox::new();
    let extension = sandbox.root().join("home/.gemini/extensions/secret-guard");
    copy_tree(&fixtures().join("gemini-extension"), &extension);
    let hooks_json = extension.join("hooks/hooks.json");
    let shell = |command: &str| {
        json!({
            "session_id": SESSION_ID,
            "transcript_path": sandbox.root().join("home/.gemini/tmp/chats/session.json"),
            "cwd": sandbox.project_str(),
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-11-26T05:33:53.123Z",
            "tool_name": "run_shell_command",
            "tool_input": { "command": command },
        })
    };
    // Without `${extensionPath}` and `${/}` written in, bash fails with "bad substitution" and
    // the guard is silently off.
    let run = sandbox.run(sandbox.command("gemini", &[], &[&hooks_json]), &shell("cat .env"));
    assert_eq!(
        run.json(),
        json!({ "decision": "deny", "reason": "secret-guard: that command reads a secret file" }),
        "{}",
        run.describe()
    );
    sandbox.run(sandbox.command("gemini", &[], &[&hooks_json]), &shell("ls")).assert_no_decision("a safe command");
}

// ----------------------------------------------------------------------------------------------
// Second pass: answer fields, tool_response shapes, matchers on non-tool events, handler
// options, settings shapes, Gemini model events, Codex Stop and UserPromptSubmit.

/// A Python one-liner hook: `python3 -c '<code>'` with `json` and `sys` imported and the input
/// read into `d`.
fn py(code: &str) -> String {
    format!("python3 -c 'import json,sys; d=json.load(sys.stdin); {code}'")
}

#[test]
fn post_tool_use_reads_bash_tool_response_and_blocks_with_suppress_output() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("PostToolUse", Some("Bash"), vec![command(&project_hook("bash-result-check.py"))]),
    );
    let post = |stdout: &str, interrupted: bool| {
        let mut input =
            claude_tool(&sandbox, "PostToolUse", "Bash", json!({ "command": "pytest -q", "description": "Run tests" }));
        input["tool_response"] = json!({ "stdout": stdout, "stderr": "", "interrupted": interrupted, "isImage": false, "noOutputExpected": false });
        input
    };
    let run = sandbox.hook("claude", &[&settings], &post("FAILED tests/test_a.py::test_x\n1 failed", false));
    assert_eq!(run.block_reason(), "1 test(s) failed in `pytest -q`:\nFAILED tests/test_a.py::test_x");
    assert!(run.json().get("suppressOutput").is_none() || run.json()["suppressOutput"] == true, "{}", run.describe());

    let run = sandbox.hook("claude", &[&settings], &post("", true));
    assert_eq!(run.json(), json!({ "systemMessage": "`pytest -q` was interrupted" }), "{}", run.describe());

    sandbox.hook("claude", &[&settings], &post("3 passed", false)).assert_no_decision("passing tests");
}

#[test]
fn post_tool_use_sees_each_tools_own_tool_response_verbatim() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "PostToolUse": [ { "matcher": "Edit|Write|Read", "hooks": [
            command("cat > \"$CLAUDE_PROJECT_DIR\"/post-input.json"),
            command(&project_hook("edit-response-check.py")),
        ] } ] } }),
    );
    let file = sandbox.project_file("src/lib.rs").display().to_string();
    let edit_response = json!({
        "filePath": file, "oldString": "a", "newString": "b", "originalFile": "a\n",
        "structuredPatch": [ { "oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"] } ],
        "userModified": false, "replaceAll": false,
    });
    let mut edit = claude_tool(
        &sandbox,
        "PostToolUse",
        "Edit",
        json!({ "file_path": file, "old_string": "a", "new_string": "b" }),
    );
    edit["tool_response"] = edit_response;
    let run = sandbox.hook("claude", &[&settings], &edit);
    assert_eq!(run.context("PostToolUse"), format!("Edit of {file}: 'a' -> 'b', 1 hunk(s)"));
    let seen: Value = serde_json::from_str(&sandbox.read_project_file("post-input.json").unwrap()).unwrap();
    assert_eq!(seen, edit, "the PostToolUse input, tool_response included, reaches the hook as sent");

    let mut read = claude_tool(&sandbox, "PostToolUse", "Read", json!({ "file_path": file }));
    read["tool_response"] = json!({ "type": "text", "file": {
        "filePath": file, "content": "b\n", "numLines": 1, "startLine": 1, "totalLines": 1 } });
    let run = sandbox.hook("claude", &[&settings], &read);
    assert_eq!(run.context("PostToolUse"), format!("Read 1 lines of {file}"));
    let seen: Value = serde_json::from_str(&sandbox.read_project_file("post-input.json").unwrap()).unwrap();
    assert_eq!(seen, read);

    let run = sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, Path::new(&file), "b\n"));
    assert_eq!(run.context("PostToolUse"), format!("Write (create) of {file}"));
}

#[test]
fn continue_false_with_stop_reason_and_system_messages_reach_the_agent() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &settings_one("PostToolUse", Some("*"), vec![command(&format!("{} 3", project_hook("tool-budget.py")))]),
    );
    let post = || {
        let mut input = claude_tool(&sandbox, "PostToolUse", "Bash", json!({ "command": "ls" }));
        input["tool_response"] = json!({ "stdout": "a\n", "stderr": "", "interrupted": false, "isImage": false });
        input
    };
    sandbox.hook("claude", &[&settings], &post()).assert_no_decision("first call");
    let run = sandbox.hook("claude", &[&settings], &post());
    assert_eq!(run.json(), json!({ "systemMessage": "2 of 3 tool calls used" }), "{}", run.describe());
    let run = sandbox.hook("claude", &[&settings], &post());
    let answer = run.json();
    assert_eq!(answer["continue"], false, "{}", run.describe());
    assert_eq!(answer["stopReason"], "Tool budget of 3 calls spent.", "{}", run.describe());
    assert_eq!(answer["systemMessage"], "budget hook stopped the session", "{}", run.describe());

    // `systemMessage` on events that cannot block (SessionStart, Notification, PreCompact) is
    // still shown to the user.
    let notice = sandbox.settings(
        "notice.json",
        &json!({ "hooks": {
            "SessionStart": [ { "hooks": [command(&py("print(json.dumps({\"systemMessage\": \"hello from \" + d[\"source\"]}))"))] } ],
            "Notification": [ { "hooks": [command(&py("print(json.dumps({\"systemMessage\": d[\"message\"], \"suppressOutput\": True}))"))] } ],
        } }),
    );
    let start = claude_event(&sandbox, "SessionStart", json!({ "source": "resume" }));
    let run = sandbox.hook("claude", &[&notice], &start);
    assert_eq!(run.json(), json!({ "systemMessage": "hello from resume" }), "{}", run.describe());
    let note = claude_event(
        &sandbox,
        "Notification",
        json!({ "message": "Needs approval", "notification_type": "permission_prompt" }),
    );
    let run = sandbox.hook("claude", &[&notice], &note);
    assert_eq!(run.json(), json!({ "systemMessage": "Needs approval" }), "{}", run.describe());
}

#[test]
fn user_prompt_submit_block_and_exit_2_with_and_without_stderr() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "UserPromptSubmit": [ { "hooks": [
            command(&py("p=d[\"prompt\"]; print(json.dumps({\"decision\": \"block\", \"reason\": \"no deploys on Friday\"})) if \"deploy\" in p else None")),
            command("input=$(cat); case \"$input\" in *'rm -rf'*) echo 'Prompt mentions rm -rf' >&2; exit 2;; *'quiet-no'*) exit 2;; esac"),
        ] } ] } }),
    );
    let prompt = |text: &str| claude_event(&sandbox, "UserPromptSubmit", json!({ "prompt": text }));
    assert_eq!(sandbox.hook("claude", &[&settings], &prompt("deploy now")).block_reason(), "no deploys on Friday");
    assert_eq!(
        sandbox.hook("claude", &[&settings], &prompt("run rm -rf /tmp/x")).block_reason(),
        "Prompt mentions rm -rf"
    );
    // Exit 2 with nothing on stderr still blocks the prompt.
    let run = sandbox.hook("claude", &[&settings], &prompt("quiet-no please"));
    assert_eq!(run.json()["decision"], "block", "{}", run.describe());
    sandbox.hook("claude", &[&settings], &prompt("hello")).assert_no_decision("an ordinary prompt");

    // PreToolUse exit 2 with an empty stderr: still a deny.
    let guard = sandbox.settings("guard.json", &settings_one("PreToolUse", Some("Bash"), vec![command("exit 2")]));
    let run = sandbox.hook("claude", &[&guard], &claude_bash(&sandbox, "ls"));
    assert!(!run.deny_reason().is_empty(), "{}", run.describe());
}

#[test]
fn matchers_on_source_trigger_notification_type_and_agent_type() {
    let sandbox = Sandbox::new();
    let log = |tag: &str| command(&format!("echo {tag} >> \"$CLAUDE_PROJECT_DIR\"/matched.log"));
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": {
            "SessionStart": [
                { "matcher": "compact", "hooks": [command("echo 'Reminder after compaction: run tests before committing.'")] },
                { "matcher": "clear", "hooks": [log("clear")] },
            ],
            "PreCompact": [ { "matcher": "manual", "hooks": [log("manual")] } ],
            "Notification": [ { "matcher": "permission_prompt|idle_prompt", "hooks": [log("notify")] } ],
            "SubagentStop": [ { "matcher": "code-reviewer", "hooks": [command(&py(
                "print(json.dumps({\"decision\": \"block\", \"reason\": \"review again\"})) if not d.get(\"stop_hook_active\") else None"))] } ],
        } }),
    );
    let run =
        sandbox.hook("claude", &[&settings], &claude_event(&sandbox, "SessionStart", json!({ "source": "compact" })));
    assert_eq!(run.context("SessionStart"), "Reminder after compaction: run tests before committing.");
    for (event, extra) in [
        ("SessionStart", json!({ "source": "startup" })),
        ("SessionStart", json!({ "source": "clear" })),
        ("PreCompact", json!({ "trigger": "auto", "custom_instructions": "" })),
        ("PreCompact", json!({ "trigger": "manual", "custom_instructions": "keep the API notes" })),
        ("Notification", json!({ "message": "m", "notification_type": "auth_success" })),
        ("Notification", json!({ "message": "m", "notification_type": "idle_prompt" })),
    ] {
        sandbox.hook("claude", &[&settings], &claude_event(&sandbox, event, extra)).assert_no_decision(event);
    }
    assert_eq!(sandbox.read_project_file("matched.log").as_deref(), Some("clear\nmanual\nnotify\n"));

    let subagent = |agent_type: &str, active: bool| {
        claude_event(
            &sandbox,
            "SubagentStop",
            json!({ "stop_hook_active": active, "agent_id": "a-1", "agent_type": agent_type,
                    "agent_transcript_path": "/tmp/sub.jsonl", "last_assistant_message": "LGTM" }),
        )
    };
    assert_eq!(sandbox.hook("claude", &[&settings], &subagent("code-reviewer", false)).block_reason(), "review again");
    sandbox.hook("claude", &[&settings], &subagent("code-reviewer", true)).assert_no_decision("stop_hook_active");
    sandbox.hook("claude", &[&settings], &subagent("general-purpose", false)).assert_no_decision("another agent");
}

#[test]
fn handler_options_async_once_status_message_load_and_disable_all_hooks() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [
            { "type": "command", "command": "cat >/dev/null; echo tick >> \"$CLAUDE_PROJECT_DIR\"/async.log",
              "async": true, "timeout": 30 },
            { "type": "command", "command": project_hook("block-dangerous.sh"),
              "statusMessage": "Checking the command...", "once": true, "enabled": true },
        ] } ] } }),
    );
    if have("jq", "handler_options_async_once_status_message_load_and_disable_all_hooks") {
        let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "git push --force"));
        assert!(run.deny_reason().starts_with("BLOCKED"), "{}", run.describe());
    }
    sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls")).assert_no_decision("safe");
    assert!(sandbox.read_project_file("async.log").is_some_and(|l| l.starts_with("tick\n")), "the async hook ran");

    let off = sandbox.settings(
        "off.json",
        &json!({ "disableAllHooks": true, "hooks": { "PreToolUse": [ { "hooks": [command("echo no >&2; exit 2")] } ] } }),
    );
    sandbox.hook("claude", &[&off], &claude_bash(&sandbox, "ls")).assert_no_decision("disableAllHooks");
}

#[test]
fn async_hooks_cannot_decide_as_in_claude_code() {
    let sandbox = Sandbox::new();
    // Claude Code runs an `async` hook in the background: the action goes on, its exit 2 or JSON
    // decides nothing for this call.
    let settings = sandbox.settings(
        "settings.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![json!({ "type": "command", "async": true,
                "command": "cat >/dev/null; echo 'background check failed' >&2; exit 2" })],
        ),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls"));
    run.assert_no_decision("an async hook's exit 2");
    assert!(run.stderr.contains("`async` hooks run in order here"), "the difference is reported\n{}", run.describe());

    // `asyncRewake: true` runs in the background too (its exit 2 may wake the agent later).
    let settings = sandbox.settings(
        "rewake.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![json!({ "type": "command", "asyncRewake": true,
                "command": "cat >/dev/null; echo 'tests failed' >&2; exit 2" })],
        ),
    );
    sandbox
        .hook("claude", &[&settings], &claude_bash(&sandbox, "ls"))
        .assert_no_decision("an asyncRewake hook's exit 2");

    // Its JSON deny and `continue: false` decide nothing either; its notice and context count.
    let answer = r#"{"continue": false, "stopReason": "x", "systemMessage": "tests started", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "test run queued", "permissionDecision": "deny"}, "decision": "block", "reason": "r"}"#;
    let settings = sandbox.settings(
        "post.json",
        &settings_one(
            "PostToolUse",
            Some("Write"),
            vec![json!({ "type": "command", "async": true, "command": format!("cat >/dev/null; echo '{answer}'") })],
        ),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_post_write(&sandbox, &sandbox.project_file("a.py"), "x"));
    assert_eq!(
        run.json(),
        json!({ "systemMessage": "tests started",
                "hookSpecificOutput": { "hookEventName": "PostToolUse", "additionalContext": "test run queued" } }),
        "{}",
        run.describe()
    );
}

#[test]
fn continue_false_on_pre_tool_use_and_matchers_on_events_without_matchers() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": {
            "PreToolUse": [ { "matcher": "Bash", "hooks": [command(&py(
                "print(json.dumps({\"continue\": False, \"stopReason\": \"Emergency stop: .stop file present\"}))"))] } ],
            // UserPromptSubmit and Stop have no matcher: Claude Code ignores one written there.
            "UserPromptSubmit": [ { "matcher": "Bash", "hooks": [command("echo 'ctx from a matcher-less event'")] } ],
            "Stop": [ { "matcher": "*", "hooks": [command(&py(
                "print(json.dumps({\"decision\": \"block\", \"reason\": \"one more pass\"})) if not d[\"stop_hook_active\"] else None"))] } ],
        } }),
    );
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "ls"));
    let answer = run.json();
    assert_eq!(answer["continue"], false, "{}", run.describe());
    assert_eq!(answer["stopReason"], "Emergency stop: .stop file present", "{}", run.describe());

    let prompt = claude_event(&sandbox, "UserPromptSubmit", json!({ "prompt": "hi" }));
    assert_eq!(
        sandbox.hook("claude", &[&settings], &prompt).context("UserPromptSubmit"),
        "ctx from a matcher-less event"
    );
    let stop = claude_event(&sandbox, "Stop", json!({ "stop_hook_active": false }));
    assert_eq!(sandbox.hook("claude", &[&settings], &stop).block_reason(), "one more pass");
}

#[test]
fn project_dir_with_spaces_and_commands_with_tilde_and_home() {
    let sandbox = Sandbox::new();
    let spaced = sandbox.root().join("my project");
    copy_tree(&fixtures().join("hooks"), &spaced.join(".claude/hooks"));
    copy_tree(&fixtures().join("hooks"), &sandbox.root().join("home/.claude/hooks"));
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [
            command(&format!("python3 {}", project_hook("codex-guard.py"))),
            command("python3 ~/.claude/hooks/uv-script-guard.py"),
            command("\"$HOME\"/.claude/hooks/silent.sh"),
        ] } ] } }),
    );
    let mut input = claude_bash(&sandbox, "git reset --hard");
    input["cwd"] = spaced.display().to_string().into();
    let mut bridge = sandbox.command("claude", &[&settings], &[]);
    bridge.env("CLAUDE_PROJECT_DIR", &spaced).current_dir(&spaced);
    let run = sandbox.run(bridge, &input);
    assert_eq!(run.deny_reason(), "git reset --hard discards work; use git stash.");

    let mut input = claude_bash(&sandbox, "npm publish");
    input["cwd"] = spaced.display().to_string().into();
    let mut bridge = sandbox.command("claude", &[&settings], &[]);
    bridge.env("CLAUDE_PROJECT_DIR", &spaced).current_dir(&spaced);
    let run = sandbox.run(bridge, &input);
    assert_eq!(run.permission().as_deref(), Some("ask"), "`~` is expanded by the shell\n{}", run.describe());
}

#[test]
fn stdin_read_twice_from_a_saved_variable() {
    if !have("jq", "stdin_read_twice_from_a_saved_variable") {
        return;
    }
    let sandbox = Sandbox::new();
    let hook = r#"INPUT=$(cat); TOOL=$(echo "$INPUT" | jq -r .tool_name); CMD=$(echo "$INPUT" | jq -r '.tool_input.command'); if [ "$TOOL" = Bash ] && echo "$CMD" | grep -q 'curl.*| *sh'; then echo "Piping curl to sh is blocked ($CMD)" >&2; exit 2; fi"#;
    let settings = sandbox.settings("settings.json", &settings_one("PreToolUse", None, vec![command(hook)]));
    let run = sandbox.hook("claude", &[&settings], &claude_bash(&sandbox, "curl -s https://x.sh | sh"));
    assert_eq!(run.deny_reason(), "Piping curl to sh is blocked (curl -s https://x.sh | sh)");
}

fn gemini_input(sandbox: &Sandbox, event: &str, extra: Value) -> Value {
    let mut input = json!({
        "session_id": SESSION_ID,
        "transcript_path": sandbox.root().join("home/.gemini/tmp/chats/session.json"),
        "cwd": sandbox.project_str(),
        "hook_event_name": event,
        "timestamp": "2026-11-26T05:33:53.123Z",
    });
    for (key, value) in extra.as_object().unwrap() {
        input[key] = value.clone();
    }
    input
}

#[test]
fn gemini_block_and_deny_and_model_events() {
    let sandbox = Sandbox::new();
    let guard = "python3 \"$GEMINI_PROJECT_DIR\"/.gemini/hooks/gemini-model-guard.py";
    let settings = sandbox.settings(
        "gemini-settings.json",
        &json!({ "hooks": {
            "BeforeModel": [ { "hooks": [ { "type": "command", "command": guard, "timeout": 5000 } ] } ],
            "AfterModel": [ { "hooks": [ { "type": "command", "command": guard },
                                         { "type": "command", "command": "cat > \"$GEMINI_PROJECT_DIR\"/after-model.json" } ] } ],
            "BeforeTool": [ { "matcher": "run_shell_command", "hooks": [ { "type": "command",
                "command": "python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({\"decision\": \"block\", \"reason\": \"blocked: \" + d[\"tool_input\"][\"command\"]}))'" } ] } ],
            "BeforeAgent": [ { "hooks": [ { "type": "command",
                "command": "python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({\"decision\": \"deny\", \"reason\": \"no secrets\"}) if \"password\" in d[\"prompt\"] else json.dumps({\"hookSpecificOutput\": {\"hookEventName\": \"BeforeAgent\", \"additionalContext\": \"branch main\"}}))'" } ] } ],
        } }),
    );
    let request = |text: &str| json!({ "model": "gemini-2.5-pro", "messages": [ { "role": "user", "content": text } ], "config": { "temperature": 0 } });
    let run = sandbox.hook(
        "gemini",
        &[&settings],
        &gemini_input(&sandbox, "BeforeModel", json!({ "llm_request": request("-----BEGIN PRIVATE KEY----- abc") })),
    );
    assert_eq!(
        run.json(),
        json!({ "decision": "deny", "reason": "a private key is in the request" }),
        "{}",
        run.describe()
    );
    sandbox
        .hook("gemini", &[&settings], &gemini_input(&sandbox, "BeforeModel", json!({ "llm_request": request("hi") })))
        .assert_no_decision("a clean request");

    let after = gemini_input(
        &sandbox,
        "AfterModel",
        json!({
            "llm_request": request("hi"),
            "llm_response": { "candidates": [ { "content": { "role": "model", "parts": [ { "text": "-----BEGIN PRIVATE KEY-----" } ] }, "finishReason": "STOP" } ] },
        }),
    );
    let run = sandbox.hook("gemini", &[&settings], &after);
    assert_eq!(run.json()["decision"], "deny", "{}", run.describe());
    assert_eq!(run.json()["reason"], "the reply leaks a private key", "{}", run.describe());

    let clean = gemini_input(
        &sandbox,
        "AfterModel",
        json!({
            "llm_request": request("hi"),
            "llm_response": { "candidates": [ { "content": { "role": "model", "parts": [ { "text": "hello" } ] }, "finishReason": "STOP" } ] },
        }),
    );
    sandbox.hook("gemini", &[&settings], &clean).assert_no_decision("a clean reply");
    let seen: Value = serde_json::from_str(&sandbox.read_project_file("after-model.json").unwrap()).unwrap();
    assert_eq!(seen, clean, "AfterModel's llm_request and llm_response reach the hook as sent");

    let tool = gemini_input(
        &sandbox,
        "BeforeTool",
        json!({ "tool_name": "run_shell_command", "tool_input": { "command": "rm -rf /" } }),
    );
    let run = sandbox.hook("gemini", &[&settings], &tool);
    assert_eq!(
        run.json(),
        json!({ "decision": "deny", "reason": "blocked: rm -rf /" }),
        "`block` is a deny too\n{}",
        run.describe()
    );

    let run = sandbox.hook(
        "gemini",
        &[&settings],
        &gemini_input(&sandbox, "BeforeAgent", json!({ "prompt": "my password is x" })),
    );
    assert_eq!(run.json()["decision"], "deny", "{}", run.describe());
    let run = sandbox.hook("gemini", &[&settings], &gemini_input(&sandbox, "BeforeAgent", json!({ "prompt": "hi" })));
    assert_eq!(run.json()["hookSpecificOutput"]["additionalContext"], "branch main", "{}", run.describe());
}

#[test]
fn codex_stop_and_user_prompt_submit() {
    let sandbox = Sandbox::new();
    let path = sandbox.project_file(".codex/hooks.json");
    fs::write(
        &path,
        json!({ "hooks": {
            "Stop": [ { "hooks": [ { "type": "command", "timeout": 30, "command": py(
                "print(json.dumps({\"decision\": \"block\", \"reason\": \"run cargo test first\"})) if not d[\"stop_hook_active\"] else None") } ] } ],
            "UserPromptSubmit": [ { "hooks": [
                { "type": "command", "command": "cat >/dev/null; echo 'Repository rules: no force pushes.'" },
                { "type": "command", "command": py("print(json.dumps({\"decision\": \"block\", \"reason\": \"no tokens in prompts\"})) if \"ghp_\" in d[\"prompt\"] else None") },
            ] } ],
        } })
        .to_string(),
    )
    .unwrap();
    let codex = |event: &str, extra: Value| {
        let mut input = json!({
            "session_id": SESSION_ID, "turn_id": "turn-4", "transcript_path": null,
            "cwd": sandbox.project_str(), "hook_event_name": event, "model": "gpt-5-codex",
            "permission_mode": "default",
        });
        for (key, value) in extra.as_object().unwrap() {
            input[key] = value.clone();
        }
        input
    };
    let run = sandbox.hook(
        "codex",
        &[&path],
        &codex("Stop", json!({ "stop_hook_active": false, "last_assistant_message": "done" })),
    );
    assert_eq!(run.block_reason(), "run cargo test first");
    sandbox
        .hook("codex", &[&path], &codex("Stop", json!({ "stop_hook_active": true, "last_assistant_message": "done" })))
        .assert_no_decision("stop_hook_active");

    let run = sandbox.hook("codex", &[&path], &codex("UserPromptSubmit", json!({ "prompt": "fix the bug" })));
    assert_eq!(run.context("UserPromptSubmit"), "Repository rules: no force pushes.");
    let run = sandbox.hook("codex", &[&path], &codex("UserPromptSubmit", json!({ "prompt": "use ghp_abc" })));
    assert_eq!(run.block_reason(), "no tokens in prompts");
}

#[test]
fn permission_request_auto_approvers_and_failure_and_session_end_hooks() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "settings.json",
        &json!({ "hooks": {
            "PermissionRequest": [ { "matcher": "Bash", "hooks": [
                command(&py("c=d[\"tool_input\"][\"command\"]; b=\"allow\" if c.startswith(\"npm test\") else (\"deny\" if \"sudo\" in c else None); \
print(json.dumps({\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": b, \"message\": \"no sudo\"}}})) if b else None")),
                // Exit 2 means nothing on PermissionRequest.
                command("cat >/dev/null; echo 'ignored' >&2; exit 2"),
            ] } ],
            "PostToolUseFailure": [ { "matcher": "Bash", "hooks": [command(&py(
                "print(json.dumps({\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUseFailure\", \"additionalContext\": \"hint: \" + d[\"error\"][:20]}}))"))] } ],
            "SessionEnd": [ { "matcher": "clear|logout", "hooks": [command(&py(
                "open(\"ended.log\", \"a\").write(d[\"reason\"] + \"\\n\")"))] } ],
        } }),
    );
    let request = |cmd: &str| {
        let mut input = claude_event(
            &sandbox,
            "PermissionRequest",
            json!({ "tool_name": "Bash", "tool_input": { "command": cmd } }),
        );
        input["permission_suggestions"] = json!([ { "type": "addRules", "rules": [ { "toolName": "Bash" } ], "behavior": "allow", "destination": "localSettings" } ]);
        input
    };
    let run = sandbox.hook("claude", &[&settings], &request("npm test -- --watch=false"));
    assert_eq!(
        run.specific("PermissionRequest", "decision"),
        Some(json!({ "behavior": "allow" })),
        "{}",
        run.describe()
    );
    let run = sandbox.hook("claude", &[&settings], &request("sudo rm x"));
    assert_eq!(
        run.specific("PermissionRequest", "decision"),
        Some(json!({ "behavior": "deny", "message": "no sudo" })),
        "{}",
        run.describe()
    );
    sandbox.hook("claude", &[&settings], &request("make")).assert_no_decision("no verdict; exit 2 ignored");

    let mut failure = claude_tool(&sandbox, "PostToolUseFailure", "Bash", json!({ "command": "cargo bulid" }));
    failure["error"] = "error: no such command: `bulid`".into();
    failure["is_interrupt"] = false.into();
    let run = sandbox.hook("claude", &[&settings], &failure);
    assert_eq!(run.context("PostToolUseFailure"), "hint: error: no such comma");

    for reason in ["clear", "prompt_input_exit", "logout"] {
        let end = claude_event(&sandbox, "SessionEnd", json!({ "reason": reason }));
        sandbox.hook("claude", &[&settings], &end).assert_no_decision("SessionEnd");
    }
    assert_eq!(sandbox.read_project_file("ended.log").as_deref(), Some("clear\nlogout\n"));
}

#[test]
fn whole_command_quoted_with_spaces_in_the_project_dir() {
    let sandbox = Sandbox::new();
    let spaced = sandbox.root().join("two words");
    copy_tree(&fixtures().join("hooks"), &spaced.join(".claude/hooks"));
    let settings = sandbox.settings(
        "settings.json",
        &settings_one(
            "PreToolUse",
            Some("Bash"),
            vec![command("\"$CLAUDE_PROJECT_DIR/.claude/hooks/uv-script-guard.py\"")],
        ),
    );
    let mut bridge = sandbox.command("claude", &[&settings], &[]);
    bridge.env("CLAUDE_PROJECT_DIR", &spaced).current_dir(&spaced);
    let mut input = claude_bash(&sandbox, "git status");
    input["cwd"] = spaced.display().to_string().into();
    let run = sandbox.run(bridge, &input);
    assert_eq!(run.permission().as_deref(), Some("allow"), "{}", run.describe());
}

#[test]
fn gemini_after_agent_deny_asks_for_another_pass_and_codex_session_start_text() {
    let sandbox = Sandbox::new();
    let settings = sandbox.settings(
        "gemini-settings.json",
        &json!({ "hooks": { "AfterAgent": [ { "hooks": [ { "type": "command", "command": py(
            "print(json.dumps({\"decision\": \"deny\", \"reason\": \"add tests\"})) if \"tests\" not in d[\"prompt_response\"] and not d[\"stop_hook_active\"] else None") } ] } ] } }),
    );
    let after = |response: &str| {
        gemini_input(
            &sandbox,
            "AfterAgent",
            json!({ "prompt": "fix it", "prompt_response": response, "stop_hook_active": false }),
        )
    };
    let run = sandbox.hook("gemini", &[&settings], &after("fixed"));
    assert_eq!(run.json(), json!({ "decision": "deny", "reason": "add tests" }), "{}", run.describe());
    sandbox.hook("gemini", &[&settings], &after("fixed, with tests")).assert_no_decision("done");

    let path = sandbox.project_file(".codex/hooks.json");
    fs::write(
        &path,
        settings_one(
            "SessionStart",
            Some("startup|resume"),
            vec![command("cat >/dev/null; git_branch=main; echo \"On branch $git_branch\"")],
        )
        .to_string(),
    )
    .unwrap();
    let start = json!({ "session_id": SESSION_ID, "transcript_path": null, "cwd": sandbox.project_str(),
        "hook_event_name": "SessionStart", "model": "gpt-5-codex", "permission_mode": "default", "source": "startup" });
    let run = sandbox.hook("codex", &[&path], &start);
    assert_eq!(run.context("SessionStart"), "On branch main");
}
