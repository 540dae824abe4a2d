//! A stdout line over the limit is an error naming the limit, not a stall; the process is
//! restarted and answers again.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use hook_core::{Event, HookError};
use serde_json::json;

#[tokio::test]
async fn a_line_over_the_limit_fails_the_call_and_restarts_the_hook() {
    let spec = python_spec("chatty", "fault_hook.py", &["long", "5000"], &[Event::PreToolExecution]);
    let hook = start_with(&spec, options().max_line_bytes(1024)).await;
    let first_pid = hook.pid().unwrap();

    let started = Instant::now();
    let long = tool_context("bash", json!({"long": true}));
    let error = call(&*hook, Event::PreToolExecution, &long, Duration::from_secs(30)).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    match &error {
        HookError::InvalidOutput { message, raw_head } => {
            assert!(message.contains("`chatty`") && message.contains("1024 bytes"), "{message}");
            assert!(raw_head.starts_with("xxxx"), "{raw_head}");
        }
        other => panic!("expected InvalidOutput, got {other:?}"),
    }
    assert_group_gone(first_pid).await;

    let fine = tool_context("bash", json!({}));
    let output = call(&*hook, Event::PreToolExecution, &fine, Duration::from_secs(10)).await.unwrap();
    assert!(output.is_no_change());
    shutdown_and_check(&hook).await;
}
