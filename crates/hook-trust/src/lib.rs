//! Trust for project-level hooks: a record of the content hashes of a project's config files
//! and of every file their hooks run.
//!
//! A project's hooks run code from a repository someone else may have written, so they run
//! only after the user trusted that project (`hookwire trust <root>`), and only while nothing
//! changed: the record holds the SHA-256 of each config file and of each project file the hooks
//! run (see [`files_run`]). Any difference — a changed byte, a file added to a hook's folder, a
//! missing script created — holds the project's hooks back until it is trusted again.
//!
//! Trust is a pass over what [`hook_config::load`] read: [`TrustCheck`] is a
//! [`Review`] over the loaded files and a [`TrustStore`], returning what is untrusted; the
//! config module does not know it. The decision is made before any expensive work: a project
//! without a record, or whose config files differ from it, is held back without hashing
//! anything else; files are hashed with a fixed buffer.
//!
//! The project root is the directory holding `.hookwire/`, `.jcli/`, `.claude/`, ... where the
//! config was found (see [`project_root`]); a config reached through a symbolic link is trusted
//! for the place it was found, not for its target. Paths in a record are relative to the root.
//!
//! A trusted project's specs carry a [`TrustGuard`]: hooks built through [`guarded`] factories
//! re-check their files before each run, so a long session notices an edit.
//!
//! ```
//! use hook_config::{ConfigSource, load};
//! use hook_core::{Deadlines, Level};
//! use hook_trust::{FileTrustStore, TrustCheck, TrustStore, fingerprint};
//!
//! # let dir = std::env::temp_dir().join(format!("hook-trust-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(dir.join("project/.hookwire")).unwrap();
//! let project = dir.join("project").canonicalize().unwrap();
//! let file = project.join(".hookwire/hooks.yaml");
//! std::fs::write(&file, "stop:\n  - name: note\n    command: echo '{}'\n").unwrap();
//! let sources = [ConfigSource::new(&file, Level::Project)];
//! let store = FileTrustStore::new(dir.join("trust.json"));
//!
//! // Not trusted yet: the project's hook is held back.
//! let loaded = load(&sources, Deadlines::default(), Some(&TrustCheck::new(&store)));
//! assert!(loaded.specs.is_empty());
//! assert_eq!(loaded.untrusted.len(), 1);
//!
//! // What `hookwire trust` does: record the project's files; now the hook loads, with its guard.
//! store.put(fingerprint(&project, &sources).unwrap()).unwrap();
//! let loaded = load(&sources, Deadlines::default(), Some(&TrustCheck::new(&store)));
//! assert_eq!(loaded.specs[0].name, "note");
//! assert!(loaded.specs[0].trust.is_some());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod files;
mod guard;

use std::{
    collections::BTreeMap,
    fmt, fs, io,
    path::{Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

pub use files::{FilesRun, files_run, undetermined};
pub use guard::{TrustGuard, TrustViolation, guarded};
use hook_protocol::{
    Agent,
    config::SandboxPolicy,
    trust::{TRUST_FILE_VERSION, TrustFile, TrustFileRecord, TrustFileVersion},
};

pub use hook_config::project_root;
use hook_config::{self as config, ConfigError, ConfigSource, FileLoad, Review, Untrusted};
use hook_core::{Deadlines, HookSpec, Level};
use hook_protocol::time::civil_from_days;

/// What the user trusted: a project root and the hash of every file that decides what its hooks do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustRecord {
    /// The project root (canonical).
    pub root: PathBuf,
    /// Config files and the files their hooks run, relative to the root, with their SHA-256
    /// (hex), or `absent` for a path a hook would run that did not exist.
    pub files: BTreeMap<PathBuf, String>,
    /// When it was trusted, UTC, e.g. `2026-11-25T23:10:44Z`.
    pub trusted_at: String,
    /// Trusted only sandboxed: every hook of the project runs with `sandbox: required`.
    pub sandboxed: bool,
}

/// Reading or writing the trust store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// The store file could not be read or written.
    #[error("trust store {path}: {source}; check the file's permissions")]
    Io {
        /// The store file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The store file is not what hookwire writes.
    #[error("trust store {path} is damaged: {message}; delete it and trust your projects again")]
    Corrupt {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The store file was written by a newer hookwire: it is neither read nor overwritten.
    #[error(
        "trust store {path} has version {found}, and this hookwire reads version {supported}: it was written by a newer hookwire; upgrade hookwire (the file is left as it is)"
    )]
    UnsupportedVersion {
        /// The store file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The version this hookwire reads and writes.
        supported: u32,
    },
}

