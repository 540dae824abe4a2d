//! Deadlines: a hook's own, and the chain's, which also cuts the hook that is running.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use hook_core::{Deadlines, Decision, Event, HookError, HookInput, HookOutput, Level, OutcomeClass, hook_fn};

#[tokio::test]
async fn the_chain_deadline_cuts_a_running_hook() {
    let engine = engine_with(
        vec![
            // Its own deadline (30 s) is far off; only the chain's (1 s) can stop it.
            reg(Level::User, "sleeper", Event::PreToolExecution, sleeping("sleeper", Duration::from_secs(30)))
                .timeout(Duration::from_secs(30))
                .on_error(hook_core::OnError::Stop),
            reg(Level::User, "after", Event::PreToolExecution, fixed("after", says("after"))),
        ],
        chain_deadline(Duration::from_secs(1)),
    );
    let started = Instant::now();
    let outcome = engine.fire(Event::PreToolExecution, &mut tool_call("Bash", "{}")).await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::TimedOut);
    assert_eq!(outcome.decision, Decision::Stop);
    insta::assert_yaml_snapshot!(render(&outcome));
}

#[tokio::test]
async fn a_hook_past_its_own_deadline_times_out_and_the_chain_goes_on() {
    let engine = engine_with(
        vec![
            reg(Level::User, "slow", Event::PostLlmResponse, sleeping("slow", Duration::from_secs(30)))
                .timeout(Duration::from_millis(100)),
            reg(Level::User, "after", Event::PostLlmResponse, fixed("after", says("after ran"))),
        ],
        Deadlines::default(),
    );
    let started = Instant::now();
    let outcome = engine.fire(Event::PostLlmResponse, &mut Default::default()).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.trace[0].error, Some(HookError::Timeout { after: Duration::from_millis(100) }));
    assert_eq!(outcome.effects.system_messages, ["after ran"]);
}

#[tokio::test]
async fn a_hook_that_starts_after_the_chain_budget_is_spent_is_budget_exhausted() {
    let engine = engine_with(
        vec![
            reg(Level::User, "eats-budget", Event::PreLlmRequest, sleeping("eats-budget", Duration::from_secs(30))),
            reg(Level::User, "late", Event::PreLlmRequest, fixed("late", says("late"))),
            reg(Level::User, "late-strict", Event::PreLlmRequest, fixed("late-strict", says("late")))
                .on_error(hook_core::OnError::Stop),
        ],
        chain_deadline(Duration::from_millis(300)),
    );
    let outcome = engine.fire(Event::PreLlmRequest, &mut Default::default()).await;
    insta::assert_yaml_snapshot!(render(&outcome));
}

#[tokio::test]
async fn the_hook_is_told_its_effective_deadline() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let record = seen.clone();
    let hook = hook_fn("deadline", move |input: &HookInput<'_>| {
        *record.lock().unwrap() = Some(input.deadline.saturating_duration_since(Instant::now()));
        async { Ok(HookOutput::default()) }
    });
    let engine = engine_with(
        vec![reg(Level::User, "deadline", Event::Stop, hook).timeout(Duration::from_secs(20))],
        chain_deadline(Duration::from_secs(2)),
    );
    engine.fire(Event::Stop, &mut Default::default()).await;
    let left = seen.lock().unwrap().unwrap();
    assert!(left <= Duration::from_secs(2) && left > Duration::from_secs(1), "{left:?}");
}

#[tokio::test]
async fn an_approver_may_take_longer_than_the_chain_budget_of_other_events() {
    // PicoClaw gives approvals 60 s while other chains get 30 s: here 600 ms against 200 ms.
    let slow_yes = hook_fn("slow-yes", |_: &HookInput<'_>| async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        Ok(HookOutput { approved: Some(true), ..HookOutput::default() })
    });
    let engine = engine_with(
        vec![reg(Level::User, "slow-yes", Event::ApproveTool, slow_yes).timeout(Duration::from_millis(600))],
        chain_deadline(Duration::from_millis(200)),
    );
    let outcome = engine.fire(Event::ApproveTool, &mut tool_call("Bash", "{}")).await;
    assert_eq!(outcome.decision, Decision::Approved, "{outcome:?}");
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::Ok);
}

#[tokio::test]
async fn a_timeout_too_large_for_the_clock_means_the_chain_deadline() {
    for event in [Event::PreToolExecution, Event::ApproveTool] {
        // On approve_tool the hook's deadline also stretches the chain's: neither may overflow.
        let engine = engine_with(
            vec![
                reg(Level::User, "patient", event, fixed("patient", HookOutput::default())).timeout(Duration::MAX),
                reg(Level::User, "slow", event, sleeping("slow", Duration::from_millis(20))).timeout(Duration::MAX),
            ],
            Deadlines::default(),
        );
        let outcome = engine.fire(event, &mut tool_call("Bash", "{}")).await;
        let outcomes: Vec<_> = outcome.trace.iter().map(|entry| entry.outcome).collect();
        assert_eq!(outcomes, [OutcomeClass::NoChange, OutcomeClass::NoChange], "{event}");
        assert!(outcome.trace[1].duration >= Duration::from_millis(20), "{event}: {:?}", outcome.trace[1].duration);
    }
}
