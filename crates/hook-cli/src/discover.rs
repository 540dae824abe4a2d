//! Where configuration comes from: the user's and the project's hook files, and `--config` paths.

use std::path::{Path, PathBuf};

use hook_core::{Level, config::ConfigSource};
use hook_protocol::Agent;

/// The sources to load.
#[derive(Debug, Clone, Default)]
pub(crate) struct Discovered {
    pub(crate) sources: Vec<ConfigSource>,
}

/// hookwire's user configuration directory: `$XDG_CONFIG_HOME/hookwire`, else `~/.config/hookwire`.
pub(crate) fn user_config_dir() -> Option<PathBuf> {
    if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(xdg).join("hookwire"));
    }
    home_dir().map(|home| home.join(".config").join("hookwire"))
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The trust records file.
pub(crate) fn trust_store_path() -> Option<PathBuf> {
    user_config_dir().map(|dir| dir.join("trust.json"))
}

/// The hook files of one hookwire or j-cli directory, in a fixed order.
fn sources_in(dir: &Path, level: Level) -> Vec<ConfigSource> {
    ["hooks.yaml", "hooks.yml", "hooks.json", "hooks"]
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| path.exists())
        .map(|path| ConfigSource::new(path, level))
        .collect()
}

/// The settings files of each agent of the Claude Code family, relative to a home or project
/// directory.
const AGENT_FILES: [(Agent, &str); 4] = [
    (Agent::Claude, ".claude/settings.json"),
    (Agent::Claude, ".claude/settings.local.json"),
    (Agent::Gemini, ".gemini/settings.json"),
    (Agent::Codex, ".codex/hooks.json"),
];

/// The agent settings files under `dir` that exist, except `skip`'s own.
fn agent_sources(dir: &Path, level: Level, skip: Option<Agent>) -> Vec<ConfigSource> {
    AGENT_FILES
        .iter()
        .filter(|(agent, _)| Some(*agent) != skip)
        .map(|(agent, file)| (*agent, dir.join(file)))
        .filter(|(_, path)| path.is_file())
        .map(|(agent, path)| ConfigSource::agent(path, level, agent))
        .collect()
}

/// The project root for `start`: the nearest directory with `.hookwire/` or `.jcli/`, or with
/// an agent's settings file (`.claude/settings.json`, ...) — the home directory's own
/// `~/.claude` is user configuration, not a project.
pub(crate) fn project_root(start: &Path) -> Option<PathBuf> {
    let home = home_dir();
    start
        .ancestors()
        .find(|dir| {
            dir.join(".hookwire").is_dir()
                || dir.join(".jcli").is_dir()
                || (home.as_deref() != Some(*dir) && !agent_sources(dir, Level::Project, None).is_empty())
        })
        .map(Path::to_path_buf)
}

/// The project-level sources under `root`.
pub(crate) fn project_sources(root: &Path) -> Vec<ConfigSource> {
    project_sources_except(root, None)
}

fn project_sources_except(root: &Path, skip: Option<Agent>) -> Vec<ConfigSource> {
    let mut sources = sources_in(&root.join(".hookwire"), Level::Project);
    sources.extend(sources_in(&root.join(".jcli"), Level::Project));
    if home_dir().as_deref() != Some(root) {
        sources.extend(agent_sources(root, Level::Project, skip));
    }
    sources
}

/// Everything to load: `--config` paths (user level, trusted because the user named them) and,
/// unless `no_default`, the user's and the project's configuration.
///
/// `skip` is the agent calling `hookwire hook`: its own settings files are left out, since the
/// agent already runs their hooks.
pub(crate) fn discover(explicit: &[PathBuf], no_default: bool, cwd: &Path) -> Discovered {
    discover_except(explicit, no_default, cwd, None)
}

/// [`discover`], leaving out the settings files of `skip`.
pub(crate) fn discover_except(explicit: &[PathBuf], no_default: bool, cwd: &Path, skip: Option<Agent>) -> Discovered {
    let mut discovered = Discovered::default();
    if !no_default {
        if let Some(dir) = user_config_dir() {
            discovered.sources.extend(sources_in(&dir, Level::User));
        }
        if let Some(home) = home_dir() {
            discovered.sources.extend(sources_in(&home.join(".jdata").join("agent"), Level::User));
            discovered.sources.extend(agent_sources(&home, Level::User, skip));
        }
        if let Some(root) = project_root(cwd) {
            discovered.sources.extend(project_sources_except(&root, skip));
        }
    }
    for path in explicit {
        let path = if path.is_absolute() { path.clone() } else { cwd.join(path) };
        discovered.sources.push(ConfigSource::new(path, Level::User));
    }
    discovered
}
