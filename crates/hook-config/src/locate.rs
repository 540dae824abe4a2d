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

/// A node of the file with the character range it covers, for cutting out the part of a file
/// that holds an error (see [`Ranges`]).
#[derive(Debug)]
pub(crate) struct Ranged {
    /// Character offset of its first character.
    pub(crate) start: usize,
    /// Character offset after its last character.
    pub(crate) end: usize,
    /// Whether it is a flow collection (`{...}`, `[...]`, all of JSON), whose members are
    /// separated by commas.
    is_flow: bool,
    kind: RangedKind,
}

#[derive(Debug)]
enum RangedKind {
    /// Key text, the key's character offset, the value; in file order.
    Map(Vec<(String, usize, Ranged)>),
    Seq(Vec<Ranged>),
    /// The scalar's text.
    Scalar(String),
}

/// A part of a file that can be cut out on its own: one key with its value, or one list item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    /// Character range, separators (a block list's `-`, a flow collection's comma) included.
    pub(crate) range: std::ops::Range<usize>,
    /// Where its value starts, as a line and column.
    pub(crate) value_at: Position,
    /// The key, for a key with its value.
    pub(crate) key: Option<String>,
    /// Where the collection holding it starts (its key's position when it is a key's value).
    pub(crate) parent_at: Position,
    /// Whether it is a list item.
    pub(crate) is_item: bool,
    /// Whether its value is a mapping.
    pub(crate) is_map: bool,
    /// Whether the error it was found for is about the whole value, not a part of it.
    pub(crate) is_whole: bool,
}

/// Every node of a file (YAML or JSON) with the character range it covers, from the parser's
/// events. After a typed parse stops at an error, the loader cuts out the key or list item that
/// holds it (blanking its characters, so every other line and column stays where it was) and
/// parses again, to report the file's other errors too.
#[derive(Debug)]
pub(crate) struct Ranges {
    root: Ranged,
    /// The characters of the text.
    chars: Vec<char>,
    /// Character offset of the start of each line.
    line_starts: Vec<usize>,
}

impl Ranges {
    /// The ranges of `text`; `None` when it does not parse (a syntax error), or holds aliases
    /// (a part cut out could be another part's anchor).
    pub(crate) fn parse(text: &str) -> Option<Ranges> {
        let mut events = Vec::new();
        for event in granit_parser::Parser::new_from_str(text) {
            let (event, span) = event.ok()?;
            events.push((event, span));
        }
        let mut iter = events.into_iter().peekable();
        let mut root = None;
        while let Some((event, span)) = iter.next() {
            match event {
                granit_parser::Event::Alias(_) => return None,
                granit_parser::Event::Scalar(..)
                | granit_parser::Event::SequenceStart(..)
                | granit_parser::Event::MappingStart(..) => {
                    if root.is_some() {
                        // A second document: not a hook config.
                        return None;
                    }
                    root = Some(ranged(event, span, &mut iter)?);
                }
                _ => {}
            }
        }
        let chars: Vec<char> = text.chars().collect();
        let mut line_starts = vec![0];
        line_starts.extend(chars.iter().enumerate().filter(|(_, c)| **c == '\n').map(|(idx, _)| idx + 1));
        Some(Ranges { root: root?, chars, line_starts })
    }

    /// Where the document starts.
    pub(crate) fn root_at(&self) -> Position {
        self.position(self.root.start)
    }

