//! Configuration loading: files of the three dialects into validated hook specs.
//!
//! [`load`] reads, unmodified:
//!
//! 1. j-cli's event-keyed `hooks.yaml` (event → list of hooks), also written as JSON
//!    (`hooks.json`);
//! 2. j-cli's hook directories: `hooks/<name>/HOOK.yaml` (or `HOOK.yml`; `HOOK.yaml` wins when
//!    both exist), each a hook with an `events:` list, named after its directory;
//! 3. PicoClaw's config (JSON or YAML) with a top-level `hooks` object: `enabled`,
//!    `defaults`, `processes`, `builtins`;
//! 4. the agents' own hook files: Claude Code, Gemini CLI and Codex settings (`agent.rs`) and
//!    GitHub Copilot CLI's `.github/hooks/*.json` (`copilot.rs`).
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
//! file and reports every error of each: after the parser's first error in a j-cli or PicoClaw
//! file, the key or list item holding it is blanked out and the rest parsed again, so
//! one run lists every mistake. A syntax error stays one error.
//!
//! # Order
//!
//! Specs come out in source order; inside a file in the order written (events as listed,
//! hooks in list order); hook directories sorted by name; PicoClaw builtins then processes,
//! each sorted by name. The same config gives the same order on every machine.
//!
//! # Places
//!
//! A file belongs where it was found, not where a symbolic link points: its project root is
//! the directory holding the nearest `.hookwire/`, `.jcli/`, `.claude/`, `.gemini/`, `.codex/`,
//! `.github/` or `.copilot/` on the path as written (see [`project_root`]). The loader records on each spec the
//! directory it runs in ([`HookSpec::work_dir`]): the project root for a project's hooks, the
//! config file's directory for a process hook, whatever the caller's working directory.
//!
//! # Review
//!
//! Loading does not decide which project hooks may run: [`load`] takes an optional
//! [`Review`], a pass over every file read that holds back the files it does not admit.
//! hookwire's is trust (`hook_trust::TrustCheck`); this module knows nothing of it.
//!
//! ```
//! use hook_config::{ConfigSource, load};
//! use hook_core::{Deadlines, Level};
//!
//! # let dir = std::env::temp_dir().join(format!("hook-config-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let file = dir.join("hooks.yaml");
//! std::fs::write(&file, "pre_tool_execution:\n  - name: guard\n    command: ./guard.sh\n").unwrap();
//! let loaded = load(&[ConfigSource::new(&file, Level::User)], Deadlines::default(), None);
//! assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
//! assert_eq!(loaded.specs[0].name, "guard");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod agent;
mod check;
mod copilot;
mod diagnostic;
mod jcli;
mod locate;
mod parse;
mod picoclaw;
mod rules;
mod sandbox;

use std::{
    fmt, fs,
    io::ErrorKind,
    path::{Component, Path, PathBuf},
};

pub use agent::agent_of;
pub use diagnostic::{ConfigError, ConfigWarning};
pub use hook_agents::url_allowed;
use hook_protocol::{Agent, config::HookFilter};
pub use parse::{ParseError, parse_json, parse_yaml};
pub use sandbox::{SANDBOX_DEFAULTS_VAR, SandboxDefaults, SandboxDefaultsError};
use sha2::{Digest, Sha256};

use hook_core::{Deadlines, HookDefinition, HookSpec, Level, SourceLocation};
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
    /// What hookwire cannot tell about the files these hooks run, one line per hook and
    /// command part (`hook `x`: `$(git rev-parse --show-toplevel)/x.sh`: command substitution`).
    pub undetermined: Vec<String>,
}

/// One file [`load`] read, whatever became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    /// The path as its source named it.
    pub path: PathBuf,
    /// The level of its source.
    pub level: Level,
    /// Its project root, see [`project_root`].
    pub root: PathBuf,
    /// Its path relative to the root, as found (not through symbolic links).
    pub relative: PathBuf,
    /// SHA-256 (lowercase hex) of the bytes read; `None` when it could not be read.
    pub sha256: Option<String>,
    /// Whether it has errors (then it contributes no hook).
    pub has_errors: bool,
    /// Whether a [`Review`] held it back.
    pub is_held_back: bool,
    /// How many of its entries call hookwire's own bridge (`hookwire hook <agent>`, as
    /// `hookwire install` writes them): they are not hooks hookwire runs (it would run itself),
    /// so they are left out of [`Loaded::specs`], trust listings and warnings.
    pub bridge_entries: usize,
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
    /// Every file read, in source order.
    pub files: Vec<FileInfo>,
}

