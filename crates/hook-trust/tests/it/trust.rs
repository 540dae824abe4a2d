//! Trust for project hooks, on real files: a project runs only while its config and scripts hash
//! to what the user trusted.

use crate::config_support;

use std::{
    fs,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use config_support::TempDir;
use hook_config::{ConfigSource, Loaded, load};
use hook_core::{
    BuildError, BuiltHook, Context, Deadlines, Engine, Event, Hook, HookError, HookFactory, HookInput, HookOutput,
    HookSpec, Level, OutcomeClass, hook_fn,
};
use hook_trust::{
    FileTrustStore, TrustCheck, TrustError, TrustStore, files_run, fingerprint, guarded, project_root, review,
    scripts_of,
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
        let store = self.store();
        load(&self.sources(), Deadlines::default(), Some(&TrustCheck::new(&store)))
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

/// Item 2: a config reached through a symbolic link belongs to the place it was found: an
/// untrusted repository linking a trusted project's config does not borrow its trust.
#[test]
fn a_linked_config_is_trusted_for_where_it_was_found() {
    let project = Project::new();
    project.trust();
    let evil = TempDir::new();
    fs::create_dir_all(evil.join(".hookwire")).expect("mkdir");
    std::os::unix::fs::symlink(project.dir.join(".hookwire/hooks.yaml"), evil.join(".hookwire/hooks.yaml"))
        .expect("symlink");
    assert_eq!(project_root(&evil.join(".hookwire/hooks.yaml")), evil.path());
    let store = project.store();
    let sources = [ConfigSource::new(evil.join(".hookwire/hooks.yaml"), Level::Project)];
    let loaded = load(&sources, Deadlines::default(), Some(&TrustCheck::new(&store)));
    assert!(loaded.specs.is_empty(), "the link borrowed the trusted project's trust: {:?}", loaded.specs);
    assert_eq!(loaded.untrusted[0].reason, "not trusted yet");
    // Loaded for a run, its hooks run at the repository they were found in.
    let unchecked = load(&sources, Deadlines::default(), None);
    assert_eq!(unchecked.specs[0].work_dir.as_deref(), Some(evil.path()));
}

/// Item 1: a project's hooks run, and their scripts resolve, at the project root; a process
/// hook's at its config file's directory.
#[test]
fn the_loader_records_where_each_hook_runs() {
    let dir = TempDir::new();
    dir.write(".hookwire/hooks.yaml", "stop:\n  - name: guard\n    command: ./guard.sh\n");
    dir.write(
        ".hookwire/hooks.json",
        r#"{"hooks": {"processes": {"p": {"enabled": true, "command": ["python3", "p.py"], "dir": "plug", "intercept": ["before_tool"]}}}}"#,
    );
    let sources = [
        ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project),
        ConfigSource::new(dir.join(".hookwire/hooks.json"), Level::Project),
    ];
    let loaded = load(&sources, Deadlines::default(), None);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let work_dirs: Vec<Option<&Path>> = loaded.specs.iter().map(|spec| spec.work_dir.as_deref()).collect();
    assert_eq!(work_dirs, [Some(dir.path()), Some(dir.join(".hookwire").as_path())]);
    dir.write(".hookwire/plug/p.py", "");
    let files = files_run(&loaded.specs[1], dir.path());
    assert_eq!(files.files, [dir.join(".hookwire/plug/p.py")]);
}

/// Item 3: the words of a command are split like `sh` splits them and followed through `cd`,
/// `source`, `sh -c` and interpreters; a hook's folder is covered at any depth, following
/// links that stay in the project; what cannot be told is said.
#[test]
fn files_run_follows_the_command_and_the_whole_hook_folder() {
    let dir = TempDir::new();
    dir.write("tools/env.sh", "");
    dir.write("tools/run.py", "");
    dir.write("tools/conf/c.json", "");
    dir.write("shared/lib.py", "");
    dir.write(".jcli/hooks/deep/HOOK.yaml", "events: [stop]\ncommand: main.sh\n");
    dir.write(".jcli/hooks/deep/main.sh", "");
    dir.write(".jcli/hooks/deep/a/b/c/d/e/f/helper.sh", "");
    std::os::unix::fs::symlink(dir.join("shared"), dir.join(".jcli/hooks/deep/shared")).expect("symlink");
    std::os::unix::fs::symlink("/etc", dir.join(".jcli/hooks/deep/etc")).expect("symlink");
    dir.write(
        ".hookwire/hooks.yaml",
        "stop:\n  - name: chain\n    command: \"cd tools && . ./env.sh && sh -c 'python3 run.py --config=conf/c.json' && ./missing.sh\"\n  - name: opaque\n    command: \"$(git rev-parse --show-toplevel)/x.sh; eval \\\"$CMD\\\"; cd \\\"$D\\\" && ./y.sh\"\n",
    );
    let sources = [
        ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project),
        ConfigSource::new(dir.join(".jcli/hooks"), Level::Project),
    ];
    let loaded = load(&sources, Deadlines::default(), None);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let rel = |paths: &[PathBuf]| -> Vec<String> {
        paths.iter().map(|p| p.strip_prefix(dir.path()).unwrap_or(p).display().to_string()).collect()
    };
    let chain = files_run(&loaded.specs[0], dir.path());
    assert_eq!(rel(&chain.files), ["tools/env.sh", "tools/run.py", "tools/conf/c.json"]);
    // `tools/` holds a script the command runs: the folder is covered whole, so a script
    // created there later (`missing.sh`) withdraws the trust through the folder's listing.
    assert!(chain.absent.is_empty(), "{:?}", chain.absent);
    assert!(chain.dirs.contains(&dir.join("tools")), "{:?}", chain.dirs);
    assert!(chain.undetermined.is_empty(), "{:?}", chain.undetermined);
    let opaque = files_run(&loaded.specs[1], dir.path());
    assert_eq!(opaque.undetermined.len(), 3, "{:?}", opaque.undetermined);
    let deep = files_run(&loaded.specs[2], dir.path());
    assert_eq!(
        rel(&deep.files),
        [".jcli/hooks/deep/main.sh", ".jcli/hooks/deep/a/b/c/d/e/f/helper.sh", ".jcli/hooks/deep/shared/lib.py"]
    );
    assert_eq!(deep.undetermined, ["`.jcli/hooks/deep/etc` links to a folder outside the project: not covered"]);
}

