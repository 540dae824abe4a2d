//! `hookwire install claude|gemini|codex`: the real binary edits copies of realistic settings
//! files (`tests/fixtures/install/`) in a sandbox with its own `HOME`.

use std::{
    fs,
    ops::Deref,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use hook_protocol::Agent;
use serde_json::Value;

use crate::common::{Scratch, stderr, stdout};

/// `project/` (with a `.hookwire/` marker) and `home/`.
struct Sandbox(Scratch);

impl Deref for Sandbox {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

impl Sandbox {
    fn new() -> Sandbox {
        let scratch = Scratch::new("install");
        fs::create_dir_all(scratch.path("project/.hookwire")).unwrap();
        Sandbox(scratch)
    }

    /// Copies fixture `name` to `relative`; returns its text.
    fn copy_fixture(&self, name: &str, relative: &str) -> String {
        let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/install").join(name))
            .unwrap();
        self.write(relative, &text);
        text
    }

    fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.path(relative)).unwrap()
    }

    /// `hookwire ARGS` in `project/` with nothing of this process's environment but `PATH`.
    fn output(&self, args: &[&str]) -> Output {
        self.hookwire("project", args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .output()
            .unwrap()
    }

    /// [`Sandbox::output`], which must succeed.
    fn run(&self, args: &[&str]) -> Output {
        let output = self.output(args);
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output
    }

    /// [`Sandbox::output`], which must fail with status 2; its stderr.
    fn fail(&self, args: &[&str]) -> String {
        let output = self.output(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stdout(&output));
        stderr(&output)
    }

    /// The backups of `relative` in hookwire's state directory, sorted; none may lie beside it.
    fn backups(&self, relative: &str) -> Vec<PathBuf> {
        let file = self.path(relative);
        let name = file.file_name().unwrap().to_str().unwrap();
        let beside: Vec<_> = fs::read_dir(file.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name().into_string().unwrap()))
            .filter(|n| n != name && n.contains(name))
            .collect();
        assert!(beside.is_empty(), "nothing beside the settings file: {beside:?}");
        let key = file.to_str().unwrap().trim_start_matches('/').replace('/', "%");
        let mut found: Vec<PathBuf> = fs::read_dir(self.path("home/.local/state/hookwire/backups"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(&format!("{key}.")))
            .collect();
        found.sort();
        found
    }
}

/// The command `install` writes.
fn bridge(agent: &str) -> String {
    format!("{} hook {agent}", env!("CARGO_BIN_EXE_hookwire"))
}

/// Every line of `before` is in `after`, in order: nothing of the file was dropped or moved
/// (the last entry of a list gains a comma when one is added after it).
fn assert_kept(before: &str, after: &str) {
    let mut after_lines = after.lines();
    for line in before.lines() {
        let found = after_lines.any(|l| l == line || l.strip_suffix(',') == Some(line));
        assert!(found, "line {line:?} is missing or out of place in:\n{after}");
    }
}

/// Each event the agent documents (but `WorktreeCreate`) has exactly one entry of ours, with
/// `timeout` (seconds, or milliseconds for Gemini).
fn assert_installed(text: &str, agent: Agent, timeout: u64) {
    let settings: Value = serde_json::from_str(text).unwrap();
    let command = bridge(agent.as_str());
    let mut n_events = 0;
    for event in agent.event_names() {
        let ours: Vec<&Value> = settings["hooks"][event]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|group| group["hooks"].as_array().into_iter().flatten())
            .filter(|handler| handler["command"] == command.as_str())
            .collect();
        if event == "WorktreeCreate" {
            assert!(ours.is_empty(), "WorktreeCreate must print a path: no catch-all there");
            continue;
        }
        assert_eq!(ours.len(), 1, "{event}: {text}");
        assert_eq!(ours[0]["type"], "command");
        assert_eq!(ours[0]["timeout"], timeout, "{event}");
        n_events += 1;
    }
    assert!(n_events >= 5, "{n_events}");
}

