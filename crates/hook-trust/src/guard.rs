//! The content that runs is the content that was trusted: a [`TrustGuard`] re-checks a
//! trusted project's files before each run of its hooks, and [`guarded`] makes a factory's
//! hooks do so.
//!
//! # What remains racy
//!
//! The check is a stat of each file (device, inode, size, modification and change times),
//! and a full re-hash of those whose stat changed, or changed within two seconds of being
//! hashed (a write in the same clock tick as the read may leave the times as they were). It
//! runs just before the hook starts; between the check and the moment the hook's process reads
//! a file (exec, `source`, `import`) someone who can write the project can still swap the
//! file: that window (time of check to time of use) is not closed, it is made short. The
//! content also changes under a process hook that is already running; such a process is
//! re-checked when it restarts and before each call it answers.

use std::{
    ffi::OsString,
    fmt,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use async_trait::async_trait;

use super::files::{self, ABSENT, Stat};
use hook_core::{
    BuildError, BuiltHook, Deadlines, Event, GuardViolation, Hook, HookError, HookFactory, HookInput, HookOutput,
    HookSpec, RunGuard, SpecGuard,
};

/// Seconds within which a file's times do not vouch for its content (see the module docs).
const RACY_SECONDS: i64 = 2;

/// A file of a trusted project, as it was when trusted.
#[derive(Debug)]
struct GuardFile {
    /// The path read.
    path: PathBuf,
    /// Relative to the root, for messages.
    key: PathBuf,
    /// The record value: a hash, or [`ABSENT`], ...
    expected: String,
}

/// A folder every file of which is covered.
#[derive(Debug)]
struct GuardDir {
    path: PathBuf,
    key: PathBuf,
    names: Vec<OsString>,
}

/// The last stat that matched, and when it was taken.
#[derive(Debug, Clone, Copy)]
struct Seen {
    stat: Stat,
    at: SystemTime,
}

#[derive(Debug)]
struct Inner {
    root: PathBuf,
    files: Vec<GuardFile>,
    dirs: Vec<GuardDir>,
    seen_files: Mutex<Vec<Option<Seen>>>,
    seen_dirs: Mutex<Vec<Option<Seen>>>,
}

/// What a trusted project's hooks may run: the state of each of its files when the trust was
/// checked. [`TrustGuard::verify`] says whether that still holds.
///
/// The loader attaches one to every spec of a trusted project ([`HookSpec::trust`]); clones
/// share it.
#[derive(Clone)]
pub struct TrustGuard(Arc<Inner>);

impl fmt::Debug for TrustGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrustGuard").field("root", &self.0.root).field("files", &self.0.files.len()).finish()
    }
}

impl PartialEq for TrustGuard {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A trusted project's file no longer is what was trusted (the engine's [`GuardViolation`]).
pub type TrustViolation = GuardViolation;

/// One file of a snapshot: where, its record value, its stat when it was hashed.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotFile {
    pub(crate) key: PathBuf,
    pub(crate) path: PathBuf,
    pub(crate) value: String,
    pub(crate) stat: Option<Stat>,
}

/// A folder of a snapshot and its names.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotDir {
    pub(crate) key: PathBuf,
    pub(crate) path: PathBuf,
    pub(crate) names: Vec<OsString>,
    pub(crate) stat: Option<Stat>,
}

/// The state of a project's files at one moment.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    pub(crate) files: Vec<SnapshotFile>,
    pub(crate) dirs: Vec<SnapshotDir>,
    pub(crate) at: Option<SystemTime>,
}

