//! `skip` on pre_tool_execution: the call is skipped with a tool message saying so, and
//! post_tool_execution_failure fires (and may rewrite the error); other calls still run.

use crate::common;

use agent_loop::SKIPPED_BY_HOOK;
use common::{Harness, action, call, calls, recorder, returning, text};
use hook_core::{Action, ContextPatch, HookInput, HookOutput, hook_fn};
use hook_protocol::Event;

#[tokio::test]
async fn skip_fires_the_failure_event_and_the_next_call_still_runs() {
    let harness = Harness::new([
        calls(vec![
            call("c1", "write_file", r#"{"path":"skipped.txt","content":"x"}"#),
            call("c2", "write_file", r#"{"path":"kept.txt","content":"y"}"#),
        ]),
        text("ok"),
    ]);
    let skip_first = hook_fn("skip-first", |input: &HookInput<'_>| {
        let is_first = input.context.tool_call_id.as_deref() == Some("c1");
        async move { Ok(if is_first { action(Action::Skip, None) } else { HookOutput::default() }) }
    });
    harness.hook("skipper", [Event::PreToolExecution], skip_first);
    let (hook, seen) = recorder();
    harness.hook("failures", [Event::PostToolExecutionFailure], hook);
    let mut session = harness.session().await;
    let report = session.send("write").await.unwrap();

    assert_eq!(harness.tool_message(1, "c1"), SKIPPED_BY_HOOK);
    assert_eq!(SKIPPED_BY_HOOK, "Tool call skipped by hook");
    assert!(!harness.dir.join("skipped.txt").exists());
    assert!(harness.dir.join("kept.txt").exists(), "the other call of the batch runs");
    let failures = seen.contexts(Event::PostToolExecutionFailure);
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].tool_error.as_deref(), Some("Tool call skipped by hook"));
    assert_eq!(failures[0].tool_name.as_deref(), Some("write_file"));
    assert_eq!(report.tools[0].outcome, "skipped");
    assert_eq!(report.tools[1].outcome, "executed");
}

#[tokio::test]
async fn post_tool_execution_failure_may_rewrite_the_error() {
    let harness = Harness::new([calls(vec![call("c1", "list_dir", "{}")]), text("ok")]);
    harness.hook("skipper", [Event::PreToolExecution], returning(action(Action::Skip, None)));
    let rewrite = HookOutput {
        patch: ContextPatch { tool_error: Some("skipped: use read_file instead".into()), ..Default::default() },
        ..HookOutput::default()
    };
    harness.hook("explain", [Event::PostToolExecutionFailure], returning(rewrite));
    let mut session = harness.session().await;
    session.send("list").await.unwrap();
    assert_eq!(harness.tool_message(1, "c1"), "skipped: use read_file instead");
}

#[tokio::test]
async fn a_tool_that_fails_fires_post_tool_execution_failure() {
    let harness = Harness::new([calls(vec![call("c1", "read_file", r#"{"path":"missing.txt"}"#)]), text("ok")]);
    let (hook, seen) = recorder();
    harness.hook("watch", [Event::PostToolExecution, Event::PostToolExecutionFailure], hook);
    let mut session = harness.session().await;
    session.send("read").await.unwrap();
    assert_eq!(seen.events(), [Event::PostToolExecutionFailure]);
    let error = seen.contexts(Event::PostToolExecutionFailure)[0].tool_error.clone().unwrap();
    assert!(error.contains("missing.txt"), "{error}");
}
