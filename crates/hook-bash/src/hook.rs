//! `BashHook`: one `sh -c "<command>"` per event, bounded in time and in output.

use std::{
    collections::BTreeMap,
    ffi::OsStr,
    fmt, io,
    path::{Path, PathBuf},
    process::{ExitStatus, Stdio},
    sync::{Arc, OnceLock},
    time::{Duration, Instant},
};

use async_trait::async_trait;
use hook_core::{Hook, HookError, HookInput, HookOutput, head_chars, tail_chars};
use tokio::{
    io::AsyncWriteExt,
    process::{Child, ChildStderr, ChildStdin, ChildStdout, Command},
};

use crate::{
    env::{HookEnv, WorkDir},
    limits::{
        DEFAULT_MAX_STDERR_BYTES, DEFAULT_MAX_STDOUT_BYTES, LOG_HEAD_CHARS, ReadError, STDERR_TAIL_CHARS, fmt_bytes,
        read_capped,
    },
    output::{Speaker, describe_status, parse_stdout},
    process_group::{ProcessGroup, enlarge_stdin_pipe},
};

/// How a bash hook runs: its name for messages, its directory, environment and output caps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashOptions {
    /// The hook's name in messages and logs (empty: the start of the command).
    pub name: String,
    /// The hook's own directory (directory hooks): `JCLI_HOOK_DIR`, and first on `PATH`.
    pub dir: Option<PathBuf>,
    /// Variables added to the hook's environment (the hook's `env` map).
    pub env: BTreeMap<String, String>,
    /// Start from an empty environment and keep only [`SCRUBBED_ENV_KEEP`](crate::SCRUBBED_ENV_KEEP),
    /// the hook variables and `env`: for hooks the model registered, so they never see the host's
    /// secrets.
    pub scrub_env: bool,
    /// More stdout than this fails the run and kills the hook (default 1 MiB).
    pub max_stdout_bytes: usize,
    /// More stderr than this fails the run and kills the hook (default 64 KiB).
    pub max_stderr_bytes: usize,
}

impl Default for BashOptions {
    fn default() -> Self {
        BashOptions {
            name: String::new(),
            dir: None,
            env: BTreeMap::new(),
            scrub_env: false,
            max_stdout_bytes: DEFAULT_MAX_STDOUT_BYTES,
            max_stderr_bytes: DEFAULT_MAX_STDERR_BYTES,
        }
    }
}

/// A j-cli bash hook: runs `sh -c "<command>"` for each event, with the event's HookContext JSON
/// on stdin, and reads one HookResult JSON object from stdout.
///
/// The hook's deadline (`HookInput::deadline`) covers writing stdin, running and reading; when
/// it passes, or when the future returned by `call` is dropped, the hook's whole process group is
/// killed with SIGKILL.
pub struct BashHook {
    command: String,
    name: String,
    options: BashOptions,
}

impl fmt::Debug for BashHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BashHook").field("name", &self.name).field("command", &self.command).finish_non_exhaustive()
    }
}

/// A run that ended without being killed.
#[derive(Debug)]
struct Finished {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Which of the hook's output pipes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// Why a run was abandoned before it finished.
#[derive(Debug)]
enum Abandoned {
    OverCap { stream: Stream, head: Vec<u8> },
    Io { what: &'static str, error: io::Error },
}

impl BashHook {
    /// A hook running `command` with `sh -c`.
    pub fn new(command: impl Into<String>, options: BashOptions) -> Self {
        let command = command.into();
        let name = if options.name.is_empty() { head_chars(command.trim(), 40) } else { options.name.clone() };
        BashHook { command, name, options }
    }

    /// The command run with `sh -c`.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The options it runs with.
    pub fn options(&self) -> &BashOptions {
        &self.options
    }

    fn spawn(&self, input: &HookInput<'_>, work_dir: &WorkDir) -> Result<Child, HookError> {
        let mut command = Command::new(shell());
        command
            .arg("-c")
            .arg(&self.command)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        HookEnv {
            event: input.event,
            work_dir,
            hook_dir: self.options.dir.as_deref(),
            extra: &self.options.env,
            is_scrubbed: self.options.scrub_env,
        }
        .apply(&mut command);
        command.spawn().map_err(|error| self.spawn_failed(&error, input, work_dir))
    }

    fn spawn_failed(&self, error: &io::Error, input: &HookInput<'_>, work_dir: &WorkDir) -> HookError {
        let speaker = Speaker { name: &self.name, event: input.event };
        let message = match &work_dir.set {
            Some(dir) if error.kind() == io::ErrorKind::NotFound && !dir.is_dir() => format!(
                "{speaker}: its working directory `{}` (the session's cwd) does not exist: {error}",
                dir.display()
            ),
            _ if error.kind() == io::ErrorKind::NotFound => {
                format!(
                    "{speaker}: the shell `{}` was not found ({error}); bash hooks run with `sh -c`",
                    shell().display()
                )
            }
            _ => format!("{speaker}: {error}"),
        };
        HookError::SpawnFailed { command: head_chars(&self.command, 200), message }
    }

