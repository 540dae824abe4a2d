//! Finding where something was written by scanning the file's text, for messages about values
//! the parser accepted but validation rejects (a bad regex, a duplicate name) and for the
//! location of each hook entry.
//!
//! The scan is line-based and knows just enough of YAML's block style and of JSON to find a
//! `key: value` line or the n-th `- ` item of a list. When it cannot tell (flow style, a key
//! written on several lines), it returns `None` and the message names only the file.

/// A 1-based line and column.
pub(crate) type Position = (usize, usize);

/// Indentation of `line` in characters, and the rest of the line.
fn split_indent(line: &str) -> (usize, &str) {
    let rest = line.trim_start_matches([' ', '\t']);
    (line.len() - rest.len(), rest)
}

/// Whether a line holds nothing but whitespace or a YAML comment.
fn is_blank(line: &str) -> bool {
    let rest = line.trim_start();
    rest.is_empty() || rest.starts_with('#')
}

/// If `text` (a line without its indentation, possibly after `- `) starts with `key` (bare or
/// quoted) followed by `:`, the rest after the colon.
fn after_key<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let rest = if let Some(quoted) = text.strip_prefix('"') {
        quoted.strip_prefix(key)?.strip_prefix('"')?
    } else if let Some(quoted) = text.strip_prefix('\'') {
        quoted.strip_prefix(key)?.strip_prefix('\'')?
    } else {
        text.strip_prefix(key)?
    };
    rest.trim_start().strip_prefix(':')
}

/// The value written after a key, without quotes, a trailing comma or a trailing comment.
fn scalar_text(rest: &str) -> &str {
    let rest = rest.trim();
    if let Some(inner) = rest.strip_prefix('"') {
        // Up to the first unescaped closing quote.
        let mut is_escaped = false;
        for (idx, c) in inner.char_indices() {
            match c {
                '\\' if !is_escaped => is_escaped = true,
                '"' if !is_escaped => return &inner[..idx],
                _ => is_escaped = false,
            }
        }
        return inner;
    }
    if let Some(inner) = rest.strip_prefix('\'') {
        return inner.find('\'').map_or(inner, |end| &inner[..end]);
    }
    let rest = rest.strip_suffix(',').unwrap_or(rest).trim_end();
    match rest.find(" #") {
        Some(idx) => rest[..idx].trim_end(),
        None => rest,
    }
}

/// Character column (1-based) of byte offset `byte` in `line`.
fn column_of(line: &str, byte: usize) -> usize {
    line[..byte].chars().count() + 1
}

/// Byte offsets in `line` where `key` may be written: the start of the line's content (after
/// indentation, list dashes and opening braces), and every quoted `"key"` (JSON objects written
/// on one line).
fn key_offsets(line: &str, key: &str) -> Vec<usize> {
    let (indent, mut rest) = split_indent(line);
    let mut offset = indent;
    while let Some(stripped) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix('{')) {
        let trimmed = stripped.trim_start();
        offset += rest.len() - trimmed.len();
        rest = trimmed;
    }
    let mut offsets = vec![offset];
    let quoted = format!("\"{key}\"");
    offsets.extend(line.match_indices(&quoted).map(|(idx, _)| idx).filter(|idx| *idx != offset));
    offsets
}

/// Finds the first line at or after `from_line` (1-based) where `key` is written, followed by
/// `value` when one is given (compared without quotes, so `tool_regex: "a("` matches `a(`).
/// Returns the position of the key.
pub(crate) fn locate(text: &str, key: &str, value: Option<&str>, from_line: usize) -> Option<Position> {
    for (idx, line) in text.lines().enumerate().skip(from_line.saturating_sub(1)) {
        for offset in key_offsets(line, key) {
            let Some(after) = after_key(&line[offset..], key) else { continue };
            if value.is_none_or(|value| scalar_text(after) == value) {
                return Some((idx + 1, column_of(line, offset)));
            }
        }
    }
    None
}

