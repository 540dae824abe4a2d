//! Where configuration comes from: the default places of every dialect, at user and project
//! level.
//!
//! | level | places |
//! |---|---|
//! | managed | `/etc/hookwire/` (`$HOOKWIRE_MANAGED_DIR` instead, when set): the same six names as the user's |
//! | user | `<user config dir>/hooks.yaml`, `hooks.yml`, `hooks.json`, `hooks/`, `rules.yaml`, `rules.yml` (hookwire); `~/.jdata/agent/` the first four (j-cli); `~/.claude/settings.json`, `~/.claude/settings.local.json`, `~/.gemini/settings.json`, `~/.codex/hooks.json`; `$COPILOT_HOME/hooks/*.json` (default `~/.copilot/hooks/`) and `$COPILOT_HOME/settings.json` |
//! | project | `<root>/.hookwire/` the same six names, `<root>/.jcli/` the first four; `<root>/.claude/settings.json`, ... as at user level; `<root>/.github/hooks/*.json`, `<root>/.github/copilot/settings.json` and `settings.local.json` (Copilot CLI) |
//!
//! A PicoClaw configuration is any of those hook files with a top-level `hooks` object. The
//! project root is the nearest directory at or above the starting one holding `.hookwire/`,
//! `.jcli/` or an agent's settings file (the home directory's own `~/.claude` is user
//! configuration, never a project).
//!
//! The managed level is the machine's policy, installed by its administrator: it loads before
//! the user's and runs first, so its denials halt the chain before a lower level can answer;
//! it is not trust-gated (its directory is expected to be root-owned; `hookwire check` warns
//! when the current user can write it).

use std::path::{Path, PathBuf};

use hook_config::ConfigSource;
use hook_core::Level;
use hook_protocol::Agent;

/// The hook files of a hookwire or j-cli directory, in the order they are read.
pub const HOOK_FILES: [&str; 4] = ["hooks.yaml", "hooks.yml", "hooks.json", "hooks"];

/// The rules files a hookwire directory may hold besides its hook files (j-cli's have none): a
/// guard written as `rules.yaml` must load, never be passed over.
pub const RULES_FILES: [&str; 2] = ["rules.yaml", "rules.yml"];

/// The settings files of each agent of the Claude Code family, relative to a home or project
/// directory.
pub const AGENT_FILES: [(Agent, &str); 4] = [
    (Agent::Claude, ".claude/settings.json"),
    (Agent::Claude, ".claude/settings.local.json"),
    (Agent::Gemini, ".gemini/settings.json"),
    (Agent::Codex, ".codex/hooks.json"),
];

/// The environment variable naming the managed configuration directory instead of
/// [`MANAGED_DIR`] (for tests, and for machines that keep it elsewhere).
const MANAGED_DIR_ENV: &str = "HOOKWIRE_MANAGED_DIR";

/// The managed configuration directory by default.
const MANAGED_DIR: &str = "/etc/hookwire";

/// The directories discovery starts from: the managed configuration directory, hookwire's
/// user configuration directory and the user's home.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Locations {
    /// The machine's managed configuration directory (`/etc/hookwire`), loaded above the
    /// user's; `None`: no managed level.
    pub managed_dir: Option<PathBuf>,
    /// hookwire's user configuration directory (user hook files, the trust store);
    /// `None`: no user configuration, and no trust record.
    pub user_config_dir: Option<PathBuf>,
    /// The home directory (j-cli's `~/.jdata/agent/`, the agents' `~/.claude/...`); `None`:
    /// none of those is read.
    pub home: Option<PathBuf>,
}

impl Locations {
    /// The locations of this process's environment: `$XDG_CONFIG_HOME/hookwire`, else
    /// `$HOME/.config/hookwire`; `$HOME`; and `$HOOKWIRE_MANAGED_DIR`, else `/etc/hookwire`.
    pub fn from_env() -> Locations {
        let home = std::env::var_os("HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
        let user_config_dir = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
            Some(xdg) => Some(PathBuf::from(xdg).join("hookwire")),
            None => home.as_ref().map(|home| home.join(".config").join("hookwire")),
        };
        let managed_dir = Some(
            std::env::var_os(MANAGED_DIR_ENV)
                .filter(|v| !v.is_empty())
                .map_or_else(|| PathBuf::from(MANAGED_DIR), PathBuf::from),
        );
        Locations { managed_dir, user_config_dir, home }
    }

