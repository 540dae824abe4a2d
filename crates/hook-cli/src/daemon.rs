//! The client side of `hookwire serve`: where a project's daemon listens, how to reach it, and
//! how to start it on first use.
//!
//! One daemon serves one user and project root. Its files live in a private (`0700`) directory:
//! `$XDG_RUNTIME_DIR/hookwire`, else `$XDG_CACHE_HOME/hookwire/run`, else
//! `~/.cache/hookwire/run`; each is named by a hash of the canonical project root (and of the
//! `HOME` and `XDG_CONFIG_HOME` its configuration is read from): `<key>.sock`, `<key>.lock`,
//! `<key>.pid`, `<key>.log`.
//!
//! Two clients: an async one ([`connect`], [`call`]) for callers that run a runtime anyway, and
//! a blocking one ([`connect_blocking`], [`call_blocking`]) for the bridge's warm path, which
//! answers through a running daemon before any async runtime exists.

use std::{
    fs, io,
    io::{BufRead as _, Read as _, Write as _},
    os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::OnceLock,
    time::{Duration, Instant},
};

use hook_protocol::{
    daemon::Method,
    jsonrpc::{Id, Message, Request, RpcError},
    serde_json,
};
use serde_json::Value;
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::UnixStream,
};

use crate::discover;

/// The blocking client's connection.
pub(crate) use std::os::unix::net::UnixStream as BlockingStream;

/// How long a caller that started the daemon waits for its socket.
pub(crate) const START_DEADLINE: Duration = Duration::from_millis(1500);

/// The largest response line a client reads.
const MAX_RESPONSE_BYTES: u64 = 256 << 20;

/// The files of one project's daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DaemonPaths {
    /// The private directory holding them.
    pub(crate) dir: PathBuf,
    /// The Unix socket.
    pub(crate) socket: PathBuf,
    /// Held locked (`flock`) by the running daemon: two daemons never serve one project.
    pub(crate) lock: PathBuf,
    /// The running daemon's process id.
    pub(crate) pid: PathBuf,
    /// The daemon's log.
    pub(crate) log: PathBuf,
}

/// The directory for daemon sockets, or `None` when neither `XDG_RUNTIME_DIR`,
/// `XDG_CACHE_HOME` nor `HOME` is set.
pub(crate) fn run_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(runtime) = var("XDG_RUNTIME_DIR").filter(|dir| dir.is_dir()) {
        return Some(runtime.join("hookwire"));
    }
    if let Some(cache) = var("XDG_CACHE_HOME") {
        return Some(cache.join("hookwire").join("run"));
    }
    var("HOME").map(|home| home.join(".cache").join("hookwire").join("run"))
}

/// The project root a call in `cwd` belongs to: what [`discover::project_root`] finds, else
/// `cwd` itself.
pub(crate) fn project_root(cwd: &Path) -> PathBuf {
    discover::project_root(cwd).unwrap_or_else(|| cwd.to_path_buf())
}

/// FNV-1a, 64 bits: stable across runs and builds.
pub(crate) fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for part in parts {
        for byte in part.iter().chain(&[0u8]) {
            hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// The daemon key of `root`: 16 hex digits.
pub(crate) fn key_of(root: &Path) -> String {
    let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let var = |name: &str| std::env::var_os(name).unwrap_or_default();
    let (home, config) = (var("HOME"), var("XDG_CONFIG_HOME"));
    format!(
        "{:016x}",
        fnv1a(&[root.as_os_str().as_encoded_bytes(), home.as_encoded_bytes(), config.as_encoded_bytes()])
    )
}

/// The daemon files of `root`.
pub(crate) fn paths_for(root: &Path) -> Option<DaemonPaths> {
    let dir = run_dir()?;
    let key = key_of(root);
    Some(DaemonPaths {
        socket: dir.join(format!("{key}.sock")),
        lock: dir.join(format!("{key}.lock")),
        pid: dir.join(format!("{key}.pid")),
        log: dir.join(format!("{key}.log")),
        dir,
    })
}

/// This process's user id (the owner of `/proc/self`).
pub(crate) fn own_uid() -> Option<u32> {
    fs::metadata("/proc/self").ok().map(|meta| meta.uid())
}

/// `dir` is a real directory of this user that no one else may enter; refuses anything else.
pub(crate) fn check_private_dir(dir: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(io::Error::other(format!("{} is not a directory", dir.display())));
    }
    if let Some(uid) = own_uid()
        && meta.uid() != uid
    {
        return Err(io::Error::other(format!(
            "{} belongs to user {}, not to this user ({uid}); remove it or set XDG_RUNTIME_DIR",
            dir.display(),
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(io::Error::other(format!(
            "{} is open to other users (mode {:o}); `chmod 700` it or remove it",
            dir.display(),
            meta.mode() & 0o777
        )));
    }
    Ok(())
}

/// Creates `dir` (and missing parents) `0700`, then checks it with [`check_private_dir`].
pub(crate) fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    match fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    check_private_dir(dir)
}

/// Identifies this build of hookwire: the executable's path, size and modification time. A
/// daemon refuses callers of another build (the binary was replaced while it ran).
pub(crate) fn build_id() -> &'static str {
    static BUILD: OnceLock<String> = OnceLock::new();
    BUILD.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        let (size, mtime) =
            fs::metadata(&exe).map(|m| (m.size(), m.mtime_nsec() as u64 ^ m.mtime() as u64)).unwrap_or_default();
        format!(
            "{}-{:016x}",
            env!("CARGO_PKG_VERSION"),
            fnv1a(&[exe.as_os_str().as_encoded_bytes(), &size.to_le_bytes(), &mtime.to_le_bytes()])
        )
    })
}

