//! The documented first run, through the real `hookwire` binary and in the order a person
//! does things: `hookwire install <agent> --project`, a guard in `.hookwire/hooks.yaml`,
//! `hookwire trust`, then the agent's hook call (its input on stdin, its environment) — in
//! both orders, for each agent's bridge; and what must never switch that guard off silently:
//! an edit after trust, a deleted guard file, a subdirectory with settings of its own, half an
//! emoji in the input.

use std::{
    fs,
    io::Write,
    ops::Deref,
    process::{Command, Output, Stdio},
};

use serde_json::{Value, json};

use crate::common::{Scratch, stderr, stdout};

/// A scratch `HOME` (with the XDG directories under it) and a project `proj/`.
struct FirstRun(Scratch);

impl Deref for FirstRun {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

/// The guard of the README: skips any tool call whose input mentions `rm -rf`.
const GUARD: &str = "pre_tool_execution:\n  - name: no-rm-rf\n    command: \"if grep -q 'rm -rf'; then echo '{\\\"action\\\": \\\"skip\\\", \\\"reason\\\": \\\"no rm -rf\\\"}'; else echo '{}'; fi\"\n";

impl FirstRun {
    fn new(tag: &str) -> FirstRun {
        let scratch = Scratch::new(tag);
        fs::create_dir_all(scratch.path("proj")).unwrap();
        FirstRun(scratch)
    }

    /// `hookwire ARGS` in `proj/`, which must succeed.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.hookwire("proj", args).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "hookwire {args:?}:\n{}\n{}", stdout(&output), stderr(&output));
        stdout(&output)
    }

    fn guard(&self) {
        self.write("proj/.hookwire/hooks.yaml", GUARD);
    }

    /// The agent's hook call: `hookwire hook <agent>` as `install` wrote it, run in `cwd` with
    /// the project directory the agent names and the input on stdin.
    fn call(&self, agent: &str, cwd: &str, input: &[u8]) -> Output {
        let mut command: Command = self.hookwire(cwd, &["hook", agent]);
        command.env("HOOKWIRE_NO_DAEMON", "1").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if agent == "gemini" {
            command.env("GEMINI_PROJECT_DIR", self.path("proj"));
        } else if agent == "claude" {
            command.env("CLAUDE_PROJECT_DIR", self.path("proj"));
        }
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        child.wait_with_output().unwrap()
    }

    /// A shell tool call of `command` as `agent` writes it.
    fn tool_call(&self, agent: &str, command: &str) -> Vec<u8> {
        let cwd = self.path("proj").display().to_string();
        let input = match agent {
            "gemini" => json!({"session_id": "s1", "transcript_path": "/dev/null", "cwd": cwd,
                "hook_event_name": "BeforeTool", "timestamp": "2026-11-26T00:00:00Z",
                "tool_name": "run_shell_command", "tool_input": {"command": command}}),
            _ => json!({"session_id": "s1", "transcript_path": null, "cwd": cwd,
                "hook_event_name": "PreToolUse", "permission_mode": "default",
                "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"}),
        };
        format!("{input}\n").into_bytes()
    }
}

/// What the agent concludes from an answer: `deny`, `ask`, or `allow` (no decision).
fn verdict(agent: &str, output: &Output) -> (String, String) {
    if output.status.code() == Some(2) {
        return ("deny".into(), stderr(output));
    }
    let text = stdout(output);
    let Ok(answer) = serde_json::from_str::<Value>(text.trim()) else { return ("allow".into(), text) };
    let text = answer.to_string();
    let decision = if agent == "gemini" {
        answer["decision"].as_str().unwrap_or("allow").to_owned()
    } else {
        answer["hookSpecificOutput"]["permissionDecision"].as_str().unwrap_or("allow").to_owned()
    };
    (decision, text)
}

fn assert_denied(agent: &str, output: &Output, what: &str) {
    let (decision, text) = verdict(agent, output);
    assert_eq!(decision, "deny", "{agent}: {what}: {text}\n{}", stderr(output));
}

