//! An unknown action is an invalid-output error naming the hook and the member, not a silent
//! pass-through.

use crate::common;

use std::time::Duration;

use common::*;
use hook_core::{Event, HookError};
use serde_json::json;

#[tokio::test]
async fn an_unknown_action_names_the_hook() {
    let spec = python_spec("wildcard", "fault_hook.py", &["unknown"], &[Event::PreToolExecution]);
    let hook = start(&spec).await;
    let context = tool_context("bash", json!({}));
    let error = call(&*hook, Event::PreToolExecution, &context, Duration::from_secs(5)).await.unwrap_err();
    match &error {
        HookError::InvalidOutput { message, raw_head } => {
            assert!(message.contains("hook `wildcard`"), "{message}");
            assert!(message.contains("`action`") && message.contains("explode"), "{message}");
            assert!(raw_head.contains("explode"), "{raw_head}");
        }
        other => panic!("expected InvalidOutput, got {other:?}"),
    }
    shutdown_and_check(&hook).await;
}
