//! `BashFactory` builds bash hooks from configured specs, and refuses specs it cannot run with
//! a message that names the hook.

use crate::common;

use std::time::Duration;

use common::*;
use hook_core::{BuildError, HookDefinition, HookFactory, HookSpec, Level, SourceLocation};
use hook_protocol::config::{HookDef, HookKind, ProcessDef};

fn spec(name: &str, level: Level, definition: HookDefinition) -> HookSpec {
    HookSpec {
        source: SourceLocation { file: "hooks.yaml".into(), line: Some(3), column: Some(5) },
        ..HookSpec::new(name, level, "bash", [Event::PreSendMessage], definition)
    }
}

fn command(text: &str) -> HookDefinition {
    HookDefinition::Command(HookDef { command: Some(text.into()), ..HookDef::default() })
}

fn invalid_message(result: Result<hook_core::BuiltHook, BuildError>) -> String {
    match result {
        Err(BuildError::Invalid { message }) => message,
        other => panic!("expected BuildError::Invalid, got {other:?}"),
    }
}

#[tokio::test]
async fn builds_a_runnable_hook_of_kind_bash() {
    let factory = hook_bash::BashFactory::default();
    assert_eq!(factory.kind(), "bash");
    let mut spec = spec("shout", Level::User, command("tr a-z A-Z | sed 's/\"USER_INPUT\"/\"user_input\"/'"));
    spec.env.insert("UNUSED".into(), "1".into());
    let built = factory.build(&spec).await.expect("builds");
    assert!(built.observer.is_none());
    let cache = SerializedCache::default();
    let context = context_with_input("quiet");
    let input =
        HookInput::new(Event::PreSendMessage, &context, std::time::Instant::now() + Duration::from_secs(10), 1, &cache);
    let output = built.hook.call(&input).await.expect("runs");
    assert_eq!(output.patch.user_input.as_deref(), Some("QUIET"));
}

#[tokio::test]
async fn carries_the_specs_name_dir_and_env() {
    let factory = hook_bash::BashFactory::default();
    let mut spec = spec("guard", Level::Project, command("true"));
    spec.dir = Some("/opt/hooks/guard".into());
    spec.env.insert("MODE".into(), "strict".into());
    let hook = factory.build_hook(&spec).expect("builds");
    assert_eq!(hook.command(), "true");
    assert_eq!(hook.options().name, "guard");
    assert_eq!(hook.options().dir.as_deref(), Some(std::path::Path::new("/opt/hooks/guard")));
    assert_eq!(hook.options().env.get("MODE").map(String::as_str), Some("strict"));
    assert!(!hook.options().scrub_env, "user and project hooks inherit the environment");
}

#[tokio::test]
async fn session_hooks_run_with_a_scrubbed_environment() {
    let factory = hook_bash::BashFactory::default();
    let hook = factory.build_hook(&spec("registered", Level::Session, command("true"))).expect("builds");
    assert!(hook.options().scrub_env);
}

#[tokio::test]
async fn errors_from_a_built_hook_name_it_and_the_event() {
    let factory = hook_bash::BashFactory::default();
    let built = factory.build(&spec("noisy", Level::User, command("echo debug; echo '{}'"))).await.expect("builds");
    let cache = SerializedCache::default();
    let context = Context::default();
    let input =
        HookInput::new(Event::PreSendMessage, &context, std::time::Instant::now() + Duration::from_secs(10), 1, &cache);
    match built.hook.call(&input).await {
        Err(HookError::InvalidOutput { message, .. }) => {
            assert!(message.contains("hook `noisy` on pre_send_message"), "{message}");
        }
        other => panic!("expected invalid_output, got {other:?}"),
    }
}

#[tokio::test]
async fn refuses_a_missing_or_empty_command() {
    let factory = hook_bash::BashFactory::default();
    for definition in [HookDefinition::Command(HookDef::default()), command("   ")] {
        let message = invalid_message(factory.build(&spec("empty", Level::User, definition)).await);
        assert!(message.contains("hook `empty`") && message.contains("hooks.yaml:3:5"), "{message}");
        assert!(message.contains("`command"), "{message}");
    }
}

#[tokio::test]
async fn refuses_other_kinds_of_definition() {
    let factory = hook_bash::BashFactory::default();
    let llm = HookDefinition::Command(HookDef { kind: HookKind::Llm, prompt: Some("p".into()), ..HookDef::default() });
    let message = invalid_message(factory.build(&spec("judge", Level::User, llm)).await);
    assert!(message.contains("hook `judge`") && message.contains("llm"), "{message}");

    let process = HookDefinition::Process(ProcessDef::default());
    let message = invalid_message(factory.build(&spec("proc", Level::User, process)).await);
    assert!(message.contains("hook `proc`") && message.contains("not a command hook"), "{message}");
}
