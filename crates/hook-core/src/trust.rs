//! Trust for project-level hooks: a record of the content hashes of a config and the scripts it names.
//!
//! A project's hooks run code from a repository someone else may have written, so they run
//! only after the user trusted that project (`hookwire trust <root>`), and only while nothing
//! changed: the record holds the SHA-256 of each config file and of each local script the
//! hooks name (see [`scripts_of`]). Any difference — a changed byte, a file added or removed —
//! stops the project's hooks until it is trusted again.
//!
//! The project root is the directory holding `.hookwire/` or `.jcli/` (see [`project_root`]).
//! Paths in a record are relative to the root, so a record reads well in `hookwire trust`.

use std::{
    collections::BTreeMap,
    fmt, fs, io,
    path::{Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::{
    Deadlines, HookDefinition, HookSpec, Level,
    config::{ConfigError, ConfigSource, FileLoad, Untrusted},
};

/// What the user trusted: a project root and the hash of every file that decides what its hooks do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustRecord {
    /// The project root (canonical).
    pub root: PathBuf,
    /// Config files and scripts, relative to the root when under it, with their SHA-256 (hex).
    pub files: BTreeMap<PathBuf, String>,
    /// When it was trusted, UTC, e.g. `2026-11-25T23:10:44Z`.
    pub trusted_at: String,
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
}

/// Where trust records live.
pub trait TrustStore: Send + Sync + fmt::Debug {
    /// The record for `root`, if the project was trusted.
    fn get(&self, root: &Path) -> Option<TrustRecord>;
    /// Stores `record`, replacing any record for the same root.
    fn put(&self, record: TrustRecord) -> Result<(), TrustError>;
    /// Forgets `root`; `true` when there was a record.
    fn revoke(&self, root: &Path) -> Result<bool, TrustError>;
    /// Every record, sorted by root.
    fn list(&self) -> Vec<TrustRecord>;
}

/// Trust records in one JSON file, e.g. `~/.config/hookwire/trust.json`, written atomically
/// (a temporary file renamed over the old one). Two processes trusting at the same instant may
/// lose one update; neither can leave a half-written file.
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
        let value: Value = serde_json::from_str(&text).map_err(|err| corrupt(err.to_string()))?;
        let records =
            value.get("records").and_then(Value::as_array).ok_or_else(|| corrupt("no `records` list".to_owned()))?;
        records
            .iter()
            .map(|record| record_from_json(record).ok_or_else(|| corrupt(format!("bad record {record}"))))
            .collect()
    }

    fn write(&self, mut records: Vec<TrustRecord>) -> Result<(), TrustError> {
        records.sort_by(|a, b| a.root.cmp(&b.root));
        let value = json!({ "version": 1, "records": records.iter().map(record_to_json).collect::<Vec<_>>() });
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
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
    fn get(&self, root: &Path) -> Option<TrustRecord> {
        let root = canonical(root);
        match self.read() {
            Ok(records) => records.into_iter().find(|record| record.root == root),
            Err(err) => {
                tracing::warn!(%err, "cannot read the trust store; treating every project as untrusted");
                None
            }
        }
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

    fn list(&self) -> Vec<TrustRecord> {
        self.read().unwrap_or_else(|err| {
            tracing::warn!(%err, "cannot read the trust store");
            Vec::new()
        })
    }
}

fn record_to_json(record: &TrustRecord) -> Value {
    let files: Map<String, Value> = record
        .files
        .iter()
        .map(|(path, hash)| (path.to_string_lossy().into_owned(), Value::from(hash.as_str())))
        .collect();
    json!({
        "root": record.root.to_string_lossy(),
        "trusted_at": record.trusted_at,
        "files": files,
    })
}

fn record_from_json(value: &Value) -> Option<TrustRecord> {
    let files = value
        .get("files")?
        .as_object()?
        .iter()
        .map(|(path, hash)| Some((PathBuf::from(path), hash.as_str()?.to_owned())))
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some(TrustRecord {
        root: PathBuf::from(value.get("root")?.as_str()?),
        files,
        trusted_at: value.get("trusted_at").and_then(Value::as_str).unwrap_or_default().to_owned(),
    })
}

/// The canonical form of `path`, or `path` itself when it does not exist.
fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// The project root of a config file or hooks directory: the directory holding the nearest
/// `.hookwire/`, `.jcli/`, `.claude/`, `.gemini/` or `.codex/` above it (`/p` for `/p/.hookwire/hooks.yaml` and for
/// `/p/.jcli/hooks/guard/HOOK.yaml`), else the directory containing it. Canonical when it exists.
pub fn project_root(config: &Path) -> PathBuf {
    let path = canonical(config);
    for ancestor in path.ancestors() {
        let is_marker = ancestor
            .file_name()
            .is_some_and(|name| [".hookwire", ".jcli", ".claude", ".gemini", ".codex"].iter().any(|m| name == *m));
        if is_marker {
            return ancestor.parent().unwrap_or(ancestor).to_owned();
        }
    }
    path.parent().map_or(path.clone(), Path::to_owned)
}

/// SHA-256 of `bytes`, lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(digest.len() * 2);
    for byte in digest {
        hex.push(char::from(HEX[usize::from(byte >> 4)]));
        hex.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    hex
}

/// The local files `spec` runs, as canonical paths of existing files.
///
/// Every word of a bash hook's `command` (split on whitespace, quotes stripped) and every
/// element of a process hook's `command` that names an existing file relative to the hook's
/// directory (directory hooks), the process's `dir`, or `root`, or is an absolute path under
/// `root` — so `./guard.sh`, `python3 -X dev hook.py`, `FOO=1 ./g.sh` and `uv run tools/x.py`
/// are all covered. A directory hook also vouches for every file in its directory (helpers its
/// script imports). Programs found on `PATH` and paths outside the project (`~/...`,
/// `/usr/bin/...`) are not the project's to vouch for and are left out; so is a script a
/// command reaches only after `cd`.
pub fn scripts_of(spec: &HookSpec, root: &Path) -> Vec<PathBuf> {
    let root = canonical(root);
    let (words, mut bases): (Vec<String>, Vec<PathBuf>) = match &spec.definition {
        HookDefinition::Command(def) if def.kind == hook_protocol::config::HookKind::Bash => {
            let words = def.command.as_deref().unwrap_or_default().split_whitespace().map(unquote).collect();
            (words, spec.dir.iter().cloned().collect())
        }
        HookDefinition::Process(process) => {
            let bases = process.dir.iter().map(|dir| root.join(dir)).collect();
            (process.command.clone(), bases)
        }
        HookDefinition::Agent(def) => {
            // The project directory is spelled as a variable: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`.
            let root_text = root.display().to_string();
            let expand = |word: &str| {
                let mut word = word.replace(['"', '\''], "");
                for var in
                    ["${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${GEMINI_PROJECT_DIR}", "$GEMINI_PROJECT_DIR"]
                {
                    word = word.replace(var, &root_text);
                }
                word
            };
            let command = def.handler.command.as_deref().unwrap_or_default();
            let mut words: Vec<String> = command.split_whitespace().map(expand).collect();
            words.extend(def.handler.args.iter().flatten().map(|arg| expand(arg)));
            let mut scripts = Vec::new();
            // The agent's own hook folder: helpers its scripts import.
            for dir in [".claude/hooks", ".gemini/hooks", ".codex/hooks"] {
                for file in files_under(&root.join(dir), 4) {
                    let file = canonical(&file);
                    if file.starts_with(&root) && !scripts.contains(&file) {
                        scripts.push(file);
                    }
                }
            }
            let bases = vec![root.clone()];
            for word in &words {
                if let Some(script) = resolve(word, &bases, &root).filter(|script| !scripts.contains(script)) {
                    scripts.push(script);
                }
            }
            return scripts;
        }
        _ => return Vec::new(),
    };
    bases.push(root.clone());
    let mut scripts: Vec<PathBuf> = Vec::new();
    // Any word may be the script: `python3 -X dev tool.py`, `FOO=1 ./g.sh`, `uv run tools/x.py`.
    for word in &words {
        if let Some(script) = resolve(word, &bases, &root).filter(|script| !scripts.contains(script)) {
            scripts.push(script);
        }
    }
    if let Some(dir) = &spec.dir {
        for file in files_under(dir, 4) {
            let file = canonical(&file);
            let is_definition = file.file_name().is_some_and(|name| name == "HOOK.yaml" || name == "HOOK.yml");
            if !is_definition && file.starts_with(&root) && !scripts.contains(&file) {
                scripts.push(file);
            }
        }
    }
    scripts
}

/// The regular files under `dir`, `depth` levels deep at most, in name order (symbolic links
/// are not followed).
fn files_under(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    let mut files = Vec::new();
    for path in paths {
        let Ok(meta) = fs::symlink_metadata(&path) else { continue };
        if meta.is_file() {
            files.push(path);
        } else if meta.is_dir() && depth > 1 {
            files.extend(files_under(&path, depth - 1));
        }
    }
    files
}

/// Strips one pair of surrounding quotes.
fn unquote(word: &str) -> String {
    let trimmed = word.trim_matches(['"', '\'']);
    trimmed.to_owned()
}

/// The project file `word` names, if any (see [`scripts_of`]).
fn resolve(word: &str, bases: &[PathBuf], root: &Path) -> Option<PathBuf> {
    if word.is_empty() || word.starts_with(['~', '$', '-']) {
        return None;
    }
    let path = Path::new(word);
    if path.is_absolute() {
        return Some(canonical(path)).filter(|path| path.is_file() && path.starts_with(root));
    }
    bases.iter().map(|base| base.join(path)).find(|candidate| candidate.is_file()).map(|found| canonical(&found))
}

/// `path` relative to `root` when under it, else as it is.
fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).map_or_else(|_| path.to_owned(), Path::to_owned)
}

