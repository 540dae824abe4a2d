//! `ProcessHook`: a supervised hook process (handshake, restart with backoff, shutdown), the
//! observer that feeds it `hook.event`, and the factory that builds both from a `HookSpec`.

use std::{
    collections::{BTreeSet, VecDeque},
    fmt,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use async_trait::async_trait;
use hook_core::{
    BuildError, BuiltHook, Hook, HookDefinition, HookError, HookFactory, HookInput, HookOutput, HookSpec, Observer,
    ObserverEvent, fmt_duration,
};
use hook_protocol::{
    Event, from_json_value,
    picoclaw::{EventParams, HISTORY_RESYNC_CODE, HelloParams, HelloResult, Mode, PROTOCOL_VERSION, method},
    serde_json::{self, Value},
};
use tokio::sync::{oneshot, watch};

use crate::{
    ProcessOptions,
    conn::{Answer, Conn, Reply, SpawnConfig},
    extensions::{self, Negotiated},
    mapping,
    outbox::Chunk,
};

/// A process incarnation that completed its handshake, the modes it accepted and the
/// extensions it opted in to (with the history it acknowledged: a restart starts afresh).
#[derive(Debug)]
struct Live {
    conn: Arc<Conn>,
    modes: Vec<Mode>,
    ext: Option<Negotiated>,
}

impl Live {
    /// The methods this incarnation promised to change nothing on, sorted.
    fn read_only(&self) -> Vec<&'static str> {
        self.ext.as_ref().map(Negotiated::read_only).unwrap_or_default()
    }
}

/// The supervisor's view of the process, published to callers.
#[derive(Debug, Clone)]
enum Slot {
    /// Answering calls.
    Running(Arc<Live>),
    /// Waiting for the backoff or redoing the handshake after a crash.
    Restarting,
    /// Crashed too often; every call fails with this error.
    Failed(HookError),
    /// Shut down.
    Stopped,
}

type StopRequest = oneshot::Sender<()>;

/// State shared by the hook and its observer. Dropping the last handle shuts the process down.
#[derive(Debug)]
struct Shared {
    name: Arc<str>,
    slot: watch::Receiver<Slot>,
    stop: Mutex<Option<oneshot::Sender<StopRequest>>>,
    /// `None`: every kind; otherwise the kinds observed.
    observe_kinds: Option<BTreeSet<String>>,
    /// The methods the process promised to change nothing on, in its first handshake.
    read_only: Vec<&'static str>,
}

impl Shared {
    /// The running incarnation, waiting (until `deadline`) while a restart is in progress.
    async fn live(&self, deadline: Instant) -> Result<Arc<Live>, HookError> {
        let started = Instant::now();
        let mut slot = self.slot.clone();
        loop {
            let current = slot.borrow_and_update().clone();
            match current {
                Slot::Running(live) if !live.conn.is_closed() => return Ok(live),
                Slot::Failed(error) => return Err(error),
                Slot::Stopped => {
                    return Err(HookError::Unavailable { message: format!("hook `{}` was shut down", self.name) });
                }
                Slot::Running(_) | Slot::Restarting => {}
            }
            match tokio::time::timeout_at(deadline.into(), slot.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => {
                    return Err(HookError::Unavailable { message: format!("hook `{}` was shut down", self.name) });
                }
                Err(_) => return Err(HookError::Timeout { after: deadline.saturating_duration_since(started) }),
            }
        }
    }

    async fn shutdown(&self) {
        let stop = self.stop.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(stop) = stop {
            let (ack_tx, ack_rx) = oneshot::channel();
            if stop.send(ack_tx).is_ok() {
                let _ = ack_rx.await;
            }
        } else {
            // Already shutting down: wait until it is over.
            let mut slot = self.slot.clone();
            let _ = slot.wait_for(|s| matches!(s, Slot::Stopped | Slot::Failed(_))).await;
        }
    }
}

