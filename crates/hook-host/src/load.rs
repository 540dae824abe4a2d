//! Reading the configuration sources into the hooks this host can run, checked against trust.

use std::path::{Path, PathBuf};

use hook_config::{self as config, ConfigError, ConfigSource, Untrusted};
use hook_core::{Deadlines, HookSpec};
use hook_trust::{FileTrustStore, TrustCheck, TrustError, TrustRecord, TrustStore, undetermined};

use hook_protocol::Agent;

use crate::factories;

/// Which project hooks may run.
///
/// Project hooks (`.hookwire/`, `.jcli/`, `.claude/settings.json`, ... of a project) run only
/// once someone trusted the project: `hookwire trust` records the SHA-256 of every config
/// file and of every file its hooks run, and a change to any of them holds the project's hooks
/// back until it is trusted again. User-level hooks and the files an embedder names are always
/// trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustPolicy {
    /// Project hooks run when the trust records in this file (`trust.json`, as `hookwire trust`
    /// writes it) match.
    Store(PathBuf),
    /// Every project hook runs, unchecked: for a host that vets the project some other way.
    Trusted,
    /// No project hook runs; each project file is reported in [`Loaded::untrusted`].
    Untrusted,
}

impl TrustPolicy {
    /// The trust records file, if this policy reads one.
    pub fn store_path(&self) -> Option<&Path> {
        match self {
            TrustPolicy::Store(path) => Some(path),
            TrustPolicy::Trusted | TrustPolicy::Untrusted => None,
        }
    }
}

/// Everything loaded from the configuration sources, as text ready to show.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The hooks to mount: every valid, trusted hook of a kind this host runs.
    pub specs: Vec<HookSpec>,
    /// Things that load but are probably mistakes, and hooks skipped for a reason given.
    pub warnings: Vec<String>,
    /// Every error of every file (with file, line and column); while there is one, nothing
    /// should be mounted.
    pub errors: Vec<String>,
    /// Project files whose hooks do not run because the project is not trusted (or changed).
    pub untrusted: Vec<Untrusted>,
}

/// The trust store when no trust record can exist: project hooks are then untrusted, never
/// loaded unchecked.
#[derive(Debug)]
struct NoTrustRecords;

impl TrustStore for NoTrustRecords {
    fn try_get(&self, _root: &Path) -> Result<Option<TrustRecord>, TrustError> {
        Ok(None)
    }

    fn put(&self, record: TrustRecord) -> Result<(), TrustError> {
        Err(TrustError::Io {
            path: record.root,
            source: std::io::Error::other("no user configuration directory: set HOME or XDG_CONFIG_HOME"),
        })
    }

    fn revoke(&self, _root: &Path) -> Result<bool, TrustError> {
        Ok(false)
    }

    fn try_list(&self) -> Result<Vec<TrustRecord>, TrustError> {
        Ok(Vec::new())
    }
}

/// Loads `sources`; project hooks are checked as `trust` says. Hooks of a kind no built-in
/// executor runs, and hooks that would call `hookwire hook` inside hookwire, are skipped with
/// a warning.
pub fn load_sources(sources: &[ConfigSource], trust: &TrustPolicy) -> Loaded {
    load_scoped(sources, trust, &Scope::default())
}

/// What one path of hookwire loads, for its trust check: see [`TrustCheck::skipping`] and
/// [`TrustCheck::expecting`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// The agent whose own settings files this path leaves out (`hookwire hook <agent>`).
    pub skip: Option<Agent>,
    /// The project roots discovery looked at.
    pub roots: Vec<PathBuf>,
}

/// [`load_sources`] for a path that leaves out `scope.skip`'s settings files and looks at
/// `scope.roots`: a recorded settings file of the skipped agent is not "removed", and a
/// trusted root whose hook files are gone is reported in [`Loaded::untrusted`].
pub fn load_scoped(sources: &[ConfigSource], trust: &TrustPolicy, scope: &Scope) -> Loaded {
    let check = |store: &dyn TrustStore| {
        let check = TrustCheck::new(store).skipping(scope.skip).expecting(scope.roots.iter().cloned());
        config::load(sources, Deadlines::default(), Some(&check))
    };
    let loaded = match trust {
        TrustPolicy::Store(path) => check(&FileTrustStore::new(path)),
        TrustPolicy::Untrusted => check(&NoTrustRecords),
        TrustPolicy::Trusted => config::load(sources, Deadlines::default(), None),
    };
    let mut loaded = loaded;
    let kinds = factories::kinds();
    let mut errors: Vec<String> = loaded.errors.iter().map(ConfigError::to_string).collect();
    // The level defaults only fill in specs that declare no sandbox, so the `required` that a
    // project trusted with `--sandboxed` got while loading stays.
    match config::SandboxDefaults::from_env() {
        Ok(defaults) => defaults.apply(&mut loaded.specs),
        Err(error) => errors.push(error.to_string()),
    }
    let mut warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    let mut specs = Vec::with_capacity(loaded.specs.len());
    for spec in loaded.specs {
        // A trusted project hook whose command hookwire cannot follow: the trust covers only
        // the files it could tell (`hookwire trust` showed the same lines).
        if let Some(guard) = &spec.trust {
            for note in undetermined(&spec, guard.root()) {
                warnings.push(format!(
                    "{}: hook `{}`: hookwire cannot tell what this runs: {note}; the trust covers only the files it names",
                    spec.source, spec.name
                ));
            }
        }
        if kinds.iter().any(|kind| spec.kind == kind.as_str()) {
            specs.push(spec);
        } else {
            // PicoClaw builtins are compiled into PicoClaw; an unmodified PicoClaw config that
            // enables one still loads, without it.
            warnings.push(format!(
                "{}: hook `{}`: hookwire has no `{}` executor (it runs {}); this hook is skipped",
                spec.source,
                spec.name,
                spec.kind,
                kinds.join(", ")
            ));
        }
    }
    Loaded { specs, warnings, errors, untrusted: loaded.untrusted }
}

/// An error for each named configuration path that does not exist: a mistyped path must not
/// load as "no hooks configured". The message names the path as `--config <path>`.
pub fn missing_configs(paths: &[PathBuf], cwd: &Path) -> Vec<String> {
    paths
        .iter()
        .map(|path| crate::discover::absolute(path, cwd))
        .filter(|path| !path.exists())
        .map(|path| format!("--config {}: no such file or directory", path.display()))
        .collect()
}

/// Whether a hook would call the bridge itself (`hookwire hook ...`); such entries never
/// reach [`Loaded::specs`] (the configuration loader leaves them out).
pub use hook_config::calls_the_bridge;
