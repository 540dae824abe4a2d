//! Agent settings files read as their agent reads them: Gemini CLI's JSON with comments and
//! trailing commas and its switches inside `hooks`; Claude Code's strict JSON.

use crate::config_support::TempDir;

use hook_config::{ConfigSource, Loaded, load};
use hook_core::{Deadlines, Level};
use hook_protocol::Agent;

fn load_agent(path: &std::path::Path, agent: Agent) -> Loaded {
    load(&[ConfigSource::agent(path, Level::User, agent)], Deadlines::default(), None)
}

fn names(loaded: &Loaded) -> Vec<&str> {
    loaded.specs.iter().map(|spec| spec.name.as_str()).collect()
}

/// A Gemini settings file as users write it: comments, a trailing comma, the older
/// `"hooks": {"enabled": true}` switch beside the events.
const GEMINI_WITH_COMMENTS: &str = r#"{
  // Gemini CLI reads its settings as JSON with comments.
  "general": { "vimMode": true, },
  /* the guard: keep it on */
  "hooks": {
    "enabled": true,
    "notifications": true,
    "BeforeTool": [
      {
        "matcher": "run_shell_command", // shell only
        "hooks": [ { "type": "command", "command": "echo '// not a comment' /* nor this */", "name": "guard" }, ],
      },
    ],
  },
}
"#;

#[test]
fn gemini_settings_with_comments_trailing_commas_and_an_enabled_switch_load() {
    let dir = TempDir::new();
    let path = dir.write(".gemini/settings.json", GEMINI_WITH_COMMENTS);
    let loaded = load_agent(&path, Agent::Gemini);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(names(&loaded), ["guard"]);
    let hook_core::HookDefinition::Agent(def) = &loaded.specs[0].definition else { panic!() };
    // Comment markers inside a string are text.
    assert_eq!(def.handler.command.as_deref(), Some("echo '// not a comment' /* nor this */"));
    assert_eq!(loaded.specs[0].source.line, Some(11), "{:?}", loaded.specs[0].source);
}

#[test]
fn gemini_hooks_switched_off_load_nothing_and_say_so() {
    let dir = TempDir::new();
    for (i, switch) in
        [r#""hooks": { "enabled": false, "#, r#""hooksConfig": { "enabled": false }, "hooks": { "#].iter().enumerate()
    {
        let text = format!(
            "{{ {switch} \"BeforeTool\": [ {{ \"hooks\": [ {{ \"type\": \"command\", \"command\": \"./g.sh\" }} ] }} ] }} }}"
        );
        let path = dir.write(&format!("{i}/.gemini/settings.json"), &text);
        let loaded = load_agent(&path, Agent::Gemini);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert!(loaded.specs.is_empty(), "{:?}", names(&loaded));
        let [warning] = loaded.warnings.as_slice() else { panic!("{:?}", loaded.warnings) };
        assert!(warning.message.contains("enabled") && warning.message.contains("false"), "{warning}");
    }
}

#[test]
fn gemini_disabled_lists_switch_off_the_named_hooks_of_the_file() {
    let dir = TempDir::new();
    let text = r#"{ "hooks": { "disabled": ["noisy", "./old.sh"],
        "BeforeTool": [ { "hooks": [
            { "type": "command", "command": "./a.sh", "name": "noisy" },
            { "type": "command", "command": "./old.sh" },
            { "type": "command", "command": "./guard.sh", "name": "guard" } ] } ] } }"#;
    let path = dir.write(".gemini/settings.json", text);
    let loaded = load_agent(&path, Agent::Gemini);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(names(&loaded), ["guard"]);
    assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
    assert!(loaded.warnings.iter().all(|w| w.message.contains("disabled")), "{:?}", loaded.warnings);
}

#[test]
fn a_bad_gemini_switch_or_an_unknown_member_is_still_an_error() {
    let dir = TempDir::new();
    for (text, what) in [
        (r#"{ "hooks": { "enabled": "yes" } }"#, "enabled"),
        (r#"{ "hooks": { "disabled": [1] } }"#, "disabled"),
        (r#"{ "hooks": { "BeforeTol": [] } }"#, "BeforeTol"),
        ("{ \"hooks\": { /* open", "line"),
    ] {
        let path = dir.write(".gemini/settings.json", text);
        let loaded = load_agent(&path, Agent::Gemini);
        let [error] = loaded.errors.as_slice() else { panic!("{text}: {:?}", loaded.errors) };
        assert!(error.to_string().contains(what), "{text}: {error}");
        assert!(error.file.ends_with(".gemini/settings.json"), "{error}");
    }
}

#[test]
fn claude_settings_stay_strict_json() {
    let dir = TempDir::new();
    let text = "{ // a comment\n \"hooks\": {} }";
    let path = dir.write(".claude/settings.json", text);
    let loaded = load_agent(&path, Agent::Claude);
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    let path = dir.write(".claude/s2.json", r#"{ "hooks": { "enabled": true } }"#);
    assert_eq!(load_agent(&path, Agent::Claude).errors.len(), 1);
}
