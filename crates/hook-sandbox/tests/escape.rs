//! Escape attempts from a confined process, as a hook would make them: real `sh`, `python3`,
//! a real TCP listener on 127.0.0.1. Each attempt is also made unconfined, where it must
//! succeed, so a sandbox that confines nothing fails these tests.
//!
//! HOME is a scratch directory under the target directory (not under the system temp
//! directory, which confined hooks may write by default), so `~/.bashrc` is a scratch file.

use std::{
    net::{TcpListener, UdpSocket},
    os::unix::net::{UnixDatagram, UnixListener},
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

// UDP, Unix sockets and the ways around a socket filter (the seccomp half of `network`).

/// A UDP socket on 127.0.0.1 that waits briefly for a datagram.
fn udp_listener() -> (UdpSocket, u16) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let port = socket.local_addr().unwrap().port();
    (socket, port)
}

/// The datagram `socket` received, if any.
fn received(socket: &UdpSocket) -> Option<String> {
    let mut buf = [0u8; 64];
    socket.recv(&mut buf).ok().map(|n| String::from_utf8_lossy(&buf[..n]).into_owned())
}

/// Python sending `leak` over UDP to `port` on 127.0.0.1; prints `sent`, or the error.
fn udp_script(port: u16) -> String {
    format!(
        "import socket\ntry:\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n    \
         s.sendto(b'leak', ('127.0.0.1', {port}))\n    print('sent')\nexcept OSError as e:\n    \
         print('refused', e.errno)\n    raise SystemExit(1)\n"
    )
}

