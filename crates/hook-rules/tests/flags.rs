//! Property tests: any spelling and order of `rm`'s recursive and force flags, behind any
//! stack of wrappers, is denied on the home directory; the decision reaches the engine's terms.

mod common;

use std::time::Instant;

use hook_core::{Action, Hook, HookDefinition, HookInput, HookSpec, Level, Permission, SerializedCache};
use hook_protocol::{
    Context, Event,
    rules::{PackName, RuleDecision, RulesFile},
    serde_json::json,
};
use hook_rules::{RuleSet, RulesFactory};
use proptest::prelude::*;

fn decide(rules: &RuleSet, command: &str) -> Option<RuleDecision> {
    common::shell_decision(rules, command)
}

proptest! {
    #[test]
    fn recursive_force_in_any_spelling_is_denied(
        recursive in prop::sample::select(vec!["-r", "-R", "--recursive"]),
        force in prop::sample::select(vec!["-f", "--force", ""]),
        combined in any::<bool>(),
        swap in any::<bool>(),
        wrappers in prop::collection::vec(prop::sample::select(vec!["sudo", "env", "nice -n 5", "timeout 10", "command", "nohup", "doas", "bash -c"]), 0..4),
        target in prop::sample::select(vec!["~", "~/", "$HOME", "/", "/*", ".."]),
    ) {
        let rules = RuleSet::compile(&RulesFile { packs: vec![PackName::Filesystem], ..RulesFile::default() }).unwrap();
        let flags = if combined && recursive.len() == 2 && force.len() == 2 {
            if swap { format!("-{}{}", &force[1..], &recursive[1..]) } else { format!("-{}{}", &recursive[1..], &force[1..]) }
        } else if swap { format!("{force} {recursive}") } else { format!("{recursive} {force}") };
        let mut command = format!("rm {flags} {target}");
        for wrapper in wrappers.iter().rev() {
            command = if *wrapper == "bash -c" { format!("bash -c '{}'", command.replace('\'', r"'\''")) } else { format!("{wrapper} {command}") };
        }
        prop_assert_eq!(decide(&rules, &command), Some(RuleDecision::Deny), "{}", command);
    }
}

async fn run(file: RulesFile, tool: &str, input: serde_json::Value) -> hook_core::HookOutput {
    let spec = HookSpec::new(
        "rules:test",
        Level::User,
        "rules",
        [Event::PreToolExecution],
        HookDefinition::Rules(Box::new(file)),
    );
    let hook = RulesFactory.build_hook(&spec).expect("builds");
    let context = Context {
        tool_name: Some(tool.to_owned()),
        tool_arguments: Some(input.to_string()),
        cwd: Some("/home/u/proj".to_owned()),
        ..Context::default()
    };
    let cache = SerializedCache::default();
    let input = HookInput::new(Event::PreToolExecution, &context, Instant::now(), 1, &cache);
    hook.call(&input).await.expect("a rules hook does not fail")
}

#[tokio::test]
async fn deny_ask_and_pass_reach_the_engine() {
    let recommended = RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() };
    let denied = run(recommended.clone(), "run_shell_command", json!({"command": "git reset --hard"})).await;
    assert_eq!(denied.action, Some(Action::DenyTool));
    let reason = denied.reason.unwrap_or_default();
    assert!(reason.contains("git/reset-hard") && reason.contains("git stash"), "{reason}");
    let asked = run(recommended.clone(), "Bash", json!({"command": "git branch -D x"})).await;
    assert_eq!((asked.action, asked.permission), (None, Some(Permission::Ask)));
    let passed = run(recommended, "Bash", json!({"command": "ls -la"})).await;
    assert!(passed.is_no_change(), "{passed:?}");
}
