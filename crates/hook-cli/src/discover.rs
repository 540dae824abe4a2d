//! Where configuration comes from: the user's and the project's hook files, and `--config` paths.

use std::path::{Path, PathBuf};

use hook_core::{Level, config::ConfigSource};

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
        .map(|path| ConfigSource { path, level })
        .collect()
}

/// The project root for `start`: the nearest directory with `.hookwire/` or `.jcli/`.
pub(crate) fn project_root(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|dir| dir.join(".hookwire").is_dir() || dir.join(".jcli").is_dir()).map(Path::to_path_buf)
}

/// The project-level sources under `root`.
pub(crate) fn project_sources(root: &Path) -> Vec<ConfigSource> {
    let mut sources = sources_in(&root.join(".hookwire"), Level::Project);
    sources.extend(sources_in(&root.join(".jcli"), Level::Project));
    sources
}

/// Everything to load: `--config` paths (user level, trusted because the user named them) and,
/// unless `no_default`, the user's and the project's configuration.
pub(crate) fn discover(explicit: &[PathBuf], no_default: bool, cwd: &Path) -> Discovered {
    let mut discovered = Discovered::default();
    if !no_default {
        if let Some(dir) = user_config_dir() {
            discovered.sources.extend(sources_in(&dir, Level::User));
        }
        if let Some(home) = home_dir() {
            discovered.sources.extend(sources_in(&home.join(".jdata").join("agent"), Level::User));
        }
        if let Some(root) = project_root(cwd) {
            discovered.sources.extend(project_sources(&root));
        }
    }
    for path in explicit {
        let path = if path.is_absolute() { path.clone() } else { cwd.join(path) };
        discovered.sources.push(ConfigSource { path, level: Level::User });
    }
    discovered
}
