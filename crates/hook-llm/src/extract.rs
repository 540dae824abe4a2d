//! Finding the `HookResult` JSON object in a model's reply, whatever prose or fences surround it.

use hook_protocol::{HookResult, ParseError, serde_json};

/// Why a reply holds no usable `HookResult`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtractError {
    /// No `{` starts a JSON object anywhere in the reply.
    NoObject,
    /// The first JSON object found is not a valid `HookResult` (and no later one is).
    NotHookResult(ParseError),
}

impl std::fmt::Display for ExtractError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtractError::NoObject => f.write_str("the reply holds no JSON object"),
            ExtractError::NotHookResult(error) => write!(f, "the reply's JSON object is not a HookResult: {error}"),
        }
    }
}

impl std::error::Error for ExtractError {}

/// Reads the `HookResult` in a model's reply.
///
/// An empty reply or `{}` means no change. Otherwise each `{` is tried in order as the start
/// of a JSON value; the first one that is an object and a valid `HookResult` wins. Braces in
/// prose fail to parse and are passed over; braces inside a JSON string are part of that
/// string; an object that parses but is not a `HookResult` is skipped whole, so an object
/// nested inside it is never taken for the answer.
pub fn extract_hook_result(reply: &str) -> Result<HookResult, ExtractError> {
    let reply = reply.trim();
    if reply.is_empty() || reply == "{}" {
        return Ok(HookResult::default());
    }
    let mut first_error = None;
    let mut from = 0;
    while let Some(offset) = reply[from..].find('{') {
        let start = from + offset;
        let mut values = serde_json::Deserializer::from_str(&reply[start..]).into_iter::<serde_json::Value>();
        match values.next() {
            Some(Ok(value @ serde_json::Value::Object(_))) => {
                let end = start + values.byte_offset();
                match hook_protocol::from_json_value::<HookResult>(value) {
                    Ok(result) => return Ok(result),
                    Err(error) => {
                        first_error.get_or_insert(error);
                        from = end;
                    }
                }
            }
            _ => from = start + 1,
        }
    }
    Err(first_error.map_or(ExtractError::NoObject, ExtractError::NotHookResult))
}

#[cfg(test)]
mod tests {
    use hook_protocol::jcli::JcliAction;

    use super::*;

    #[test]
    fn plain_fenced_and_surrounded() {
        assert_eq!(extract_hook_result("  {}  ").unwrap(), HookResult::default());
        assert_eq!(extract_hook_result("").unwrap(), HookResult::default());
        let result = extract_hook_result("Sure:\n```json\n{\"user_input\":\"from-llm\"}\n```").unwrap();
        assert_eq!(result.user_input.as_deref(), Some("from-llm"));
        let result =
            extract_hook_result(r#"I see {a brace} here. {"action":"stop","reason":"uses } and {"} and {more}"#)
                .unwrap();
        assert_eq!(result.action, Some(JcliAction::Stop));
        assert_eq!(result.reason.as_deref(), Some("uses } and {"));
    }

    #[test]
    fn an_invalid_object_is_skipped_whole() {
        let error = extract_hook_result(r#"{"action":"deny","nested":{}}"#).unwrap_err();
        assert!(matches!(&error, ExtractError::NotHookResult(e) if e.path == "action"), "{error}");
        let result = extract_hook_result(r#"{"action":"deny"} then {"action":"skip"}"#).unwrap();
        assert_eq!(result.action, Some(JcliAction::Skip));
        assert_eq!(extract_hook_result("no json here").unwrap_err(), ExtractError::NoObject);
        assert_eq!(extract_hook_result("[1, 2] {oops").unwrap_err(), ExtractError::NoObject);
    }
}
