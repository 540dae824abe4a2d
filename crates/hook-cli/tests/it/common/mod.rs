//! What every test of the `hookwire` binary needs: a scratch directory removed on drop, the
//! binary run hermetically in it, and a run's output as text.

pub(crate) mod agent;
pub(crate) mod real;

use std::{
    fs,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
};

use serde_json::Value;

/// A fresh directory under the system's temporary directory, with `home/` and `work/` in it;
/// removed with everything in it when dropped.
pub(crate) struct Scratch {
    root: PathBuf,
}

impl Scratch {
    /// `<tmp>/hookwire-<tag>-<pid>-<n>`, canonical (so paths compare with what hookwire prints).
    pub(crate) fn new(tag: &str) -> Scratch {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "hookwire-{tag}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("home")).unwrap();
        fs::create_dir_all(root.join("work")).unwrap();
        Scratch { root: root.canonicalize().unwrap() }
    }

    /// The directory itself.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `relative` inside the directory.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Writes `text` to `relative` (creating its directories); its path.
    pub(crate) fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// [`Scratch::write`], then mode 0755.
    pub(crate) fn write_script(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.write(relative, text);
        chmod(&path, 0o755);
        path
    }

    /// `hookwire ARGS` in `cwd` (relative to the directory) with `home/` as `HOME` and the XDG
    /// directories under it, no model settings or log filter from the surrounding environment,
    /// and stdin closed.
    pub(crate) fn hookwire(&self, cwd: &str, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookwire"));
        command
            .args(args)
            .current_dir(self.path(cwd))
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("XDG_STATE_HOME", self.path("home/.local/state"))
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .env_remove("HOOKWIRE_MODEL")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        command
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Sets `path`'s permission bits.
pub(crate) fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// A run's stdout, lossily decoded.
pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A run's stderr, lossily decoded.
pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Both streams, labelled, for assertion messages.
pub(crate) fn both(output: &Output) -> String {
    format!("stdout:\n{}\nstderr:\n{}", stdout(output), stderr(output))
}

/// A run's stdout parsed as JSON; a failure shows both streams.
pub(crate) fn json_stdout(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", both(output)))
}

/// The real Python interpreter (the `python3` on PATH may be a slow version-manager shim).
pub(crate) fn python() -> String {
    let output = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}
