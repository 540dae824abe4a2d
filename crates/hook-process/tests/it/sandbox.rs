//! A sandboxed process hook's escape attempts — writing `~/.bashrc`, reading outside its `read`
//! set, connecting to a 127.0.0.1 listener, and a detached grandchild writing — all fail, and
//! the hook itself reports them; unconfined, the same hook escapes (so these tests can fail).
//! A `required` sandbox that cannot apply is covered in hook-sandbox (`degraded.rs`).

use crate::common;

use std::{net::TcpListener, path::Path, time::Duration};

use common::*;
use hook_core::{Context, Event, HookDefinition};
use hook_protocol::config::{PathSet, SandboxPolicy};

/// Starts the escape fixture (confined by `sandbox`) and returns the reason of its answer.
async fn attempt(name: &str, sandbox: Option<SandboxPolicy>) -> String {
    let root = hook_sandbox::outside_default_writes(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join(format!("process-sandbox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (home, project) = (root.join("home"), root.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(home.join(".bashrc"), "# original\n").unwrap();
    std::fs::write(home.join("secret"), "SECRET\n").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let bashrc = home.join(".bashrc").display().to_string();
    let secret = home.join("secret").display().to_string();
    let mut spec = python_spec(name, "escape_hook.py", &[&bashrc, &secret, &port], &[Event::PreLlmRequest]);
    if let HookDefinition::Process(def) = &mut spec.definition {
        def.dir = Some(project.display().to_string());
    }
    spec.sandbox = sandbox;
    let hook = start(&spec).await;
    let output =
        call(&*hook, Event::PreLlmRequest, &Context::default(), Duration::from_secs(20)).await.expect("answers");
    shutdown_and_check(&hook).await;
    let reason = output.reason.unwrap_or_default();
    let written = std::fs::read_to_string(home.join(".bashrc")).unwrap();
    assert_eq!(written.contains("pwned"), reason.starts_with("escaped"), "{reason}; .bashrc: {written}");
    reason
}

/// Reads what the hook needs (its interpreter, the fixture) and nothing in HOME.
fn policy() -> SandboxPolicy {
    let python_prefix = Path::new(python()).parent().and_then(Path::parent).unwrap().display().to_string();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").display().to_string();
    SandboxPolicy { read: PathSet::Only(vec![python_prefix, fixtures]), ..SandboxPolicy::default() }
}

#[tokio::test]
async fn a_sandboxed_process_hook_escapes_nowhere() {
    let reason = attempt("confined", Some(policy())).await;
    assert_eq!(
        reason,
        "confined: write refused (PermissionError); read refused (PermissionError); connect refused \
         (PermissionError); grandchild write refused (PermissionError)"
    );
}

#[tokio::test]
async fn the_same_process_hook_unconfined_escapes() {
    let reason = attempt("unconfined", None).await;
    assert_eq!(reason, "escaped: write worked; read worked; connect worked; grandchild write worked");
}
