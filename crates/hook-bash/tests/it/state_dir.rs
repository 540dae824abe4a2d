//! The default state directory (`CLAUDE_ENV_FILE`, plugin data, spilled answers) when
//! `XDG_RUNTIME_DIR` is unset: `hookwire-<uid>` in the shared temporary directory, which another
//! local user can create first. Each case runs in a child of this test binary whose `TMPDIR`
//! and `HOME` point into a scratch directory, with the name taken the way an attacker takes it.

use std::{
    fs,
    os::unix::fs::{MetadataExt as _, PermissionsExt as _},
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use hook_bash::AgentCommandFactory;
use hook_core::{AgentHookDef, Context, Engine, HookDefinition, HookSpec, Level};
use hook_protocol::{Agent, agent_config::AgentHandler};

const CHILD_VAR: &str = "HOOK_BASH_STATE_DIR_TEST_CHILD";
const SCRATCH_VAR: &str = "HOOK_BASH_STATE_DIR_SCRATCH";
/// The user an attacker's directory belongs to (`nobody`): the tests run as root, so `chown`
/// works.
const OTHER_UID: u32 = 65534;

/// In the parent: runs test `name` again in a child with a scratch `TMPDIR` and `HOME` and no
/// `XDG_RUNTIME_DIR`, asserts it passed, and returns `None`. In the child: the scratch directory.
fn in_child(name: &str) -> Option<PathBuf> {
    if std::env::var(CHILD_VAR).as_deref() == Ok(name) {
        return Some(PathBuf::from(std::env::var_os(SCRATCH_VAR).expect("the scratch directory")));
    }
    let scratch = std::env::temp_dir().join(format!("hook-bash-state-dir-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    fs::create_dir_all(scratch.join("tmp")).unwrap();
    fs::create_dir_all(scratch.join("home")).unwrap();
    fs::create_dir_all(scratch.join("project")).unwrap();
    let exe = std::env::current_exe().expect("the test binary");
    let output = std::process::Command::new(exe)
        .args([format!("state_dir::{name}").as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, name)
        .env(SCRATCH_VAR, &scratch)
        .env("TMPDIR", scratch.join("tmp"))
        .env("HOME", scratch.join("home"))
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_STATE_HOME")
        .env_remove("CLAUDE_ENV_FILE")
        .output()
        .expect("run the child test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the child run of `{name}` failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "the child did not run `{name}`:\n{stdout}");
    let _ = fs::remove_dir_all(&scratch);
    None
}

/// The name the default state directory takes in the temporary directory.
fn shared_name(scratch: &Path) -> PathBuf {
    scratch.join("tmp").join(format!("hookwire-{}", fs::metadata("/proc/self").expect("/proc/self").uid()))
}

/// Fires a Claude Code SessionStart hook that writes its `CLAUDE_ENV_FILE` path into the
/// project, and returns that path (the hook must have succeeded).
async fn env_file_of_a_session_start(scratch: &Path) -> PathBuf {
    let project = scratch.join("project");
    let command = r#"cat >/dev/null; printf '%s' "$CLAUDE_ENV_FILE" > "$CLAUDE_PROJECT_DIR/env-path.txt""#;
    let def = AgentHookDef {
        agent: Agent::Claude,
        event_name: "SessionStart".into(),
        matcher: None,
        handler: AgentHandler { kind: "command".into(), command: Some(command.into()), ..AgentHandler::default() },
        plugin_root: None,
        http_allowed_urls: None,
        http_allowed_env_vars: Vec::new(),
    };
    let event = Agent::Claude.event("SessionStart").expect("an event");
    let spec = HookSpec {
        timeout: Some(Duration::from_secs(30)),
        ..HookSpec::new("start", Level::Project, "command", [event], HookDefinition::Agent(def.into()))
    };
    let engine = Engine::builder().factory(Arc::new(AgentCommandFactory::default())).build();
    engine.replace_level(Level::Project, vec![spec]).await.expect("the hook loads");
    let mut context =
        Context { session_id: Some("sess-1".into()), cwd: Some(project.display().to_string()), ..Context::default() };
    let outcome = engine.fire(event, &mut context).await;
    engine.shutdown().await;
    assert!(
        outcome.trace.iter().all(|entry| entry.error.is_none()),
        "the session-start hook failed: {:?}",
        outcome.trace
    );
    let path = fs::read_to_string(project.join("env-path.txt")).expect("the hook ran");
    PathBuf::from(path)
}

/// Another user created `hookwire-<uid>` first, open to all: hooks still run, with their state
/// in this user's own home, and nothing goes into the other user's directory.
#[tokio::test]
async fn another_users_directory_in_its_place_is_not_used() {
    let Some(scratch) = in_child("another_users_directory_in_its_place_is_not_used") else { return };
    let taken = shared_name(&scratch);
    fs::create_dir(&taken).unwrap();
    fs::set_permissions(&taken, fs::Permissions::from_mode(0o777)).unwrap();
    std::os::unix::fs::chown(&taken, Some(OTHER_UID), Some(OTHER_UID)).unwrap();
    let env_file = env_file_of_a_session_start(&scratch).await;
    assert!(env_file.starts_with(scratch.join("home/.local/state/hookwire/run")), "{}", env_file.display());
    assert_eq!(fs::read_dir(&taken).unwrap().count(), 0, "something was written into the other user's directory");
    let run = scratch.join("home/.local/state/hookwire/run");
    assert_eq!(fs::metadata(&run).unwrap().permissions().mode() & 0o777, 0o700);
}

/// `hookwire-<uid>` is a symbolic link to a directory of another user's: not followed.
#[tokio::test]
async fn a_symbolic_link_in_its_place_is_not_followed() {
    let Some(scratch) = in_child("a_symbolic_link_in_its_place_is_not_followed") else { return };
    let target = scratch.join("tmp/attacker");
    fs::create_dir(&target).unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o777)).unwrap();
    std::os::unix::fs::chown(&target, Some(OTHER_UID), Some(OTHER_UID)).unwrap();
    std::os::unix::fs::symlink(&target, shared_name(&scratch)).unwrap();
    let env_file = env_file_of_a_session_start(&scratch).await;
    assert!(env_file.starts_with(scratch.join("home/.local/state/hookwire/run")), "{}", env_file.display());
    assert_eq!(fs::read_dir(&target).unwrap().count(), 0, "the link was followed");
}

/// This user's own `hookwire-<uid>`, left open to others: used, and closed (`0700`).
#[tokio::test]
async fn an_own_directory_left_open_is_closed_and_used() {
    let Some(scratch) = in_child("an_own_directory_left_open_is_closed_and_used") else { return };
    let own = shared_name(&scratch);
    fs::create_dir(&own).unwrap();
    fs::set_permissions(&own, fs::Permissions::from_mode(0o777)).unwrap();
    let env_file = env_file_of_a_session_start(&scratch).await;
    assert!(env_file.starts_with(&own), "{}", env_file.display());
    let meta = fs::metadata(&own).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o700);
    assert_eq!(fs::metadata(&env_file).unwrap().mode() & 0o777, 0o600);
}
