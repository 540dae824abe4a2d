//! What vouches for the files a configured hook runs: the engine carries a [`SpecGuard`] on each
//! [`crate::HookSpec`] that has one and knows nothing of how it checks. hookwire's is trust's guard
//! (`hook_trust::TrustGuard`, attached by the loader to a trusted project's hooks); factories
//! wrapped by `hook_trust::guarded` and the process hooks' supervisor check it before a run.

use std::{
    fmt,
    path::{Path, PathBuf},
    sync::Arc,
};

/// A check of the files a hook runs, re-run before each run: whether they are still what was
/// vouched for.
pub trait RunGuard: fmt::Debug + Send + Sync + 'static {
    /// The directory whose files it covers (a project root).
    fn root(&self) -> &Path;

    /// Whether every file is still what was vouched for. Blocking (it may read files): from
    /// async code, see [`SpecGuard::verify_async`].
    fn verify(&self) -> Result<(), GuardViolation>;
}

/// A file a [`RunGuard`] covers no longer is what was vouched for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refused to run: `{}` {what} since the project was trusted; review it and run `hookwire trust {}`", .file.display(), .root.display())]
pub struct GuardViolation {
    /// The project root.
    pub root: PathBuf,
    /// The file, relative to the root.
    pub file: PathBuf,
    /// `changed`, `appeared`, ...
    pub what: String,
}

/// A shared [`RunGuard`], as a [`crate::HookSpec`] carries it; clones share it, and two are equal
/// when they are the same guard.
#[derive(Clone)]
pub struct SpecGuard(Arc<dyn RunGuard>);

impl SpecGuard {
    /// Shares `guard`.
    pub fn new(guard: impl RunGuard) -> Self {
        SpecGuard(Arc::new(guard))
    }

    /// The directory whose files it covers.
    pub fn root(&self) -> &Path {
        self.0.root()
    }

    /// See [`RunGuard::verify`]. Blocking.
    pub fn verify(&self) -> Result<(), GuardViolation> {
        self.0.verify()
    }

    /// [`SpecGuard::verify`] on tokio's blocking pool.
    pub async fn verify_async(&self) -> Result<(), GuardViolation> {
        let guard = self.clone();
        match tokio::task::spawn_blocking(move || guard.verify()).await {
            Ok(result) => result,
            // The check panicked or was cancelled: nothing was verified.
            Err(_) => Err(GuardViolation {
                root: self.root().to_owned(),
                file: PathBuf::from("."),
                what: "could not be checked".to_owned(),
            }),
        }
    }
}

impl fmt::Debug for SpecGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for SpecGuard {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&self.0), Arc::as_ptr(&other.0))
    }
}
