//! This process's part of the decision store (crates/hook-store, docs/observability.md): one
//! recorder, started on the first fire, that every fire of `hook`, `serve`, `fire` and `chat`
//! hands its record to without waiting; flushed with a short deadline as the process ends.
//!
//! `HOOKWIRE_STORE=off` switches it off: then nothing here starts a thread or opens a file.

use std::{
    sync::{
        OnceLock,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent_loop::{Session, TurnEvent};
use hook_core::{Context, Engine, FireOutcome};
use hook_protocol::Agent;
use hook_store::{FireRecord, Origin, Recorder, StoreConfig};

/// How long a process that ends waits for its rows to be written. The bridge's answer is out
/// by then; this bounds how much later its process exits when the database is locked.
const EXIT_DEADLINE: Duration = Duration::from_millis(200);

/// [`EXIT_DEADLINE`], or `HOOKWIRE_STORE_FLUSH_MS` (at most 60 s): a busy machine, or a test
/// that reads every row back, may wait longer for its rows.
fn exit_deadline() -> Duration {
    std::env::var("HOOKWIRE_STORE_FLUSH_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(EXIT_DEADLINE, |ms| Duration::from_millis(ms.min(60_000)))
}

static RECORDER: OnceLock<Option<Recorder>> = OnceLock::new();

/// Set by `hookwire serve`: its bridge fires are the daemon's.
static IS_DAEMON: AtomicBool = AtomicBool::new(false);

/// Marks this process as the daemon.
pub(crate) fn set_daemon() {
    IS_DAEMON.store(true, Ordering::Relaxed);
}

/// Set by `hookwire test`: its cases are not decisions anyone made.
static IS_OFF: AtomicBool = AtomicBool::new(false);

/// Switches recording off for this process (before anything was recorded).
pub(crate) fn switch_off() {
    IS_OFF.store(true, Ordering::Relaxed);
}

/// The recorder, started (its thread opening the database) on first use; `None` when the
/// store is off.
pub(crate) fn start() -> Option<&'static Recorder> {
    if IS_OFF.load(Ordering::Relaxed) {
        return None;
    }
    RECORDER.get_or_init(|| StoreConfig::from_env().map(Recorder::start)).as_ref()
}

/// Records a fire of `engine`: `outcome` over `context`, which took `latency`.
pub(crate) fn fire(
    origin: Origin,
    engine: &Engine,
    outcome: &FireOutcome,
    context: &Context,
    latency: Duration,
    agent: Option<Agent>,
) {
    let Some(recorder) = start() else { return };
    let hooks = if outcome.trace.is_empty() { Vec::new() } else { engine.hooks_for(outcome.event) };
    let mut record = FireRecord::from_outcome(origin, outcome, context, &hooks, latency);
    if let Some(agent) = agent {
        record = record.agent(agent.as_str());
    }
    recorder.record(record);
}

/// Records a bridge fire: the daemon's, or this process's.
pub(crate) fn bridge_fire(engine: &Engine, outcome: &FireOutcome, context: &Context, latency: Duration, agent: Agent) {
    let origin = if IS_DAEMON.load(Ordering::Relaxed) { Origin::Daemon } else { Origin::Bridge };
    fire(origin, engine, outcome, context, latency, Some(agent));
}

/// Records a bridge call refused before any hook ran (a configuration that does not load, a
/// hook that cannot start): the agent was told no, so the store says so, with the reason.
pub(crate) fn bridge_refusal(agent: Agent, context: &Context, outcome: &FireOutcome, latency: Duration) {
    let Some(recorder) = start() else { return };
    let origin = if IS_DAEMON.load(Ordering::Relaxed) { Origin::Daemon } else { Origin::Bridge };
    recorder.record(FireRecord::from_outcome(origin, outcome, context, &[], latency).agent(agent.as_str()));
}

/// Records every event a chat session fires.
pub(crate) fn watch_chat(session: &mut Session, engine: Engine, cwd: Option<String>) {
    if start().is_none() {
        return;
    }
    let session_id = session.id().to_owned();
    session.on_event(Box::new(move |event: &TurnEvent| {
        let TurnEvent::Fired(fired) = event else { return };
        let outcome = FireOutcome {
            decision: fired.decision,
            reason: fired.reason.clone(),
            trace: fired.hooks.clone(),
            ..FireOutcome::empty(fired.event)
        };
        let context = Context {
            session_id: Some(session_id.clone()),
            cwd: cwd.clone(),
            tool_name: fired.tool_name.clone(),
            ..Context::default()
        };
        let latency = fired.hooks.iter().map(|h| h.duration).sum();
        fire(Origin::Chat, &engine, &outcome, &context, latency, None);
    }));
}

/// Waits (at most [`exit_deadline`]) for this process's rows to be written; what is left is
/// counted as dropped. Nothing to do when nothing was recorded.
pub(crate) fn flush_at_exit() {
    if let Some(Some(recorder)) = RECORDER.get() {
        recorder.flush(exit_deadline());
    }
}