#[test]
fn claude_project_install_is_idempotent_and_uninstall_restores_the_file() {
    let sandbox = Sandbox::new();
    let file = "project/.claude/settings.json";
    let original = sandbox.copy_fixture("claude_settings.json", file);

    let first = sandbox.run(&["install", "claude"]);
    let installed = sandbox.read(file);
    assert_kept(&original, &installed);
    assert_installed(&installed, Agent::Claude, 600);
    // The entry sits after the user's own on an event they already had.
    let settings: Value = serde_json::from_str(&installed).unwrap();
    assert_eq!(settings["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    assert_eq!(settings["hooks"]["PreToolUse"][2]["hooks"][0]["command"], bridge("claude").as_str());
    assert!(stdout(&first).contains(&format!("+{}", "      {")), "{}", stdout(&first));
    assert!(stdout(&first).contains("--- "), "the diff is shown: {}", stdout(&first));
    let backups = sandbox.backups(file);
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(fs::read_to_string(&backups[0]).unwrap(), original);

    let second = sandbox.run(&["install", "claude"]);
    assert!(stdout(&second).contains("nothing to change"), "{}", stdout(&second));
    assert_eq!(sandbox.read(file), installed);
    assert_eq!(sandbox.backups(file).len(), 1, "no change, no backup");

    let removed = sandbox.run(&["install", "claude", "--uninstall"]);
    assert!(stdout(&removed).contains("removed"), "{}", stdout(&removed));
    assert_eq!(sandbox.read(file), original, "uninstall removes exactly what install added");
    let again = sandbox.run(&["install", "claude", "--uninstall"]);
    assert!(stdout(&again).contains("nothing to change"), "{}", stdout(&again));
}

#[test]
fn gemini_user_install_writes_milliseconds_and_keeps_the_users_hooks() {
    let sandbox = Sandbox::new();
    let file = "home/.gemini/settings.json";
    let original = sandbox.copy_fixture("gemini_settings.json", file);
    sandbox.run(&["install", "gemini", "--user"]);
    let installed = sandbox.read(file);
    assert_kept(&original, &installed);
    assert_installed(&installed, Agent::Gemini, 600_000);
    let settings: Value = serde_json::from_str(&installed).unwrap();
    assert_eq!(settings["hooks"]["BeforeTool"][1]["hooks"][0]["name"], "hookwire");
    assert!(!sandbox.path("project/.gemini").exists(), "--user leaves the project alone");
    sandbox.run(&["install", "gemini", "--user", "--uninstall"]);
    assert_eq!(sandbox.read(file), original);
}

#[test]
fn dry_run_shows_the_change_and_writes_nothing() {
    let sandbox = Sandbox::new();
    let file = "project/.codex/hooks.json";
    let original = sandbox.copy_fixture("codex_hooks.json", file);
    let dry = sandbox.run(&["install", "codex", "--dry-run"]);
    assert!(
        stdout(&dry).contains(&format!("+                        \"command\": \"{}\",", bridge("codex"))),
        "{}",
        stdout(&dry)
    );
    assert!(stdout(&dry).contains("dry run"), "{}", stdout(&dry));
    assert_eq!(sandbox.read(file), original);
    assert!(sandbox.backups(file).is_empty());

    // For real: the file keeps its 4-space indentation.
    sandbox.run(&["install", "codex"]);
    let installed = sandbox.read(file);
    assert_kept(&original, &installed);
    assert_installed(&installed, Agent::Codex, 600);
    let dry_uninstall = sandbox.run(&["install", "codex", "--uninstall", "--dry-run"]);
    assert!(stdout(&dry_uninstall).contains("-"), "{}", stdout(&dry_uninstall));
    assert_eq!(sandbox.read(file), installed);
}

#[test]
fn a_missing_file_is_created_and_a_users_own_bridge_entry_counts() {
    let sandbox = Sandbox::new();
    let file = "project/.claude/settings.json";
    sandbox.run(&["install", "claude"]);
    let created = sandbox.read(file);
    assert_installed(&created, Agent::Claude, 600);
    assert!(sandbox.backups(file).is_empty(), "there was nothing to back up");
    sandbox.run(&["install", "claude", "--uninstall"]);
    assert!(!sandbox.path(file).exists(), "install created the file: uninstall deletes it");
    assert!(!sandbox.path("project/.claude").exists(), "and the directory it created");

    // An entry the user wrote that runs the bridge with options of its own stands for ours on
    // its event, and uninstall leaves it.
    let own =
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "hookwire hook claude --no-daemon"}]}]}}"#;
    sandbox.write(file, own);
    sandbox.run(&["install", "claude"]);
    let settings: Value = serde_json::from_str(&sandbox.read(file)).unwrap();
    assert_eq!(settings["hooks"]["Stop"].as_array().unwrap().len(), 1);
    assert_eq!(settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"], bridge("claude").as_str());
    sandbox.run(&["install", "claude", "--uninstall"]);
    assert_eq!(sandbox.read(file), own);
}

