//! The registry: registrations by level, and the immutable per-event snapshot each fire reads.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use hook_protocol::{
    Event,
    config::{HookFilter, OnError, SandboxPolicy},
};

use crate::{
    CompiledFilter, Deadlines, Gate, Hook, HookId, Kind, Level, Observer, SourceLocation, default_on_error,
    metrics::{MetricCells, MetricsStore},
    observer::ObserverSlot,
};

/// An in-process hook to register with [`crate::Engine::register`].
#[derive(Debug, Clone)]
pub struct Registration {
    pub(crate) name: String,
    pub(crate) level: Level,
    pub(crate) events: Vec<Event>,
    pub(crate) hook: Arc<dyn Hook>,
    pub(crate) priority: i32,
    pub(crate) filter: HookFilter,
    pub(crate) timeout: Option<Duration>,
    pub(crate) retry: u32,
    pub(crate) on_error: Option<OnError>,
    pub(crate) respond_tools: Vec<String>,
    pub(crate) observer: Option<(Arc<dyn Observer>, Vec<String>)>,
    pub(crate) enabled: bool,
    pub(crate) gate: Option<Arc<dyn Gate>>,
    pub(crate) outlasts_chain: bool,
    pub(crate) default_timeouts: Vec<(Event, Duration)>,
    pub(crate) session: Option<Arc<str>>,
}

impl Registration {
    /// Hook `name` at `level`, run on each of `events`.
    pub fn new(
        name: impl Into<String>,
        level: Level,
        events: impl IntoIterator<Item = Event>,
        hook: Arc<dyn Hook>,
    ) -> Self {
        let mut unique: Vec<Event> = Vec::new();
        for event in events {
            if !unique.contains(&event) {
                unique.push(event);
            }
        }
        Registration {
            name: name.into(),
            level,
            events: unique,
            hook,
            priority: 0,
            filter: HookFilter::default(),
            timeout: None,
            retry: 0,
            on_error: None,
            respond_tools: Vec::new(),
            observer: None,
            enabled: true,
            gate: None,
            outlasts_chain: false,
            default_timeouts: Vec::new(),
            session: None,
        }
    }