    /// The managed-level sources that exist.
    pub fn managed_sources(&self) -> Vec<ConfigSource> {
        self.managed_dir.as_deref().map(|dir| hookwire_sources_in(dir, Level::Managed)).unwrap_or_default()
    }

    /// The trust records file: `<user config dir>/trust.json`.
    pub fn trust_store(&self) -> Option<PathBuf> {
        self.user_config_dir.as_ref().map(|dir| dir.join("trust.json"))
    }

    /// The project root for `start`: the nearest directory at or above it with `.hookwire/` or
    /// `.jcli/`, or with an agent's settings file (`.claude/settings.json`, ...), the home
    /// directory excepted.
    pub fn project_root(&self, start: &Path) -> Option<PathBuf> {
        start.ancestors().find(|dir| self.is_project_root(dir)).map(Path::to_path_buf)
    }

    /// Whether `dir` is a project root: it holds `.hookwire/`, `.jcli/` or an agent's settings
    /// file (Copilot CLI's `.github/hooks/*.json`), and is not the home directory.
    fn is_project_root(&self, dir: &Path) -> bool {
        dir.join(".hookwire").is_dir()
            || dir.join(".jcli").is_dir()
            || (self.home.as_deref() != Some(dir) && !agent_sources(dir, Level::Project, None).is_empty())
    }

    /// Every project root at or above `start`, outermost first: each directory with `.hookwire/`,
    /// `.jcli/` or an agent's settings file, the home directory excepted. A subdirectory with
    /// its own `.claude/settings.json` (even `{}`) or an empty `.jcli/` is a project of its
    /// own, and the project around it stays one too: its trusted hooks still run there.
    pub fn project_roots(&self, start: &Path) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> =
            start.ancestors().filter(|dir| self.is_project_root(dir)).map(Path::to_path_buf).collect();
        roots.reverse();
        roots
    }

    /// The project-level sources under `root`, leaving out the settings files of `skip`.
    pub fn project_sources(&self, root: &Path, skip: Option<Agent>) -> Vec<ConfigSource> {
        let mut sources = hookwire_sources_in(&root.join(".hookwire"), Level::Project);
        sources.extend(sources_in(&root.join(".jcli"), Level::Project));
        if self.home.as_deref() != Some(root) {
            sources.extend(agent_sources(root, Level::Project, skip));
        }
        sources
    }

    /// The user-level sources that exist, leaving out the settings files of `skip`.
    pub fn user_sources(&self, skip: Option<Agent>) -> Vec<ConfigSource> {
        let mut sources = Vec::new();
        if let Some(dir) = &self.user_config_dir {
            sources.extend(hookwire_sources_in(dir, Level::User));
        }
        if let Some(home) = &self.home {
            sources.extend(sources_in(&home.join(".jdata").join("agent"), Level::User));
            sources.extend(agent_sources(home, Level::User, skip));
            if skip != Some(Agent::Copilot) {
                let copilot = copilot_home(home);
                sources.extend(copilot_sources(&copilot.join("hooks"), Level::User));
                let settings = copilot.join("settings.json");
                if settings.is_file() {
                    sources.push(ConfigSource::agent(settings, Level::User, Agent::Copilot));
                }
            }
        }
        sources
    }

    /// Everything to load: unless `no_default`, the managed, the user's and the projects' configuration
    /// (every project root at or above `cwd`, see [`Locations::project_roots`]), then each of `explicit` at user level (trusted: the caller named
    /// it), relative paths taken from `cwd`.
    ///
    /// `skip` is the agent calling hookwire as one of its hooks: the files whose hooks it runs
    /// itself are left out (its own settings files; for Copilot CLI also a project's
    /// `.claude/settings.json`, see [`Agent::runs_project_file`]), or they would run twice.
    pub fn discover(
        &self,
        explicit: &[PathBuf],
        no_default: bool,
        cwd: &Path,
        skip: Option<Agent>,
    ) -> Vec<ConfigSource> {
        let mut sources = Vec::new();
        if !no_default {
            sources.extend(self.managed_sources());
            sources.extend(self.user_sources(skip));
            for root in self.project_roots(cwd) {
                sources.extend(self.project_sources(&root, skip));
            }
        }
        for path in explicit {
            sources.push(ConfigSource::new(absolute(path, cwd), Level::User));
        }
        sources
    }
}

