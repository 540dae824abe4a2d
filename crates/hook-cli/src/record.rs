//! This process's part of the decision store (crates/hook-store, docs/observability.md): one
//! sink, made on the first fire, that every fire of `hook`, `serve`, `fire` and `chat` hands its
//! record to without waiting; flushed with a short deadline as the process ends.
//!
//! The long-lived processes (`serve`, `chat`) write SQLite from a thread of their own
//! ([`Recorder`]). Every other command makes a fire or two and exits: it leaves its records in
//! the store's spool ([`Spool`]), a file that the next reader or writer of the database imports,
//! so that it never opens SQLite (whose close at exit costs milliseconds an agent waits on).
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
use hook_store::{FireRecord, Origin, Recorder, Spool, StoreConfig};

/// How long a process that ends waits for its rows to be written. The bridge's answer is out
/// by then; this bounds how much later its process exits when the database is locked. For a
/// spool's writer, whose own file takes no wait, it bounds the import of the spool it does now
/// and then ([`hook_store::IMPORT_ABOVE`]).
const EXIT_DEADLINE: Duration = Duration::from_millis(200);

/// [`EXIT_DEADLINE`], or `HOOKWIRE_STORE_FLUSH_MS` (at most 60 s): a busy machine, or a test
/// that reads every row back, may wait longer for its rows.
fn exit_deadline() -> Duration {
    std::env::var("HOOKWIRE_STORE_FLUSH_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(EXIT_DEADLINE, |ms| Duration::from_millis(ms.min(60_000)))
}

/// Where this process's records go.
#[derive(Debug)]
pub(crate) enum Sink {
    /// A long-lived process's writer thread.
    Writer(Recorder),
    /// A short-lived process's spool file.
    Spool(Spool),
}

impl Sink {
    fn record(&self, record: FireRecord) {
        match self {
            Sink::Writer(recorder) => {
                recorder.record(record);
            }
            Sink::Spool(spool) => {
                spool.record(record);
            }
        }
    }
}

static RECORDER: OnceLock<Option<Sink>> = OnceLock::new();

/// Set by `hookwire serve`: its bridge fires are the daemon's.
static IS_DAEMON: AtomicBool = AtomicBool::new(false);

/// Set by `serve` and `chat`, which live long enough for a writer thread to pay off (and to
/// import the spool the short-lived processes leave).
static LONG_LIVED: AtomicBool = AtomicBool::new(false);

/// Marks this process as the daemon.
pub(crate) fn set_daemon() {
    IS_DAEMON.store(true, Ordering::Relaxed);
    LONG_LIVED.store(true, Ordering::Relaxed);
}

/// Set by `hookwire test`: its cases are not decisions anyone made.
static IS_OFF: AtomicBool = AtomicBool::new(false);

/// Switches recording off for this process (before anything was recorded).
pub(crate) fn switch_off() {
    IS_OFF.store(true, Ordering::Relaxed);
}

/// The sink, made on first use (a long-lived process's writer thread then opens the database;
/// a spool creates nothing before the exit); `None` when the store is off.
pub(crate) fn start() -> Option<&'static Sink> {
    if IS_OFF.load(Ordering::Relaxed) {
        return None;
    }
    RECORDER
        .get_or_init(|| {
            StoreConfig::from_env().map(|config| {
                if LONG_LIVED.load(Ordering::Relaxed) {
                    Sink::Writer(Recorder::start(config))
                } else {
                    Sink::Spool(Spool::new(config))
                }
            })
        })
        .as_ref()
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
    LONG_LIVED.store(true, Ordering::Relaxed);
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
/// counted as dropped. A spool writes its file (and, now and then, imports the spool within
/// the deadline). Nothing to do when nothing was recorded.
pub(crate) fn flush_at_exit() {
    match RECORDER.get() {
        Some(Some(Sink::Writer(recorder))) => {
            recorder.flush(exit_deadline());
        }
        Some(Some(Sink::Spool(spool))) => {
            spool.flush(exit_deadline());
        }
        _ => {}
    }
}
