//! Finding the REAL agents (`tests/agents/install.sh`) for the tests that run them: where they
//! are, and whether one can run here. A test whose agent is absent prints one skip line and
//! passes, except in CI with `HOOKWIRE_REQUIRE_AGENTS=1`, where it fails: there the agents are
//! installed on purpose, and a silent skip would hide that they no longer run.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

/// The agents directory: `HOOKWIRE_AGENTS_DIR`, else `<workspace>/target/agents` (where
/// `tests/agents/install.sh` puts them by default).
pub(crate) fn agents_dir() -> PathBuf {
    std::env::var_os("HOOKWIRE_AGENTS_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/agents"))
}

/// The entry point of `agent` (`claude`, `codex`, `gemini` or `copilot`, as `run_agent.py
/// --agent` names them), relative to [`agents_dir`]; Claude Code's is native, the others run
/// under `node`.
pub(crate) fn binary(agent: &str) -> &'static str {
    match agent {
        "claude" => "claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
        "codex" => "codex/node_modules/@openai/codex/bin/codex.js",
        "gemini" => "gemini/node_modules/@google/gemini-cli/bundle/gemini.js",
        "copilot" => "copilot/node_modules/@github/copilot/npm-loader.js",
        other => panic!("no real agent called {other:?}: claude, codex, gemini or copilot"),
    }
}

/// Whether `agent` (as [`binary`] names it) can run here: its entry point, `python3` (the
/// driver) and, but for Claude Code, `node`. When not: panics if `CI` is set and
/// `HOOKWIRE_REQUIRE_AGENTS=1`, else prints the skip line and returns false.
pub(crate) fn available(agent: &str) -> bool {
    let binary = agents_dir().join(binary(agent));
    let works = |program: &str| Command::new(program).arg("--version").output().is_ok_and(|out| out.status.success());
    let python = works("python3");
    let node = agent == "claude" || works("node");
    if binary.is_file() && python && node {
        return true;
    }
    let found = |yes: bool| if yes { "found" } else { "missing" };
    let required = std::env::var_os("CI").is_some() && std::env::var("HOOKWIRE_REQUIRE_AGENTS").as_deref() == Ok("1");
    assert!(
        !required,
        "real agents required (CI, HOOKWIRE_REQUIRE_AGENTS=1) but {agent} cannot run: binary {} {}, python3 {}, node {}",
        binary.display(),
        found(binary.is_file()),
        found(python),
        found(node),
    );
    #[allow(clippy::print_stderr)] // the skip line: a passing test says it did not run
    {
        eprintln!("skipped: real agents not installed (run tests/agents/install.sh)");
    }
    false
}