/// A PicoClaw process hook: one long-lived child answering JSON-RPC over its stdin/stdout.
///
/// Built by [`ProcessFactory`] (or [`ProcessHook::start`]); see the crate docs for the protocol.
pub struct ProcessHook {
    shared: Arc<Shared>,
}

impl fmt::Debug for ProcessHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessHook").field("name", &self.shared.name).finish_non_exhaustive()
    }
}

/// Feeds observer notifications to a [`ProcessHook`]'s process as `hook.event`.
pub struct ProcessObserver {
    shared: Arc<Shared>,
}

impl fmt::Debug for ProcessObserver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessObserver").field("name", &self.shared.name).finish_non_exhaustive()
    }
}

/// A configured-off process hook: no process, every call changes nothing.
#[derive(Debug)]
struct DisabledHook;

#[async_trait]
impl Hook for DisabledHook {
    async fn call(&self, _input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        Ok(HookOutput::default())
    }
}

/// Normalises an observe entry: `agent.tool.exec_end` → `tool_exec_end`.
fn observer_kind(entry: &str) -> String {
    entry.trim().strip_prefix("agent.").unwrap_or(entry.trim()).replace('.', "_")
}

impl ProcessHook {
    /// Spawns the process of `spec` and completes its handshake.
    pub async fn start(
        spec: &HookSpec,
        options: ProcessOptions,
    ) -> Result<(Arc<ProcessHook>, Option<Arc<ProcessObserver>>), BuildError> {
        let HookDefinition::Process(def) = &spec.definition else {
            return Err(BuildError::Invalid {
                message: format!("hook `{}` is not a process hook (kind `{}`)", spec.name, spec.kind),
            });
        };
        match def.transport.as_deref() {
            None | Some("") | Some("stdio") => {}
            Some(other) => {
                return Err(BuildError::Invalid {
                    message: format!("hook `{}`: unsupported transport `{other}`; only `stdio` exists", spec.name),
                });
            }
        }
        let observe = def.observe.clone().unwrap_or_default();
        let observe_kinds = if observe.iter().any(|k| matches!(k.trim(), "" | "*" | "all")) {
            None
        } else {
            Some(observe.iter().map(|k| observer_kind(k)).collect::<BTreeSet<_>>())
        };
        let observes = !observe.is_empty();
        let name: Arc<str> = spec.name.as_str().into();
        let mut env = spec.env.clone();
        env.extend(def.env.clone().unwrap_or_default());
        let (dir, command) = resolve(spec.work_dir.as_deref(), def.dir.as_deref(), &def.command);
        let config = SpawnConfig { name: name.clone(), command, dir, env, options, sandbox: spec.effective_sandbox() };
        let offered = mapping::modes_for(&spec.events, observes);
        let hello = serde_json::to_vec(&HelloParams {
            name: spec.name.clone(),
            version: PROTOCOL_VERSION,
            modes: offered.clone(),
            hookwire: Some(extensions::offer()),
        })
        .unwrap_or_default();
        let handshake = spec.deadlines.handshake;
        let live = start_once(&config, &hello, &offered, handshake).await?;
        let read_only = live.read_only();

        let (slot_tx, slot_rx) = watch::channel(Slot::Running(live.clone()));
        let (stop_tx, stop_rx) = oneshot::channel();
        let trust = spec.trust.clone();
        let supervisor =
            Supervisor { config, hello, offered, handshake, slot: slot_tx, trust, read_only: read_only.clone() };
        tokio::spawn(supervisor.run(live, stop_rx));
        let shared =
            Arc::new(Shared { name, slot: slot_rx, stop: Mutex::new(Some(stop_tx)), observe_kinds, read_only });
        let observer = observes.then(|| Arc::new(ProcessObserver { shared: shared.clone() }));
        Ok((Arc::new(ProcessHook { shared }), observer))
    }

