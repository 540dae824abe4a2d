//! Commands the hand-written shell reader got wrong and the bash grammar (hook-shell on
//! `brush-parser`) reads right, through `packs: [recommended]` as the corpus runs them.

mod common;

use hook_protocol::rules::RuleDecision;
use hook_rules::RuleSet;

fn blocked(rules: &RuleSet, command: &str) -> bool {
    common::shell_decision(rules, command).is_some_and(|d| d >= RuleDecision::Ask)
}

#[test]
fn what_the_grammar_reads_right_is_decided_right() {
    let rules = common::recommended();
    let block = [
        // Commands in a parameter's default, in arithmetic, and an ANSI-C quoted program.
        "echo ${X:-$(rm -rf ~)}",
        "echo $(( $(rm -rf ~) + 1 ))",
        "$'\\x72m' -rf ~",
        // A here-document or here-string fed to a shell is its script.
        "bash <<'EOF'\nrm -rf ~\nEOF",
        "bash <<< 'rm -rf ~'",
        // Two subshells, not an arithmetic command.
        "( ( rm -rf ~ ) )",
    ];
    let pass = [
        // A quoted here-document is data: a commit message that mentions a command.
        "git commit -m \"$(cat <<'EOF'\nrm -rf ~ is gone\nEOF\n)\"",
        "cat > notes.md <<'EOF'\nnever run rm -rf / here\nEOF",
    ];
    let mut wrong = Vec::new();
    wrong.extend(block.iter().filter(|c| !blocked(&rules, c)).map(|c| format!("not blocked: {c:?}")));
    wrong.extend(pass.iter().filter(|c| blocked(&rules, c)).map(|c| format!("blocked: {c:?}")));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