    fn abandoned(&self, abandoned: Abandoned, speaker: Speaker<'_>) -> HookError {
        match abandoned {
            Abandoned::OverCap { stream, head } => {
                let (cap, option) = match stream {
                    Stream::Stdout => (self.options.max_stdout_bytes, "max_stdout_bytes"),
                    Stream::Stderr => (self.options.max_stderr_bytes, "max_stderr_bytes"),
                };
                let head = String::from_utf8_lossy(&head[..head.len().min(1024)]);
                HookError::invalid_output(
                    format!(
                        "{speaker} printed more than {} on {} (the {} cap) and was stopped; print less{}, \
                         or raise the cap with `BashOptions::{option}`",
                        fmt_bytes(cap),
                        stream.as_str(),
                        stream.as_str(),
                        if stream == Stream::Stderr { " debug output" } else { "" },
                    ),
                    &head,
                )
            }
            Abandoned::Io { what, error } => {
                HookError::Unavailable { message: format!("{speaker}: {what} failed: {error}") }
            }
        }
    }
}

#[async_trait]
impl Hook for BashHook {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let started = Instant::now();
        let budget = round_to_millis(input.deadline.saturating_duration_since(started));
        if budget.is_zero() {
            return Err(HookError::Timeout { after: budget });
        }
        let speaker = Speaker { name: &self.name, event: input.event };
        let payload = input.hook_context_json();
        let work_dir = WorkDir::of(input.context);

        let mut child = self.spawn(input, &work_dir)?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Cannot happen: all three were asked for as pipes. Killing the group is still right.
            drop(ProcessGroup::new(child));
            return Err(HookError::Unavailable { message: format!("{speaker}: its pipes were not created") });
        };
        // From here on, every way out of this function (an error, a timeout, the caller dropping
        // the future) kills the group, unless the run finished and `disarm` was called.
        let mut group = ProcessGroup::new(child);
        enlarge_stdin_pipe(&stdin, payload.len());

        let limits = (self.options.max_stdout_bytes, self.options.max_stderr_bytes);
        let run = exchange(group.child(), stdin, stdout, stderr, payload, limits);
        let finished = match tokio::time::timeout_at(input.deadline.into(), run).await {
            Err(_elapsed) => {
                tracing::debug!(
                    hook = %self.name,
                    event = %input.event,
                    after = ?budget,
                    "bash hook timed out; killing its process group"
                );
                return Err(HookError::Timeout { after: budget });
            }
            Ok(Err(abandoned)) => return Err(self.abandoned(abandoned, speaker)),
            Ok(Ok(finished)) => finished,
        };
        group.disarm();

        tracing::debug!(
            hook = %self.name,
            event = %input.event,
            status = %finished.status,
            elapsed = ?started.elapsed(),
            stdout = %head_chars(&String::from_utf8_lossy(&finished.stdout), LOG_HEAD_CHARS),
            stderr = %head_chars(&String::from_utf8_lossy(&finished.stderr), LOG_HEAD_CHARS),
            "bash hook finished"
        );
        if !finished.status.success() {
            let stderr = String::from_utf8_lossy(&finished.stderr);
            return Err(HookError::ProcessExited {
                status: describe_status(finished.status, &stderr, &self.command),
                stderr_tail: tail_chars(stderr.trim_end(), STDERR_TAIL_CHARS),
            });
        }
        parse_stdout(&finished.stdout, speaker, input.context)
    }
}

/// Writes the payload, reads both outputs (bounded) and waits for the leader, all at once; done
/// when the leader has exited and both outputs are closed. A hook that never reads its stdin is
/// not waited for: the write is dropped (closing the pipe) once the rest is done.
async fn exchange(
    child: &mut Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: ChildStderr,
    payload: Arc<[u8]>,
    (max_stdout, max_stderr): (usize, usize),
) -> Result<Finished, Abandoned> {
    let over_cap = |stream: Stream| {
        move |error| match error {
            ReadError::OverCap(head) => Abandoned::OverCap { stream, head },
            ReadError::Io(error) => Abandoned::Io {
                what: if stream == Stream::Stdout { "reading its stdout" } else { "reading its stderr" },
                error,
            },
        }
    };
    let outputs = async {
        tokio::try_join!(
            async { read_capped(stdout, max_stdout).await.map_err(over_cap(Stream::Stdout)) },
            async { read_capped(stderr, max_stderr).await.map_err(over_cap(Stream::Stderr)) },
            async { child.wait().await.map_err(|error| Abandoned::Io { what: "waiting for it", error }) },
        )
    };
    let writer = write_stdin(stdin, payload);
    tokio::pin!(outputs, writer);
    let (stdout, stderr, status) = tokio::select! {
        result = &mut outputs => result?,
        () = &mut writer => outputs.await?,
    };
    Ok(Finished { status, stdout, stderr })
}

/// Writes the payload and closes stdin. A hook that exits without reading it makes the write
/// fail with BrokenPipe, which is not an error.
async fn write_stdin(mut stdin: ChildStdin, payload: Arc<[u8]>) {
    if let Err(error) = stdin.write_all(&payload).await
        && error.kind() != io::ErrorKind::BrokenPipe
    {
        tracing::debug!(%error, "writing a bash hook's stdin failed");
    }
}

/// `/bin/sh`, named by path: no PATH search (six failed `execve`s on a typical PATH), and a
/// directory hook's own directory, first on PATH, cannot shadow the shell. `sh` from PATH where
/// there is no `/bin/sh`.
fn shell() -> &'static OsStr {
    static SHELL: OnceLock<&'static OsStr> = OnceLock::new();
    SHELL.get_or_init(|| if Path::new("/bin/sh").exists() { OsStr::new("/bin/sh") } else { OsStr::new("sh") })
}

/// The budget as the user configured it: the engine computes the deadline a few microseconds
/// before `call`, so `999.98ms` is reported as `1s`.
fn round_to_millis(d: Duration) -> Duration {
    Duration::from_millis(u64::try_from((d.as_micros() + 500) / 1000).unwrap_or(u64::MAX))
}
