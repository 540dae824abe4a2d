//! Links `hookwire` for a fast start on Linux.
//!
//! An agent starts `hookwire hook <agent>` once per event, so the binary's start-up is paid on
//! every tool call (docs/performance.md has the measurements).
//!
//! - `-no-pie`: as a position-independent executable (the default) the dynamic loader applies
//!   about 34,000 relative relocations at every start, one copy-on-write page fault per page of
//!   vtables and static tables it touches; linked with `-no-pie` the addresses are fixed at link
//!   time and none is left. The cost: the executable's own image is not address-randomized (its
//!   libraries, stack and heap still are). `cargo xtask install` (and `cargo xtask bench`) also
//!   link it statically (`-C target-feature=+crt-static -C relocation-model=static`, given to
//!   this binary alone): no dynamic loader runs at start, and glibc is then part of that image
//!   (xtask/src/install.rs; the measurements are in docs/performance.md).
//! - `--symbol-ordering-file=hookwire.order` (x86_64 GNU/Linux, when the compiler links with
//!   its own LLD): the functions a hook call runs, listed by `cargo xtask order`, placed
//!   together at the start of the code, so the kernel maps them in a few 64 KB windows instead
//!   of one for almost every function. A listed name the build no longer has is skipped
//!   silently. The option is LLD's: it is passed only when the toolchain has its LLD
//!   (`lib/rustlib/<target>/bin/gcc-ld/ld.lld` in the sysroot) and nothing chooses another
//!   linker (a `linker` of the target, `-C linker`, `-C link-arg`, `-C link-self-contained`,
//!   `-fuse-ld` in the flags); `HOOKWIRE_LINK_ORDER=off` leaves it out in any case.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=HOOKWIRE_LINK_ORDER");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" {
        return;
    }
    println!("cargo::rustc-link-arg-bin=hookwire=-no-pie");
    // Rust links x86_64 GNU/Linux with its own LLD unless told otherwise: a configured linker
    // (`RUSTC_LINKER`) or linker flags of the user's own may mean another linker, and a
    // toolchain built without its LLD (some distributions') has none.
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = std::env::var_os("RUSTC_LINKER").is_some()
        || ["linker", "link-arg", "link-self-contained", "fuse-ld"].iter().any(|f| flags.contains(f));
    let target = var("TARGET");
    if var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && !own_linker
        && var("HOOKWIRE_LINK_ORDER") != "off"
        && has_own_lld(&target)
        && let list = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join("hookwire.order")
        && list.is_file()
        && !list.to_string_lossy().contains(',')
    {
        println!("cargo::rerun-if-changed=hookwire.order");
        println!("cargo::rustc-link-arg-bin=hookwire=-Wl,--symbol-ordering-file={}", list.display());
        println!("cargo::rustc-link-arg-bin=hookwire=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether the compiler's sysroot holds its own LLD for `target`, which it links with.
fn has_own_lld(target: &str) -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(out) = std::process::Command::new(rustc).args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    out.status.success()
        && std::path::Path::new(&sysroot).join("lib/rustlib").join(target).join("bin/gcc-ld/ld.lld").is_file()
}
