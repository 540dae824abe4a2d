//! Guard rules from the command line, through the built binary: `rules list`, `rules explain`
//! (its output, its JSON and its exit codes: 0 allow, 2 deny, 3 ask, 1 error), `check`'s
//! listing of rules files, the managed level that a project cannot weaken (through `hookwire
//! hook claude` with a real payload) and `log --rule`.

use std::{
    io::Write as _,
    process::{Output, Stdio},
};

use serde_json::{Value, json};

use crate::common::{Scratch, both, json_stdout, stdout};

/// `hookwire ARGS` in `work/`, hermetic, with `input` on stdin when given.
fn run(scratch: &Scratch, args: &[&str], input: Option<&str>) -> Output {
    let mut command = scratch.hookwire("work", args);
    command.env("HOOKWIRE_MANAGED_DIR", scratch.path("managed")).env("HOOKWIRE_NO_DAEMON", "1");
    // Every row is read back: a loaded machine must not make one miss its exit deadline.
    command.env("HOOKWIRE_STORE_FLUSH_MS", "10000");
    if input.is_some() {
        command.stdin(Stdio::piped());
    }
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("hookwire starts");
    if let Some(input) = input {
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// A Claude Code PreToolUse input for a Bash call of `command` in `cwd`.
fn claude_bash(cwd: &str, command: &str) -> String {
    json!({
        "session_id": "3f9a1c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b",
        "transcript_path": format!("{cwd}/t.jsonl"),
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command, "description": "Run a command" },
        "tool_use_id": "toolu_01A2b3C4d5E6f7G8h9J0kLmN",
    })
    .to_string()
}

const USER_RULES: &str = "\
packs: [git]
rules:
  - name: no-prod-psql
    command: psql
    args_regex: prod
    decision: ask
    reason: talks to production
    suggest: use the staging database
";

#[test]
fn rules_list_shows_every_pack_or_one_and_refuses_an_unknown_pack() {
    let scratch = Scratch::new("rules-list");
    let all = run(&scratch, &["rules", "list"], None);
    assert!(all.status.success(), "{}", both(&all));
    let text = stdout(&all);
    for pack in ["filesystem", "git", "secrets", "remote-code", "persistence", "databases", "cloud", "containers"] {
        assert!(text.lines().any(|line| line == pack), "pack `{pack}` listed:\n{text}");
    }
    assert!(text.contains("git/reset-hard") && text.contains("safer:  `git stash`"), "{text}");

    let git = run(&scratch, &["rules", "list", "--pack", "git", "--format", "json"], None);
    assert!(git.status.success(), "{}", both(&git));
    let listing = json_stdout(&git);
    let packs = listing["packs"].as_array().unwrap();
    assert_eq!(packs.len(), 1, "{listing}");
    let reset = packs[0]["rules"].as_array().unwrap().iter().find(|r| r["name"] == "reset-hard").unwrap();
    assert_eq!(reset["decision"], "deny");
    assert_eq!(reset["events"], json!(["pre_tool_execution"]));
    assert_eq!(reset["tools"], json!(["shell"]));
    assert!(reset["suggest"].as_str().unwrap().contains("git stash"));
    assert!(reset["line"].as_u64().is_some());

    let unknown = run(&scratch, &["rules", "list", "--pack", "gti"], None);
    assert_eq!(unknown.status.code(), Some(1), "{}", both(&unknown));
    let error = String::from_utf8_lossy(&unknown.stderr);
    assert!(error.contains("unknown pack `gti`") && error.contains("git") && error.contains("remote-code"), "{error}");
}

#[test]
fn explain_names_the_deciding_rule_the_parsed_commands_and_exits_by_decision() {
    let scratch = Scratch::new("rules-explain");
    let file = scratch.write("home/.config/hookwire/hooks.yaml", USER_RULES);

    // A pack rule behind a wrapper and `sh -c`: deny, exit 2.
    let deny = run(&scratch, &["rules", "explain", "sudo sh -c 'git -C /tmp reset --hard'", "--format", "json"], None);
    assert_eq!(deny.status.code(), Some(2), "{}", both(&deny));
    let out = json_stdout(&deny);
    assert_eq!(out["decision"], "deny");
    assert_eq!(out["exit_code"], 2);
    assert_eq!(out["decided_by"]["rule"], "git/reset-hard");
    assert_eq!(out["decided_by"]["pack"], "git");
    assert_eq!(out["decided_by"]["level"], "user");
    assert_eq!(out["decided_by"]["rules_file"], file.display().to_string());
    assert!(out["suggest"].as_str().unwrap().contains("git stash"), "{out}");
    let programs: Vec<&str> =
        out["commands"].as_array().unwrap().iter().map(|c| c["program"].as_str().unwrap()).collect();
    assert!(programs.contains(&"git"), "the git command is parsed out of sudo and sh -c: {programs:?}");

    // The file's own rule: ask, exit 3, with its file and line.
    let ask = run(&scratch, &["rules", "explain", "psql -h prod.db -c 'select 1'"], None);
    assert_eq!(ask.status.code(), Some(3), "{}", both(&ask));
    let text = stdout(&ask);
    assert!(text.contains("decision: ask"), "{text}");
    assert!(text.contains(&format!("rule: no-prod-psql  ({}:3;", file.display())), "file:line of the rule:\n{text}");
    assert!(text.contains("safer: use the staging database"), "{text}");

    // Data that only mentions a destructive command: allowed, exit 0.
    let allow = run(&scratch, &["rules", "explain", "git commit -m 'undo git reset --hard'"], None);
    assert_eq!(allow.status.code(), Some(0), "{}", both(&allow));
    assert!(stdout(&allow).contains("decision: allow"), "{}", both(&allow));

    // A program that cannot be known: the undetermined policy (ask), listed as such.
    let unknown = run(&scratch, &["rules", "explain", "$TOOL reset --hard", "--format", "json"], None);
    assert_eq!(unknown.status.code(), Some(3), "{}", both(&unknown));
    let out = json_stdout(&unknown);
    assert_eq!(out["undetermined"], json!(["$TOOL reset --hard"]), "{out}");

    // `--pack` ignores the configuration; a file tool through `--tool --path`.
    let secret = run(&scratch, &["rules", "explain", "--pack", "secrets", "--tool", "Read", "--path", "/p/.env"], None);
    assert_eq!(secret.status.code(), Some(2), "{}", both(&secret));
    assert!(stdout(&secret).contains("rule: secrets/read-secret-file"), "{}", both(&secret));
    let example = run(&scratch, &["rules", "explain", "--pack", "secrets", "--path", "/p/.env.example"], None);
    assert_eq!(example.status.code(), Some(0), "{}", both(&example));

    // Nothing configured: allow, and says so.
    let none = run(&scratch, &["rules", "explain", "--no-default-config", "rm -rf /"], None);
    assert_eq!(none.status.code(), Some(0), "{}", both(&none));
    assert!(stdout(&none).contains("no rules file is configured"), "{}", both(&none));
}

#[test]
fn explain_reads_a_whole_agent_input_and_refuses_a_broken_rules_file() {
    let scratch = Scratch::new("rules-explain-agent");
    let rules = scratch.write("rules.yaml", "packs: [filesystem]\n");
    let work = scratch.path("work").display().to_string();
    let rules_arg = rules.display().to_string();
    let args =
        ["rules", "explain", "--agent", "claude", "--no-default-config", "--config", &rules_arg, "--format", "json"];
    let output = run(&scratch, &args, Some(&claude_bash(&work, "cd / && nohup rm -rf ~ &")));
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    let out = json_stdout(&output);
    assert_eq!(out["tool"], "Bash");
    assert_eq!(out["decided_by"]["rule"], "filesystem/rm-recursive-critical", "{out}");

    let broken = scratch.write("broken.yaml", "packs: [filesystem]\nrules:\n  - name: x\n    comand: rm\n");
    let broken_arg = broken.display().to_string();
    let refused = run(&scratch, &["rules", "explain", "--no-default-config", "--config", &broken_arg, "ls"], None);
    assert_eq!(refused.status.code(), Some(1), "{}", both(&refused));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("broken.yaml"), "{}", both(&refused));
}