/// A pass over every file [`load`] read, before identical handlers of several files are merged:
/// it holds back ([`FileLoad::hold_back`]) the files whose hooks must not run and says why. It
/// may also annotate the specs it admits (trust attaches its run guard, [`hook_core::SpecGuard`]).
///
/// It is asked twice. [`Review::screen`] comes first, when the files are read but not parsed:
/// the project roots it names are held back outright, and their files are parsed only for
/// their hook names (no validation, no spans): an untrusted project costs nothing.
/// [`Review::review`] comes after parsing, over every file.
pub trait Review: fmt::Debug {
    /// Before parsing: the project roots whose files are held back whatever they hold (their
    /// [`FileInfo::sha256`] is known, their hooks are not). By default none.
    fn screen(&self, _files: &[FileInfo]) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Reviews `files` (those of the screened roots are already held back); returns one entry
    /// per held-back file that defines hooks.
    fn review(&self, files: &mut [FileLoad]) -> Vec<Untrusted>;
}

/// Reads every source and returns the hooks that may run, with every error and warning found.
///
/// `deadlines` are stored in each spec (a PicoClaw file's `hooks.defaults` override them for
/// its own hooks).
///
/// With `review: Some(pass)`, the pass decides which files' hooks run: hookwire passes
/// `hook_trust::TrustCheck`, under which a [`Level::Project`] source runs only when the trust
/// store holds a record for its project root matching the SHA-256 of each config file and of
/// each file its hooks run; the others are listed in [`Loaded::untrusted`] instead of
/// [`Loaded::specs`]. With `None` every file loads unreviewed: the caller decides (e.g.
/// `hookwire check --no-default-config`, a test).
pub fn load(sources: &[ConfigSource], deadlines: Deadlines, review: Option<&dyn Review>) -> Loaded {
    let read = read_sources(sources);
    let screened = match review {
        Some(review) => review.screen(&read.iter().map(RawFile::info).collect::<Vec<_>>()),
        None => Vec::new(),
    };
    let mut files: Vec<FileLoad> = read
        .into_iter()
        .map(|raw| {
            let is_held = raw.level == Level::Project && screened.contains(&raw.place.root);
            let mut file = parse_file(raw, deadlines, is_held);
            let n_specs = file.specs.len();
            file.specs.retain(|spec| !calls_the_bridge(spec));
            file.bridge_entries = n_specs - file.specs.len();
            if is_held {
                file.hold_back();
            }
            file
        })
        .collect();
    check::duplicate_names(&mut files);
    agent::apply_user_http_allowlists(&mut files);
    check::tool_name_case(&mut files);
    let mut loaded = Loaded::default();
    if let Some(review) = review {
        loaded.untrusted = review.review(&mut files);
    }
    agent::drop_identical_handlers(&mut files);
    for file in files {
        loaded.files.push(FileInfo {
            path: file.file.clone(),
            level: file.level,
            root: file.root.clone(),
            relative: file.relative.clone(),
            sha256: file.sha256.clone(),
            has_errors: !file.errors.is_empty(),
            is_held_back: file.is_untrusted,
            bridge_entries: file.bridge_entries,
        });
        if file.is_runnable() {
            loaded.specs.extend(file.specs);
        }
        loaded.errors.extend(file.errors);
        loaded.warnings.extend(file.warnings);
    }
    loaded
}

