//! One running hook process: spawn, the writer task, the reader task that correlates replies,
//! the stderr pump, and the shutdown sequence.

use std::{
    collections::{BTreeMap, HashMap, VecDeque},
    os::unix::process::ExitStatusExt,
    path::PathBuf,
    process::{ExitStatus, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicI64, Ordering},
    },
    time::{Duration, Instant},
};

use hook_core::{HookError, fmt_duration, head_chars, tail_chars};
use hook_protocol::{
    Id,
    jsonrpc::{Message, RpcError},
    picoclaw::method,
    serde_json::{self, Value},
};
use nix::{
    sys::signal::{Signal, killpg},
    unistd::Pid,
};
use tokio::{
    io::BufReader,
    net::unix::pipe,
    process::{Child, ChildStderr, ChildStdout, Command},
    sync::{mpsc, oneshot, watch},
    task::JoinHandle,
    time::timeout,
};

use crate::{
    ProcessOptions,
    line::{LineRead, read_line_bounded},
    outbox::{Chunk, Line, Outbox},
};

/// How many stderr lines are kept for [`HookError::ProcessExited`]'s `stderr_tail`.
const STDERR_TAIL_LINES: usize = 20;
/// The longest stderr line logged; the rest of a longer line is logged as the next line.
const STDERR_LINE_LIMIT: usize = 8 * 1024;
/// How often the reader forgets requests whose callers gave up, when no line arrives.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// What to start.
#[derive(Debug, Clone)]
pub(crate) struct SpawnConfig {
    /// The hook's name, for messages.
    pub(crate) name: Arc<str>,
    /// Program and arguments.
    pub(crate) command: Vec<String>,
    /// Working directory.
    pub(crate) dir: Option<PathBuf>,
    /// Added to the inherited environment.
    pub(crate) env: BTreeMap<String, String>,
    /// Limits and grace periods.
    pub(crate) options: ProcessOptions,
    /// The sandbox the process and its children run under (docs/sandbox.md).
    pub(crate) sandbox: Option<hook_protocol::config::SandboxPolicy>,
}

/// Confines the process hook's `command` by `policy`: its working directory is its project
/// directory. `required` on a kernel that cannot enforce it fails the start, naming the hook.
fn confine(
    command: &mut Command,
    policy: &hook_protocol::config::SandboxPolicy,
    config: &SpawnConfig,
    program: &str,
) -> Result<(), HookError> {
    let places = hook_sandbox::Places {
        project: config.dir.clone().or_else(|| std::env::current_dir().ok()),
        scratch: hook_sandbox::scratch_dir(&config.name),
        program: Some(PathBuf::from(program)),
    };
    match hook_sandbox::confine(command.as_std_mut(), policy, &places, &config.name) {
        Ok(Some(applied)) if !applied.missing.is_empty() => {
            tracing::warn!(
                hook = %config.name,
                abi = applied.abi,
                missing = %applied.missing.join(", "),
                "process hook runs with `sandbox: best-effort`, and this kernel does not enforce all of it"
            );
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(error) => Err(HookError::SpawnFailed { command: config.command.join(" "), message: error.to_string() }),
    }
}

/// What came back for one request.
#[derive(Debug)]
pub(crate) enum Reply {
    /// `result`.
    Result(Answer),
    /// `error`.
    Error(RpcError),
    /// The process died, printed an over-long line, or was shut down.
    Failed(HookError),
}

/// A reply's `result`: its text as the hook wrote it (kept in the line it came in, not parsed
/// until the caller knows what to read), or a value when the line took the general path.
#[derive(Debug)]
pub(crate) enum Answer {
    /// The line and where `result` is in it.
    Raw(Vec<u8>, std::ops::Range<usize>),
    /// A parsed value.
    Value(Value),
}

impl Answer {
    /// The text of `result`, when it was kept as text.
    pub(crate) fn raw(&self) -> Option<&[u8]> {
        match self {
            Answer::Raw(line, range) => line.get(range.clone()),
            Answer::Value(_) => None,
        }
    }

    /// `result` as a JSON value.
    pub(crate) fn into_value(self) -> Value {
        match self {
            // The reader checked the text is JSON.
            Answer::Raw(line, range) => {
                serde_json::from_slice(line.get(range).unwrap_or(b"null")).unwrap_or(Value::Null)
            }
            Answer::Value(value) => value,
        }
    }
}

/// A response line, read without parsing its `result`. Anything else (a request, an error, a
/// line that does not fit) goes through [`Message::parse`].
#[derive(serde::Deserialize)]
struct FastResponse<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow, deserialize_with = "raw_present")]
    result: Option<&'a serde_json::value::RawValue>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    method: Option<serde::de::IgnoredAny>,
}

