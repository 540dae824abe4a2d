//! The chain: runs the hooks of one event in order (at once when nothing can change, and for
//! neighbours that promised to change nothing), applies deadlines, retries and the failure
//! policy, and merges their outputs into one outcome.

use std::{
    collections::HashMap,
    future::{Future, poll_fn},
    pin::Pin,
    sync::{Arc, Mutex},
    task::{self, Poll},
    time::{Duration, Instant},
};

use hook_protocol::{Context, Event, config::OnError};
use tracing::{Instrument, debug, debug_span, warn};

use crate::{
    Action, Capability, Deadlines, Decision, Field, FireOutcome, HookError, HookInput, HookOutput, Level, OutcomeClass,
    SerializedCache, TraceEntry, capability,
    registry::{Entry, Registered},
    trace::Dropped,
};

/// The first backoff between attempts; the n-th waits n times as long.
const BACKOFF_STEP: Duration = Duration::from_millis(50);

/// A century: the chain deadline when the configured one does not fit in an `Instant`.
const FAR_FUTURE: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

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
    let (outcome, reason) = if !entry.enabled {
        (OutcomeClass::Disabled, None)
    } else if !entry.reg.filter.matches(context)
        || entry.reg.session.as_deref().is_some_and(|session| context.session_id.as_deref() != Some(session))
        || entry.reg.gate.as_ref().is_some_and(|gate| !gate.admits(event, context))
    {
        (OutcomeClass::Filtered, Some(filtered_reason(entry, event, context)))
    } else {
        return None;
    };
    entry.metrics.skip();
    debug!(hook = %entry.id, outcome = %outcome, reason = reason.as_deref().unwrap_or_default(), "hook not run");
    let mut trace = TraceEntry::not_run(entry.id.clone(), outcome);
    trace.reason = reason;
    Some(trace)
}

/// Why a filtered-out `entry` did not run: the first condition that failed, in the order
/// [`precheck`] tests them.
fn filtered_reason(entry: &Entry, event: Event, context: &Context) -> String {
    if let Some(why) = entry.reg.filter.why_not(context) {
        return why;
    }
    if let Some(session) = entry.reg.session.as_deref()
        && context.session_id.as_deref() != Some(session)
    {
        return match context.session_id.as_deref() {
            Some(other) => format!("session {session:?} is not the event's session {other:?}"),
            None => format!("session {session:?}: the event has no session id"),
        };
    }
    entry.reg.gate.as_ref().and_then(|gate| gate.why_not(event, context)).unwrap_or_default()
}

/// The deadline of a hook starting at `started` and the limit a timeout names: the hook's own,
/// or the chain's when that comes first. `None` when the chain's deadline has already passed.
fn hook_deadline(
    entry: &Entry,
    event: Event,
    deadlines: &Deadlines,
    started: Instant,
    chain_deadline: Instant,
) -> Option<(Instant, Duration)> {
    if started >= chain_deadline {
        return None;
    }
    let own = entry.reg.deadline_on(event, deadlines);
    // `checked_add`: a huge configured timeout means "the chain's deadline", never an overflow.
    Some(match started.checked_add(own) {
        Some(deadline) if deadline <= chain_deadline => (deadline, own),
        _ => (chain_deadline, deadlines.chain),
    })
}

/// The run of a hook that could not start: the chain's deadline was used up.
fn budget_exhausted(entry: &Entry, deadlines: &Deadlines) -> Run {
    entry.metrics.failure_without_run();
    Run { result: Err(HookError::BudgetExhausted { budget: deadlines.chain }), attempts: 0, duration: Duration::ZERO }
}

/// Awaits a call that was not ready on its first poll, until `deadline`.
async fn finish_call(
    call: Pin<Box<dyn Future<Output = Result<HookOutput, HookError>> + Send + '_>>,
    deadline: Instant,
    limit: Duration,
) -> Result<HookOutput, HookError> {
    match tokio::time::timeout_at(deadline.into(), call).await {
        Ok(result) => result,
        Err(_) => Err(HookError::Timeout { after: limit }),
    }
}

