//! Runs every case of `corpus.yaml` through `packs: [recommended]`, as Claude Code, Gemini CLI
//! and Codex each send it, and lists every failure: a miss, or agents decided differently.

mod common;

use common::{Expect, load, recommended, run};

#[test]
#[allow(clippy::print_stdout, reason = "the tally and the misses are the report a person reads")]
fn the_corpus_is_decided_as_expected_by_every_agent() {
    let corpus = load(include_str!("corpus.yaml"), "corpus.yaml");
    assert!(corpus.cases.len() >= 800, "the corpus holds {} cases", corpus.cases.len());
    let tally = run(&recommended(), &corpus);
    println!(
        "corpus: {}/{} must-block blocked, {}/{} safe passed; {} cases wait for the shell parser ({} of them miss):\n{}",
        tally.block.1,
        tally.block.0,
        tally.pass.1,
        tally.pass.0,
        tally.pending.0,
        tally.pending.1.len(),
        tally.pending.1.join("\n")
    );
    assert!(
        tally.misses.is_empty() && tally.disagreements.is_empty(),
        "{} of {} cases failed:\n{}\nagents disagree on {}:\n{}",
        tally.misses.len(),
        corpus.cases.len(),
        tally.misses.join("\n"),
        tally.disagreements.len(),
        tally.disagreements.join("\n")
    );
    // The pending cases are the parser's; they must still be real cases of both kinds.
    assert!(
        corpus.cases.iter().filter(|c| c.parser.is_some()).all(|c| matches!(c.expect, Expect::Block | Expect::Pass))
    );
}

/// The benchmark's scripts are calls the guard lets through (the rows time every rule tried
/// on every command): a false block there would also stop the benchmark.
#[test]
fn the_benchmark_scripts_pass() {
    let rules = recommended();
    let script = include_str!("../benches/fixtures/release.sh");
    assert_eq!(common::shell_decision(&rules, script), None, "the 10 KB release script");
    let typical = "git status --short && cargo test -p hook-rules --quiet 2>&1 | tail -n 5 && ls -l";
    assert_eq!(common::shell_decision(&rules, typical), None, "the 80-char command");
}
