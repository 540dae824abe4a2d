//! Configuration loading: files of the three dialects into validated hook specs.
//!
//! [`load`] reads, unmodified:
//!
//! 1. j-cli's event-keyed `hooks.yaml` (event → list of hooks), also written as JSON
//!    (`hooks.json`);
//! 2. j-cli's hook directories: `hooks/<name>/HOOK.yaml` (or `HOOK.yml`; `HOOK.yaml` wins when
//!    both exist), each a hook with an `events:` list, named after its directory;
//! 3. PicoClaw's config (JSON or YAML) with a top-level `hooks` object: `enabled`,
//!    `defaults`, `processes`, `builtins`.
//!
//! A file's dialect comes from its name and content: `HOOK.yaml` / `HOOK.yml` is a directory
//! hook, a top-level `hooks` key is PicoClaw, anything else is event-keyed. `.json` files are
//! read as JSON, every other file as YAML.
//!
//! # Names
//!
//! A hook's name is its `name:`; a directory hook is named after its directory; a PicoClaw
//! process or builtin after its key. An unnamed entry of an event-keyed file is named
//! `<event>-<index>`, the canonical event name and the entry's 0-based position in that
//! event's list (`pre_tool_execution-0` is the first). Names are unique per level: a name
//! used twice is an error at the second place, naming the first.
//!
//! # Errors
//!
//! A file that does not parse, or holds one invalid hook, contributes nothing: a guard that
//! silently disappears is worse than a config that refuses to load. Loading goes on over every
//! file and reports every error found: the parser stops at the first problem inside a file,
//! validation (regexes, timeouts, names) reports each.
//!
//! # Order
//!
//! Specs come out in source order; inside a file in the order written (events as listed,
//! hooks in list order); hook directories sorted by name; PicoClaw builtins then processes,
//! each sorted by name. The same config gives the same order on every machine.

mod agent;
mod check;
mod diagnostic;
mod jcli;
mod locate;
mod parse;
mod picoclaw;

use std::{
    fs,
    io::ErrorKind,
    path::{Path, PathBuf},
};

pub use agent::agent_of;
pub use diagnostic::{ConfigError, ConfigWarning};
use hook_protocol::{Agent, config::HookFilter};
pub use parse::{ParseError, parse_json, parse_yaml};

use crate::{
    Deadlines, HookSpec, Level, SourceLocation,
    trust::{self, TrustStore},
};
pub(crate) use check::duplicate_names as check_duplicate_names;
use locate::Position;

/// The longest deadline a configuration may give a hook: longer values are load errors, so a
/// typo such as `1e19` never reaches a timer.
pub const MAX_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// Files bigger than this are refused: a hook config is a few kilobytes.
const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// Where to read hooks from: a file (`hooks.yaml`, `hooks.json`, `HOOK.yaml`, a PicoClaw config)
/// or a hooks directory (`hooks/<name>/HOOK.yaml`), and the level its hooks run at.
///
/// A source that does not exist is skipped without a word: callers list every place hooks
/// may be (`.hookwire/hooks.yaml`, `.jcli/hooks/`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSource {
    /// The file or directory.
    pub path: PathBuf,
    /// The level its hooks run at.
    pub level: Level,
    /// The agent whose settings file this is (Claude Code, Gemini CLI, Codex); `None`: decided
    /// from the file's content and path.
    pub agent: Option<Agent>,
}

impl ConfigSource {
    /// A source at `path` for `level`.
    pub fn new(path: impl Into<PathBuf>, level: Level) -> Self {
        ConfigSource { path: path.into(), level, agent: None }
    }

    /// A settings file of `agent` at `path` for `level`.
    pub fn agent(path: impl Into<PathBuf>, level: Level, agent: Agent) -> Self {
        ConfigSource { path: path.into(), level, agent: Some(agent) }
    }
}

/// Project hooks that do not run because their project is not trusted (or changed since).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrusted {
    /// The configuration file.
    pub config: PathBuf,
    /// Why: "not trusted yet", "`guard.sh` changed since it was trusted", ...
    pub reason: String,
    /// Names of the hooks of this file that do not run.
    pub hooks: Vec<String>,
    /// What to run to trust the project, e.g. "run `hookwire trust /path/to/project`".
    pub how_to_trust: String,
}

/// What [`load`] found.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// Hooks to run, in source order (see the module docs for the order inside a file).
    pub specs: Vec<HookSpec>,
    /// Things that load but are probably mistakes.
    pub warnings: Vec<ConfigWarning>,
    /// Every error of every file; a file with any error contributes no spec.
    pub errors: Vec<ConfigError>,
    /// Project files whose hooks do not run until trusted.
    pub untrusted: Vec<Untrusted>,
}