/// One attempt of `entry`; a call not ready at once is bounded by `deadline`.
async fn attempt_once(
    entry: &Entry,
    input: &HookInput<'_>,
    deadline: Instant,
    limit: Duration,
) -> Result<HookOutput, HookError> {
    let mut call = entry.reg.hook.call(input);
    // Most in-process hooks finish on their first poll: only arm a timer for those that do not.
    match poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx))).await {
        Poll::Ready(result) => result,
        Poll::Pending => finish_call(call, deadline, limit).await,
    }
}

/// Whether a failed attempt `attempt` that ended at `ended` is tried again.
fn is_retried(entry: &Entry, err: &HookError, attempt: u32, ended: Instant, deadline: Instant) -> bool {
    attempt <= entry.reg.retry
        && !matches!(err, HookError::Timeout { .. } | HookError::Cancelled)
        && ended + BACKOFF_STEP * attempt < deadline
}

/// The attempts after a first one that failed with `err` and ended at `ended`: backs off and
/// retries while the policy and the deadline allow; returns the last result, the number of
/// attempts and when the last one ended.
#[allow(clippy::too_many_arguments, reason = "the state of a hook's run, passed once on a rare path")]
async fn retry(
    entry: &Entry,
    event: Event,
    context: &Context,
    cache: &SerializedCache,
    (deadline, limit): (Instant, Duration),
    mut err: HookError,
    mut ended: Instant,
    mut attempt: u32,
) -> (Result<HookOutput, HookError>, u32, Instant) {
    while is_retried(entry, &err, attempt, ended, deadline) {
        debug!(hook = %entry.id, attempt, error = %err, "hook failed; retrying");
        tokio::time::sleep(BACKOFF_STEP * attempt).await;
        attempt += 1;
        let attempt_started = Instant::now();
        let input = HookInput::new(event, context, deadline, attempt, cache);
        let result = attempt_once(entry, &input, deadline, limit).await;
        ended = Instant::now();
        entry.metrics.attempt(result.is_ok(), ended - attempt_started);
        match result {
            Ok(output) => return (Ok(output), attempt, ended),
            Err(next) => err = next,
        }
    }
    (Err(err), attempt, ended)
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
    let Some((deadline, limit)) = hook_deadline(entry, event, deadlines, started, chain_deadline) else {
        return budget_exhausted(entry, deadlines);
    };
    let input = HookInput::new(event, context, deadline, 1, cache);
    let result = attempt_once(entry, &input, deadline, limit).await;
    let ended = Instant::now();
    entry.metrics.attempt(result.is_ok(), ended - started);
    let (result, attempts, ended) = match result {
        Ok(output) => (Ok(output), 1, ended),
        Err(err) => retry(entry, event, context, cache, (deadline, limit), err, ended, 1).await,
    };
    Run { result, attempts, duration: ended - started }
}

/// A hook's first attempt that did not end the hook's run on its first poll.
enum Unfinished<'a> {
    /// The call is still running.
    Pending(Pin<Box<dyn Future<Output = Result<HookOutput, HookError>> + Send + 'a>>),
    /// The call failed at once, at the given instant, and is to be retried.
    Failed(HookError, Instant),
}

/// The rest of a hook's run after its first poll: awaits a pending call until its deadline,
/// then retries failures as the policy and the deadline allow. Returns the run and when it ended.
async fn finish_run(
    entry: &Entry,
    event: Event,
    context: &Context,
    cache: &SerializedCache,
    unfinished: Unfinished<'_>,
    started: Instant,
    (deadline, limit): (Instant, Duration),
) -> (Run, Instant) {
    let (err, ended) = match unfinished {
        Unfinished::Failed(err, ended) => (err, ended),
        Unfinished::Pending(call) => {
            let result = finish_call(call, deadline, limit).await;
            let ended = Instant::now();
            entry.metrics.attempt(result.is_ok(), ended - started);
            match result {
                Ok(output) => return (Run { result: Ok(output), attempts: 1, duration: ended - started }, ended),
                Err(err) => (err, ended),
            }
        }
    };
    let (result, attempts, ended) = retry(entry, event, context, cache, (deadline, limit), err, ended, 1).await;
    (Run { result, attempts, duration: ended - started }, ended)
}