/// `Some` for any member present, `null` included.
fn raw_present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de serde_json::value::RawValue>, D::Error> {
    <&serde_json::value::RawValue as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// Replies longer than this give the reader's buffer away instead of being copied out of it.
const TAKE_LINE_ABOVE: usize = 64 * 1024;

/// Messages to the reader about its table of pending requests. They are drained before each
/// reply is matched (and every few seconds), never waking the reader on their own.
enum Command_ {
    Register(i64, oneshot::Sender<Reply>),
    Forget(i64),
}

/// The last stderr lines of a process.
#[derive(Debug, Default)]
struct StderrTail(Mutex<VecDeque<String>>);

impl StderrTail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let joined = lines.iter().map(String::as_str).collect::<Vec<_>>().join("\n");
        tail_chars(&joined, 2000)
    }
}

/// A running process and the tasks that serve it. Cheap to share; the process is shut down
/// when [`Conn::shutdown`] is called or the last handle is dropped.
#[derive(Debug)]
pub(crate) struct Conn {
    name: Arc<str>,
    pid: u32,
    commands: mpsc::UnboundedSender<Command_>,
    shutdown: mpsc::UnboundedSender<oneshot::Sender<()>>,
    outbox: Arc<Outbox>,
    next_id: AtomicI64,
    closed: watch::Receiver<Option<HookError>>,
}

impl std::fmt::Debug for Command_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command_::Register(id, _) => write!(f, "Register({id})"),
            Command_::Forget(id) => write!(f, "Forget({id})"),
        }
    }
}