/// Why no daemon answered.
#[derive(Debug)]
pub(crate) enum ConnectError {
    /// No socket: no daemon runs for this project.
    NotRunning,
    /// A socket nobody listens on: its daemon died.
    Stale,
    /// The directory is not private, or another error: the daemon is not used.
    Unusable,
}

/// Connects to the daemon of `paths`, after checking that its directory is private.
pub(crate) async fn connect(paths: &DaemonPaths) -> Result<UnixStream, ConnectError> {
    match check_private_dir(&paths.dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ConnectError::NotRunning),
        Err(_) => return Err(ConnectError::Unusable),
    }
    match UnixStream::connect(&paths.socket).await {
        Ok(stream) => Ok(stream),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ConnectError::NotRunning),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => Err(ConnectError::Stale),
        Err(_) => Err(ConnectError::Unusable),
    }
}

/// Starts `hookwire serve` for `root` in the background: its own process group, stdin and
/// stdout closed, stderr to the daemon's log, and without the caller's `CLAUDE_ENV_FILE` (a
/// session's, which the daemon gets per call instead).
pub(crate) fn start(paths: &DaemonPaths, root: &Path) -> io::Result<()> {
    ensure_private_dir(&paths.dir)?;
    let log = fs::OpenOptions::new().create(true).append(true).mode(0o600).open(&paths.log)?;
    let exe = std::env::current_exe()?;
    let mut command = Command::new(exe);
    command
        .arg("serve")
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .env_remove("CLAUDE_ENV_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    // The child is not waited for: it outlives this process, whose exit hands it to init.
    command.spawn().map(drop)
}

/// Connects to the daemon of `paths`, retrying until `deadline` passes.
pub(crate) async fn wait_for(paths: &DaemonPaths, deadline: Duration) -> Option<UnixStream> {
    let until = Instant::now() + deadline;
    loop {
        match connect(paths).await {
            Ok(stream) => return Some(stream),
            Err(ConnectError::Unusable) => return None,
            Err(ConnectError::NotRunning | ConnectError::Stale) if Instant::now() < until => {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Err(_) => return None,
        }
    }
}

/// A call that got no result.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The connection failed or closed before the answer (the daemon died mid-call).
    Io(io::Error),
    /// The answer was not a JSON-RPC response to the call.
    Protocol(String),
    /// The daemon answered with an error.
    Rpc(RpcError),
    /// The request may have reached the daemon, which will not answer (it is stopped or gone,
    /// or hangs): the message says why and what to do. Its hooks may have run, so the caller
    /// must not run them again.
    NoAnswer(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Io(e) => write!(f, "the daemon's connection failed: {e}"),
            CallError::Protocol(e) => write!(f, "the daemon's answer is not understood: {e}"),
            CallError::Rpc(e) => write!(f, "the daemon refused the call ({}): {}", e.code, e.message),
            CallError::NoAnswer(reason) => f.write_str(reason),
        }
    }
}

/// The request line of a call with id 1: compact JSON and its newline.
pub(crate) fn request_line(method: Method, params: Value) -> Result<Vec<u8>, CallError> {
    let mut line = serde_json::to_vec(&Request::new(Id::Number(1), method.as_str(), params))
        .map_err(|e| CallError::Protocol(e.to_string()))?;
    line.push(b'\n');
    Ok(line)
}

