//! `hookwire trust`: show a project's hooks with their scripts and hashes, and record trust.

use std::path::PathBuf;

use hook_core::{
    Deadlines, HookId, config,
    trust::{FileTrustStore, TrustStore, fingerprint, scripts_of},
};

use crate::discover;

pub(crate) fn run(list: bool, revoke: bool, dir: Option<PathBuf>) -> u8 {
    let Some(store_path) = discover::trust_store_path() else {
        eprintln!("error: cannot find the user configuration directory (set HOME or XDG_CONFIG_HOME)");
        return 2;
    };
    let store = FileTrustStore::new(store_path);
    if list {
        for record in store.list() {
            outln!("{}  (trusted {})", record.root.display(), record.trusted_at);
            for (file, hash) in &record.files {
                outln!("  {hash}  {}", file.display());
            }
        }
        return 0;
    }
    let start = dir.unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
    let start = start.canonicalize().unwrap_or(start);
    let Some(root) = discover::project_root(&start) else {
        eprintln!("error: no `.hookwire/` or `.jcli/` directory in {} or above it", start.display());
        return 2;
    };
    if revoke {
        return match store.revoke(&root) {
            Ok(true) => {
                outln!("revoked trust for {}", root.display());
                0
            }
            Ok(false) => {
                outln!("{} was not trusted", root.display());
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        };
    }
    let record = match fingerprint(&root, &discover::project_sources(&root)) {
        Ok(record) => record,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    outln!("project {}", root.display());
    // The hooks as they will run once trusted (loaded without a trust check), with their scripts.
    let sources = discover::project_sources(&root);
    for spec in config::load(&sources, Deadlines::default(), None).specs {
        let ids: Vec<String> =
            spec.events.iter().map(|event| HookId::new(spec.level, &spec.name, *event).to_string()).collect();
        outln!("  hook {} ({})", ids.join(", "), spec.kind);
        for script in scripts_of(&spec, &root) {
            outln!("    runs {}", script.display());
        }
    }
    outln!("files and their SHA-256:");
    for (file, hash) in &record.files {
        outln!("  {hash}  {}", file.display());
    }
    match store.put(record) {
        Ok(()) => {
            outln!("trusted: these hooks will run until one of these files changes");
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
