//! Confines a hook's process with Landlock: the files it reads, writes and executes, the TCP
//! ports it connects to, the processes it signals; and with a seccomp filter, the sockets it
//! may create (no UDP, no Unix socket, no raw socket unless the network policy allows it). No root, no container, no daemon: the child
//! gives up its rights itself, between `fork` and `exec`, and every process it starts inherits
//! the restriction (a `setsid` or a double fork does not leave it).
//!
//! [`confine`] takes a [`SandboxPolicy`] and a `std::process::Command` (a
//! `tokio::process::Command` through `as_std_mut`), builds the Landlock ruleset in the parent
//! and the seccomp program in the parent, and installs a `pre_exec` step that only sets
//! `no_new_privs`, calls `landlock_restrict_self` and then `seccomp`. [`support`] probes the
//! kernel for `hookwire check`.
//!
//! What the kernel cannot enforce is decided by the policy's mode: `required` fails with
//! [`SandboxError::Unsupported`], naming the hook and what is missing; `best-effort` runs with
//! what there is and says what is missing in [`Applied::missing`]. See docs/sandbox.md.

use std::{
    fs, io,
    os::unix::{fs::DirBuilderExt, process::CommandExt},
    path::{Path, PathBuf},
    process::Command,
    sync::OnceLock,
};

pub use hook_protocol::sandbox::{NetworkPolicy, PathSet, SandboxMode, SandboxPolicy, WriteDefaults};
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus, NetPort, RestrictSelf,
    RestrictSelfError, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, Scope,
    path_beneath_rules,
};

mod seccomp;
pub use seccomp::{FilterError, SECCOMP_VAR};

/// What [`missing_at`] reports when a network-restricted policy cannot have its seccomp filter
/// (not Linux on x86_64 or aarch64, a kernel without seccomp filters, [`SECCOMP_VAR`]).
pub const SECCOMP_MISSING: &str = "UDP and Unix socket filtering (seccomp)";

/// Caps the Landlock ABI hookwire uses (`0`: behave as on a kernel without Landlock). For
/// testing degradation and for pinning behaviour across kernels; it can only lower the ABI.
pub const ABI_CAP_VAR: &str = "HOOKWIRE_LANDLOCK_ABI_MAX";

/// The environment variable naming a sandboxed hook's scratch directory.
pub const SCRATCH_VAR: &str = "HOOKWIRE_SCRATCH_DIR";

/// The ABI a `required` sandbox needs for its filesystem rules: 3, where truncation is
/// controlled (below it, `truncate(2)` is not checked, so a hook could empty any file it can
/// name, which defeats the write rules).
pub const REQUIRED_FS_ABI: u8 = 3;

/// The ABI a `required` sandbox with `network: none` or a port list needs: 4 (TCP rules).
pub const REQUIRED_NET_ABI: u8 = 4;

/// Directories every confined hook may read when `read` is a list: the programs, libraries and
/// system configuration a shell needs to start.
const SYSTEM_READ: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt", "/nix/store"];

/// Directories every confined hook may execute from when `exec` is a list: the dynamic loader
/// and the libraries it maps.
const SYSTEM_EXEC: &[&str] = &["/lib", "/lib32", "/lib64", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libexec"];

/// Devices a confined hook may always open for writing.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// What the kernel offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI hookwire uses: the kernel's, capped by what the `landlock` crate knows
    /// and by [`ABI_CAP_VAR`]; 0 when Landlock is unavailable.
    pub abi: u8,
    /// The ABI the kernel reports, when it is newer than the one used.
    pub kernel_abi: Option<i32>,
    /// Why Landlock is unavailable, when it is.
    pub unavailable: Option<&'static str>,
    /// Whether [`ABI_CAP_VAR`] lowered the ABI.
    pub is_capped: bool,
}