impl Conn {
    /// Starts the process in its own process group, with 1 MiB pipes where the kernel allows.
    pub(crate) fn spawn(config: &SpawnConfig) -> Result<Arc<Conn>, HookError> {
        let Some((program, args)) = config.command.split_first() else {
            return Err(HookError::SpawnFailed {
                command: String::new(),
                message: format!("hook `{}` has an empty `command`; give the program and its arguments", config.name),
            });
        };
        let mut command = Command::new(program);
        // `HOOKWIRE_HOOK_DEPTH` one more than this process's, as hook-bash sets it for its
        // hooks: a process hook that runs `hookwire hook` again is counted, and that call
        // refuses past a small depth instead of recursing without end.
        let depth = match std::env::var("HOOKWIRE_HOOK_DEPTH") {
            Ok(value) => value.trim().parse::<u32>().unwrap_or(u32::MAX),
            Err(std::env::VarError::NotPresent) => 0,
            Err(std::env::VarError::NotUnicode(_)) => u32::MAX,
        };
        command
            .args(args)
            .envs(&config.env)
            .env("HOOKWIRE_HOOK_DEPTH", depth.saturating_add(1).to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &config.dir {
            command.current_dir(dir);
        }
        if let Some(policy) = &config.sandbox {
            confine(&mut command, policy, config, program)?;
        }
        let mut child = command.spawn().map_err(|e| HookError::SpawnFailed {
            command: config.command.join(" "),
            message: format!(
                "{e} (hook `{}`; check that `{program}` exists and is executable{})",
                config.name,
                config.dir.as_ref().map(|d| format!(" and that `{}` exists", d.display())).unwrap_or_default()
            ),
        })?;
        let pid = child.id().unwrap_or(0);
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(HookError::SpawnFailed {
                command: config.command.join(" "),
                message: "the child's pipes were not created".into(),
            });
        };
        enlarge_pipe(&stdin, config.options.pipe_size);
        enlarge_pipe(&stdout, config.options.pipe_size);
        enlarge_pipe(&stderr, config.options.pipe_size);

        let stdin =
            stdin.into_owned_fd().and_then(pipe::Sender::from_owned_fd).map_err(|e| HookError::SpawnFailed {
                command: config.command.join(" "),
                message: format!("could not set up the child's stdin: {e}"),
            })?;
        let outbox = Outbox::start(stdin);

        let tail = Arc::new(StderrTail::default());
        let stderr_task = tokio::spawn(pump_stderr(stderr, config.name.clone(), tail.clone(), config.options.clone()));

        let (command_tx, command_rx) = mpsc::unbounded_channel();
        let (shutdown_tx, shutdown_rx) = mpsc::unbounded_channel();
        let (closed_tx, closed_rx) = watch::channel(None);
        let reader = Reader {
            name: config.name.clone(),
            child,
            pgid: Pid::from_raw(pid as i32),
            stdout: BufReader::with_capacity(64 * 1024, stdout),
            commands: command_rx,
            shutdown: shutdown_rx,
            closed: closed_tx,
            outbox: outbox.clone(),
            tail,
            stderr_task,
            garbage: LogBudget::new(&config.options),
            options: config.options.clone(),
            pending: HashMap::new(),
        };
        tokio::spawn(reader.run());
        Ok(Arc::new(Conn {
            name: config.name.clone(),
            pid,
            commands: command_tx,
            shutdown: shutdown_tx,
            outbox,
            next_id: AtomicI64::new(1),
            closed: closed_rx,
        }))
    }

    /// The process id (also its process group id).
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether the process has ended (exited, killed, or shut down).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.borrow().is_some()
    }

    /// Waits until the process has ended; returns why.
    pub(crate) async fn wait_closed(&self) -> HookError {
        let mut closed = self.closed.clone();
        let result = closed.wait_for(Option::is_some).await.map(|v| v.clone());
        match result {
            Ok(Some(error)) => error,
            _ => self.gone(),
        }
    }

    fn gone(&self) -> HookError {
        self.closed
            .borrow()
            .clone()
            .unwrap_or_else(|| HookError::Unavailable { message: format!("hook `{}`: its process is gone", self.name) })
    }

    /// Sends a request and waits for its reply until `deadline`. On the deadline, or when this
    /// future is dropped, the request is forgotten and `hook.cancel` is sent. `params` are the
    /// chunks of the serialized params, written as they are (shared chunks are not copied).
    pub(crate) async fn call(&self, method: &str, params: Vec<Chunk>, deadline: Instant) -> Result<Reply, HookError> {
        let started = Instant::now();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = request_line(id, method, params);
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command_::Register(id, tx)).is_err() {
            return Err(self.gone());
        }
        let mut guard = CancelGuard { conn: self, id, reason: "the host cancelled the call", armed: true };
        let exchange = async {
            self.outbox.send(line).await.map_err(|_| ())?;
            rx.await.map_err(|_| ())
        };
        match tokio::time::timeout_at(deadline.into(), exchange).await {
            Ok(Ok(reply)) => {
                guard.armed = false;
                Ok(reply)
            }
            Ok(Err(())) => {
                guard.armed = false;
                Err(self.gone())
            }
            Err(_) => {
                let after = deadline.saturating_duration_since(started);
                guard.reason = "the call's deadline passed";
                drop(guard);
                Err(HookError::Timeout { after })
            }
        }
    }

    /// Sends a notification (no reply).
    pub(crate) async fn notify(&self, method: &str, params: Vec<u8>) -> Result<(), HookError> {
        let line = notification_line(method, params);
        self.outbox.send(line).await.map_err(|_| self.gone())
    }

    /// Closes stdin, waits, SIGTERMs the group, waits, SIGKILLs the group; returns once done.
    pub(crate) async fn shutdown(&self) {
        let (ack_tx, ack_rx) = oneshot::channel();
        if self.shutdown.send(ack_tx).is_ok() {
            let _ = ack_rx.await;
        }
        // The reader has ended either way; make sure nothing of the group is left.
        kill_group(Pid::from_raw(self.pid as i32), Signal::SIGKILL);
    }
}

