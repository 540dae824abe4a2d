//! The agents' `matcher` patterns ([`Matcher::compile`], every flavor) and Claude Code's `if`
//! rules ([`IfRule::parse`]). The first line is the pattern (and the rule); it is tried on a
//! fixed set of tool names and on each further line, and the rule on a few tool inputs.
#![cfg_attr(fuzzing, no_main)]

use hook_agents::matcher::{IfRule, Matcher, MatcherFlavor};
use hook_protocol::serde_json::{Value, json};

const FLAVORS: [MatcherFlavor; 5] = [
    MatcherFlavor::Claude,
    MatcherFlavor::ClaudeNarrow,
    MatcherFlavor::GeminiTool,
    MatcherFlavor::GeminiExact,
    MatcherFlavor::Codex,
];

const NAMES: [&str; 12] = [
    "",
    "Bash",
    "Read",
    "Write",
    "Edit",
    "mcp__github__create_issue",
    "run_shell_command",
    "write_file",
    "shell",
    "apply_patch",
    "compact",
    "WebFetch",
];

fn fuzz(data: &[u8]) {
    let text = hookwire_fuzz::text(data);
    let mut lines = text.split('\n');
    let pattern = lines.next().unwrap_or_default();
    let extra: Vec<&str> = lines.collect();
    for flavor in FLAVORS {
        if let Ok(matcher) = Matcher::compile(flavor, Some(pattern)) {
            for name in NAMES.iter().chain(&extra) {
                let _ = matcher.matches(name);
            }
            let _ = matcher.is_match_all();
            let _ = matcher.pattern();
        }
    }
    if let Ok(rule) = IfRule::parse(pattern) {
        let inputs: [Value; 4] = [
            json!({}),
            json!({"command": extra.first().copied().unwrap_or("rm -rf /")}),
            json!({"file_path": extra.first().copied().unwrap_or("/etc/passwd")}),
            json!({"url": "https://example.com/a", "pattern": "*.rs", "query": "q", "prompt": "p"}),
        ];
        for name in NAMES {
            for input in &inputs {
                let _ = rule.matches(name, input);
            }
        }
    }
}

hookwire_fuzz::target!(fuzz);