    /// The character offset of a 1-based line and column.
    fn offset(&self, (line, column): Position) -> Option<usize> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        Some(start + column.checked_sub(1)?)
    }

    /// The line and column of a character offset.
    fn position(&self, offset: usize) -> Position {
        let line = self.line_starts.partition_point(|start| *start <= offset);
        (line, offset - self.line_starts[line.saturating_sub(1)] + 1)
    }

    /// The innermost key-with-value or list item holding `at` that is not in `skip`: the part
    /// to cut out for an error there. `is_key_error`: the error is about a key (unknown or
    /// written twice), so an error at a mapping's start is its first key's, not the mapping's.
    pub(crate) fn unit_at(&self, at: Position, is_key_error: bool) -> Option<Unit> {
        let target = self.offset(at)?;
        let mut node = &self.root;
        let mut found: Option<Unit> = None;
        if matches!(node.kind, RangedKind::Map(_)) && target == node.start && !is_key_error {
            // An error about the whole document (a HOOK.yaml without `command`).
            let mut unit = self.unit(None, node.start, node, self.position(node.start), false);
            unit.is_whole = true;
            return Some(unit);
        }
        loop {
            let parent_at = self.position(node.start);
            let is_flow = node.is_flow;
            let child = match &node.kind {
                RangedKind::Map(members) => members.iter().find_map(|(key, key_start, value)| {
                    (*key_start <= target && target < value.end.max(key_start + 1)).then_some((
                        Some(key.clone()),
                        *key_start,
                        value,
                    ))
                }),
                RangedKind::Seq(items) => items
                    .iter()
                    .find_map(|item| {
                        let start = if is_flow { item.start } else { self.dash_before(item.start) };
                        (start <= target && target < item.end.max(start + 1)).then_some((None, start, item))
                    })
                    .or_else(|| {
                        // JSON reports an error about a whole item after the item, between it
                        // and the next: it is the item's.
                        let before = items.iter().rposition(|item| item.end <= target)?;
                        let is_gap = items.get(before + 1).is_none_or(|next| target < next.start);
                        (is_flow && !is_key_error && is_gap).then(|| (None, items[before].start, &items[before]))
                    }),
                RangedKind::Scalar(_) => None,
            };
            let Some((key, start, value)) = child else {
                if let Some(unit) = &mut found {
                    unit.is_whole = true;
                }
                break;
            };
            // The only key of a mapping: cutting it would leave an empty value where an entry
            // stood, an error of its own; the mapping goes with it.
            let is_sole = matches!(&node.kind, RangedKind::Map(members) if members.len() == 1);
            if !(is_sole && found.is_some()) {
                found = Some(self.unit(key, start, value, parent_at, is_flow));
            }
            // At a mapping's first character: the error is the mapping's (a missing field, a
            // check of the whole entry) unless it is about a key.
            if matches!(value.kind, RangedKind::Map(_)) && target == value.start && !is_key_error {
                if let Some(unit) = &mut found {
                    unit.is_whole = true;
                }
                break;
            }
            node = value;
        }
        found
    }

    fn unit(&self, key: Option<String>, start: usize, value: &Ranged, parent_at: Position, is_flow: bool) -> Unit {
        let mut range = start..value.end.max(start + 1);
        if is_flow {
            // Take a comma with it: the one after, else the one before.
            let after = (range.end..self.chars.len()).find(|&idx| !self.chars[idx].is_whitespace());
            match after {
                Some(idx) if self.chars[idx] == ',' => range.end = idx + 1,
                _ => {
                    let before = (0..range.start).rev().find(|&idx| !self.chars[idx].is_whitespace());
                    if let Some(idx) = before.filter(|&idx| self.chars[idx] == ',') {
                        range.start = idx;
                    }
                }
            }
        }
        Unit {
            range,
            value_at: self.position(value.start),
            is_item: key.is_none(),
            key,
            parent_at,
            is_map: matches!(value.kind, RangedKind::Map(_)),
            is_whole: false,
        }
    }

    /// The offset of the `-` of a block list item whose value starts at `start`.
    fn dash_before(&self, start: usize) -> usize {
        let mut idx = start;
        while idx > 0 && matches!(self.chars[idx - 1], ' ' | '\t') {
            idx -= 1;
        }
        if idx > 0 && self.chars[idx - 1] == '-' { idx - 1 } else { start }
    }

    /// `text` (the text these ranges were read from, or a copy already cut) with `unit`'s
    /// characters blanked: line breaks stay, so every other position is unchanged.
    pub(crate) fn cut(&self, text: &str, unit: &Unit) -> String {
        text.chars()
            .enumerate()
            .map(|(idx, c)| if unit.range.contains(&idx) && c != '\n' && c != '\r' { ' ' } else { c })
            .collect()
    }

    /// The event-keyed entry around `at`: the top-level key holding it, the index of the list
    /// item holding it (when one does) and that item's `name:` (when written).
    pub(crate) fn entry_around(&self, at: Position) -> Option<(String, Option<usize>, Option<String>)> {
        let target = self.offset(at)?;
        let RangedKind::Map(members) = &self.root.kind else { return None };
        let (key, _, value) =
            members.iter().find(|(_, key_start, value)| *key_start <= target && target < value.end)?;
        let RangedKind::Seq(items) = &value.kind else { return Some((key.clone(), None, None)) };
        let is_flow = value.is_flow;
        let idx = items.iter().position(|item| {
            let start = if is_flow { item.start } else { self.dash_before(item.start) };
            start <= target && target < item.end.max(start + 1)
        })?;
        let name = match &items[idx].kind {
            RangedKind::Map(members) => members.iter().find_map(|(key, _, value)| match &value.kind {
                RangedKind::Scalar(text) if key == "name" => Some(text.clone()),
                _ => None,
            }),
            _ => None,
        };
        Some((key.clone(), Some(idx), name))
    }

    /// The key of the mapping at `path` (keys from the top) whose value holds `at`.
    pub(crate) fn key_around(&self, path: &[&str], at: Position) -> Option<String> {
        let target = self.offset(at)?;
        let mut node = &self.root;
        for step in path {
            let RangedKind::Map(members) = &node.kind else { return None };
            node = &members.iter().find(|(key, _, _)| key == step)?.2;
        }
        let RangedKind::Map(members) = &node.kind else { return None };
        members
            .iter()
            .find(|(_, key_start, value)| *key_start <= target && target < value.end.max(key_start + 1))
            .map(|(key, _, _)| key.clone())
    }
}

