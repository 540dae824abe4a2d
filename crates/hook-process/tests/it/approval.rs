//! `hook.approve_tool`: a denial keeps its reason; an error response and a timeout are errors
//! (the engine turns them into denials); `{}` denies.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use hook_core::{Event, HookError};
use serde_json::json;

async fn approve(mode: &str, deadline: Duration) -> Result<hook_core::HookOutput, HookError> {
    let spec = python_spec("gate", "fault_hook.py", &["approve"], &[Event::ApproveTool]);
    let hook = start(&spec).await;
    let context = tool_context("bash", json!({"mode": mode, "command": "rm -rf /"}));
    let output = call(&*hook, Event::ApproveTool, &context, deadline).await;
    shutdown_and_check(&hook).await;
    output
}

#[tokio::test]
async fn a_denial_keeps_its_reason() {
    let output = approve("deny", Duration::from_secs(5)).await.unwrap();
    assert_eq!(output.approved, Some(false));
    assert_eq!(output.reason.as_deref(), Some("blocked by policy"));
}

#[tokio::test]
async fn an_approval_is_an_approval() {
    let output = approve("allow", Duration::from_secs(5)).await.unwrap();
    assert_eq!(output.approved, Some(true));
}

#[tokio::test]
async fn an_error_response_is_an_error() {
    let error = approve("error", Duration::from_secs(5)).await.unwrap_err();
    assert_eq!(error, HookError::ErrorResponse { code: Some(-32000), message: "policy store unavailable".into() });
}

#[tokio::test]
async fn a_slow_approver_times_out() {
    let started = Instant::now();
    let error = approve("slow", Duration::from_millis(500)).await.unwrap_err();
    assert!(matches!(error, HookError::Timeout { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}

#[tokio::test]
async fn an_empty_reply_denies() {
    let output = approve("empty", Duration::from_secs(5)).await.unwrap();
    assert_eq!(output.approved, Some(false));
    assert_eq!(output.reason.as_deref(), Some("approval hook `gate` returned no `approved` field"));
}