/// One configuration file as read and checked, as a [`Review`] sees it.
#[derive(Debug)]
pub struct FileLoad {
    /// The path as the source named it.
    pub(crate) file: PathBuf,
    /// The level of its source.
    pub(crate) level: Level,
    /// Its project root (canonical when it exists), see [`project_root`].
    pub(crate) root: PathBuf,
    /// Its path relative to the root, as found.
    pub(crate) relative: PathBuf,
    /// SHA-256 (hex) of the bytes read; `None` when the file could not be read.
    pub(crate) sha256: Option<String>,
    /// The hooks it defines (cleared when it has an error).
    pub(crate) specs: Vec<HookSpec>,
    pub(crate) errors: Vec<ConfigError>,
    pub(crate) warnings: Vec<ConfigWarning>,
    /// Set when a review held the file back.
    pub(crate) is_untrusted: bool,
    /// Entries left out because they call hookwire's own bridge (see [`calls_the_bridge`]).
    pub(crate) bridge_entries: usize,
    /// An agent settings file's `allowedHttpHookUrls`, with the agent.
    pub(crate) http_allowlist: Option<(Agent, Vec<String>)>,
}

impl FileLoad {
    /// Whether its hooks may run: no error, not held back.
    pub(crate) fn is_runnable(&self) -> bool {
        self.errors.is_empty() && !self.is_untrusted
    }

    /// The path as its source named it.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The level of its source.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Its project root, see [`project_root`].
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Its path relative to [`FileLoad::root`], as found (not through symbolic links).
    pub fn relative_path(&self) -> &Path {
        &self.relative
    }

    /// SHA-256 (lowercase hex) of the bytes read; `None` when it could not be read.
    pub fn sha256(&self) -> Option<&str> {
        self.sha256.as_deref()
    }

    /// The hooks it defines (none when it has errors).
    pub fn specs(&self) -> &[HookSpec] {
        &self.specs
    }

    /// The hooks it defines, to annotate.
    pub fn specs_mut(&mut self) -> &mut [HookSpec] {
        &mut self.specs
    }

    /// Whether it has errors (then it contributes no hook).
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Keeps its hooks from running.
    pub fn hold_back(&mut self) {
        self.is_untrusted = true;
    }

    /// Whether [`FileLoad::hold_back`] was called.
    pub fn is_held_back(&self) -> bool {
        self.is_untrusted
    }
}

/// Where a config file belongs: the canonical project root, and the file's path relative to
/// it as found.
#[derive(Debug, Clone)]
struct Place {
    /// The project root, canonical when it exists.
    root: PathBuf,
    /// The root as written in the file's path (before resolving symbolic links above it).
    written_root: PathBuf,
    /// The file's path relative to the root.
    relative: PathBuf,
}

impl Place {
    /// Where `path` is.
    fn of(path: &Path) -> Place {
        let absolute = absolute(path);
        const MARKERS: [&str; 7] = [".hookwire", ".jcli", ".claude", ".gemini", ".codex", ".github", ".copilot"];
        let marker =
            absolute.ancestors().find(|dir| dir.file_name().is_some_and(|name| MARKERS.iter().any(|m| name == *m)));
        let written_root = match marker.and_then(Path::parent) {
            Some(parent) => parent.to_owned(),
            None => absolute.parent().map_or_else(|| absolute.clone(), Path::to_owned),
        };
        let relative = absolute.strip_prefix(&written_root).map_or_else(|_| PathBuf::new(), Path::to_owned);
        // Canonicalizing the root directory itself is safe: only what is below it keeps the
        // place it was found at.
        let root = fs::canonicalize(&written_root).unwrap_or_else(|_| written_root.clone());
        Place { root, written_root, relative }
    }

    /// `path` (under the written root) moved under the canonical root.
    fn rebase(&self, path: &Path) -> PathBuf {
        let absolute = absolute(path);
        match absolute.strip_prefix(&self.written_root) {
            Ok(rest) => self.root.join(rest),
            Err(_) => absolute,
        }
    }

    /// The file, under the canonical root.
    fn file(&self) -> PathBuf {
        self.root.join(&self.relative)
    }
}

/// `path` made absolute against the working directory, `.` components removed, symbolic links
/// left alone.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_owned(), |cwd| cwd.join(path))
    };
    joined.components().filter(|c| *c != Component::CurDir).collect()
}

