//! Where configuration comes from: the user's and the project's hook files, and `--config`
//! paths — [`hook_host::discover`] with this process's environment.

use std::path::{Path, PathBuf};

use hook_config::ConfigSource;
use hook_host::Locations;
use hook_protocol::Agent;

/// The sources to load.
#[derive(Debug, Clone, Default)]
pub(crate) struct Discovered {
    pub(crate) sources: Vec<ConfigSource>,
}

/// hookwire's user configuration directory: `$XDG_CONFIG_HOME/hookwire`, else `~/.config/hookwire`.
pub(crate) fn user_config_dir() -> Option<PathBuf> {
    Locations::from_env().user_config_dir
}

/// hookwire's state directory: `$XDG_STATE_HOME/hookwire`, else `~/.local/state/hookwire`
/// (a variable that is not an absolute path is ignored, as the XDG specification says).
pub(crate) fn state_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    var("XDG_STATE_HOME").or_else(|| var("HOME").map(|home| home.join(".local/state"))).map(|dir| dir.join("hookwire"))
}

/// The trust records file.
pub(crate) fn trust_store_path() -> Option<PathBuf> {
    Locations::from_env().trust_store()
}

/// The project root for `start`: the nearest directory with `.hookwire/` or `.jcli/`, or with
/// an agent's settings file (`.claude/settings.json`, ...) — the home directory's own
/// `~/.claude` is user configuration, not a project.
pub(crate) fn project_root(start: &Path) -> Option<PathBuf> {
    Locations::from_env().project_root(start)
}

/// Every project root at or above `start`, outermost first.
pub(crate) fn project_roots(start: &Path) -> Vec<PathBuf> {
    Locations::from_env().project_roots(start)
}

/// The project-level sources under `root`.
pub(crate) fn project_sources(root: &Path) -> Vec<ConfigSource> {
    Locations::from_env().project_sources(root, None)
}

/// Everything to load: `--config` paths (user level, trusted because the user named them) and,
/// unless `no_default`, the user's and the project's configuration.
pub(crate) fn discover(explicit: &[PathBuf], no_default: bool, cwd: &Path) -> Discovered {
    discover_except(explicit, no_default, cwd, None)
}

/// [`discover`], leaving out the settings files of `skip` (the agent calling `hookwire hook`,
/// which already runs their hooks).
pub(crate) fn discover_except(explicit: &[PathBuf], no_default: bool, cwd: &Path, skip: Option<Agent>) -> Discovered {
    Discovered { sources: Locations::from_env().discover(explicit, no_default, cwd, skip) }
}
