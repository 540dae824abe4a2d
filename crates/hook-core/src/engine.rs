//! The engine: the handle hosts hold. Registers hooks, reloads levels, fires events and fans out
//! observer notifications; every clone shares one registry and one set of metrics.

use std::{
    collections::HashSet,
    fmt,
    sync::Arc,
    time::{Duration, Instant},
};

use hook_protocol::{Context, Event};
use tracing::{Instrument, debug, debug_span, warn};

use crate::{
    BuildError, BuiltHook, CompiledFilter, Deadlines, FireOutcome, HookFactory, HookId, HookMetrics, HookSpec,
    HookSummary, Kind, Level, ObserverEvent, Registration, SourceLocation,
    chain::{self, ChainEnv, InjectedTools, join_all},
    metrics::MetricsStore,
    registry::{Origin, Registered, Registry},
};

/// The default capacity of each observer's queue.
const DEFAULT_OBSERVER_QUEUE: usize = 64;

/// A hook that could not be loaded: which one, where it was declared, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// The hook's name.
    pub hook: String,
    /// Where it was declared (empty file for in-process registrations).
    pub location: SourceLocation,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.location.file.as_os_str().is_empty() {
            write!(f, "{}: ", self.location)?;
        }
        write!(f, "hook `{}`: {}", self.hook, self.message)
    }
}

impl std::error::Error for LoadError {}

/// Builds an [`Engine`].
#[derive(Debug, Clone)]
pub struct EngineBuilder {
    factories: Vec<Arc<dyn HookFactory>>,
    deadlines: Deadlines,
    observer_queue: usize,
}

impl EngineBuilder {
    /// Adds the factory for its kind; a later factory of the same kind replaces an earlier one.
    pub fn factory(mut self, factory: Arc<dyn HookFactory>) -> Self {
        self.factories.retain(|f| f.kind() != factory.kind());
        self.factories.push(factory);
        self
    }

    /// Default deadlines (per kind, approval, observer, chain).
    pub fn deadlines(mut self, deadlines: Deadlines) -> Self {
        self.deadlines = deadlines;
        self
    }

    /// Capacity of each observer's queue (default 64); notifications beyond it are dropped and counted.
    pub fn observer_queue(mut self, capacity: usize) -> Self {
        self.observer_queue = capacity.max(1);
        self
    }

    /// The engine.
    pub fn build(self) -> Engine {
        Engine {
            inner: Arc::new(Inner {
                factories: self.factories,
                deadlines: self.deadlines,
                observer_queue: self.observer_queue,
                registry: Registry::default(),
                metrics: MetricsStore::default(),
                injected: InjectedTools::default(),
            }),
        }
    }
}

/// The hook engine. Cheap to clone; clones share the registry and the metrics.
#[derive(Clone, Debug)]
pub struct Engine {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    factories: Vec<Arc<dyn HookFactory>>,
    deadlines: Deadlines,
    observer_queue: usize,
    registry: Registry,
    metrics: MetricsStore,
    injected: InjectedTools,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::builder().build()
    }
}

impl Engine {
    /// A builder with no factories and the default deadlines.
    pub fn builder() -> EngineBuilder {
        EngineBuilder { factories: Vec::new(), deadlines: Deadlines::default(), observer_queue: DEFAULT_OBSERVER_QUEUE }
    }

    /// The default deadlines.
    pub fn deadlines(&self) -> Deadlines {
        self.inner.deadlines
    }

    /// The factory of `kind`, if the engine has one.
    pub fn factory(&self, kind: &str) -> Option<Arc<dyn HookFactory>> {
        self.inner.factories.iter().find(|f| f.kind() == kind).cloned()
    }

