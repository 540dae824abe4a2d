//! The parsing entry points: positions, messages, and no panic on any input.

use crate::config_support;

use config_support::TempDir;
use hook_config::{ConfigSource, load, parse_json, parse_yaml};
use hook_core::{Deadlines, Level};
use hook_protocol::config::{HookDef, HooksFile, PicoClawConfig};
use proptest::prelude::*;

#[test]
fn yaml_errors_carry_line_and_column_without_the_position_in_the_message() {
    let err = parse_yaml::<HooksFile>("stop:\n  - command: x\n    retyr: 1\n").expect_err("typo");
    assert_eq!((err.line, err.column), (Some(3), Some(5)));
    assert!(err.message.starts_with("unknown field `retyr`"), "{}", err.message);
    assert!(err.message.ends_with("(did you mean `retry`?)"), "{}", err.message);
    assert!(!err.message.contains("line 3"), "{}", err.message);
}

#[test]
fn strict_booleans_keep_yes_and_no_as_strings() {
    let def: HookDef = parse_yaml("name: no\ncommand: yes\nevents: [stop]\n").expect("parses");
    assert_eq!((def.name.as_deref(), def.command.as_deref()), (Some("no"), Some("yes")));
    let err = parse_yaml::<HookDef>("command: x\nenabled: yes\n").expect_err("`yes` is not a boolean");
    assert_eq!(err.line, Some(2));
}

#[test]
fn json_duplicate_keys_are_errors_even_where_serde_json_keeps_the_last() {
    // `processes` is a map: serde_json alone would silently keep the second `guard`.
    let text = "{\"hooks\": {\"processes\": {\n  \"guard\": {\"command\": [\"a\"], \"observe\": [\"*\"]},\n  \"guard\": {\"command\": [\"b\"], \"observe\": [\"*\"]}\n}}}\n";
    let err = parse_json::<PicoClawConfig>(text).expect_err("duplicate");
    assert_eq!(err.line, Some(3));
    assert!(err.message.starts_with("duplicate key `guard`"), "{}", err.message);
}

#[test]
fn an_oversized_regex_is_a_load_error() {
    let dir = TempDir::new();
    let path = dir.write(
        "hooks.yaml",
        "pre_tool_execution:\n  - command: x\n    filter:\n      args_regex: \"(\\\\w{100}){100}\"\n",
    );
    let loaded = load(&[ConfigSource::new(&path, Level::User)], Deadlines::default(), None);
    assert!(loaded.specs.is_empty());
    let error = &loaded.errors[0];
    assert!(error.message.contains("compiles to more than"), "{error}");
    assert_eq!(error.line, Some(4), "{error}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn parsing_never_panics(text in "(?s).{0,200}") {
        let _ = parse_yaml::<HooksFile>(&text);
        let _ = parse_yaml::<PicoClawConfig>(&text);
        let _ = parse_json::<HooksFile>(&text);
    }

    #[test]
    fn yaml_like_input_never_panics(text in "([a-z_]{1,12}:( [a-z0-9{}\\[\\]\"' ,-]{0,12})?\n( {0,6}- ?[a-z_]{0,8}:? ?[a-z0-9\"'(]{0,6}\n){0,4}){0,4}") {
        let _ = parse_yaml::<HooksFile>(&text);
        let _ = parse_yaml::<HookDef>(&text);
    }
}

proptest! {
    // Each case writes three files: fewer cases keep the test well under a second.
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The whole load (dialect detection, locating entries for messages) on arbitrary text.
    #[test]
    fn loading_any_text_never_panics(text in "([a-z_\"{}:]{1,20}:?( [a-z0-9{}\\[\\]\"' ,:-]{0,16})?\n( {0,6}- ?[a-z_]{0,8}:? ?[a-z0-9\"'({]{0,6}\n){0,4}){0,4}") {
        let dir = TempDir::new();
        for name in ["hooks.yaml", "hooks.json", "h/x/HOOK.yaml"] {
            let path = dir.write(name, &text);
            let loaded = load(&[ConfigSource::new(&path, Level::User)], Deadlines::default(), None);
            prop_assert!(loaded.errors.iter().all(|e| e.file == path));
        }
    }
}
