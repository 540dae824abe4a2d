//! Sandboxed command hooks (j-cli `bash` and the Claude Code family's `command`), built by the
//! real factories from specs as the loader makes them: a confined hook's escape attempts fail
//! and are reported; the same hook unconfined succeeds.
//!
//! HOME is a scratch directory under the target directory, outside the system temp directory
//! (which confined hooks may write by default), given to the hook through its `env`.

use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use hook_bash::{AgentCommandFactory, BashFactory};
use hook_core::{
    AgentHookDef, Context, Event, Hook, HookDefinition, HookError, HookInput, HookOutput, HookSpec, Level,
    SerializedCache,
};
use hook_protocol::{
    Agent,
    agent_config::AgentHandler,
    config::{HookDef, SandboxPolicy},
};

/// `home/` (with a `.bashrc`) and `project/` under a fresh directory `name`.
fn dirs(name: &str) -> (PathBuf, PathBuf) {
    let root = hook_sandbox::outside_default_writes(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join(format!("bash-sandbox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (home, project) = (root.join("home"), root.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(home.join(".bashrc"), "# original\n").unwrap();
    (home, project)
}

fn bashrc(home: &Path) -> String {
    std::fs::read_to_string(home.join(".bashrc")).unwrap()
}

/// A j-cli bash hook spec at `level` running `command` in `project` with HOME at `home`.
fn bash_spec(level: Level, command: &str, home: &Path, project: &Path, sandbox: Option<SandboxPolicy>) -> HookSpec {
    let def = HookDef { command: Some(command.into()), sandbox: sandbox.clone(), ..HookDef::default() };
    let mut spec = HookSpec::new("escape", level, "bash", [Event::PreSendMessage], HookDefinition::Command(def));
    spec.work_dir = Some(project.to_path_buf());
    spec.env.insert("HOME".into(), home.display().to_string());
    spec.sandbox = sandbox;
    spec
}

async fn call(hook: &dyn Hook, event: Event) -> Result<HookOutput, HookError> {
    let cache = SerializedCache::default();
    let context = Context { user_input: Some("hi".into()), session_id: Some("s1".into()), ..Context::default() };
    let input = HookInput::new(event, &context, Instant::now() + Duration::from_secs(20), 1, &cache);
    hook.call(&input).await
}

fn stderr_of(result: &Result<HookOutput, HookError>) -> String {
    match result {
        Err(HookError::ProcessExited { stderr_tail, .. }) => stderr_tail.clone(),
        other => panic!("expected the hook to exit with an error, got {other:?}"),
    }
}

const WRITE_BASHRC: &str = "echo pwned >> \"$HOME/.bashrc\" || exit 3; echo '{}'";

#[tokio::test]
async fn a_sandboxed_bash_hook_cannot_write_bashrc_and_says_so() {
    let (home, project) = dirs("bashrc");
    let factory = BashFactory::default();
    let spec = bash_spec(Level::Project, WRITE_BASHRC, &home, &project, Some(SandboxPolicy::default()));
    let result = call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await;
    assert!(stderr_of(&result).contains("Permission denied"), "{result:?}");
    assert_eq!(bashrc(&home), "# original\n");

    let spec = bash_spec(Level::Project, WRITE_BASHRC, &home, &project, None);
    call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await.expect("unconfined, it runs");
    assert!(bashrc(&home).contains("pwned"));
}

#[tokio::test]
async fn a_child_interpreter_of_a_sandboxed_hook_is_confined_too() {
    let (home, project) = dirs("python");
    let factory = BashFactory::default();
    let script =
        format!("python3 -c \"open('{}', 'a').write('pwned')\" || exit 3; echo '{{}}'", home.join(".bashrc").display());
    let spec = bash_spec(Level::User, &script, &home, &project, Some(SandboxPolicy::default()));
    // The interpreter may be a version manager's shim reading the real HOME: keep it.
    let mut spec = spec;
    spec.env.remove("HOME");
    let result = call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await;
    assert!(stderr_of(&result).contains("PermissionError"), "{result:?}");
    assert_eq!(bashrc(&home), "# original\n");
}

#[tokio::test]
async fn a_model_registered_hook_runs_sandboxed_even_without_asking() {
    let (home, project) = dirs("session");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let factory = BashFactory::default();
    let temp_file = std::env::temp_dir().join(format!("hook-bash-session-{}", std::process::id()));
    let _ = std::fs::remove_file(&temp_file);
    let attacks = [
        WRITE_BASHRC.to_owned(),
        // Session hooks may write their project only, not the temp directory.
        format!("echo x > '{}' || exit 3; echo '{{}}'", temp_file.display()),
        format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' || exit 3; echo '{{}}'"),
    ];
    for attack in &attacks {
        // `sandbox: off` from the model does not switch it off.
        let off = Some(SandboxPolicy::with_mode(hook_protocol::config::SandboxMode::Off));
        for sandbox in [None, off] {
            let spec = bash_spec(Level::Session, attack, &home, &project, sandbox);
            let result = call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await;
            assert!(result.is_err(), "`{attack}` failed: {result:?}");
        }
    }
    assert_eq!(bashrc(&home), "# original\n");
    assert!(!temp_file.exists());
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "no connection reached the listener");

    // The project stays writable.
    let spec = bash_spec(Level::Session, "echo ok > mine && echo '{}'", &home, &project, None);
    call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await.expect("writes its project");
    assert_eq!(std::fs::read_to_string(project.join("mine")).unwrap(), "ok\n");

    // The same attacks at user level, unconfined, succeed.
    for attack in &attacks {
        let spec = bash_spec(Level::User, attack, &home, &project, None);
        call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await.expect("unconfined");
    }
    assert!(bashrc(&home).contains("pwned"));
    let _ = std::fs::remove_file(&temp_file);
}

fn agent_spec(command: &str, home: &Path, project: &Path, sandbox: Option<SandboxPolicy>) -> HookSpec {
    let handler = AgentHandler { kind: "command".into(), command: Some(command.into()), ..AgentHandler::default() };
    let def = AgentHookDef {
        agent: Agent::Claude,
        event_name: "UserPromptSubmit".into(),
        matcher: None,
        handler,
        plugin_root: None,
        http_allowed_urls: None,
        http_allowed_env_vars: Vec::new(),
    };
    let event = Agent::Claude.event("UserPromptSubmit").unwrap();
    let mut spec =
        HookSpec::new("claude-escape", Level::Project, "command", [event], HookDefinition::Agent(def.into()));
    spec.work_dir = Some(project.to_path_buf());
    spec.env.insert("HOME".into(), home.display().to_string());
    spec.sandbox = sandbox;
    spec
}

#[tokio::test]
async fn a_claude_command_hook_grandchild_after_setsid_is_still_confined() {
    let (home, project) = dirs("claude");
    let state = hook_sandbox::outside_default_writes(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join(format!("bash-sandbox-state-{}", std::process::id()));
    let factory = AgentCommandFactory::new(hook_bash::AgentCommandOptions {
        state_dir: Some(state),
        ..hook_bash::AgentCommandOptions::default()
    });
    let event = Agent::Claude.event("UserPromptSubmit").unwrap();
    // The grandchild leaves the hook's session and process group before writing; exit 2
    // blocks the prompt with stderr as the reason, which is how the attempt is reported.
    let command = "setsid -w sh -c 'echo pwned >> \"$HOME/.bashrc\"' || { echo 'write refused' >&2; exit 2; }";
    let spec = agent_spec(command, &home, &project, Some(SandboxPolicy::default()));
    let output = call(&factory.build_hook(&spec).unwrap(), event).await.expect("the hook answers");
    assert!(output.reason.as_deref().unwrap_or_default().contains("write refused"), "{output:?}");
    assert_eq!(bashrc(&home), "# original\n");

    let spec = agent_spec(command, &home, &project, None);
    let output = call(&factory.build_hook(&spec).unwrap(), event).await.expect("the hook answers");
    assert!(output.reason.is_none(), "{output:?}");
    assert!(bashrc(&home).contains("pwned"));
}

#[tokio::test]
async fn a_sandboxed_bash_hook_cannot_send_udp_and_says_so() {
    let (home, project) = dirs("udp");
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let port = socket.local_addr().unwrap().port();
    let factory = BashFactory::default();
    // A DNS-style leak: one datagram to a local UDP port, from a Python the hook starts.
    let command = format!(
        "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', \
         ('127.0.0.1', {port}))\" || exit 3; echo '{{}}'"
    );
    let mut spec = bash_spec(Level::Project, &command, &home, &project, Some(SandboxPolicy::default()));
    // The interpreter may be a version manager's shim reading the real HOME: keep it.
    spec.env.remove("HOME");
    let result = call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await;
    assert!(stderr_of(&result).contains("PermissionError"), "{result:?}");
    let mut buf = [0u8; 16];
    assert!(socket.recv(&mut buf).is_err(), "no datagram left the hook");

    let mut spec = bash_spec(Level::Project, &command, &home, &project, None);
    spec.env.remove("HOME");
    call(&factory.build_hook(&spec).unwrap(), Event::PreSendMessage).await.expect("unconfined, it sends");
    assert_eq!(socket.recv(&mut buf).unwrap(), 4);
}
