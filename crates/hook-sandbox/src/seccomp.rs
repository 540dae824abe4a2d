//! The seccomp-BPF half of the network policy: which sockets a confined hook may create.
//!
//! Landlock filters TCP `connect` and `bind` by port and nothing else, so under `network: none`
//! a hook could still send UDP (DNS included), open raw or packet sockets, or connect to a Unix
//! socket bound to a path (a session bus, the Docker socket) and drive the service behind it.
//! A seccomp filter cannot see the address a socket talks to, but it sees the arguments of
//! `socket(2)` and `socketpair(2)`, so it refuses, with `EACCES`, to create any socket but:
//!
//! - `AF_INET`/`AF_INET6` `SOCK_STREAM` with protocol 0 or TCP (Landlock then checks the port;
//!   SCTP and MPTCP, which Landlock does not check, are refused);
//! - `AF_INET`/`AF_INET6` `SOCK_DGRAM` with protocol 0 or UDP, only when the port list holds 53
//!   (name resolution; seccomp cannot tell a DNS query from any other datagram);
//! - `AF_NETLINK` (the kernel; glibc's `getaddrinfo` asks it for the local addresses), except
//!   `NETLINK_USERSOCK`, the one family an unprivileged process can use to reach another
//!   process;
//! - `socketpair(AF_UNIX, SOCK_STREAM | SOCK_SEQPACKET)`: a connected pair between the hook's
//!   own processes, which cannot be pointed elsewhere (a datagram pair could `sendto` a path).
//!
//! Two TCP paths around Landlock's `connect`/`bind` checks are closed too: `sendto`,
//! `sendmsg` and `sendmmsg` with `MSG_FASTOPEN` (TCP Fast Open connects without `connect`),
//! and `listen` (on an unbound socket it binds an ephemeral port without `bind`).
//!
//! `io_uring_setup` fails with `EPERM` (an io_uring's `IORING_OP_SOCKET` creates sockets
//! without `socket(2)`; `EPERM` is what a kernel with io_uring disabled answers, so programs
//! fall back). A system call of another architecture (i386's `int 0x80`, with its
//! `socketcall`) or, on x86_64, of the x32 ABI (numbers with bit 30 set) kills the process:
//! no hook has a reason to make one, and each would otherwise bypass the numbers checked here.
//!
//! The program is compiled in the parent (it allocates); the child only makes the `seccomp`
//! system call, after Landlock has set `no_new_privs`.

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    use std::{collections::BTreeMap, sync::OnceLock};

    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
        TargetArch, sock_filter,
    };

    use super::FilterError;
    use crate::NetworkPolicy;

    #[cfg(target_arch = "x86_64")]
    const ARCH: TargetArch = TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    const ARCH: TargetArch = TargetArch::aarch64;

    /// A compiled filter, ready for the child to install.
    #[derive(Debug)]
    pub(crate) struct Filter(BpfProgram);

    /// Whether this kernel can install the filter (`Err`: why not), probed once.
    pub(crate) fn available() -> Result<(), &'static str> {
        static AVAILABLE: OnceLock<Result<(), &'static str>> = OnceLock::new();
        *AVAILABLE.get_or_init(|| {
            if std::env::var(super::SECCOMP_VAR).is_ok_and(|value| value.trim() == "off") {
                return Err("disabled by HOOKWIRE_SECCOMP=off");
            }
            // `SECCOMP_GET_ACTION_AVAIL` (Linux 4.14) answers without installing anything; both
            // actions the filter returns must be known.
            for action in [libc::SECCOMP_RET_ERRNO, libc::SECCOMP_RET_KILL_PROCESS] {
                let action: u32 = action;
                // SAFETY: the kernel reads one `u32` through the pointer, which is valid for
                // the duration of the call.
                #[allow(unsafe_code)]
                let rc = unsafe {
                    libc::syscall(libc::SYS_seccomp, libc::SECCOMP_GET_ACTION_AVAIL, 0, &action as *const u32)
                };
                if rc != 0 {
                    return Err("the kernel has no seccomp filters");
                }
            }
            Ok(())
        })
    }

    /// The socket rules of `network` (`None` for `any`: nothing to filter).
    pub(crate) fn build(network: &NetworkPolicy) -> Result<Option<Filter>, FilterError> {
        let dns = match network {
            NetworkPolicy::Any => return Ok(None),
            NetworkPolicy::None => false,
            NetworkPolicy::Ports(ports) => ports.contains(&53),
        };
        let arg = |index: u8, op: SeccompCmpOp, value: i32| {
            // Every argument compared is an `int`: the kernel reads its low 32 bits.
            SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value as u32 as u64)
        };
        let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions);
        let kind = |value: i32| arg(1, SeccompCmpOp::MaskedEq(SOCK_TYPE_MASK), value);

        // Each rule is one way of asking for a socket that is refused; every other socket
        // system call is allowed.
        let mut socket = vec![
            rule(vec![
                arg(0, SeccompCmpOp::Ne, libc::AF_INET)?,
                arg(0, SeccompCmpOp::Ne, libc::AF_INET6)?,
                arg(0, SeccompCmpOp::Ne, libc::AF_NETLINK)?,
            ])?,
            rule(vec![arg(0, SeccompCmpOp::Eq, libc::AF_NETLINK)?, arg(2, SeccompCmpOp::Eq, libc::NETLINK_USERSOCK)?])?,
        ];
        for family in [libc::AF_INET, libc::AF_INET6] {
            let mut allowed = vec![(libc::SOCK_STREAM, libc::IPPROTO_TCP)];
            if dns {
                allowed.push((libc::SOCK_DGRAM, libc::IPPROTO_UDP));
            }
            for kind_value in 0..=SOCK_TYPE_MASK as i32 {
                let family = arg(0, SeccompCmpOp::Eq, family)?;
                match allowed.iter().find(|(allowed_kind, _)| *allowed_kind == kind_value) {
                    None => socket.push(rule(vec![family, kind(kind_value)?])?),
                    // The type is allowed with protocol 0 (the default) or its own protocol.
                    Some((_, protocol)) => socket.push(rule(vec![
                        family,
                        kind(kind_value)?,
                        arg(2, SeccompCmpOp::Ne, 0)?,
                        arg(2, SeccompCmpOp::Ne, *protocol)?,
                    ])?),
                }
            }
        }
        let mut socketpair = vec![rule(vec![arg(0, SeccompCmpOp::Ne, libc::AF_UNIX)?])?];
        for kind_value in 0..=SOCK_TYPE_MASK as i32 {
            if kind_value != libc::SOCK_STREAM && kind_value != libc::SOCK_SEQPACKET {
                socketpair.push(rule(vec![kind(kind_value)?])?);
            }
        }
        // `MSG_FASTOPEN` connects a TCP socket from `sendto`/`sendmsg`, where Landlock does not
        // look (it checks `connect(2)`).
        let fastopen = |index: u8| -> Result<Vec<SeccompRule>, FilterError> {
            let flag = libc::MSG_FASTOPEN;
            Ok(vec![rule(vec![arg(index, SeccompCmpOp::MaskedEq(flag as u32 as u64), flag)?])?])
        };
        let rules: BTreeMap<i64, Vec<SeccompRule>> = [
            (libc::SYS_socket, socket),
            (libc::SYS_socketpair, socketpair),
            (libc::SYS_sendto, fastopen(3)?),
            (libc::SYS_sendmsg, fastopen(2)?),
            (libc::SYS_sendmmsg, fastopen(3)?),
            // `listen` on an unbound socket binds an ephemeral port without `bind(2)`. Every
            // `bind` a hook may make is refused by Landlock (a port list grants `connect`
            // only) and it has no Unix socket, so no `listen` is legitimate here.
            (libc::SYS_listen, vec![]),
        ]
        .into_iter()
        .collect();
        let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EACCES as u32), ARCH)?;
        let program: BpfProgram = filter.try_into().map_err(FilterError::Compile)?;
        Ok(Some(Filter(with_prologue(program)?)))
    }

    /// `type & SOCK_TYPE_MASK` is the socket type; the bits above are `SOCK_CLOEXEC` and
    /// `SOCK_NONBLOCK`.
    const SOCK_TYPE_MASK: u64 = 0xf;

    /// Offset of `nr` in `struct seccomp_data`.
    const DATA_NR: u32 = 0;
    /// `__X32_SYSCALL_BIT`: x32 system calls reach the x86_64 table with this bit set, under
    /// the same `AUDIT_ARCH_X86_64`, so the architecture check does not catch them.
    #[cfg(target_arch = "x86_64")]
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;

    /// `BPF_LD | BPF_W | BPF_ABS` (the first two are 0).
    const BPF_LD_W_ABS: u16 = 0x20;
    const BPF_JMP_JEQ_K: u16 = 0x05 | 0x10;
    #[cfg(target_arch = "x86_64")]
    const BPF_JMP_JGE_K: u16 = 0x05 | 0x30;
    const BPF_RET_K: u16 = 0x06;

    fn stmt(code: u16, k: u32) -> sock_filter {
        sock_filter { code, jt: 0, jf: 0, k }
    }

    fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
        sock_filter { code, jt, jf, k }
    }

    /// Inserts, after seccompiler's architecture check (three instructions that end in a kill),
    /// what its rule language cannot say: kill an x32 system call (a range of numbers), and
    /// answer `io_uring_setup` with `EPERM` (another action than the socket rules' `EACCES`).
    /// Jumps are relative and none crosses the insertion point, so the rest stays valid. Fails
    /// if the program does not start as expected (a new seccompiler), rather than guess.
    fn with_prologue(program: BpfProgram) -> Result<BpfProgram, FilterError> {
        let arch_check = program.get(..3);
        let expected = matches!(arch_check, Some([load, check, kill])
            if load.code == BPF_LD_W_ABS && load.k == 4
                && check.code == BPF_JMP_JEQ_K && check.jt == 1 && check.jf == 0
                && kill.code == BPF_RET_K && kill.k == libc::SECCOMP_RET_KILL_PROCESS);
        if !expected {
            return Err(FilterError::Layout);
        }
        let mut prologue = vec![stmt(BPF_LD_W_ABS, DATA_NR)];
        #[cfg(target_arch = "x86_64")]
        prologue.extend([jump(BPF_JMP_JGE_K, X32_SYSCALL_BIT, 0, 1), stmt(BPF_RET_K, libc::SECCOMP_RET_KILL_PROCESS)]);
        prologue.extend([
            jump(BPF_JMP_JEQ_K, libc::SYS_io_uring_setup as u32, 0, 1),
            stmt(BPF_RET_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        ]);
        let mut out = program;
        out.splice(3..3, prologue);
        Ok(out)
    }

    /// Installs `filter` in the calling process. Async-signal-safe: two system calls
    /// (`prctl(PR_SET_NO_NEW_PRIVS)`, already set, and `seccomp`), no allocation; an error is
    /// the errno.
    pub(crate) fn install(filter: &Filter) -> Result<(), i32> {
        seccompiler::apply_filter(&filter.0).map_err(|error| match error {
            seccompiler::Error::Prctl(source) | seccompiler::Error::Seccomp(source) => {
                source.raw_os_error().unwrap_or(libc::EPERM)
            }
            _ => libc::EINVAL,
        })
    }
}

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
mod imp {
    use super::FilterError;
    use crate::NetworkPolicy;

    /// No filter can be built on this platform.
    #[derive(Debug)]
    pub(crate) enum Filter {}

    pub(crate) fn available() -> Result<(), &'static str> {
        Err("seccomp filters are built for Linux on x86_64 and aarch64 only")
    }

    pub(crate) fn build(_: &NetworkPolicy) -> Result<Option<Filter>, FilterError> {
        Ok(None)
    }

    pub(crate) fn install(filter: &Filter) -> Result<(), i32> {
        match *filter {}
    }
}

pub(crate) use imp::{Filter, available, build, install};

/// Why the seccomp program could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// seccompiler refused the rules.
    #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
    #[error("seccompiler: {0}")]
    Compile(#[from] seccompiler::BackendError),
    /// The compiled program does not begin with the architecture check hookwire extends (a
    /// seccompiler that lays it out differently): refused rather than patched blindly.
    #[error("the compiled program does not begin with the expected architecture check")]
    Layout,
}

/// Set to `off` to behave as on a system without seccomp filters: for trying degradation out;
/// it can only weaken the sandbox, and `required` then refuses to start a network-restricted
/// hook.
pub const SECCOMP_VAR: &str = "HOOKWIRE_SECCOMP";
