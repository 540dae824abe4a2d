//! Rules files (`rules:`, `packs:`, `allow:`): one `rules` spec per file, refused whole, with
//! the place of the mistake, on an unknown key, pack, tool class or a bad pattern.

use hook_config::{ConfigSource, Loaded, load};
use hook_core::{Deadlines, Event, HookDefinition, Level};

fn load_text(name: &str, text: &str) -> Loaded {
    let dir = std::env::temp_dir().join(format!("hookwire-rules-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let loaded = load(&[ConfigSource::new(&path, Level::User)], Deadlines::default(), None);
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

#[test]
fn a_packs_file_is_one_rules_spec() {
    let loaded = load_text("packs.yaml", "packs: [recommended]\n");
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let [spec] = loaded.specs.as_slice() else { panic!("one spec expected: {:?}", loaded.specs) };
    assert_eq!(spec.kind, "rules");
    assert!(matches!(spec.definition, HookDefinition::Rules(_)));
    assert_eq!(spec.events, [Event::PreToolExecution]);
}

#[test]
fn a_file_runs_on_the_events_of_its_packs_and_of_its_own_rules() {
    let loaded = load_text(
        "mixed.yaml",
        "packs: [git]\nrules:\n  - name: no-secrets-in-prompts\n    events: [UserPromptSubmit]\n    when: \"true\"\n",
    );
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let [spec] = loaded.specs.as_slice() else { panic!("one spec expected: {:?}", loaded.specs) };
    let mut events = spec.events.clone();
    events.sort_by_key(|e| e.as_str());
    let mut expected = vec![Event::PreToolExecution, Event::PreSendMessage];
    expected.sort_by_key(|e| e.as_str());
    assert_eq!(events, expected);
}

#[test]
fn an_unknown_pack_refuses_the_file_with_its_place() {
    let loaded = load_text("bad-pack.yaml", "packs:\n  - recomended\n");
    assert!(loaded.specs.is_empty());
    let [error] = loaded.errors.as_slice() else { panic!("{:?}", loaded.errors) };
    assert_eq!((error.line, error.column), (Some(2), Some(5)), "{error}");
    assert!(error.message.contains("recomended"), "{error}");
}

#[test]
fn an_unknown_tool_class_key_or_bad_regex_refuses_the_file() {
    let loaded = load_text("bad-tool.yaml", "rules:\n  - name: x\n    tools: [shel]\n    command: rm -rf\n");
    assert!(loaded.specs.is_empty());
    let error = &loaded.errors[0];
    assert!(error.message.contains("shel") && error.line == Some(3), "{error}");

    let loaded = load_text("bad-key.yaml", "rules:\n  - name: x\n    comand: rm -rf\n");
    assert!(loaded.specs.is_empty());
    assert!(loaded.errors[0].message.contains("comand") && loaded.errors[0].line == Some(3), "{:?}", loaded.errors);

    let loaded = load_text("bad-regex.yaml", "rules:\n  - name: x\n    tools: [write]\n    content: \"(unclosed\"\n");
    assert!(loaded.specs.is_empty());
    assert!(loaded.errors[0].message.contains("regex") && loaded.errors[0].line == Some(4), "{:?}", loaded.errors);
}
