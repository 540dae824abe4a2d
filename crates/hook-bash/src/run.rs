//! One run of a shell command with a payload on stdin: what both kinds of command hook (j-cli
//! `bash` and the Claude Code family's `command`) share.

use std::{ffi::OsStr, io, path::Path, process::ExitStatus, sync::OnceLock, time::Duration};

use hook_core::SharedBytes;
use tokio::{
    io::AsyncWriteExt,
    process::{Child, ChildStderr, ChildStdin, ChildStdout},
};

use crate::limits::{ReadError, read_capped};

/// A run that ended without being killed.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
}

/// Which of the hook's output pipes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// Why a run was abandoned before it finished.
#[derive(Debug)]
pub(crate) enum Abandoned {
    OverCap { stream: Stream, head: Vec<u8> },
    Io { what: &'static str, error: io::Error },
}

/// Writes the payload, reads both outputs (bounded) and waits for the leader, all at once; done
/// when the leader has exited and both outputs are closed. A hook that never reads its stdin is
/// not waited for: the write is dropped (closing the pipe) once the rest is done.
pub(crate) async fn exchange(
    child: &mut Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: ChildStderr,
    payload: SharedBytes,
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
/// fail (BrokenPipe), which is not an error.
pub(crate) async fn write_stdin(mut stdin: ChildStdin, payload: SharedBytes) {
    if let Err(error) = stdin.write_all(&payload).await
        && error.kind() != io::ErrorKind::BrokenPipe
    {
        tracing::debug!(%error, "writing a command hook's stdin failed");
    }
}

/// `/bin/sh`, named by path: no PATH search (six failed `execve`s on a typical PATH), and a
/// directory hook's own directory, first on PATH, cannot shadow the shell. `sh` from PATH where
/// there is no `/bin/sh`.
pub(crate) fn shell() -> &'static OsStr {
    static SHELL: OnceLock<&'static OsStr> = OnceLock::new();
    SHELL.get_or_init(|| if Path::new("/bin/sh").exists() { OsStr::new("/bin/sh") } else { OsStr::new("sh") })
}

/// The budget as the user configured it: the engine computes the deadline a few microseconds
/// before `call`, so `999.98ms` is reported as `1s`.
pub(crate) fn round_to_millis(d: Duration) -> Duration {
    Duration::from_millis(u64::try_from((d.as_micros() + 500) / 1000).unwrap_or(u64::MAX))
}
