//! `hookwire serve`: the daemon of one user and project. It keeps hooks (and so process hooks)
//! running between calls, answers on a Unix socket (newline-delimited JSON-RPC 2.0, the types of
//! `hook_protocol::daemon`), reloads its configurations when their files change, and exits after
//! an idle period, on `shutdown`, or on SIGTERM, SIGINT or SIGHUP — removing its socket and taking
//! every hook down.
//!
//! It keeps one engine per distinct configuration a caller names ([`Selection`]): `hookwire hook
//! claude --settings x.json` and a plain `fire` share the daemon, not the hooks.

use std::{
    fmt, fs, io,
    io::{IsTerminal, Write as _},
    os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt},
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use clap::Args;
use hook_agents::{BridgeAnswer, context_from_input, failure_answer_as};
use hook_core::{Context, Event, HookSpec};
use hook_host::{Host, Refresh};
use hook_protocol::{
    Agent,
    daemon::{
        BridgeResult, CheckParams, CheckResult, ConfigurationStats, ConfigurationStatus, FireParams, HookStats, Method,
        ReloadResult, ReloadStatus, Selection, ShutdownResult, StatsResult, codes,
    },
    jsonrpc::{ErrorResponse, Message, MessageError, Response, RpcError},
    serde_json::{self, Value},
};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::{UnixListener, UnixStream},
    sync::{mpsc, watch},
};

use crate::{
    daemon::{self, DaemonPaths},
    fire, held_back,
    hook::{self, fire_bridge, is_relevant, no_decision, notes_of, refuse, with_notes},
};

/// The default idle period before the daemon exits.
const DEFAULT_IDLE_SECS: u64 = 15 * 60;

/// The largest request line read.
const MAX_REQUEST_BYTES: u64 = 64 << 20;

/// A log larger than this is moved to `<key>.log.1` when a daemon starts.
const MAX_LOG_BYTES: u64 = 1 << 20;

/// How long a starting daemon waits for the lock of one that is stopping.
const LOCK_WAIT: Duration = Duration::from_secs(2);

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Exit after this many seconds without a request (default 900, or `HOOKWIRE_IDLE_TIMEOUT`).
    #[arg(long, value_name = "SECS")]
    idle_timeout: Option<f64>,
    /// The project to serve (default: the project of the current directory, else the directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Print the path of the project's socket and exit.
    #[arg(long)]
    print_socket: bool,
    /// How often the configuration files are checked for changes, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000, hide = true)]
    poll_ms: u64,
}

// ----------------------------------------------------------------------------------------------
// Time and log.

