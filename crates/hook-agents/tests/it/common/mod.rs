//! Shared harness: in-process hooks from closures, one `check` that builds an engine, fires an
//! event and renders the outcome and trace as JSON (durations left out) for insta snapshots.
#![allow(dead_code, unreachable_pub, reason = "each test file uses part of the harness")]

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicU32, Ordering},
    },
    time::Duration,
};

use hook_core::{
    Context, Deadlines, Engine, Event, FireOutcome, Hook, HookError, HookInput, HookOutput, Level, Registration,
    TraceEntry, hook_fn,
};
use serde_json::{Value, json};

/// A hook returning a clone of `output` every time.
pub fn fixed(name: &str, output: HookOutput) -> Arc<dyn Hook> {
    hook_fn(name, move |_input: &HookInput<'_>| {
        let output = output.clone();
        async move { Ok(output) }
    })
}

/// A hook computing its output from the context it is given.
pub fn from_context(name: &str, f: impl Fn(&Context) -> HookOutput + Send + Sync + 'static) -> Arc<dyn Hook> {
    hook_fn(name, move |input: &HookInput<'_>| {
        let output = f(input.context);
        async move { Ok(output) }
    })
}

/// A hook that always fails with `err`.
pub fn failing(name: &str, err: HookError) -> Arc<dyn Hook> {
    hook_fn(name, move |_input: &HookInput<'_>| {
        let err = err.clone();
        async move { Err(err) }
    })
}

/// A hook that sleeps `for_` then returns no change.
pub fn sleeping(name: &str, for_: Duration) -> Arc<dyn Hook> {
    hook_fn(name, move |_input: &HookInput<'_>| async move {
        tokio::time::sleep(for_).await;
        Ok(HookOutput::default())
    })
}

/// A hook that fails its first `n_failures` calls, then returns no change; counts calls.
pub fn flaky(name: &str, n_failures: u32, calls: Arc<AtomicU32>) -> Arc<dyn Hook> {
    hook_fn(name, move |_input: &HookInput<'_>| {
        let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
        async move {
            if n <= n_failures {
                Err(HookError::ErrorResponse { code: Some(500), message: format!("attempt {n} failed") })
            } else {
                Ok(HookOutput::default())
            }
        }
    })
}

/// A hook that appends its name to `log` and returns `output`.
pub fn recording(name: &str, log: Arc<Mutex<Vec<String>>>, output: HookOutput) -> Arc<dyn Hook> {
    let owned = name.to_owned();
    hook_fn(name, move |_input: &HookInput<'_>| {
        log.lock().unwrap().push(owned.clone());
        let output = output.clone();
        async move { Ok(output) }
    })
}

/// A registration of `hook` as `name` at `level` on `event`.
pub fn reg(level: Level, name: &str, event: Event, hook: Arc<dyn Hook>) -> Registration {
    Registration::new(name, level, [event], hook)
}

/// An output with only `system_message` set.
pub fn says(text: &str) -> HookOutput {
    HookOutput { system_message: Some(text.into()), ..HookOutput::default() }
}

/// An engine with `registrations` and `deadlines`.
pub fn engine_with(registrations: Vec<Registration>, deadlines: Deadlines) -> Engine {
    let engine = Engine::builder().deadlines(deadlines).build();
    for registration in registrations {
        assert!(!engine.register(registration).is_empty(), "registration refused");
    }
    engine
}

/// Builds an engine from `registrations`, fires `event` over `context` and returns the outcome
/// as JSON together with the context the hooks left.
pub async fn check(registrations: Vec<Registration>, event: Event, mut context: Context) -> (Value, Context) {
    let engine = engine_with(registrations, Deadlines::default());
    let outcome = engine.fire(event, &mut context).await;
    (render(&outcome), context)
}

/// The outcome as JSON; durations are left out (they differ on every run).
pub fn render(outcome: &FireOutcome) -> Value {
    json!({
        "event": outcome.event.as_str(),
        "decision": outcome.decision.as_str(),
        "reason": outcome.reason,
        "respond": outcome.respond.as_ref().map(|r| serde_json::to_value(r).unwrap()),
        "changed": outcome.changed.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
        "effects": {
            "inject_messages": outcome.effects.inject_messages.iter().map(|m| m.text_content()).collect::<Vec<_>>(),
            "additional_context": outcome.effects.additional_context,
            "system_messages": outcome.effects.system_messages,
            "retry_feedback": outcome.effects.retry_feedback,
        },
        "trace": outcome.trace.iter().map(render_entry).collect::<Vec<_>>(),
    })
}

fn render_entry(entry: &TraceEntry) -> Value {
    json!({
        "id": entry.id.as_str(),
        "outcome": entry.outcome.as_str(),
        "action": entry.action.map(|a| a.as_str()),
        "changed": entry.changed.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
        "dropped": entry.dropped.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "attempts": entry.attempts,
        "error": entry.error.as_ref().map(|e| e.to_string()),
    })
}

/// The ids of the trace, in order.
pub fn trace_ids(outcome: &FireOutcome) -> Vec<String> {
    outcome.trace.iter().map(|e| e.id.to_string()).collect()
}

/// Deadlines with a short chain deadline.
pub fn chain_deadline(chain: Duration) -> Deadlines {
    Deadlines { chain, ..Deadlines::default() }
}

/// A tool-call context.
pub fn tool_call(tool: &str, arguments: &str) -> Context {
    Context { tool_name: Some(tool.into()), tool_arguments: Some(arguments.into()), ..Context::default() }
}