/// Where trust records live.
pub trait TrustStore: Send + Sync + fmt::Debug {
    /// The record for `root`, if the project was trusted; an error when the store cannot be
    /// read (then nothing is trusted, and the error says why).
    fn try_get(&self, root: &Path) -> Result<Option<TrustRecord>, TrustError>;
    /// Stores `record`, replacing any record for the same root.
    fn put(&self, record: TrustRecord) -> Result<(), TrustError>;
    /// Forgets `root`; `true` when there was a record.
    fn revoke(&self, root: &Path) -> Result<bool, TrustError>;
    /// Every record, sorted by root; an error when the store cannot be read.
    fn try_list(&self) -> Result<Vec<TrustRecord>, TrustError>;

    /// [`TrustStore::try_get`], with a store that cannot be read logged and read as empty.
    fn get(&self, root: &Path) -> Option<TrustRecord> {
        self.try_get(root).unwrap_or_else(|err| {
            tracing::warn!(%err, "cannot read the trust store; treating every project as untrusted");
            None
        })
    }

    /// [`TrustStore::try_list`], with a store that cannot be read logged and read as empty.
    fn list(&self) -> Vec<TrustRecord> {
        self.try_list().unwrap_or_else(|err| {
            tracing::warn!(%err, "cannot read the trust store");
            Vec::new()
        })
    }
}

/// Trust records in one JSON file (a [`TrustFile`]), e.g. `~/.config/hookwire/trust.json`,
/// written atomically (a temporary file renamed over the old one). Two processes trusting at
/// the same instant may lose one update; neither can leave a half-written file. A file of a
/// newer version is refused, never overwritten.
#[derive(Debug, Clone)]
pub struct FileTrustStore {
    path: PathBuf,
}

impl FileTrustStore {
    /// A store kept in `path` (created on the first `put`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTrustStore { path: path.into() }
    }

    /// The conventional place: `$XDG_CONFIG_HOME/hookwire/trust.json`, else
    /// `$HOME/.config/hookwire/trust.json`.
    pub fn default_path() -> Option<PathBuf> {
        let config =
            std::env::var_os("XDG_CONFIG_HOME").filter(|dir| !dir.is_empty()).map(PathBuf::from).or_else(|| {
                std::env::var_os("HOME").filter(|dir| !dir.is_empty()).map(|home| PathBuf::from(home).join(".config"))
            })?;
        Some(config.join("hookwire").join("trust.json"))
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<Vec<TrustRecord>, TrustError> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(TrustError::Io { path: self.path.clone(), source }),
        };
        let corrupt = |message: String| TrustError::Corrupt { path: self.path.clone(), message };
        // The version first: a newer format is recognised before its records are interpreted.
        let version: TrustFileVersion = serde_json::from_str(&text).map_err(|err| corrupt(err.to_string()))?;
        if version.version != TRUST_FILE_VERSION {
            return Err(TrustError::UnsupportedVersion {
                path: self.path.clone(),
                found: version.version,
                supported: TRUST_FILE_VERSION,
            });
        }
        let file: TrustFile = serde_json::from_str(&text).map_err(|err| corrupt(err.to_string()))?;
        Ok(file.records.into_iter().map(record_from_file).collect())
    }

    fn write(&self, mut records: Vec<TrustRecord>) -> Result<(), TrustError> {
        records.sort_by(|a, b| a.root.cmp(&b.root));
        let file = TrustFile { version: TRUST_FILE_VERSION, records: records.iter().map(record_to_file).collect() };
        let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
        text.push('\n');
        let io_error = |source| TrustError::Io { path: self.path.clone(), source };
        if let Some(parent) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io_error)?;
        }
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let file_name = self.path.file_name().map_or_else(|| "trust.json".into(), |n| n.to_string_lossy().into_owned());
        let tmp = self.path.with_file_name(format!(".{file_name}.{}.{nanos}.tmp", std::process::id()));
        let result = fs::write(&tmp, text.as_bytes()).and_then(|()| fs::rename(&tmp, &self.path));
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result.map_err(io_error)
    }
}