impl Support {
    /// `Landlock ABI 7`, `Landlock unavailable (not built into this kernel)`, ...
    pub fn describe(&self) -> String {
        match self.unavailable {
            Some(why) => format!("Landlock unavailable ({why})"),
            None => {
                let mut text = format!("Landlock ABI {}", self.abi);
                if let Some(kernel) = self.kernel_abi {
                    text.push_str(&format!(" (kernel reports {kernel})"));
                }
                if self.is_capped {
                    text.push_str(&format!(" (capped by {ABI_CAP_VAR})"));
                }
                text
            }
        }
    }
}

/// Whether the socket filter (seccomp) that confines UDP, Unix and other non-TCP sockets can be
/// installed here (`Err`: why not), probed once; `check` reports it beside [`support`].
pub fn socket_filter() -> Result<(), &'static str> {
    seccomp::available()
}

/// Probes the running kernel once (a `landlock_create_ruleset` version query; nothing is
/// restricted) and applies [`ABI_CAP_VAR`].
pub fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(|| {
        let status = RestrictSelf::default().no_new_privs(false).apply().map(|status| status.landlock);
        let (abi, kernel_abi, unavailable) = match status {
            Ok(LandlockStatus::Available { effective_abi, kernel_abi }) => (effective_abi as u8, kernel_abi, None),
            Ok(LandlockStatus::NotEnabled) => (0, None, Some("supported by the kernel but not enabled at boot")),
            Ok(LandlockStatus::NotImplemented) => (0, None, Some("not built into this kernel")),
            Err(_) => (0, None, Some("the kernel's answer was not understood")),
        };
        let cap = std::env::var(ABI_CAP_VAR).ok().and_then(|value| value.trim().parse::<u8>().ok());
        match cap {
            Some(cap) if cap < abi => Support {
                abi: cap,
                kernel_abi: Some(i32::from(abi)),
                unavailable: (cap == 0).then_some("disabled by HOOKWIRE_LANDLOCK_ABI_MAX=0"),
                is_capped: true,
            },
            _ => Support { abi, kernel_abi, unavailable, is_capped: false },
        }
    })
}

/// The places a policy's defaults and relative paths refer to.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// The project directory (writable by default; relative paths resolve against it).
    pub project: Option<PathBuf>,
    /// The hook's scratch directory, created if missing (see [`scratch_dir`]).
    pub scratch: Option<PathBuf>,
    /// The program run first (`/bin/sh`, the process hook's program): executable even when
    /// `exec` is a list.
    pub program: Option<PathBuf>,
}

/// What [`confine`] installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The Landlock ABI the ruleset was built for (0: none).
    pub abi: u8,
    /// Restrictions of the policy the kernel cannot enforce (empty: all enforced).
    pub missing: Vec<&'static str>,
}

impl Applied {
    /// `Landlock ABI 7` or `Landlock ABI 2, not enforced: truncation (ABI 3), TCP (ABI 4)`.
    pub fn describe(&self) -> String {
        if self.missing.is_empty() {
            format!("Landlock ABI {}", self.abi)
        } else {
            format!("Landlock ABI {}, not enforced: {}", self.abi, self.missing.join(", "))
        }
    }
}