    /// The kinds a factory is registered for, sorted.
    pub fn factory_kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = self.inner.factories.iter().map(|f| f.kind().to_owned()).collect();
        kinds.sort();
        kinds
    }

    /// Registers an in-process hook; one id per event. A hook of the same level and name is
    /// replaced. A registration whose filter does not compile is refused (logged; no ids): use
    /// [`Engine::try_register`] to get the error.
    pub fn register(&self, registration: Registration) -> Vec<HookId> {
        match self.try_register(registration) {
            Ok(ids) => ids,
            Err(err) => {
                warn!(error = %err, "hook registration refused");
                Vec::new()
            }
        }
    }

    /// Like [`Engine::register`], returning why a registration was refused.
    pub fn try_register(&self, registration: Registration) -> Result<Vec<HookId>, LoadError> {
        let (level, name) = (registration.level, registration.name.clone());
        let ids: Vec<HookId> = registration.events.iter().map(|e| HookId::new(level, &name, *e)).collect();
        let origin = Origin { kind: Kind::IN_PROCESS, source: None, deadlines: None, sandbox: None };
        let inner = &self.inner;
        let seq = inner.registry.reserve_seq(1);
        let reg = Registered::new(registration, origin, seq, inner.deadlines, inner.observer_queue, &inner.metrics)
            .map_err(|message| LoadError { hook: name.clone(), location: SourceLocation::default(), message })?;
        let replaced = inner.registry.insert(Arc::new(reg), &inner.metrics);
        inner.injected.forget(|l, n| l == level && n == name);
        if let Some(old) = replaced {
            self.retire_later(vec![old]);
        }
        debug!(hook = %name, level = %level, "hook registered");
        Ok(ids)
    }

    /// Builds `spec` with the factory of its kind and registers it for session `session` only:
    /// it runs only on events whose context carries that `session_id` (a hook the model
    /// registered during a session). A hook of the same level and name is replaced. The factory
    /// applies its level's policy (a bash hook at [`Level::Session`] runs with a scrubbed
    /// environment), and the spec's `timeout`, `retry` and `on_error` default as in
    /// [`Engine::replace_level`]. A spec whose filter does not compile, whose kind has no
    /// factory, or that its factory refuses is not registered, and the error says why.
    pub async fn register_spec(&self, mut spec: HookSpec, session: &str) -> Result<Vec<HookId>, LoadError> {
        spec.session = Some(session.to_owned());
        let inner = &self.inner;
        let factory = self.buildable(&spec).map_err(|message| load_error(&spec, message))?;
        let built = factory.build(&spec).await.map_err(|err| load_error(&spec, build_failed(&spec, &err)))?;
        let seq = inner.registry.reserve_seq(1);
        let reg = match self.registered(&spec, &built, factory.as_ref(), seq) {
            Ok(reg) => reg,
            Err(message) => {
                if !inner.registry.holds_hook(|live| same_hook(live, &built.hook)) {
                    built.hook.shutdown().await;
                }
                return Err(load_error(&spec, message));
            }
        };
        let (level, name) = (spec.level, spec.name.as_str());
        let ids = spec.events.iter().map(|event| HookId::new(level, name, *event)).collect();
        let replaced = inner.registry.insert(Arc::new(reg), &inner.metrics);
        inner.injected.forget(|l, n| l == level && n == name);
        if let Some(old) = replaced {
            self.retire_later(vec![old]);
        }
        debug!(hook = %name, level = %level, session, "session hook registered");
        Ok(ids)
    }

    /// The factory that will build `spec`, once its filter compiles; else what is wrong.
    fn buildable(&self, spec: &HookSpec) -> Result<&Arc<dyn HookFactory>, String> {
        CompiledFilter::compile(&spec.filter).map_err(|err| err.to_string())?;
        self.factory_for(spec.kind.as_str())
    }

    /// `built` (from `spec`, by `factory`) as a registration with sequence number `seq`.
    fn registered(
        &self,
        spec: &HookSpec,
        built: &BuiltHook,
        factory: &dyn HookFactory,
        seq: u64,
    ) -> Result<Registered, String> {
        let inner = &self.inner;
        let registration = registration_of(spec, built, factory);
        let origin = Origin {
            kind: spec.kind.clone(),
            source: Some(spec.source.clone()),
            deadlines: Some(spec.deadlines),
            sandbox: spec.effective_sandbox(),
        };
        Registered::new(registration, origin, seq, inner.deadlines, inner.observer_queue, &inner.metrics)
    }

    /// The factory of `kind`, or an error naming the kinds this engine can build.
    fn factory_for(&self, kind: &str) -> Result<&Arc<dyn HookFactory>, String> {
        self.inner.factories.iter().find(|f| f.kind() == kind).ok_or_else(|| {
            let kinds = self.factory_kinds();
            let known = if kinds.is_empty() { "none".to_owned() } else { kinds.join(", ") };
            format!("unknown hook kind `{kind}`; the kinds this host can run are: {known}")
        })
    }

    /// Removes hook `name` at `level` from every event; `false` when there is none.
    pub fn unregister(&self, level: Level, name: &str) -> bool {
        let inner = &self.inner;
        let Some(old) = inner.registry.remove(level, name, &inner.metrics) else { return false };
        inner.injected.forget(|l, n| l == level && n == name);
        self.retire_later(vec![old]);
        true
    }

    /// Hot reload: builds every spec first; if any fails, shuts down what was built, keeps the
    /// old level and returns every error. Otherwise swaps the level in atomically, waits for the
    /// fires still running on the old hooks (at most the chain deadline) and shuts those down.
    pub async fn replace_level(&self, level: Level, specs: Vec<HookSpec>) -> Result<Vec<HookId>, Vec<LoadError>> {
        let inner = &self.inner;
        let mut errors: Vec<LoadError> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut buildable: Vec<(&HookSpec, &Arc<dyn HookFactory>)> = Vec::new();
        for spec in &specs {
            let error = |message: String| load_error(spec, message);
            if !seen.insert(spec.name.as_str()) {
                errors.push(error(format!("another hook at level {level} has this name; rename one of them")));
                continue;
            }
            if spec.level != level {
                errors.push(error(format!(
                    "the hook was loaded at level {} but is being installed at level {level}",
                    spec.level
                )));
                continue;
            }
            match self.buildable(spec) {
                Ok(factory) => buildable.push((spec, factory)),
                Err(message) => errors.push(error(message)),
            }
        }
        let builds = join_all(buildable.iter().map(|(spec, factory)| factory.build(spec)).collect()).await;
        let mut built: Vec<(&HookSpec, BuiltHook, &Arc<dyn HookFactory>)> = Vec::new();
        for ((spec, factory), result) in buildable.iter().zip(builds) {
            match result {
                Ok(hook) => built.push((spec, hook, factory)),
                Err(err) => errors.push(load_error(spec, build_failed(spec, &err))),
            }
        }

        let mut new: Vec<Arc<Registered>> = Vec::new();
        let mut ids: Vec<HookId> = Vec::new();
        if errors.is_empty() {
            let first_seq = inner.registry.reserve_seq(built.len());
            for (offset, (spec, hook, factory)) in built.iter().enumerate() {
                match self.registered(spec, hook, factory.as_ref(), first_seq + offset as u64) {
                    Ok(reg) => {
                        ids.extend(spec.events.iter().map(|e| HookId::new(level, &spec.name, *e)));
                        new.push(Arc::new(reg));
                    }
                    Err(message) => errors.push(load_error(spec, message)),
                }
            }
        }
        if !errors.is_empty() {
            warn!(level = %level, n_errors = errors.len(), "reload refused; the old hooks stay");
            drop(new);
            let unused = built.iter().filter(|(_, b, _)| !inner.registry.holds_hook(|live| same_hook(live, &b.hook)));
            join_all(unused.map(|(_, b, _)| b.hook.shutdown()).collect()).await;
            return Err(errors);
        }

        let old = inner.registry.replace_level(level, new, &inner.metrics);
        inner.injected.forget(|l, _| l == level);
        debug!(level = %level, n_hooks = ids.len(), n_replaced = old.len(), "level replaced");
        retire(inner, old).await;
        Ok(ids)
    }

    /// Switches hook `id` on or off (that event only); `false` when no hook has that id.
    pub fn set_enabled(&self, id: &HookId, enabled: bool) -> bool {
        self.inner.registry.set_enabled(id, enabled, &self.inner.metrics)
    }

    /// Whether an enabled hook is registered on `event`. Never allocates.
    pub fn has_hooks_for(&self, event: Event) -> bool {
        self.inner.registry.has_entries(event)
            && self.inner.registry.snapshot().by_event[event.index()].iter().any(|entry| entry.enabled)
    }

    /// The hooks registered on `event`, in run order.
    pub fn hooks_for(&self, event: Event) -> Vec<HookSummary> {
        let snapshot = self.inner.registry.snapshot();
        snapshot.by_event[event.index()]
            .iter()
            .map(|entry| {
                let reg = &entry.reg;
                HookSummary {
                    id: entry.id.clone(),
                    level: reg.level,
                    name: reg.name.to_string(),
                    kind: reg.kind.clone(),
                    priority: reg.priority,
                    filter: reg.raw_filter.clone(),
                    timeout: reg.deadline_on(event, &self.inner.deadlines).min(self.inner.deadlines.chain),
                    retry: reg.retry,
                    on_error: reg.on_error_on(event),
                    enabled: entry.enabled,
                    source: reg.source.clone(),
                    sandbox: reg.sandbox.clone(),
                }
            })
            .collect()
    }

    /// Runs the chain of `event` over `context` (which the hooks' changes are written into).
    /// An event with no registered hook returns at once, allocating nothing.
    pub async fn fire(&self, event: Event, context: &mut Context) -> FireOutcome {
        if !self.inner.registry.has_entries(event) {
            return FireOutcome::empty(event);
        }
        // Boxed so the future of `fire` stays small: the no-hook path never moves the chain's state.
        Box::pin(self.fire_chain(event, context)).await
    }

    async fn fire_chain(&self, event: Event, context: &mut Context) -> FireOutcome {
        let inner = &self.inner;
        let snapshot = inner.registry.snapshot();
        let entries = &snapshot.by_event[event.index()];
        if entries.is_empty() {
            return FireOutcome::empty(event);
        }
        let env = ChainEnv { deadlines: &inner.deadlines, injected: &inner.injected };
        let span = debug_span!("fire", event = %event);
        // Wrapping the chain moves its future and its outcome once more: skip that when no
        // subscriber wants the span.
        if span.is_disabled() {
            chain::run(env, entries, event, context).await
        } else {
            chain::run(env, entries, event, context).instrument(span).await
        }
    }

    /// Queues an observer notification for every observer of its kind; never waits.
    pub fn notify(&self, event: ObserverEvent) {
        let snapshot = self.inner.registry.snapshot();
        if snapshot.observers.is_empty() {
            return;
        }
        let event = Arc::new(event);
        for slot in &snapshot.observers {
            slot.offer(&event);
        }
    }

    /// Counters per hook id (observers included: notifications delivered and dropped), sorted by id.
    pub fn metrics(&self) -> Vec<(HookId, HookMetrics)> {
        self.inner.metrics.read()
    }

    /// Removes every hook and calls each one's `shutdown` once, after the fires still running on
    /// it are over (at most the chain deadline).
    pub async fn shutdown(&self) {
        let old = self.inner.registry.clear(&self.inner.metrics);
        self.inner.injected.forget(|_, _| true);
        retire(&self.inner, old).await;
    }

    /// Retires replaced or removed hooks in the background (sync callers cannot wait).
    fn retire_later(&self, old: Vec<Arc<Registered>>) {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let inner = self.inner.clone();
                runtime.spawn(async move { retire(&inner, old).await });
            }
            Err(_) => debug!("no tokio runtime: a removed hook's shutdown is not called"),
        }
    }
}

