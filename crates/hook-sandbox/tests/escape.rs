//! Escape attempts from a confined process, as a hook would make them: real `sh`, `python3`,
//! a real TCP listener on 127.0.0.1. Each attempt is also made unconfined, where it must
//! succeed, so a sandbox that confines nothing fails these tests.
//!
//! HOME is a scratch directory under the target directory (not under the system temp
//! directory, which confined hooks may write by default), so `~/.bashrc` is a scratch file.

use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::OnceLock,
    time::Duration,
};

use hook_sandbox::{NetworkPolicy, PathSet, Places, SandboxMode, SandboxPolicy, confine, support};

/// A fresh directory `name` with `home/` and `project/` inside, outside the temp directory.
fn dirs(name: &str) -> (PathBuf, PathBuf) {
    let root = hook_sandbox::outside_default_writes(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join(format!("sandbox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (home, project) = (root.join("home"), root.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(home.join(".bashrc"), "# original\n").unwrap();
    (home, project)
}

/// The real Python interpreter (not a version manager's shim, which reads `$HOME`).
fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    })
}

/// Runs `program args` with HOME at `home`, in `project`, confined by `policy` when given.
fn run(program: &str, args: &[&str], home: &Path, project: &Path, policy: Option<&SandboxPolicy>) -> Output {
    let mut command = Command::new(program);
    command.args(args).env("HOME", home).current_dir(project).stdin(Stdio::null());
    if let Some(policy) = policy {
        let places = Places {
            project: Some(project.to_path_buf()),
            scratch: Some(home.join(".local/state/hookwire/scratch/test")),
            program: Some(PathBuf::from(program)),
        };
        let applied = confine(&mut command, policy, &places, "escape-test").expect("confined").expect("policy on");
        assert!(applied.missing.is_empty(), "this kernel enforces everything: {applied:?}");
    }
    command.output().expect("spawned")
}

fn assert_landlock() {
    assert!(support().abi >= 6, "these tests need Landlock ABI 6 or later; got {}", support().describe());
}

#[test]
fn a_confined_shell_cannot_append_to_bashrc_and_an_unconfined_one_can() {
    assert_landlock();
    let (home, project) = dirs("bashrc");
    let attack = ["-c", "echo pwned >> \"$HOME/.bashrc\""];
    let confined = run("/bin/sh", &attack, &home, &project, Some(&SandboxPolicy::default()));
    assert!(!confined.status.success(), "the write was refused");
    assert!(String::from_utf8_lossy(&confined.stderr).contains("Permission denied"), "{confined:?}");
    assert_eq!(std::fs::read_to_string(home.join(".bashrc")).unwrap(), "# original\n");

    // The project, the scratch directory and /dev/null stay writable.
    let work = ["-c", "echo ok > out.txt && echo s > \"$HOOKWIRE_SCRATCH_DIR/s\" && echo n > /dev/null"];
    let ok = run("/bin/sh", &work, &home, &project, Some(&SandboxPolicy::default()));
    assert!(ok.status.success(), "{ok:?}");
    assert_eq!(std::fs::read_to_string(project.join("out.txt")).unwrap(), "ok\n");

    let unconfined = run("/bin/sh", &attack, &home, &project, None);
    assert!(unconfined.status.success());
    assert!(std::fs::read_to_string(home.join(".bashrc")).unwrap().contains("pwned"));
}

#[test]
fn truncating_renaming_or_linking_bashrc_is_refused_too() {
    assert_landlock();
    let (home, project) = dirs("truncate");
    let policy = SandboxPolicy::default();
    for attack in [
        ": > \"$HOME/.bashrc\"",
        "truncate -s 0 \"$HOME/.bashrc\"",
        "mv \"$HOME/.bashrc\" ./stolen",
        "ln -s ./evil \"$HOME/.profile\"",
        "rm \"$HOME/.bashrc\"",
    ] {
        let out = run("/bin/sh", &["-c", attack], &home, &project, Some(&policy));
        assert!(!out.status.success(), "`{attack}` was refused: {out:?}");
        assert_eq!(std::fs::read_to_string(home.join(".bashrc")).unwrap(), "# original\n", "after `{attack}`");
    }
    assert!(!home.join(".profile").exists());
}