/// Why a hook cannot be confined.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// `required`, and the kernel lacks something the policy needs.
    #[error(
        "hook `{hook}` has `sandbox: required`, but this system cannot enforce it ({support}; missing: {missing}); \
         run it on Linux 6.7 or later (x86_64 or aarch64) with Landlock and seccomp enabled, or set \
         `sandbox: best-effort` to run it with what the kernel offers"
    )]
    Unsupported {
        /// The hook.
        hook: String,
        /// What the kernel offers.
        support: String,
        /// What the policy needs and the kernel lacks.
        missing: String,
    },
    /// Compiling the seccomp filter failed.
    #[error("hook `{hook}`: could not build its seccomp filter: {source}")]
    Seccomp {
        /// The hook.
        hook: String,
        /// Why.
        #[source]
        source: FilterError,
    },
    /// Building the ruleset failed.
    #[error("hook `{hook}`: could not build its Landlock ruleset: {source}")]
    Ruleset {
        /// The hook.
        hook: String,
        /// The `landlock` crate's error.
        #[source]
        source: RulesetError,
    },
    /// The scratch directory could not be prepared.
    #[error("hook `{hook}`: could not prepare its scratch directory `{}`: {source}", dir.display())]
    Scratch {
        /// The hook.
        hook: String,
        /// The directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The default scratch directory of hook `name`: `$XDG_STATE_HOME/hookwire/scratch/<name>`
/// (`~/.local/state/...` without `XDG_STATE_HOME`); under the user's own state directory,
/// not the shared temp directory, so another user cannot plant it.
pub fn scratch_dir(name: &str) -> Option<PathBuf> {
    let state =
        std::env::var_os("XDG_STATE_HOME").filter(|dir| Path::new(dir).is_absolute()).map(PathBuf::from).or_else(
            || std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|home| Path::new(&home).join(".local/state")),
        )?;
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    let safe = if safe.is_empty() || safe.starts_with('.') { format!("_{safe}") } else { safe };
    Some(state.join("hookwire").join("scratch").join(safe))
}

/// What the kernel cannot enforce of `policy` at `abi`, with the ABI each needs.
pub fn missing_at(policy: &SandboxPolicy, abi: u8) -> Vec<&'static str> {
    let mut missing = Vec::new();
    if !policy.is_on() {
        return missing;
    }
    if abi < 1 {
        missing.push("filesystem rules (Landlock ABI 1)");
    } else if abi < REQUIRED_FS_ABI {
        missing.push("truncation (Landlock ABI 3)");
    }
    if policy.network != NetworkPolicy::Any && abi < REQUIRED_NET_ABI {
        missing.push("TCP rules (Landlock ABI 4)");
    }
    if policy.network != NetworkPolicy::Any && seccomp::available().is_err() {
        missing.push(SECCOMP_MISSING);
    }
    if abi < 6 {
        missing.push("signal and abstract Unix socket scoping (Landlock ABI 6)");
    }
    missing
}

