//! The hook honours `input.deadline`: a server slower than the deadline gives `Timeout`
//! long before the server would have answered.

use crate::common;

use std::time::{Duration, Instant};

use common::{call_within, llm_hook, server};
use hook_core::{Context, Event, HookError, OutcomeClass};
use hook_llm::Reply;

#[tokio::test]
async fn a_slow_server_times_out_at_the_deadline() {
    let server = server([Reply::Content("{}".into()).delayed(Duration::from_secs(30))]);
    let hook = llm_hook(&server, "Check {{user_input}}");
    let context = Context { user_input: Some("hi".into()), ..Context::default() };

    let started = Instant::now();
    let error = call_within(&hook, Event::PreSendMessage, &context, Duration::from_millis(500)).await.unwrap_err();
    let elapsed = started.elapsed();

    let HookError::Timeout { after } = error else { panic!("expected Timeout, got {error:?}") };
    assert!(after <= Duration::from_millis(500), "{after:?}");
    assert!(elapsed < Duration::from_secs(5), "returned after {elapsed:?}, the server waits 30 s");
    assert_eq!(HookError::Timeout { after }.class(), OutcomeClass::TimedOut);
    assert_eq!(server.n_requests(), 1, "the request was sent");
}

#[tokio::test]
async fn a_deadline_already_passed_sends_nothing() {
    let server = server([Reply::Content("{}".into())]);
    let hook = llm_hook(&server, "Check {{user_input}}");

    let error = call_within(&hook, Event::PreSendMessage, &Context::default(), Duration::ZERO).await.unwrap_err();

    assert!(matches!(error, HookError::Timeout { .. }), "{error:?}");
    assert_eq!(server.n_requests(), 0);
}