impl TrustStore for FileTrustStore {
    fn try_get(&self, root: &Path) -> Result<Option<TrustRecord>, TrustError> {
        let root = canonical(root);
        Ok(self.read()?.into_iter().find(|record| record.root == root))
    }

    fn put(&self, record: TrustRecord) -> Result<(), TrustError> {
        let mut records = self.read()?;
        records.retain(|old| old.root != record.root);
        records.push(record);
        self.write(records)
    }

    fn revoke(&self, root: &Path) -> Result<bool, TrustError> {
        let root = canonical(root);
        let mut records = self.read()?;
        let n_records = records.len();
        records.retain(|old| old.root != root);
        if records.len() == n_records {
            return Ok(false);
        }
        self.write(records)?;
        Ok(true)
    }

    fn try_list(&self) -> Result<Vec<TrustRecord>, TrustError> {
        let mut records = self.read()?;
        records.sort_by(|a, b| a.root.cmp(&b.root));
        Ok(records)
    }
}

fn record_to_file(record: &TrustRecord) -> TrustFileRecord {
    TrustFileRecord {
        root: record.root.to_string_lossy().into_owned(),
        trusted_at: record.trusted_at.clone(),
        files: record.files.iter().map(|(path, hash)| (path.to_string_lossy().into_owned(), hash.clone())).collect(),
        sandboxed: record.sandboxed,
    }
}

fn record_from_file(record: TrustFileRecord) -> TrustRecord {
    TrustRecord {
        root: PathBuf::from(record.root),
        files: record.files.into_iter().map(|(path, hash)| (PathBuf::from(path), hash)).collect(),
        trusted_at: record.trusted_at,
        sandboxed: record.sandboxed,
    }
}

/// The canonical form of `path`, or `path` itself when it does not exist.
fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// The existing project files `spec` runs (see [`files_run`]).
pub fn scripts_of(spec: &HookSpec, root: &Path) -> Vec<PathBuf> {
    files_run(spec, root).files
}

/// Checks project files against a [`TrustStore`]: a [`Review`] for [`hook_config::load`].
///
/// For each project root among the files: no record, or a config file that differs from it,
/// holds the root's files back at once (nothing else is read); otherwise every file their
/// hooks run is hashed and compared. A trusted root's specs get a [`TrustGuard`].
///
/// A check is scoped to what one path of hookwire loads: [`TrustCheck::skipping`] names the
/// agent whose own settings files that path leaves out (`hookwire hook claude` does not load
/// `.claude/settings.json`, which Claude Code runs itself), so the record's entries for those
/// files are neither required nor read as "removed"; [`TrustCheck::expecting`] names the
/// project roots the path looks at, so a trusted project whose hook files were all deleted is
/// reported instead of silently running nothing.
#[derive(Debug, Clone)]
pub struct TrustCheck<'a> {
    store: &'a dyn TrustStore,
    skip: Option<Agent>,
    roots: Vec<PathBuf>,
}

impl<'a> TrustCheck<'a> {
    /// A check against `store`.
    pub fn new(store: &'a dyn TrustStore) -> Self {
        TrustCheck { store, skip: None, roots: Vec::new() }
    }

    /// The same check for a path that leaves out `agent`'s own settings files.
    pub fn skipping(mut self, agent: Option<Agent>) -> Self {
        self.skip = agent;
        self
    }

    /// The same check, also looking at the records of `roots` (the project roots discovery
    /// looked at) when none of their files was loaded.
    pub fn expecting(mut self, roots: impl IntoIterator<Item = PathBuf>) -> Self {
        self.roots = roots.into_iter().map(|root| canonical(&root)).collect();
        self
    }
}

