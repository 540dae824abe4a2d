//! The chain: runs the hooks of one event in order (or concurrently when nothing can change),
//! applies deadlines, retries and the failure policy, and merges their outputs into one outcome.

use std::{
    collections::HashMap,
    future::{Future, poll_fn},
    pin::Pin,
    sync::{Arc, Mutex},
    task::Poll,
    time::{Duration, Instant},
};

use hook_protocol::{Context, Event, config::OnError};
use tracing::{Instrument, debug, debug_span, warn};

use crate::{
    Action, Capability, Deadlines, Decision, Field, FireOutcome, HookError, HookInput, HookOutput, Level, OutcomeClass,
    SerializedCache, TraceEntry, capability,
    registry::{Entry, Registered},
};

/// The first backoff between attempts; the n-th waits n times as long.
const BACKOFF_STEP: Duration = Duration::from_millis(50);

/// Tool names each registration added to `tools` in a `pre_llm_request` fire: the tools it may
/// answer with `respond`.
#[derive(Debug, Default)]
pub(crate) struct InjectedTools {
    by_hook: Mutex<ToolsByHook>,
}

/// Injected tool names by registration (level and name).
type ToolsByHook = HashMap<(Level, Arc<str>), Vec<String>>;

impl InjectedTools {
    fn lock(&self) -> std::sync::MutexGuard<'_, ToolsByHook> {
        self.by_hook.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn record(&self, reg: &Registered, added: Vec<String>) {
        let mut by_hook = self.lock();
        let tools = by_hook.entry((reg.level, reg.name.clone())).or_default();
        for tool in added {
            if !tools.contains(&tool) {
                tools.push(tool);
            }
        }
    }

    fn contains(&self, reg: &Registered, tool: &str) -> bool {
        self.lock().get(&(reg.level, reg.name.clone())).is_some_and(|tools| tools.iter().any(|t| t == tool))
    }

    /// Forgets what the registrations matching `is_gone` injected (they were removed or replaced).
    pub(crate) fn forget(&self, mut is_gone: impl FnMut(Level, &str) -> bool) {
        self.lock().retain(|(level, name), _| !is_gone(*level, name));
    }
}

/// What a chain needs from the engine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChainEnv<'a> {
    pub(crate) deadlines: &'a Deadlines,
    pub(crate) injected: &'a InjectedTools,
}

/// What running one hook (all its attempts) gave.
struct Run {
    result: Result<HookOutput, HookError>,
    attempts: u32,
    duration: Duration,
}

/// Polls every future to completion concurrently; results in input order.
pub(crate) async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut results: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    poll_fn(|cx| {
        let mut is_done = true;
        for (future, slot) in futures.iter_mut().zip(results.iter_mut()) {
            if slot.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *slot = Some(value),
                    Poll::Pending => is_done = false,
                }
            }
        }
        if is_done { Poll::Ready(()) } else { Poll::Pending }
    })
    .await;
    results.into_iter().flatten().collect()
}

/// Whether `entry` is skipped before running: its trace entry when it is disabled or filtered.
fn precheck(entry: &Entry, event: Event, context: &Context) -> Option<TraceEntry> {
    let outcome = if !entry.enabled {
        OutcomeClass::Disabled
    } else if !entry.reg.filter.matches(context)
        || entry.reg.session.as_deref().is_some_and(|session| context.session_id.as_deref() != Some(session))
        || entry.reg.gate.as_ref().is_some_and(|gate| !gate.admits(event, context))
    {
        OutcomeClass::Filtered
    } else {
        return None;
    };
    entry.metrics.skip();
    debug!(hook = %entry.id, outcome = %outcome, "hook not run");
    Some(TraceEntry::not_run(entry.id.clone(), outcome))
}