/// Install → guard → trust → the guard denies; and guard → trust → install → the guard
/// denies (the bridge of the agent installed leaves its own settings file out, and trust does
/// not read that file as removed), for each agent.
#[test]
fn install_guard_and_trust_in_either_order_protect() {
    for agent in ["claude", "gemini", "codex"] {
        let run = FirstRun::new(&format!("first-run-a-{agent}"));
        run.ok(&["install", agent, "--project"]);
        run.guard();
        run.ok(&["trust", "--yes"]);
        let output = run.call(agent, "proj", &run.tool_call(agent, "rm -rf victim"));
        assert_denied(agent, &output, "install, guard, trust");
        let (decision, _) = verdict(agent, &run.call(agent, "proj", &run.tool_call(agent, "ls")));
        assert_eq!(decision, "allow", "{agent}: a harmless call");

        let run = FirstRun::new(&format!("first-run-b-{agent}"));
        run.guard();
        run.ok(&["trust", "--yes"]);
        run.ok(&["install", agent, "--project"]);
        let output = run.call(agent, "proj", &run.tool_call(agent, "rm -rf victim"));
        assert_denied(agent, &output, "guard, trust, install");
        // `trust` lists the guard, not the bridge entries `install` wrote.
        let listing = run.ok(&["trust", "--yes"]);
        assert!(listing.contains("no-rm-rf") && !listing.contains("hookwire hook"), "{listing}");
    }
}

/// A trusted guard edited afterwards (by the agent itself, say) must not let the call through
/// as "no decision": Claude Code asks the person, Gemini CLI and Codex deny, and the reason
/// names the file and the command that trusts it again. `check --agent` shows the same.
#[test]
fn an_edited_or_deleted_guard_is_never_silent() {
    for agent in ["claude", "gemini", "codex"] {
        let run = FirstRun::new(&format!("first-run-edit-{agent}"));
        run.ok(&["install", agent, "--project"]);
        run.guard();
        run.ok(&["trust", "--yes"]);
        run.write("proj/.hookwire/hooks.yaml", &GUARD.replace("rm -rf", "rm -fr"));
        let output = run.call(agent, "proj", &run.tool_call(agent, "rm -rf victim"));
        let (decision, text) = verdict(agent, &output);
        let expected = if agent == "claude" { "ask" } else { "deny" };
        assert_eq!(decision, expected, "{agent}: {text}");
        assert!(text.contains(".hookwire/hooks.yaml` changed since it was trusted"), "{agent}: {text}");
        assert!(text.contains("hookwire trust"), "{agent}: {text}");
        let check = run.ok(&["check", "--agent", agent]);
        assert!(check.contains("held back:") && check.contains("changed since it was trusted"), "{check}");

        fs::remove_file(run.path("proj/.hookwire/hooks.yaml")).unwrap();
        let output = run.call(agent, "proj", &run.tool_call(agent, "rm -rf victim"));
        let (decision, text) = verdict(agent, &output);
        assert_eq!(decision, expected, "{agent}: the guard file deleted: {text}");
        assert!(text.contains("was removed since the project was trusted"), "{agent}: {text}");
    }
}

/// On an event that cannot refuse anything, the person is told once per session, in the
/// agent's user-visible message.
#[test]
fn held_back_hooks_are_told_once_per_session_on_other_events() {
    let run = FirstRun::new("first-run-notice");
    run.guard();
    let prompt = |session: &str| {
        let input = json!({"session_id": session, "transcript_path": null, "cwd": run.path("proj"),
            "hook_event_name": "UserPromptSubmit", "prompt": "hello"});
        run.call("claude", "proj", format!("{input}\n").as_bytes())
    };
    let first = prompt("s1");
    let answer: Value = serde_json::from_str(stdout(&first).trim()).expect("a JSON answer");
    assert!(answer["systemMessage"].as_str().unwrap_or_default().contains("not trusted yet"), "{answer}");
    assert!(stdout(&prompt("s1")).trim().is_empty(), "told twice in one session");
    assert!(stdout(&prompt("s2")).contains("systemMessage"), "a new session is told again");
}