/// Forgets a request whose caller stopped waiting and tells the hook with `hook.cancel`.
struct CancelGuard<'a> {
    conn: &'a Conn,
    id: i64,
    reason: &'static str,
    armed: bool,
}

impl Drop for CancelGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let _ = self.conn.commands.send(Command_::Forget(self.id));
        let params = hook_protocol::serde_json::json!({ "id": self.id, "reason": self.reason });
        let line = notification_line(method::CANCEL, params.to_string().into_bytes());
        if self.conn.outbox.try_send(line).is_err() {
            tracing::debug!(hook = %self.conn.name, id = self.id, "could not queue hook.cancel");
        }
    }
}

/// `{"jsonrpc":"2.0","id":N,"method":"…","params":…}\n`, with `params` already serialized: the
/// params chunks go in the line as they are, between the request's head and its closing brace.
pub(crate) fn request_line(id: i64, method: &str, params: Vec<Chunk>) -> Line {
    let mut head = Vec::with_capacity(method.len() + 48);
    head.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    head.extend_from_slice(id.to_string().as_bytes());
    head.extend_from_slice(b",\"method\":");
    head.extend_from_slice(Value::from(method).to_string().as_bytes());
    head.extend_from_slice(b",\"params\":");
    let mut chunks = Vec::with_capacity(params.len() + 2);
    chunks.push(Chunk::Owned(head));
    chunks.extend(params);
    chunks.push(Chunk::Static(b"}\n"));
    Line::new(chunks)
}

/// `{"jsonrpc":"2.0","method":"…","params":…}\n`.
pub(crate) fn notification_line(method: &str, params: Vec<u8>) -> Line {
    let mut line = Vec::with_capacity(params.len() + method.len() + 40);
    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    line.extend_from_slice(Value::from(method).to_string().as_bytes());
    line.extend_from_slice(b",\"params\":");
    line.extend_from_slice(&params);
    line.extend_from_slice(b"}\n");
    Line::new(vec![Chunk::Owned(line)])
}

fn enlarge_pipe<F: std::os::fd::AsFd>(fd: &F, size: usize) {
    if size == 0 {
        return;
    }
    let size = i32::try_from(size).unwrap_or(i32::MAX);
    if let Err(e) = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_SETPIPE_SZ(size)) {
        // Unprivileged processes are capped by /proc/sys/fs/pipe-max-size; the default size works.
        tracing::debug!("F_SETPIPE_SZ({size}) failed: {e}");
    }
}

fn kill_group(pgid: Pid, signal: Signal) {
    if pgid.as_raw() > 1 {
        let _ = killpg(pgid, signal);
    }
}

/// `exit code 2`, `signal 9 (SIGKILL)`.
fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        format!("exit code {code}")
    } else if let Some(signal) = status.signal() {
        match Signal::try_from(signal) {
            Ok(s) => format!("signal {signal} ({})", s.as_str()),
            Err(_) => format!("signal {signal}"),
        }
    } else {
        status.to_string()
    }
}

/// A budget of log lines per time window; what goes over it is counted and summed up once the
/// window ends (a hook printing 200,000 lines must not print 200,000 warnings).
#[derive(Debug)]
struct LogBudget {
    window: Duration,
    per_window: u32,
    window_start: Instant,
    logged: u32,
    suppressed: u64,
}

impl LogBudget {
    fn new(options: &ProcessOptions) -> Self {
        LogBudget {
            window: options.stderr_window,
            per_window: options.stderr_lines_per_window,
            window_start: Instant::now(),
            logged: 0,
            suppressed: 0,
        }
    }

