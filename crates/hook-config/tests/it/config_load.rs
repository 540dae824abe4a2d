//! Loading the three config dialects from real files: what specs come out, in what order, and
//! what errors and warnings name.

use crate::config_support;

use std::{path::Path, time::Duration};

use config_support::{TempDir, summary};
use hook_config::{ConfigSource, Loaded, load};
use hook_core::{Deadlines, Event, HookDefinition, Level};

const SEEDS: &str = "../hook-protocol/tests/fixtures";

fn load_paths(paths: &[&Path], level: Level) -> Loaded {
    let sources: Vec<ConfigSource> = paths.iter().map(|path| ConfigSource::new(*path, level)).collect();
    load(&sources, Deadlines::default(), None)
}

fn load_one(path: &Path) -> Loaded {
    load_paths(&[path], Level::User)
}

#[test]
fn seed_jcli_files_load() {
    let names = ["config_example.yaml", "example1_censor.yaml", "example2_review.yaml", "example5_filter.yaml"];
    let mut out = String::new();
    for name in names {
        let path = Path::new(SEEDS).join("jcli").join(name);
        let loaded = load_one(&path);
        assert!(loaded.errors.is_empty(), "{name}: {:?}", loaded.errors);
        out.push_str(&summary(&loaded, None));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn seed_picoclaw_config_loads() {
    let loaded = load_one(&Path::new(SEEDS).join("plugin/config.json"));
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let [spec] = loaded.specs.as_slice() else { panic!("one spec expected: {:?}", loaded.specs) };
    assert_eq!(spec.name, "weather_plugin");
    assert_eq!(spec.kind, "process");
    assert_eq!(spec.events, [Event::PreLlmRequest, Event::PreToolExecution]);
    assert_eq!(spec.priority, 100);
    assert!(spec.enabled);
    assert!(
        matches!(&spec.definition, HookDefinition::Process(p) if p.command == ["python3", "/tmp/weather_plugin.py"])
    );
    insta::assert_snapshot!(summary(&loaded, None));
}

#[test]
fn event_keyed_json_loads() {
    let dir = TempDir::new();
    let path = dir.write(
        ".hookwire/hooks.json",
        r#"{
  "before_tool": [
    {"name": "guard", "command": "./guard.sh", "on_error": "stop"},
    {"command": "echo '{}'"}
  ],
  "stop": [{"type": "llm", "prompt": "Did it finish? {{assistant_output}}"}]
}
"#,
    );
    let loaded = load_one(&path);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    specs:
      user:guard bash [pre_tool_execution] on_error=stop @ <dir>/.hookwire/hooks.json:3:6
      user:pre_tool_execution-1 bash [pre_tool_execution] @ <dir>/.hookwire/hooks.json:4:5
      user:stop-0 llm [stop] @ <dir>/.hookwire/hooks.json:6:12
    ");
}

#[test]
fn dir_hooks_load_in_name_order() {
    let dir = TempDir::new();
    for name in ["z", "a", "m"] {
        dir.write(
            &format!("hooks/{name}/HOOK.yaml"),
            "events: [pre_tool_execution, post_tool_execution]\ncommand: guard.sh\n",
        );
    }
    // Skipped: `example`, a plain file, a directory without HOOK.yaml.
    dir.write("hooks/example/HOOK.yaml", "events: [stop]\ncommand: example.sh\n");
    dir.write("hooks/README.md", "not a hook\n");
    dir.mkdir("hooks/empty");
    let loaded = load_one(&dir.join("hooks"));
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let names: Vec<&str> = loaded.specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "m", "z"]);
    let a = &loaded.specs[0];
    assert_eq!(a.dir.as_deref(), Some(dir.join("hooks/a").as_path()));
    assert_eq!(a.events, [Event::PreToolExecution, Event::PostToolExecution]);
    assert_eq!(a.source.file, dir.join("hooks/a/HOOK.yaml"));
}

#[test]
fn hook_yaml_beats_hook_yml() {
    let dir = TempDir::new();
    dir.write("hooks/guard/HOOK.yaml", "events: [pre_tool_execution]\ncommand: from-yaml.sh\n");
    dir.write("hooks/guard/HOOK.yml", "events: [stop]\ncommand: from-yml.sh\n");
    dir.write("hooks/other/HOOK.yml", "events: [stop]\ncommand: other.sh\n");
    let loaded = load_one(&dir.join("hooks"));
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let guard = &loaded.specs[0];
    assert_eq!(guard.events, [Event::PreToolExecution]);
    assert!(matches!(&guard.definition, HookDefinition::Command(d) if d.command.as_deref() == Some("from-yaml.sh")));
    assert_eq!(loaded.specs[1].name, "other");
    assert_eq!(loaded.specs[1].source.file, dir.join("hooks/other/HOOK.yml"));
}