/// A subdirectory with its own `.claude/settings.json` (even `{}`) or an empty `.jcli/` does
/// not end discovery there: the trusted project's guard still runs, from the agent's project
/// directory and from the subdirectory alike.
#[test]
fn a_subdirectory_with_settings_of_its_own_keeps_the_guard() {
    let run = FirstRun::new("first-run-subdir");
    run.ok(&["install", "claude", "--project"]);
    run.guard();
    run.ok(&["trust", "--yes"]);
    run.write("proj/sub/.claude/settings.json", "{}\n");
    fs::create_dir_all(run.path("proj/sub/.jcli")).unwrap();
    let output = run.call("claude", "proj/sub", &run.tool_call("claude", "rm -rf victim"));
    assert_denied("claude", &output, "CLAUDE_PROJECT_DIR set, run from sub/");
    // Without the agent's project directory (a wrapper that drops it), the outer project
    // still counts.
    let mut command = run.hookwire("proj/sub", &["hook", "claude"]);
    command.env("HOOKWIRE_NO_DAEMON", "1").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(&run.tool_call("claude", "rm -rf victim")).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_denied("claude", &output, "no CLAUDE_PROJECT_DIR, run from sub/");
}

/// Half an emoji — a lone UTF-16 surrogate escape, as the agents' JSON writers emit — in the
/// tool input is read (as U+FFFD), and the guard runs; input that is not JSON at all blocks.
#[test]
fn a_lone_surrogate_is_read_and_garbage_blocks() {
    let run = FirstRun::new("first-run-surrogate");
    run.guard();
    run.ok(&["trust", "--yes"]);
    let cwd = run.path("proj").display().to_string();
    let input = format!(
        r#"{{"session_id":"s1","transcript_path":null,"cwd":"{cwd}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"echo \ud83d; rm -rf victim"}},"tool_use_id":"t1"}}"#
    );
    let output = run.call("claude", "proj", input.as_bytes());
    assert_denied("claude", &output, "a lone high surrogate");
    let low = input.replace(r"\ud83d", r"\ude00 \\ud83d");
    assert_denied("claude", &run.call("claude", "proj", low.as_bytes()), "a lone low surrogate");
    let output = run.call("claude", "proj", b"{\"hook_event_name\": \"PreToolUse\", \"tool_input\": ");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("not JSON"), "{}", stderr(&output));
}

