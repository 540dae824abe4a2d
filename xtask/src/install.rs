//! `cargo xtask install [--root DIR] [--debug]`: builds `hookwire` the way it is shipped and puts
//! it in `ROOT/bin` (`--root`, else `$CARGO_INSTALL_ROOT`, else `$CARGO_HOME`, else `~/.cargo`,
//! where `cargo install` puts binaries).
//!
//! On GNU/Linux, when the C compiler has the static C library (`cc -print-file-name=libc.a`),
//! `hookwire` is linked statically: an agent starts `hookwire hook <agent>` on every event, and a
//! static binary skips the dynamic loader (mapping libc, libm and libgcc_s, resolving and
//! relocating their symbols), about 0.4 ms of every call on the machines measured
//! (docs/performance.md, "A statically linked hookwire"). The flags go to the `hookwire` binary
//! alone (`cargo rustc -- -C target-feature=+crt-static`): given to every crate (RUSTFLAGS),
//! they would refuse to build the procedural macros. Elsewhere, or without `libc.a`, it is an
//! ordinary `cargo build`.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

/// The release or debug profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    Release,
    Debug,
}

impl Profile {
    fn dir(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Debug => "debug",
        }
    }
}

/// How `hookwire` was linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Linking {
    Static,
    Dynamic,
}

impl std::fmt::Display for Linking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Linking::Static => "statically linked",
            Linking::Dynamic => "dynamically linked (no static C library here, or HOOKWIRE_LINK_STATIC=off)",
        })
    }
}

/// The rustc flags that link the `hookwire` binary statically (with the build script's
/// `-no-pie`: a position-dependent executable, no relocation left to apply at start).
const STATIC_FLAGS: [&str; 4] = ["-C", "target-feature=+crt-static", "-C", "relocation-model=static"];

/// Whether `hookwire` can be linked statically here: GNU/Linux, and the C compiler finds
/// `libc.a` (Debian's `libc6-dev` has it; Fedora needs `glibc-static`).
fn can_link_statically() -> bool {
    if !(cfg!(target_os = "linux") && cfg!(target_env = "gnu")) {
        return false;
    }
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let Ok(out) = Command::new(cc).arg("-print-file-name=libc.a").output() else { return false };
    // Without the file, the compiler prints the bare name back.
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    out.status.success() && path.is_absolute() && path.is_file()
}

/// Builds the `hookwire` binary in `profile`, statically linked where it can be; its path and
/// how it was linked. `HOOKWIRE_LINK_STATIC=off` builds it dynamically in any case.
pub(crate) fn build_hookwire(root: &Path, profile: Profile) -> Result<(PathBuf, Linking)> {
    let linking = if std::env::var("HOOKWIRE_LINK_STATIC").is_ok_and(|v| v == "off") || !can_link_statically() {
        Linking::Dynamic
    } else {
        Linking::Static
    };
    let mut args = vec!["rustc", "--locked", "-p", "hook-cli", "--bin", "hookwire"];
    if profile == Profile::Release {
        args.push("--release");
    }
    if linking == Linking::Static {
        args.push("--");
        args.extend(STATIC_FLAGS);
    }
    crate::cargo(root, &args)?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok((target.join(profile.dir()).join("hookwire"), linking))
}

/// Where `cargo install` would put binaries: `--root`, `$CARGO_INSTALL_ROOT`, `$CARGO_HOME`,
/// `~/.cargo`; then `bin/`.
fn install_dir(root: Option<&str>) -> Result<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = root
        .map(PathBuf::from)
        .or_else(|| var("CARGO_INSTALL_ROOT"))
        .or_else(|| var("CARGO_HOME"))
        .or_else(|| var("HOME").map(|home| home.join(".cargo")))
        .context("no --root, CARGO_INSTALL_ROOT, CARGO_HOME or HOME: say where with --root DIR")?;
    Ok(base.join("bin"))
}

pub(crate) fn install(root: &Path, options: &[&str]) -> Result<()> {
    let mut profile = Profile::Release;
    let mut into: Option<&str> = None;
    let mut options = options.iter();
    while let Some(option) = options.next() {
        match *option {
            "--debug" => profile = Profile::Debug,
            "--root" => into = Some(options.next().context("--root needs a directory")?),
            other => bail!("cargo xtask install: unknown option {other} (--root DIR, --debug)"),
        }
    }
    let dir = install_dir(into)?;
    let (binary, linking) = build_hookwire(root, profile)?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    // Copied beside its place and renamed over it: an agent running the old binary at this
    // moment keeps it, and no call ever starts a half-written one.
    let target = dir.join("hookwire");
    let partial = dir.join(format!(".hookwire.{}.partial", std::process::id()));
    std::fs::copy(&binary, &partial)
        .with_context(|| format!("copying {} to {}", binary.display(), partial.display()))?;
    if let Err(e) = std::fs::rename(&partial, &target) {
        let _ = std::fs::remove_file(&partial);
        return Err(e).with_context(|| format!("replacing {}", target.display()));
    }
    eprintln!("installed {} ({linking}, {})", target.display(), profile.dir());
    if !std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|p| p == dir)) {
        eprintln!("note: {} is not on PATH: add it to run `hookwire`", dir.display());
    }
    Ok(())
}
