//! The environment and working directory a bash hook runs with.

use std::{
    collections::BTreeMap,
    ffi::{OsStr, OsString},
    path::{Path, PathBuf},
};

use hook_core::{Context, Event};
use tokio::process::Command;

/// The variables a scrubbed environment keeps from the host (besides the hook variables and
/// the hook's own `env`).
pub const SCRUBBED_ENV_KEEP: [&str; 8] = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "SHELL"];

/// How many hooks this process runs inside: a hook child gets one more than its parent.
pub const HOOK_DEPTH_ENV: &str = "HOOKWIRE_HOOK_DEPTH";

/// This process's depth: [`HOOK_DEPTH_ENV`], 0 when absent. A value that is not a number counts
/// as very deep: something set it, and a loop is the likelier story than a user's typo.
pub fn hook_depth() -> u32 {
    match std::env::var(HOOK_DEPTH_ENV) {
        Ok(value) => value.trim().parse().unwrap_or(u32::MAX),
        Err(std::env::VarError::NotPresent) => 0,
        Err(std::env::VarError::NotUnicode(_)) => u32::MAX,
    }
}

/// The [`HOOK_DEPTH_ENV`] value a hook child of this process gets.
pub fn child_hook_depth() -> String {
    hook_depth().saturating_add(1).to_string()
}

/// `PATH` when the host has none: what `sh` would search anyway.
const FALLBACK_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Where the hook runs: its own fixed directory (a project hook's project root), else the
/// session's working directory, else the host's.
#[derive(Debug)]
pub(crate) struct WorkDir {
    /// Set as the child's working directory (`None`: inherit the host's).
    pub(crate) set: Option<PathBuf>,
    /// The value of `JCLI_CWD` / `HOOKWIRE_CWD`.
    pub(crate) shown: OsString,
}

impl WorkDir {
    pub(crate) fn of(context: &Context, fixed: Option<&Path>) -> Self {
        if let Some(dir) = fixed {
            // Whatever the caller's directory: the files trust hashed are the files that run.
            return WorkDir { set: Some(dir.to_owned()), shown: dir.as_os_str().to_owned() };
        }
        match context.cwd.as_deref().filter(|cwd| !cwd.is_empty()) {
            Some(cwd) => WorkDir { set: Some(PathBuf::from(cwd)), shown: cwd.into() },
            None => {
                WorkDir { set: None, shown: std::env::current_dir().map(PathBuf::into_os_string).unwrap_or_default() }
            }
        }
    }
}

/// What the environment is built from.
#[derive(Debug)]
pub(crate) struct HookEnv<'a> {
    pub(crate) event: Event,
    pub(crate) work_dir: &'a WorkDir,
    pub(crate) hook_dir: Option<&'a Path>,
    pub(crate) extra: &'a BTreeMap<String, String>,
    pub(crate) is_scrubbed: bool,
}

impl HookEnv<'_> {
    /// Sets the working directory and environment of `command`.
    pub(crate) fn apply(&self, command: &mut Command) {
        if let Some(dir) = &self.work_dir.set {
            command.current_dir(dir);
        }
        if self.is_scrubbed {
            command.env_clear();
            for key in SCRUBBED_ENV_KEEP {
                if let Some(value) = std::env::var_os(key) {
                    command.env(key, value);
                }
            }
        }
        command.envs(self.extra);
        // After the hook's `env` and through scrubbing: no configuration resets the count.
        command.env(HOOK_DEPTH_ENV, child_hook_depth());
        let event = self.event.as_str();
        let hook_dir = self.hook_dir.map_or(OsStr::new(""), Path::as_os_str);
        for prefix in ["JCLI", "HOOKWIRE"] {
            command.env(format!("{prefix}_HOOK_EVENT"), event);
            command.env(format!("{prefix}_CWD"), &self.work_dir.shown);
            command.env(format!("{prefix}_HOOK_DIR"), hook_dir);
        }
        if let Some(dir) = self.hook_dir {
            command.env("PATH", path_with_first(dir, self.base_path()));
        }
    }

    /// The `PATH` the hook directory is put in front of: the hook's own `env`, else the host's.
    fn base_path(&self) -> OsString {
        match self.extra.get("PATH") {
            Some(path) => path.into(),
            None => std::env::var_os("PATH").unwrap_or_else(|| FALLBACK_PATH.into()),
        }
    }
}

/// `<first>:<rest>` (`rest` may be empty).
fn path_with_first(first: &Path, rest: OsString) -> OsString {
    let mut path = OsString::from(first.as_os_str());
    if !rest.is_empty() {
        path.push(":");
        path.push(rest);
    }
    path
}