#[test]
fn hook_yaml_as_a_file_source_is_a_dir_hook() {
    let dir = TempDir::new();
    let path = dir.write("hooks/guard/HOOK.yaml", "events: [before_tool]\ncommand: guard.sh\nname: other\n");
    let loaded = load_one(&path);
    assert_eq!(loaded.specs.len(), 1);
    assert_eq!(loaded.specs[0].name, "guard");
    assert_eq!(loaded.specs[0].dir.as_deref(), Some(dir.join("hooks/guard").as_path()));
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    specs:
      user:guard bash [pre_tool_execution] dir=guard @ <dir>/hooks/guard/HOOK.yaml
    warnings:
      <dir>/hooks/guard/HOOK.yaml:3:1: hook `guard`: `name: other` is ignored: a directory hook is named after its directory; rename the directory to rename the hook
    ");
}

#[test]
fn dir_hook_errors_name_the_hook() {
    let dir = TempDir::new();
    dir.write("hooks/noevents/HOOK.yaml", "command: guard.sh\n");
    dir.write("hooks/twice/HOOK.yaml", "events: [post_tool_execution, after_tool]\ncommand: x.sh\n");
    dir.write("hooks/typo/HOOK.yaml", "events: [pre_tool_execution]\ncomand: x.sh\n");
    dir.write("hooks/fine/HOOK.yaml", "events: [stop]\ncommand: fine.sh\n");
    let loaded = load_one(&dir.join("hooks"));
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    specs:
      user:fine bash [stop] dir=fine @ <dir>/hooks/fine/HOOK.yaml
    errors:
      <dir>/hooks/noevents/HOOK.yaml: hook `noevents`: HOOK.yaml needs an `events:` list naming the events it runs on, e.g. `events: [pre_tool_execution]`
      <dir>/hooks/twice/HOOK.yaml:1:1: hook `twice`: event `post_tool_execution` is listed twice in `events` (perhaps under an alias); list it once
      <dir>/hooks/typo/HOOK.yaml:2:1: hook `typo`: unknown field `comand`, expected one of type, name, description, events, command, prompt, model, timeout, retry, on_error, filter, priority, enabled, env, sandbox (did you mean `command`?)
    ");
}

/// Every broken fixture is reported, each with its line and column, and the good file next to
/// them still loads.
#[test]
fn every_error_of_every_file_is_reported() {
    let mut paths: Vec<_> = std::fs::read_dir("tests/fixtures/config/errors")
        .expect("fixtures")
        .map(|entry| entry.expect("entry").path())
        .collect();
    paths.sort();
    let n_bad_files = paths.len();
    paths.push("tests/fixtures/config/good/hooks.yaml".into());
    let path_refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let loaded = load_paths(&path_refs, Level::Project);

    for path in &paths[..n_bad_files] {
        assert!(loaded.errors.iter().any(|e| &e.file == path), "no error for {}", path.display());
    }
    // bad_regex.yaml holds two bad patterns: both are reported.
    let n_regex = loaded.errors.iter().filter(|e| e.file.ends_with("bad_regex.yaml")).count();
    assert_eq!(n_regex, 2);
    assert!(loaded.errors.iter().all(|e| e.line.is_some() && e.column.is_some()), "{:#?}", loaded.errors);
    // Only the good file's hooks load.
    assert!(loaded.specs.iter().all(|s| s.source.file.ends_with("good/hooks.yaml")));
    assert_eq!(loaded.specs.len(), 3);
    insta::assert_snapshot!(summary(&loaded, None));
}

#[test]
fn a_bad_hook_switches_off_its_whole_file() {
    let dir = TempDir::new();
    let path = dir.write(
        "hooks.yaml",
        "pre_tool_execution:\n  - name: guard\n    command: ./guard.sh\n  - name: broken\n    command: ./x.sh\n    filter:\n      tool_regex: '('\n",
    );
    let loaded = load_one(&path);
    assert!(loaded.specs.is_empty(), "the guard must not run alone: {:?}", loaded.specs);
    assert_eq!(loaded.errors.len(), 1);
    let error = &loaded.errors[0];
    assert_eq!((error.line, error.column, error.hook.as_deref()), (Some(7), Some(7), Some("broken")));
}