#[test]
fn a_symlink_in_the_project_does_not_lead_out_of_it() {
    assert_landlock();
    let (home, project) = dirs("symlink");
    std::os::unix::fs::symlink(home.join(".bashrc"), project.join("rc")).unwrap();
    let out = run("/bin/sh", &["-c", "echo pwned >> rc"], &home, &project, Some(&SandboxPolicy::default()));
    assert!(!out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(home.join(".bashrc")).unwrap(), "# original\n");
}

#[test]
fn reading_outside_the_read_set_fails_from_sh_and_python() {
    assert_landlock();
    let (home, project) = dirs("read");
    std::fs::write(home.join("id_ed25519"), "SECRET KEY\n").unwrap();
    let policy = SandboxPolicy { read: PathSet::Only(vec![".".into()]), ..SandboxPolicy::default() };
    let cat = ["-c", "cat \"$HOME/id_ed25519\""];

    let confined = run("/bin/sh", &cat, &home, &project, Some(&policy));
    assert!(!confined.status.success());
    assert!(!String::from_utf8_lossy(&confined.stdout).contains("SECRET"));
    // The project itself is readable.
    std::fs::write(project.join("input"), "mine\n").unwrap();
    let own = run("/bin/sh", &["-c", "cat input"], &home, &project, Some(&policy));
    assert_eq!(String::from_utf8_lossy(&own.stdout), "mine\n", "{own:?}");

    let unconfined = run("/bin/sh", &cat, &home, &project, None);
    assert_eq!(String::from_utf8_lossy(&unconfined.stdout), "SECRET KEY\n");

    // Through an interpreter (read set widened to where Python lives).
    let python_home = Path::new(python()).parent().and_then(Path::parent).unwrap().display().to_string();
    let policy = SandboxPolicy { read: PathSet::Only(vec![".".into(), python_home]), ..SandboxPolicy::default() };
    let script = format!("print(open({:?}).read())", home.join("id_ed25519").display().to_string());
    let confined = run(python(), &["-c", &script], &home, &project, Some(&policy));
    assert!(!confined.status.success(), "{confined:?}");
    assert!(String::from_utf8_lossy(&confined.stderr).contains("PermissionError"), "{confined:?}");
    let unconfined = run(python(), &["-c", &script], &home, &project, None);
    assert!(String::from_utf8_lossy(&unconfined.stdout).contains("SECRET KEY"));
}

/// Python connecting to `port` on 127.0.0.1; exits 0 when connected.
fn connect_script(port: u16) -> String {
    format!("import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')")
}

#[test]
fn network_none_refuses_a_connection_to_a_local_listener() {
    assert_landlock();
    let (home, project) = dirs("net");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = connect_script(port);

    let confined = run(python(), &["-c", &script], &home, &project, Some(&SandboxPolicy::default()));
    assert!(!confined.status.success(), "{confined:?}");
    assert!(String::from_utf8_lossy(&confined.stderr).contains("PermissionError"), "{confined:?}");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "no connection reached the listener");

    // Also through a child shell running bash's /dev/tcp.
    let bash = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let confined = run("/bin/bash", &["-c", &bash], &home, &project, Some(&SandboxPolicy::default()));
    assert!(!confined.status.success(), "{confined:?}");

    let unconfined = run(python(), &["-c", &script], &home, &project, None);
    assert!(unconfined.status.success(), "{unconfined:?}");
    listener.set_nonblocking(false).unwrap();
    let _ = listener.accept().unwrap();
}

