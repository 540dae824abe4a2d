//! Text → typed values for the two file formats, with the position of the first error.
//!
//! This is the one place that calls the YAML crate (serde-saphyr), so swapping it is a
//! one-file change.

use std::{collections::HashSet, fmt};

use serde::{
    Deserialize, Deserializer,
    de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor},
};
use serde_saphyr::MessageFormatter;

/// A file that does not parse into the expected shape: the parser's message and, when it
/// knows them, the 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong, without the position.
    pub message: String,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "{line}:{column}: {}", self.message),
            (Some(line), None) => write!(f, "{line}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses YAML into `T`.
///
/// Booleans are strict (`true`/`false` only), so `name: no` stays the string `no` even inside
/// types serde buffers (tagged or untagged enums). Duplicate keys are an error.
pub fn parse_yaml<T: DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    let options = serde_saphyr::options! { strict_booleans: true, with_snippet: false };
    serde_saphyr::from_str_with_options(text, options).map_err(|err| yaml_error(&err))
}

fn yaml_error(err: &serde_saphyr::Error) -> ParseError {
    use serde_saphyr::{Error, ExternalMessageSource};
    let err = err.without_snippet();
    let raw = serde_saphyr::DefaultMessageFormatter.format_message(err);
    // The formatter returns the bare message; control characters (a user's text may hold
    // some) are escaped so one error stays one line.
    let mut message = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c.is_control() {
            message.extend(c.escape_debug());
        } else {
            message.push(c);
        }
    }
    let (line, column) = match err.location() {
        Some(loc) if loc.line() > 0 => (usize::try_from(loc.line()).ok(), usize::try_from(loc.column()).ok()),
        _ => (None, None),
    };
    let message = match err {
        Error::DuplicateMappingKey { key, .. } => format!(
            "duplicate key `{}`: each key may appear once in a mapping; merge or remove one",
            key.as_deref().unwrap_or("?")
        ),
        Error::SerdeUnknownField { field, expected, .. } => with_suggestion(message, field, expected),
        Error::SerdeUnknownVariant { variant, expected, .. } => with_suggestion(message, variant, expected),
        Error::ExternalMessage { source, .. } => match source.as_ref() {
            ExternalMessageSource::Parser(scan) if is_layout_error(scan.kind()) => {
                format!("{message}; check the indentation (spaces, not tabs) here and on the line above")
            }
            _ => message,
        },
        _ => message,
    };
    ParseError { message, line, column }
}

/// Syntax errors that a misplaced line or a tab usually causes.
fn is_layout_error(kind: &serde_saphyr::granit_parser::ErrorKind) -> bool {
    use serde_saphyr::granit_parser::ErrorKind;
    matches!(
        kind,
        ErrorKind::ExpectedBlockSequenceEntry
            | ErrorKind::ExpectedBlockMappingKey
            | ErrorKind::ExpectedNodeContent
            | ErrorKind::ExpectedFlowMappingSeparator
            | ErrorKind::ExpectedFlowSequenceSeparator
            | ErrorKind::InvalidIndentation
            | ErrorKind::TabInBlockIndentation
            | ErrorKind::TabNotAllowed
            | ErrorKind::UnexpectedEofBlockSequence
            | ErrorKind::UnexpectedEofBlockMapping
    )
}

/// Adds "did you mean `command`?" to an unknown field or variant message when one expected
/// name is a small edit away.
fn with_suggestion(message: String, unknown: &str, expected: &[&str]) -> String {
    let best = expected.iter().map(|name| (edit_distance(unknown, name), *name)).min();
    match best {
        Some((distance, name)) if distance > 0 && distance <= 2.max(unknown.chars().count() / 4) => {
            format!("{message} (did you mean `{name}`?)")
        }
        _ => message,
    }
}

/// [`with_suggestion`] for serde_json, whose errors carry no structured kind: the unknown name
/// and the expected ones are read from its fixed "unknown field `x`, expected one of `a`, `b`"
/// wording.
fn with_json_suggestion(message: &str) -> String {
    let unknown = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|prefix| message.find(prefix).map(|idx| &message[idx + prefix.len()..]))
        .and_then(|rest| rest.split('`').next());
    let expected = message.find("expected one of ").map(|idx| &message[idx + "expected one of ".len()..]);
    let (Some(unknown), Some(expected)) = (unknown, expected) else { return message.to_owned() };
    let expected: Vec<&str> = expected.split(", ").map(|name| name.trim().trim_matches('`')).collect();
    with_suggestion(message.to_owned(), unknown, &expected)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Removes a trailing " at line N, column M" some messages carry.
fn strip_position_suffix(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(idx) if position_in_text(&message[idx..]).0.is_some() => message[..idx].trim_end(),
        _ => message,
    }
}

/// Finds "line N, column M" / "line N column M" in a rendered message.
fn position_in_text(text: &str) -> (Option<usize>, Option<usize>) {
    let Some(idx) = text.find("line ") else { return (None, None) };
    let rest = &text[idx + "line ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let Ok(line) = digits.parse::<usize>() else { return (None, None) };
    let rest = rest[digits.len()..].trim_start_matches([',', ' ']);
    let column = rest
        .strip_prefix("column ")
        .and_then(|rest| rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok());
    (Some(line), column)
}

/// Parses JSON into `T`. A key written twice in one object is an error (serde_json keeps the
/// last one silently, which would hide a hook).
pub fn parse_json<T: DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    let json_error = |err: serde_json::Error| ParseError {
        message: with_json_suggestion(strip_position_suffix(&err.to_string())),
        line: (err.line() > 0).then_some(err.line()),
        column: (err.line() > 0).then_some(err.column()),
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    UniqueKeys.deserialize(&mut deserializer).map_err(json_error)?;
    serde_json::from_str(text).map_err(json_error)
}

/// Walks any JSON value and fails on the first object with a repeated key.
#[derive(Debug, Clone, Copy)]
struct UniqueKeys;

impl<'de> DeserializeSeed<'de> for UniqueKeys {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueKeys {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(UniqueKeys)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key `{key}`: each key may appear once in an object; merge or rename one"
                )));
            }
            map.next_value_seed(UniqueKeys)?;
        }
        Ok(())
    }
}

/// The top-level keys of a mapping document, for telling the dialects apart. `None` when the
/// document is a list or a scalar. An empty document is an empty mapping.
#[derive(Debug, Default)]
pub(crate) struct TopKeys(pub(crate) Option<Vec<String>>);

impl<'de> Deserialize<'de> for TopKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = TopKeys;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<KeyText>()? {
                    keys.push(key.0);
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(TopKeys(Some(keys)))
            }
            fn visit_unit<E>(self) -> Result<TopKeys, E> {
                Ok(TopKeys(Some(Vec::new())))
            }
            fn visit_none<E>(self) -> Result<TopKeys, E> {
                Ok(TopKeys(Some(Vec::new())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopKeys, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(TopKeys(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<TopKeys, E> {
                Ok(TopKeys(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<TopKeys, E> {
                Ok(TopKeys(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<TopKeys, E> {
                Ok(TopKeys(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<TopKeys, E> {
                Ok(TopKeys(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<TopKeys, E> {
                Ok(TopKeys(None))
            }
        }
        deserializer.deserialize_any(KeysVisitor)
    }
}

/// A mapping key as text, whatever scalar it was written as.
pub(super) struct KeyText(pub(super) String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_owned()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<KeyText, E> {
                Ok(KeyText(String::new()))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}