    /// Whether one more line may be logged now; `what` names the lines in the summary.
    fn allow(&mut self, name: &str, what: &str) -> bool {
        if self.window_start.elapsed() >= self.window {
            self.flush(name, what);
            self.window_start = Instant::now();
            self.logged = 0;
        }
        if self.logged < self.per_window {
            self.logged += 1;
            true
        } else {
            self.suppressed += 1;
            false
        }
    }

    /// Logs how many lines went unlogged, if any.
    fn flush(&mut self, name: &str, what: &str) {
        if self.suppressed > 0 {
            tracing::warn!(hook = %name, "{} {what} suppressed", self.suppressed);
            self.suppressed = 0;
        }
    }
}

/// Logs stderr lines at warn with the hook's name, rate-limited, and keeps the last lines.
async fn pump_stderr(stderr: ChildStderr, name: Arc<str>, tail: Arc<StderrTail>, options: ProcessOptions) {
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    let mut budget = LogBudget::new(&options);
    loop {
        let read = read_line_bounded(&mut reader, &mut buf, STDERR_LINE_LIMIT).await;
        let at_end = !matches!(read, Ok(LineRead::Line | LineRead::TooLong));
        if !buf.is_empty() || !at_end {
            let line = String::from_utf8_lossy(&buf).into_owned();
            buf.clear();
            if budget.allow(&name, "stderr lines") {
                tracing::warn!(hook = %name, "hook stderr: {}", head_chars(&line, 2000));
            }
            tail.push(line);
        }
        if at_end {
            break;
        }
    }
    budget.flush(&name, "stderr lines");
}

/// Kills the process group when dropped, so that a cancelled reader task (runtime shutdown)
/// leaves no process behind.
struct GroupGuard(Pid);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.0, Signal::SIGKILL);
    }
}

/// The task that owns the child, reads its stdout and owns the table of pending requests.
struct Reader {
    name: Arc<str>,
    child: Child,
    pgid: Pid,
    stdout: BufReader<ChildStdout>,
    commands: mpsc::UnboundedReceiver<Command_>,
    shutdown: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
    closed: watch::Sender<Option<HookError>>,
    outbox: Arc<Outbox>,
    tail: Arc<StderrTail>,
    stderr_task: JoinHandle<()>,
    options: ProcessOptions,
    pending: HashMap<i64, oneshot::Sender<Reply>>,
    /// Rate limit of the warnings about stdout lines that are not JSON-RPC.
    garbage: LogBudget,
}