    /// The hook's name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The process id of the running process (also its process group id), if one is running.
    pub fn pid(&self) -> Option<u32> {
        match &*self.shared.slot.borrow() {
            Slot::Running(live) if !live.conn.is_closed() => Some(live.conn.pid()),
            _ => None,
        }
    }

    /// The modes the running process accepted in its handshake.
    pub fn modes(&self) -> Vec<Mode> {
        match &*self.shared.slot.borrow() {
            Slot::Running(live) => live.modes.clone(),
            _ => Vec::new(),
        }
    }

    /// Waits (until `deadline`) for a running process: e.g. for a restart to complete.
    pub async fn wait_running(&self, deadline: Instant) -> Result<u32, HookError> {
        self.shared.live(deadline).await.map(|live| live.conn.pid())
    }
}

impl ProcessHook {
    /// Reads a reply of the hook.
    fn answer(&self, input: &HookInput<'_>, reply: Reply) -> Result<HookOutput, HookError> {
        match reply {
            Reply::Result(answer) => mapping::answer(&self.shared.name, input, answer),
            Reply::Error(error) => Err(HookError::ErrorResponse { code: Some(error.code), message: error.message }),
            Reply::Failed(error) => Err(error),
        }
    }
}

#[async_trait]
impl Hook for ProcessHook {
    /// As the process promised in its first handshake (`hookwire.read_only`). A restarted
    /// process that promises otherwise is not run (see the supervisor).
    fn changes_nothing(&self, event: Event) -> bool {
        let (method, _) = mapping::route(event);
        self.shared.read_only.contains(&method)
    }

    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let (method, mode) = mapping::route(input.event);
        let live = self.shared.live(input.deadline).await?;
        if let Some(mode) = mode
            && !live.modes.contains(&mode)
        {
            // The hook narrowed its modes in the handshake: this event is not sent.
            return Ok(HookOutput::default());
        }
        let ext = live.ext.as_ref();
        let delta = ext.filter(|e| input.event == Event::PreLlmRequest && e.delta_messages());
        let Some(ext) = delta else {
            let chunks = mapping::params_chunks(input, ext.and_then(|e| e.selection(method)));
            return self.answer(input, live.conn.call(method, chunks, input.deadline).await?);
        };
        let params = mapping::params(input, ext.selection(method), ext.delta_key());
        // The history as a delta against what the hook acknowledged; when it cannot apply it,
        // the same call goes again with the whole history.
        let messages = input.context.messages.as_deref().unwrap_or_default();
        let hashes = input.serialized("picoclaw.message_hashes", |_, _| extensions::message_hashes(messages));
        let mut resent = false;
        loop {
            let delta = ext.begin(&hashes, resent);
            // Dropped before its reply (the chain was cut or cancelled), the call may or may not
            // have been applied: the next one resends the whole history.
            let in_flight = InFlight { ext, version: delta.version, settled: false };
            let sent = if delta.base.is_none() {
                Chunk::Shared(input.serialized("picoclaw.messages", |_, _| mapping::to_bytes(&messages)), 0)
            } else {
                let keep = usize::try_from(delta.keep).unwrap_or(usize::MAX).min(messages.len());
                Chunk::Owned(mapping::to_bytes(&&messages[keep..]))
            };
            let reply = live.conn.call(method, extensions::delta_params(delta, sent, &params), input.deadline).await;
            in_flight.settle();
            match reply {
                Ok(Reply::Result(answer)) => {
                    let result = answer.into_value();
                    ext.finish(delta.version, extensions::ack(&result));
                    return self.answer(input, Reply::Result(Answer::Value(result)));
                }
                Ok(Reply::Error(error)) if error.code == HISTORY_RESYNC_CODE && !resent => {
                    tracing::debug!(hook = %self.shared.name, "asked for the whole history: {}", error.message);
                    ext.forget(delta.version);
                    resent = true;
                }
                other => {
                    ext.forget(delta.version);
                    return self.answer(input, other?);
                }
            }
        }
    }

    async fn shutdown(&self) {
        self.shared.shutdown().await;
    }
}