/// Runs `entry` with its deadline, bounded by the chain's, retrying failures while time remains.
async fn run_hook(
    entry: &Entry,
    event: Event,
    context: &Context,
    cache: &SerializedCache,
    deadlines: &Deadlines,
    chain_deadline: Instant,
) -> Run {
    let started = Instant::now();
    if started >= chain_deadline {
        entry.metrics.failure_without_run();
        return Run {
            result: Err(HookError::BudgetExhausted { budget: deadlines.chain }),
            attempts: 0,
            duration: Duration::ZERO,
        };
    }
    let own = entry.reg.deadline_on(event, deadlines);
    // A timeout names the deadline that passed: the hook's own, or the chain's when that came first.
    let (deadline, limit) =
        if started + own <= chain_deadline { (started + own, own) } else { (chain_deadline, deadlines.chain) };
    let mut attempt = 0;
    loop {
        attempt += 1;
        // One clock read per attempt boundary: reads are a visible share of a no-op hook's cost.
        let attempt_started = if attempt == 1 { started } else { Instant::now() };
        let input = HookInput::new(event, context, deadline, attempt, cache);
        let mut call = std::pin::pin!(entry.reg.hook.call(&input));
        // Most in-process hooks finish on their first poll: only arm a timer for those that do not.
        let result = match poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx))).await {
            Poll::Ready(result) => result,
            Poll::Pending => match tokio::time::timeout_at(deadline.into(), call).await {
                Ok(result) => result,
                Err(_) => Err(HookError::Timeout { after: limit }),
            },
        };
        let ended = Instant::now();
        entry.metrics.attempt(result.is_ok(), ended - attempt_started);
        let err = match result {
            Ok(output) => return Run { result: Ok(output), attempts: attempt, duration: ended - started },
            Err(err) => err,
        };
        let backoff = BACKOFF_STEP * attempt;
        let is_retry = attempt <= entry.reg.retry
            && !matches!(err, HookError::Timeout { .. } | HookError::Cancelled)
            && ended + backoff < deadline;
        if !is_retry {
            return Run { result: Err(err), attempts: attempt, duration: ended - started };
        }
        debug!(hook = %entry.id, attempt, error = %err, "hook failed; retrying");
        tokio::time::sleep(backoff).await;
    }
}

/// Runs the chain of `entries` for `event` over `context`.
pub(crate) async fn run(env: ChainEnv<'_>, entries: &[Arc<Entry>], event: Event, context: &mut Context) -> FireOutcome {
    let cap = capability(event);
    // An approval may wait for a person: its chain gets at least as long as its longest approver
    // (PicoClaw gives approvals 60 s, more than the 30 s chain budget of other events). Hooks of
    // the Claude Code family keep their agent's deadlines (600 s) the same way.
    let stretched_deadlines;
    let longest = entries
        .iter()
        .filter(|entry| cap.is_approval || entry.reg.outlasts_chain)
        .map(|entry| entry.reg.deadline_on(event, env.deadlines))
        .max();
    let env = match longest {
        Some(longest) if longest > env.deadlines.chain => {
            stretched_deadlines = Deadlines { chain: longest, ..*env.deadlines };
            ChainEnv { deadlines: &stretched_deadlines, ..env }
        }
        _ => env,
    };
    let chain_deadline = Instant::now() + env.deadlines.chain;
    let cache = SerializedCache::default();
    let mut outcome = FireOutcome::empty(event);
    outcome.trace.reserve(entries.len());
    if cap.is_notify_only() {
        run_concurrently(env, entries, event, context, &cache, chain_deadline, &mut outcome).await;
        return outcome;
    }
    for entry in entries {
        if let Some(skipped) = precheck(entry, event, context) {
            outcome.trace.push(skipped);
            continue;
        }
        let span = debug_span!("hook", hook = %entry.id);
        let hook_run = run_hook(entry, event, context, &cache, env.deadlines, chain_deadline);
        // Wrapping the run moves its future; skip that when no subscriber wants the span.
        let mut run = if span.is_disabled() { hook_run.await } else { hook_run.instrument(span).await };
        let is_halted = merge(env, cap, entry, &mut run, context, &cache, &mut outcome);
        if is_halted {
            debug!(hook = %entry.id, decision = %outcome.decision, "chain halted");
            break;
        }
    }
    outcome
}

/// Runs hooks of an event nothing can change, all at once; merges their results in chain order.
async fn run_concurrently(
    env: ChainEnv<'_>,
    entries: &[Arc<Entry>],
    event: Event,
    context: &mut Context,
    cache: &SerializedCache,
    chain_deadline: Instant,
    outcome: &mut FireOutcome,
) {
    let mut skipped: Vec<Option<TraceEntry>> = entries.iter().map(|entry| precheck(entry, event, context)).collect();
    let runs = {
        let shared: &Context = context;
        let futures: Vec<_> = entries
            .iter()
            .zip(&skipped)
            .filter(|(_, skipped)| skipped.is_none())
            .map(|(entry, _)| {
                let span = debug_span!("hook", hook = %entry.id);
                run_hook(entry, event, shared, cache, env.deadlines, chain_deadline).instrument(span)
            })
            .collect();
        join_all(futures).await
    };
    let mut runs = runs.into_iter();
    let cap = capability(event);
    for (entry, skipped) in entries.iter().zip(skipped.iter_mut()) {
        if let Some(skipped) = skipped.take() {
            outcome.trace.push(skipped);
            continue;
        }
        let Some(mut run) = runs.next() else { break };
        // Everyone already ran: a halt only decides the outcome (first in chain order wins).
        let was_halted = outcome.decision.is_halt();
        let (decision, reason) = (outcome.decision, outcome.reason.take());
        merge(env, cap, entry, &mut run, context, cache, outcome);
        if was_halted {
            outcome.decision = decision;
            outcome.reason = reason;
        }
    }
}

