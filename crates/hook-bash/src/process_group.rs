//! The hook's process group: a guard that SIGKILLs the whole group when a run is abandoned
//! (timeout, cap exceeded, cancellation by dropping the future), then reaps the leader.

use nix::{
    sys::signal::{Signal, killpg},
    unistd::Pid,
};
use tokio::process::{Child, ChildStdin};

/// Owns a spawned `sh` that leads its own process group (`process_group(0)`).
///
/// While armed, dropping the guard kills every process in the group, grandchildren included
/// (`sh -c 'sleep 30 & sleep 30'` leaves nothing behind), then reaps the leader on the runtime.
/// The kill happens before the leader is reaped whenever the leader is still running, so the
/// group id cannot have been reused by then.
#[derive(Debug)]
pub(crate) struct ProcessGroup {
    child: Option<Child>,
    pgid: Option<Pid>,
    is_armed: bool,
}

impl ProcessGroup {
    /// Guards `child`, which must have been spawned with `process_group(0)`.
    pub(crate) fn new(child: Child) -> Self {
        let pgid = child.id().and_then(|id| i32::try_from(id).ok()).map(Pid::from_raw);
        ProcessGroup { child: Some(child), pgid, is_armed: true }
    }

    /// The leader.
    pub(crate) fn child(&mut self) -> &mut Child {
        // `child` is only taken in `drop`.
        self.child.as_mut().expect("the child is present until the guard is dropped")
    }

    /// The run finished normally (the leader exited and its pipes closed): leave whatever the
    /// hook deliberately left running in the background alone.
    pub(crate) fn disarm(&mut self) {
        self.is_armed = false;
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.is_armed
            && let Some(pgid) = self.pgid
        {
            // ESRCH (everything already gone) is the only expected failure; nothing to do then.
            if let Err(error) = killpg(pgid, Signal::SIGKILL) {
                tracing::trace!(pgid = pgid.as_raw(), %error, "killpg");
            }
        }
        let Some(mut child) = self.child.take() else { return };
        if !self.is_armed {
            return;
        }
        // Reap the killed leader so it does not linger as a zombie. Without a runtime (the
        // future was dropped outside one), tokio's orphan queue reaps it later.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = child.wait().await;
            });
        }
    }
}

/// The default capacity of a Linux pipe; payloads that fit need no enlarging.
const DEFAULT_PIPE_BYTES: usize = 64 << 10;

/// The pipe size asked for large payloads (docs/design.md, "Performance principles").
const LARGE_PIPE_BYTES: usize = 1 << 20;

/// Enlarges the stdin pipe (up to 1 MiB) when the payload does not fit the default 64 KiB, so
/// the payload goes over in one or two writes instead of sixteen. Best effort: an unprivileged
/// process may be refused (pipe-user-pages-soft), and then the default pipe still works.
pub(crate) fn enlarge_stdin_pipe(stdin: &ChildStdin, payload_len: usize) {
    if payload_len <= DEFAULT_PIPE_BYTES {
        return;
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        let size = i32::try_from(payload_len.min(LARGE_PIPE_BYTES)).unwrap_or(i32::MAX);
        if let Err(error) = fcntl(stdin, FcntlArg::F_SETPIPE_SZ(size)) {
            tracing::trace!(%error, size, "F_SETPIPE_SZ refused; keeping the default pipe size");
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = (stdin, LARGE_PIPE_BYTES);
}