/// Whether `missing` holds something a `required` sandbox cannot do without (everything but
/// the ABI 6 scoping, which is reported and documented but not demanded).
fn is_fatal(missing: &[&'static str]) -> bool {
    missing.iter().any(|what| !what.starts_with("signal"))
}

/// The effective [`Applied`] of `policy` here, without building anything: for `check`.
pub fn plan(policy: &SandboxPolicy) -> Applied {
    let abi = support().abi;
    Applied { abi, missing: missing_at(policy, abi) }
}

/// A directory at or under `preferred` that a confined hook may not write by default: not in
/// the system temp directory, which every sandbox with the standard write defaults may write.
/// When `preferred` lies there (a checkout cloned into `/tmp`, whose build's scratch dirs are
/// then in it too), `/var/tmp`, else `$HOME/.cache`. For tests and tools that need a place a
/// hook must not reach.
pub fn outside_default_writes(preferred: &Path) -> PathBuf {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let temp = canonical(&std::env::temp_dir());
    let home_cache = std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache"));
    [Some(preferred.to_path_buf()), Some(PathBuf::from("/var/tmp")), home_cache]
        .into_iter()
        .flatten()
        .find(|dir| {
            let _ = std::fs::create_dir_all(dir);
            dir.is_dir() && !canonical(dir).starts_with(&temp)
        })
        .unwrap_or_else(|| preferred.to_path_buf())
}

/// Confines the process `command` will start: builds the ruleset of `policy` for `places` now,
/// and installs a `pre_exec` step that sets `no_new_privs` and restricts the child with it.
/// Also sets [`SCRATCH_VAR`] when there is a scratch directory.
///
/// `Ok(None)` when the policy is `off` (nothing installed). A `required` policy the kernel cannot
/// enforce is [`SandboxError::Unsupported`]; `best-effort` installs what it can and lists the
/// rest in [`Applied::missing`].
pub fn confine(
    command: &mut Command,
    policy: &SandboxPolicy,
    places: &Places,
    hook: &str,
) -> Result<Option<Applied>, SandboxError> {
    if !policy.is_on() {
        return Ok(None);
    }
    let support = support();
    let abi_number = support.abi;
    let missing = missing_at(policy, abi_number);
    if policy.mode == SandboxMode::Required && is_fatal(&missing) {
        return Err(SandboxError::Unsupported {
            hook: hook.to_owned(),
            support: support.describe(),
            missing: missing.iter().filter(|m| !m.starts_with("signal")).copied().collect::<Vec<_>>().join(", "),
        });
    }
    if let Some(scratch) = &places.scratch
        && policy.write_defaults == WriteDefaults::Standard
    {
        prepare_scratch(scratch).map_err(|source| SandboxError::Scratch {
            hook: hook.to_owned(),
            dir: scratch.clone(),
            source,
        })?;
        command.env(SCRATCH_VAR, scratch);
    }
    let ruleset = if abi_number == 0 {
        None
    } else {
        Some(
            build(policy, places, abi_number)
                .map_err(|source| SandboxError::Ruleset { hook: hook.to_owned(), source })?,
        )
    };
    // Built whenever it can be: a `best-effort` policy without Landlock still gets it.
    let filter = if seccomp::available().is_ok() {
        seccomp::build(&policy.network).map_err(|source| SandboxError::Seccomp { hook: hook.to_owned(), source })?
    } else {
        None
    };
    install(command, ruleset, filter);
    Ok(Some(Applied { abi: abi_number, missing }))
}

/// Creates the scratch directory, private, and refuses a symbolic link in its place.
fn prepare_scratch(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(io::Error::other("it is not a directory (a symbolic link?)"));
    }
    Ok(())
}

/// `path` as the policy wrote it, made absolute: `~/x` under HOME, `x` under the project.
fn resolve(path: &str, places: &Places) -> Option<PathBuf> {
    if let Some(rest) = path.strip_prefix("~/").or_else(|| (path == "~").then_some("")) {
        let home = std::env::var_os("HOME").filter(|home| !home.is_empty())?;
        return Some(Path::new(&home).join(rest));
    }
    let path = Path::new(path);
    if path.is_absolute() {
        Some(path.to_path_buf())
    } else {
        places.project.as_ref().map(|project| project.join(path))
    }
}