/// Runs the chain of `entries` for `event` over `context`.
///
/// The sequential path is the engine's hot path, shaped by measurement (`benches/chain.rs`): a
/// hook's first attempt is polled right here, so an in-process hook that is ready at once hands
/// its output to the merge in place, without moving it through nested futures (an output is
/// several hundred bytes); the clock is read once per hook (a hook's start is the previous
/// hook's end, so a hook's time includes the few nanoseconds of bookkeeping before it); a timer
/// is armed, and the rest of the run boxed, only for a hook that is not ready at once or fails.
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
    let mut clock = Instant::now();
    // A chain deadline too far to represent is as good as none: a century.
    let chain_deadline = clock.checked_add(env.deadlines.chain).unwrap_or(clock + FAR_FUTURE);
    let cache = SerializedCache::default();
    let mut outcome = FireOutcome::empty(event);
    outcome.trace.reserve(entries.len());
    if cap.is_tool_event {
        // Derived here, once hooks are known to exist: a fire with no hook never pays for it,
        // and a `tool` the caller set is replaced (it is read-only).
        hook_protocol::tool::refresh_tool_view(context);
    }
    if cap.is_notify_only() {
        run_at_once(env, cap, entries, event, context, &cache, chain_deadline, &mut outcome, false).await;
        return outcome;
    }
    // This task's waker, to poll each hook's first attempt in place (see above).
    let waker = poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
    let mut next = 0;
    while let Some(entry) = entries.get(next) {
        next += 1;
        // Neighbours that promised to change nothing run at once: none could change what the
        // next one sees. Approvers never do: one may be asking a person, who must not be asked
        // about a call an approver before it denies.
        if !cap.is_approval && entry.reg.changes_nothing(event) {
            let end = next + entries[next..].iter().take_while(|e| e.reg.changes_nothing(event)).count();
            if end > next {
                let group = &entries[next - 1..end];
                next = end;
                let is_halted =
                    Box::pin(run_at_once(env, cap, group, event, context, &cache, chain_deadline, &mut outcome, true))
                        .await;
                clock = Instant::now();
                if is_halted {
                    break;
                }
                continue;
            }
        }
        if let Some(skipped) = precheck(entry, event, context) {
            outcome.trace.push(skipped);
            continue;
        }
        let span = debug_span!("hook", hook = %entry.id);
        let started = clock;
        let Some((deadline, limit)) = hook_deadline(entry, event, env.deadlines, started, chain_deadline) else {
            let mut run = budget_exhausted(entry, env.deadlines);
            if merge(env, cap, entry, &mut run.result, 0, Duration::ZERO, Target::Own(context), &cache, &mut outcome) {
                break;
            }
            continue;
        };
        let input = HookInput::new(event, context, deadline, 1, &cache);
        // The fast path: the call writes its answer straight into `polled`, on this stack, and
        // the merge reads it there. Nothing here awaits, so the answer never lives in the
        // chain's future (which stays small) and is never moved.
        let unfinished = {
            let mut call = entry.reg.hook.call(&input);
            let mut polled = {
                let _entered = span.enter();
                call.as_mut().poll(&mut task::Context::from_waker(&waker))
            };
            match &mut polled {
                Poll::Pending => Unfinished::Pending(call),
                Poll::Ready(result) => {
                    drop(call);
                    let ended = Instant::now();
                    let took = ended - started;
                    entry.metrics.attempt(result.is_ok(), took);
                    clock = ended;
                    match result {
                        Err(err) if is_retried(entry, err, 1, ended, deadline) => {
                            Unfinished::Failed(std::mem::replace(err, HookError::Cancelled), ended)
                        }
                        _ => {
                            if merge(env, cap, entry, result, 1, took, Target::Own(context), &cache, &mut outcome) {
                                debug!(hook = %entry.id, decision = %outcome.decision, "chain halted");
                                break;
                            }
                            continue;
                        }
                    }
                }
            }
        };
        // The slow path, boxed so its state does not weigh on every fire: a hook not ready at
        // once (a process, a model) or one to retry.
        let finishing = finish_run(entry, event, context, &cache, unfinished, started, (deadline, limit));
        let (mut run, ended) = Box::pin(finishing.instrument(span)).await;
        clock = ended;
        let target = Target::Own(context);
        if merge(env, cap, entry, &mut run.result, run.attempts, run.duration, target, &cache, &mut outcome) {
            debug!(hook = %entry.id, decision = %outcome.decision, "chain halted");
            break;
        }
    }
    outcome
}