/// The project root of a config file or hooks directory: the directory holding the nearest
/// `.hookwire/`, `.jcli/`, `.claude/`, `.gemini/`, `.codex/`, `.github/` or `.copilot/` on its
/// path as written (`/p` for
/// `/p/.hookwire/hooks.yaml` and for `/p/.jcli/hooks/guard/HOOK.yaml`), else the directory
/// containing it; canonical when it exists.
///
/// A config reached through a symbolic link belongs to the place it was found: the link
/// `/untrusted/.hookwire/hooks.yaml` → `/trusted/.hookwire/hooks.yaml` is `/untrusted`'s.
pub fn project_root(config: &Path) -> PathBuf {
    Place::of(config).root
}

/// Whether a hook would call hookwire's bridge itself (`hookwire hook ...`, as `hookwire
/// install` writes it into an agent's settings): run inside hookwire, it would run hookwire
/// again. Such entries are hookwire's own, not hooks: [`load`] leaves them out.
pub fn calls_the_bridge(spec: &HookSpec) -> bool {
    let HookDefinition::Agent(def) = &spec.definition else { return false };
    let mut words: Vec<&str> = def.handler.command.as_deref().unwrap_or_default().split_whitespace().collect();
    words.extend(def.handler.args.iter().flatten().map(String::as_str));
    words.windows(2).any(|pair| {
        let program = pair[0].trim_matches(['"', '\'']);
        Path::new(program).file_name().is_some_and(|name| name == "hookwire") && pair[1] == "hook"
    })
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(HEX[usize::from(byte >> 4)]));
        text.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    text
}

/// One configuration file as read, before it is parsed.
#[derive(Debug)]
struct RawFile {
    path: PathBuf,
    level: Level,
    place: Place,
    /// `(name, dir)` when it is the HOOK.yaml of a hook directory.
    hook_dir: Option<(String, PathBuf)>,
    agent: Option<Agent>,
    /// Its SHA-256 when its bytes could be read.
    sha256: Option<String>,
    /// Its text, or why there is none.
    text: Result<String, String>,
}

impl RawFile {
    fn info(&self) -> FileInfo {
        FileInfo {
            path: self.path.clone(),
            level: self.level,
            root: self.place.root.clone(),
            relative: self.place.relative.clone(),
            sha256: self.sha256.clone(),
            has_errors: self.text.is_err(),
            is_held_back: false,
            bridge_entries: 0,
        }
    }
}

/// Reads all sources, in order.
fn read_sources(sources: &[ConfigSource]) -> Vec<RawFile> {
    let mut files = Vec::new();
    for source in sources {
        read_source(source, &mut files);
    }
    files
}

fn read_source(source: &ConfigSource, out: &mut Vec<RawFile>) {
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
        out.push(read_file(path, source.level, None, source.agent));
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
            out.push(read_file(&file, source.level, Some((name, dir)), None));
        }
    }
}

/// A file that could not be read at all.
fn unreadable(path: &Path, level: Level, message: String) -> RawFile {
    RawFile {
        path: path.to_owned(),
        level,
        place: Place::of(path),
        hook_dir: None,
        agent: None,
        sha256: None,
        text: Err(message),
    }
}

/// The bytes of `path`, a regular file of at most [`MAX_CONFIG_BYTES`]; the message of what
/// stands in the way otherwise.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    // Not a FIFO or a device: opening one could block, reading one never end.
    match fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => return Err("is not a regular file".to_owned()),
        Ok(_) => {}
        Err(err) => return Err(format!("cannot read it: {err}")),
    }
    let file = fs::File::open(path).map_err(|err| format!("cannot read it: {err}"))?;
    let mut bytes = Vec::new();
    // One byte over the limit tells a file that is too big, however fast it grows.
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes).map_err(|err| format!("cannot read it: {err}"))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!("is over {} MiB; a hook config is a few kilobytes", MAX_CONFIG_BYTES >> 20));
    }
    Ok(bytes)
}