    /// Scopes the hook to one session: it runs only on events whose context's `session_id` is
    /// `session` (a context without one does not match).
    pub fn session(mut self, session: impl Into<Arc<str>>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// The deadline per event when no `timeout` is set (a hook kind's own defaults); an event
    /// not listed gets the engine's.
    pub fn default_timeouts(mut self, defaults: Vec<(Event, Duration)>) -> Self {
        self.default_timeouts = defaults;
        self
    }

    /// Runs only on contexts `gate` admits (a dialect's own matcher); others count as `filtered`.
    pub fn gate(mut self, gate: Arc<dyn Gate>) -> Self {
        self.gate = Some(gate);
        self
    }

    /// Lets the hook's own deadline stretch the chain's deadline of its events.
    pub fn outlasts_chain(mut self, outlasts: bool) -> Self {
        self.outlasts_chain = outlasts;
        self
    }

    /// Order inside the level, ascending (default 0).
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// Runs only on contexts the filter matches.
    pub fn filter(mut self, filter: HookFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Per-hook deadline (default: the engine's interceptor or approval deadline).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Extra attempts after a failure (default 0).
    pub fn retry(mut self, retry: u32) -> Self {
        self.retry = retry;
        self
    }

    /// Failure policy (default: `skip`, `deny` on `approve_tool`).
    pub fn on_error(mut self, on_error: OnError) -> Self {
        self.on_error = Some(on_error);
        self
    }

    /// Tools, besides those it injects in `pre_llm_request`, the hook may answer with `respond`
    /// (`*`: any).
    pub fn respond_tools(mut self, tools: Vec<String>) -> Self {
        self.respond_tools = tools;
        self
    }

    /// Also receives observer notifications of `kinds` (`*`, `all` or `""`: every kind; an empty
    /// list observes nothing, as in PicoClaw).
    pub fn observer(mut self, observer: Arc<dyn Observer>, kinds: Vec<String>) -> Self {
        self.observer = Some((observer, kinds));
        self
    }

    /// Registers the hook switched off (it stays listed; enable it by id).
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }
}

/// One registration as the registry keeps it.
#[derive(Debug)]
pub(crate) struct Registered {
    pub(crate) level: Level,
    pub(crate) name: Arc<str>,
    pub(crate) kind: Kind,
    pub(crate) events: Vec<Event>,
    pub(crate) hook: Arc<dyn Hook>,
    pub(crate) priority: i32,
    /// Declaration order across the whole registry.
    pub(crate) seq: u64,
    pub(crate) raw_filter: HookFilter,
    pub(crate) filter: CompiledFilter,
    pub(crate) timeout: Option<Duration>,
    pub(crate) retry: u32,
    pub(crate) on_error: Option<OnError>,
    pub(crate) respond_tools: Vec<String>,
    pub(crate) source: Option<SourceLocation>,
    /// Deadlines in force where a configured hook was loaded; `None` for in-process hooks.
    pub(crate) deadlines: Option<Deadlines>,
    pub(crate) enabled: bool,
    pub(crate) observer: Option<Arc<ObserverSlot>>,
    pub(crate) gate: Option<Arc<dyn Gate>>,
    pub(crate) outlasts_chain: bool,
    default_timeouts: Vec<(Event, Duration)>,
    pub(crate) session: Option<Arc<str>>,
    /// The effective sandbox of a configured hook's spec ([`crate::HookSpec::effective_sandbox`]).
    pub(crate) sandbox: Option<SandboxPolicy>,
    /// One bit per event ([`Event::index`]) on which the hook promised to change nothing
    /// ([`Hook::changes_nothing`], asked once here).
    read_only: u64,
    is_shut_down: AtomicBool,
}

/// What [`Registered::new`] needs besides the registration's own options.
#[derive(Debug)]
pub(crate) struct Origin {
    pub(crate) kind: Kind,
    pub(crate) source: Option<SourceLocation>,
    pub(crate) deadlines: Option<Deadlines>,
    /// The spec's effective sandbox; `None` for in-process hooks.
    pub(crate) sandbox: Option<SandboxPolicy>,
}

impl Registered {
    pub(crate) fn new(
        registration: Registration,
        origin: Origin,
        seq: u64,
        engine_deadlines: Deadlines,
        queue: usize,
        metrics: &MetricsStore,
    ) -> Result<Self, String> {
        let filter = CompiledFilter::compile(&registration.filter).map_err(|err| err.to_string())?;
        let name: Arc<str> = registration.name.into();
        let observer = registration.observer.and_then(|(observer, kinds)| {
            let deadline = origin.deadlines.unwrap_or(engine_deadlines).observer;
            ObserverSlot::new(
                registration.level,
                &name,
                &registration.events,
                observer,
                &kinds,
                deadline,
                queue,
                metrics,
            )
            .map(Arc::new)
        });
        let read_only = registration
            .events
            .iter()
            .filter(|event| registration.hook.changes_nothing(**event))
            .fold(0u64, |mask, event| mask | 1 << event.index());
        Ok(Registered {
            level: registration.level,
            name,
            kind: origin.kind,
            events: registration.events,
            hook: registration.hook,
            priority: registration.priority,
            seq,
            raw_filter: registration.filter,
            filter,
            timeout: registration.timeout,
            retry: registration.retry,
            on_error: registration.on_error,
            respond_tools: registration.respond_tools,
            source: origin.source,
            deadlines: origin.deadlines,
            enabled: registration.enabled,
            observer,
            gate: registration.gate,
            outlasts_chain: registration.outlasts_chain,
            default_timeouts: registration.default_timeouts,
            session: registration.session,
            sandbox: origin.sandbox,
            read_only,
            is_shut_down: AtomicBool::new(false),
        })
    }

    /// Whether the hook promised to change nothing on `event` ([`Hook::changes_nothing`]).
    pub(crate) fn changes_nothing(&self, event: Event) -> bool {
        self.read_only & 1 << event.index() != 0
    }

    /// Calls [`Hook::shutdown`] unless it was already called.
    pub(crate) async fn shutdown_once(&self) {
        if !self.is_shut_down.swap(true, Ordering::AcqRel) {
            self.hook.shutdown().await;
        }
    }

    /// The hook's own deadline on `event`, before the chain's deadline bounds it.
    pub(crate) fn deadline_on(&self, event: Event, engine: &Deadlines) -> Duration {
        self.timeout.unwrap_or_else(|| match self.default_timeouts.iter().find(|(e, _)| *e == event) {
            Some((_, timeout)) => *timeout,
            None => self.deadlines.as_ref().unwrap_or(engine).for_event(event),
        })
    }

    /// The failure policy on `event`: as configured, else `deny` for approvals and `skip` otherwise.
    pub(crate) fn on_error_on(&self, event: Event) -> OnError {
        self.on_error.unwrap_or_else(|| default_on_error(event))
    }

    /// Whether it may `respond` for `tool` without having injected it.
    pub(crate) fn lists_respond_tool(&self, tool: &str) -> bool {
        self.respond_tools.iter().any(|t| t == "*" || t == tool)
    }
}

/// One hook on one event, in a snapshot.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) id: HookId,
    pub(crate) reg: Arc<Registered>,
    pub(crate) enabled: bool,
    pub(crate) metrics: Arc<MetricCells>,
}

/// What one fire reads: immutable, so registering or removing hooks never affects a fire in flight.
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// Entries per event (by [`Event::index`]), in run order.
    pub(crate) by_event: [Vec<Arc<Entry>>; Event::ALL.len()],
    pub(crate) observers: Vec<Arc<ObserverSlot>>,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot { by_event: std::array::from_fn(|_| Vec::new()), observers: Vec::new() }
    }
}