fn network(network: NetworkPolicy) -> SandboxPolicy {
    SandboxPolicy { network, ..SandboxPolicy::default() }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn network_none_refuses_udp_and_any_or_unconfined_sends_it() {
    assert_landlock();
    let (home, project) = dirs("udp");
    let (socket, port) = udp_listener();
    let script = udp_script(port);

    let confined = run(python(), &["-c", &script], &home, &project, Some(&SandboxPolicy::default()));
    assert!(!confined.status.success(), "{confined:?}");
    assert_eq!(stdout(&confined).trim(), "refused 13", "EACCES from socket(): {confined:?}");
    assert_eq!(received(&socket), None, "no datagram left the sandbox");

    // bash's own /dev/udp, and a Python started by bash (a forked child inherits the filter).
    let bash = format!("echo leak > /dev/udp/127.0.0.1/{port}");
    let confined = run("/bin/bash", &["-c", &bash], &home, &project, Some(&SandboxPolicy::default()));
    assert!(!confined.status.success(), "{confined:?}");
    let nested = format!("{} -c \"$0\"", python());
    let confined = run("/bin/bash", &["-c", &nested, &script], &home, &project, Some(&SandboxPolicy::default()));
    assert_eq!(stdout(&confined).trim(), "refused 13", "{confined:?}");
    assert_eq!(received(&socket), None);

    // The same sends succeed with `network: any` (no filter) and unconfined.
    let open = run(python(), &["-c", &script], &home, &project, Some(&network(NetworkPolicy::Any)));
    assert_eq!(stdout(&open).trim(), "sent", "{open:?}");
    assert_eq!(received(&socket).as_deref(), Some("leak"));
    let unconfined = run("/bin/bash", &["-c", &bash], &home, &project, None);
    assert!(unconfined.status.success(), "{unconfined:?}");
    assert_eq!(received(&socket).as_deref(), Some("leak\n"));
}

#[test]
fn udp_needs_port_53_in_the_list() {
    assert_landlock();
    let (home, project) = dirs("udp-ports");
    let (socket, port) = udp_listener();
    let script = udp_script(port);
    let https = run(python(), &["-c", &script], &home, &project, Some(&network(NetworkPolicy::Ports(vec![443]))));
    assert_eq!(stdout(&https).trim(), "refused 13", "{https:?}");
    assert_eq!(received(&socket), None);
    // 53 allows UDP, to any port: seccomp cannot see the address.
    let dns = run(python(), &["-c", &script], &home, &project, Some(&network(NetworkPolicy::Ports(vec![443, 53]))));
    assert_eq!(stdout(&dns).trim(), "sent", "{dns:?}");
    assert_eq!(received(&socket).as_deref(), Some("leak"));
    // A datagram socket of another protocol (ICMP "ping" sockets) stays refused.
    let ping = "import socket\ntry:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)\n    \
                print('created')\nexcept OSError as e:\n    print('refused', e.errno)\n";
    let dns = run(python(), &["-c", ping], &home, &project, Some(&network(NetworkPolicy::Ports(vec![53]))));
    assert_eq!(stdout(&dns).trim(), "refused 13", "{dns:?}");
}

/// Python connecting a Unix stream socket to `path`; prints `connected` or `refused <errno>`.
fn unix_script(path: &Path) -> String {
    format!(
        "import socket\ntry:\n    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n    s.connect({:?})\n    \
         s.sendall(b'hello')\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n",
        path.display().to_string()
    )
}

#[test]
fn network_none_refuses_a_unix_socket_bound_to_a_path() {
    assert_landlock();
    let (home, project) = dirs("unix");
    // Where a session bus or a Docker socket would be: a path the hook can read.
    let path = home.join("bus.sock");
    let listener = UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = unix_script(&path);

    for policy in [SandboxPolicy::default(), network(NetworkPolicy::Ports(vec![443, 53]))] {
        let confined = run(python(), &["-c", &script], &home, &project, Some(&policy));
        assert_eq!(stdout(&confined).trim(), "refused 13", "{policy:?}: {confined:?}");
    }
    // From a grandchild that left the session first.
    let setsid = format!("setsid -w {} -c \"$0\"", python());
    let confined = run("/bin/sh", &["-c", &setsid, &script], &home, &project, Some(&SandboxPolicy::default()));
    assert_eq!(stdout(&confined).trim(), "refused 13", "{confined:?}");
    assert!(listener.accept().is_err(), "nothing reached the listener");

    // A datagram pair cannot be pointed at a path either (`sendto` with an address).
    let dgram_path = home.join("journal.sock");
    let journal = UnixDatagram::bind(&dgram_path).unwrap();
    journal.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let pair = format!(
        "import socket\ntry:\n    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n    \
         a.sendto(b'hello', {:?})\n    print('sent')\nexcept OSError as e:\n    print('refused', e.errno)\n",
        dgram_path.display().to_string()
    );
    let confined = run(python(), &["-c", &pair], &home, &project, Some(&SandboxPolicy::default()));
    assert_eq!(stdout(&confined).trim(), "refused 13", "{confined:?}");
    let mut buf = [0u8; 16];
    assert!(journal.recv(&mut buf).is_err(), "no datagram reached the path");

    // Unconfined (and with `network: any`), both work.
    let open = run(python(), &["-c", &script], &home, &project, Some(&network(NetworkPolicy::Any)));
    assert_eq!(stdout(&open).trim(), "connected", "{open:?}");
    listener.set_nonblocking(false).unwrap();
    let _ = listener.accept().unwrap();
    let unconfined = run(python(), &["-c", &pair], &home, &project, None);
    assert_eq!(stdout(&unconfined).trim(), "sent", "{unconfined:?}");
    assert_eq!(journal.recv(&mut buf).unwrap(), 5);
}

#[test]
fn socketpairs_and_multiprocessing_still_work_under_network_none() {
    assert_landlock();
    let (home, project) = dirs("socketpair");
    let script = "import socket, multiprocessing as mp\n\
                  a, b = socket.socketpair()\na.sendall(b'ping')\nassert b.recv(4) == b'ping'\n\
                  def child(conn):\n    conn.send('pong')\n\
                  if __name__ == '__main__':\n    parent, other = mp.Pipe()\n    \
                  p = mp.Process(target=child, args=(other,))\n    p.start()\n    print(parent.recv())\n    p.join()\n";
    std::fs::write(project.join("pair.py"), script).unwrap();
    let confined = run(python(), &["pair.py"], &home, &project, Some(&SandboxPolicy::default()));
    assert!(confined.status.success(), "{confined:?}");
    assert_eq!(stdout(&confined).trim(), "pong");
}

/// Python creating `socket(family, type, proto)`; prints `created` or `refused <errno>`.
fn socket_script(family: &str, kind: &str, proto: &str) -> String {
    format!(
        "import socket\ntry:\n    socket.socket({family}, {kind}, {proto})\n    print('created')\n\
         except OSError as e:\n    print('refused', e.errno)\n"
    )
}

#[test]
fn raw_packet_sctp_and_vsock_sockets_are_refused_and_tcp_and_netlink_are_not() {
    assert_landlock();
    let (home, project) = dirs("families");
    let policy = SandboxPolicy::default();
    // Refused by the filter with EACCES (13); without it, root gets a raw or packet socket and
    // anyone else EPERM, SCTP without its module EPROTONOSUPPORT: never 13.
    for (family, kind, proto) in [
        ("socket.AF_INET", "socket.SOCK_RAW", "socket.IPPROTO_UDP"),
        ("socket.AF_INET6", "socket.SOCK_DGRAM", "0"),
        ("socket.AF_PACKET", "socket.SOCK_RAW", "0"),
        ("socket.AF_INET", "socket.SOCK_STREAM", "132"), // SCTP: Landlock checks TCP only
        ("socket.AF_INET", "socket.SOCK_STREAM", "262"), // MPTCP
        ("socket.AF_INET", "socket.SOCK_STREAM | socket.SOCK_CLOEXEC", "socket.IPPROTO_SCTP"),
        ("socket.AF_INET", "socket.SOCK_DGRAM | socket.SOCK_NONBLOCK", "0"),
        ("40", "socket.SOCK_STREAM", "0"),             // AF_VSOCK
        ("socket.AF_NETLINK", "socket.SOCK_RAW", "2"), // NETLINK_USERSOCK reaches processes
    ] {
        let out = run(python(), &["-c", &socket_script(family, kind, proto)], &home, &project, Some(&policy));
        assert_eq!(stdout(&out).trim(), "refused 13", "socket({family}, {kind}, {proto}): {out:?}");
        let unconfined = run(python(), &["-c", &socket_script(family, kind, proto)], &home, &project, None);
        assert_ne!(stdout(&unconfined).trim(), "refused 13", "socket({family}, {kind}, {proto}): {unconfined:?}");
    }
    for (family, kind, proto) in [
        ("socket.AF_INET", "socket.SOCK_STREAM", "0"),
        ("socket.AF_INET6", "socket.SOCK_STREAM | socket.SOCK_CLOEXEC", "socket.IPPROTO_TCP"),
        ("socket.AF_NETLINK", "socket.SOCK_RAW", "0"), // NETLINK_ROUTE: getaddrinfo's
    ] {
        let out = run(python(), &["-c", &socket_script(family, kind, proto)], &home, &project, Some(&policy));
        assert_eq!(stdout(&out).trim(), "created", "socket({family}, {kind}, {proto}): {out:?}");
    }
}

#[test]
fn io_uring_is_refused_so_it_cannot_create_sockets() {
    assert_landlock();
    let (home, project) = dirs("io-uring");
    // io_uring_setup(4, &params): EPERM confined; a ring unconfined (this kernel allows it).
    let script = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nparams = (ctypes.c_char * 120)()\n\
                  fd = libc.syscall(425, 4, params)\nprint('ring' if fd >= 0 else 'errno %d' % ctypes.get_errno())\n";
    let confined = run(python(), &["-c", script], &home, &project, Some(&SandboxPolicy::default()));
    assert_eq!(stdout(&confined).trim(), "errno 1", "{confined:?}");
    let enabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").is_ok_and(|v| v.trim() == "0");
    if enabled {
        let unconfined = run(python(), &["-c", script], &home, &project, None);
        assert_eq!(stdout(&unconfined).trim(), "ring", "{unconfined:?}");
    }
}

/// Python running x86-64 machine code `code` (which returns in rax) and printing the result.
#[cfg(target_arch = "x86_64")]
fn machine_code_script(code: &[u8]) -> String {
    format!(
        "import ctypes, mmap\nm = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n\
         m.write(bytes({code:?}))\nf = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(m)))\n\
         print('returned', f())\n"
    )
}

#[cfg(target_arch = "x86_64")]
#[test]
fn i386_and_x32_system_calls_kill_the_process() {
    use std::os::unix::process::ExitStatusExt;
    assert_landlock();
    let (home, project) = dirs("arch");
    let (socket, port) = udp_listener();
    // i386 `socket(AF_INET, SOCK_DGRAM, 0)` through `int 0x80` (number 359), then, if it worked,
    // the fd is handed back; the same through x32 `syscall` (0x40000000 | 41).
    let i386: Vec<u8> = [
        &[0xb8][..],
        &359u32.to_le_bytes(),
        &[0xbb, 2, 0, 0, 0, 0xb9, 2, 0, 0, 0, 0x31, 0xd2, 0xcd, 0x80, 0x48, 0x63, 0xc0, 0xc3],
    ]
    .concat();
    let x32: Vec<u8> = [
        &[0xb8][..],
        &(0x4000_0000u32 | 41).to_le_bytes(),
        &[0xbf, 2, 0, 0, 0, 0xbe, 2, 0, 0, 0, 0x31, 0xd2, 0x0f, 0x05, 0xc3],
    ]
    .concat();
    let send = format!(
        "import socket\nfd = int(out.split()[1])\nif fd >= 0:\n    \
         socket.socket(fileno=fd).sendto(b'leak', ('127.0.0.1', {port}))\n    print('sent')\n"
    );
    for (name, code) in [("i386", &i386), ("x32", &x32)] {
        let script = machine_code_script(code)
            .replace("print('returned', f())\n", "out = 'returned %d' % f()\nprint(out)\n")
            + &send;
        let confined = run(python(), &["-c", &script], &home, &project, Some(&SandboxPolicy::default()));
        assert_eq!(confined.status.signal(), Some(31), "{name}: killed by SIGSYS: {confined:?}");
        assert_eq!(received(&socket), None, "{name}");
        // Unconfined the call returns (a socket, or ENOSYS where the kernel lacks the ABI).
        let unconfined = run(python(), &["-c", &script], &home, &project, None);
        assert!(unconfined.status.success(), "{name}: {unconfined:?}");
        if stdout(&unconfined).contains("sent") {
            assert_eq!(received(&socket).as_deref(), Some("leak"), "{name}");
        }
    }
}

#[test]
fn tcp_fast_open_does_not_connect_around_landlock() {
    assert_landlock();
    let (home, project) = dirs("fastopen");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // `sendto(MSG_FASTOPEN)` connects and sends without `connect(2)`, which is all Landlock
    // checks: without the filter, this reaches a listener under `network: none`.
    let script = format!(
        "import socket\ns = socket.socket()\ntry:\n    s.sendto(b'leak', socket.MSG_FASTOPEN, ('127.0.0.1', {port}))\n    \
         print('sent')\nexcept OSError as e:\n    print('refused', e.errno)\n"
    );
    for policy in [SandboxPolicy::default(), network(NetworkPolicy::Ports(vec![port.wrapping_add(1).max(1)]))] {
        let confined = run(python(), &["-c", &script], &home, &project, Some(&policy));
        assert_eq!(stdout(&confined).trim(), "refused 13", "{policy:?}: {confined:?}");
    }
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "no connection reached the listener");
    let open = run(python(), &["-c", &script], &home, &project, Some(&network(NetworkPolicy::Any)));
    assert_eq!(stdout(&open).trim(), "sent", "{open:?}");
    listener.set_nonblocking(false).unwrap();
    let _ = listener.accept().unwrap();
}

#[test]
fn listen_without_bind_does_not_open_a_port() {
    assert_landlock();
    let (home, project) = dirs("listen");
    // `listen` on an unbound socket binds an ephemeral port without `bind(2)`, which is all
    // Landlock checks: a hook could serve on it.
    let script = "import socket\ns = socket.socket()\ntry:\n    s.listen()\n    print('listening')\n\
                  except OSError as e:\n    print('refused', e.errno)\n";
    let confined = run(python(), &["-c", script], &home, &project, Some(&SandboxPolicy::default()));
    assert_eq!(stdout(&confined).trim(), "refused 13", "{confined:?}");
    let open = run(python(), &["-c", script], &home, &project, Some(&network(NetworkPolicy::Any)));
    assert_eq!(stdout(&open).trim(), "listening", "{open:?}");
}
