//! The `when` matcher through a rules file: it narrows a rule with its other matchers, a
//! mistake in it refuses the file naming the rule and the expression, and an expression that
//! fails on a call follows the rule's `undetermined` policy instead of letting the call through.

use hook_protocol::{
    Context, Event,
    rules::{RuleDecision, RulesFile},
    serde_json::json,
};
use hook_rules::{RuleSet, RulesHook};

fn rules(yaml: &str) -> RulesHook {
    let file: RulesFile = serde_saphyr::from_str(yaml).expect("the file parses");
    RulesHook::new("test", RuleSet::compile(&file).expect("the rules compile"))
}

fn decide(hook: &RulesHook, tool: &str, input: serde_json::Value) -> (Option<RuleDecision>, String) {
    let context = Context {
        tool_name: Some(tool.to_owned()),
        tool_arguments: Some(input.to_string()),
        cwd: Some("/home/u/proj".into()),
        ..Context::default()
    };
    let verdict = hook.verdict(Event::PreToolExecution, &context);
    (verdict.decision, verdict.decided_by.map(|h| h.reason).unwrap_or_default())
}

const BIG_WRITES: &str = "\
rules:
  - name: big-write
    tools: [write]
    when: size(input.content) > 1000000
    reason: too big
";

#[test]
fn when_narrows_a_rule_to_the_calls_it_is_true_of() {
    let hook = rules(BIG_WRITES);
    let big = json!({"file_path": "/home/u/proj/a.bin", "content": "x".repeat(1_000_001)});
    let small = json!({"file_path": "/home/u/proj/a.txt", "content": "hello"});
    assert_eq!(decide(&hook, "Write", big.clone()).0, Some(RuleDecision::Deny));
    assert_eq!(decide(&hook, "write_file", big).0, Some(RuleDecision::Deny), "Gemini CLI's name, same class");
    assert_eq!(decide(&hook, "Write", small).0, None);
    // The rule's tools still apply: a Bash call is not a write, whatever `when` would say.
    assert_eq!(decide(&hook, "Bash", json!({"command": "ls"})).0, None);
}

#[test]
fn when_and_command_must_both_match() {
    let hook = rules(
        "rules:\n  - name: push-from-main\n    command: git push\n    when: cwd.endsWith('/proj') && command.contains('origin')\n",
    );
    assert_eq!(decide(&hook, "Bash", json!({"command": "git push origin"})).0, Some(RuleDecision::Deny));
    assert_eq!(decide(&hook, "Bash", json!({"command": "git push upstream"})).0, None);
    assert_eq!(decide(&hook, "Bash", json!({"command": "echo origin"})).0, None);
}

#[test]
fn mcp_tools_by_name_and_fetches_off_an_allowlist() {
    let hook = rules(
        "\
rules:
  - name: github-writes
    tools: [mcp]
    when: tool.matches('^mcp__github__(create|delete|merge)_')
    decision: ask
  - name: fetch-allowlist
    tools: [fetch]
    when: >-
      has(input.url) &&
      !input.url.matches('^https://(docs\\\\.rs|crates\\\\.io)(/|$)')
",
    );
    assert_eq!(decide(&hook, "mcp__github__delete_branch", json!({"branch": "x"})).0, Some(RuleDecision::Ask));
    assert_eq!(decide(&hook, "mcp__github__get_issue", json!({"n": 1})).0, None);
    assert_eq!(
        decide(&hook, "WebFetch", json!({"url": "https://evil.example/x", "prompt": "p"})).0,
        Some(RuleDecision::Deny)
    );
    assert_eq!(decide(&hook, "WebFetch", json!({"url": "https://docs.rs/cel", "prompt": "p"})).0, None);
    assert_eq!(
        decide(&hook, "WebFetch", json!({"url": "https://docs.rs.evil.example/", "prompt": "p"})).0,
        Some(RuleDecision::Deny)
    );
}

