//! An llm hook on `approve_tool` answers with `approved` / `reason`, or denies with `action: stop`.

use crate::common;

use common::{call, llm_hook, server};
use hook_core::{Context, Event};
use hook_llm::Reply;

#[tokio::test]
async fn approved_false_with_reason_and_stop_deny() {
    let server = server([
        Reply::Content(r#"{"approved": false, "reason": "deletes the root"}"#.into()),
        Reply::Content(r#"{"action": "stop"}"#.into()),
        Reply::Content("{}".into()),
    ]);
    let hook = llm_hook(&server, "Approve {{tool_name}} {{tool_arguments}}?");
    let context = Context {
        tool_name: Some("Bash".into()),
        tool_arguments: Some(r#"{"command":"rm -rf /"}"#.into()),
        ..Context::default()
    };

    let denied = call(&hook, Event::ApproveTool, &context).await.unwrap();
    assert_eq!(denied.approved, Some(false));
    assert_eq!(denied.reason.as_deref(), Some("deletes the root"));

    let stopped = call(&hook, Event::ApproveTool, &context).await.unwrap();
    assert_eq!(stopped.approved, Some(false));

    let no_objection = call(&hook, Event::ApproveTool, &context).await.unwrap();
    assert_eq!(no_objection.approved, None);

    let instruction = common::user_message(&server, 0);
    assert!(instruction.contains("\"approved\"") && instruction.contains("\"reason\""), "{instruction}");
    assert!(instruction.ends_with("Return {} if no change is needed."), "{instruction}");
}