/// The `permissionDecision` of a Claude Code answer.
fn permission_decision(output: &Output) -> Value {
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    answer["hookSpecificOutput"]["permissionDecision"].clone()
}

#[test]
fn check_lists_rules_files_their_packs_and_mode_and_a_refused_one_as_an_error() {
    let scratch = Scratch::new("rules-check");
    let good = scratch.write("home/.config/hookwire/hooks.yaml", "packs: [git, secrets]\nmode: shadow\n");
    let broken = scratch.write("broken.yaml", "packs: [git]\nrules:\n  - name: x\n    comand: rm\n");
    let broken_arg = broken.display().to_string();

    let text = run(&scratch, &["check", "--config", &broken_arg], None);
    assert_eq!(text.status.code(), Some(2), "the refused file is an error: {}", both(&text));
    let listing = stdout(&text);
    assert!(
        listing.contains(&format!("  {}  [user]  ", good.display()))
            && listing.contains("packs=git,secrets  mode=shadow"),
        "{listing}"
    );
    assert!(listing.contains(&format!("  {}  refused", broken.display())), "{listing}");
    assert!(listing.contains("packs in use: git, secrets"), "{listing}");

    let json = json_stdout(&run(&scratch, &["check", "--config", &broken_arg, "--format", "json"], None));
    let files = json["rules_files"].as_array().unwrap();
    let loaded = files.iter().find(|f| f["path"] == good.display().to_string()).expect("the good file is listed");
    assert_eq!(loaded["level"], "user");
    assert_eq!(loaded["mode"], "shadow");
    assert_eq!(loaded["packs"], json!(["git", "secrets"]));
    assert!(loaded["rules"].as_u64().unwrap() > 10, "{loaded}");
    let refused = files.iter().find(|f| f["path"] == broken_arg).expect("the refused file is listed");
    assert!(refused["error"].as_str().unwrap().contains("comand"), "{refused}");
    assert_eq!(json["packs"], json!(["git", "secrets"]));
}