#[test]
fn parse_errors_name_the_entry() {
    let dir = TempDir::new();
    let path = dir.write("hooks.yaml", "stop:\n  - command: ./a.sh\n  - command: ./b.sh\n    timeout: 0\n");
    let loaded = load_one(&path);
    let error = &loaded.errors[0];
    assert_eq!((error.line, error.column), (Some(3), Some(5)));
    assert_eq!(error.hook.as_deref(), Some("stop-1"));
}

#[test]
fn name_no_is_a_string() {
    let dir = TempDir::new();
    let path = dir.write("hooks.yaml", "pre_send_message:\n  - name: no\n    command: ./x.sh\n    enabled: true\n");
    let loaded = load_one(&path);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.specs[0].name, "no");
}

#[test]
fn explicit_values_are_kept_as_written() {
    let dir = TempDir::new();
    let path = dir.write(
        "hooks.yaml",
        "stop:\n  - type: llm\n    prompt: p\n    timeout: 10\n    retry: 0\n  - type: llm\n    prompt: q\n  - command: x\n    timeout: 0.25\n    enabled: false\n    priority: -3\n",
    );
    let loaded = load_one(&path);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let [explicit, defaults, bash] = loaded.specs.as_slice() else { panic!("{:?}", loaded.specs) };
    assert_eq!((explicit.timeout, explicit.retry), (Some(Duration::from_secs(10)), Some(0)));
    assert_eq!((defaults.timeout, defaults.retry, defaults.on_error), (None, None, None));
    assert_eq!(bash.timeout, Some(Duration::from_millis(250)));
    assert!(!bash.enabled);
    assert_eq!(bash.priority, -3);
    assert_eq!(bash.deadlines, Deadlines::default());
}

#[test]
fn tool_filter_on_a_tool_less_event_warns() {
    let dir = TempDir::new();
    let path = dir.write(
        "hooks.yaml",
        "session_start:\n  - command: ./x.sh\n    filter:\n      tool_matcher: Bash\npre_tool_execution:\n  - command: ./y.sh\n    filter:\n      tool_matcher: Bash\n",
    );
    let loaded = load_one(&path);
    assert_eq!(loaded.specs.len(), 2, "a warning does not stop the hook");
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r#"
    specs:
      user:session_start-0 bash [session_start] filter={"tool_matcher":"Bash"} @ <dir>/hooks.yaml:2:5
      user:pre_tool_execution-0 bash [pre_tool_execution] filter={"tool_matcher":"Bash"} @ <dir>/hooks.yaml:6:5
    warnings:
      <dir>/hooks.yaml:2:5: hook `session_start-0`: filter on the tool (`tool_matcher`) can never match on session_start, which has no tool; remove the filter or move the hook to a tool event
    "#);
}

#[test]
fn fields_the_kind_ignores_are_warned_about() {
    let dir = TempDir::new();
    let path = dir.write(
        "hooks.yaml",
        "stop:\n  - command: ./x.sh\n    model: gpt-4o\n  - type: llm\n    prompt: p\n    command: ./y.sh\n",
    );
    let loaded = load_one(&path);
    assert_eq!(loaded.specs.len(), 2);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    specs:
      user:stop-0 bash [stop] @ <dir>/hooks.yaml:2:5
      user:stop-1 llm [stop] @ <dir>/hooks.yaml:4:5
    warnings:
      <dir>/hooks.yaml:3:5: hook `stop-0`: `model` is ignored by a bash hook; remove it or set `type`
      <dir>/hooks.yaml:6:5: hook `stop-1`: `command` is ignored by an llm hook; remove it or set `type`
    ");
}