/// The context a merge may write: the chain's own, or a shared view for hooks run at once
/// (they can change nothing: a change they answer anyway is refused before it is applied).
enum Target<'a> {
    Own(&'a mut Context),
    Shared(&'a Context),
}

impl Target<'_> {
    fn get(&self) -> &Context {
        match self {
            Target::Own(context) => context,
            Target::Shared(context) => context,
        }
    }
}

/// Runs `entries` all at once over `context` and merges each result, in chain order, as soon
/// as it and every result before it have arrived; returns whether the chain halts. With
/// `first_halt_ends` (neighbours that promised to change nothing, in a chain that can halt),
/// the first halt ends the merge and cancels the runs after it (dropping a run cancels it, as
/// dropping a fire does). Without it (an event nothing can change), every answer is merged and
/// a halt only decides the outcome, the first in chain order winning.
#[allow(clippy::too_many_arguments, reason = "the chain's state, passed once per group")]
async fn run_at_once(
    env: ChainEnv<'_>,
    cap: &Capability,
    entries: &[Arc<Entry>],
    event: Event,
    context: &Context,
    cache: &SerializedCache,
    chain_deadline: Instant,
    outcome: &mut FireOutcome,
    first_halt_ends: bool,
) -> bool {
    let mut skipped: Vec<Option<TraceEntry>> = entries.iter().map(|entry| precheck(entry, event, context)).collect();
    let mut running: Vec<_> = entries
        .iter()
        .zip(&skipped)
        .map(|(entry, skipped)| {
            skipped.is_none().then(|| {
                let span = debug_span!("hook", hook = %entry.id);
                Box::pin(run_hook(entry, event, context, cache, env.deadlines, chain_deadline).instrument(span))
            })
        })
        .collect();
    let mut ended: Vec<Option<Run>> = entries.iter().map(|_| None).collect();
    let mut next = 0;
    poll_fn(|cx| {
        for (slot, run) in running.iter_mut().zip(ended.iter_mut()).skip(next) {
            if let Some(future) = slot
                && let Poll::Ready(ran) = future.as_mut().poll(cx)
            {
                *run = Some(ran);
                *slot = None;
            }
        }
        while let Some(entry) = entries.get(next) {
            if let Some(trace) = skipped[next].take() {
                outcome.trace.push(trace);
                next += 1;
                continue;
            }
            let Some(mut run) = ended[next].take() else { return Poll::Pending };
            next += 1;
            let earlier = outcome.decision.is_halt().then(|| (outcome.decision, outcome.reason.take()));
            let target = Target::Shared(context);
            let is_halted = merge(env, cap, entry, &mut run.result, run.attempts, run.duration, target, cache, outcome);
            if let Some((decision, reason)) = earlier {
                outcome.decision = decision;
                outcome.reason = reason;
            } else if is_halted && first_halt_ends {
                debug!(hook = %entry.id, decision = %outcome.decision, "chain halted");
                return Poll::Ready(true);
            }
        }
        Poll::Ready(outcome.decision.is_halt())
    })
    .await
}