impl Reader {
    async fn run(mut self) {
        let _guard = GroupGuard(self.pgid);
        let mut buf = Vec::new();
        let mut shutdown_ack = None;
        let mut sweep = tokio::time::interval(SWEEP_EVERY);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let end = loop {
            tokio::select! {
                biased;
                request = self.shutdown.recv() => {
                    // `None`: every handle on the process is gone.
                    shutdown_ack = request;
                    self.shutdown().await;
                    break HookError::Unavailable { message: format!("hook `{}` was shut down", self.name) };
                }
                _ = sweep.tick() => self.drain_commands(),
                read = read_line_bounded(&mut self.stdout, &mut buf, self.options.max_line_bytes) => match read {
                    Ok(LineRead::Line) => {
                        self.dispatch(&mut buf);
                        buf.clear();
                    }
                    Ok(LineRead::Eof) => {
                        let status = match timeout(Duration::from_millis(500), self.child.wait()).await {
                            Ok(Ok(status)) => describe_status(status),
                            _ => "closed its stdout while still running".to_owned(),
                        };
                        break self.exited(status).await;
                    }
                    Ok(LineRead::TooLong) => {
                        let limit = self.options.max_line_bytes;
                        tracing::error!(hook = %self.name, "printed a line over the {limit}-byte limit; restarting it");
                        break HookError::InvalidOutput {
                            message: format!(
                                "hook `{}` printed a line longer than the limit of {limit} bytes; the process \
                                 is restarted. Print one JSON object per line, or raise the limit \
                                 (ProcessOptions::max_line_bytes)",
                                self.name
                            ),
                            raw_head: head_chars(&String::from_utf8_lossy(&buf[..buf.len().min(800)]), 200),
                        };
                    }
                    Err(e) => break HookError::Unavailable {
                        message: format!("hook `{}`: reading its stdout failed: {e}", self.name),
                    },
                },
                status = self.child.wait() => {
                    let status = match status {
                        Ok(status) => describe_status(status),
                        Err(e) => format!("an unknown status ({e})"),
                    };
                    // Replies it wrote just before exiting are still in the pipe.
                    let limit = self.options.max_line_bytes;
                    while let Ok(Ok(LineRead::Line)) =
                        timeout(Duration::from_millis(50), read_line_bounded(&mut self.stdout, &mut buf, limit)).await
                    {
                        self.dispatch(&mut buf);
                        buf.clear();
                    }
                    break self.exited(status).await;
                }
            }
        };
        // Whatever ended the process, nothing of its group survives it (a grandchild holding
        // stdout open, or the process itself after an over-long line).
        kill_group(self.pgid, Signal::SIGKILL);
        let _ = timeout(Duration::from_secs(1), self.child.wait()).await;
        self.stderr_task.abort();
        let name = self.name.clone();
        self.garbage.flush(&name, "stdout lines that are not JSON-RPC");
        self.closed.send_replace(Some(end.clone()));
        for (_, pending) in self.pending.drain() {
            let _ = pending.send(Reply::Failed(end.clone()));
        }
        self.outbox.close();
        self.commands.close();
        while let Ok(command) = self.commands.try_recv() {
            if let Command_::Register(_, pending) = command {
                let _ = pending.send(Reply::Failed(end.clone()));
            }
        }
        self.shutdown.close();
        while let Ok(ack) = self.shutdown.try_recv() {
            let _ = ack.send(());
        }
        if let Some(ack) = shutdown_ack {
            let _ = ack.send(());
        }
    }

    fn drain_commands(&mut self) {
        while let Ok(command) = self.commands.try_recv() {
            match command {
                Command_::Register(id, reply) => {
                    self.pending.insert(id, reply);
                }
                Command_::Forget(id) => {
                    self.pending.remove(&id);
                }
            }
        }
    }

    async fn exited(&mut self, status: String) -> HookError {
        // Give the stderr pump a moment to read the last lines (the crash message).
        let _ = timeout(Duration::from_millis(200), &mut self.stderr_task).await;
        HookError::ProcessExited { status, stderr_tail: self.tail.text() }
    }