/// A history-delta call between `begin` and its reply: dropped unsettled, it forgets the
/// acknowledged history.
struct InFlight<'a> {
    ext: &'a extensions::Negotiated,
    version: u64,
    settled: bool,
}

impl InFlight<'_> {
    /// The reply arrived: whoever reads it settles the version.
    fn settle(mut self) {
        self.settled = true;
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if !self.settled {
            self.ext.forget(self.version);
        }
    }
}

#[async_trait]
impl Observer for ProcessObserver {
    async fn observe(&self, event: &ObserverEvent) -> Result<(), HookError> {
        if let Some(kinds) = &self.shared.observe_kinds
            && !kinds.contains(&event.kind)
        {
            return Ok(());
        }
        let live = match &*self.shared.slot.borrow() {
            Slot::Running(live) => live.clone(),
            _ => {
                return Err(HookError::Unavailable {
                    message: format!("hook `{}` is not running; `{}` not delivered", self.shared.name, event.kind),
                });
            }
        };
        if !live.modes.contains(&Mode::Observe) {
            return Ok(());
        }
        let params = EventParams {
            kind: event.kind.clone(),
            meta: Some(event.meta.clone()),
            payload: (!event.payload.is_null()).then(|| event.payload.clone()),
        };
        let params = serde_json::to_vec(&params).unwrap_or_default();
        live.conn.notify(method::EVENT, params).await
    }
}

/// The working directory and command of a process hook: a relative `dir` is joined to
/// `base` (the config file's directory, [`HookSpec::work_dir`]), which is also the working
/// directory when there is no `dir`; a relative program path (`./plugin`) is made absolute
/// against that directory, so it never depends on the caller's working directory.
fn resolve(base: Option<&Path>, dir: Option<&str>, command: &[String]) -> (Option<PathBuf>, Vec<String>) {
    let dir = match (dir.map(PathBuf::from), base) {
        (Some(dir), Some(base)) if dir.is_relative() => Some(base.join(dir)),
        (Some(dir), _) => Some(dir),
        (None, base) => base.map(Path::to_path_buf),
    };
    let mut command = command.to_vec();
    if let (Some(program), Some(dir)) = (command.first_mut(), &dir)
        && program.contains('/')
        && Path::new(program.as_str()).is_relative()
    {
        *program = dir.join(program.as_str()).display().to_string();
    }
    (dir, command)
}

