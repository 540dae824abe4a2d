//! A host where Landlock cannot apply, simulated with `HOOKWIRE_LANDLOCK_ABI_MAX`: this test
//! binary runs itself again with the cap set (the probe is read once per process), so the
//! checks run in a process that sees no Landlock, or an old ABI.

use std::process::Command;

use hook_sandbox::{
    ABI_CAP_VAR, NetworkPolicy, Places, SECCOMP_MISSING, SECCOMP_VAR, SandboxError, SandboxMode, SandboxPolicy,
    confine, support,
};

/// Runs test `name` of this binary again with the ABI capped at `cap`; true when it passed.
fn rerun(name: &str, cap: &str) -> bool {
    rerun_with(name, ABI_CAP_VAR, cap)
}

/// Runs test `name` of this binary again with `var=value`; true when it passed.
fn rerun_with(name: &str, var: &str, value: &str) -> bool {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(var, value)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1 passed"), "{name} under {var}={value}:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    out.status.success()
}

#[test]
fn without_landlock_required_fails_closed_and_best_effort_runs_unconfined() {
    assert!(rerun("no_landlock", "0"));
}

#[test]
fn on_abi_3_network_rules_are_missing() {
    assert!(rerun("abi_3", "3"));
}

#[test]
fn no_landlock() {
    if std::env::var_os(ABI_CAP_VAR).is_none() {
        return; // runs only under `rerun`
    }
    assert_eq!(support().abi, 0);
    assert!(support().describe().contains("unavailable"), "{}", support().describe());
    let mut command = Command::new("/bin/sh");
    let error = confine(&mut command, &SandboxPolicy::default(), &Places::default(), "fmt-on-save").unwrap_err();
    assert!(matches!(error, SandboxError::Unsupported { .. }));
    let message = error.to_string();
    assert!(message.contains("hook `fmt-on-save`"), "{message}");
    assert!(message.contains("sandbox: required"), "{message}");
    assert!(message.contains("best-effort"), "{message}");

    let home = hook_sandbox::outside_default_writes(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join(format!("degraded-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let best_effort = SandboxPolicy::with_mode(SandboxMode::BestEffort);
    let mut command = Command::new("/bin/sh");
    command.args(["-c", "echo unconfined >> \"$HOME/.bashrc\""]).env("HOME", &home);
    let applied = confine(&mut command, &best_effort, &Places::default(), "fmt").unwrap().unwrap();
    assert_eq!(applied.abi, 0);
    assert!(applied.missing.iter().any(|m| m.contains("filesystem")), "{applied:?}");
    assert!(applied.describe().contains("not enforced"), "{}", applied.describe());
    assert!(command.status().unwrap().success());
    assert!(std::fs::read_to_string(home.join(".bashrc")).unwrap().contains("unconfined"));
}

#[test]
fn abi_3() {
    if std::env::var_os(ABI_CAP_VAR).is_none() {
        return;
    }
    assert_eq!(support().abi, 3);
    let mut command = Command::new("/bin/sh");
    let error = confine(&mut command, &SandboxPolicy::default(), &Places::default(), "net").unwrap_err();
    assert!(error.to_string().contains("TCP rules (Landlock ABI 4)"), "{error}");
    // Without network rules, ABI 3 is enough for `required`.
    let files_only = SandboxPolicy { network: NetworkPolicy::Any, ..SandboxPolicy::default() };
    let applied = confine(&mut command, &files_only, &Places::default(), "files").unwrap().unwrap();
    assert_eq!(applied.abi, 3);
}

#[test]
fn without_seccomp_required_network_rules_fail_closed_and_best_effort_says_what_is_missing() {
    assert!(rerun_with("no_seccomp", SECCOMP_VAR, "off"));
}

#[test]
fn no_seccomp() {
    if std::env::var_os(SECCOMP_VAR).is_none() {
        return; // runs only under `rerun_with`
    }
    let mut command = Command::new("/bin/sh");
    let error = confine(&mut command, &SandboxPolicy::default(), &Places::default(), "lint").unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, SandboxError::Unsupported { .. }), "{message}");
    assert!(message.contains("hook `lint`") && message.contains(SECCOMP_MISSING), "{message}");
    // A port list needs the filter as much as `none`.
    let ports = SandboxPolicy { network: NetworkPolicy::Ports(vec![443]), ..SandboxPolicy::default() };
    assert!(confine(&mut command, &ports, &Places::default(), "fetch").is_err());

    // `best-effort` runs, and says UDP and Unix sockets are open.
    let best_effort = SandboxPolicy::with_mode(SandboxMode::BestEffort);
    let mut command = Command::new("/bin/sh");
    command.args(["-c", "exit 0"]);
    let applied = confine(&mut command, &best_effort, &Places::default(), "lint").unwrap().unwrap();
    assert_eq!(applied.missing, vec![SECCOMP_MISSING], "{applied:?}");
    assert!(applied.describe().contains("not enforced: UDP and Unix socket filtering (seccomp)"), "{applied:?}");
    assert!(command.status().unwrap().success());

    // `network: any` needs no filter: `required` runs.
    let open = SandboxPolicy { network: NetworkPolicy::Any, ..SandboxPolicy::default() };
    let applied = confine(&mut Command::new("/bin/sh"), &open, &Places::default(), "open").unwrap().unwrap();
    assert!(applied.missing.is_empty(), "{applied:?}");
}