#[test]
fn an_installed_claude_file_loads_and_the_bridge_does_not_run_itself() {
    let sandbox = Sandbox::new();
    sandbox.copy_fixture("claude_settings.json", "project/.claude/settings.json");
    sandbox.run(&["install", "claude"]);
    let settings = sandbox.path("project/.claude/settings.json");
    let output = Command::new(env!("CARGO_BIN_EXE_hookwire"))
        .args(["check", "--no-default-config", "--format", "json", "--config"])
        .arg(&settings)
        .current_dir(sandbox.path("project"))
        .env_clear()
        .env("HOME", sandbox.path("home"))
        .output()
        .unwrap();
    let check: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(check["valid"], true, "{check}");
    // hookwire's own entries are listed apart, not as hooks and not as warnings.
    assert!(!check["warnings"].to_string().contains("hookwire hook"), "{check}");
    assert!(!check["events"].to_string().contains("hookwire hook"), "{check}");
    let bridge = check["bridge_entries"].as_array().expect("bridge_entries");
    assert_eq!(bridge.len(), 1, "{check}");
    assert!(bridge[0]["entries"].as_u64().unwrap_or(0) > 0, "{check}");
}

/// The events of `text` (Claude Code settings) with an entry of ours.
fn events_with_ours(text: &str, agent: &str) -> Vec<String> {
    let settings: Value = serde_json::from_str(text).unwrap();
    let command = bridge(agent);
    let mut events: Vec<String> = settings["hooks"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, groups)| groups.to_string().contains(&serde_json::to_string(&command).unwrap()))
        .map(|(event, _)| event.clone())
        .collect();
    events.sort();
    events
}

#[test]
fn events_installs_only_the_chosen_events_and_rejects_unknown_ones() {
    let sandbox = Sandbox::new();
    let file = "project/.claude/settings.json";
    let original = sandbox.copy_fixture("claude_settings.json", file);
    sandbox.run(&["install", "claude", "--events", "PreToolUse,Stop"]);
    assert_eq!(events_with_ours(&sandbox.read(file), "claude"), ["PreToolUse", "Stop"]);
    // More events later: only the new one is added; then uninstall one of them.
    sandbox.run(&["install", "claude", "--events", "UserPromptSubmit"]);
    assert_eq!(events_with_ours(&sandbox.read(file), "claude"), ["PreToolUse", "Stop", "UserPromptSubmit"]);
    sandbox.run(&["install", "claude", "--uninstall", "--events", "Stop"]);
    assert_eq!(events_with_ours(&sandbox.read(file), "claude"), ["PreToolUse", "UserPromptSubmit"]);

    let before = sandbox.read(file);
    let unknown = sandbox.fail(&["install", "claude", "--events", "PreToolUse,BeforeTool"]);
    assert!(unknown.contains("\"BeforeTool\"") && unknown.contains("PreToolUse, "), "{unknown}");
    let worktree = sandbox.fail(&["install", "claude", "--events", "WorktreeCreate"]);
    assert!(worktree.contains("WorktreeCreate"), "{worktree}");
    assert_eq!(sandbox.read(file), before, "a rejected call writes nothing");
    sandbox.run(&["install", "claude", "--uninstall"]);
    assert_eq!(sandbox.read(file), original);
}

#[test]
fn uninstall_keeps_a_created_file_the_user_added_to() {
    let sandbox = Sandbox::new();
    let file = "project/.claude/settings.json";
    sandbox.run(&["install", "claude", "--events", "Stop"]);
    let created = sandbox.read(file);
    // The user adds a setting of their own next to ours.
    let edited = created.replacen("{\n", "{\n  \"model\": \"opus\",\n", 1);
    fs::write(sandbox.path(file), &edited).unwrap();
    sandbox.run(&["install", "claude", "--uninstall"]);
    let left: Value = serde_json::from_str(&sandbox.read(file)).unwrap();
    assert_eq!(left, serde_json::json!({"model": "opus"}));
    assert_eq!(sandbox.backups(file).len(), 1, "{:?}", sandbox.backups(file));

    // A file that existed before install stays, even when nothing is left in it.
    fs::write(sandbox.path(file), "{}\n").unwrap();
    sandbox.run(&["install", "claude", "--events", "Stop"]);
    sandbox.run(&["install", "claude", "--uninstall"]);
    assert_eq!(sandbox.read(file), "{}\n");
}

