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