#[test]
fn a_listed_port_is_reachable_and_another_is_not() {
    assert_landlock();
    let (home, project) = dirs("ports");
    let allowed = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let (allowed_port, other_port) = (allowed.local_addr().unwrap().port(), other.local_addr().unwrap().port());
    let policy = SandboxPolicy { network: NetworkPolicy::Ports(vec![allowed_port]), ..SandboxPolicy::default() };
    let ok = run(python(), &["-c", &connect_script(allowed_port)], &home, &project, Some(&policy));
    assert!(ok.status.success(), "{ok:?}");
    let refused = run(python(), &["-c", &connect_script(other_port)], &home, &project, Some(&policy));
    assert!(!refused.status.success(), "{refused:?}");
}

#[test]
fn a_grandchild_after_setsid_is_still_confined() {
    assert_landlock();
    let (home, project) = dirs("setsid");
    // The grandchild leaves the session and process group, then writes.
    let attack = ["-c", "setsid -w sh -c 'echo pwned >> \"$HOME/.bashrc\"; echo $? > status'"];
    let confined = run("/bin/sh", &attack, &home, &project, Some(&SandboxPolicy::default()));
    assert_ne!(std::fs::read_to_string(project.join("status")).unwrap().trim(), "0", "{confined:?}");
    assert_eq!(std::fs::read_to_string(home.join(".bashrc")).unwrap(), "# original\n");

    // A double fork through Python, detached with setsid, after its parent has exited.
    let script = format!(
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(0.2)\n        \
         try:\n            open({:?}, 'a').write('pwned')\n            open('detached', 'w').write('wrote')\n        \
         except OSError as e:\n            open('detached', 'w').write('refused')\n    os._exit(0)\n",
        home.join(".bashrc").display().to_string()
    );
    let _ = run(python(), &["-c", &script], &home, &project, Some(&SandboxPolicy::default()));
    let verdict = wait_for(&project.join("detached"));
    assert_eq!(verdict, "refused");
    assert_eq!(std::fs::read_to_string(home.join(".bashrc")).unwrap(), "# original\n");

    let _ = std::fs::remove_file(project.join("detached"));
    let _ = run(python(), &["-c", &script], &home, &project, None);
    assert_eq!(wait_for(&project.join("detached")), "wrote");
}

fn wait_for(path: &Path) -> String {
    for _ in 0..500 {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn a_confined_process_cannot_signal_its_parent() {
    assert_landlock();
    let (home, project) = dirs("signal");
    // `kill -0` probes permission to signal without delivering one.
    let probe = format!("kill -0 {}", std::process::id());
    let confined = run("/bin/sh", &["-c", &probe], &home, &project, Some(&SandboxPolicy::default()));
    assert!(!confined.status.success(), "{confined:?}");
    let unconfined = run("/bin/sh", &["-c", &probe], &home, &project, None);
    assert!(unconfined.status.success(), "{unconfined:?}");
}

#[test]
fn exec_as_a_list_runs_only_what_it_names() {
    assert_landlock();
    let (home, project) = dirs("exec");
    let policy = SandboxPolicy { exec: PathSet::Only(vec![".".into()]), ..SandboxPolicy::default() };
    std::fs::write(project.join("tool.sh"), "#!/bin/sh\necho tool\n").unwrap();
    std::fs::set_permissions(project.join("tool.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = run("/bin/sh", &["-c", "./tool.sh"], &home, &project, Some(&policy));
    // The script's interpreter, `/bin/sh`, is the hook's own program: allowed.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "tool\n", "{out:?}");
    let out = run("/bin/sh", &["-c", "/usr/bin/id -u"], &home, &project, Some(&policy));
    assert!(!out.status.success(), "{out:?}");
    let out = run("/bin/sh", &["-c", "/usr/bin/id -u"], &home, &project, None);
    assert!(out.status.success());
}

#[test]
fn off_confines_nothing() {
    let (home, project) = dirs("off");
    let policy = SandboxPolicy::with_mode(SandboxMode::Off);
    let mut command = Command::new("/bin/sh");
    assert!(confine(&mut command, &policy, &Places::default(), "x").unwrap().is_none());
    let out = run("/bin/sh", &["-c", "echo x >> \"$HOME/.bashrc\""], &home, &project, None);
    assert!(out.status.success());
}