#[test]
fn a_symlinked_settings_file_is_written_through_and_stays_a_link() {
    let sandbox = Sandbox::new();
    let original = sandbox.copy_fixture("claude_settings.json", "dotfiles/claude/settings.json");
    fs::create_dir_all(sandbox.path("home/.claude")).unwrap();
    std::os::unix::fs::symlink("../../dotfiles/claude/settings.json", sandbox.path("home/.claude/settings.json"))
        .unwrap();
    let link = "home/.claude/settings.json";
    let shown = sandbox.run(&["install", "claude", "--user"]);
    assert!(stdout(&shown).contains("symlink"), "{}", stdout(&shown));
    let meta = fs::symlink_metadata(sandbox.path(link)).unwrap();
    assert!(meta.file_type().is_symlink(), "the dotfiles manager's link stays");
    let installed = sandbox.read("dotfiles/claude/settings.json");
    assert_installed(&installed, Agent::Claude, 600);
    let stray: Vec<_> = fs::read_dir(sandbox.path("dotfiles/claude")).unwrap().collect();
    assert_eq!(stray.len(), 1, "no temporary file or backup left in the dotfiles: {stray:?}");
    sandbox.run(&["install", "claude", "--user", "--uninstall"]);
    assert!(fs::symlink_metadata(sandbox.path(link)).unwrap().file_type().is_symlink());
    assert_eq!(sandbox.read("dotfiles/claude/settings.json"), original);
}

/// `text` (JSONC) as JSON: comments and trailing commas out, strings untouched.
fn strict(text: &str) -> Value {
    let (mut out, mut chars) = (String::new(), text.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(c) = chars.next() {
                    out.push(c);
                    match c {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                chars.find(|c| *c == '\n');
                out.push('\n');
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            _ => out.push(c),
        }
    }
    let trailing = without_trailing_commas(&out);
    serde_json::from_str(&trailing).unwrap_or_else(|e| panic!("{e}: {trailing}"))
}

/// Removes every `,` followed by blanks and a closing bracket.
fn without_trailing_commas(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.char_indices() {
        if c == ',' && matches!(text[i + 1..].trim_start().as_bytes().first(), Some(b']' | b'}')) {
            continue;
        }
        out.push(c);
    }
    out
}

#[test]
fn gemini_jsonc_keeps_its_comments_and_claude_refuses_them_clearly() {
    let sandbox = Sandbox::new();
    let file = "project/.gemini/settings.json";
    let original = sandbox.copy_fixture("gemini_settings.jsonc", file);
    sandbox.run(&["install", "gemini"]);
    let installed = sandbox.read(file);
    assert_kept(&original, &installed);
    let settings = strict(&installed);
    assert_eq!(settings["general"]["vimMode"], true);
    assert_eq!(settings["url"], "http://example.invalid/*not a comment*/");
    assert_eq!(settings["hooks"]["BeforeTool"][0]["hooks"][0]["name"], "secret-scanner");
    assert_eq!(settings["hooks"]["BeforeTool"][1]["hooks"][0]["command"], bridge("gemini").as_str());
    assert_eq!(settings["hooks"]["AfterTool"][0]["hooks"][0]["command"], bridge("gemini").as_str());
    assert_eq!(sandbox.read(file), installed);
    sandbox.run(&["install", "gemini"]);
    assert_eq!(sandbox.read(file), installed, "a second install changes nothing");
    sandbox.run(&["install", "gemini", "--uninstall"]);
    assert_eq!(sandbox.read(file), original, "uninstall gives back the file, comments and all");

    // Claude Code reads strict JSON: the same text is refused, with what to do.
    let claude = "project/.claude/settings.json";
    sandbox.write(claude, &original);
    let refused = sandbox.fail(&["install", "claude"]);
    assert!(refused.contains("comments") && refused.contains("remove them"), "{refused}");
    assert!(refused.contains("settings.json:"), "names the file: {refused}");
    assert_eq!(sandbox.read(claude), original);
}