/// Reads one file; `hook_dir` is `(name, dir)` when it is the HOOK.yaml of a hook directory.
fn read_file(path: &Path, level: Level, hook_dir: Option<(String, PathBuf)>, agent: Option<Agent>) -> RawFile {
    let bytes = match read_bounded(path) {
        Ok(bytes) => bytes,
        Err(message) => return unreadable(path, level, message),
    };
    let sha256 = Some(sha256_hex(&bytes));
    let text = String::from_utf8(bytes).map_err(|_| "is not UTF-8 text; save it as UTF-8".to_owned());
    RawFile { path: path.to_owned(), level, place: Place::of(path), hook_dir, agent, sha256, text }
}

/// Parses one file into its specs. `is_shallow`: only for its hook names (a held-back
/// project's file): no spans and no regex compiled.
fn parse_file(raw: RawFile, deadlines: Deadlines, is_shallow: bool) -> FileLoad {
    let RawFile { path, level, place, hook_dir, agent, sha256, text } = raw;
    let mut file = FileLoad {
        file: path.clone(),
        level,
        root: place.root.clone(),
        relative: place.relative.clone(),
        sha256,
        specs: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        is_untrusted: false,
        bridge_entries: 0,
        http_allowlist: None,
    };
    let text = match text {
        Ok(text) => text,
        Err(message) => {
            file.errors.push(ConfigError { file: path, line: None, column: None, hook: None, message });
            return file;
        }
    };
    let path = path.as_path();
    let is_hook_yaml = path.file_name().is_some_and(|n| n == "HOOK.yaml" || n == "HOOK.yml");
    let hook_dir = hook_dir.or_else(|| {
        // A HOOK.yaml named directly as a source: its directory (where it was found) is the hook.
        if !is_hook_yaml {
            return None;
        }
        let dir = absolute(path).parent()?.to_owned();
        let name = dir.file_name()?.to_string_lossy().into_owned();
        Some((name, dir))
    });
    let mut cx = FileCx::new(path, &text, level, deadlines);
    cx.is_shallow = is_shallow;
    let refused = (cx.format == Format::Yaml).then(|| locate::refused_tag(&text)).flatten();
    let specs = if let Some(refused) = refused {
        cx.error(
            refused.at,
            None,
            format!(
                "the YAML tag `{}` is not allowed in a hook config: it hides what the value says from anyone reading the file (and from `hookwire trust`); write the value as plain text",
                refused.tag
            ),
        );
        Vec::new()
    } else {
        let agent = agent.or_else(|| {
            if cx.format == Format::Json && copilot::is_copilot_file(path, &text) {
                return Some(Agent::Copilot);
            }
            (cx.format == Format::Json && agent::looks_like_agent_settings(&text)).then(|| agent::agent_of(path, &text))
        });
        match (hook_dir, agent) {
            (Some((name, dir)), _) => every_error(&mut cx, &Dialect::Dir(name, place.rebase(&dir))),
            (None, Some(Agent::Copilot)) => copilot::copilot_file(&mut cx),
            (None, Some(agent)) if cx.is_shallow => shallow_agent_specs(&mut cx, agent),
            (None, Some(agent)) => agent::agent_settings(&mut cx, agent),
            (None, None) => {
                cx.prepare_spans();
                match cx.top_keys() {
                    Ok(Some(keys)) if rules::is_rules_file(&keys) => rules::rules_file(&mut cx),
                    Ok(Some(keys)) if keys.iter().any(|k| k == "hooks") => every_error(&mut cx, &Dialect::PicoClaw),
                    Ok(None) => {
                        cx.error(
                            Some((1, 1)),
                            None,
                            "the top level is not a mapping: write `event_name:` keys with lists of hooks (j-cli hooks.yaml) or a `hooks:` section (PicoClaw)",
                        );
                        Vec::new()
                    }
                    Ok(Some(_)) => every_error(&mut cx, &Dialect::EventKeyed),
                    // A syntax error, reported as such: the typed parse of the wrong dialect
                    // would stop earlier, at `hooks` (no event), and hide it.
                    Err(err) => {
                        cx.parse_error(err, None);
                        Vec::new()
                    }
                }
            }
        }
    };
    let FileCx { errors, warnings, http_allowlist, .. } = cx;
    file.http_allowlist = http_allowlist;
    let mut specs = if errors.is_empty() { specs } else { Vec::new() };
    let config_dir = place.file().parent().map(Path::to_owned);
    for spec in &mut specs {
        spec.work_dir = match &spec.definition {
            // A process hook's relative `command` and `dir` are the config file's.
            HookDefinition::Process(_) => config_dir.clone(),
            // A project's hooks run at its root, wherever the caller is.
            _ if level == Level::Project => Some(place.root.clone()),
            _ => None,
        };
    }
    file.specs = specs;
    file.errors = errors;
    file.warnings = warnings;
    file
}