/// Folds one hook's run (its result, attempts and time) into `outcome`; returns whether the
/// chain halts.
#[allow(clippy::too_many_arguments, reason = "one step of the chain's fold; splitting it hides the flow")]
fn merge(
    env: ChainEnv<'_>,
    cap: &Capability,
    entry: &Entry,
    result: &mut Result<HookOutput, HookError>,
    attempts: u32,
    duration: Duration,
    context: Target<'_>,
    cache: &SerializedCache,
    outcome: &mut FireOutcome,
) -> bool {
    // The entry is built in its slot of the trace, and the output read by reference: moving
    // either per hook shows in the chain's cost.
    let mut traces = std::mem::take(&mut outcome.trace);
    let slot = traces.len();
    traces.push(TraceEntry {
        id: entry.id.clone(),
        outcome: OutcomeClass::Ok,
        action: None,
        changed: Vec::new(),
        dropped: Vec::new(),
        attempts,
        duration,
        error: None,
        reason: None,
    });
    let trace = &mut traces[slot];
    let mut is_broken_promise = false;
    // Only a change the event allows breaks the promise: the others are dropped anyway.
    if let Ok(output) = result
        && !output.patch.is_empty()
        && entry.reg.changes_nothing(outcome.event)
        && Field::ALL.into_iter().any(|field| output.patch.sets(field) && cap.may_change(field))
    {
        *result = Err(broken_promise(cap, entry, outcome.event, output));
        is_broken_promise = true;
    }
    let is_halted = match result {
        Ok(output) => {
            let is_no_change = output.is_no_change();
            trace.outcome = if is_no_change { OutcomeClass::NoChange } else { OutcomeClass::Ok };
            // An output that changes and decides nothing has nothing to merge on any event.
            if is_no_change && output.unknown_fields.is_empty() {
                false
            } else {
                merge_output(env, cap, entry, output, context, cache, outcome, trace)
            }
        }
        Err(err) => {
            trace.outcome = err.class();
            let policy = match entry.reg.on_error_on(outcome.event) {
                // A guard that promised to change nothing by mistake must not pass silently.
                OnError::Skip if is_broken_promise => OnError::Deny,
                policy => policy,
            };
            let is_halted = apply_failure(cap, entry, outcome.event, err, policy, outcome);
            trace.error = Some(std::mem::replace(err, HookError::Cancelled));
            is_halted
        }
    };
    outcome.trace = traces;
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
    mut context: Target<'_>,
    cache: &SerializedCache,
    outcome: &mut FireOutcome,
    trace: &mut TraceEntry,
) -> bool {
    let reg = &entry.reg;
    if !output.patch.is_empty() {
        for field in Field::ALL {
            if output.patch.sets(field) && !cap.may_change(field) {
                output.patch.clear(field);
                trace.dropped.push(Dropped::Field(field));
            }
        }
    }
    let tools_before =
        (outcome.event == Event::PreLlmRequest && output.patch.tools.is_some()).then(|| tool_names(context.get()));
    // The respond boundary is checked against the call as it reached this hook: renaming the call
    // to a tool the hook injected must not let it answer for another tool.
    let requested_tool = (output.action == Some(Action::Respond)).then(|| context.get().tool_name.clone()).flatten();
    let changed = match &mut context {
        _ if output.patch.is_empty() => Vec::new(),
        Target::Own(context) => std::mem::take(&mut output.patch).apply(context),
        Target::Shared(_) => {
            // Not reached: hooks run at once either promised to change nothing (a change they
            // may make was refused above) or ran on an event nothing can change (every field
            // dropped above). Dropped, never applied to a context the others did not see.
            trace.dropped.extend(Field::ALL.into_iter().filter(|f| output.patch.sets(*f)).map(Dropped::Field));
            output.patch = crate::ContextPatch::default();
            Vec::new()
        }
    };
    if !changed.is_empty() {
        cache.clear();
        if changed.iter().any(|f| matches!(f, Field::ToolName | Field::ToolArguments))
            && let Target::Own(context) = &mut context
        {
            // The derived view follows the call the next hooks see.
            hook_protocol::tool::refresh_tool_view(context);
        }
        for field in &changed {
            if !outcome.changed.contains(field) {
                outcome.changed.push(*field);
            }
        }
    }
    trace.changed = changed;
    if let Some(before) = tools_before {
        let added: Vec<String> = tool_names(context.get()).into_iter().filter(|name| !before.contains(name)).collect();
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
            trace.dropped.push(Dropped::InjectMessages);
        }
    }
    if let Some(text) = output.additional_context.take() {
        if cap.additional_context {
            effects.additional_context.push(text);
        } else {
            trace.dropped.push(Dropped::AdditionalContext);
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
            if outcome.permission < Some(permission) {
                outcome.permission_reason = output.reason.clone().filter(|reason| !reason.is_empty());
            }
            outcome.permission = outcome.permission.max(Some(permission));
        } else {
            trace.dropped.push(Dropped::Permission(permission));
        }
    }
    if let Some(text) = output.retry_feedback.take() {
        if cap.retry_feedback {
            effects.retry_feedback = Some(text);
        } else {
            trace.dropped.push(Dropped::RetryFeedback);
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
        trace.dropped.extend(output.unknown_fields.drain(..).map(Dropped::UnknownField));
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
            trace.dropped.push(Dropped::Action(action));
        }
        if output.approved == Some(true) {
            // An explicit approval, as opposed to no objection: an agent's bridge answers "allow".
            outcome.permission = outcome.permission.max(Some(crate::Permission::Allow));
        }
        return false;
    }
    if output.approved.is_some() {
        trace.dropped.push(Dropped::Approved);
    }
    let action = match output.action {
        Some(action) if cap.allows(action) => action,
        Some(action) => {
            trace.dropped.push(Dropped::Action(action));
            return false;
        }
        None => {
            if output.respond.is_some() {
                trace.dropped.push(Dropped::Respond);
            }
            return false;
        }
    };
    if action != Action::Respond {
        if output.respond.is_some() {
            trace.dropped.push(Dropped::Respond);
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
        trace.dropped.push(Dropped::Respond);
        outcome.decision = Decision::DenyTool;
        outcome.reason = Some(format!(
            "hook `{}` may not respond for tool `{tool}`: it did not add that tool in before_llm and does not list it under respond_tools",
            reg.name
        ));
    }
    true
}

/// The error of a hook that promised to change nothing on `event` and answered `output` with
/// changes anyway.
fn broken_promise(cap: &Capability, entry: &Entry, event: Event, output: &HookOutput) -> HookError {
    let fields: Vec<String> = Field::ALL
        .into_iter()
        .filter(|field| output.patch.sets(*field) && cap.may_change(*field))
        .map(|field| format!("`{field}`"))
        .collect();
    HookError::invalid_output(
        format!(
            "the hook promised to change nothing on {event} but answered with a change to {}; the change is refused and the chain \
             halts. Hook `{}` must either answer without changes or stop promising (a process hook: leave \
             this method out of `hookwire.read_only` in its hook.hello answer)",
            fields.join(", "),
            entry.reg.name
        ),
        "",
    )
}

/// Applies the failure `policy` to `err`; returns whether the chain halts.
fn apply_failure(
    cap: &Capability,
    entry: &Entry,
    event: Event,
    err: &HookError,
    policy: OnError,
    outcome: &mut FireOutcome,
) -> bool {
    let reg = &entry.reg;
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
