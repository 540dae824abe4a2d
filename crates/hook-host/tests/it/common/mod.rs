//! A temporary project with its own user configuration directory and home, and a tool call to
//! fire.
#![allow(dead_code, unreachable_pub, reason = "each test module uses part of the harness")]

use std::{
    fs,
    path::{Path, PathBuf},
    sync::atomic::{AtomicU32, Ordering},
};

use hook_core::Context;
use hook_host::{HostBuilder, Locations};

/// A fresh directory with `project/`, `config/` (the user configuration directory) and
/// `home/`; removed on drop.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    pub fn new(test: &str) -> Sandbox {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let root = std::env::temp_dir().join(format!("hook-host-{test}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for dir in ["project", "config", "home"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        Sandbox { root }
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// Writes `text` to `relative`, creating its directories.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// A host builder discovering from `project/`, with this sandbox's user configuration
    /// directory and home (never the real ones).
    pub fn host(&self) -> HostBuilder {
        hook_host::Host::builder().project_dir(self.project()).locations(Locations {
            managed_dir: None,
            user_config_dir: Some(self.path("config")),
            home: Some(self.path("home")),
        })
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// A `Bash` tool call running `command`.
pub fn bash_call(command: &str) -> Context {
    let arguments = hook_protocol::serde_json::json!({ "command": command }).to_string();
    Context { tool_name: Some("Bash".into()), tool_arguments: Some(arguments), ..Context::default() }
}

/// `python3`.
pub fn python() -> &'static str {
    "python3"
}

/// The path of a fixture file.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// Records trust for the sandbox's project as it is now, in `config/trust.json`, as `hookwire
/// trust --yes` does.
pub fn trust_project(sandbox: &Sandbox) {
    use hook_trust::{FileTrustStore, TrustStore, fingerprint};
    let root = sandbox.project().canonicalize().unwrap();
    let locations = Locations {
        managed_dir: None,
        user_config_dir: Some(sandbox.path("config")),
        home: Some(sandbox.path("home")),
    };
    let record = fingerprint(&root, &locations.project_sources(&root, None)).unwrap();
    FileTrustStore::new(locations.trust_store().unwrap()).put(record).unwrap();
}