/// `--settings <(...)`: a shell's process substitution hands a `/dev/fd/N` pipe, which the
/// bridge reads once and uses as the file it names.
#[test]
fn settings_from_a_process_substitution_are_read() {
    let run = FirstRun::new("first-run-devfd");
    let settings = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo blocked >&2; exit 2"}]}]}}"#;
    let hookwire = env!("CARGO_BIN_EXE_hookwire");
    let script = format!("exec '{hookwire}' hook claude --settings <(printf '%s' '{settings}')");
    let mut command = Command::new("bash");
    command
        .args(["-c", &script])
        .current_dir(run.path("proj"))
        .env("HOME", run.path("home"))
        .env("XDG_CONFIG_HOME", run.path("home/.config"))
        .env("XDG_STATE_HOME", run.path("home/.local/state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(&run.tool_call("claude", "ls")).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_denied("claude", &output, "the hook of a piped settings file");
    assert!(stdout(&output).contains("blocked") || stderr(&output).contains("blocked"), "{}", stderr(&output));
}

/// A hook reads the tool's input members in the order the agent wrote them (Claude Code writes
/// `file_path` before `content`; a parsed map would sort them), while hookwire's own outputs
/// keep theirs.
#[test]
fn hooks_read_the_tool_input_in_the_agents_member_order() {
    let run = FirstRun::new("first-run-order");
    let seen = run.path("seen.json");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": format!("cat > '{}'", seen.display())}]}]}});
    let settings_path = run.write("settings.json", &settings.to_string());
    let cwd = run.path("proj").display().to_string();
    let input = format!(
        r#"{{"session_id":"s1","transcript_path":null,"cwd":"{cwd}","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"/tmp/x","content":"hi","b":1,"a":{{"z":1,"y":2}}}},"tool_use_id":"t1"}}"#
    );
    let mut command = run.hookwire("proj", &["hook", "claude", "--no-default-config", "--settings"]);
    command.arg(&settings_path).env("HOOKWIRE_NO_DAEMON", "1");
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(format!("{input}\n").as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let line = fs::read_to_string(&seen).unwrap();
    assert!(line.contains(r#""tool_input":{"file_path":"/tmp/x","content":"hi","b":1,"a":{"z":1,"y":2}}"#), "{line}");
}

/// The rule packs where a person puts them: `.hookwire/rules.yaml` of the project (held back
/// until trusted, then denying), and `rules.yaml` of the user's configuration directory (no
/// trust step: the user's own). A rules file under either name is never passed over.
#[test]
fn a_rules_file_named_rules_yaml_guards_at_project_and_user_level() {
    for agent in ["claude", "gemini", "codex"] {
        let run = FirstRun::new(&format!("first-run-rules-{agent}"));
        run.ok(&["install", agent, "--project"]);
        run.write("proj/.hookwire/rules.yaml", "packs: [recommended]\n");
        let listing = run.ok(&["check", "--agent", agent]);
        assert!(listing.contains(".hookwire/rules.yaml"), "{agent}: check lists the rules file: {listing}");
        let (decision, text) = verdict(agent, &run.call(agent, "proj", &run.tool_call(agent, "rm -rf ~")));
        let held = if agent == "claude" { "ask" } else { "deny" };
        assert_eq!(decision, held, "{agent}: an untrusted rules file is held back, never silent: {text}");
        assert!(text.contains("rules.yaml"), "{agent}: {text}");
        run.ok(&["trust", "--yes"]);
        let output = run.call(agent, "proj", &run.tool_call(agent, "git reset --hard HEAD~3"));
        assert_denied(agent, &output, "a pack rule of the trusted .hookwire/rules.yaml");
        let (decision, _) = verdict(agent, &run.call(agent, "proj", &run.tool_call(agent, "git status")));
        assert_eq!(decision, "allow", "{agent}: a harmless call");

        let run = FirstRun::new(&format!("first-run-user-rules-{agent}"));
        run.ok(&["install", agent, "--project"]);
        run.write("home/.config/hookwire/rules.yaml", "packs: [recommended]\n");
        let output = run.call(agent, "proj", &run.tool_call(agent, "rm -rf ~"));
        assert_denied(agent, &output, "the user's rules.yaml");
    }
}

/// `install --packs recommended`: the day-one guard in one command — at user level at once, at
/// project level once trusted; an unknown pack is refused by name; without `--packs`, install
/// says how to add them when no rules file guards the agent.
#[test]
fn install_with_packs_guards_on_day_one() {
    let run = FirstRun::new("first-run-packs-user");
    let said = run.ok(&["install", "claude", "--user", "--packs", "recommended"]);
    assert!(said.contains("rules.yaml"), "{said}");
    assert_eq!(fs::read_to_string(run.path("home/.config/hookwire/rules.yaml")).unwrap(), "packs: [recommended]\n");
    assert_denied("claude", &run.call("claude", "proj", &run.tool_call("claude", "sudo rm -rf ~")), "user packs");
    let again = run.ok(&["install", "claude", "--user", "--packs", "git"]);
    assert!(again.contains("left as it is"), "an existing rules file is not overwritten: {again}");

    let run = FirstRun::new("first-run-packs-project");
    let hint = run.ok(&["install", "gemini", "--project"]);
    assert!(hint.contains("--packs recommended"), "install proposes the packs: {hint}");
    let said = run.ok(&["install", "gemini", "--project", "--packs", "git,secrets"]);
    assert!(said.contains("hookwire trust"), "{said}");
    assert_eq!(fs::read_to_string(run.path("proj/.hookwire/rules.yaml")).unwrap(), "packs: [git, secrets]\n");
    let quiet = run.ok(&["install", "gemini", "--project"]);
    assert!(!quiet.contains("--packs"), "no proposal once a rules file exists: {quiet}");
    run.ok(&["trust", "--yes"]);
    assert_denied("gemini", &run.call("gemini", "proj", &run.tool_call("gemini", "git push --force")), "project packs");

    let output = run.hookwire("proj", &["install", "codex", "--packs", "recomended"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("unknown pack `recomended`") && stderr(&output).contains("recommended"));
    assert!(!run.path("proj/.codex/hooks.json").exists(), "nothing is installed when a pack is misspelt");
}