/// Whether `relative` (a path of a trust record) names a hook configuration file: a file of
/// `.hookwire/` or `.jcli/` (`hooks.yaml`, `hooks/<name>/HOOK.yaml`, ...) or an agent's
/// settings file (Copilot CLI's `.github/hooks/*.json`).
pub fn is_config_path(relative: &Path) -> bool {
    if Agent::ALL.iter().any(|agent| agent.owns_file(relative)) {
        return true;
    }
    let mut components = relative.components();
    let Some(first) = components.next() else { return false };
    if first.as_os_str() != ".hookwire" && first.as_os_str() != ".jcli" {
        return false;
    }
    let name = relative.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let rest: Vec<_> = relative.components().skip(1).collect();
    match rest.len() {
        1 => {
            ["hooks.yaml", "hooks.yml", "hooks.json"].contains(&name.as_str())
                || (first.as_os_str() == ".hookwire" && ["rules.yaml", "rules.yml"].contains(&name.as_str()))
        }
        3 => rest[0].as_os_str() == "hooks" && (name == "HOOK.yaml" || name == "HOOK.yml"),
        _ => false,
    }
}

/// Whether `relative` is a file `skip` runs itself, which the path being checked leaves out.
fn is_skipped(skip: Option<Agent>, relative: &Path) -> bool {
    skip.is_some_and(|agent| agent.runs_project_file(relative))
}

impl Review for TrustCheck<'_> {
    /// Holds back, before anything is parsed, every project root without a record or whose
    /// config files differ from it.
    fn screen(&self, files: &[config::FileInfo]) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = Vec::new();
        for file in files.iter().filter(|file| file.level == Level::Project) {
            if !roots.contains(&file.root) {
                roots.push(file.root.clone());
            }
        }
        roots.retain(|root| {
            let configs: BTreeMap<PathBuf, String> = files
                .iter()
                .filter(|file| file.level == Level::Project && &file.root == root)
                .map(|file| (file.relative.clone(), value_of_config(file.sha256.as_deref())))
                .collect();
            first_verdict(self.store, root, &configs).is_err()
        });
        roots
    }

    fn review(&self, files: &mut [FileLoad]) -> Vec<Untrusted> {
        check(files, self)
    }
}

/// The record value of a config file.
fn value_of_config(sha256: Option<&str>) -> String {
    sha256.map_or_else(|| "unreadable".to_owned(), str::to_owned)
}

/// The record value of a config file.
fn config_value(file: &FileLoad) -> String {
    value_of_config(file.sha256())
}

/// Why `root` is not trusted, from its record and its config files alone (no other file is
/// read); its record when that holds exactly these config files, and the files their hooks run
/// must be compared next.
fn first_verdict(
    store: &dyn TrustStore,
    root: &Path,
    configs: &BTreeMap<PathBuf, String>,
) -> Result<TrustRecord, String> {
    let record = match store.try_get(root) {
        Err(err) => return Err(format!("the trust store cannot be read: {err}")),
        Ok(None) => return Err("not trusted yet".to_owned()),
        Ok(Some(record)) => record,
    };
    let changes: Vec<String> = configs
        .iter()
        .filter(|(path, value)| record.files.get(*path) != Some(*value))
        .map(|(path, _)| match record.files.get(path) {
            Some(_) => format!("`{}` changed since it was trusted", path.display()),
            None => format!("`{}` is new since the project was trusted", path.display()),
        })
        .collect();
    if changes.is_empty() { Ok(record) } else { Err(changes.join("; ")) }
}