/// An error loading `spec`: its name and where it was declared, with `message`.
fn load_error(spec: &HookSpec, message: String) -> LoadError {
    LoadError { hook: spec.name.clone(), location: spec.source.clone(), message }
}

/// What a factory's refusal to build `spec` says.
fn build_failed(spec: &HookSpec, err: &BuildError) -> String {
    format!("could not build the {} hook: {err}", spec.kind)
}

/// The registration of a built spec; what the configuration leaves open, `factory` decides.
fn registration_of(spec: &HookSpec, built: &BuiltHook, factory: &dyn HookFactory) -> Registration {
    let defaults = spec.events.iter().map(|event| (*event, factory.default_timeout(*event, &spec.deadlines))).collect();
    let mut registration =
        Registration::new(spec.name.clone(), spec.level, spec.events.iter().copied(), built.hook.clone())
            .priority(spec.priority)
            .filter(spec.filter.clone())
            .retry(spec.effective_retry(Some(factory)))
            .respond_tools(spec.respond_tools.clone())
            .enabled(spec.enabled)
            .outlasts_chain(built.outlasts_chain)
            .default_timeouts(defaults);
    if let Some(gate) = &built.gate {
        registration = registration.gate(gate.clone());
    }
    if let Some(session) = &spec.session {
        registration = registration.session(session.as_str());
    }
    if let Some(timeout) = spec.timeout {
        registration = registration.timeout(timeout);
    }
    if let Some(on_error) = spec.on_error {
        registration = registration.on_error(on_error);
    }
    if let Some(observer) = &built.observer {
        registration = registration.observer(observer.clone(), factory.observed_kinds(spec));
    }
    registration
}