#[test]
fn picoclaw_defaults_apply_and_non_positive_values_are_ignored() {
    let dir = TempDir::new();
    let path = dir.write(
        "config.json",
        r#"{
  "hooks": {
    "defaults": {"observer_timeout_ms": 0, "interceptor_timeout_ms": 1500, "approval_timeout_ms": -5},
    "processes": {
      "audit": {"enabled": true, "command": ["./audit"], "intercept": ["before_tool"], "timeout_ms": 700,
                "on_error": "deny", "respond_tools": ["weather"], "priority": -1}
    }
  }
}
"#,
    );
    let loaded = load_one(&path);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let spec = &loaded.specs[0];
    let defaults = Deadlines::default();
    assert_eq!(spec.deadlines.interceptor, Duration::from_millis(1500));
    assert_eq!(spec.deadlines.observer, defaults.observer);
    assert_eq!(spec.deadlines.approval, defaults.approval);
    assert_eq!(spec.deadlines.chain, defaults.chain);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r#"
    specs:
      user:audit process [pre_tool_execution] priority=-1 timeout=700ms on_error=deny respond_tools=["weather"] @ <dir>/config.json:5:7
    "#);
}

#[test]
fn after_tool_intercept_means_both_post_events() {
    let dir = TempDir::new();
    let path = dir.write(
        "config.yaml",
        "hooks:\n  processes:\n    picky:\n      enabled: true\n      command: [./picky]\n      intercept: [post_tool_execution]\n    audit:\n      enabled: true\n      command: [./audit]\n      intercept: [after_tool, approve_tool]\n",
    );
    let loaded = load_one(&path);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let audit = &loaded.specs[0];
    assert_eq!(audit.name, "audit");
    assert_eq!(audit.events, [Event::PostToolExecution, Event::PostToolExecutionFailure, Event::ApproveTool]);
    assert_eq!(loaded.specs[1].events, [Event::PostToolExecution]);
}

#[test]
fn picoclaw_enabled_flags() {
    let dir = TempDir::new();
    let path = dir.write(
        "config.json",
        r#"{
  "hooks": {
    "enabled": false,
    "builtins": {"logger": {"enabled": true, "priority": 2}, "off": {"enabled": false}},
    "processes": {
      "implicit": {"command": ["./p"], "observe": ["*"]},
      "on": {"enabled": true, "command": ["./q"], "intercept": ["before_llm"]}
    }
  }
}
"#,
    );
    let loaded = load_one(&path);
    assert!(loaded.specs.iter().all(|spec| !spec.enabled));
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    specs:
      user:logger builtin [] disabled priority=2 @ <dir>/config.json:4:18
      user:implicit process [] disabled @ <dir>/config.json:6:7
      user:on process [pre_llm_request] disabled @ <dir>/config.json:7:7
    warnings:
      <dir>/config.json:6:7: hook `implicit`: has no `enabled: true`, so it is off (as in PicoClaw); add `enabled: true` to run it
      <dir>/config.json:3:5: `hooks.enabled` is false, so none of this file's hooks run (logger, implicit, on); set it to true to run them
    ");
}

#[test]
fn duplicate_names_in_one_level_are_errors() {
    let dir = TempDir::new();
    let first = dir.write("user/hooks.yaml", "stop:\n  - name: guard\n    command: ./a.sh\n");
    let second =
        dir.write("user2/hooks.yaml", "pre_send_message:\n  - command: ./c.sh\n  - name: guard\n    command: ./b.sh\n");
    let project = dir.write("project/hooks.yaml", "stop:\n  - name: guard\n    command: ./a.sh\n");
    let sources = [
        ConfigSource::new(&first, Level::User),
        ConfigSource::new(&second, Level::User),
        ConfigSource::new(&project, Level::Project),
    ];
    let loaded = load(&sources, Deadlines::default(), None);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    specs:
      user:guard bash [stop] @ <dir>/user/hooks.yaml:2:5
      project:guard bash [stop] @ <dir>/project/hooks.yaml:2:5
    errors:
      <dir>/user2/hooks.yaml:3:5: hook `guard`: the name is already used at <dir>/user/hooks.yaml:2:5; names must be unique among user hooks: rename one of them
    ");
}

#[test]
fn unnamed_entries_of_two_files_are_numbered_on_and_both_load() {
    let dir = TempDir::new();
    let a = dir.write("a/hooks.yaml", "stop:\n  - command: ./a.sh\n");
    let b = dir.write("b/hooks.yaml", "stop:\n  - command: ./b.sh\n");
    let loaded = load_paths(&[&a, &b], Level::User);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let names: Vec<&str> = loaded.specs.iter().map(|spec| spec.name.as_str()).collect();
    assert_eq!(names, ["stop-0", "stop-0-2"]);
}