/// A hook as [`crate::Engine::hooks_for`] lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookSummary {
    /// Stable id.
    pub id: HookId,
    /// Level.
    pub level: Level,
    /// Name.
    pub name: String,
    /// Executor kind ([`Kind::IN_PROCESS`] for registered Rust hooks).
    pub kind: Kind,
    /// Order inside the level.
    pub priority: i32,
    /// The filter as configured.
    pub filter: HookFilter,
    /// Effective deadline (before the chain deadline bounds it).
    pub timeout: Duration,
    /// Extra attempts after a failure.
    pub retry: u32,
    /// Effective failure policy.
    pub on_error: OnError,
    /// Whether it runs.
    pub enabled: bool,
    /// Where it was declared, for configured hooks.
    pub source: Option<SourceLocation>,
    /// The sandbox policy its spec asks for ([`crate::HookSpec::effective_sandbox`]), for
    /// configured hooks; `None`: unconfined, or in-process. Whether the kernel can enforce it,
    /// and whether its kind starts a process at all, is for the reader to work out (the decision
    /// store describes it per run without running anything).
    pub sandbox: Option<SandboxPolicy>,
}

#[derive(Debug, Default)]
struct State {
    regs: Vec<Arc<Registered>>,
    next_seq: u64,
    /// `set_enabled` decisions, kept across reloads.
    overrides: HashMap<HookId, bool>,
}

/// Registrations plus the current snapshot.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    state: Mutex<State>,
    snapshot: RwLock<Arc<Snapshot>>,
    /// Bit `event.index()` is set when the snapshot has an entry on that event: the no-hook fast path.
    /// Bit `i` set: event `Event::ALL[i]` has entries (one bit per event, so at most 64 events).
    event_mask: AtomicU64,
}

impl Registry {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether any hook (enabled or not) is registered on `event`. Never allocates.
    pub(crate) fn has_entries(&self, event: Event) -> bool {
        self.event_mask.load(Ordering::Acquire) & (1u64 << event.index()) != 0
    }