/// Checks the project files among `files` against the store of `scope` (see [`TrustCheck`]).
fn check(files: &mut [FileLoad], scope: &TrustCheck<'_>) -> Vec<Untrusted> {
    let store = scope.store;
    let mut roots: Vec<PathBuf> = Vec::new();
    for file in files.iter().filter(|file| file.level() == Level::Project) {
        if !roots.iter().any(|root| root == file.root()) {
            roots.push(file.root().to_owned());
        }
    }
    let mut untrusted = Vec::new();
    // A root discovery looked at where no file was loaded: if it was trusted, the files the
    // record holds must not have gone (an agent deleting the guard file must not switch it off
    // silently).
    for root in scope.roots.iter().filter(|root| !roots.contains(root)) {
        let Ok(Some(record)) = store.try_get(root) else { continue };
        let removed: Vec<&PathBuf> = record
            .files
            .keys()
            .filter(|path| is_config_path(path) && !is_skipped(scope.skip, path) && !root.join(path).exists())
            .collect();
        if let Some(first) = removed.first() {
            let reason = removed
                .iter()
                .map(|path| format!("`{}` was removed since the project was trusted", path.display()))
                .collect::<Vec<_>>()
                .join("; ");
            untrusted.push(Untrusted {
                config: root.join(first),
                reason,
                hooks: Vec::new(),
                how_to_trust: format!("run `hookwire trust {}`", root.display()),
                undetermined: Vec::new(),
            });
        }
    }
    for root in roots {
        let in_root = |file: &FileLoad| file.level() == Level::Project && file.root() == root;
        let configs: BTreeMap<PathBuf, String> = files
            .iter()
            .filter(|file| in_root(file))
            .map(|file| (file.relative_path().to_owned(), config_value(file)))
            .collect();
        // Screened out before parsing (its files were read only for their hook names): it stays
        // held back, whatever the store says by now.
        let was_screened = files.iter().any(|file| in_root(file) && file.is_held_back());
        let reason = match first_verdict(store, &root, &configs) {
            Err(reason) => Some(reason),
            Ok(_) if was_screened => {
                Some("the trust store changed while the configuration loaded; run again".to_owned())
            }
            Ok(record) => {
                let runs: Vec<FilesRun> = files
                    .iter()
                    .filter(|file| in_root(file))
                    .flat_map(|file| file.specs().iter().map(|spec| files_run(spec, &root)).collect::<Vec<_>>())
                    .collect();
                let snapshot = guard::Snapshot::take(&root, &runs);
                let mut current = configs;
                for file in &snapshot.files {
                    current.entry(file.key.clone()).or_insert_with(|| file.value.clone());
                }
                match differences(&record.files, &current, &root, scope.skip) {
                    Some(reason) => Some(reason),
                    None => {
                        let guard = hook_core::SpecGuard::new(TrustGuard::new(&root, snapshot));
                        for file in files.iter_mut().filter(|file| in_root(file)) {
                            for spec in file.specs_mut() {
                                spec.trust = Some(guard.clone());
                                if record.sandboxed {
                                    spec.sandbox = Some(SandboxPolicy::required(spec.sandbox.take()));
                                }
                            }
                        }
                        None
                    }
                }
            }
        };
        let Some(reason) = reason else { continue };
        for file in files.iter_mut().filter(|file| in_root(file)) {
            file.hold_back();
            if file.specs().is_empty() {
                continue;
            }
            let undetermined = file
                .specs()
                .iter()
                .flat_map(|spec| {
                    undetermined(spec, &root).into_iter().map(|note| format!("hook `{}`: {note}", spec.name))
                })
                .collect();
            untrusted.push(Untrusted {
                config: file.path().to_owned(),
                reason: reason.clone(),
                hooks: file.specs().iter().map(|spec| spec.name.clone()).collect(),
                how_to_trust: format!("run `hookwire trust {}`", root.display()),
                undetermined,
            });
        }
    }
    untrusted
}

