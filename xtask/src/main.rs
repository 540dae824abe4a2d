//! Project tasks: `cargo xtask schema [--check]` writes (or checks) `schemas/*.schema.json`;
//! `cargo xtask bench [--quick] [--only GROUP,...]` builds in release and runs the side-by-side
//! comparison harness (all of it, or only the named groups of rows); `cargo xtask order [--check]`
//! lists the functions a bridge call runs, for the linker to place together (see `order.rs`);
//! `cargo xtask install [--root DIR] [--debug]` builds `hookwire` as it is shipped (statically
//! linked on GNU/Linux) and installs it (see `install.rs`).

// Reporting to the terminal is what this binary is for.
#![allow(clippy::print_stderr)]

use std::{
    fs,
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context, Result, bail};

mod install;
mod order;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["schema"] => schema(Mode::Write),
        ["schema", "--check"] => schema(Mode::Check),
        ["bench", options @ ..] => bench(options),
        ["order"] => order::order(&workspace_root(), false),
        ["order", "--check"] => order::order(&workspace_root(), true),
        ["install", options @ ..] => install::install(&workspace_root(), options),
        _ => {
            eprintln!(
                "usage: cargo xtask schema [--check] | cargo xtask bench [--quick] [--only GROUP,...] | \
                 cargo xtask order [--check] | cargo xtask install [--root DIR] [--debug]"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Write,
    Check,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace root").to_path_buf()
}

fn schemas_dir() -> PathBuf {
    workspace_root().join("schemas")
}

/// The files `cargo xtask schema` writes: name and pretty JSON with a trailing newline.
fn rendered() -> Result<Vec<(String, String)>> {
    hook_protocol::schemas()
        .into_iter()
        .map(|(name, schema)| Ok((format!("{name}.schema.json"), serde_json::to_string_pretty(&schema)? + "\n")))
        .collect()
}

fn schema(mode: Mode) -> Result<()> {
    let dir = schemas_dir();
    let files = rendered()?;
    let mut stale = Vec::new();
    for (name, text) in &files {
        let path = dir.join(name);
        let current = fs::read_to_string(&path).ok();
        if current.as_deref() == Some(text.as_str()) {
            continue;
        }
        match mode {
            Mode::Check => stale.push(name.clone()),
            Mode::Write => {
                fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
                fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
            }
        }
    }
    let known: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    for entry in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".schema.json") && !known.contains(&name.as_str()) {
            match mode {
                Mode::Check => stale.push(format!("{name} (no longer generated)")),
                Mode::Write => fs::remove_file(dir.join(&name))?,
            }
        }
    }
    if !stale.is_empty() {
        bail!("schemas are stale: {}; run `cargo xtask schema` and commit the result", stale.join(", "));
    }
    Ok(())
}

/// Builds the `echo_hook` example and the `hookwire` binary in release, the binary as `cargo
/// xtask install` builds it (the harness talks to the one and runs the other as `hookwire hook
/// claude`), then runs the `compare` harness in release: hookwire side by side with bare
/// baselines (see docs/performance.md). `options` (`--quick`, `--only GROUP,...`) go to the
/// harness, which checks them.
fn bench(options: &[&str]) -> Result<()> {
    let root = workspace_root();
    cargo(&root, &["build", "--release", "-p", "hook-process", "--example", "echo_hook"])?;
    let (_, linking) = install::build_hookwire(&root, install::Profile::Release)?;
    eprintln!("hookwire: {linking}, as `cargo xtask install` builds it");
    let mut args = vec!["run", "--release", "-p", "hookwire-tests", "--bin", "compare", "--"];
    args.extend_from_slice(options);
    cargo(&root, &args)
}

/// Runs `cargo ARGS` (the cargo running this task) in `root`; an error when it fails.
fn cargo(root: &Path, args: &[&str]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("running cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("`cargo {}` failed ({status})", args.join(" "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_fresh() {
        if let Err(e) = schema(Mode::Check) {
            panic!("{e:#}");
        }
    }

    #[test]
    fn schemas_are_draft_2020_12() {
        for (name, text) in rendered().unwrap() {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value["$schema"], "https://json-schema.org/draft/2020-12/schema", "{name}");
        }
    }
}