/// Waits until no fire holds the hooks of `old` any more (bounded by the chain deadline plus a
/// second), then shuts each hook down once. A hook object still registered elsewhere (the same
/// `Arc` re-registered, or handed out again by a factory) stays running.
async fn retire(inner: &Inner, old: Vec<Arc<Registered>>) {
    let until = Instant::now() + inner.deadlines.chain + Duration::from_secs(1);
    while old.iter().any(|reg| Arc::strong_count(reg) > 1) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut retiring: Vec<&Arc<Registered>> = Vec::new();
    for reg in &old {
        let is_duplicate = retiring.iter().any(|r| same_hook(&r.hook, &reg.hook));
        if !is_duplicate && !inner.registry.holds_hook(|live| same_hook(live, &reg.hook)) {
            retiring.push(reg);
        }
    }
    // Queued notifications go out before their hook shuts down, within a few observer deadlines
    // and never more than 2 s.
    let grace = (inner.deadlines.observer * 4).min(Duration::from_secs(2));
    join_all(retiring.iter().filter_map(|reg| reg.observer.as_ref()).map(|slot| slot.close(grace)).collect()).await;
    join_all(retiring.iter().map(|reg| reg.shutdown_once()).collect()).await;
}

/// Whether two handles point at the same hook object (data pointer only: vtables may differ).
fn same_hook(a: &Arc<dyn crate::Hook>, b: &Arc<dyn crate::Hook>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}