/// Reads every source and returns the hooks that may run, with every error and warning found.
///
/// `deadlines` are stored in each spec (a PicoClaw file's `hooks.defaults` override them for
/// its own hooks).
///
/// With `trust: Some(store)`, a [`Level::Project`] source runs only when the store holds a
/// record for its project root matching the SHA-256 of each config file and of each local
/// script they name (see [`crate::trust`]); otherwise its hooks are listed in
/// [`Loaded::untrusted`] instead of [`Loaded::specs`]. With `trust: None` project sources
/// load without a check: the caller decides (e.g. `hookwire check`, which runs nothing).
pub fn load(sources: &[ConfigSource], deadlines: Deadlines, trust: Option<&dyn TrustStore>) -> Loaded {
    let mut files = read_sources(sources, deadlines);
    check_duplicate_names(&mut files);
    let mut loaded = Loaded::default();
    if let Some(store) = trust {
        loaded.untrusted = trust::check_files(&mut files, store);
    }
    agent::drop_identical_handlers(&mut files);
    for file in files {
        if file.is_runnable() {
            loaded.specs.extend(file.specs);
        }
        loaded.errors.extend(file.errors);
        loaded.warnings.extend(file.warnings);
    }
    loaded
}

/// One configuration file as read and checked.
#[derive(Debug)]
pub(crate) struct FileLoad {
    /// The path as the source named it.
    pub(crate) file: PathBuf,
    /// The level of its source.
    pub(crate) level: Level,
    /// Its project root (canonical when it exists), see [`trust::project_root`].
    pub(crate) root: PathBuf,
    /// SHA-256 (hex) of the bytes read; `None` when the file could not be read.
    pub(crate) sha256: Option<String>,
    /// The hooks it defines (cleared when it has an error).
    pub(crate) specs: Vec<HookSpec>,
    pub(crate) errors: Vec<ConfigError>,
    pub(crate) warnings: Vec<ConfigWarning>,
    /// Set when trust refused the file.
    pub(crate) is_untrusted: bool,
}

impl FileLoad {
    /// Whether its hooks may run: no error, not refused by trust.
    pub(crate) fn is_runnable(&self) -> bool {
        self.errors.is_empty() && !self.is_untrusted
    }
}

/// Reads all sources, in order, into per-file results.
pub(crate) fn read_sources(sources: &[ConfigSource], deadlines: Deadlines) -> Vec<FileLoad> {
    let mut files = Vec::new();
    for source in sources {
        read_source(source, deadlines, &mut files);
    }
    files
}

fn read_source(source: &ConfigSource, deadlines: Deadlines, out: &mut Vec<FileLoad>) {
    let path = &source.path;
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == ErrorKind::NotFound => return,
        Err(err) => {
            out.push(unreadable(path, source.level, format!("cannot read it: {err}")));
            return;
        }
    };
    if !metadata.is_dir() {
        out.push(read_file(path, source.level, deadlines, None, source.agent));
        return;
    }
    let entries = match fs::read_dir(path) {
        Ok(entries) => entries,
        Err(err) => {
            out.push(unreadable(path, source.level, format!("cannot list the hook directories: {err}")));
            return;
        }
    };
    let mut dirs: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| (entry.file_name().to_string_lossy().into_owned(), entry.path()))
        .filter(|(name, dir)| name != "example" && dir.is_dir())
        .collect();
    // read_dir's order depends on the filesystem; sorting makes it the same everywhere.
    dirs.sort();
    for (name, dir) in dirs {
        let file = ["HOOK.yaml", "HOOK.yml"].iter().map(|f| dir.join(f)).find(|f| f.is_file());
        if let Some(file) = file {
            out.push(read_file(&file, source.level, deadlines, Some((name, dir)), None));
        }
    }
}

/// A file that could not be read at all.
fn unreadable(path: &Path, level: Level, message: String) -> FileLoad {
    FileLoad {
        file: path.to_owned(),
        level,
        root: trust::project_root(path),
        sha256: None,
        specs: Vec::new(),
        errors: vec![ConfigError { file: path.to_owned(), line: None, column: None, hook: None, message }],
        warnings: Vec::new(),
        is_untrusted: false,
    }
}