/// Item 3: a missing script a hook would run is recorded; creating it withdraws the trust.
#[test]
fn creating_a_missing_script_withdraws_the_trust() {
    let project = Project::new();
    project.dir.write(".hookwire/hooks.yaml", "stop:\n  - name: check\n    command: \"./optional.sh || true\"\n");
    project.trust();
    assert!(project.load().untrusted.is_empty());
    project.dir.write("optional.sh", "#!/bin/sh\nrm -rf ~\n");
    let loaded = project.load();
    assert_eq!(loaded.untrusted[0].reason, "`optional.sh` appeared since the project was trusted");
}

/// Item 6: an untrusted project is held back before its files are validated: a bad regex in
/// it is not even compiled (its hooks will not run), and nothing else is read.
#[test]
fn an_untrusted_project_is_held_back_before_any_validation() {
    let dir = TempDir::new();
    let store_dir = TempDir::new();
    dir.write(
        ".hookwire/hooks.yaml",
        "stop:\n  - name: guard\n    command: ./g.sh\n    filter:\n      tool_regex: \"(\"\n",
    );
    let store = FileTrustStore::new(store_dir.join("trust.json"));
    let sources = [ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project)];
    let loaded = load(&sources, Deadlines::default(), Some(&TrustCheck::new(&store)));
    assert!(loaded.errors.is_empty(), "an untrusted file was validated: {:?}", loaded.errors);
    assert_eq!(loaded.untrusted[0].hooks, ["guard"]);
    // `hookwire trust` loads it whole, and refuses it.
    let err = fingerprint(dir.path(), &sources).expect_err("a broken config cannot be trusted");
    assert!(err.message.contains("not a valid regular expression"), "{err}");
}