#[test]
fn the_decision_store_names_the_deciding_rule_and_log_filters_by_it() {
    let scratch = Scratch::new("rules-log");
    let rules = scratch.write("rules.yaml", USER_RULES.replace("decision: ask", "decision: deny").as_str());
    let rules_arg = rules.display().to_string();
    let work = scratch.path("work").display().to_string();
    let bridge = ["hook", "claude", "--no-default-config", "--config", &rules_arg];
    for (command, expected) in [("git reset --hard", "deny"), ("psql prod", "deny"), ("ls", "null")] {
        let output = run(&scratch, &bridge, Some(&claude_bash(&work, command)));
        assert!(output.status.success(), "{}", both(&output));
        assert_eq!(
            permission_decision(&output).to_string().trim_matches('"'),
            expected,
            "{command}: {}",
            both(&output)
        );
    }
    let log = |args: &[&str]| -> Vec<Value> {
        let mut all = vec!["log", "--format", "json"];
        all.extend_from_slice(args);
        let output = run(&scratch, &all, None);
        assert!(output.status.success(), "{}", both(&output));
        stdout(&output).lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    };
    let pack = log(&["--rule", "reset-hard"]);
    assert_eq!(pack.len(), 1, "{pack:?}");
    assert_eq!(pack[0]["hooks"][0]["rule"], "git/reset-hard");
    assert_eq!(pack[0]["hooks"][0]["rule_place"], "pack git");
    let own = log(&["--rule", "no-prod-psql"]);
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0]["hooks"][0]["rule_place"], format!("{}:3", rules.display()));
    assert!(log(&["--rule", "clean-force"]).is_empty());

    let text = stdout(&run(&scratch, &["log"], None));
    assert!(text.contains("rule git/reset-hard (pack git)"), "{text}");
    assert!(text.contains(&format!("rule no-prod-psql ({}:3)", rules.display())), "{text}");

    // The audit log of `fire` names it too.
    let audit = scratch.path("audit.jsonl");
    let audit_arg = audit.display().to_string();
    let context =
        json!({"tool_name": "Bash", "tool_arguments": "{\"command\": \"sudo git reset --hard\"}"}).to_string();
    let fire = [
        "fire",
        "pre_tool_execution",
        "--no-default-config",
        "--config",
        &rules_arg,
        "--context",
        "-",
        "--audit",
        &audit_arg,
    ];
    let fired = run(&scratch, &fire, Some(&context));
    assert!(fired.status.success(), "{}", both(&fired));
    let lines: Vec<Value> =
        std::fs::read_to_string(&audit).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["action"], "deny_tool");
    assert_eq!(lines[0]["rule"], "git/reset-hard", "{lines:?}");
}