impl Snapshot {
    /// Hashes every file of `runs` (all under `root`).
    pub(crate) fn take<'a>(root: &Path, runs: impl IntoIterator<Item = &'a files::FilesRun>) -> Snapshot {
        let at = SystemTime::now();
        let mut snapshot = Snapshot { at: Some(at), ..Snapshot::default() };
        let key = |path: &Path| path.strip_prefix(root).map_or_else(|_| path.to_owned(), Path::to_owned);
        for run in runs {
            for path in &run.files {
                if snapshot.files.iter().any(|f| &f.path == path) {
                    continue;
                }
                let (value, stat) = files::hash_file(path);
                snapshot.files.push(SnapshotFile { key: key(path), path: path.clone(), value, stat });
            }
            for path in &run.absent {
                if snapshot.files.iter().any(|f| &f.path == path) {
                    continue;
                }
                // Checked again: it may exist by now.
                let (value, stat) = files::hash_file(path);
                snapshot.files.push(SnapshotFile { key: key(path), path: path.clone(), value, stat });
            }
            for path in &run.dirs {
                if snapshot.dirs.iter().any(|d| &d.path == path) {
                    continue;
                }
                let stat = std::fs::metadata(path).ok().map(|m| Stat::of(&m));
                let names = files::listing(path).unwrap_or_default();
                snapshot.dirs.push(SnapshotDir { key: key(path), path: path.clone(), names, stat });
            }
        }
        snapshot
    }
}

impl TrustGuard {
    /// A guard holding `snapshot` of the project at `root`.
    pub(crate) fn new(root: &Path, snapshot: Snapshot) -> TrustGuard {
        let at = snapshot.at.unwrap_or_else(SystemTime::now);
        let seen = |stat: Option<Stat>| stat.map(|stat| Seen { stat, at });
        let seen_files = snapshot.files.iter().map(|f| seen(f.stat)).collect();
        let seen_dirs = snapshot.dirs.iter().map(|d| seen(d.stat)).collect();
        let files =
            snapshot.files.into_iter().map(|f| GuardFile { path: f.path, key: f.key, expected: f.value }).collect();
        let dirs = snapshot.dirs.into_iter().map(|d| GuardDir { path: d.path, key: d.key, names: d.names }).collect();
        TrustGuard(Arc::new(Inner {
            root: root.to_owned(),
            files,
            dirs,
            seen_files: Mutex::new(seen_files),
            seen_dirs: Mutex::new(seen_dirs),
        }))
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.0.root
    }

    /// The files it covers.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.0.files.iter().map(|file| file.path.as_path())
    }

    fn violation(&self, key: &Path, what: &str) -> TrustViolation {
        TrustViolation { root: self.0.root.clone(), file: key.to_owned(), what: what.to_owned() }
    }

    /// Whether every file is still what was trusted: a stat per file and folder, and a re-hash
    /// of the files whose stat changed (or is too recent to vouch for the content).
    ///
    /// Blocking (it reads files): from async code, see [`TrustGuard::verify_async`].
    pub fn verify(&self) -> Result<(), TrustViolation> {
        let now = SystemTime::now();
        let mut seen_files = self.0.seen_files.lock().unwrap_or_else(|p| p.into_inner());
        for (file, seen) in self.0.files.iter().zip(seen_files.iter_mut()) {
            let current = std::fs::metadata(&file.path).ok().map(|m| Stat::of(&m));
            if file.expected == ABSENT {
                if current.is_some() {
                    return Err(self.violation(&file.key, "appeared"));
                }
                continue;
            }
            let is_unchanged = match (current, *seen) {
                (Some(current), Some(seen)) => current == seen.stat && !current.is_racy(seen.at, RACY_SECONDS),
                _ => false,
            };
            if is_unchanged {
                continue;
            }
            let (value, stat) = files::hash_file(&file.path);
            if value != file.expected {
                let what = if value == ABSENT { "was removed" } else { "changed" };
                return Err(self.violation(&file.key, what));
            }
            *seen = stat.map(|stat| Seen { stat, at: now });
        }
        drop(seen_files);
        let mut seen_dirs = self.0.seen_dirs.lock().unwrap_or_else(|p| p.into_inner());
        for (dir, seen) in self.0.dirs.iter().zip(seen_dirs.iter_mut()) {
            let current = std::fs::metadata(&dir.path).ok().map(|m| Stat::of(&m));
            let is_unchanged = match (current, *seen) {
                (Some(current), Some(seen)) => current == seen.stat && !current.is_racy(seen.at, RACY_SECONDS),
                _ => false,
            };
            if is_unchanged {
                continue;
            }
            if files::listing(&dir.path).unwrap_or_default() != dir.names {
                return Err(self.violation(&dir.key, "gained or lost a file"));
            }
            *seen = current.map(|stat| Seen { stat, at: now });
        }
        Ok(())
    }

    /// [`TrustGuard::verify`] on tokio's blocking pool.
    pub async fn verify_async(&self) -> Result<(), TrustViolation> {
        let guard = self.clone();
        match tokio::task::spawn_blocking(move || guard.verify()).await {
            Ok(result) => result,
            // The check panicked or was cancelled: nothing was verified.
            Err(_) => Err(self.violation(Path::new("."), "could not be checked")),
        }
    }
}