/// The hashes of `files` (all under `root`) and of the scripts their hooks name.
fn hashes<'a>(root: &Path, files: impl IntoIterator<Item = &'a FileLoad>) -> BTreeMap<PathBuf, String> {
    let mut hashes = BTreeMap::new();
    for file in files {
        let hash = file.sha256.clone().unwrap_or_else(|| "unreadable".to_owned());
        hashes.insert(relative(root, &canonical(&file.file)), hash);
        for spec in &file.specs {
            for script in scripts_of(spec, root) {
                let hash = fs::read(&script).map_or_else(|_| "unreadable".to_owned(), |bytes| sha256_hex(&bytes));
                hashes.insert(relative(root, &script), hash);
            }
        }
    }
    hashes
}

/// What `hookwire trust <root>` records: the config files of `sources` under `root` and the
/// scripts they name, with their hashes. Fails with the first error of those files (a config
/// that does not load cannot be trusted), or when none of the sources is under `root`.
pub fn fingerprint(root: &Path, sources: &[ConfigSource]) -> Result<TrustRecord, ConfigError> {
    let root = canonical(root);
    let mut files = crate::config::read_sources(sources, Deadlines::default());
    crate::config::check_duplicate_names(&mut files);
    files.retain(|file| file.root == root);
    if let Some(error) = files.iter().flat_map(|file| &file.errors).next() {
        return Err(error.clone());
    }
    if files.is_empty() {
        return Err(ConfigError {
            file: root,
            line: None,
            column: None,
            hook: None,
            message: "no hook configuration here: expected .hookwire/hooks.yaml, .jcli/hooks.yaml or .jcli/hooks/<name>/HOOK.yaml"
                .to_owned(),
        });
    }
    Ok(TrustRecord { files: hashes(&root, &files), trusted_at: format_utc(SystemTime::now()), root })
}