#[test]
fn a_written_name_that_collides_with_a_generated_one_says_how_to_fix() {
    let dir = TempDir::new();
    let a = dir.write("a/hooks.yaml", "stop:\n  - command: ./a.sh\n");
    let b = dir.write("b/hooks.yaml", "stop:\n  - name: stop-0\n    command: ./b.sh\n");
    let loaded = load_paths(&[&a, &b], Level::User);
    assert_eq!(loaded.specs.len(), 1);
    assert!(loaded.errors[0].message.contains("rename one of them"), "{}", loaded.errors[0]);
}

#[test]
fn missing_sources_are_skipped_and_empty_files_are_empty() {
    let dir = TempDir::new();
    let empty = dir.write("hooks.yaml", "# nothing yet\n");
    let loaded = load_paths(&[&dir.join("nope.yaml"), &dir.join("nohooks"), &empty], Level::User);
    assert!(loaded.specs.is_empty() && loaded.errors.is_empty() && loaded.warnings.is_empty(), "{loaded:?}");
}

#[test]
fn non_utf8_and_non_mapping_files_are_errors() {
    let dir = TempDir::new();
    let binary = dir.join("bin.yaml");
    std::fs::write(&binary, [0xff, 0xfe, 0x00]).expect("write");
    let list = dir.write("list.yaml", "- command: x\n");
    let loaded = load_paths(&[&binary, &list], Level::User);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    errors:
      <dir>/bin.yaml: is not UTF-8 text; save it as UTF-8
      <dir>/list.yaml:1:1: the top level is not a mapping: write `event_name:` keys with lists of hooks (j-cli hooks.yaml) or a `hooks:` section (PicoClaw)
    ");
}

/// Two entries of one event with the same name: the error is at the second, the one to fix,
/// and names the first (positions come from the parser's spans, not from searching the text
/// for the first `name: guard`).
#[test]
fn a_duplicate_name_is_reported_at_the_second_entry() {
    let dir = TempDir::new();
    let path = dir.write(
        "hooks.yaml",
        "stop:\n  - name: guard\n    command: ./a.sh\n  - name: other\n    command: ./b.sh\n  - name: guard\n    command: ./c.sh\n",
    );
    let loaded = load_one(&path);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    errors:
      <dir>/hooks.yaml:6:5: hook `guard`: the name is already used at <dir>/hooks.yaml:2:5; names must be unique among user hooks: rename one of them
    ");
}

/// `!!binary` turns base64 into a command no reader of the file sees: refused at load, with
/// the tag's position; other non-core tags too.
#[test]
fn yaml_tags_that_hide_a_value_are_refused() {
    let dir = TempDir::new();
    let hidden = dir.write("hidden.yaml", "stop:\n  - name: guard\n    command: !!binary ZWNobyBoaQ==\n");
    let custom = dir.write("hooks/custom/HOOK.yaml", "events: [stop]\ncommand: !shell x\n");
    let fine = dir.write("fine.yaml", "stop:\n  - name: fine\n    command: !!str echo '{}'\n");
    let loaded = load_paths(&[&hidden, &custom, &fine], Level::User);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    specs:
      user:fine bash [stop] @ <dir>/fine.yaml:2:5
    errors:
      <dir>/hidden.yaml:3:14: the YAML tag `!!binary` is not allowed in a hook config: it hides what the value says from anyone reading the file (and from `hookwire trust`); write the value as plain text
      <dir>/hooks/custom/HOOK.yaml:2:10: the YAML tag `!shell` is not allowed in a hook config: it hides what the value says from anyone reading the file (and from `hookwire trust`); write the value as plain text
    ");
}

/// 8,000 hooks load, and an error after them is located, in linear time: the old text scan
/// searched the file again for every hook (11–26 s).
#[test]
fn eight_thousand_hooks_load_and_locate_in_linear_time() {
    let dir = TempDir::new();
    let mut text = String::from("pre_tool_execution:\n");
    for i in 0..8000 {
        text.push_str(&format!("  - name: hook-{i}\n    command: ./scripts/h{i}.sh\n"));
    }
    text.push_str("  - command: ./x.sh\n    filter:\n      args_regex: \"[\"\n");
    let path = dir.write("hooks.yaml", &text);
    let started = std::time::Instant::now();
    let loaded = load_one(&path);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "loading 8,000 hooks took {elapsed:?}");
    let [error] = loaded.errors.as_slice() else { panic!("{:?}", loaded.errors) };
    assert_eq!(
        (error.line, error.column, error.hook.as_deref()),
        (Some(16_004), Some(7), Some("pre_tool_execution-8000"))
    );
}

