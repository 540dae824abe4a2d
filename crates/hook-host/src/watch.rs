//! Seeing that configuration changed: stamps of the files a configuration reads and runs.

use std::{
    fs,
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
};

use hook_core::{HookDefinition, HookSpec};
use hook_trust::{FileTrustStore, TrustStore, scripts_of};

/// What a file looked like: enough to see any edit, even one that keeps the size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    path: PathBuf,
    seen: Option<(i64, i64, u64, u64, i64, i64)>,
}

fn stamp(path: &Path) -> Stamp {
    let seen =
        fs::metadata(path).ok().map(|m| (m.mtime(), m.mtime_nsec(), m.size(), m.ino(), m.ctime(), m.ctime_nsec()));
    Stamp { path: path.to_path_buf(), seen }
}

/// Stamps of `paths`, and of everything under those that are directories (hook directories).
pub(crate) fn stamps(paths: &[PathBuf]) -> Vec<Stamp> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<Stamp>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if out.len() > 4096 {
                return;
            }
            out.push(stamp(&path));
            if depth > 0 && path.is_dir() {
                walk(&path, depth - 1, out);
            }
        }
    }
    let mut out = Vec::new();
    for path in paths {
        out.push(stamp(path));
        if path.is_dir() {
            walk(path, 3, &mut out);
        }
    }
    out
}

/// Files beyond the sources whose change should reload: the scripts the hooks run (a process
/// hook must be restarted to run a new version) and the files the project's trust covers.
pub(crate) fn extra_paths(specs: &[HookSpec], root: &Path, trust_store: Option<&Path>) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = specs.iter().flat_map(|spec| scripts_of(spec, root)).collect();
    // A process hook's program or script anywhere (the user's own, outside the project).
    for spec in specs {
        if let HookDefinition::Process(def) = &spec.definition {
            paths.extend(def.command.iter().map(PathBuf::from).filter(|p| p.is_absolute() && p.is_file()));
        }
    }
    if let Some(store) = trust_store {
        let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if let Some(record) = FileTrustStore::new(store).get(&canonical) {
            paths.extend(record.files.keys().map(|file| canonical.join(file)));
        }
    }
    paths.sort();
    paths.dedup();
    paths
}