/// Item 6: hashing streams files: a 400 MB file in a hook's folder costs a fixed buffer, not
/// 400 MB. Run in a child process, whose peak memory (VmHWM) is its own.
#[test]
fn hashing_a_400_mb_file_uses_a_fixed_buffer() {
    const CHILD: &str = "HOOKWIRE_TEST_HASH_CHILD";
    if let Some(root) = std::env::var_os(CHILD) {
        let root = PathBuf::from(root);
        let sources = [ConfigSource::new(root.join(".jcli/hooks"), Level::Project)];
        let report = review(&root, &sources).expect("review");
        assert!(report.files.contains_key(Path::new(".jcli/hooks/big/model.bin")));
        let status = fs::read_to_string("/proc/self/status").expect("status");
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
        // The parent reads the child's stdout.
        #[allow(clippy::print_stdout)]
        {
            println!("{line}");
        }
        return;
    }
    let dir = TempDir::new();
    dir.write(".jcli/hooks/big/HOOK.yaml", "events: [stop]\ncommand: run.sh\n");
    dir.write(".jcli/hooks/big/run.sh", "echo '{}'\n");
    let big = fs::File::create(dir.join(".jcli/hooks/big/model.bin")).expect("create");
    big.set_len(400 << 20).expect("sparse file");
    let output = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args([
            concat!(module_path!(), "::hashing_a_400_mb_file_uses_a_fixed_buffer").trim_start_matches("it::"),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, dir.path())
        .output()
        .expect("child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let kb: u64 = stdout
        .split("VmHWM:")
        .nth(1)
        .and_then(|rest| rest.split("kB").next())
        .and_then(|number| number.trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {stdout}"));
    assert!(kb < 100 * 1024, "hashing a 400 MB file peaked at {kb} kB");
}

/// Item 4: the guard notices an edit that keeps the size and puts the modification time back
/// (the change time cannot be put back), a new file in a hook's folder, and a missing script
/// that appears; an untouched project verifies from stats alone.
#[test]
fn the_guard_notices_what_an_attacker_changes_after_the_check() {
    let project = Project::new();
    // Files older than the guard's racy window, so an unchanged stat is trusted without a hash.
    std::thread::sleep(Duration::from_millis(2100));
    project.trust();
    let loaded = project.load();
    let guard = loaded.specs.iter().find_map(|spec| spec.trust.clone()).expect("trusted specs carry a guard");
    assert!(loaded.specs.iter().filter(|s| s.level == Level::Project).all(|s| s.trust.as_ref() == Some(&guard)));
    assert_eq!(guard.verify(), Ok(()));

    let script = project.dir.join(".jcli/hooks/guard/guard.sh");
    let mtime = fs::metadata(&script).expect("meta").modified().expect("mtime");
    fs::write(&script, "#!/bin/sh\necho '{X}'\n").expect("same size");
    fs::File::options().write(true).open(&script).expect("open").set_modified(mtime).expect("set mtime");
    let violation = guard.verify().expect_err("a same-size edit with the old mtime went unnoticed");
    assert_eq!(violation.file, Path::new(".jcli/hooks/guard/guard.sh"));
    assert_eq!(violation.what, "changed");

    let project = Project::new();
    project.trust();
    let guard = project.load().specs.iter().find_map(|spec| spec.trust.clone()).expect("guard");
    project.dir.write(".jcli/hooks/guard/extra.py", "import os\n");
    let violation = guard.verify().expect_err("a new file in the hook's folder went unnoticed");
    assert!(violation.to_string().contains("`.jcli/hooks/guard` gained or lost a file"), "{violation}");
}

/// A factory whose hooks answer with a system message (they stand for any kind).
#[derive(Debug)]
struct Answering;

#[hook_core::async_trait]
impl HookFactory for Answering {
    fn kind(&self) -> &str {
        "bash"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let name = spec.name.clone();
        Ok(BuiltHook::new(hook_fn(name.clone(), move |_input: &HookInput<'_>| {
            let name = name.clone();
            async move { Ok(HookOutput { system_message: Some(format!("{name} ran")), ..HookOutput::default() }) }
        })))
    }
}

/// Item 4: a hook built through `guarded` checks its project before each run: a file changed
/// since fails the run with an error naming it (in the trace, decided by the failure policy),
/// it is never `filtered`.
#[tokio::test]
async fn a_guarded_hook_fails_its_run_when_its_project_changed() {
    let project = Project::new();
    project.trust();
    let specs: Vec<HookSpec> =
        project.load().specs.into_iter().filter(|spec| spec.level == Level::Project && spec.name == "check").collect();
    let engine = Engine::builder().factory(guarded(Arc::new(Answering))).build();
    engine.replace_level(Level::Project, specs).await.expect("mount");
    let outcome = engine.fire(Event::Stop, &mut Context::default()).await;
    assert_eq!(outcome.trace[0].outcome, OutcomeClass::Ok, "{:?}", outcome.trace);

    project.dir.write("scripts/check.py", "print('{\"action\": \"stop\"}')\n");
    let outcome = engine.fire(Event::Stop, &mut Context::default()).await;
    let entry = &outcome.trace[0];
    assert_eq!(entry.outcome, OutcomeClass::SpawnFailed, "{entry:?}");
    let Some(HookError::SpawnFailed { message, .. }) = &entry.error else { panic!("{entry:?}") };
    assert!(message.contains("`scripts/check.py` changed since the project was trusted"), "{message}");
    engine.shutdown().await;
}

/// A factory whose hooks promise to change nothing.
#[derive(Debug)]
struct Promising;

#[derive(Debug)]
struct PromisingHook;

#[hook_core::async_trait]
impl Hook for PromisingHook {
    async fn call(&self, _input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        Ok(HookOutput::default())
    }

    fn changes_nothing(&self, _event: Event) -> bool {
        true
    }
}

#[hook_core::async_trait]
impl HookFactory for Promising {
    fn kind(&self) -> &str {
        "bash"
    }

    async fn build(&self, _spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        Ok(BuiltHook::new(Arc::new(PromisingHook)))
    }
}

/// The trust guard wraps a project's hooks: it must pass on their promise to change nothing
/// (or trusted project hooks would never run at once).
#[tokio::test]
async fn a_guarded_hook_keeps_its_promise_to_change_nothing() {
    let project = Project::new();
    project.trust();
    let spec = project
        .load()
        .specs
        .into_iter()
        .find(|spec| spec.level == Level::Project && spec.name == "check")
        .expect("the project's hook");
    assert!(spec.trust.is_some(), "a trusted project's hook carries its guard");
    let built = guarded(Arc::new(Promising)).build(&spec).await.expect("build");
    assert!(built.hook.changes_nothing(Event::Stop));
}

/// Item 8: the trust file's version is read back: a newer one is refused with a clear error
/// (loading holds every project back and says why), and never overwritten.
#[test]
fn a_trust_file_of_a_newer_version_is_refused_and_kept() {
    let project = Project::new();
    let newer = r#"{"version": 7, "records": []}"#;
    project.store_dir.write("hookwire/trust.json", newer);
    let store = project.store();
    let err = store.try_get(&project.root()).expect_err("a newer version is not read");
    assert!(matches!(err, TrustError::UnsupportedVersion { found: 7, supported: 1, .. }), "{err}");
    let record = fingerprint(&project.root(), &project.project_sources()).expect("fingerprint");
    assert!(matches!(store.put(record), Err(TrustError::UnsupportedVersion { .. })));
    assert_eq!(fs::read_to_string(project.store_dir.join("hookwire/trust.json")).expect("read"), newer);
    let loaded = project.load();
    assert_eq!(Project::names(&loaded), ["hello"]);
    assert!(loaded.untrusted[0].reason.contains("written by a newer hookwire"), "{}", loaded.untrusted[0].reason);
}

/// A trusted project with `.claude/settings.json` beside `.hookwire/hooks.yaml`, checked the way
/// `hookwire hook claude` checks it: that bridge leaves Claude Code's own settings out (Claude
/// Code runs them), so the record's entry for them is neither required nor "removed" — even
/// after `hookwire install` rewrote the file, or when it is gone.
#[test]
fn a_bridge_that_skips_its_agents_settings_keeps_the_trust() {
    let dir = TempDir::new();
    dir.write(".hookwire/hooks.yaml", "pre_tool_execution:\n  - name: guard\n    command: echo '{}'\n");
    dir.write(".claude/settings.json", "{}\n");
    let all = vec![
        ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project),
        ConfigSource::agent(dir.join(".claude/settings.json"), Level::Project, hook_protocol::Agent::Claude),
    ];
    let store_dir = TempDir::new();
    let store = FileTrustStore::new(store_dir.join("trust.json"));
    store.put(fingerprint(dir.path(), &all).expect("fingerprint")).expect("put");
    let bridge_sources = &all[..1];
    let as_claude = || {
        let check =
            TrustCheck::new(&store).skipping(Some(hook_protocol::Agent::Claude)).expecting([dir.path().to_owned()]);
        load(bridge_sources, Deadlines::default(), Some(&check))
    };
    let loaded = as_claude();
    assert!(loaded.untrusted.is_empty(), "{:?}", loaded.untrusted);
    assert_eq!(loaded.specs.len(), 1);
    dir.write(".claude/settings.json", "{\"hooks\": {}}\n");
    assert!(as_claude().untrusted.is_empty(), "an edit of Claude Code's own file withdrew the bridge's trust");
    fs::remove_file(dir.join(".claude/settings.json")).expect("remove");
    assert!(as_claude().untrusted.is_empty());
    // A path that would load that file (Gemini's bridge, `check`) reads its removal as a change.
    let unscoped = load(bridge_sources, Deadlines::default(), Some(&TrustCheck::new(&store)));
    assert!(unscoped.untrusted[0].reason.contains("`.claude/settings.json` was removed"), "{:?}", unscoped.untrusted);
}

/// An agent deleting the guard file must not switch the guard off silently: a trusted root
/// whose hook file is gone is reported, though no file of it is left to load.
#[test]
fn a_removed_hook_file_of_a_trusted_project_is_reported() {
    let dir = TempDir::new();
    dir.write(".hookwire/hooks.yaml", "pre_tool_execution:\n  - name: guard\n    command: echo '{}'\n");
    let sources = vec![ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project)];
    let store_dir = TempDir::new();
    let store = FileTrustStore::new(store_dir.join("trust.json"));
    store.put(fingerprint(dir.path(), &sources).expect("fingerprint")).expect("put");
    fs::remove_file(dir.join(".hookwire/hooks.yaml")).expect("remove");
    let check = TrustCheck::new(&store).expecting([dir.path().to_owned()]);
    let loaded = load(&[], Deadlines::default(), Some(&check));
    assert_eq!(loaded.untrusted.len(), 1, "{:?}", loaded.untrusted);
    let held = &loaded.untrusted[0];
    assert!(held.reason.contains("`.hookwire/hooks.yaml` was removed since the project was trusted"), "{held:?}");
    assert!(held.how_to_trust.contains("hookwire trust"), "{held:?}");
}

