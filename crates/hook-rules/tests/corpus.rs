//! Runs every case of `corpus.yaml` through `packs: [recommended]` and lists every failure.

use std::path::{Path, PathBuf};

use hook_protocol::{
    Event,
    rules::{PackName, RulesFile},
};
use hook_rules::{Call, RuleSet};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    content: Option<String>,
    expect: Expect,
}

#[derive(Debug, Deserialize, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Block,
    Pass,
}

#[test]
fn the_corpus_is_decided_as_expected() {
    let corpus: Corpus = serde_saphyr::from_str(include_str!("corpus.yaml")).expect("corpus.yaml parses");
    assert!(corpus.cases.len() >= 300, "the corpus holds {} cases", corpus.cases.len());
    let rules = RuleSet::compile(&RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() })
        .expect("recommended compiles");
    let (cwd, home) = (Path::new("/home/u/proj"), Path::new("/home/u"));
    let mut failures = Vec::new();
    for case in &corpus.cases {
        let tool = case.tool.as_deref().unwrap_or(if case.command.is_some() { "Bash" } else { "Read" });
        let call = Call {
            event: Event::PreToolExecution,
            tool: Some(tool),
            command: case.command.as_deref(),
            paths: case.path.iter().map(PathBuf::from).collect(),
            content: case.content.clone(),
            url: None,
            cwd,
            home: Some(home),
        };
        let verdict = rules.evaluate(&call);
        let blocked = verdict.decision.is_some_and(|d| d >= hook_protocol::rules::RuleDecision::Ask);
        let got = if blocked { Expect::Block } else { Expect::Pass };
        if got != case.expect {
            failures.push(format!(
                "{:?} {tool} {} {}: expected {:?}, got {:?} by {:?} (commands {:?})",
                case.expect,
                case.command.as_deref().unwrap_or_default(),
                case.path.as_deref().unwrap_or_default(),
                case.expect,
                verdict.decision,
                verdict.decided_by.as_ref().map(|h| &h.rule),
                verdict.commands
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), corpus.cases.len(), failures.join("\n"));
}