/// The dialects whose files [`every_error`] reads.
#[derive(Debug)]
enum Dialect {
    /// A hook directory's `HOOK.yaml`: the hook's name and its directory.
    Dir(String, PathBuf),
    /// j-cli's event-keyed `hooks.yaml` / `hooks.json`.
    EventKeyed,
    /// A PicoClaw config.
    PicoClaw,
}

/// At most this many times is one file parsed again to find its next parse error (each cut
/// costs a whole parse, whether or not it finds an error worth reporting).
const MAX_PARSE_ERRORS: usize = 100;

/// The specs of a file of `dialect`, with every error it holds.
///
/// The typed parse stops at a file's first error. When it does and the file is not a syntax
/// error, the key or list item holding the error (see [`locate::Ranges::unit_at`]) is blanked
/// out, every other line and column left where it was, and the file parsed again, until it
/// parses; the checks after parsing (regexes, names, timeouts) then report the rest. A file
/// with any error still loads nothing: the cut text only finds the errors.
///
/// An error at an entry that names a key cut out of that entry before (`a bash hook needs a
/// non-empty `command`` after a `command` of the wrong type was cut) is the cut's doing, not
/// the file's, and is not reported.
fn every_error(cx: &mut FileCx<'_>, dialect: &Dialect) -> Vec<HookSpec> {
    let specs = run_dialect(cx, dialect);
    let Some(first) = cx.parse_failure.take() else { return specs };
    let is_syntax_error = cx.format == Format::Json && serde_json::from_str::<serde::de::IgnoredAny>(cx.text).is_err();
    if cx.is_shallow || is_syntax_error {
        return specs;
    }
    let Some(ranges) = locate::Ranges::parse(cx.text) else { return specs };
    if let Some(error) = cx.errors.last_mut() {
        place_parse_error(&ranges, cx.format, dialect, error, &first);
    }
    let mut text = cx.text.to_owned();
    let mut failure = first;
    let mut cuts: Vec<locate::Unit> = Vec::new();
    // The keys cut out of each mapping (by where it starts), and the keys they stand for.
    let mut cut_keys: Vec<(Option<Position>, String)> = Vec::new();
    while let Some(unit) = failure.at.and_then(|at| ranges.unit_at(at, failure.is_key_error)) {
        if cuts.contains(&unit) || cuts.len() >= MAX_PARSE_ERRORS {
            break;
        }
        text = ranges.cut(&text, &unit);
        cut_keys.extend(unit.key.iter().chain(failure.meant.as_ref()).map(|key| (Some(unit.parent_at), key.clone())));
        cuts.push(unit);
        let mut next = FileCx::new(cx.file, &text, cx.level, cx.deadlines);
        next.original_text = cx.original_text;
        next.cut_items = cuts.iter().filter(|cut| cut.is_item).map(|cut| cut.value_at).collect();
        let specs = run_dialect(&mut next, dialect);
        let FileCx { mut errors, warnings, parse_failure, .. } = next;
        let Some(next_failure) = parse_failure else {
            // The cut text parses: its checks report the remaining errors.
            cx.errors.append(&mut errors);
            in_file_order(&mut cx.errors);
            return specs;
        };
        // The parse error is the last error recorded.
        // The mapping the error is about as a whole, if it is (the whole file when the parser
        // gives no position).
        let whole = match next_failure.at {
            Some(at) => {
                ranges.unit_at(at, next_failure.is_key_error).filter(|unit| unit.is_map).map(|unit| unit.value_at)
            }
            None => Some(ranges.root_at()),
        };
        let is_cut_doing = errors.last().is_some_and(|error| {
            whole.is_some_and(|whole| {
                cut_keys.iter().any(|(parent, key)| {
                    (*parent == Some(whole) || next_failure.at.is_none()) && error.message.contains(&format!("`{key}`"))
                })
            })
        });
        if is_cut_doing {
            errors.pop();
        } else if let Some(error) = errors.last_mut() {
            place_parse_error(&ranges, cx.format, dialect, error, &next_failure);
        }
        cx.errors.append(&mut errors);
        drop(warnings);
        failure = next_failure;
    }
    in_file_order(&mut cx.errors);
    specs
}