/// A script's helpers reached through `$(dirname "$0")/lib/...` are covered: the folder of a
/// script the command runs is hashed whole, and an edit of a helper in a sub-folder withdraws
/// the trust (the first red team's last open case). `make` reads the Makefile unnamed.
#[test]
fn a_helper_next_to_the_script_and_the_makefile_are_covered() {
    let dir = TempDir::new();
    dir.write(
        ".hookwire/hooks.yaml",
        "pre_tool_execution:\n  - name: guard\n    command: sh .claude/hooks/guard.sh\n  - name: lint\n    command: make -s check\n",
    );
    dir.write(".claude/hooks/guard.sh", ". \"$(dirname \"$0\")/lib/helpers.sh\"\ncheck\n");
    dir.write(".claude/hooks/lib/helpers.sh", "check() { echo '{}'; }\n");
    dir.write("Makefile", "check:\n\t@echo '{}'\n");
    let sources = vec![ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project)];
    let store_dir = TempDir::new();
    let store = FileTrustStore::new(store_dir.join("trust.json"));
    let record = fingerprint(dir.path(), &sources).expect("fingerprint");
    let files: Vec<String> = record.files.keys().map(|p| p.display().to_string()).collect();
    for expected in [".claude/hooks/lib/helpers.sh", "Makefile", "GNUmakefile"] {
        assert!(files.iter().any(|f| f == expected), "{expected} not in {files:?}");
    }
    store.put(record).expect("put");
    let reload = || load(&sources, Deadlines::default(), Some(&TrustCheck::new(&store)));
    assert!(reload().untrusted.is_empty(), "{:?}", reload().untrusted);

    dir.write(".claude/hooks/lib/helpers.sh", "check() { echo '{\"action\": \"continue\"}'; }\n");
    let held = reload().untrusted;
    assert!(
        held.iter().any(|u| u.reason.contains("`.claude/hooks/lib/helpers.sh` changed")),
        "an edited helper went unnoticed: {held:?}"
    );
    dir.write(".claude/hooks/lib/helpers.sh", "check() { echo '{}'; }\n");
    assert!(reload().untrusted.is_empty());
    dir.write("GNUmakefile", "check:\n\t@true\n");
    let held = reload().untrusted;
    assert!(held.iter().any(|u| u.reason.contains("`GNUmakefile` appeared")), "{held:?}");
}

