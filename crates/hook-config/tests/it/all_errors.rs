//! Every error of a configuration file in one load, in every dialect: each with its line,
//! column and hook; the file still loads no hook, and a valid file next to it loads.

use crate::config_support::TempDir;

use hook_config::{ConfigSource, Loaded, load};
use hook_core::{Deadlines, Level};

/// Loads `bad` (relative to `dir`) with a valid `good.yaml` next to it.
fn load_with_good(dir: &TempDir, bad: &str) -> Loaded {
    dir.write("good.yaml", "stop:\n  - name: fine\n    command: echo '{}'\n");
    let sources =
        [ConfigSource::new(dir.join(bad), Level::User), ConfigSource::new(dir.join("good.yaml"), Level::User)];
    load(&sources, Deadlines::default(), None)
}

/// `(line, column, hook, start of message)` of each error.
fn errors(loaded: &Loaded) -> Vec<(usize, usize, Option<String>, String)> {
    loaded
        .errors
        .iter()
        .map(|e| {
            let head: String = e.message.chars().take(40).collect();
            (e.line.unwrap_or(0), e.column.unwrap_or(0), e.hook.clone(), head)
        })
        .collect()
}

fn assert_only_good_loads(loaded: &Loaded) {
    let names: Vec<&str> = loaded.specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["fine"], "{:#?}", loaded.errors);
}

fn hook(name: &str) -> Option<String> {
    Some(name.to_owned())
}

#[test]
fn event_keyed_json_reports_every_error() {
    let dir = TempDir::new();
    dir.write(
        "hooks.json",
        r#"{
  "pre_tool_execution": [
    {"name": "a", "command": "./a.sh", "timeout": "5s"},
    {"name": "b", "type": "llm"},
    {"name": "c", "command": "./c.sh", "filter": {"tool_regex": "("}},
    {"command": "./d.sh", "on_eror": "skip"},
    {"command": "./f.sh", "timeout": 1e30}
  ],
  "pre_tool": [{"command": "./e.sh"}]
}
"#,
    );
    let loaded = load_with_good(&dir, "hooks.json");
    let found = errors(&loaded);
    let at: Vec<(usize, usize, Option<String>)> = found.iter().map(|(l, c, h, _)| (*l, *c, h.clone())).collect();
    assert_eq!(
        at,
        [
            (3, 54, hook("a")),
            (4, 5, hook("b")),
            (5, 51, hook("c")),
            (6, 35, hook("pre_tool_execution-3")),
            (7, 27, hook("pre_tool_execution-4")),
            (9, 12, None),
        ],
        "{found:#?}"
    );
    assert!(found[5].3.starts_with("unknown event `pre_tool`"), "{found:#?}");
    assert!(found[2].3.starts_with("`filter.tool_regex` `(`"), "{found:#?}");
    assert_only_good_loads(&loaded);
}

#[test]
fn event_keyed_yaml_reports_every_error_with_generated_names_kept() {
    let dir = TempDir::new();
    dir.write(
        "hooks.yaml",
        "pre_tool_execution:\n  - command: ./a.sh\n    timeout: -1\n  - command: ./b.sh\n    timeout: \"5s\"\n  - command: ./c.sh\n    timeout: 1e30\npre_tool:\n  - command: ./e.sh\n",
    );
    let loaded = load_with_good(&dir, "hooks.yaml");
    let found = errors(&loaded);
    let at: Vec<(usize, usize, Option<String>)> = found.iter().map(|(l, c, h, _)| (*l, *c, h.clone())).collect();
    assert_eq!(
        at,
        [
            (2, 5, hook("pre_tool_execution-0")),
            (5, 14, hook("pre_tool_execution-1")),
            (7, 5, hook("pre_tool_execution-2")),
            (8, 1, None),
        ],
        "{found:#?}"
    );
    assert_only_good_loads(&loaded);
}

#[test]
fn picoclaw_reports_every_error() {
    let dir = TempDir::new();
    dir.write(
        "picoclaw.json",
        r#"{
  "hooks": {
    "processes": {
      "audit": {"enabled": true, "command": ["python3", "audit.py"], "intercept": ["before_tool", "after_everything"]},
      "nocmd": {"enabled": true, "intercept": ["before_tool"]},
      "neg": {"enabled": true, "command": ["x"], "intercept": ["before_tool"], "timeout_ms": -5},
      "typo": {"enabled": true, "command": ["x"], "intercept": ["before_tool"], "timeuot_ms": 5}
    },
    "builtins": {"b1": {"enabled": true, "confg": {}}}
  }
}
"#,
    );
    let loaded = load_with_good(&dir, "picoclaw.json");
    let found = errors(&loaded);
    let hooks: Vec<Option<String>> = found.iter().map(|(_, _, h, _)| h.clone()).collect();
    assert_eq!(hooks, [hook("audit"), hook("nocmd"), hook("neg"), hook("typo"), hook("b1")], "{found:#?}");
    let lines: Vec<usize> = found.iter().map(|(l, _, _, _)| *l).collect();
    assert_eq!(lines, [4, 5, 6, 7, 9], "{found:#?}");
    assert_eq!(found[1].1, 16, "a missing command is reported at its entry: {found:#?}");
    assert!(found[3].3.starts_with("unknown field `timeuot_ms`"), "{found:#?}");
    assert_only_good_loads(&loaded);
}

#[test]
fn hook_yaml_reports_every_error_of_its_one_hook() {
    let dir = TempDir::new();
    dir.write(
        "hooks/guard/HOOK.yaml",
        "events: [pre_tool_execution, pre_tool]\ncommand: ./guard.sh\ntimeout: \"5s\"\nfilter:\n  tool_regex: '('\ncolour: red\n",
    );
    let loaded = load_with_good(&dir, "hooks");
    let found = errors(&loaded);
    let at: Vec<(usize, usize)> = found.iter().map(|(l, c, _, _)| (*l, *c)).collect();
    assert_eq!(at, [(1, 30), (3, 10), (5, 3), (6, 1)], "{found:#?}");
    assert!(found.iter().all(|(_, _, h, _)| *h == hook("guard")), "{found:#?}");
    assert_only_good_loads(&loaded);
}

#[test]
fn a_misspelt_key_is_one_error_not_two() {
    let dir = TempDir::new();
    dir.write("hooks/typo/HOOK.yaml", "events: [stop]\ncomand: x.sh\n");
    let loaded = load_with_good(&dir, "hooks");
    assert_eq!(loaded.errors.len(), 1, "{:#?}", loaded.errors);
}

#[test]
fn a_syntax_error_stays_one_error() {
    let dir = TempDir::new();
    dir.write("hooks.json", "{\"stop\": [{\"command\": \"x\",}]\n");
    let loaded = load_with_good(&dir, "hooks.json");
    assert_eq!(loaded.errors.len(), 1, "{:#?}", loaded.errors);
    assert_only_good_loads(&loaded);
}