/// Folds one hook's run into `outcome`; returns whether the chain halts.
fn merge(
    env: ChainEnv<'_>,
    cap: &Capability,
    entry: &Entry,
    run: &mut Run,
    context: &mut Context,
    cache: &SerializedCache,
    outcome: &mut FireOutcome,
) -> bool {
    let mut trace = TraceEntry::not_run(entry.id.clone(), OutcomeClass::Ok);
    trace.attempts = run.attempts;
    trace.duration = run.duration;
    // By reference: an output is large, and moving it per hook shows in the chain's cost.
    let is_halted = match &mut run.result {
        Ok(output) => {
            trace.outcome = if output.is_no_change() { OutcomeClass::NoChange } else { OutcomeClass::Ok };
            merge_output(env, cap, entry, output, context, cache, outcome, &mut trace)
        }
        Err(err) => {
            trace.outcome = err.class();
            let is_halted = apply_failure(cap, entry, outcome.event, err, outcome);
            trace.error = Some(std::mem::replace(err, HookError::Cancelled));
            is_halted
        }
    };
    outcome.trace.push(trace);
    is_halted
}

/// The names of `context.tools`.
fn tool_names(context: &Context) -> Vec<String> {
    context.tools.iter().flatten().map(|tool| tool.name().to_owned()).collect()
}

