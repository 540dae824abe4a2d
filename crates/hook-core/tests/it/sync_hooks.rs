//! Synchronous closures as hooks (`hook_fn_sync`): they rewrite, halt and fail like any hook.

use std::sync::{
    Arc,
    atomic::{AtomicU32, Ordering},
};

use hook_core::{
    Context, Decision, Engine, Event, HookError, HookInput, HookOutput, Level, OnError, OutcomeClass, Registration,
    hook_fn_sync,
};

fn tool_context(arguments: &str) -> Context {
    Context { tool_name: Some("Bash".into()), tool_arguments: Some(arguments.into()), ..Context::default() }
}

#[tokio::test]
async fn a_sync_closure_sees_the_context_and_halts_the_chain() {
    let calls = Arc::new(AtomicU32::new(0));
    let counted = calls.clone();
    let guard = hook_fn_sync("no-rm-rf", move |input: &HookInput<'_>| {
        counted.fetch_add(1, Ordering::SeqCst);
        assert_eq!(input.event, Event::PreToolExecution);
        match input.context.tool_arguments.as_deref() {
            Some(arguments) if arguments.contains("rm -rf") => HookOutput::skip("no rm -rf"),
            _ => HookOutput::default(),
        }
    });
    let after = Arc::new(AtomicU32::new(0));
    let after_counted = after.clone();
    let later = hook_fn_sync("later", move |_input: &HookInput<'_>| {
        after_counted.fetch_add(1, Ordering::SeqCst);
        HookOutput::default()
    });
    let engine = Engine::builder().build();
    engine.register(Registration::new("no-rm-rf", Level::User, [Event::PreToolExecution], guard));
    engine.register(Registration::new("later", Level::Project, [Event::PreToolExecution], later));

    let mut harmless = tool_context(r#"{"command": "ls"}"#);
    let outcome = engine.fire(Event::PreToolExecution, &mut harmless).await;
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(outcome.trace.len(), 2);
    assert_eq!(after.load(Ordering::SeqCst), 1);

    let mut dangerous = tool_context(r#"{"command": "rm -rf /"}"#);
    let outcome = engine.fire(Event::PreToolExecution, &mut dangerous).await;
    assert_eq!(outcome.decision, Decision::Skip);
    assert_eq!(outcome.reason.as_deref(), Some("no rm -rf"));
    assert_eq!(outcome.trace[0].id.as_str(), "user:no-rm-rf:pre_tool_execution");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // The skip halted the chain: the project hook did not run the second time.
    assert_eq!(after.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_sync_closure_rewrites_a_field_for_the_hooks_after_it() {
    let upper = hook_fn_sync("upper", |input: &HookInput<'_>| {
        let mut output = HookOutput::default();
        output.patch.user_input = input.context.user_input.as_deref().map(str::to_uppercase);
        output
    });
    let seen = Arc::new(std::sync::Mutex::new(None));
    let seen_by = seen.clone();
    let reader = hook_fn_sync("reader", move |input: &HookInput<'_>| {
        *seen_by.lock().unwrap() = input.context.user_input.clone();
        HookOutput::default()
    });
    let engine = Engine::builder().build();
    engine.register(Registration::new("upper", Level::User, [Event::PreSendMessage], upper).priority(1));
    engine.register(Registration::new("reader", Level::User, [Event::PreSendMessage], reader).priority(2));

    let mut context = Context { user_input: Some("hello".into()), ..Context::default() };
    let outcome = engine.fire(Event::PreSendMessage, &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(context.user_input.as_deref(), Some("HELLO"));
    assert_eq!(seen.lock().unwrap().as_deref(), Some("HELLO"));
}

#[tokio::test]
async fn a_failing_sync_closure_is_a_hook_failure_under_its_policy() {
    let broken = hook_fn_sync("broken", |_input: &HookInput<'_>| -> Result<HookOutput, HookError> {
        Err(HookError::ErrorResponse { code: None, message: "the rule table is empty".into() })
    });
    let engine = Engine::builder().build();
    engine
        .register(Registration::new("broken", Level::User, [Event::PreToolExecution], broken).on_error(OnError::Deny));
    let mut context = tool_context("{}");
    let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::ErrorResponse);
    assert!(
        outcome.trace[0].error.as_ref().is_some_and(|e| e.to_string().contains("the rule table is empty")),
        "{:?}",
        outcome.trace[0]
    );
    assert_ne!(outcome.decision, Decision::Continue, "on_error: deny must halt: {outcome:?}");
}
