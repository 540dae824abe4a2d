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
    /// The j-cli matcher as written, for the reason a hook was filtered out.
    tool_matcher_text: Option<String>,
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
            tool_matcher_text: filter.tool_matcher.clone(),
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

impl CompiledFilter {
    /// Why `context` fails the filter: the first condition that does not hold, named with its
    /// pattern and the value it was compared with (`tool_matcher "Bash" did not match tool
    /// "bash"`); `None` when it [matches](Self::matches). Allocates only when it fails.
    pub fn why_not(&self, context: &Context) -> Option<String> {
        let tool = context.tool_name.as_deref();
        let on_tool = |member: &str, pattern: &str| match tool {
            Some(tool) => format!("{member} {pattern:?} did not match tool {tool:?}"),
            None => format!("{member} {pattern:?}: the event names no tool"),
        };
        if let Some(name) = &self.tool_name {
            if tool != Some(name.as_str()) {
                return Some(on_tool("tool_name", name));
            }
        } else if let Some(pieces) = &self.tool_matcher
            && !tool.is_some_and(|tool| pieces.iter().any(|piece| piece == tool))
        {
            return Some(on_tool("tool_matcher", self.tool_matcher_text.as_deref().unwrap_or_default()));
        }
        if let Some(prefix) = &self.model_prefix
            && !context.model.as_deref().is_some_and(|model| model.starts_with(prefix.as_str()))
        {
            return Some(match context.model.as_deref() {
                Some(model) => format!("model_prefix {prefix:?} did not match model {model:?}"),
                None => format!("model_prefix {prefix:?}: the event names no model"),
            });
        }
        if let Some(regex) = &self.tool_regex
            && !tool.is_some_and(|tool| regex.is_match(tool))
        {
            return Some(on_tool("tool_regex", regex.as_str()));
        }
        if let Some(regex) = &self.args_regex
            && !context.tool_arguments.as_deref().is_some_and(|args| regex.is_match(args))
        {
            // The arguments are not quoted: they may be large, or secret.
            return Some(match context.tool_arguments {
                Some(_) => format!("args_regex {:?} did not match the tool arguments", regex.as_str()),
                None => format!("args_regex {:?}: the event has no tool arguments", regex.as_str()),
            });
        }
        None
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
    fn why_not_names_the_failing_condition_and_the_value() {
        let compile = |filter: HookFilter| CompiledFilter::compile(&filter).unwrap();
        let matcher = compile(HookFilter { tool_matcher: Some("Write| Bash".into()), ..HookFilter::default() });
        assert_eq!(matcher.why_not(&tool_context("Bash")), None);
        assert_eq!(
            matcher.why_not(&tool_context("bash")).as_deref(),
            Some(r#"tool_matcher "Write| Bash" did not match tool "bash""#)
        );
        assert_eq!(
            matcher.why_not(&Context::default()).as_deref(),
            Some(r#"tool_matcher "Write| Bash": the event names no tool"#)
        );
        let name = compile(HookFilter { tool_name: Some("Bash".into()), ..HookFilter::default() });
        assert_eq!(
            name.why_not(&tool_context("Read")).as_deref(),
            Some(r#"tool_name "Bash" did not match tool "Read""#)
        );
        let regex = compile(HookFilter { tool_regex: Some("^Bash$".into()), ..HookFilter::default() });
        assert_eq!(
            regex.why_not(&tool_context("bash")).as_deref(),
            Some(r#"tool_regex "^Bash$" did not match tool "bash""#)
        );
        let model = compile(HookFilter { model_prefix: Some("gpt".into()), ..HookFilter::default() });
        let context = Context { model: Some("claude-x".into()), ..Context::default() };
        assert_eq!(model.why_not(&context).as_deref(), Some(r#"model_prefix "gpt" did not match model "claude-x""#));
        let args = compile(HookFilter { args_regex: Some("rm ".into()), ..HookFilter::default() });
        let context = Context { tool_arguments: Some(r#"{"command":"ls"}"#.into()), ..tool_context("Bash") };
        assert_eq!(args.why_not(&context).as_deref(), Some(r#"args_regex "rm " did not match the tool arguments"#));
        // why_not agrees with matches on every case above.
        for (filter, context) in [(&matcher, tool_context("Write")), (&args, tool_context("Bash"))] {
            assert_eq!(filter.matches(&context), filter.why_not(&context).is_none());
        }
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
