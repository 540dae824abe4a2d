//! `BashHook`: one `sh -c "<command>"` per event, bounded in time and in output.

use std::{
    collections::BTreeMap,
    fmt, io,
    path::{Path, PathBuf},
    process::Stdio,
    sync::atomic::AtomicBool,
    time::Instant,
};

use async_trait::async_trait;
use hook_core::{Hook, HookError, HookInput, HookOutput, head_chars, tail_chars};
use hook_protocol::config::SandboxPolicy;
use tokio::process::{Child, Command};

use crate::{
    env::{HookEnv, WorkDir},
    limits::{DEFAULT_MAX_STDERR_BYTES, DEFAULT_MAX_STDOUT_BYTES, LOG_HEAD_CHARS, STDERR_TAIL_CHARS, fmt_bytes},
    output::{Speaker, describe_status, parse_stdout},
    process_group::{ProcessGroup, enlarge_stdin_pipe},
    run::{Abandoned, Stream, exchange, round_to_millis, shell},
};

/// How a bash hook runs: its name for messages, its directory, environment and output caps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashOptions {
    /// The hook's name in messages and logs (empty: the start of the command).
    pub name: String,
    /// The hook's own directory (directory hooks): `JCLI_HOOK_DIR`, and first on `PATH`.
    pub dir: Option<PathBuf>,
    /// The directory the hook runs in whatever the session's (a project hook's project root,
    /// [`hook_core::HookSpec::work_dir`]); `None`: the session's `cwd`, else the host's.
    pub work_dir: Option<PathBuf>,
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
    /// The sandbox the shell and everything it starts run under (docs/sandbox.md); `None`:
    /// unconfined.
    pub sandbox: Option<SandboxPolicy>,
}

impl Default for BashOptions {
    fn default() -> Self {
        BashOptions {
            name: String::new(),
            dir: None,
            work_dir: None,
            env: BTreeMap::new(),
            scrub_env: false,
            max_stdout_bytes: DEFAULT_MAX_STDOUT_BYTES,
            max_stderr_bytes: DEFAULT_MAX_STDERR_BYTES,
            sandbox: None,
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
    /// Whether the sandbox's shortfall (best-effort on an older kernel) was logged.
    sandbox_warned: AtomicBool,
}

impl fmt::Debug for BashHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BashHook").field("name", &self.name).field("command", &self.command).finish_non_exhaustive()
    }
}

impl BashHook {
    /// A hook running `command` with `sh -c`.
    pub fn new(command: impl Into<String>, options: BashOptions) -> Self {
        let command = command.into();
        let name = if options.name.is_empty() { head_chars(command.trim(), 40) } else { options.name.clone() };
        BashHook { command, name, options, sandbox_warned: AtomicBool::new(false) }
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
        crate::sandbox::apply(
            &mut command,
            self.options.sandbox.as_ref(),
            &self.name,
            work_dir.set.as_deref(),
            Path::new(shell()),
            &self.sandbox_warned,
        )
        .map_err(|message| HookError::SpawnFailed {
            command: head_chars(&self.command, 200),
            message: format!("{}: {message}", Speaker { name: &self.name, event: input.event }),
        })?;
        command.spawn().map_err(|error| self.spawn_failed(&error, input, work_dir))
    }

    fn spawn_failed(&self, error: &io::Error, input: &HookInput<'_>, work_dir: &WorkDir) -> HookError {
        let speaker = Speaker { name: &self.name, event: input.event };
        let message = match &work_dir.set {
            Some(dir) if error.kind() == io::ErrorKind::NotFound && !dir.is_dir() => format!(
                "{speaker}: its working directory `{}` ({}) does not exist: {error}",
                dir.display(),
                if self.options.work_dir.is_some() { "its project's root" } else { "the session's cwd" }
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
        let work_dir = WorkDir::of(input.context, self.options.work_dir.as_deref());

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
