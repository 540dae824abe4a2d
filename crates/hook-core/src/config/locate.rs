//! Where something was written: the YAML parser's spans of every node and key of a file, for
//! the location of each hook entry and of values the parser accepted but validation rejects (a
//! bad regex, a duplicate name).
//!
//! [`Tree`] is one extra pass of the same parser (serde-saphyr, whose YAML also reads JSON)
//! recording a [`Spanned`] position per node and per key: building it is linear in the file, and
//! every lookup after it is a map or list index, so locating all the hooks of a file of 8,000
//! hooks is linear too. [`tags`] is a pass over the parser's events that refuses the YAML tags
//! that hide a value from a reader.
//!
//! Only after a parse error, when the parser produced no spans, does [`entry_at`] scan the text
//! (once per error) to name the entry around the error's line.

use std::{collections::HashMap, fmt};

use serde::{
    Deserialize, Deserializer,
    de::{MapAccess, SeqAccess, Visitor},
};
use serde_saphyr::{Spanned, granit_parser};

use super::parse::KeyText;

/// A 1-based line and column.
pub(crate) type Position = (usize, usize);

fn position(location: serde_saphyr::Location) -> Option<Position> {
    let line = usize::try_from(location.line()).ok().filter(|line| *line > 0)?;
    let column = usize::try_from(location.column()).ok().filter(|column| *column > 0)?;
    Some((line, column))
}

/// A node of the file, where it starts, and its children.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// Where the node's content starts (a block mapping: its first key).
    pub(crate) at: Option<Position>,
    kind: Kind,
}

#[derive(Debug, Default)]
enum Kind {
    Map(MapNode),
    Seq(Vec<Node>),
    #[default]
    Scalar,
    /// `~`, `null` or nothing.
    Null,
}

#[derive(Debug, Default)]
struct MapNode {
    /// Key text, the key's position, the value; in file order.
    entries: Vec<(String, Option<Position>, Node)>,
    /// Key text → index of its first entry (a key written twice is a parse error anyway).
    index: HashMap<String, usize>,
}

impl Node {
    /// The value of `key` when this node is a mapping holding it.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, node)| node)
    }

    /// Where `key` is written in this mapping.
    pub(crate) fn key_at(&self, key: &str) -> Option<Position> {
        self.entry(key).and_then(|(at, _)| at)
    }

    fn entry(&self, key: &str) -> Option<(Option<Position>, &Node)> {
        let Kind::Map(map) = &self.kind else { return None };
        let (_, at, node) = map.entries.get(*map.index.get(key)?)?;
        Some((*at, node))
    }

    /// The keys of this mapping with their positions, in file order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = (&str, Option<Position>, &Node)> {
        let entries = match &self.kind {
            Kind::Map(map) => map.entries.as_slice(),
            _ => &[],
        };
        entries.iter().map(|(key, at, node)| (key.as_str(), *at, node))
    }

    /// The keys of this mapping; `None` when it is a list or a scalar (an empty document is
    /// an empty mapping).
    pub(crate) fn top_keys(&self) -> Option<Vec<String>> {
        match &self.kind {
            Kind::Map(map) => Some(map.entries.iter().map(|(key, _, _)| key.clone()).collect()),
            Kind::Seq(_) | Kind::Scalar => None,
            Kind::Null => Some(Vec::new()),
        }
    }

    /// Item `index` of this sequence.
    pub(crate) fn item(&self, index: usize) -> Option<&Node> {
        match &self.kind {
            Kind::Seq(items) => items.get(index),
            _ => None,
        }
    }
}

/// The spans of a whole document.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    pub(crate) root: Node,
}

impl Tree {
    /// The spans of `text` (YAML or JSON); `None` when it does not parse (the typed parse
    /// reports why).
    pub(crate) fn parse(text: &str) -> Option<Tree> {
        let options = serde_saphyr::options! { with_snippet: false };
        match serde_saphyr::from_str_with_options::<Node>(text, options) {
            Ok(root) => Some(Tree { root }),
            Err(err) => {
                tracing::debug!(%err, "no spans for this file");
                None
            }
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<NodeKind>::deserialize(deserializer)?;
        Ok(Node { at: position(spanned.referenced), kind: spanned.value.0 })
    }
}

/// A node's content, deserialized from any value.
struct NodeKind(Kind);

impl<'de> Deserialize<'de> for NodeKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = NodeKind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<NodeKind, A::Error> {
        let mut map = MapNode::default();
        while let Some(key) = access.next_key::<Spanned<KeyText>>()? {
            let value: Node = access.next_value()?;
            let text = key.value.0;
            map.index.entry(text.clone()).or_insert(map.entries.len());
            map.entries.push((text, position(key.referenced), value));
        }
        Ok(NodeKind(Kind::Map(map)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<NodeKind, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = access.next_element::<Node>()? {
            items.push(item);
        }
        Ok(NodeKind(Kind::Seq(items)))
    }

    fn visit_bool<E>(self, _: bool) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_i64<E>(self, _: i64) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_u64<E>(self, _: u64) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_i128<E>(self, _: i128) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_u128<E>(self, _: u128) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_f64<E>(self, _: f64) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_str<E>(self, _: &str) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Scalar))
    }
    fn visit_unit<E>(self) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Null))
    }
    fn visit_none<E>(self) -> Result<NodeKind, E> {
        Ok(NodeKind(Kind::Null))
    }
}