#[test]
fn a_managed_deny_stands_against_a_trusted_project_allow_through_the_claude_bridge() {
    let scratch = Scratch::new("rules-managed");
    // The project enables the git pack and excepts `git reset --hard` from it: on its own, its
    // exception works.
    scratch.write(
        "work/.hookwire/hooks.yaml",
        "packs: [git]\nallow:\n  - name: let-me-reset\n    command: git reset --hard\n",
    );
    let trusted = run(&scratch, &["trust", "--yes"], None);
    assert!(trusted.status.success(), "{}", both(&trusted));
    let work = scratch.path("work").display().to_string();
    let payload = claude_bash(&work, "git reset --hard HEAD~1");
    let before = run(&scratch, &["hook", "claude"], Some(&payload));
    assert!(before.status.success(), "{}", both(&before));
    assert_eq!(permission_decision(&before), Value::Null, "the project's exception holds: {}", both(&before));

    // The machine's managed configuration enables the same pack: the project's exception cannot
    // weaken it.
    let managed = scratch.write("managed/hooks.yaml", "packs: [git]\n");
    let after = run(&scratch, &["hook", "claude"], Some(&payload));
    assert!(after.status.success(), "{}", both(&after));
    assert_eq!(permission_decision(&after), "deny", "{}", both(&after));
    let answer: Value = serde_json::from_slice(&after.stdout).unwrap();
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("git/reset-hard"), "{reason}");

    // A project rule that explicitly allows does not weaken it either.
    scratch.write(
        "work/.hookwire/hooks.yaml",
        "rules:\n  - name: resets-are-fine\n    command: git reset\n    decision: allow\n",
    );
    assert!(run(&scratch, &["trust", "--yes"], None).status.success());
    let again = run(&scratch, &["hook", "claude"], Some(&payload));
    assert_eq!(permission_decision(&again), "deny", "{}", both(&again));

    // explain and check see the managed level.
    let explain = run(&scratch, &["rules", "explain", "git reset --hard", "--format", "json"], None);
    assert_eq!(explain.status.code(), Some(2), "{}", both(&explain));
    let out = json_stdout(&explain);
    assert_eq!(out["decided_by"]["level"], "managed", "{out}");
    assert_eq!(out["decided_by"]["rules_file"], managed.display().to_string());
    let check = json_stdout(&run(&scratch, &["check", "--format", "json"], None));
    let files = check["rules_files"].as_array().unwrap();
    assert!(files.iter().any(|f| f["level"] == "managed" && f["path"] == managed.display().to_string()), "{check}");
    assert!(
        check["searched"].as_array().unwrap().iter().any(|p| p["level"] == "managed" && p["loaded"] == true),
        "{check}"
    );
}

#[test]
fn check_warns_about_a_managed_directory_the_user_can_write() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let scratch = Scratch::new("rules-managed-writable");
    let managed = scratch.path("managed");
    scratch.write("managed/hooks.yaml", "packs: [git]\n");
    // The warning is about a user who is not root: as root, run `check` as nobody.
    let is_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let check = |mode: u32| -> String {
        std::fs::set_permissions(&managed, std::fs::Permissions::from_mode(mode)).unwrap();
        std::fs::set_permissions(managed.join("hooks.yaml"), std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut command = if is_root {
            let mut command = std::process::Command::new("setpriv");
            command.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_hookwire")]);
            command
        } else {
            std::process::Command::new(env!("CARGO_BIN_EXE_hookwire"))
        };
        let output = command
            .args(["check", "--format", "json"])
            .current_dir("/")
            .env("HOME", scratch.path("home"))
            .env("XDG_CONFIG_HOME", scratch.path("home/.config"))
            .env("HOOKWIRE_MANAGED_DIR", &managed)
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    // Traversable for nobody, writable only by its owner.
    std::fs::set_permissions(scratch.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let safe = check(0o755);
    let writable = check(0o777);
    let warning = format!("the managed configuration {} is writable by this user", managed.display());
    assert!(!safe.contains(&warning), "{safe}");
    assert!(writable.contains(&warning), "{writable}");
}
