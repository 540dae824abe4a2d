//! Keeping hook processes inside hookwire's reach.
//!
//! Hooks run in process groups of their own, which hookwire kills on a deadline or when the
//! command ends. A descendant can still leave its group (`setsid`, a double fork): it is then
//! re-parented to the nearest *child subreaper*, which hookwire makes itself, so such orphans
//! become hookwire's children. On SIGINT, SIGTERM or SIGHUP, [`kill_adopted`] kills them.
//!
//! What is not contained: a descendant that outlives a hook that ended normally while hookwire
//! keeps running, and anything once hookwire is killed with SIGKILL (the kernel then re-parents
//! orphans to the next subreaper or to init). A cgroup would contain both; hookwire does not
//! create one.

use std::{fs, path::Path, time::Duration};

use nix::{
    sys::{
        signal::{Signal, kill},
        wait::{WaitPidFlag, waitpid},
    },
    unistd::Pid,
};

/// Makes hookwire the child subreaper of everything it starts (Linux; a no-op elsewhere).
pub(crate) fn become_subreaper() {
    if let Err(error) = nix::sys::prctl::set_child_subreaper(true) {
        // Not Linux, or not allowed: orphans then go to init, as they would without hookwire.
        let _ = error;
    }
}

/// The variable naming the file a re-executed hookwire reads its environment from.
const ENVIRONMENT_FILE: &str = "HOOKWIRE_ENVIRONMENT_FILE";

/// Keeps hookwire's environment (API keys) out of `/proc/<hookwire>/environ`, where a hook
/// started with a scrubbed environment could otherwise read it through `/proc/$PPID/environ` —
/// as root, whatever the process's dumpable flag.
///
/// The first time, it writes the environment to a private file and re-executes hookwire (same
/// pid, same arguments) with an environment naming only that file; the second time it reads the
/// file back into the process (not into its initial environment block, which is what
/// `/proc/<pid>/environ` shows), deletes it, and marks the process non-dumpable. A process of
/// the same user that may trace hookwire (root) can still read its memory; see
/// `docs/design.md` ("What a session hook can reach").
pub(crate) fn hide_environment() {
    if let Some(file) = std::env::var_os(ENVIRONMENT_FILE) {
        restore_environment(Path::new(&file));
    } else if let Err(error) = reexec_without_environment() {
        eprintln!("warning: hookwire's environment stays readable by its hooks: {error}");
    }
    if let Err(error) = nix::sys::prctl::set_dumpable(false) {
        eprintln!("warning: cannot mark hookwire non-dumpable: {error}");
    }
}

fn reexec_without_environment() -> std::io::Result<()> {
    use std::{
        io::Write,
        os::unix::{ffi::OsStrExt, fs::OpenOptionsExt, process::CommandExt},
    };
    let exe = std::env::current_exe()?;
    let dir = std::env::temp_dir();
    let file = dir.join(format!("hookwire-env-{}-{}", std::process::id(), nanos()));
    let mut out = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&file)?;
    let mut bytes = Vec::new();
    for (key, value) in std::env::vars_os() {
        bytes.extend_from_slice(key.as_bytes());
        bytes.push(b'=');
        bytes.extend_from_slice(value.as_bytes());
        bytes.push(0);
    }
    out.write_all(&bytes)?;
    drop(out);
    // `exec` only returns on failure.
    let error = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env_clear()
        .env(ENVIRONMENT_FILE, &file)
        .exec();
    let _ = fs::remove_file(&file);
    Err(error)
}

#[allow(unsafe_code, reason = "setting the environment before any other thread exists")]
fn restore_environment(file: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let bytes = fs::read(file).unwrap_or_default();
    let _ = fs::remove_file(file);
    // SAFETY: called from `main` before the async runtime (or any other thread) starts, so no
    // other thread reads or writes the environment concurrently.
    unsafe {
        std::env::remove_var(ENVIRONMENT_FILE);
        for entry in bytes.split(|b| *b == 0).filter(|e| !e.is_empty()) {
            if let Some(eq) = entry.iter().position(|b| *b == b'=') {
                let key = std::ffi::OsStr::from_bytes(&entry[..eq]);
                let value = std::ffi::OsStr::from_bytes(&entry[eq + 1..]);
                if !key.is_empty() {
                    std::env::set_var(key, value);
                }
            }
        }
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default()
}

/// The pids of hookwire's live child processes.
fn children() -> Vec<Pid> {
    let me = std::process::id().to_string();
    let Ok(entries) = fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            // `/proc/<pid>/stat`: "pid (comm) state ppid ..."; comm may hold spaces and parens.
            let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else { return false };
            let mut fields = after.split_whitespace();
            let state = fields.next();
            let ppid = fields.next();
            state != Some("Z") && ppid == Some(me.as_str()) && !is_daemon(*pid)
        })
        .map(Pid::from_raw)
        .collect()
}

/// Whether `pid` is a `hookwire serve` daemon (which a bridge starts, detached, as its child):
/// it outlives the call on purpose.
fn is_daemon(pid: i32) -> bool {
    let Ok(cmdline) = fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let mut args = cmdline.split(|b| *b == 0);
    let exe = fs::read_link(format!("/proc/{pid}/exe")).ok();
    let is_hookwire = exe.is_some() && exe == std::env::current_exe().ok();
    args.next();
    is_hookwire && args.next() == Some(b"serve".as_slice())
}

/// Kills every process hookwire still has as a child (hooks' leftovers, orphans it adopted as
/// subreaper) and reaps them; bounded, since killing one may hand over its own children.
pub(crate) fn kill_adopted() {
    for _ in 0..50 {
        let left = children();
        if left.is_empty() {
            return;
        }
        for pid in &left {
            let _ = kill(*pid, Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(10));
        while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            if status == nix::sys::wait::WaitStatus::StillAlive {
                break;
            }
        }
    }
}