/// A YAML tag that may not appear in a hook config, and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RefusedTag {
    /// The tag as written, e.g. `!!binary`.
    pub(crate) tag: String,
    pub(crate) at: Option<Position>,
}

/// The first YAML tag of `text` outside the core schema (`!!str`, `!!int`, `!!float`,
/// `!!bool`, `!!null`, `!!seq`, `!!map`): `!!binary` turns base64 into a command no reader of the
/// file sees, and application tags (`!foo`) have no meaning in a hook config. `None` when
/// there is none, or when the text does not parse (the typed parse reports why).
pub(crate) fn refused_tag(text: &str) -> Option<RefusedTag> {
    // A tag is written with `!`: most files have none and skip the extra pass.
    if !text.contains('!') {
        return None;
    }
    const CORE: [&str; 7] = ["str", "int", "float", "bool", "null", "seq", "map"];
    for event in granit_parser::Parser::new_from_str(text) {
        let Ok((event, span)) = event else { return None };
        let tag = match &event {
            granit_parser::Event::Scalar(_, _, _, tag)
            | granit_parser::Event::SequenceStart(_, _, tag)
            | granit_parser::Event::MappingStart(_, _, tag) => tag.as_deref(),
            _ => None,
        };
        let Some(tag) = tag else { continue };
        let is_core = tag.handle() == "tag:yaml.org,2002:" && CORE.contains(&tag.suffix());
        // `!` alone is the non-specific tag: "a string, as written".
        let is_non_specific = tag.handle() == "!" && tag.suffix().is_empty();
        if is_core || is_non_specific {
            continue;
        }
        let marker = span.tag_start.unwrap_or(span.start);
        let written = if tag.handle() == "tag:yaml.org,2002:" {
            format!("!!{}", tag.suffix())
        } else {
            format!("{}{}", tag.handle(), tag.suffix())
        };
        return Some(RefusedTag { tag: written, at: Some((marker.line(), marker.col() + 1)) });
    }
    None
}

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
        return inner.find('"').map_or(inner, |end| &inner[..end]);
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

/// The event-keyed YAML entry that contains `line` (1-based): the top-level key above it, the
/// entry's 0-based index in that key's list, and its `name:` if written. `None` when `line` is
/// not inside a list item (or the file is not block-style YAML).
///
/// For parse errors only, which come without spans: one scan of the text per error.
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
    fn spans_of_keys_items_and_nested_keys() {
        let tree = Tree::parse(YAML).expect("parses");
        let pre = tree.root.get("pre_tool_execution").expect("key");
        assert_eq!(tree.root.key_at("pre_tool_execution"), Some((1, 1)));
        assert_eq!(pre.item(0).and_then(|entry| entry.at), Some((2, 5)));
        let filter = pre.item(0).and_then(|entry| entry.get("filter")).expect("filter");
        assert_eq!(filter.key_at("tool_regex"), Some((4, 7)));
        assert_eq!(pre.item(1).and_then(|entry| entry.key_at("name")), Some((6, 5)));
        assert!(pre.item(2).is_none());
        let stop = tree.root.get("stop").expect("stop");
        assert_eq!(stop.item(1).and_then(|entry| entry.at), Some((10, 3)));
        let keys: Vec<&str> = tree.root.keys().map(|(key, _, _)| key).collect();
        assert_eq!(keys, ["pre_tool_execution", "stop"]);
    }

    #[test]
    fn json_is_read_with_spans_too() {
        let json = "{\n  \"hooks\": {\n    \"processes\": {\n      \"guard\": {\"command\": [\"x\"]}\n    }\n  }\n}\n";
        let tree = Tree::parse(json).expect("parses");
        let processes = tree.root.get("hooks").and_then(|hooks| hooks.get("processes")).expect("processes");
        assert_eq!(processes.key_at("guard"), Some((4, 7)));
        assert_eq!(processes.get("guard").and_then(|guard| guard.key_at("command")), Some((4, 17)));
    }

    #[test]
    fn entries_around_a_line() {
        assert_eq!(entry_at(YAML, 4), Some(("pre_tool_execution".into(), 0, None)));
        assert_eq!(entry_at(YAML, 7), Some(("pre_tool_execution".into(), 1, Some("second".into()))));
        assert_eq!(entry_at(YAML, 10), Some(("stop".into(), 1, None)));
        assert_eq!(entry_at(YAML, 1), None);
    }

    #[test]
    fn tags_that_hide_a_value_are_found() {
        let hidden = "stop:\n  - command: !!binary ZWNobyBoaQ==\n";
        assert_eq!(refused_tag(hidden), Some(RefusedTag { tag: "!!binary".into(), at: Some((2, 14)) }));
        assert_eq!(refused_tag("stop:\n  - command: !custom x\n").map(|t| t.tag), Some("!custom".into()));
        assert_eq!(refused_tag("stop:\n  - command: !!str echo '{}'\n    name: \"!x\"\n"), None);
        assert_eq!(refused_tag("stop:\n  - command: echo hi\n"), None);
    }
}
