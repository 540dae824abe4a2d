//! Trust for project hooks, on real files: a project runs only while its config and scripts hash
//! to what the user trusted.

mod config_support;

use std::{fs, path::PathBuf};

use config_support::TempDir;
use hook_core::{
    Deadlines, Level,
    config::{ConfigSource, Loaded, load},
    trust::{FileTrustStore, TrustError, TrustStore, fingerprint, project_root, scripts_of},
};

/// A project with a hook directory (a script beside it), an event-keyed file naming a Python
/// script, and a user-level hook that needs no trust.
struct Project {
    dir: TempDir,
    store_dir: TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = TempDir::new();
        dir.write(".jcli/hooks/guard/HOOK.yaml", "events: [pre_tool_execution]\ncommand: guard.sh\n");
        dir.write(".jcli/hooks/guard/guard.sh", "#!/bin/sh\necho '{}'\n");
        dir.write(
            ".hookwire/hooks.yaml",
            "stop:\n  - name: check\n    command: python3 -u scripts/check.py --strict\n",
        );
        dir.write("scripts/check.py", "print('{}')\n");
        dir.write("user/hooks.yaml", "session_start:\n  - name: hello\n    command: echo '{}'\n");
        Project { dir, store_dir: TempDir::new() }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().to_owned()
    }

    fn project_sources(&self) -> Vec<ConfigSource> {
        vec![
            ConfigSource::new(self.dir.join(".hookwire/hooks.yaml"), Level::Project),
            ConfigSource::new(self.dir.join(".jcli/hooks"), Level::Project),
        ]
    }

    fn sources(&self) -> Vec<ConfigSource> {
        let mut sources = vec![ConfigSource::new(self.dir.join("user/hooks.yaml"), Level::User)];
        sources.extend(self.project_sources());
        sources
    }

    fn store(&self) -> FileTrustStore {
        FileTrustStore::new(self.store_dir.join("hookwire/trust.json"))
    }

    fn load(&self) -> Loaded {
        load(&self.sources(), Deadlines::default(), Some(&self.store()))
    }

    fn trust(&self) {
        let record = fingerprint(&self.root(), &self.project_sources()).expect("fingerprint");
        self.store().put(record).expect("put");
    }

    fn names(loaded: &Loaded) -> Vec<&str> {
        loaded.specs.iter().map(|spec| spec.name.as_str()).collect()
    }
}

#[test]
fn an_untrusted_project_does_not_run() {
    let project = Project::new();
    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello"], "only the user hook runs");
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let lines: Vec<String> = loaded
        .untrusted
        .iter()
        .map(|u| format!("{} {:?}: {}; {}", u.config.display(), u.hooks, u.reason, u.how_to_trust))
        .map(|line| line.replace(&project.root().display().to_string(), "<root>"))
        .collect();
    insta::assert_snapshot!(lines.join("\n"), @r#"
    <root>/.hookwire/hooks.yaml ["check"]: not trusted yet; run `hookwire trust <root>`
    <root>/.jcli/hooks/guard/HOOK.yaml ["guard"]: not trusted yet; run `hookwire trust <root>`
    "#);
}

#[test]
fn a_trusted_project_runs_and_the_record_lists_config_and_scripts() {
    let project = Project::new();
    let record = fingerprint(&project.root(), &project.project_sources()).expect("fingerprint");
    assert_eq!(record.root, project.root());
    assert!(record.files.values().all(|hash| hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit())));
    let files: Vec<String> = record.files.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(
        files,
        [".hookwire/hooks.yaml", ".jcli/hooks/guard/HOOK.yaml", ".jcli/hooks/guard/guard.sh", "scripts/check.py"]
    );
    assert_eq!(record.trusted_at.len(), "2026-11-25T23:10:44Z".len());
    project.store().put(record).expect("put");

    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello", "check", "guard"]);
    assert!(loaded.untrusted.is_empty(), "{:?}", loaded.untrusted);
}

#[test]
fn a_one_byte_script_change_invalidates_trust() {
    let project = Project::new();
    project.trust();
    project.dir.write(".jcli/hooks/guard/guard.sh", "#!/bin/sh\necho '{ }'\n");
    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello"]);
    assert_eq!(loaded.untrusted.len(), 2, "the whole project stops, not only the changed hook");
    assert_eq!(loaded.untrusted[0].reason, "`.jcli/hooks/guard/guard.sh` changed since it was trusted");
}

#[test]
fn an_added_or_removed_file_invalidates_trust() {
    let project = Project::new();
    project.trust();
    project.dir.write(".jcli/hooks/extra/HOOK.yaml", "events: [stop]\ncommand: ./extra.sh\n");
    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello"]);
    assert_eq!(loaded.untrusted[0].reason, "`.jcli/hooks/extra/HOOK.yaml` is new since the project was trusted");

    fs::remove_dir_all(project.dir.join(".jcli/hooks/extra")).expect("remove");
    fs::remove_file(project.dir.join("scripts/check.py")).expect("remove");
    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello"]);
    assert_eq!(loaded.untrusted[0].reason, "`scripts/check.py` was removed since the project was trusted");
}

#[test]
fn revoking_stops_the_project_again() {
    let project = Project::new();
    project.trust();
    assert_eq!(Project::names(&project.load()), ["hello", "check", "guard"]);
    assert!(project.store().revoke(&project.root()).expect("revoke"));
    assert!(!project.store().revoke(&project.root()).expect("revoke twice"), "nothing left to revoke");
    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello"]);
    assert_eq!(loaded.untrusted[0].reason, "not trusted yet");
}

#[test]
fn without_a_store_project_hooks_load_unchecked() {
    let project = Project::new();
    let loaded = load(&project.sources(), Deadlines::default(), None);
    assert_eq!(Project::names(&loaded), ["hello", "check", "guard"]);
    assert!(loaded.untrusted.is_empty());
}