/// `text` with its control characters other than `\n` and `\t` escaped as Rust writes them
/// (`\u{1b}`, `\r`); C1 controls (`\u{9d}`, a one-byte OSC) included.
fn escape_controls(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Spawns once and completes the handshake.
async fn start_once(
    config: &SpawnConfig,
    hello: &[u8],
    offered: &[Mode],
    handshake: Duration,
) -> Result<Arc<Live>, BuildError> {
    let conn = Conn::spawn(config).map_err(BuildError::Start)?;
    let name = &config.name;
    // The reason is the hook's text and ends up on a terminal: its control characters are
    // escaped (`\u{1b}`), so a refusal cannot clear the screen or set the clipboard.
    let refuse = |reason: String| BuildError::Refused { reason: escape_controls(&reason) };
    let hello = vec![Chunk::Owned(hello.to_vec())];
    let mut ext = None;
    let outcome = match conn.call(method::HELLO, hello, Instant::now() + handshake).await {
        Err(HookError::Timeout { after }) => Err(BuildError::Start(HookError::Timeout { after })),
        Err(error) | Ok(Reply::Failed(error)) => Err(BuildError::Start(error)),
        Ok(Reply::Error(error)) => {
            Err(refuse(format!("hook `{name}` answered hook.hello with error {}: {}", error.code, error.message)))
        }
        Ok(Reply::Result(answer)) => match answer.into_value() {
            Value::Null => Ok(offered.to_vec()),
            raw @ Value::Object(_) => match from_json_value::<HelloResult>(raw) {
                Err(e) => Err(refuse(format!("hook `{name}` answered hook.hello with an unusable result: {e}"))),
                Ok(HelloResult { ok: Some(false), reason, message, .. }) => {
                    Err(refuse(reason.or(message).unwrap_or_else(|| {
                        format!("hook `{name}` answered hook.hello with `ok: false` and no reason")
                    })))
                }
                Ok(HelloResult { modes, hookwire, .. }) => {
                    match hookwire.filter(|h| !h.is_empty()).map(|h| Negotiated::from_opt_in(name, &h)).transpose() {
                        Err(message) => Err(refuse(message)),
                        Ok(negotiated) => {
                            ext = negotiated;
                            match modes {
                                Some(wanted) => {
                                    let extra: Vec<_> = wanted.iter().filter(|m| !offered.contains(m)).collect();
                                    if !extra.is_empty() {
                                        tracing::warn!(hook = %name, "hook.hello asked for modes it was not offered, ignored: {extra:?}");
                                    }
                                    Ok(offered.iter().copied().filter(|m| wanted.contains(m)).collect())
                                }
                                None => Ok(offered.to_vec()),
                            }
                        }
                    }
                }
            },
            other => Err(refuse(format!(
                "hook `{name}` answered hook.hello with {other}; the result must be a JSON object like {{\"ok\": true}}"
            ))),
        },
    };
    match outcome {
        Ok(modes) => Ok(Arc::new(Live { conn, modes, ext })),
        Err(error) => {
            // A hook that failed its handshake is not kept, not even for a graceful close.
            kill_now(&conn).await;
            Err(error)
        }
    }
}

async fn kill_now(conn: &Conn) {
    if conn.pid() > 1 {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(conn.pid() as i32), nix::sys::signal::SIGKILL);
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), conn.wait_closed()).await;
}

/// Restarts the process when it dies, with backoff; shuts it down when asked.
struct Supervisor {
    config: SpawnConfig,
    hello: Vec<u8>,
    offered: Vec<Mode>,
    handshake: Duration,
    slot: watch::Sender<Slot>,
    /// A trusted project's files: checked again before each restart, which runs them anew.
    trust: Option<hook_core::SpecGuard>,
    /// What the first handshake promised (`hookwire.read_only`): the chain groups the hook by
    /// it, so a restarted process must promise the same.
    read_only: Vec<&'static str>,
}