/// The result of the answer line `answer` (read up to and including its newline).
fn read_answer(answer: &[u8]) -> Result<Value, CallError> {
    if !answer.ends_with(b"\n") {
        return Err(CallError::Io(io::Error::new(io::ErrorKind::UnexpectedEof, "the daemon closed the connection")));
    }
    match Message::parse(answer.trim_ascii_end()).map_err(|e| CallError::Protocol(e.to_string()))? {
        Message::Response(response) => Ok(response.result),
        Message::Error(error) => Err(CallError::Rpc(error.error)),
        _ => Err(CallError::Protocol("expected a response".into())),
    }
}

/// One request on `stream`, and its answer.
pub(crate) async fn call(stream: &mut UnixStream, method: Method, params: Value) -> Result<Value, CallError> {
    let line = request_line(method, params)?;
    let (read, mut write) = stream.split();
    write.write_all(&line).await.map_err(CallError::Io)?;
    let mut reader = BufReader::new(read).take(MAX_RESPONSE_BYTES);
    let mut answer = Vec::new();
    reader.read_until(b'\n', &mut answer).await.map_err(CallError::Io)?;
    read_answer(&answer)
}

/// [`call`] that watches the daemon of `paths` as [`call_blocking`] does: it gives up with
/// [`CallError::NoAnswer`] when the daemon is stopped or gone, or after [`MAX_WAIT`].
pub(crate) async fn call_watching(
    stream: &mut UnixStream,
    method: Method,
    params: Value,
    paths: &DaemonPaths,
) -> Result<Value, CallError> {
    let started = Instant::now();
    let line = request_line(method, params)?;
    let (read, mut write) = stream.split();
    match tokio::time::timeout(WRITE_TIMEOUT, write.write_all(&line)).await {
        Ok(written) => written.map_err(CallError::Io)?,
        Err(_) => return Err(no_answer(paths, started, "did not read the request")),
    }
    let mut reader = BufReader::new(read).take(MAX_RESPONSE_BYTES);
    let mut answer = Vec::new();
    loop {
        // A read cut by the timeout keeps what it read in `answer`; the next one goes on.
        match tokio::time::timeout(PROBE_EVERY, reader.read_until(b'\n', &mut answer)).await {
            Ok(read) => {
                read.map_err(|e| died_mid_call(&e.to_string()))?;
                return read_after_send(&answer);
            }
            Err(_) => {
                if let Some(error) = gave_up(paths, started) {
                    return Err(error);
                }
            }
        }
    }
}

/// [`connect`] without an async runtime: a plain blocking socket.
pub(crate) fn connect_blocking(paths: &DaemonPaths) -> Result<BlockingStream, ConnectError> {
    match check_private_dir(&paths.dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ConnectError::NotRunning),
        Err(_) => return Err(ConnectError::Unusable),
    }
    match BlockingStream::connect(&paths.socket) {
        Ok(stream) => Ok(stream),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ConnectError::NotRunning),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => Err(ConnectError::Stale),
        Err(_) => Err(ConnectError::Unusable),
    }
}

/// [`call`] without an async runtime: writes `line` (a whole request line, see
/// [`request_line`]) on `stream` and reads the answer of the daemon of `paths`.
///
/// A running daemon bounds every fire with its hooks' deadlines, so the wait for its answer has
/// no deadline of its own short of [`MAX_WAIT`]; what it watches instead is whether the daemon
/// can still answer at all: every [`PROBE_EVERY`] without an answer it reads the daemon's state
/// (see [`daemon_state`]), and gives up with [`CallError::NoAnswer`] as soon as the daemon is
/// stopped (SIGSTOP, a debugger) or gone. Writing the request is bounded by [`WRITE_TIMEOUT`]: a
/// daemon that reads nothing fills the socket's buffer with a large input.
pub(crate) fn call_blocking(stream: &BlockingStream, line: &[u8], paths: &DaemonPaths) -> Result<Value, CallError> {
    let started = Instant::now();
    stream.set_write_timeout(Some(WRITE_TIMEOUT)).map_err(CallError::Io)?;
    let mut writer = stream;
    if let Err(e) = writer.write_all(line) {
        return Err(match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                no_answer(paths, started, "did not read the request")
            }
            _ => CallError::Io(e),
        });
    }
    stream.set_read_timeout(Some(PROBE_EVERY)).map_err(CallError::Io)?;
    let mut reader = io::BufReader::new(stream).take(MAX_RESPONSE_BYTES);
    let mut answer = Vec::new();
    loop {
        // On a timeout, what was read stays in `answer` and the next read goes on from there.
        match reader.read_until(b'\n', &mut answer) {
            Ok(_) => return read_after_send(&answer),
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                if let Some(error) = gave_up(paths, started) {
                    return Err(error);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(died_mid_call(&e.to_string())),
        }
    }
}