/// Completes a parse error from the file's ranges: the hook it is in when the parser did not
/// say (JSON, PicoClaw), and, in JSON, which reports an error about a whole entry after the
/// entry's end, the entry's start.
fn place_parse_error(
    ranges: &locate::Ranges,
    format: Format,
    dialect: &Dialect,
    error: &mut ConfigError,
    failure: &ParseFailure,
) {
    if format == Format::Json
        && let Some(unit) = failure.at.and_then(|at| ranges.unit_at(at, failure.is_key_error))
        && unit.is_whole
        && unit.is_map
    {
        error.line = Some(unit.value_at.0);
        error.column = Some(unit.value_at.1);
    }
    let Some(at) = error.line.zip(error.column).or(failure.at) else { return };
    if error.hook.is_none() {
        error.hook = match dialect {
            Dialect::EventKeyed => ranges.entry_around(at).and_then(|(key, idx, name)| {
                let event = key.parse::<hook_protocol::Event>().ok()?;
                name.or_else(|| idx.map(|idx| format!("{event}-{idx}")))
            }),
            Dialect::PicoClaw => {
                ranges.key_around(&["hooks", "processes"], at).or_else(|| ranges.key_around(&["hooks", "builtins"], at))
            }
            Dialect::Dir(name, _) => Some(name.clone()),
        };
    }
}

/// Sorts a file's errors by line and column; those without a position last.
fn in_file_order(errors: &mut [ConfigError]) {
    errors.sort_by_key(|error| (error.line.is_none(), error.line, error.column));
}

/// Runs the parser and checks of `dialect` over `cx`'s text.
fn run_dialect(cx: &mut FileCx<'_>, dialect: &Dialect) -> Vec<HookSpec> {
    match dialect {
        Dialect::Dir(name, dir) => jcli::dir_hook(cx, name, dir),
        Dialect::EventKeyed => jcli::event_keyed(cx),
        Dialect::PicoClaw => picoclaw::picoclaw(cx),
    }
}

/// Where a typed parse stopped, for [`every_error`].
#[derive(Debug, Clone)]
pub(crate) struct ParseFailure {
    /// The error's position, when the parser knows it.
    at: Option<Position>,
    /// The key an unknown key probably stands for (the parser's "did you mean").
    meant: Option<String>,
    /// Whether it is about a key (unknown, or written twice) rather than a value.
    is_key_error: bool,
}

