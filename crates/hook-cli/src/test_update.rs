//! `hookwire test --update`: writes each case's `expect` from the answer the hooks give now,
//! leaving the rest of the test file as written — comments, order, quoting, other cases.
//!
//! The file is edited as text, not re-serialized (a YAML round trip drops comments): each case
//! of the block list under `cases:` is found by its `- ` line, its `expect:` block (up to the
//! next line indented no deeper than the case's keys) is replaced, or one is added after the
//! case's last line. Comments inside a replaced `expect` block go with it.

use hook_protocol::serde_json::{self, Value};

/// Why a test file cannot be updated in place.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UpdateError {
    /// No block-style `cases:` list.
    #[error("--update needs `cases:` as a block list (`- name: ...` lines); this file writes it another way")]
    NoBlockList,
    /// Fewer case items in the text than the file holds.
    #[error("--update found {found} case(s) under `cases:` but the file has {expected}; write one `- ` item per case")]
    CaseCount {
        /// Items found in the text.
        found: usize,
        /// Cases parsed.
        expected: usize,
    },
}

/// The answer to write as a case's `expect`.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewExpect {
    /// `allow`, `deny`, ...
    pub(crate) decision: &'static str,
    /// The reason, matched exactly.
    pub(crate) reason: Option<String>,
    /// The context, matched exactly.
    pub(crate) context: Option<String>,
    /// The rewritten tool input.
    pub(crate) updated_input: Option<Value>,
}

/// A YAML scalar for `text`: JSON's double-quoted string, which YAML reads the same way.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn expect_lines(expect: &NewExpect, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    let inner = " ".repeat(indent + 2);
    let mut lines = vec![format!("{pad}expect:"), format!("{inner}decision: {}", expect.decision)];
    if let Some(reason) = &expect.reason {
        lines.push(format!("{inner}reason: {{equals: {}}}", quoted(reason)));
    }
    if let Some(context) = &expect.context {
        lines.push(format!("{inner}context: {{equals: {}}}", quoted(context)));
    }
    if let Some(input) = &expect.updated_input {
        lines.push(format!("{inner}updated_input: {input}"));
    }
    lines
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether `line` holds YAML content (not blank, not only a comment).
fn is_content(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty() && !trimmed.starts_with('#')
}

/// `text` with the `expect` of case `i` replaced by `updates[i]` where that is `Some`;
/// `cases` is how many cases the file holds.
pub(crate) fn rewrite(text: &str, cases: usize, updates: &[Option<NewExpect>]) -> Result<String, UpdateError> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|line| line.trim_end() == "cases:").ok_or(UpdateError::NoBlockList)?;
    // The items: `- ` lines at the indentation of the first one, until a shallower line.
    let first = (start + 1..lines.len()).find(|&i| is_content(lines[i])).ok_or(UpdateError::NoBlockList)?;
    let item_indent = indent_of(lines[first]);
    if !lines[first].trim_start().starts_with("- ") {
        return Err(UpdateError::NoBlockList);
    }
    let mut items = Vec::new();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(first) {
        if !is_content(line) {
            continue;
        }
        let indent = indent_of(line);
        if indent < item_indent || (indent == item_indent && !line.trim_start().starts_with("- ")) {
            end = i;
            break;
        }
        if indent == item_indent {
            items.push(i);
        }
    }
    if items.len() != cases {
        return Err(UpdateError::CaseCount { found: items.len(), expected: cases });
    }
    let key_indent = item_indent + 2;
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    out.extend(lines[..first].iter().map(|l| (*l).to_owned()));
    for (n, &item) in items.iter().enumerate() {
        let item_end = items.get(n + 1).copied().unwrap_or(end);
        // The case's last content line: comments and blank lines after it stay where they are.
        let last = (item..item_end).rev().find(|&i| is_content(lines[i])).unwrap_or(item);
        let case: Vec<&str> = lines[item..item_end].to_vec();
        let Some(Some(update)) = updates.get(n) else {
            out.extend(case.iter().map(|l| (*l).to_owned()));
            continue;
        };
        let is_expect = |line: &str, at: usize| {
            let body = if at == 0 { line.trim_start().trim_start_matches("- ") } else { line.trim_start() };
            (at == 0 || indent_of(line) == key_indent) && body.starts_with("expect:")
        };
        let found = case.iter().enumerate().find(|(at, line)| is_expect(line, *at)).map(|(at, _)| at);
        match found {
            Some(at) => {
                let block_end = (at + 1..case.len())
                    .find(|&i| is_content(case[i]) && indent_of(case[i]) <= key_indent)
                    .unwrap_or_else(|| last - item + 1);
                out.extend(case[..at].iter().map(|l| (*l).to_owned()));
                let mut new = expect_lines(update, key_indent);
                if at == 0 {
                    // `- expect:` opens the item: keep the dash.
                    new[0] = format!("{}- expect:", " ".repeat(item_indent));
                }
                out.extend(new);
                out.extend(case[block_end.max(at + 1)..].iter().map(|l| (*l).to_owned()));
            }
            None => {
                let upto = last - item + 1;
                out.extend(case[..upto].iter().map(|l| (*l).to_owned()));
                out.extend(expect_lines(update, key_indent));
                out.extend(case[upto..].iter().map(|l| (*l).to_owned()));
            }
        }
    }
    out.extend(lines[end..].iter().map(|l| (*l).to_owned()));
    let mut text_out = out.join("\n");
    if text.ends_with('\n') {
        text_out.push('\n');
    }
    Ok(text_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expect_is_replaced_or_added_and_comments_stay() {
        let text = "# top comment\nagent: claude\ncases:\n  # the guard\n  - name: a\n    event: PreToolUse\n    expect:\n      decision: allow  # wrong\n      reason: {contains: x}\n    # after a\n  - name: b\n    event: Stop\n\n# end\n";
        let deny = NewExpect { decision: "deny", reason: Some("no \"home\"".to_owned()), ..NewExpect::default() };
        let go = NewExpect { decision: "continue", ..NewExpect::default() };
        let out = rewrite(text, 2, &[Some(deny), Some(go)]).unwrap();
        assert_eq!(
            out,
            "# top comment\nagent: claude\ncases:\n  # the guard\n  - name: a\n    event: PreToolUse\n    expect:\n      decision: deny\n      reason: {equals: \"no \\\"home\\\"\"}\n    # after a\n  - name: b\n    event: Stop\n    expect:\n      decision: continue\n\n# end\n"
        );
        let parsed: hook_protocol::hooktest::HookTestFile = hook_config::parse_yaml(&out).unwrap();
        assert_eq!(
            parsed.cases[0].expect.as_ref().unwrap().reason,
            Some(hook_protocol::hooktest::TextMatch::Equals("no \"home\"".to_owned()))
        );
    }

    #[test]
    fn a_flow_list_is_refused() {
        assert!(rewrite("agent: claude\ncases: [{name: a, event: Stop}]\n", 1, &[None]).is_err());
    }
}