    /// A response whose `result` is kept as text: the id and the range of `result` in `line`.
    fn fast_response(line: &[u8]) -> Option<(Id, std::ops::Range<usize>)> {
        let response: FastResponse<'_> = serde_json::from_slice(line).ok()?;
        if response.error.is_some() || response.method.is_some() {
            return None;
        }
        let id = match response.id? {
            Value::Null => return None,
            id => serde_json::from_value::<Id>(id).ok()?,
        };
        let range = match response.result {
            Some(raw) => {
                let start = (raw.get().as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
                start..start + raw.get().len()
            }
            // A response whose `result` is missing is answered with `null`, as PicoClaw accepts it.
            None => return Some((id, 0..0)),
        };
        Some((id, range))
    }

    fn dispatch(&mut self, buf: &mut Vec<u8>) {
        // Registrations queued before the request was written must be seen before its reply.
        self.drain_commands();
        if buf.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some((id, range)) = Self::fast_response(buf) {
            let answer = if range.is_empty() {
                Answer::Value(Value::Null)
            } else if buf.len() > TAKE_LINE_ABOVE {
                Answer::Raw(std::mem::take(buf), range)
            } else {
                Answer::Raw(buf[range.clone()].to_vec(), 0..range.len())
            };
            self.deliver(id, Reply::Result(answer));
            return;
        }
        let line: &[u8] = buf;
        let (id, reply) = match Message::parse(line) {
            Ok(Message::Response(response)) => (response.id, Reply::Result(Answer::Value(response.result))),
            Ok(Message::Error(error)) => match error.id {
                Some(id) => (id, Reply::Error(error.error)),
                None => {
                    tracing::warn!(hook = %self.name, "error response without id: {}", error.error.message);
                    return;
                }
            },
            Ok(Message::Request(request)) => {
                tracing::debug!(hook = %self.name, method = %request.method, "the hook sent a request; hosts serve none");
                return;
            }
            Ok(Message::Notification(notification)) => {
                tracing::debug!(hook = %self.name, method = %notification.method, "the hook sent a notification; ignored");
                return;
            }
            Ok(_) => return,
            Err(e) => {
                if self.garbage.allow(&self.name, "stdout lines that are not JSON-RPC") {
                    let text = String::from_utf8_lossy(line);
                    tracing::warn!(hook = %self.name, "skipped a stdout line that is not JSON-RPC ({e}): {}", head_chars(&text, 200));
                }
                return;
            }
        };
        self.deliver(id, reply);
    }

    /// Hands a reply to the caller waiting for `id`.
    fn deliver(&mut self, id: Id, reply: Reply) {
        let Some(number) = id.as_number() else {
            tracing::warn!(hook = %self.name, %id, "reply with an id hookwire never sent; dropped");
            return;
        };
        match self.pending.remove(&number) {
            Some(pending) => {
                let _ = pending.send(reply);
            }
            None => tracing::debug!(hook = %self.name, id = number, "late or unknown reply dropped"),
        }
    }

    async fn shutdown(&mut self) {
        self.outbox.close();
        let options = &self.options;
        if timeout(options.close_grace, self.child.wait()).await.is_err() {
            tracing::debug!(hook = %self.name, "still running {} after stdin closed; SIGTERM", fmt_duration(options.close_grace));
            kill_group(self.pgid, Signal::SIGTERM);
            if timeout(options.term_grace, self.child.wait()).await.is_err() {
                tracing::warn!(hook = %self.name, "ignored SIGTERM for {}; SIGKILL", fmt_duration(options.term_grace));
                kill_group(self.pgid, Signal::SIGKILL);
                let _ = timeout(Duration::from_secs(1), self.child.wait()).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_line_shares_the_params_chunk() {
        let params: hook_core::SharedBytes = br#"{"tool":"t"}"#.to_vec().into();
        let line = request_line(7, "hook.before_tool", vec![Chunk::Shared(params.clone(), 0)]);
        assert_eq!(line.to_vec(), br#"{"jsonrpc":"2.0","id":7,"method":"hook.before_tool","params":{"tool":"t"}}"#.iter().chain(b"\n").copied().collect::<Vec<_>>());
        // The line holds the params, it did not copy them.
        assert!(line.chunk_addresses().contains(&params.as_ptr()));
    }

    #[test]
    fn responses_are_read_without_parsing_their_result() {
        let line = br#"{"jsonrpc":"2.0","id":"3","result":{"a":[1,2]}}"#;
        let (id, range) = Reader::fast_response(line).unwrap();
        assert_eq!(id.as_number(), Some(3));
        assert_eq!(&line[range], br#"{"a":[1,2]}"#);
        let (_, range) = Reader::fast_response(br#"{"id":1,"result":null}"#).unwrap();
        assert_eq!(range.len(), 4);
        let (_, range) = Reader::fast_response(br#"{"jsonrpc":"2.0","id":1}"#).unwrap();
        assert!(range.is_empty());
        // Errors, requests and notifications take the general path.
        assert!(Reader::fast_response(br#"{"id":1,"error":{"code":1,"message":"x"}}"#).is_none());
        assert!(Reader::fast_response(br#"{"id":1,"method":"m"}"#).is_none());
        assert!(Reader::fast_response(br#"{"method":"m"}"#).is_none());
        assert!(Reader::fast_response(b"not json").is_none());
    }
}