#[test]
fn the_store_file_persists_and_leaves_no_temporary_files() {
    let project = Project::new();
    let other = TempDir::new();
    other.write(".hookwire/hooks.yaml", "stop:\n  - command: ./x.sh\n");
    project.trust();
    let other_sources = [ConfigSource::new(other.join(".hookwire/hooks.yaml"), Level::Project)];
    project.store().put(fingerprint(other.path(), &other_sources).expect("fingerprint")).expect("put");
    project.trust(); // replaces, does not duplicate

    let reopened = project.store();
    let roots: Vec<PathBuf> = reopened.list().into_iter().map(|record| record.root).collect();
    let mut expected = vec![project.root(), other.path().to_owned()];
    expected.sort();
    assert_eq!(roots, expected);
    assert!(reopened.get(&project.root().join(".")).is_some(), "roots compare canonically");
    let entries: Vec<_> =
        fs::read_dir(project.store_dir.join("hookwire")).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(entries, ["trust.json"]);
}

#[test]
fn a_damaged_store_trusts_nothing_and_refuses_writes() {
    let project = Project::new();
    project.store_dir.write("hookwire/trust.json", "{ not json");
    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello"]);
    let record = fingerprint(&project.root(), &project.project_sources()).expect("fingerprint");
    let err = project.store().put(record).expect_err("a damaged store is not overwritten");
    assert!(matches!(err, TrustError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("delete it"), "{err}");
}

#[test]
fn a_config_with_errors_cannot_be_trusted() {
    let dir = TempDir::new();
    dir.write(".hookwire/hooks.yaml", "stop:\n  - comand: ./x.sh\n");
    let sources = [ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project)];
    let err = fingerprint(dir.path(), &sources).expect_err("broken config");
    assert_eq!((err.line, err.column), (Some(2), Some(5)));
    let err = fingerprint(dir.path(), &[]).expect_err("nothing to trust");
    assert!(err.message.contains("no hook configuration"), "{err}");
}

#[test]
fn scripts_are_found_next_to_the_hook_at_the_root_and_in_any_word() {
    let dir = TempDir::new();
    dir.write("hooks/g/run.sh", "");
    dir.write("tools/lint.py", "");
    dir.write("proc/server.js", "");
    dir.write(
        ".hookwire/hooks.yaml",
        "stop:\n  - name: a\n    command: \"'./tools/lint.py' --fix\"\n  - name: b\n    command: python3 -X dev tools/lint.py\n  - name: c\n    command: ~/bin/x.sh tools/lint.py\n  - name: d\n    command: /bin/sh -c 'tools/lint.py'\n",
    );
    dir.write("hooks/g/HOOK.yaml", "events: [stop]\ncommand: run.sh\n");
    dir.write(
        "pico.json",
        r#"{"hooks": {"processes": {"p": {"enabled": true, "command": ["node", "server.js"], "dir": "proc", "intercept": ["before_tool"]}}}}"#,
    );
    let sources = [
        ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::User),
        ConfigSource::new(dir.join("hooks"), Level::User),
        ConfigSource::new(dir.join("pico.json"), Level::User),
    ];
    let loaded = load(&sources, Deadlines::default(), None);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let root = dir.path();
    let found: Vec<String> = loaded
        .specs
        .iter()
        .map(|spec| {
            let scripts: Vec<String> = scripts_of(spec, root)
                .iter()
                .map(|p| p.strip_prefix(root).expect("under root").display().to_string())
                .collect();
            format!("{}: {}", spec.name, scripts.join(" "))
        })
        .collect();
    assert_eq!(
        found,
        [
            "a: tools/lint.py",
            "b: tools/lint.py",
            "c: tools/lint.py",
            "d: tools/lint.py",
            "g: hooks/g/run.sh",
            "p: proc/server.js"
        ]
    );
}

#[test]
fn project_roots_are_found_above_the_config() {
    let dir = TempDir::new();
    let hook_yaml = dir.write(".jcli/hooks/guard/HOOK.yaml", "events: [stop]\ncommand: x\n");
    let hooks_yaml = dir.write(".hookwire/hooks.yaml", "");
    let plain = dir.write("elsewhere/hooks.yaml", "");
    assert_eq!(project_root(&hook_yaml), dir.path());
    assert_eq!(project_root(&hooks_yaml), dir.path());
    assert_eq!(project_root(&dir.join(".jcli/hooks")), dir.path());
    assert_eq!(project_root(&plain), dir.join("elsewhere"));
}

#[test]
fn a_helper_beside_a_directory_hook_and_a_script_after_env_settings_are_vouched_for() {
    let project = Project::new();
    project.dir.write(".jcli/hooks/guard/lib/helpers.py", "ALLOWED = []\n");
    project.dir.write("scripts/env.sh", "echo '{}'\n");
    project.dir.write(".hookwire/hooks.yaml", "stop:\n  - name: check\n    command: FOO=1 sh ./scripts/env.sh\n");
    project.trust();
    assert!(project.load().untrusted.is_empty());

    project.dir.write(".jcli/hooks/guard/lib/helpers.py", "ALLOWED = ['rm -rf']\n");
    let loaded = project.load();
    assert!(!loaded.untrusted.is_empty(), "an edited helper of a directory hook kept its trust");
    assert_eq!(loaded.untrusted[0].reason, "`.jcli/hooks/guard/lib/helpers.py` changed since it was trusted");

    project.trust();
    project.dir.write("scripts/env.sh", "echo '{ }'\n");
    assert!(!project.load().untrusted.is_empty(), "an edited script after `FOO=1 sh` kept its trust");
}