/// Unnamed entries of a JSON file are located at the entry (they were located at the event key).
#[test]
fn json_entries_are_located_by_the_parsers_spans() {
    let dir = TempDir::new();
    let path = dir.write(
        "hooks.json",
        "{\n  \"stop\": [\n    {\"command\": \"./a.sh\"},\n    {\"command\": \"./b.sh\", \"timeout\": 1e9}\n  ]\n}\n",
    );
    let loaded = load_one(&path);
    insta::assert_snapshot!(summary(&loaded, Some(dir.path())), @r"
    errors:
      <dir>/hooks.json:4:27: hook `stop-1`: `timeout` is over 24 hours (86400 seconds); write the deadline in seconds, e.g. `timeout: 30`
    ");
}

/// A Claude Code settings file of 8,000 handlers loads, and locates its last one, in linear time.
#[test]
fn eight_thousand_claude_handlers_load_and_locate_in_linear_time() {
    let dir = TempDir::new();
    let mut text = String::from("{\n  \"hooks\": {\n    \"PreToolUse\": [\n");
    for i in 0..8000 {
        text.push_str(&format!(
            "      {{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"./h{i}.sh\"}}]}},\n"
        ));
    }
    text.push_str("      {\"matcher\": \"(?!x)\", \"hooks\": [{\"type\": \"command\", \"command\": \"./last.sh\"}]}\n");
    text.push_str("    ]\n  }\n}\n");
    let path = dir.write(".claude/settings.json", &text);
    let started = std::time::Instant::now();
    let loaded = load_one(&path);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "loading 8,000 handlers took {elapsed:?}");
    let [error] = loaded.errors.as_slice() else { panic!("{:?}", loaded.errors) };
    assert_eq!(error.line, Some(8004), "{error}");
    assert!(error.message.contains("look-around"), "{error}");
}

#[test]
fn a_picoclaw_yaml_with_a_syntax_error_reports_the_syntax_error_not_an_unknown_event() {
    let dir = TempDir::new();
    let path = dir.write(
        "picoclaw.yaml",
        "hooks:\n  enabled: true\n  processes:\n    weather:\n      enabled: true\n      command: [\"python3\", \"weather.py\"\n      intercept: [before_tool]\n",
    );
    let loaded = load_one(&path);
    let [error] = loaded.errors.as_slice() else { panic!("one error expected: {:?}", loaded.errors) };
    assert!(!error.message.contains("unknown event"), "{error}");
    assert_eq!((error.line, error.column), (Some(7), Some(16)), "{error}");
}

#[test]
fn tool_names_in_the_wrong_case_are_warned_about() {
    let dir = TempDir::new();
    let jcli = dir.write(
        "hooks.yaml",
        "pre_tool_execution:\n  - name: lower\n    command: ./x.sh\n    filter:\n      tool_matcher: ls|write\n  \
         - name: anchored\n    command: ./y.sh\n    filter:\n      tool_regex: ^read$\n  \
         - name: fine\n    command: ./z.sh\n    filter:\n      tool_matcher: Bash|Shell\n",
    );
    let claude = dir.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [
            {"matcher": "write", "hooks": [{"type": "command", "command": "./a.sh"}]},
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./b.sh"}]}
        ], "SessionStart": [{"matcher": "Startup", "hooks": [{"type": "command", "command": "./c.sh"}]}]}}"#,
    );
    let loaded = load_paths(&[&jcli, &claude], Level::User);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.specs.len(), 6, "a warning does not stop a hook");
    let warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 3, "{warnings:#?}");
    // Not `bash`: that is Copilot CLI's shell tool.
    assert!(warnings[0].contains("hook `lower`") && warnings[0].contains("`filter.tool_matcher` `ls|write`"));
    assert!(warnings[0].contains("would match `LS`, `Write`"), "{}", warnings[0]);
    assert!(warnings[1].contains("hook `anchored`") && warnings[1].contains("would match `Read`"), "{}", warnings[1]);
    assert!(warnings[2].contains("matcher `write` matches no tool of Claude Code"), "{}", warnings[2]);
    assert!(warnings[2].contains("would match `Write`") && warnings[2].contains("settings.json"), "{}", warnings[2]);
}