/// A helper a script sources from outside the folders trust covers is shown as undetermined
/// (the second red team's `$(dirname "$0")/../../scripts/lib.sh`); one in its own folder is not.
#[test]
fn a_helper_sourced_from_outside_the_scripts_folder_is_shown() {
    let dir = TempDir::new();
    dir.write(".hookwire/hooks.yaml", "pre_tool_execution:\n  - name: guard\n    command: .claude/hooks/guard.sh\n");
    dir.write(
        ".claude/hooks/guard.sh",
        "#!/bin/sh\n. \"$(dirname \"$0\")/lib/ok.sh\"\nsource \"$(dirname \"$0\")/../../scripts/lib.sh\"\n. \"$HELPERS\"\n",
    );
    dir.write(".claude/hooks/lib/ok.sh", "");
    dir.write("scripts/lib.sh", "");
    let loaded =
        load(&[ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project)], Deadlines::default(), None);
    let run = files_run(&loaded.specs[0], dir.path());
    let notes = run.undetermined.join("\n");
    assert!(notes.contains("../../scripts/lib.sh"), "{notes}");
    assert!(notes.contains("$HELPERS"), "{notes}");
    assert!(!notes.contains("lib/ok.sh"), "{notes}");
}

/// The `source` commands of a script are found by the shell parser wherever they are (after
/// `&&`, in a function, after `;` on one line), and a script it cannot read is shown.
#[test]
fn a_helper_sourced_anywhere_in_a_script_is_found() {
    let dir = TempDir::new();
    dir.write(
        ".hookwire/hooks.yaml",
        "pre_tool_execution:\n  - name: guard\n    command: .claude/hooks/guard.sh\n  - name: broken\n    command: .claude/hooks/broken.sh\n",
    );
    dir.write(".claude/hooks/guard.sh", "#!/bin/sh\nsetup() { true && . scripts/a.sh; }\ncd . ; source scripts/b.sh\n");
    dir.write(".claude/hooks/broken.sh", "#!/bin/sh\n. ./lib.sh\nif true; then\n");
    dir.write("scripts/a.sh", "");
    dir.write("scripts/b.sh", "");
    let loaded =
        load(&[ConfigSource::new(dir.join(".hookwire/hooks.yaml"), Level::Project)], Deadlines::default(), None);
    let notes = files_run(&loaded.specs[0], dir.path()).undetermined.join("\n");
    assert!(notes.contains("sources `scripts/a.sh`"), "{notes}");
    assert!(notes.contains("sources `scripts/b.sh`"), "{notes}");
    let notes = files_run(&loaded.specs[1], dir.path()).undetermined.join("\n");
    assert!(notes.contains("cannot be read as a shell script"), "{notes}");
}

/// A guard whose files changed after the check refuses the tool call instead of failing open
/// through its failure policy: an agent must not edit its guard away between two calls.
#[tokio::test]
async fn a_guarded_hook_whose_project_changed_refuses_the_tool_call() {
    let project = Project::new();
    project.trust();
    let specs: Vec<HookSpec> =
        project.load().specs.into_iter().filter(|spec| spec.level == Level::Project && spec.name == "guard").collect();
    let engine = Engine::builder().factory(guarded(Arc::new(Answering))).build();
    engine.replace_level(Level::Project, specs).await.expect("mount");
    let mut context = Context { tool_name: Some("Bash".into()), ..Context::default() };
    let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
    assert_eq!(outcome.decision, hook_core::Decision::Continue, "{:?}", outcome.trace);

    project.dir.write(".jcli/hooks/guard/guard.sh", "#!/bin/sh\necho '{\"action\": \"continue\"}'\n");
    let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
    assert_eq!(outcome.decision, hook_core::Decision::DenyTool, "{:?}", outcome.trace);
    let reason = outcome.reason.unwrap_or_default();
    assert!(
        reason.contains("guard.sh` changed since the project was trusted") && reason.contains("hookwire trust"),
        "{reason}"
    );
    engine.shutdown().await;
}
