//! Failure policy (`on_error` skip / stop / deny), retries and their metrics, approvals failing closed.

use crate::common;

use std::{
    sync::{
        Arc,
        atomic::{AtomicU32, Ordering},
    },
    time::{Duration, Instant},
};

use common::*;
use hook_core::{Deadlines, Decision, Event, HookError, HookId, Level, OnError, OutcomeClass};

fn crash() -> HookError {
    HookError::ProcessExited { status: "exit code 2".into(), stderr_tail: "boom".into() }
}

#[tokio::test]
async fn on_error_decides_whether_the_chain_goes_on() {
    let rows = [
        ("default_skip", None, Event::PreToolExecution),
        ("skip", Some(OnError::Skip), Event::PreToolExecution),
        ("stop", Some(OnError::Stop), Event::PreToolExecution),
        ("deny_on_tool", Some(OnError::Deny), Event::PreToolExecution),
        ("deny_on_llm", Some(OnError::Deny), Event::PreLlmRequest),
    ];
    for (label, on_error, event) in rows {
        let mut failing_reg = reg(Level::User, "broken", event, failing("broken", crash()));
        if let Some(on_error) = on_error {
            failing_reg = failing_reg.on_error(on_error);
        }
        let registrations = vec![
            reg(Level::Builtin, "before", event, fixed("before", says("before ran"))),
            failing_reg,
            reg(Level::Project, "after", event, fixed("after", says("after ran"))),
        ];
        let (outcome, _) = check(registrations, event, tool_call("Bash", "{}")).await;
        insta::assert_yaml_snapshot!(format!("on_error_{label}"), outcome);
    }
}

#[tokio::test]
async fn a_failing_or_silent_approver_denies_unless_told_to_skip() {
    let rows = [
        ("error", failing("gate", crash()), None),
        ("timeout", sleeping("gate", Duration::from_secs(30)), None),
        ("error_skip_as_written", failing("gate", crash()), Some(OnError::Skip)),
        // `stop` halts an approval: without a decision the call would run, so it denies.
        ("timeout_stop_denies", sleeping("gate", Duration::from_secs(30)), Some(OnError::Stop)),
    ];
    for (label, hook, on_error) in rows {
        let mut gate = reg(Level::User, "gate", Event::ApproveTool, hook).timeout(Duration::from_millis(200));
        if let Some(on_error) = on_error {
            gate = gate.on_error(on_error);
        }
        let started = Instant::now();
        let (outcome, _) = check(vec![gate], Event::ApproveTool, tool_call("Bash", "{}")).await;
        assert!(started.elapsed() < Duration::from_secs(5), "{label}: took {:?}", started.elapsed());
        insta::assert_yaml_snapshot!(format!("approval_fails_{label}"), outcome);
    }
}

#[tokio::test]
async fn retries_count_every_attempt_in_the_metrics() {
    let calls = Arc::new(AtomicU32::new(0));
    let engine = engine_with(
        vec![
            reg(Level::User, "flaky", Event::PostToolExecution, flaky("flaky", 2, calls.clone())).retry(3),
            reg(Level::User, "hopeless", Event::PostToolExecution, failing("hopeless", crash())).retry(1),
        ],
        Deadlines::default(),
    );
    let outcome = engine.fire(Event::PostToolExecution, &mut tool_call("Bash", "{}")).await;
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    let attempts: Vec<(OutcomeClass, u32)> = outcome.trace.iter().map(|e| (e.outcome, e.attempts)).collect();
    assert_eq!(attempts, [(OutcomeClass::NoChange, 3), (OutcomeClass::Crashed, 2)]);
    assert_eq!(outcome.decision, Decision::Continue);

    let metrics = engine.metrics();
    let of = |name: &str| {
        let id = HookId::new(Level::User, name, Event::PostToolExecution);
        metrics.iter().find(|(i, _)| *i == id).map(|(_, m)| *m).unwrap()
    };
    let flaky = of("flaky");
    assert_eq!((flaky.executions, flaky.successes, flaky.failures, flaky.skips), (3, 1, 2, 0));
    let hopeless = of("hopeless");
    assert_eq!((hopeless.executions, hopeless.successes, hopeless.failures), (2, 0, 2));
}

#[tokio::test]
async fn metrics_are_shared_by_every_clone() {
    let engine =
        engine_with(vec![reg(Level::User, "one", Event::Stop, fixed("one", says("hi")))], Deadlines::default());
    let clone = engine.clone();
    clone.fire(Event::Stop, &mut Default::default()).await;
    engine.fire(Event::Stop, &mut Default::default()).await;
    let id = HookId::new(Level::User, "one", Event::Stop);
    let metrics = engine.metrics();
    let one = metrics.iter().find(|(i, _)| *i == id).unwrap().1;
    assert_eq!((one.executions, one.successes), (2, 2));
    assert_eq!(clone.metrics(), metrics);
}
