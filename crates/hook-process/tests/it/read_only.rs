//! hookwire's `read_only` extension with real processes: hooks that promise in `hook.hello` to
//! change nothing on a method run at once with their like, a typo in the promise refuses the
//! mount, and a hook that breaks it is refused and halts the chain.

use crate::{common, rust_server::echo_hook};

use std::{sync::Arc, time::Duration};

use common::*;
use hook_core::{BuildError, Context, Decision, Engine, Event, Level, Registration};
use serde_json::json;

fn read_only_spec(dir: &std::path::Path, name: &str, mode: &str, expected: usize) -> hook_core::HookSpec {
    let dir = dir.display().to_string();
    let expected = expected.to_string();
    python_spec(
        name,
        "read_only_hook.py",
        &[&dir, name, mode, &expected],
        &[Event::PreLlmRequest, Event::PreToolExecution],
    )
}

async fn engine_of(specs: &[hook_core::HookSpec]) -> (Engine, Vec<Arc<hook_process::ProcessHook>>) {
    let engine = Engine::builder().build();
    let mut hooks = Vec::new();
    for spec in specs {
        let hook = start(spec).await;
        let registration = Registration::new(spec.name.clone(), Level::User, spec.events.clone(), hook.clone());
        assert!(!engine.register(registration).is_empty());
        hooks.push(hook);
    }
    (engine, hooks)
}

#[tokio::test]
async fn hooks_that_promise_to_change_nothing_run_at_once() {
    let dir = temp_dir("read-only-meet");
    let specs: Vec<_> = ["a", "b", "c"].iter().map(|name| read_only_spec(&dir, name, "meet", 3)).collect();
    let (engine, hooks) = engine_of(&specs).await;
    assert!(hooks.iter().all(|h| hook_core::Hook::changes_nothing(&**h, Event::PreLlmRequest)));
    assert!(!hook_core::Hook::changes_nothing(&*hooks[0], Event::PostLlmResponse));
    let mut context = Context { model: Some("m".into()), ..Context::default() };
    let outcome = engine.fire(Event::PreLlmRequest, &mut context).await;
    // One after another, `a` would wait alone for 2 s (within its deadline) and abort the turn.
    assert_eq!(outcome.decision, Decision::Continue, "{:?} {:#?}", outcome.reason, outcome.trace);
    assert_eq!(outcome.trace.len(), 3);
    assert!(outcome.trace.iter().all(|t| t.error.is_none() && t.outcome.is_success()), "{:#?}", outcome.trace);
    engine.shutdown().await;
    for hook in &hooks {
        shutdown_and_check(hook).await;
    }
}

#[tokio::test]
async fn a_typo_in_the_promise_refuses_the_mount_and_names_it() {
    let dir = temp_dir("read-only-typo");
    let error = build(&read_only_spec(&dir, "typo", "typo", 1), options()).await.unwrap_err();
    match error {
        BuildError::Refused { reason } => assert!(
            reason.contains("`typo`") && reason.contains("`before_lmm`") && reason.contains("hook.before_llm"),
            "{reason}"
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_hook_that_breaks_its_promise_is_refused_and_the_call_denied() {
    let dir = temp_dir("read-only-liar");
    let (engine, hooks) = engine_of(&[read_only_spec(&dir, "liar", "liar", 1)]).await;
    let mut context = tool_context("bash", json!({"command": "ls"}));
    let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert_eq!(context.tool_arguments.as_deref(), Some(r#"{"command":"ls"}"#));
    let error = outcome.trace[0].error.as_ref().map(ToString::to_string).unwrap_or_default();
    assert!(
        error.contains("promised to change nothing on pre_tool_execution")
            && error.contains("`tool_arguments`")
            && error.contains("hookwire.read_only"),
        "{error}"
    );
    engine.shutdown().await;
    shutdown_and_check(&hooks[0]).await;
}

#[tokio::test]
async fn the_rust_sdk_promises_and_an_unchanged_echo_keeps_the_promise() {
    let command = vec![
        echo_hook().to_owned(),
        "--read-only".into(),
        "before_llm,before_tool".into(),
        "--reads".into(),
        "before_llm=model".into(),
    ];
    let spec = spec("echo", command, &[Event::PreLlmRequest, Event::PreToolExecution]);
    let (engine, hooks) = engine_of(&[spec.clone(), hook_core::HookSpec { name: "echo2".into(), ..spec }]).await;
    assert!(hook_core::Hook::changes_nothing(&*hooks[0], Event::PreToolExecution));
    let mut context = tool_context("bash", json!({"command": "ls", "n": 1e30}));
    let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue, "{:#?}", outcome.trace);
    assert!(outcome.trace.iter().all(|t| t.error.is_none() && t.changed.is_empty()), "{:#?}", outcome.trace);
    engine.shutdown().await;
    for hook in &hooks {
        shutdown_and_check(hook).await;
    }
}

#[tokio::test]
async fn a_restarted_hook_that_promises_otherwise_is_not_run() {
    let dir = temp_dir("read-only-flip");
    let spec = read_only_spec(&dir, "flip", "flip", 1);
    let hook = start(&spec).await;
    assert!(hook_core::Hook::changes_nothing(&*hook, Event::PreLlmRequest));
    let context = Context { model: Some("m".into()), ..Context::default() };
    // The first call makes the process exit; it is restarted and now promises nothing.
    let first = call(&*hook, Event::PreLlmRequest, &context, Duration::from_secs(10)).await;
    assert!(first.is_err(), "{first:?}");
    let until = std::time::Instant::now() + Duration::from_secs(10);
    let error = loop {
        match call(&*hook, Event::PreLlmRequest, &context, Duration::from_secs(2)).await {
            Err(error) if error.to_string().contains("another promise") => break error.to_string(),
            other => {
                assert!(std::time::Instant::now() < until, "the restart was not refused: {other:?}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    assert!(error.contains("`flip`") && error.contains("reload the configuration"), "{error}");
    // Still what the first handshake promised: the chain's grouping never changes under it.
    assert!(hook_core::Hook::changes_nothing(&*hook, Event::PreLlmRequest));
    shutdown_and_check(&hook).await;
}
