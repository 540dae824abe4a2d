//! approve_tool: denial text, real bash approval hooks, and failing closed.

use crate::common;

use std::{sync::Arc, time::Duration};

use common::{Harness, call, calls, text};
use hook_bash::{BashHook, BashOptions};
use hook_core::{HookOutput, Level, Registration};
use hook_protocol::Event;

#[tokio::test]
async fn an_approval_denial_reaches_the_model_with_its_reason() {
    let harness = Harness::new([calls(vec![call("c1", "bash", r#"{"command":"touch ran"}"#)]), text("ok")]);
    let output = HookOutput { approved: Some(false), reason: Some("blocked".into()), ..HookOutput::default() };
    harness.hook("approver", [Event::ApproveTool], common::returning(output));
    let mut session = harness.session().await;
    let report = session.send("run").await.unwrap();
    assert_eq!(harness.tool_message(1, "c1"), "Tool execution denied by approval hook: blocked");
    assert!(!harness.dir.join("ran").exists());
    assert_eq!(report.tools[0].outcome, "approval_denied");
    assert_eq!(report.first(Event::ApproveTool).unwrap().decision.as_str(), "denied");
}

#[tokio::test]
async fn a_bash_approval_hook_sees_the_rewritten_arguments() {
    let harness = Harness::new([calls(vec![call("c1", "bash", r#"{"command":"touch ran"}"#)]), text("ok")]);
    // pre_tool_execution rewrites the command; approval must judge the rewritten one.
    let rewrite = HookOutput {
        patch: hook_core::ContextPatch {
            tool_arguments: Some(r#"{"command":"rm -rf /tmp/nothing-here"}"#.into()),
            ..Default::default()
        },
        ..HookOutput::default()
    };
    harness.hook("rewrite", [Event::PreToolExecution], common::returning(rewrite));
    let approver = BashHook::new(
        r#"input=$(cat); case "$input" in *rm\ -rf*) echo '{"approved": false, "reason": "rm -rf is not allowed"}';; *) echo '{}';; esac"#,
        BashOptions::default(),
    );
    harness.engine.register(Registration::new("approver", Level::Project, [Event::ApproveTool], Arc::new(approver)));
    let mut session = harness.session().await;
    session.send("run").await.unwrap();
    assert_eq!(harness.tool_message(1, "c1"), "Tool execution denied by approval hook: rm -rf is not allowed");
}

#[tokio::test]
async fn an_approval_hook_that_fails_denies_the_call() {
    let harness = Harness::new([calls(vec![call("c1", "bash", r#"{"command":"touch ran"}"#)]), text("ok")]);
    let approver = BashHook::new("cat >/dev/null; exit 3", BashOptions::default());
    harness.engine.register(
        Registration::new("broken", Level::User, [Event::ApproveTool], Arc::new(approver))
            .timeout(Duration::from_secs(5)),
    );
    let mut session = harness.session().await;
    session.send("run").await.unwrap();
    let message = harness.tool_message(1, "c1");
    assert!(message.starts_with("Tool execution denied by approval hook: "), "{message}");
    assert!(!harness.dir.join("ran").exists(), "a failing approval hook must fail closed");
}
