//! Shared helpers for the config and trust tests: a temporary directory and a readable summary
//! of what `load` returned, for snapshots.

#![allow(dead_code, unreachable_pub)]

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
};

use hook_config::{Loaded, Untrusted};
use hook_core::HookSpec;

/// A directory under the system temp dir, removed on drop.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A fresh empty directory (canonical path, so it compares equal to trust roots).
    pub fn new() -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let path = std::env::temp_dir().join(format!("hookwire-config-{}-{n}-{nanos}", std::process::id()));
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir { path: fs::canonicalize(&path).expect("canonical temp dir") }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `self.path()/rel`.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    /// Writes `text` to `rel`, creating the parent directories; returns the full path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path.join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
        fs::write(&path, text).expect("write file");
        path
    }

    /// Creates the directory `rel`.
    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let path = self.path.join(rel);
        fs::create_dir_all(&path).expect("create dir");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// One line per spec: `level:name kind [events] key=value...`, only the fields that are set.
pub fn spec_line(spec: &HookSpec) -> String {
    let events: Vec<&str> = spec.events.iter().map(|e| e.as_str()).collect();
    let mut line = format!("{}:{} {} [{}]", spec.level, spec.name, spec.kind, events.join(", "));
    if !spec.enabled {
        line.push_str(" disabled");
    }
    if spec.priority != 0 {
        let _ = write!(line, " priority={}", spec.priority);
    }
    if let Some(timeout) = spec.timeout {
        let _ = write!(line, " timeout={timeout:?}");
    }
    if let Some(retry) = spec.retry {
        let _ = write!(line, " retry={retry}");
    }
    if let Some(on_error) = spec.on_error {
        let _ = write!(line, " on_error={}", on_error.as_str());
    }
    if !spec.filter.is_empty() {
        let _ = write!(line, " filter={}", serde_json::to_string(&spec.filter).unwrap_or_default());
    }
    if !spec.respond_tools.is_empty() {
        let _ = write!(line, " respond_tools={:?}", spec.respond_tools);
    }
    if let Some(dir) = &spec.dir {
        let _ = write!(line, " dir={}", dir.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
    }
    let _ = write!(line, " @ {}", spec.source);
    line
}

/// Everything `load` returned, as text, with `base` replaced by `<dir>`.
pub fn summary(loaded: &Loaded, base: Option<&Path>) -> String {
    let mut out = String::new();
    let sections: [(&str, Vec<String>); 4] = [
        ("specs", loaded.specs.iter().map(spec_line).collect()),
        ("errors", loaded.errors.iter().map(ToString::to_string).collect()),
        ("warnings", loaded.warnings.iter().map(ToString::to_string).collect()),
        ("untrusted", loaded.untrusted.iter().map(untrusted_line).collect()),
    ];
    for (title, lines) in sections {
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}:");
        for line in lines {
            let _ = writeln!(out, "  {line}");
        }
    }
    match base {
        Some(base) => out.replace(&base.display().to_string(), "<dir>"),
        None => out,
    }
}

fn untrusted_line(untrusted: &Untrusted) -> String {
    format!(
        "{} [{}]: {}; {}",
        untrusted.config.display(),
        untrusted.hooks.join(", "),
        untrusted.reason,
        untrusted.how_to_trust
    )
}