/// The handlers of an agent settings file, for a held-back (shallow) parse: named as the full
/// parse names them (`<agent>-<Event>-<group>-<handler>`, or the handler's `name`), with the
/// commands `hookwire check` and `trust` describe; no matcher compiled, no position sought.
fn shallow_agent_specs(cx: &mut FileCx<'_>, agent: Agent) -> Vec<HookSpec> {
    let (settings, switches) = match agent::read_settings(agent, cx.text).1 {
        Ok(parsed) => parsed,
        Err(err) => {
            cx.error(None, None, format!("{err}; see the {} hooks documentation for the shape", agent.display_name()));
            return Vec::new();
        }
    };
    if settings.disable_all_hooks == Some(true) || switches.off.is_some() {
        return Vec::new();
    }
    let mut specs = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (event_name, groups) in settings.hooks.unwrap_or_default() {
        let Some(event) = agent.event(&event_name) else { continue };
        for (g, group) in groups.into_iter().enumerate() {
            for (h, handler) in group.hooks.into_iter().enumerate() {
                if [&handler.name, &handler.command].into_iter().flatten().any(|id| switches.disabled.contains(id)) {
                    continue;
                }
                let base = handler
                    .name
                    .clone()
                    .filter(|name| !name.is_empty())
                    .unwrap_or_else(|| format!("{}-{event_name}-{g}-{h}", agent.as_str()));
                let mut name = base.clone();
                let mut n = 2;
                while !names.insert(name.clone()) {
                    name = format!("{base}-{n}");
                    n += 1;
                }
                let kind = handler.kind.clone();
                let def = hook_core::AgentHookDef {
                    agent,
                    event_name: event_name.clone(),
                    matcher: group.matcher.clone(),
                    handler,
                    plugin_root: None,
                    http_allowed_urls: None,
                    http_allowed_env_vars: Vec::new(),
                };
                let mut spec = HookSpec::new(name, cx.level, kind, [event], HookDefinition::Agent(Box::new(def)));
                spec.source = cx.location(None);
                specs.push(spec);
            }
        }
    }
    specs
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
    /// Parsed only for hook names (a held-back project's file): no spans, no regex compiled.
    pub(crate) is_shallow: bool,
    /// The spans, parsed by [`FileCx::prepare_spans`], taken by the dialect.
    spans: Option<locate::Tree>,
    /// The file's text as read: [`FileCx::text`] is a copy with parts cut out when
    /// [`every_error`] looks for errors after the first (hooks are named from this one).
    pub(crate) original_text: &'a str,
    /// Where the typed parse stopped, when it did.
    parse_failure: Option<ParseFailure>,
    /// Where the list items cut out of the text start, so the unnamed entries after them keep
    /// their generated names (`<event>-<index>` of the file as written).
    pub(crate) cut_items: Vec<Position>,
    /// An agent settings file's `allowedHttpHookUrls`, with the agent, once read.
    pub(crate) http_allowlist: Option<(Agent, Vec<String>)>,
}

impl<'a> FileCx<'a> {
    fn new(file: &'a Path, text: &'a str, level: Level, deadlines: Deadlines) -> Self {
        let format =
            if file.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) { Format::Json } else { Format::Yaml };
        FileCx {
            file,
            text,
            level,
            deadlines,
            format,
            errors: Vec::new(),
            warnings: Vec::new(),
            is_shallow: false,
            spans: None,
            original_text: text,
            parse_failure: None,
            cut_items: Vec::new(),
            http_allowlist: None,
        }
    }

    /// Parses the spans of the file's nodes and keys, once (not for a shallow parse).
    fn prepare_spans(&mut self) {
        if !self.is_shallow && self.spans.is_none() {
            self.spans = locate::Tree::parse(self.text);
        }
    }

    /// Parses the whole file into `T` in the file's format.
    pub(crate) fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, ParseError> {
        match self.format {
            Format::Yaml => parse_yaml(self.text),
            Format::Json => parse_json(self.text),
        }
    }

    /// The top-level keys; `Ok(None)` when the document is a list or a scalar. From the spans
    /// when there are some (no second parse).
    fn top_keys(&self) -> Result<Option<Vec<String>>, ParseError> {
        if let Some(tree) = &self.spans {
            return Ok(tree.root.top_keys());
        }
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
        let hook =
            hook.map(str::to_owned).or_else(|| err.line.and_then(|line| jcli::entry_name_at(self.original_text, line)));
        let is_key_error = err.message.starts_with("unknown field") || err.message.starts_with("duplicate key");
        // A key written wrong (`comand`) is cut with the key it stands for (`command`), so the
        // missing `command` that follows is not reported as a second mistake.
        let meant = err.message.split("(did you mean `").nth(1).and_then(|rest| rest.split('`').next());
        self.parse_failure =
            Some(ParseFailure { at: err.line.zip(err.column), is_key_error, meant: meant.map(str::to_owned) });
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

    /// The spans of the file's nodes and keys, for the dialect to keep while it builds specs;
    /// `None` when the file does not parse, or for a shallow parse.
    pub(crate) fn spans(&mut self) -> Option<locate::Tree> {
        self.prepare_spans();
        self.spans.take()
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
