//! `deny_tool` on pre_tool_execution: the call does not run and the model is told why.

use crate::common;

use agent_loop::DENIED_BY_HOOK;
use common::{Harness, ObserverLog, action, call, calls, returning, text};
use hook_core::Action;
use hook_protocol::Event;

#[tokio::test]
async fn deny_tool_gives_the_model_the_reason_and_the_tool_does_not_run() {
    let harness =
        Harness::new([calls(vec![call("c1", "write_file", r#"{"path":"x.txt","content":"x"}"#)]), text("ok")]);
    harness.hook("guard", [Event::PreToolExecution], returning(action(Action::DenyTool, Some("writes are off"))));
    let observers = ObserverLog::attach(&harness.engine);
    let mut session = harness.session().await;
    let report = session.send("write x").await.unwrap();

    assert_eq!(harness.tool_message(1, "c1"), "Tool execution denied by hook: writes are off");
    assert!(!harness.dir.join("x.txt").exists(), "the denied tool must not run");
    assert_eq!(report.tools[0].outcome, "denied");
    assert_eq!(report.count(Event::ApproveTool), 0);
    assert_eq!(report.count(Event::PostToolExecution), 0);
    observers.kinds(6).await;
    let skipped = observers.of_kind("tool_exec_skipped");
    assert_eq!(skipped[0].payload["Reason"], "Tool execution denied by hook: writes are off");
    assert_eq!(skipped[0].payload["Tool"], "write_file");
}

#[tokio::test]
async fn deny_tool_without_a_reason_says_so_plainly() {
    let harness = Harness::new([calls(vec![call("c1", "list_dir", "{}")]), text("ok")]);
    harness.hook("guard", [Event::PreToolExecution], returning(action(Action::DenyTool, None)));
    let mut session = harness.session().await;
    session.send("list").await.unwrap();
    assert_eq!(harness.tool_message(1, "c1"), DENIED_BY_HOOK);
    assert_eq!(DENIED_BY_HOOK, "Tool execution denied by hook");
}