/// `path`, taken from `cwd` when relative.
pub fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) }
}

/// The hook files of one hookwire or j-cli directory that exist, in a fixed order.
pub fn sources_in(dir: &Path, level: Level) -> Vec<ConfigSource> {
    HOOK_FILES
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| path.exists())
        .map(|path| ConfigSource::new(path, level))
        .collect()
}

/// The hook and rules files of one hookwire directory that exist, in a fixed order.
pub fn hookwire_sources_in(dir: &Path, level: Level) -> Vec<ConfigSource> {
    let mut sources = sources_in(dir, level);
    sources.extend(
        RULES_FILES
            .iter()
            .map(|name| dir.join(name))
            .filter(|path| path.is_file())
            .map(|path| ConfigSource::new(path, level)),
    );
    sources
}

/// The agent settings files under `dir` that exist, except those `skip` runs itself: the files
/// of [`AGENT_FILES`], then (at project level) Copilot CLI's `.github/hooks/*.json` and
/// [`COPILOT_PROJECT_SETTINGS`].
///
/// Copilot CLI runs the hooks of a project's `.claude/settings.json` and
/// `.claude/settings.local.json` as well as its own, so `hookwire hook copilot` leaves those out
/// too; the user's `~/.claude/settings.json` it does not read, and the bridge runs it.
pub fn agent_sources(dir: &Path, level: Level, skip: Option<Agent>) -> Vec<ConfigSource> {
    let is_run_by_skip = |agent: Agent, file: &str| match skip {
        Some(skip) if level == Level::Project => skip.runs_project_file(Path::new(file)),
        Some(skip) => skip == agent,
        None => false,
    };
    let mut sources: Vec<ConfigSource> = AGENT_FILES
        .iter()
        .filter(|(agent, file)| !is_run_by_skip(*agent, file))
        .map(|(agent, file)| (*agent, dir.join(file)))
        .filter(|(_, path)| path.is_file())
        .map(|(agent, path)| ConfigSource::agent(path, level, agent))
        .collect();
    if skip != Some(Agent::Copilot) && level == Level::Project {
        sources.extend(copilot_sources(&dir.join(COPILOT_PROJECT_DIR), level));
        sources.extend(
            COPILOT_PROJECT_SETTINGS
                .iter()
                .map(|file| dir.join(file))
                .filter(|path| path.is_file())
                .map(|path| ConfigSource::agent(path, level, Agent::Copilot)),
        );
    }
    sources
}

/// A repository's Copilot CLI settings files, relative to its root: their `"hooks"` (events
/// directly under it) run like those of `.github/hooks/*.json`.
pub const COPILOT_PROJECT_SETTINGS: [&str; 2] =
    [".github/copilot/settings.json", ".github/copilot/settings.local.json"];

/// Where a repository keeps its Copilot CLI hook files, relative to its root.
pub const COPILOT_PROJECT_DIR: &str = ".github/hooks";

/// Copilot CLI's home: `$COPILOT_HOME`, else `<home>/.copilot`. Its user hook files are
/// `hooks/*.json` there, and the `"hooks"` of its `settings.json`.
pub fn copilot_home(home: &Path) -> PathBuf {
    std::env::var_os("COPILOT_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .unwrap_or_else(|| home.join(".copilot"))
}

/// The Copilot CLI hook files of `dir` (every `*.json` file in it, sorted by name, as Copilot
/// reads them).
pub fn copilot_sources(dir: &Path, level: Level) -> Vec<ConfigSource> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json") && path.is_file())
        .collect();
    files.sort();
    files.into_iter().map(|path| ConfigSource::agent(path, level, Agent::Copilot)).collect()
}