impl Supervisor {
    async fn run(self, mut live: Arc<Live>, mut stop: oneshot::Receiver<StopRequest>) {
        let name = self.config.name.clone();
        let options = self.config.options.clone();
        let mut restarts: VecDeque<Instant> = VecDeque::new();
        loop {
            let died = tokio::select! {
                died = live.conn.wait_closed() => died,
                request = &mut stop => {
                    live.conn.shutdown().await;
                    self.slot.send_replace(Slot::Stopped);
                    if let Ok(ack) = request {
                        let _ = ack.send(());
                    }
                    return;
                }
            };
            let mut last_error = died;
            loop {
                let now = Instant::now();
                while restarts.front().is_some_and(|t| now.duration_since(*t) > Duration::from_secs(60)) {
                    restarts.pop_front();
                }
                if restarts.len() >= options.max_restarts_per_minute {
                    let error = HookError::Unavailable {
                        message: format!(
                            "hook `{name}` failed {} times within a minute and is stopped; last error: {last_error}. \
                             Fix the hook and reload the configuration",
                            restarts.len() + 1
                        ),
                    };
                    tracing::error!(hook = %name, "{error}");
                    self.slot.send_replace(Slot::Failed(error));
                    if let Ok(ack) = stop.await {
                        let _ = ack.send(());
                    }
                    return;
                }
                let delay = options.restart_backoff.saturating_mul(1 << restarts.len().min(16));
                restarts.push_back(now);
                tracing::warn!(hook = %name, "process ended ({last_error}); restarting in {}", fmt_duration(delay));
                self.slot.send_replace(Slot::Restarting);
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    request = &mut stop => {
                        self.slot.send_replace(Slot::Stopped);
                        if let Ok(ack) = request {
                            let _ = ack.send(());
                        }
                        return;
                    }
                }
                if let Some(guard) = &self.trust
                    && let Err(violation) = guard.verify_async().await
                {
                    last_error = HookError::SpawnFailed { command: name.to_string(), message: violation.to_string() };
                    tracing::error!(hook = %name, "{last_error}");
                    self.slot.send_replace(Slot::Failed(last_error));
                    if let Ok(ack) = stop.await {
                        let _ = ack.send(());
                    }
                    return;
                }
                match start_once(&self.config, &self.hello, &self.offered, self.handshake).await {
                    Ok(new) if new.read_only() != self.read_only => {
                        // The chain runs the hook at once with its neighbours, or in turn, by
                        // the first promise: a process that now promises otherwise is not run.
                        let error = HookError::Unavailable {
                            message: format!(
                                "hook `{name}` restarted with another promise in hook.hello \
                                 (hookwire.read_only {:?}, first {:?}); the promise is read when the \
                                 hook is loaded: reload the configuration to apply it",
                                new.read_only(),
                                self.read_only
                            ),
                        };
                        new.conn.shutdown().await;
                        tracing::error!(hook = %name, "{error}");
                        self.slot.send_replace(Slot::Failed(error));
                        if let Ok(ack) = stop.await {
                            let _ = ack.send(());
                        }
                        return;
                    }
                    Ok(new) => {
                        live = new;
                        self.slot.send_replace(Slot::Running(live.clone()));
                        break;
                    }
                    Err(error) => {
                        last_error = match error {
                            BuildError::Start(error) => error,
                            other => HookError::Unavailable { message: other.to_string() },
                        };
                    }
                }
            }
        }
    }
}

/// Builds process hooks (kind `process`) from their specs: spawn, handshake, supervision.
#[derive(Debug, Clone, Default)]
pub struct ProcessFactory {
    options: ProcessOptions,
}

impl ProcessFactory {
    /// A factory with the default [`ProcessOptions`].
    pub fn new() -> Self {
        ProcessFactory::default()
    }

    /// A factory with the given limits and grace periods.
    pub fn with_options(options: ProcessOptions) -> Self {
        ProcessFactory { options }
    }
}

#[async_trait]
impl HookFactory for ProcessFactory {
    fn kind(&self) -> &str {
        "process"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let enabled = match &spec.definition {
            HookDefinition::Process(def) => spec.enabled && def.enabled != Some(false),
            _ => spec.enabled,
        };
        if !enabled {
            return Ok(BuiltHook::new(Arc::new(DisabledHook)));
        }
        let (hook, observer) = ProcessHook::start(spec, self.options.clone()).await?;
        Ok(BuiltHook { observer: observer.map(|o| o as Arc<dyn Observer>), ..BuiltHook::new(hook) })
    }

    /// The kinds its `observe` list names (none when absent, as in PicoClaw).
    fn observed_kinds(&self, spec: &HookSpec) -> Vec<String> {
        match &spec.definition {
            HookDefinition::Process(def) => def.observe.clone().unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn a_hello_refusal_keeps_no_raw_control_character() {
        let reason = "no\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\u{9d}x\r\nnext\tline";
        let escaped = escape_controls(reason);
        assert_eq!(escaped, "no\\u{1b}[2J\\u{1b}]52;c;aGk=\\u{7}\\u{9d}x\\r\nnext\tline");
        assert!(!escaped.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        assert_eq!(escape_controls("maintenance window"), "maintenance window");
    }
}
