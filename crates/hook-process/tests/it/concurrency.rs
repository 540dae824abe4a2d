//! Concurrent calls to one process: replies out of order reach the right caller, a slow call
//! does not hold up the others, and a call past its deadline is cancelled alone.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use hook_core::{Event, HookError};
use serde_json::{Value, json};

fn arguments(output: &hook_core::HookOutput) -> Value {
    serde_json::from_str(output.patch.tool_arguments.as_deref().expect("the hook echoes the arguments")).unwrap()
}

#[tokio::test]
async fn out_of_order_replies_reach_their_callers() {
    let spec = python_spec("juggler", "fault_hook.py", &["concurrent"], &[Event::PreToolExecution]);
    let hook = start(&spec).await;
    // The first call is answered last.
    let contexts: Vec<_> = (0..8u64).map(|i| tool_context("t", json!({"n": i, "delay_ms": (8 - i) * 40}))).collect();
    let calls = contexts.iter().map(|c| call(&*hook, Event::PreToolExecution, c, Duration::from_secs(10)));
    let outputs = futures_join(calls).await;
    for (i, output) in outputs.into_iter().enumerate() {
        let echoed = arguments(&output.unwrap());
        assert_eq!(echoed["n"], i as u64);
        assert_eq!(echoed["echoed"], true);
    }
    shutdown_and_check(&hook).await;
}

#[tokio::test]
async fn a_slow_call_does_not_hold_up_the_others() {
    let spec = python_spec("slowpoke", "fault_hook.py", &["concurrent"], &[Event::PreToolExecution]);
    let hook = start(&spec).await;
    let slow = tool_context("t", json!({"n": "slow", "delay_ms": 30_000}));
    let started = Instant::now();
    let slow_call = call(&*hook, Event::PreToolExecution, &slow, Duration::from_secs(1));
    let quick = async {
        let mut answered = 0;
        for i in 0..5 {
            let context = tool_context("t", json!({"n": i}));
            let output = call(&*hook, Event::PreToolExecution, &context, Duration::from_secs(5)).await.unwrap();
            assert_eq!(arguments(&output)["n"], i);
            answered += 1;
        }
        (answered, started.elapsed())
    };
    let (slow_result, (answered, quick_elapsed)) = tokio::join!(slow_call, quick);
    assert_eq!(answered, 5);
    // All five were answered while the slow call was still pending (its deadline is 1 s).
    assert!(quick_elapsed < Duration::from_secs(1), "quick calls waited for the slow one: {quick_elapsed:?}");
    assert!(matches!(slow_result, Err(HookError::Timeout { .. })), "{slow_result:?}");
    // The process is still serving after the timed-out call.
    let context = tool_context("t", json!({"n": "after"}));
    let output = call(&*hook, Event::PreToolExecution, &context, Duration::from_secs(5)).await.unwrap();
    assert_eq!(arguments(&output)["n"], "after");
    shutdown_and_check(&hook).await;
}

#[tokio::test]
async fn string_ids_are_matched() {
    let spec = python_spec("stringy", "fault_hook.py", &["string_id"], &[Event::ApproveTool]);
    let hook = start(&spec).await;
    for mode in ["deny", "allow"] {
        let context = tool_context("bash", json!({"mode": mode}));
        let output = call(&*hook, Event::ApproveTool, &context, Duration::from_secs(5)).await.unwrap();
        assert_eq!(output.approved, Some(mode == "allow"));
    }
    shutdown_and_check(&hook).await;
}

/// Runs futures concurrently on this task and returns their outputs in order.
async fn futures_join<F: std::future::Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut futures: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(value) => *output = Some(value),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
    })
    .await;
    outputs.into_iter().map(|o| o.expect("every future finished")).collect()
}