#[test]
fn an_expression_that_fails_on_a_call_follows_undetermined() {
    // `input.content` is missing on this Write: an error, not "false".
    let call = json!({"file_path": "/home/u/proj/a.txt"});
    let ask = rules("rules:\n  - name: r\n    tools: [write]\n    when: size(input.content) > 10\n");
    let (decision, reason) = decide(&ask, "Write", call.clone());
    assert_eq!(decision, Some(RuleDecision::Ask), "the default policy asks");
    assert!(
        reason.contains("`when` of the guard rule `r` could not be evaluated") && reason.contains("content"),
        "{reason}"
    );
    let deny =
        rules("undetermined: deny\nrules:\n  - name: r\n    tools: [write]\n    when: size(input.content) > 10\n");
    assert_eq!(decide(&deny, "Write", call.clone()).0, Some(RuleDecision::Deny));
    let allow =
        rules("rules:\n  - name: r\n    tools: [write]\n    when: size(input.content) > 10\n    undetermined: allow\n");
    assert_eq!(decide(&allow, "Write", call.clone()).0, None);
    // A type mismatch too.
    let mismatch = rules("rules:\n  - name: r\n    when: input.file_path > 3\n");
    assert_eq!(decide(&mismatch, "Write", call.clone()).0, Some(RuleDecision::Ask));
    // An exception whose `when` fails does not apply: the denial stands.
    let exception = rules(
        "rules:\n  - name: no-writes\n    tools: [write]\n    path: '**'\nallow:\n  - name: small\n    tools: [write]\n    path: '**'\n    when: size(input.content) < 10\n    undetermined: allow\n",
    );
    assert_eq!(decide(&exception, "Write", call).0, Some(RuleDecision::Deny));
    assert_eq!(decide(&exception, "Write", json!({"file_path": "/home/u/proj/a", "content": "hi"})).0, None);
}

#[test]
fn a_mistake_in_when_refuses_the_file_naming_the_rule_and_what_to_fix() {
    for (expression, says) in [
        ("size(input.content) >", "is not a valid CEL expression (at 1:22"),
        ("tol == 'Write'", "unknown variable `tol`"),
        ("input.content.sise() > 1", "unknown function `sise`"),
    ] {
        let file: RulesFile =
            serde_saphyr::from_str(&format!("rules:\n  - name: guard\n    when: \"{expression}\"\n")).unwrap();
        let error = RuleSet::compile(&file).unwrap_err();
        assert_eq!((error.rule.as_str(), error.field, error.value.as_str()), ("guard", "when", expression));
        assert!(error.to_string().contains(says), "{error}");
    }
}

#[test]
fn the_examples_of_docs_rules_md_do_what_they_say() {
    let doc = include_str!("../../../docs/rules.md");
    let section = &doc[doc.find("## `when`").expect("the `when` section")..];
    let start = section.find("```yaml\n").expect("its example") + "```yaml\n".len();
    let yaml = &section[start..start + section[start..].find("```").unwrap()];
    let hook = rules(yaml);
    let write = |content: String| json!({"file_path": "/home/u/proj/a", "content": content});
    assert_eq!(decide(&hook, "Write", write("x".repeat(1_000_001))).0, Some(RuleDecision::Ask));
    assert_eq!(decide(&hook, "Write", write("x".into())).0, None);
    assert_eq!(decide(&hook, "mcp__github__merge_pull_request", json!({"n": 1})).0, Some(RuleDecision::Ask));
    assert_eq!(decide(&hook, "mcp__github__list_issues", json!({})).0, None);
    assert_eq!(
        decide(&hook, "WebFetch", json!({"url": "https://example.com/", "prompt": "p"})).0,
        Some(RuleDecision::Deny)
    );
    assert_eq!(decide(&hook, "web_fetch", json!({"prompt": "read https://example.com/"})).0, Some(RuleDecision::Ask));
    assert_eq!(decide(&hook, "WebFetch", json!({"url": "https://crates.io/crates/cel", "prompt": "p"})).0, None);
    assert_eq!(
        decide(&hook, "WebFetch", json!({"url": "https://github.com.evil.example/", "prompt": "p"})).0,
        Some(RuleDecision::Deny)
    );
}