    /// The current snapshot.
    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// Allocates the next declaration sequence numbers.
    pub(crate) fn reserve_seq(&self, n: usize) -> u64 {
        let mut state = self.state();
        let first = state.next_seq;
        state.next_seq += n as u64;
        first
    }

    /// Adds `reg`, replacing a registration of the same level and name; returns the replaced one.
    pub(crate) fn insert(&self, reg: Arc<Registered>, metrics: &MetricsStore) -> Option<Arc<Registered>> {
        let mut state = self.state();
        let old_idx = state.regs.iter().position(|r| r.level == reg.level && r.name == reg.name);
        let old = old_idx.map(|idx| state.regs.remove(idx));
        state.regs.push(reg);
        self.publish(&state, metrics);
        old
    }

    /// Removes the registration `level`/`name`.
    pub(crate) fn remove(&self, level: Level, name: &str, metrics: &MetricsStore) -> Option<Arc<Registered>> {
        let mut state = self.state();
        let idx = state.regs.iter().position(|r| r.level == level && &*r.name == name)?;
        let old = state.regs.remove(idx);
        self.publish(&state, metrics);
        Some(old)
    }

    /// Replaces every registration of `level` by `new`; returns the old ones.
    pub(crate) fn replace_level(
        &self,
        level: Level,
        new: Vec<Arc<Registered>>,
        metrics: &MetricsStore,
    ) -> Vec<Arc<Registered>> {
        let mut state = self.state();
        let (old, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut state.regs).into_iter().partition(|r| r.level == level);
        state.regs = kept;
        state.regs.extend(new);
        self.publish(&state, metrics);
        old
    }

    /// Removes everything; returns what was registered.
    pub(crate) fn clear(&self, metrics: &MetricsStore) -> Vec<Arc<Registered>> {
        let mut state = self.state();
        let old = std::mem::take(&mut state.regs);
        self.publish(&state, metrics);
        old
    }

    /// Whether a current registration's hook satisfies `is_it`.
    pub(crate) fn holds_hook(&self, is_it: impl Fn(&Arc<dyn Hook>) -> bool) -> bool {
        self.state().regs.iter().any(|reg| is_it(&reg.hook))
    }

    /// Switches `id` on or off; `false` when no registration has that id.
    pub(crate) fn set_enabled(&self, id: &HookId, enabled: bool, metrics: &MetricsStore) -> bool {
        let mut state = self.state();
        let exists = state.regs.iter().any(|r| r.events.iter().any(|e| HookId::new(r.level, &r.name, *e) == *id));
        if !exists {
            return false;
        }
        state.overrides.insert(id.clone(), enabled);
        self.publish(&state, metrics);
        true
    }

    /// Builds and swaps in the snapshot of `state`.
    fn publish(&self, state: &State, metrics: &MetricsStore) {
        let mut snapshot = Snapshot::default();
        let mut ordered: Vec<&Arc<Registered>> = state.regs.iter().collect();
        ordered.sort_by_key(|r| (r.level, r.priority, r.seq));
        for reg in ordered {
            for event in &reg.events {
                let id = HookId::new(reg.level, &reg.name, *event);
                let enabled = state.overrides.get(&id).copied().unwrap_or(reg.enabled);
                let metrics = metrics.cells(&id);
                snapshot.by_event[event.index()].push(Arc::new(Entry { id, reg: reg.clone(), enabled, metrics }));
            }
            if let Some(slot) = &reg.observer {
                snapshot.observers.push(slot.clone());
            }
        }
        let mask = snapshot
            .by_event
            .iter()
            .enumerate()
            .filter(|(_, entries)| !entries.is_empty())
            .fold(0u64, |mask, (idx, _)| mask | (1u64 << idx));
        *self.snapshot.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(snapshot);
        self.event_mask.store(mask, Ordering::Release);
    }
}