/// `2026-11-25T23:10:44Z` for `time`.
pub(crate) fn utc_stamp(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

/// The daemon's log file (and stderr when that is a terminal).
#[derive(Debug)]
struct Log {
    file: Mutex<Option<fs::File>>,
    echo: bool,
}

impl Log {
    fn open(path: &Path) -> Log {
        if fs::metadata(path).is_ok_and(|meta| meta.len() > MAX_LOG_BYTES) {
            let _ = fs::rename(path, path.with_extension("log.1"));
        }
        let file = fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path).ok();
        Log { file: Mutex::new(file), echo: std::io::stderr().is_terminal() }
    }

    fn line(&self, message: impl fmt::Display) {
        let text = format!("{} hookwire serve[{}]: {message}\n", utc_stamp(SystemTime::now()), std::process::id());
        if let Ok(mut file) = self.file.lock()
            && let Some(file) = file.as_mut()
        {
            let _ = file.write_all(text.as_bytes());
        }
        if self.echo {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
}

// ----------------------------------------------------------------------------------------------
// One configuration and its engine.

/// What callers of one configuration see; replaced whole on each read.
#[derive(Debug, Default)]
struct View {
    /// The hooks mounted in the engine; `None` until a read mounted them.
    mounted: Option<Vec<HookSpec>>,
    /// Why calls are refused while nothing is mounted.
    refusal: Option<String>,
    /// Warning lines every bridge answer carries on stderr.
    notes: String,
    warnings: Vec<String>,
    untrusted: Vec<String>,
    /// What the person is told about held-back project hooks (see [`held_back`]).
    held_back: Option<String>,
    errors: Vec<String>,
    reloads: u64,
    read_at: Option<String>,
}

/// Why a configuration is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// A call found nothing mounted (the first call, or every load so far failed).
    Call,
    /// The periodic check: only when a file changed.
    Poll,
    /// The `reload` method: always.
    Request,
}

/// One configuration callers named, with its host: the engine, and the files it watches.
#[derive(Debug)]
struct Served {
    selection: Selection,
    host: Host,
    /// Held while a read and the view it gives are made, so views are written in read order.
    loading: tokio::sync::Mutex<()>,
    view: RwLock<Arc<View>>,
}

impl Served {
    /// The configuration of `selection` in the project `root`: the bridge's sources for an
    /// agent (without that agent's own settings files, plus its `--settings` files), else
    /// `fire`'s.
    fn new(selection: Selection, root: &Path) -> Served {
        let project_dir =
            selection.agent.and_then(|agent| hook::project_dir_in(agent, |name| selection.env.get(name).cloned()));
        let mut builder = Host::builder()
            .project_dir(root)
            .no_default_config(selection.no_default_config)
            .command_project_dir(project_dir);
        for config in &selection.configs {
            builder = builder.extra_config(config);
        }
        if let Some(agent) = selection.agent {
            builder = builder.skip_agent_files(agent);
            for settings in &selection.settings {
                builder = builder.agent_settings(agent, settings);
            }
        }
        Served {
            host: builder.build(),
            selection,
            loading: tokio::sync::Mutex::new(()),
            view: RwLock::new(Arc::new(View::default())),
        }
    }

    fn view(&self) -> Arc<View> {
        self.view.read().map(|v| v.clone()).unwrap_or_default()
    }

    /// `claude --settings a.json --no-default-config`, for the log.
    fn describe(&self) -> String {
        let s = &self.selection;
        let mut words = vec![s.agent.map_or("fire".to_owned(), |a| format!("hook {a}"))];
        words.extend(s.settings.iter().map(|p| format!("--settings {}", p.display())));
        words.extend(s.configs.iter().map(|p| format!("--config {}", p.display())));
        if s.no_default_config {
            words.push("--no-default-config".into());
        }
        words.extend(s.env.iter().map(|(k, v)| format!("{k}={v}")));
        words.join(" ")
    }

    /// Reads the configuration (when `trigger` calls for it) and mounts what changed; a
    /// configuration with errors leaves the mounted hooks as they are.
    async fn refresh(&self, daemon: &Daemon, trigger: Trigger) -> ReloadStatus {
        let _loading = self.loading.lock().await;
        let mut status = ReloadStatus { selection: self.selection.clone(), ..ReloadStatus::default() };
        let old = self.view();
        let when = match trigger {
            // Another call may have mounted the hooks while this one waited.
            Trigger::Call => Refresh::IfUnmounted,
            Trigger::Poll => Refresh::IfChanged,
            Trigger::Request => Refresh::Always,
        };
        let Some(reload) = self.host.refresh(when).await else { return status };
        status.changed = reload.changed;
        let mut view = View {
            mounted: reload.mounted.clone(),
            reloads: old.reloads + u64::from(old.read_at.is_some()),
            read_at: Some(utc_stamp(SystemTime::now())),
            errors: reload.errors(),
            ..View::default()
        };
        if let Ok(loaded) = &reload.read {
            view.notes = notes_of(loaded);
            view.held_back = held_back::note(&loaded.untrusted);
            view.warnings = loaded.warnings.clone();
            view.untrusted = loaded
                .untrusted
                .iter()
                .map(|u| {
                    format!("{}: {} (hooks: {}); {}", u.config.display(), u.reason, u.hooks.join(", "), u.how_to_trust)
                })
                .collect();
        }
        let problem = reload.problem();
        status.errors = view.errors.clone();
        match (&problem, &view.mounted) {
            (Some(problem), Some(_)) => {
                view.notes.push_str(&format!(
                    "hookwire: warning: the configuration was changed and does not load; the previous hooks stay in \
                     force: {problem}\n"
                ));
                daemon.log.line(format_args!("{}: {problem}; the previous hooks stay in force", self.describe()));
            }
            (Some(problem), None) => {
                view.refusal = Some(problem.clone());
                daemon.log.line(format_args!("{}: {problem}", self.describe()));
            }
            (None, mounted) => {
                let n_hooks = mounted.as_ref().map_or(0, Vec::len);
                let verb = if old.read_at.is_some() { "reloaded" } else { "loaded" };
                daemon.log.line(format_args!("{}: {verb}, {n_hooks} hooks", self.describe()));
            }
        }
        for warning in &view.warnings {
            daemon.log.line(format_args!("{}: warning: {warning}", self.describe()));
        }
        if let Ok(mut slot) = self.view.write() {
            *slot = Arc::new(view);
        }
        status
    }

    /// A session-start event whose command hooks would need the caller's own `CLAUDE_ENV_FILE`,
    /// which the daemon's hooks cannot be given per call.
    fn needs_caller_env_file(&self, event: Event, env_file: Option<&String>) -> bool {
        let session_start_family =
            matches!(event, Event::SessionStart | Event::Setup | Event::CwdChanged | Event::FileChanged);
        session_start_family
            && env_file.is_some()
            && std::env::var("CLAUDE_ENV_FILE").ok().as_ref() != env_file
            && self.host.engine().hooks_for(event).iter().any(|hook| hook.kind == "command")
    }

    fn status(&self) -> ConfigurationStatus {
        let view = self.view();
        let hooks = Event::ALL
            .into_iter()
            .map(|event| {
                (event.to_string(), self.host.engine().hooks_for(event).iter().map(|h| h.id.to_string()).collect())
            })
            .filter(|(_, ids): &(String, Vec<String>)| !ids.is_empty())
            .collect();
        ConfigurationStatus {
            selection: self.selection.clone(),
            loaded: view.mounted.is_some(),
            hooks,
            warnings: view.warnings.clone(),
            untrusted: view.untrusted.clone(),
            errors: view.errors.clone(),
            reloads: view.reloads,
            read_at: view.read_at.clone(),
        }
    }
}

// ----------------------------------------------------------------------------------------------
// The daemon.

#[derive(Debug)]
struct Daemon {
    root: PathBuf,
    canonical_root: PathBuf,
    started: Instant,
    log: Log,
    served: Mutex<Vec<Arc<Served>>>,
    requests: AtomicU64,
    connections: AtomicUsize,
    last_activity: Mutex<Instant>,
    stopping: AtomicBool,
    stop: watch::Sender<Option<String>>,
}

fn rpc_error(code: i64, message: impl Into<String>) -> RpcError {
    RpcError::new(code, message)
}

fn invalid_params(error: impl fmt::Display) -> RpcError {
    rpc_error(RpcError::INVALID_PARAMS, error.to_string())
}

/// A result as JSON.
macro_rules! to_value {
    ($value:expr) => {
        serde_json::to_value($value).map_err(|e| rpc_error(RpcError::APPLICATION_ERROR, e.to_string()))
    };
}

/// Reads params of a type with a default: `null` or absent is the default.
macro_rules! params {
    ($value:expr, $ty:ty) => {
        if $value.is_null() {
            <$ty>::default()
        } else {
            hook_protocol::from_json_value::<$ty>($value).map_err(invalid_params)?
        }
    };
}

impl Daemon {
    fn touch(&self) {
        if let Ok(mut last) = self.last_activity.lock() {
            *last = Instant::now();
        }
    }

    fn is_idle(&self, idle: Duration) -> bool {
        self.connections.load(Ordering::SeqCst) == 0
            && self.last_activity.lock().is_ok_and(|last| last.elapsed() >= idle)
    }

    fn begin_stop(&self, reason: String) {
        if !self.stopping.swap(true, Ordering::SeqCst) {
            let _ = self.stop.send(Some(reason));
        }
    }

    fn served(&self) -> Vec<Arc<Served>> {
        self.served.lock().map(|list| list.clone()).unwrap_or_default()
    }

    /// The served configuration of `selection`, created (unloaded) when new. The environment is
    /// kept only where it picks the engine: the agent's project directory.
    fn served_for(&self, mut selection: Selection) -> Arc<Served> {
        let project_dir = selection.agent.and_then(|agent| {
            hook::project_dir_in(agent, |name| selection.env.get(name).cloned()).map(|dir| (agent, dir))
        });
        selection.env.clear();
        if let Some((agent, dir)) = project_dir {
            selection.env.insert(agent.project_dir_var().to_owned(), dir.display().to_string());
        }
        let Ok(mut list) = self.served.lock() else { return Arc::new(Served::new(selection, &self.root)) };
        if let Some(found) = list.iter().find(|s| s.selection == selection) {
            return found.clone();
        }
        let served = Arc::new(Served::new(selection, &self.root));
        list.push(served.clone());
        served
    }

    /// The served configuration of `selection`, read and mounted when nothing is yet.
    async fn ready(&self, selection: Selection) -> (Arc<Served>, Arc<View>) {
        let served = self.served_for(selection);
        if served.view().mounted.is_none() {
            served.refresh(self, Trigger::Call).await;
        }
        let view = served.view();
        (served, view)
    }

    /// Answers one line; `None` for a notification or a stray response.
    async fn handle(&self, line: &[u8]) -> Option<String> {
        let message = match Message::parse(line) {
            Ok(message) => message,
            Err(error) => {
                let code = match error {
                    MessageError::NotJson(_) => RpcError::PARSE_ERROR,
                    _ => RpcError::INVALID_REQUEST,
                };
                return serde_json::to_string(&ErrorResponse::new(None, rpc_error(code, error.to_string()))).ok();
            }
        };
        let (id, method, params) = match message {
            Message::Request(request) => (Some(request.id), request.method, request.params),
            Message::Notification(notification) => (None, notification.method, notification.params),
            _ => return None,
        };
        self.requests.fetch_add(1, Ordering::Relaxed);
        let result = self.dispatch(&method, params).await;
        let id = id?;
        match result {
            Ok(value) => serde_json::to_string(&Response::new(id, value)).ok(),
            Err(error) => serde_json::to_string(&ErrorResponse::new(Some(id), error)).ok(),
        }
    }

    async fn dispatch(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let method: Method = method.parse().map_err(|e| rpc_error(RpcError::METHOD_NOT_FOUND, format!("{e}")))?;
        if self.stopping.load(Ordering::SeqCst) && method != Method::Shutdown {
            return Err(rpc_error(codes::SHUTTING_DOWN, "the daemon is shutting down"));
        }
        match method {
            Method::Fire => self.fire(params!(params, FireParams)).await,
            Method::Check => self.check(params!(params, CheckParams)).await,
            Method::Stats => to_value!(self.stats()),
            Method::Reload => self.reload().await,
            Method::Shutdown => {
                self.begin_stop("asked to shut down".into());
                to_value!(ShutdownResult { stopping: true })
            }
        }
    }

    async fn fire(&self, params: FireParams) -> Result<Value, RpcError> {
        if let Some(build) = &params.build
            && build != daemon::build_id()
        {
            return Err(rpc_error(
                codes::OTHER_BUILD,
                format!("this daemon runs hookwire build {}, the caller {build}", daemon::build_id()),
            ));
        }
        if let Some(root) = &params.root {
            // The bridge names the root as the daemon does: no need to resolve it on every call.
            let is_same = |path: &Path| path == Path::new(root);
            if !is_same(&self.root)
                && !is_same(&self.canonical_root)
                && fs::canonicalize(root).unwrap_or_else(|_| PathBuf::from(root)) != self.canonical_root
            {
                return Err(rpc_error(
                    codes::OTHER_PROJECT,
                    format!("this daemon serves {}, not {root}", self.root.display()),
                ));
            }
        }
        let cwd = params.cwd.as_ref().map_or_else(|| self.root.clone(), PathBuf::from);
        match (params.input, params.selection.agent) {
            (Some(input), Some(agent)) => {
                let env_file = params.selection.env.get("CLAUDE_ENV_FILE").cloned();
                let raw = params.tool_input_text.as_deref();
                let answer = self.bridge(agent, input, raw, params.selection, env_file.as_ref(), &cwd).await?;
                to_value!(BridgeResult { exit_code: answer.exit_code, stdout: answer.stdout, stderr: answer.stderr })
            }
            (Some(_), None) => Err(invalid_params("`input` needs `agent` (claude, gemini or codex)")),
            (None, Some(_)) => Err(invalid_params("`agent` needs `input`, the agent's hook input object")),
            (None, None) => {
                let name = params
                    .event
                    .ok_or_else(|| invalid_params("give `event` (and `context`), or `agent` and `input`"))?;
                let event: Event = name.parse().map_err(invalid_params)?;
                let mut object = params.context.unwrap_or_default();
                object.remove("event");
                let mut context: Context = hook_protocol::from_json_value(Value::Object(object))
                    .map_err(|e| invalid_params(format!("the context does not fit HookContext: {e}")))?;
                if context.cwd.is_none() {
                    context.cwd = Some(cwd.display().to_string());
                }
                let (served, view) = self.ready(params.selection).await;
                if view.mounted.is_none() {
                    let mut error = rpc_error(
                        codes::CONFIGURATION_ERROR,
                        view.refusal.clone().unwrap_or_else(|| "the configuration does not load".into()),
                    );
                    error.data = Some(Value::from(view.errors.clone()));
                    return Err(error);
                }
                let started = crate::telemetry::started();
                let clock = std::time::Instant::now();
                let outcome = served.host.engine().fire(event, &mut context).await;
                crate::telemetry::record(started, &outcome, &context);
                let engine = served.host.engine();
                crate::record::fire(hook_store::Origin::Serve, engine, &outcome, &context, clock.elapsed(), None);
                Ok(fire::outcome_json(&outcome, &context))
            }
        }
    }

    /// The bridge answer, as `hookwire hook` computes it in its own process.
    async fn bridge(
        &self,
        agent: Agent,
        input: Value,
        tool_input_text: Option<&str>,
        selection: Selection,
        env_file: Option<&String>,
        cwd: &Path,
    ) -> Result<BridgeAnswer, RpcError> {
        let (event, mut context) = match context_from_input(agent, input) {
            Ok(read) => read,
            Err(e) => return Ok(failure_answer_as(agent, &e.to_string())),
        };
        if let Some(raw) = tool_input_text {
            hook_agents::keep_tool_input_order(&mut context, raw);
        }
        let (served, view) = self.ready(selection).await;
        let Some(mounted) = &view.mounted else {
            let reason = view.refusal.clone().unwrap_or_else(|| "the configuration does not load".into());
            return Ok(with_notes(&view.notes, refuse(agent, event, reason)));
        };
        let session = context.session_id.clone();
        let held = |answer| held_back::apply(agent, event, session.as_deref(), view.held_back.as_deref(), answer);
        if !is_relevant(mounted, event) {
            return Ok(held(with_notes(&view.notes, no_decision())));
        }
        if served.needs_caller_env_file(event, env_file) {
            return Err(rpc_error(
                codes::RUN_IN_PROCESS,
                "this event's command hooks need the caller's CLAUDE_ENV_FILE; fire it in the caller's process",
            ));
        }
        Ok(held(with_notes(&view.notes, fire_bridge(served.host.engine(), agent, event, context, cwd).await)))
    }

    async fn check(&self, params: CheckParams) -> Result<Value, RpcError> {
        self.ready(params.selection).await;
        let configurations: Vec<ConfigurationStatus> = self.served().iter().map(|s| s.status()).collect();
        to_value!(CheckResult {
            valid: configurations.iter().all(|c| c.errors.is_empty()),
            root: self.root.display().to_string(),
            pid: std::process::id(),
            configurations,
        })
    }

    fn stats(&self) -> StatsResult {
        let configurations = self
            .served()
            .iter()
            .map(|served| ConfigurationStats {
                selection: served.selection.clone(),
                hooks: served
                    .host
                    .engine()
                    .metrics()
                    .into_iter()
                    .map(|(id, m)| HookStats {
                        id: id.to_string(),
                        executions: m.executions,
                        successes: m.successes,
                        failures: m.failures,
                        skips: m.skips,
                        total_ms: m.total_time.as_secs_f64() * 1000.0,
                        notifications: m.notifications,
                        dropped_notifications: m.dropped_notifications,
                    })
                    .collect(),
            })
            .collect();
        StatsResult {
            pid: std::process::id(),
            root: self.root.display().to_string(),
            uptime_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            requests: self.requests.load(Ordering::Relaxed),
            configurations,
        }
    }

    async fn reload(&self) -> Result<Value, RpcError> {
        let mut configurations = Vec::new();
        for served in self.served() {
            configurations.push(served.refresh(self, Trigger::Request).await);
        }
        to_value!(ReloadResult { configurations })
    }
}

/// Counts a connection as activity while it is open.
#[derive(Debug)]
struct ConnectionGuard(Arc<Daemon>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

/// Reads requests from one connection and answers each as soon as it is done: requests run
/// concurrently, their answers may come back in any order.
async fn serve_connection(daemon: Arc<Daemon>, stream: UnixStream) {
    daemon.connections.fetch_add(1, Ordering::SeqCst);
    let _guard = ConnectionGuard(daemon.clone());
    let (read, mut write) = stream.into_split();
    let (answers, mut to_write) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        while let Some(mut line) = to_write.recv().await {
            line.push('\n');
            if write.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let mut reader = BufReader::new(read);
    loop {
        let mut line = Vec::new();
        match (&mut reader).take(MAX_REQUEST_BYTES).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let is_whole = line.ends_with(b"\n");
        if !is_whole && line.len() as u64 >= MAX_REQUEST_BYTES {
            let error =
                rpc_error(RpcError::INVALID_REQUEST, format!("a request is longer than {MAX_REQUEST_BYTES} bytes"));
            let _ = answers.send(serde_json::to_string(&ErrorResponse::new(None, error)).unwrap_or_default());
            break;
        }
        let request = line.trim_ascii().to_vec();
        if !request.is_empty() {
            daemon.touch();
            let (daemon, answers) = (daemon.clone(), answers.clone());
            tokio::spawn(async move {
                if let Some(answer) = daemon.handle(&request).await {
                    let _ = answers.send(answer);
                }
            });
        }
        if !is_whole {
            break;
        }
    }
    // The writer ends once every request of this connection has answered.
    drop(answers);
    let _ = writer.await;
}

/// Why the lock could not be taken.
enum LockError {
    /// Another daemon serves this project.
    Held,
    Io(io::Error),
}

/// Takes the project's lock: at most one daemon per project. A daemon that is stopping holds
/// it a little longer; one that is serving (its socket answers) is left alone at once.
async fn take_lock(paths: &DaemonPaths) -> Result<fs::File, LockError> {
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .mode(0o600)
        .open(&paths.lock)
        .map_err(LockError::Io)?;
    let until = Instant::now() + LOCK_WAIT;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(fs::TryLockError::WouldBlock) => {
                if UnixStream::connect(&paths.socket).await.is_ok() || Instant::now() >= until {
                    return Err(LockError::Held);
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(fs::TryLockError::Error(e)) => return Err(LockError::Io(e)),
        }
    }
}

/// The idle period: `--idle-timeout`, else `HOOKWIRE_IDLE_TIMEOUT`, else 15 minutes.
fn idle_period(args: &ServeArgs) -> Duration {
    let from_env = || std::env::var("HOOKWIRE_IDLE_TIMEOUT").ok().and_then(|v| v.trim().parse::<f64>().ok());
    let secs =
        args.idle_timeout.or_else(from_env).filter(|s| s.is_finite() && *s > 0.0).unwrap_or(DEFAULT_IDLE_SECS as f64);
    Duration::from_secs_f64(secs.min(1e9))
}

pub(crate) async fn run(args: ServeArgs) -> u8 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = match &args.root {
        Some(root) => hook::absolute(root, &cwd),
        None => daemon::project_root(&cwd),
    };
    let Some(paths) = daemon::paths_for(&root) else {
        eprintln!("error: no directory for the daemon's socket: set XDG_RUNTIME_DIR or HOME");
        return 2;
    };
    if args.print_socket {
        outln!("{}", paths.socket.display());
        return 0;
    }
    if let Err(e) = daemon::ensure_private_dir(&paths.dir) {
        eprintln!("error: {}: {e}", paths.dir.display());
        return 2;
    }
    let log = Log::open(&paths.log);
    let lock = match take_lock(&paths).await {
        Ok(lock) => lock,
        Err(LockError::Held) => {
            eprintln!("hookwire serve: a daemon already serves {} ({})", root.display(), paths.socket.display());
            return 0;
        }
        Err(LockError::Io(e)) => {
            eprintln!("error: {}: {e}", paths.lock.display());
            return 2;
        }
    };
    // Holding the lock, any socket left is a dead daemon's: replace it.
    if fs::symlink_metadata(&paths.socket).is_ok() {
        log.line(format_args!("removing the stale socket {}", paths.socket.display()));
        let _ = fs::remove_file(&paths.socket);
    }
    let listener = match UnixListener::bind(&paths.socket) {
        Ok(listener) => listener,
        Err(e) => {
            log.line(format_args!("cannot listen on {}: {e}", paths.socket.display()));
            eprintln!("error: cannot listen on {}: {e}", paths.socket.display());
            return 2;
        }
    };
    let _ = fs::set_permissions(&paths.socket, fs::Permissions::from_mode(0o600));
    let socket_ino = fs::symlink_metadata(&paths.socket).map(|m| m.ino()).ok();
    let pid_file = fs::OpenOptions::new().create(true).write(true).truncate(true).mode(0o600).open(&paths.pid);
    let _ = pid_file.and_then(|mut file| file.write_all(format!("{}\n", std::process::id()).as_bytes()));
    let idle = idle_period(&args);
    log.line(format_args!(
        "serving {} on {} (idle timeout {:.0} s)",
        root.display(),
        paths.socket.display(),
        idle.as_secs_f64()
    ));

    let (stop, mut stopped) = watch::channel(None);
    let daemon = Arc::new(Daemon {
        canonical_root: fs::canonicalize(&root).unwrap_or_else(|_| root.clone()),
        root,
        started: Instant::now(),
        log,
        served: Mutex::new(Vec::new()),
        requests: AtomicU64::new(0),
        connections: AtomicUsize::new(0),
        last_activity: Mutex::new(Instant::now()),
        stopping: AtomicBool::new(false),
        stop,
    });
    {
        let daemon = daemon.clone();
        crate::telemetry::export_daemon_metrics(move || daemon.stats());
    }
    let poller = {
        let daemon = daemon.clone();
        let period = Duration::from_millis(args.poll_ms.max(10));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                for served in daemon.served() {
                    served.refresh(&daemon, Trigger::Poll).await;
                }
            }
        })
    };
    let mut idle_tick = tokio::time::interval((idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(1)));
    let terminated = crate::termination();
    tokio::pin!(terminated);
    let mut is_terminated = false;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(serve_connection(daemon.clone(), stream));
                }
                Err(e) => {
                    daemon.log.line(format_args!("accept failed: {e}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = stopped.changed() => break,
            _ = idle_tick.tick() => {
                if daemon.is_idle(idle) {
                    daemon.begin_stop(format!("idle for {:.0} s", idle.as_secs_f64()));
                }
            }
            signal = &mut terminated, if !is_terminated => {
                is_terminated = true;
                daemon.begin_stop(format!("{signal}"));
            }
        }
    }
    // No new caller reaches this daemon: the socket goes first (the lock is still held, so no
    // other daemon can have replaced it), then the hooks.
    drop(listener);
    if socket_ino.is_some() && fs::symlink_metadata(&paths.socket).map(|m| m.ino()).ok() == socket_ino {
        let _ = fs::remove_file(&paths.socket);
    }
    poller.abort();
    let reason = stopped.borrow().clone().unwrap_or_default();
    daemon.log.line(format_args!("stopping ({reason})"));
    let shutdowns: Vec<_> =
        daemon.served().into_iter().map(|served| tokio::spawn(async move { served.host.shutdown().await })).collect();
    for shutdown in shutdowns {
        let _ = shutdown.await;
    }
    let _ = fs::remove_file(&paths.pid);
    daemon.log.line("stopped");
    drop(lock);
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_stamps_are_civil_dates() {
        assert_eq!(utc_stamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(utc_stamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(utc_stamp(UNIX_EPOCH + Duration::from_secs(1_795_734_644)), "2026-11-26T23:10:44Z");
    }
}