/// Why `current` (what this path loads and runs under `root`) no longer matches `trusted`, or
/// `None` when it does.
///
/// A recorded file this path neither loads nor runs is a difference only when it is a
/// configuration file this path would load and it is gone: the settings files of `skip` (the
/// agent that runs them itself) and the scripts only they run are another path's business.
fn differences(
    trusted: &BTreeMap<PathBuf, String>,
    current: &BTreeMap<PathBuf, String>,
    root: &Path,
    skip: Option<Agent>,
) -> Option<String> {
    let mut reasons = Vec::new();
    for (path, value) in current {
        match trusted.get(path) {
            Some(old) if old == value => {}
            Some(old) if old == files::ABSENT => {
                reasons.push(format!("`{}` appeared since the project was trusted", path.display()));
            }
            Some(_) if value == files::ABSENT => {
                reasons.push(format!("`{}` was removed since the project was trusted", path.display()));
            }
            Some(_) => reasons.push(format!("`{}` changed since it was trusted", path.display())),
            None => reasons.push(format!("`{}` is new since the project was trusted", path.display())),
        }
    }
    for path in trusted.keys().filter(|path| !current.contains_key(*path)) {
        if is_config_path(path) && !is_skipped(skip, path) && !root.join(path).exists() {
            reasons.push(format!("`{}` was removed since the project was trusted", path.display()));
        }
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// One hook of a project as `hookwire trust` shows it.
#[derive(Debug, Clone)]
pub struct HookReport {
    /// The hook as it will run once trusted.
    pub spec: HookSpec,
    /// What it runs.
    pub files: FilesRun,
}

/// Everything `hookwire trust` shows and records for one project.
#[derive(Debug, Clone)]
pub struct ProjectReport {
    /// The project root (canonical).
    pub root: PathBuf,
    /// Its config files, relative to the root, with their SHA-256.
    pub configs: BTreeMap<PathBuf, String>,
    /// Its hooks, in load order, with what each runs.
    pub hooks: Vec<HookReport>,
    /// Every file of the record, relative to the root, with its SHA-256 (or `absent`, ...).
    pub files: BTreeMap<PathBuf, String>,
}

impl ProjectReport {
    /// The record to store, trusted now.
    pub fn record(&self) -> TrustRecord {
        TrustRecord {
            root: self.root.clone(),
            files: self.files.clone(),
            trusted_at: format_utc(SystemTime::now()),
            sandboxed: false,
        }
    }

    /// The record value (hash) of `path`, a file of [`FilesRun::files`] or [`FilesRun::absent`].
    pub fn value_of(&self, path: &Path) -> Option<&str> {
        self.files.get(path.strip_prefix(&self.root).unwrap_or(path)).map(String::as_str)
    }
}

/// What trusting `root` covers: the config files of `sources` under `root`, their hooks and
/// every file those run, with their hashes. Fails with the first error of those files (a config
/// that does not load cannot be trusted), or when none of the sources is under `root`.
pub fn review(root: &Path, sources: &[ConfigSource]) -> Result<ProjectReport, ConfigError> {
    let root = canonical(root);
    let loaded = config::load(sources, Deadlines::default(), None);
    let in_root: Vec<&config::FileInfo> = loaded.files.iter().filter(|file| file.root == root).collect();
    let is_in_root = |path: &Path| in_root.iter().any(|file| file.path == path);
    if let Some(error) = loaded.errors.iter().find(|error| is_in_root(&error.file)) {
        return Err(error.clone());
    }
    if in_root.is_empty() {
        return Err(ConfigError {
            file: root,
            line: None,
            column: None,
            hook: None,
            message: "no hook configuration here: expected .hookwire/hooks.yaml, .jcli/hooks.yaml, .jcli/hooks/<name>/HOOK.yaml or an agent's settings file (.claude/settings.json, ...)"
                .to_owned(),
        });
    }
    let configs: BTreeMap<PathBuf, String> = in_root
        .iter()
        .map(|file| (file.relative.clone(), file.sha256.clone().unwrap_or_else(|| "unreadable".to_owned())))
        .collect();
    let hooks: Vec<HookReport> = loaded
        .specs
        .into_iter()
        .filter(|spec| is_in_root(&spec.source.file))
        .map(|spec| {
            let files = files_run(&spec, &root);
            HookReport { spec, files }
        })
        .collect();
    let snapshot = guard::Snapshot::take(&root, hooks.iter().map(|hook| &hook.files));
    let mut files = configs.clone();
    for file in snapshot.files {
        files.entry(file.key).or_insert(file.value);
    }
    Ok(ProjectReport { root, configs, hooks, files })
}

/// What `hookwire trust <root>` records (see [`review`]).
pub fn fingerprint(root: &Path, sources: &[ConfigSource]) -> Result<TrustRecord, ConfigError> {
    review(root, sources).map(|report| report.record())
}

/// `time` as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
fn format_utc(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_dates() {
        assert_eq!(format_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + std::time::Duration::from_secs(951_782_400 + 3661); // 2000-02-29
        assert_eq!(format_utc(t), "2000-02-29T01:01:01Z");
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_795_648_244);
        assert_eq!(format_utc(t), "2026-11-25T23:10:44Z");
    }

    #[test]
    fn hashes_in_hex() {
        assert_eq!(config::sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