/// Checks the project files among `files` against `store`: marks the files of each untrusted
/// root and says why, one entry per file that defines hooks.
pub(crate) fn check_files(files: &mut [FileLoad], store: &dyn TrustStore) -> Vec<Untrusted> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for file in files.iter().filter(|file| file.level == Level::Project) {
        if !roots.contains(&file.root) {
            roots.push(file.root.clone());
        }
    }
    let mut untrusted = Vec::new();
    for root in roots {
        let in_root = |file: &FileLoad| file.level == Level::Project && file.root == root;
        let current = hashes(&root, files.iter().filter(|file| in_root(file)));
        let reason = match store.get(&root) {
            None => "not trusted yet".to_owned(),
            Some(record) => match differences(&record.files, &current) {
                Some(reason) => reason,
                None => continue,
            },
        };
        for file in files.iter_mut().filter(|file| in_root(file)) {
            file.is_untrusted = true;
            if file.specs.is_empty() {
                continue;
            }
            untrusted.push(Untrusted {
                config: file.file.clone(),
                reason: reason.clone(),
                hooks: file.specs.iter().map(|spec| spec.name.clone()).collect(),
                how_to_trust: format!("run `hookwire trust {}`", root.display()),
            });
        }
    }
    untrusted
}

/// Why `current` no longer matches `trusted`, or `None` when it does.
fn differences(trusted: &BTreeMap<PathBuf, String>, current: &BTreeMap<PathBuf, String>) -> Option<String> {
    let mut reasons = Vec::new();
    for (path, hash) in current {
        match trusted.get(path) {
            Some(old) if old == hash => {}
            Some(_) => reasons.push(format!("`{}` changed since it was trusted", path.display())),
            None => reasons.push(format!("`{}` is new since the project was trusted", path.display())),
        }
    }
    for path in trusted.keys().filter(|path| !current.contains_key(*path)) {
        reasons.push(format!("`{}` was removed since the project was trusted", path.display()));
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// `time` as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
fn format_utc(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Days since 1970-01-01 → (year, month, day), Howard Hinnant's `civil_from_days`.
pub(crate) fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
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
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