#[allow(clippy::too_many_arguments, reason = "one step of the chain's fold; splitting it hides the flow")]
fn merge_output(
    env: ChainEnv<'_>,
    cap: &Capability,
    entry: &Entry,
    output: &mut HookOutput,
    context: &mut Context,
    cache: &SerializedCache,
    outcome: &mut FireOutcome,
    trace: &mut TraceEntry,
) -> bool {
    let reg = &entry.reg;
    for field in Field::ALL {
        if output.patch.sets(field) && !cap.may_change(field) {
            output.patch.clear(field);
            trace.dropped.push(field.as_str().to_owned());
        }
    }
    let tools_before =
        (outcome.event == Event::PreLlmRequest && output.patch.tools.is_some()).then(|| tool_names(context));
    // The respond boundary is checked against the call as it reached this hook: renaming the call
    // to a tool the hook injected must not let it answer for another tool.
    let requested_tool = (output.action == Some(Action::Respond)).then(|| context.tool_name.clone()).flatten();
    let changed = if output.patch.is_empty() { Vec::new() } else { std::mem::take(&mut output.patch).apply(context) };
    if !changed.is_empty() {
        cache.clear();
        for field in &changed {
            if !outcome.changed.contains(field) {
                outcome.changed.push(*field);
            }
        }
    }
    trace.changed = changed;
    if let Some(before) = tools_before {
        let added: Vec<String> = tool_names(context).into_iter().filter(|name| !before.contains(name)).collect();
        if !added.is_empty() {
            debug!(hook = %entry.id, tools = ?added, "hook injected tools");
            env.injected.record(reg, added);
        }
    }

    let effects = &mut outcome.effects;
    if !output.inject_messages.is_empty() {
        if cap.inject_messages {
            effects.inject_messages.append(&mut output.inject_messages);
        } else {
            trace.dropped.push("inject_messages".to_owned());
        }
    }
    if let Some(text) = output.additional_context.take() {
        if cap.additional_context {
            effects.additional_context.push(text);
        } else {
            trace.dropped.push("additional_context".to_owned());
        }
    }
    if let Some(text) = output.system_message.take() {
        effects.system_messages.push(text);
    }
    if !output.agent_output.is_empty() {
        effects.agent_output.append(&mut output.agent_output);
    }
    if let Some(permission) = output.permission.take() {
        if outcome.event == Event::PreToolExecution {
            outcome.permission = outcome.permission.max(Some(permission));
        } else {
            trace.dropped.push(format!("permission {}", permission.as_str()));
        }
    }
    if let Some(text) = output.retry_feedback.take() {
        if cap.retry_feedback {
            effects.retry_feedback = Some(text);
        } else {
            trace.dropped.push("retry_feedback".to_owned());
        }
    }

    if !output.unknown_fields.is_empty() {
        let names = output.unknown_fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
        if cap.is_approval {
            // `{"aproved": false}` must not read as "no objection".
            warn!(hook = %entry.id, fields = %names, "approval answer with unknown fields: denied");
            trace.outcome = OutcomeClass::InvalidOutput;
            trace.error = Some(HookError::invalid_output(
                format!(
                    "the approval answer has unknown fields {names}; write `approved` (true or false) and `reason`"
                ),
                "",
            ));
            outcome.decision = Decision::Denied;
            outcome.reason = Some(format!(
                "approval hook `{}` answered with unknown fields {names}, so the call is denied",
                reg.name
            ));
            return true;
        }
        trace.dropped.extend(output.unknown_fields.drain(..).map(|f| format!("unknown field `{f}`")));
    }
    if cap.is_approval {
        let is_denied = match output.approved {
            Some(approved) => !approved,
            None => matches!(output.action, Some(Action::Stop | Action::DenyTool)),
        };
        if is_denied {
            outcome.decision = Decision::Denied;
            outcome.reason =
                Some(output.reason.take().unwrap_or_else(|| format!("denied by approval hook `{}`", reg.name)));
            return true;
        }
        if let Some(action) = output.action.filter(|a| !matches!(a, Action::Stop | Action::DenyTool)) {
            trace.dropped.push(action.as_str().to_owned());
        }
        if output.approved == Some(true) {
            // An explicit approval, as opposed to no objection: an agent's bridge answers "allow".
            outcome.permission = outcome.permission.max(Some(crate::Permission::Allow));
        }
        return false;
    }
    if output.approved.is_some() {
        trace.dropped.push("approved".to_owned());
    }
    let action = match output.action {
        Some(action) if cap.allows(action) => action,
        Some(action) => {
            trace.dropped.push(action.as_str().to_owned());
            return false;
        }
        None => {
            if output.respond.is_some() {
                trace.dropped.push("respond".to_owned());
            }
            return false;
        }
    };
    if action != Action::Respond {
        if output.respond.is_some() {
            trace.dropped.push("respond".to_owned());
        }
        trace.action = Some(action);
        outcome.decision = Decision::from_action(action);
        outcome.reason = output.reason.take();
        return true;
    }
    let tool = requested_tool.as_deref().unwrap_or_default();
    if env.injected.contains(reg, tool) || reg.lists_respond_tool(tool) {
        trace.action = Some(Action::Respond);
        outcome.decision = Decision::Respond;
        outcome.respond = output.respond.take();
        outcome.reason = output.reason.take();
    } else {
        warn!(hook = %entry.id, tool, "respond refused: the hook did not inject the tool and does not list it");
        trace.action = Some(Action::DenyTool);
        trace.dropped.push("respond".to_owned());
        outcome.decision = Decision::DenyTool;
        outcome.reason = Some(format!(
            "hook `{}` may not respond for tool `{tool}`: it did not add that tool in before_llm and does not list it under respond_tools",
            reg.name
        ));
    }
    true
}

/// Applies the hook's failure policy to `err`; returns whether the chain halts.
fn apply_failure(cap: &Capability, entry: &Entry, event: Event, err: &HookError, outcome: &mut FireOutcome) -> bool {
    let reg = &entry.reg;
    let policy = reg.on_error_on(event);
    warn!(hook = %entry.id, error = %err, on_error = policy.as_str(), "hook failed");
    match policy {
        OnError::Skip => false,
        // Halting an approval without a decision would let the call run: an approver that fails
        // and may not be skipped denies (docs/design.md: approvals fail closed).
        OnError::Stop if cap.is_approval => {
            outcome.decision = Decision::Denied;
            outcome.reason = Some(format!("approval hook `{}` failed and its on_error is stop: {err}", reg.name));
            true
        }
        OnError::Stop => {
            outcome.decision = Decision::Stop;
            outcome.reason =
                Some(format!("hook `{}` ({}) failed on {event} and its on_error is stop: {err}", reg.name, reg.level));
            true
        }
        OnError::Deny => {
            if cap.is_approval {
                outcome.decision = Decision::Denied;
                outcome.reason = Some(match err {
                    HookError::Timeout { .. } => format!("approval hook `{}` {err}", reg.name),
                    _ => format!("approval hook `{}` failed: {err}", reg.name),
                });
            } else {
                outcome.decision = if cap.allows(Action::DenyTool) { Decision::DenyTool } else { Decision::Stop };
                outcome.reason = Some(format!(
                    "hook `{}` ({}) failed on {event} and its on_error is deny: {err}",
                    reg.name, reg.level
                ));
            }
            true
        }
    }
}
