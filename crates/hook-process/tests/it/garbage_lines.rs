//! A stdout line that is not JSON is logged and skipped; the valid reply after it is used.

use crate::common;

use std::time::Duration;

use common::*;
use hook_core::Event;
use serde_json::json;

#[tokio::test]
async fn garbage_before_a_valid_reply_is_skipped() {
    let spec = python_spec("noisy", "fault_hook.py", &["garbage"], &[Event::PreToolExecution, Event::ApproveTool]);
    let hook = start(&spec).await;
    let context = tool_context("bash", json!({"mode": "deny"}));
    let output = call(&*hook, Event::ApproveTool, &context, Duration::from_secs(5)).await.unwrap();
    assert_eq!(output.approved, Some(false));
    assert_eq!(output.reason.as_deref(), Some("blocked by policy"));
    let output = call(&*hook, Event::PreToolExecution, &context, Duration::from_secs(5)).await.unwrap();
    assert!(output.is_no_change());
    shutdown_and_check(&hook).await;
}
