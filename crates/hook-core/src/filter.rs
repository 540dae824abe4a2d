//! Filters: which contexts a hook runs on, compiled once at registration and evaluated before
//! anything is serialized.

use hook_protocol::{Context, config::HookFilter};
use regex::{Regex, RegexBuilder};

/// The most memory a user regex may compile to; a larger pattern is a load error, not a stall.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A [`HookFilter`] with its regexes compiled. Every set condition must hold (AND); a condition
/// on a context field that is absent never holds.
#[derive(Debug, Clone, Default)]
pub struct CompiledFilter {
    tool_name: Option<String>,
    /// The j-cli matcher's pieces, trimmed; only used when `tool_name` is unset.
    tool_matcher: Option<Vec<String>>,
    model_prefix: Option<String>,
    tool_regex: Option<Regex>,
    args_regex: Option<Regex>,
}

impl CompiledFilter {
    /// Compiles `filter`; a bad or oversized regex is an error naming the member and the fix.
    pub fn compile(filter: &HookFilter) -> Result<Self, FilterError> {
        Ok(CompiledFilter {
            tool_name: filter.tool_name.clone(),
            tool_matcher: match (&filter.tool_name, &filter.tool_matcher) {
                (None, Some(matcher)) => Some(matcher.split('|').map(|piece| piece.trim().to_owned()).collect()),
                _ => None,
            },
            model_prefix: filter.model_prefix.clone(),
            tool_regex: filter.tool_regex.as_deref().map(|p| compile_regex("tool_regex", p)).transpose()?,
            args_regex: filter.args_regex.as_deref().map(|p| compile_regex("args_regex", p)).transpose()?,
        })
    }

    /// Whether no condition is set (the hook runs on every context of its events).
    pub fn is_empty(&self) -> bool {
        self.tool_name.is_none()
            && self.tool_matcher.is_none()
            && self.model_prefix.is_none()
            && self.tool_regex.is_none()
            && self.args_regex.is_none()
    }

    /// Whether `context` satisfies every condition. Never allocates.
    pub fn matches(&self, context: &Context) -> bool {
        let tool = context.tool_name.as_deref();
        if let Some(name) = &self.tool_name {
            if tool != Some(name.as_str()) {
                return false;
            }
        } else if let Some(pieces) = &self.tool_matcher {
            let Some(tool) = tool else { return false };
            if !pieces.iter().any(|piece| piece == tool) {
                return false;
            }
        }
        if let Some(prefix) = &self.model_prefix {
            match context.model.as_deref() {
                Some(model) if model.starts_with(prefix.as_str()) => {}
                _ => return false,
            }
        }
        if let Some(regex) = &self.tool_regex {
            match tool {
                Some(tool) if regex.is_match(tool) => {}
                _ => return false,
            }
        }
        if let Some(regex) = &self.args_regex {
            match context.tool_arguments.as_deref() {
                Some(args) if regex.is_match(args) => {}
                _ => return false,
            }
        }
        true
    }
}

/// A filter that does not compile: which member, its pattern, and the regex error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("filter `{member}` is not a valid regular expression ({source}); fix the pattern `{pattern}`")]
pub struct FilterError {
    member: &'static str,
    pattern: String,
    #[source]
    source: regex::Error,
}

impl FilterError {
    /// The filter member whose pattern is wrong: `tool_regex` or `args_regex`.
    pub fn member(&self) -> &'static str {
        self.member
    }

    /// The pattern as configured.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether the pattern is valid but compiles to more than the size limit.
    pub fn is_too_big(&self) -> bool {
        matches!(self.source, regex::Error::CompiledTooBig(_))
    }
}

fn compile_regex(member: &'static str, pattern: &str) -> Result<Regex, FilterError> {
    RegexBuilder::new(pattern).size_limit(REGEX_SIZE_LIMIT).build().map_err(|source| FilterError {
        member,
        pattern: pattern.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool_context(tool: &str) -> Context {
        Context { tool_name: Some(tool.into()), ..Context::default() }
    }

    #[test]
    fn matcher_pieces_are_trimmed_and_exact() {
        let filter = |m: &str| {
            CompiledFilter::compile(&HookFilter { tool_matcher: Some(m.into()), ..HookFilter::default() }).unwrap()
        };
        assert!(filter("Write| Bash ").matches(&tool_context("Bash")));
        assert!(!filter("Ba.*").matches(&tool_context("Bash")));
        assert!(!filter("bash").matches(&tool_context("Bash")));
        assert!(!filter("Bash").matches(&Context::default()));
    }

    #[test]
    fn bad_regex_names_member_and_pattern() {
        let filter = HookFilter { args_regex: Some("(unclosed".into()), ..HookFilter::default() };
        let err = CompiledFilter::compile(&filter).unwrap_err();
        assert_eq!((err.member(), err.pattern(), err.is_too_big()), ("args_regex", "(unclosed", false));
        assert!(err.to_string().ends_with("; fix the pattern `(unclosed`"), "{err}");
    }

    #[test]
    fn oversized_regex_is_an_error() {
        let filter = HookFilter { tool_regex: Some("\\w{1000}{1000}".into()), ..HookFilter::default() };
        let err = CompiledFilter::compile(&filter).unwrap_err();
        assert_eq!(err.member(), "tool_regex");
        assert!(err.is_too_big(), "{err}");
        assert!(err.to_string().starts_with("filter `tool_regex` is not a valid regular expression ("), "{err}");
        assert!(std::error::Error::source(&err).is_some());
    }
}