type Events<'t> = std::iter::Peekable<std::vec::IntoIter<(granit_parser::Event<'t>, granit_parser::Span)>>;

/// The node that starts with `event`, reading its children from `events`.
fn ranged(event: granit_parser::Event<'_>, span: granit_parser::Span, events: &mut Events<'_>) -> Option<Ranged> {
    use granit_parser::{Event, StructureStyle};
    let start = span.start.index();
    match event {
        Event::Scalar(text, ..) => {
            Some(Ranged { start, end: span.end.index(), is_flow: false, kind: RangedKind::Scalar(text.into_owned()) })
        }
        Event::SequenceStart(style, ..) => {
            let mut items = Vec::new();
            loop {
                let (event, span) = next_node_event(events)?;
                if matches!(event, Event::SequenceEnd) {
                    let end = span.end.index().max(items.last().map_or(start, |item: &Ranged| item.end));
                    let end = if style == StructureStyle::Flow { span.end.index() } else { end };
                    return Some(Ranged {
                        start,
                        end,
                        is_flow: style == StructureStyle::Flow,
                        kind: RangedKind::Seq(items),
                    });
                }
                items.push(ranged(event, span, events)?);
            }
        }
        Event::MappingStart(style, ..) => {
            let mut members = Vec::new();
            loop {
                let (event, span) = next_node_event(events)?;
                if matches!(event, Event::MappingEnd) {
                    let last = members.last().map_or(start, |(_, _, value): &(String, usize, Ranged)| value.end);
                    let end = if style == StructureStyle::Flow { span.end.index() } else { last };
                    return Some(Ranged {
                        start,
                        end,
                        is_flow: style == StructureStyle::Flow,
                        kind: RangedKind::Map(members),
                    });
                }
                let key_start = span.start.index();
                let key = match ranged(event, span, events)? {
                    Ranged { kind: RangedKind::Scalar(text), .. } => text,
                    _ => String::new(),
                };
                let (event, span) = next_node_event(events)?;
                let value = ranged(event, span, events)?;
                members.push((key, key_start, value));
            }
        }
        _ => None,
    }
}

/// The next event that starts or ends a node (anchors and comments skipped); `None` for an
/// alias or the end of the events.
fn next_node_event<'t>(events: &mut Events<'t>) -> Option<(granit_parser::Event<'t>, granit_parser::Span)> {
    use granit_parser::Event;
    loop {
        let (event, span) = events.next()?;
        match event {
            Event::Scalar(..)
            | Event::SequenceStart(..)
            | Event::SequenceEnd
            | Event::MappingStart(..)
            | Event::MappingEnd => return Some((event, span)),
            Event::Alias(_) | Event::UnresolvedAlias(_) => return None,
            _ => {}
        }
    }
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