/// Builds the ruleset in the parent: opening the rule paths and the ruleset fd allocates and
/// may fail, which must not happen between `fork` and `exec`.
fn build(policy: &SandboxPolicy, places: &Places, abi_number: u8) -> Result<RulesetCreated, RulesetError> {
    let abi = ABI::from(i32::from(abi_number));
    // Everything asked for is within `abi`, which the kernel supports: a failure is an error,
    // not something to skip silently.
    let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
    ruleset = ruleset.handle_access(AccessFs::from_all(abi))?;
    if policy.network != NetworkPolicy::Any && abi_number >= REQUIRED_NET_ABI {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    if abi_number >= 6 {
        ruleset = ruleset.scope(Scope::from_all(abi))?;
    }
    let mut created = ruleset.create()?;

    let read: BitFlags<AccessFs> = AccessFs::ReadFile | AccessFs::ReadDir;
    let exec_everywhere = policy.exec == PathSet::All;
    let read_rights = if exec_everywhere { read | AccessFs::Execute } else { read };
    let write_rights = read_rights | AccessFs::from_write(abi);

    let resolved = |paths: &[String]| paths.iter().filter_map(|p| resolve(p, places)).collect::<Vec<_>>();
    let mut writable: Vec<PathBuf> = places.project.iter().cloned().collect();
    if policy.write_defaults == WriteDefaults::Standard {
        writable.push(std::env::temp_dir());
        writable.extend(places.scratch.iter().cloned());
    }
    writable.extend(resolved(&policy.write));

    let readable: Vec<PathBuf> = match &policy.read {
        PathSet::All => vec![PathBuf::from("/")],
        PathSet::Only(paths) => {
            let mut readable = resolved(paths);
            readable.extend(SYSTEM_READ.iter().map(PathBuf::from));
            readable.extend(["/dev", "/proc"].iter().map(PathBuf::from));
            readable
        }
    };
    // A path that does not exist grants nothing: `path_beneath_rules` skips it.
    created = created.add_rules(path_beneath_rules(&readable, read_rights))?;
    created = created.add_rules(path_beneath_rules(&writable, write_rights))?;
    created = created.add_rules(path_beneath_rules(DEVICES, read | AccessFs::WriteFile | truncate(abi)))?;
    if let PathSet::Only(paths) = &policy.exec {
        let mut exec = resolved(paths);
        exec.extend(SYSTEM_EXEC.iter().map(PathBuf::from));
        exec.extend(places.program.iter().cloned());
        created = created.add_rules(path_beneath_rules(&exec, read | AccessFs::Execute))?;
    }
    if let NetworkPolicy::Ports(ports) = &policy.network
        && abi_number >= REQUIRED_NET_ABI
    {
        for port in ports {
            created = created.add_rule(NetPort::new(*port, AccessNet::ConnectTcp))?;
        }
    }
    Ok(created)
}

/// `Truncate` where the ABI knows it (writing to `/dev/null` with `>` truncates it).
fn truncate(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_write(abi) & AccessFs::Truncate
}

/// Installs the `pre_exec` step that enforces `ruleset` (or only `no_new_privs` without one),
/// then `filter`.
#[allow(unsafe_code)]
fn install(command: &mut Command, ruleset: Option<RulesetCreated>, filter: Option<seccomp::Filter>) {
    let mut ruleset = ruleset;
    let step = move || -> io::Result<()> {
        // `take` moves the ruleset out of this child's copy of the closure; the parent's copy
        // keeps its own and closes the fd when the `Command` is dropped.
        let result = match ruleset.take() {
            Some(ruleset) => ruleset.restrict_self().map(drop),
            None => RestrictSelf::default().apply().map(drop),
        };
        result.map_err(|error| io::Error::from_raw_os_error(errno_of(&error)))?;
        // After Landlock, which set `no_new_privs` (the kernel demands it of an unprivileged
        // filter). The spawn fails if the filter cannot be installed: never run half-confined.
        if let Some(filter) = &filter {
            seccomp::install(filter).map_err(io::Error::from_raw_os_error)?;
        }
        Ok(())
    };
    // SAFETY: `pre_exec` runs in the child between `fork` and `exec`, where only
    // async-signal-safe work is sound (another thread of the parent may have held the allocator's
    // lock at `fork`). The step allocates nothing: the ruleset (its fd, the opened rule paths and
    // every allocation) was built above in the parent; `restrict_self` makes two system calls
    // (`prctl(PR_SET_NO_NEW_PRIVS)`, `landlock_restrict_self`) and builds plain status values;
    // dropping the ruleset closes its fd; an error becomes a raw OS error, which does not
    // allocate. `RestrictSelf::default()` (no ruleset) makes a version query and the `prctl`.
    // The seccomp program was compiled in the parent too: installing it is a `prctl` and the
    // `seccomp` system call on a borrowed slice.
    unsafe {
        command.pre_exec(step);
    }
}

/// The errno of a restriction failure, for the spawn error; `EPERM` when there is none.
fn errno_of(error: &RulesetError) -> i32 {
    const EPERM: i32 = 1;
    match error {
        RulesetError::RestrictSelf(
            RestrictSelfError::SetNoNewPrivsCall { source, .. } | RestrictSelfError::RestrictSelfCall { source, .. },
        ) => source.raw_os_error().unwrap_or(EPERM),
        _ => EPERM,
    }
}
