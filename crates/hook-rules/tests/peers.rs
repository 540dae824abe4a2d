//! A peer's public regression corpus (destructive_command_guard's, `peers/dcg.yaml`, MIT) run
//! through `packs: [recommended]` as every agent sends it: at least 95 % agreement both ways,
//! and the exact numbers pinned so that a change of either shows up. Every disagreement is
//! printed: where hookwire's policy differs from dcg's (a delete under `/tmp` or of a build
//! directory passes; the cloud and container packs are on in `recommended`) and the heredocs
//! the shell parser does not read as data yet (`parser: pending`).

mod common;

use common::{load, recommended, run};

#[test]
#[allow(clippy::print_stdout, reason = "the tally and the misses are the report a person reads")]
fn the_dcg_corpus_agrees_at_least_95_percent_both_ways() {
    let corpus = load(include_str!("peers/dcg.yaml"), "peers/dcg.yaml");
    let tally = run(&recommended(), &corpus);
    let pending = corpus.cases.iter().filter(|c| c.parser.is_some()).count();
    println!(
        "dcg: {}/{} must-block blocked, {}/{} must-allow passed ({} heredoc cases wait for the parser, {} of them miss)\ndisagreements with dcg:\n{}\nwaiting for the parser:\n{}",
        tally.block.1,
        tally.block.0,
        tally.pass.1,
        tally.pass.0,
        pending,
        tally.pending.1.len(),
        tally.misses.join("\n"),
        tally.pending.1.join("\n")
    );
    assert!(tally.disagreements.is_empty(), "agents disagree:\n{}", tally.disagreements.join("\n"));
    // The rates without the cases that wait for the parser.
    let (block_total, block_agree) = tally.block;
    let pass_total = tally.pass.0 - pending;
    let pass_agree = tally.pass.1 - (pending - tally.pending.1.len());
    assert!(block_agree * 100 >= block_total * 95, "must-block below 95 %:\n{}", tally.misses.join("\n"));
    assert!(pass_agree * 100 >= pass_total * 95, "must-allow below 95 %:\n{}", tally.misses.join("\n"));
    assert_eq!(
        (tally.block, tally.pass, tally.misses.len()),
        // 98 until 2026-11-27: `echo yes | rm -rf && echo done`, which dcg blocks, was asked as
        // a delete whose targets come from its input; `rm` reads no targets from its input (and
        // `echo` now feeds it known text), so it deletes nothing and passes.
        ((101, 97), (249, 246), 7),
        "the agreement with dcg changed:\n{}",
        tally.misses.join("\n")
    );
}