/// The answer read after the request was sent: a connection closed before a whole answer
/// means the daemon died mid-call, after its hooks may have run.
fn read_after_send(answer: &[u8]) -> Result<Value, CallError> {
    if !answer.ends_with(b"\n") {
        return Err(died_mid_call("the connection closed before a whole answer"));
    }
    read_answer(answer)
}

/// The daemon died (or dropped the connection) after the request reached it: its hooks may
/// have run, so the caller must not run them again (a guard that denied must not be asked twice,
/// a hook with side effects must not act twice).
fn died_mid_call(what: &str) -> CallError {
    CallError::NoAnswer(format!(
        "the project's daemon stopped answering mid-call ({what}); its hooks may have run, so hookwire does not run them again; the next call starts a new daemon (or use `hookwire hook --no-daemon`)"
    ))
}

/// How long writing a request may take: a daemon reads requests as they come.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// How often a client that waits for an answer looks at the daemon's state.
const PROBE_EVERY: Duration = Duration::from_millis(200);

/// The longest a client waits for the answer of a daemon that runs: the deadline `hookwire
/// install` gives its entries (an agent kills the hook then anyway), plus a grace period. A
/// daemon's answer is bounded by its hooks' deadlines long before that; this only ends the wait
/// on a daemon that runs but hangs.
const MAX_WAIT: Duration = Duration::from_secs(610);

/// What a waiting client knows of the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DaemonState {
    /// It runs (or its state cannot be read: no pid file, another user's `/proc`).
    Running,
    /// Stopped by a signal or a debugger: it answers nothing until resumed. Its pid.
    Stopped(u32),
    /// Its process is gone or a zombie. Its pid.
    Gone(u32),
}

/// The state of the daemon of `paths`, from its pid file and `/proc/<pid>/stat`.
fn daemon_state(paths: &DaemonPaths) -> DaemonState {
    let Some(pid) = fs::read_to_string(&paths.pid).ok().and_then(|text| text.trim().parse::<u32>().ok()) else {
        return DaemonState::Running;
    };
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { return DaemonState::Gone(pid) };
    // `pid (comm) S ...`: the state follows the last `)` (the command name may hold one).
    match stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()) {
        Some('T' | 't') => DaemonState::Stopped(pid),
        Some('Z' | 'X' | 'x') => DaemonState::Gone(pid),
        _ => DaemonState::Running,
    }
}

/// Whether a client waiting since `started` should stop waiting: the error it ends with.
fn gave_up(paths: &DaemonPaths, started: Instant) -> Option<CallError> {
    match daemon_state(paths) {
        DaemonState::Stopped(_) | DaemonState::Gone(_) => Some(no_answer(paths, started, "did not answer")),
        DaemonState::Running if started.elapsed() >= MAX_WAIT => Some(no_answer(paths, started, "did not answer")),
        DaemonState::Running => None,
    }
}

/// [`CallError::NoAnswer`] with what the daemon of `paths` is and what the user can do.
fn no_answer(paths: &DaemonPaths, started: Instant, what: &str) -> CallError {
    let waited = started.elapsed().as_secs_f64();
    let (why, fix) = match daemon_state(paths) {
        DaemonState::Stopped(pid) => (
            format!("it is stopped (pid {pid}: SIGSTOP or a debugger)"),
            format!("resume it with `kill -CONT {pid}`, or end it with `kill -KILL {pid}`"),
        ),
        DaemonState::Gone(pid) => (
            format!("its process (pid {pid}) is gone"),
            "the next call starts a new one if the configuration has a process hook".to_owned(),
        ),
        DaemonState::Running => (
            "it runs but gave no answer".to_owned(),
            format!("look at its log {} and end it (its pid is in {})", paths.log.display(), paths.pid.display()),
        ),
    };
    CallError::NoAnswer(format!(
        "the hookwire daemon of this project {what} within {waited:.1} s: {why}; {fix}; `--no-daemon` or \
         HOOKWIRE_NO_DAEMON=1 fires without it. The hooks were not run again here: some may have run in the daemon"
    ))
}

/// [`request_shutdown`] without an async runtime.
pub(crate) fn request_shutdown_blocking(paths: &DaemonPaths) {
    if let Ok(stream) = connect_blocking(paths)
        && let Ok(line) = request_line(Method::Shutdown, Value::Null)
    {
        let _ = call_blocking(&stream, &line, paths);
    }
}

/// Asks the daemon of `paths` to stop; quiet when none runs.
pub(crate) async fn request_shutdown(paths: &DaemonPaths) {
    if let Ok(mut stream) = connect(paths).await {
        let _ = call(&mut stream, Method::Shutdown, Value::Null).await;
    }
}