/// Reads one file; `hook_dir` is `(name, dir)` when it is the HOOK.yaml of a hook directory.
fn read_file(
    path: &Path,
    level: Level,
    deadlines: Deadlines,
    hook_dir: Option<(String, PathBuf)>,
    agent: Option<Agent>,
) -> FileLoad {
    let too_big = fs::metadata(path).is_ok_and(|m| m.len() > MAX_CONFIG_BYTES);
    if too_big {
        return unreadable(
            path,
            level,
            format!("is over {} MiB; a hook config is a few kilobytes", MAX_CONFIG_BYTES >> 20),
        );
    }
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => return unreadable(path, level, format!("cannot read it: {err}")),
    };
    let sha256 = Some(trust::sha256_hex(&bytes));
    let Ok(text) = String::from_utf8(bytes) else {
        let mut file = unreadable(path, level, "is not UTF-8 text; save it as UTF-8".to_owned());
        file.sha256 = sha256;
        return file;
    };
    let root = trust::project_root(path);
    let is_hook_yaml = path.file_name().is_some_and(|n| n == "HOOK.yaml" || n == "HOOK.yml");
    let hook_dir = hook_dir.or_else(|| {
        // A HOOK.yaml named directly as a source: its directory is the hook.
        if !is_hook_yaml {
            return None;
        }
        let dir = fs::canonicalize(path).ok()?.parent()?.to_owned();
        let name = dir.file_name()?.to_string_lossy().into_owned();
        Some((name, dir))
    });
    let mut cx = FileCx::new(path, &text, level, deadlines);
    let agent = agent.or_else(|| {
        (cx.format == Format::Json && agent::looks_like_agent_settings(&text)).then(|| agent::agent_of(path, &text))
    });
    let specs = match (hook_dir, agent) {
        (Some((name, dir)), _) => jcli::dir_hook(&mut cx, &name, &dir),
        (None, Some(agent)) => agent::agent_settings(&mut cx, agent),
        (None, None) => match cx.top_keys() {
            Ok(Some(keys)) if keys.iter().any(|k| k == "hooks") => picoclaw::picoclaw(&mut cx),
            Ok(None) => {
                cx.error(
                    Some((1, 1)),
                    None,
                    "the top level is not a mapping: write `event_name:` keys with lists of hooks (j-cli hooks.yaml) or a `hooks:` section (PicoClaw)",
                );
                Vec::new()
            }
            // A parse error: the typed parse reports it with the same position.
            Ok(Some(_)) | Err(_) => jcli::event_keyed(&mut cx),
        },
    };
    let FileCx { errors, warnings, .. } = cx;
    FileLoad {
        file: path.to_owned(),
        level,
        root,
        sha256,
        specs: if errors.is_empty() { specs } else { Vec::new() },
        errors,
        warnings,
        is_untrusted: false,
    }
}

/// The text format of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
}

/// What building the specs of one file needs, and where its errors and warnings go.
#[derive(Debug)]
pub(crate) struct FileCx<'a> {
    pub(crate) file: &'a Path,
    pub(crate) text: &'a str,
    pub(crate) level: Level,
    pub(crate) deadlines: Deadlines,
    format: Format,
    pub(crate) errors: Vec<ConfigError>,
    pub(crate) warnings: Vec<ConfigWarning>,
}

impl<'a> FileCx<'a> {
    fn new(file: &'a Path, text: &'a str, level: Level, deadlines: Deadlines) -> Self {
        let format =
            if file.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) { Format::Json } else { Format::Yaml };
        FileCx { file, text, level, deadlines, format, errors: Vec::new(), warnings: Vec::new() }
    }

    /// Parses the whole file into `T` in the file's format.
    pub(crate) fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, ParseError> {
        match self.format {
            Format::Yaml => parse_yaml(self.text),
            Format::Json => parse_json(self.text),
        }
    }

    /// The top-level keys; `Ok(None)` when the document is a list or a scalar.
    fn top_keys(&self) -> Result<Option<Vec<String>>, ParseError> {
        self.parse::<parse::TopKeys>().map(|keys| keys.0)
    }

    /// Records an error.
    pub(crate) fn error(&mut self, at: Option<Position>, hook: Option<&str>, message: impl Into<String>) {
        self.errors.push(ConfigError {
            file: self.file.to_owned(),
            line: at.map(|(line, _)| line),
            column: at.map(|(_, column)| column),
            hook: hook.map(str::to_owned),
            message: message.into(),
        });
    }

    /// Records the parser's error.
    pub(crate) fn parse_error(&mut self, err: ParseError, hook: Option<&str>) {
        let hook = hook.map(str::to_owned).or_else(|| err.line.and_then(|line| jcli::entry_name_at(self.text, line)));
        self.errors.push(ConfigError {
            file: self.file.to_owned(),
            line: err.line,
            column: err.line.and(err.column),
            hook,
            message: err.message,
        });
    }

    /// Records a warning.
    pub(crate) fn warn(&mut self, at: Option<Position>, hook: Option<&str>, message: impl Into<String>) {
        self.warnings.push(ConfigWarning {
            file: self.file.to_owned(),
            line: at.map(|(line, _)| line),
            column: at.map(|(_, column)| column),
            hook: hook.map(str::to_owned),
            message: message.into(),
        });
    }

    /// A spec's source location.
    pub(crate) fn location(&self, at: Option<Position>) -> SourceLocation {
        SourceLocation { file: self.file.to_owned(), line: at.map(|(l, _)| l), column: at.map(|(_, c)| c) }
    }

    /// Finds `key: value` at or after line `from`, see [`locate::locate`].
    pub(crate) fn locate(&self, key: &str, value: Option<&str>, from: usize) -> Option<Position> {
        locate::locate(self.text, key, value, from)
    }
}

/// Which tool conditions a filter sets, for warnings: `tool_name`, `tool_matcher`, ...
fn tool_conditions(filter: &HookFilter) -> Vec<&'static str> {
    let mut keys = Vec::new();
    if filter.tool_name.is_some() {
        keys.push("tool_name");
    }
    if filter.tool_matcher.is_some() {
        keys.push("tool_matcher");
    }
    if filter.tool_regex.is_some() {
        keys.push("tool_regex");
    }
    if filter.args_regex.is_some() {
        keys.push("args_regex");
    }
    keys
}