impl RunGuard for TrustGuard {
    fn root(&self) -> &Path {
        TrustGuard::root(self)
    }

    fn verify(&self) -> Result<(), GuardViolation> {
        TrustGuard::verify(self)
    }
}

/// `factory`, whose hooks check their project's [`TrustGuard`] (when their spec carries one)
/// before they are built and before each run: a file changed since the trust makes the build
/// fail, and each run fail with [`HookError::SpawnFailed`] naming the file — a failure in the
/// trace, decided by the hook's failure policy (approvals deny by default), never a silent
/// skip.
pub fn guarded(factory: Arc<dyn HookFactory>) -> Arc<dyn HookFactory> {
    Arc::new(GuardedFactory { inner: factory })
}

#[derive(Debug)]
struct GuardedFactory {
    inner: Arc<dyn HookFactory>,
}

#[async_trait]
impl HookFactory for GuardedFactory {
    fn kind(&self) -> &str {
        self.inner.kind()
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let Some(guard) = &spec.trust else { return self.inner.build(spec).await };
        // A process hook starts (and runs its code) while it is built.
        if let Err(violation) = guard.verify_async().await {
            return Err(BuildError::Start(HookError::SpawnFailed {
                command: spec.name.clone(),
                message: violation.to_string(),
            }));
        }
        let mut built = self.inner.build(spec).await?;
        built.hook = Arc::new(GuardedHook { inner: built.hook, guard: guard.clone(), name: spec.name.clone() });
        Ok(built)
    }

    fn default_timeout(&self, event: Event, deadlines: &Deadlines) -> Duration {
        self.inner.default_timeout(event, deadlines)
    }

    fn default_retry(&self) -> u32 {
        self.inner.default_retry()
    }

    fn observed_kinds(&self, spec: &HookSpec) -> Vec<String> {
        self.inner.observed_kinds(spec)
    }
}

/// A hook that checks its project's files before each run.
#[derive(Debug)]
struct GuardedHook {
    inner: Arc<dyn Hook>,
    guard: SpecGuard,
    name: String,
}

#[async_trait]
impl Hook for GuardedHook {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        if let Err(violation) = self.guard.verify_async().await {
            // A guard whose files changed cannot vouch for this call, and its failure policy
            // (fail open, for most interceptors) must not let the change switch it off: on an
            // event that can refuse the call, it is refused.
            let capability = hook_core::capability(input.event);
            let reason = format!("hook `{}`: {violation}", self.name);
            if capability.is_approval {
                return Ok(HookOutput { approved: Some(false), reason: Some(reason), ..HookOutput::default() });
            }
            if capability.allows(hook_core::Action::DenyTool) {
                return Ok(HookOutput::deny(reason));
            }
            return Err(HookError::SpawnFailed { command: self.name.clone(), message: violation.to_string() });
        }
        self.inner.call(input).await
    }

    async fn shutdown(&self) {
        self.inner.shutdown().await;
    }

    fn changes_nothing(&self, event: Event) -> bool {
        self.inner.changes_nothing(event)
    }
}