/// Finds item `index` (0-based) of the YAML block list under the mapping key `key`, searching
/// from `from_line`. Returns the position of the item's content (just after `- `).
pub(crate) fn locate_item(text: &str, key: &str, index: usize, from_line: usize) -> Option<Position> {
    let lines: Vec<&str> = text.lines().collect();
    let (key_line, _) = locate(text, key, None, from_line)?;
    let (key_indent, _) = split_indent(lines[key_line - 1]);
    let mut item_indent = None;
    let mut n_items = 0;
    for (idx, line) in lines.iter().enumerate().skip(key_line) {
        if is_blank(line) {
            continue;
        }
        let (indent, rest) = split_indent(line);
        let is_item = rest == "-" || rest.starts_with("- ");
        // The list ends at the first line back at (or left of) the key that is not an item.
        if indent < key_indent || (indent == key_indent && !is_item) {
            return None;
        }
        if !is_item || item_indent.is_some_and(|i| i != indent) {
            continue;
        }
        item_indent = Some(indent);
        if n_items == index {
            let content = rest[1..].trim_start();
            let byte = line.len() - content.len();
            return Some((idx + 1, column_of(line, byte)));
        }
        n_items += 1;
    }
    None
}

/// The event-keyed YAML entry that contains `line` (1-based): the top-level key above it, the
/// entry's 0-based index in that key's list, and its `name:` if written. `None` when `line` is
/// not inside a list item (or the file is not block-style YAML).
pub(crate) fn entry_at(text: &str, line: usize) -> Option<(String, usize, Option<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let is_top_key = |l: &str| !l.starts_with([' ', '\t', '-', '#']) && !l.trim().is_empty();
    let key_idx = (0..line.min(lines.len())).rev().find(|&i| is_top_key(lines[i]))?;
    let key = lines[key_idx].split(':').next()?.trim().trim_matches(['"', '\'']).to_owned();
    let is_item = |l: &str| {
        let rest = l.trim_start_matches([' ', '\t']);
        rest == "-" || rest.starts_with("- ")
    };
    let mut item_indent = None;
    let mut n_items = 0;
    let mut start = None;
    for (idx, l) in lines.iter().enumerate().take(line).skip(key_idx + 1) {
        if is_blank(l) || !is_item(l) {
            continue;
        }
        let (indent, _) = split_indent(l);
        if *item_indent.get_or_insert(indent) == indent {
            n_items += 1;
            start = Some(idx);
        }
    }
    let start = start?;
    let item_indent = item_indent?;
    let (_, first) = split_indent(lines[start]);
    let first = first[1..].trim_start();
    let content_indent = lines[start].len() - first.len();
    let mut name = after_key(first, "name").map(|v| scalar_text(v).to_owned());
    for l in lines.iter().skip(start + 1) {
        if is_blank(l) {
            continue;
        }
        let (indent, rest) = split_indent(l);
        if indent <= item_indent || name.is_some() {
            break;
        }
        if indent == content_indent {
            name = after_key(rest, "name").map(|v| scalar_text(v).to_owned());
        }
    }
    Some((key, n_items - 1, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const YAML: &str = "\
pre_tool_execution:
  - command: a.sh
    filter:
      tool_regex: \"a(\"
  # a comment
  - name: second
    command: b.sh
stop:
- command: c.sh
- command: d.sh
";

    #[test]
    fn finds_keys_values_and_items() {
        assert_eq!(locate(YAML, "tool_regex", Some("a("), 1), Some((4, 7)));
        assert_eq!(locate(YAML, "name", Some("second"), 1), Some((6, 5)));
        assert_eq!(locate(YAML, "name", Some("third"), 1), None);
        assert_eq!(locate_item(YAML, "pre_tool_execution", 0, 1), Some((2, 5)));
        assert_eq!(locate_item(YAML, "pre_tool_execution", 1, 1), Some((6, 5)));
        assert_eq!(locate_item(YAML, "pre_tool_execution", 2, 1), None);
        assert_eq!(locate_item(YAML, "stop", 1, 1), Some((10, 3)));
        assert_eq!(entry_at(YAML, 4), Some(("pre_tool_execution".into(), 0, None)));
        assert_eq!(entry_at(YAML, 7), Some(("pre_tool_execution".into(), 1, Some("second".into()))));
        assert_eq!(entry_at(YAML, 10), Some(("stop".into(), 1, None)));
        assert_eq!(entry_at(YAML, 1), None);
    }

    #[test]
    fn finds_json_keys() {
        let json = "{\n  \"hooks\": {\n    \"processes\": {\n      \"guard\": {\"command\": [\"x\"]}\n    }\n  }\n}\n";
        assert_eq!(locate(json, "guard", None, 1), Some((4, 7)));
        assert_eq!(locate(json, "command", None, 4), Some((4, 17)));
        let inline = r#"    {"name": "guard", "command": "./g.sh"},"#;
        assert_eq!(locate(inline, "name", Some("guard"), 1), Some((1, 6)));
        assert_eq!(locate(inline, "command", Some("./g.sh"), 1), Some((1, 23)));
    }
}
