//! The JSON-RPC 2.0 envelope used by process hooks: one JSON object per line each way.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `jsonrpc` member: always `"2.0"`.
pub const VERSION: &str = "2.0";

fn version() -> String {
    VERSION.to_owned()
}

/// A request id: an integer or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Id {
    /// An integer id (hookwire sends these, counting from 1).
    Number(i64),
    /// A string id.
    String(String),
}

impl Id {
    /// The integer this id stands for: the number itself, or a string holding a decimal integer
    /// (`"7"` for `7`, as hook authors write).
    pub fn as_number(&self) -> Option<i64> {
        match self {
            Id::Number(n) => Some(*n),
            Id::String(s) => s.trim().parse().ok(),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A request: expects a response with the same id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Request<P = Value> {
    /// `"2.0"`.
    #[serde(default = "version")]
    pub jsonrpc: String,
    /// Correlates the response.
    pub id: Id,
    /// e.g. `hook.before_tool`.
    pub method: String,
    /// Method parameters.
    pub params: P,
}

impl<P> Request<P> {
    /// A `2.0` request.
    pub fn new(id: Id, method: impl Into<String>, params: P) -> Self {
        Request { jsonrpc: version(), id, method: method.into(), params }
    }
}

/// A notification: a request without id, never answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Notification<P = Value> {
    /// `"2.0"`.
    #[serde(default = "version")]
    pub jsonrpc: String,
    /// e.g. `hook.event`.
    pub method: String,
    /// Method parameters.
    pub params: P,
}

impl<P> Notification<P> {
    /// A `2.0` notification.
    pub fn new(method: impl Into<String>, params: P) -> Self {
        Notification { jsonrpc: version(), method: method.into(), params }
    }
}

/// A successful response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Response<R = Value> {
    /// `"2.0"`.
    #[serde(default = "version")]
    pub jsonrpc: String,
    /// The request's id.
    pub id: Id,
    /// The method's result.
    pub result: R,
}

impl<R> Response<R> {
    /// A `2.0` response.
    pub fn new(id: Id, result: R) -> Self {
        Response { jsonrpc: version(), id, result }
    }
}

/// An error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorResponse {
    /// `"2.0"`.
    #[serde(default = "version")]
    pub jsonrpc: String,
    /// The request's id (`null` when the request could not be read).
    pub id: Option<Id>,
    /// What went wrong.
    pub error: RpcError,
}

impl ErrorResponse {
    /// A `2.0` error response.
    pub fn new(id: Option<Id>, error: RpcError) -> Self {
        ErrorResponse { jsonrpc: version(), id, error }
    }
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RpcError {
    /// JSON-RPC code (`-32601` method not found, `-32000` application error, ...).
    pub code: i64,
    /// Human-readable message.
    pub message: String,
    /// Optional detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// `-32700`: the line was not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// `-32600`: not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// `-32601`: the method is not served.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// `-32602`: the params do not fit the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// `-32000`: the handler failed.
    pub const APPLICATION_ERROR: i64 = -32000;

    /// An error with code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
    }
}

/// Any message read from a peer, classified by its members.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// `method` and `id`.
    Request(Request<Value>),
    /// `method` without `id` (or with `id` 0 or `null`, which PicoClaw treats as a notification).
    Notification(Notification<Value>),
    /// `id` and `result`.
    Response(Response<Value>),
    /// `error` (the id may be missing).
    Error(ErrorResponse),
}

/// Why a line is not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageError {
    /// Not JSON at all.
    NotJson(String),
    /// JSON, but not an object with `method`, `result` or `error`.
    NotAMessage(String),
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::NotJson(e) => write!(f, "not JSON: {e}"),
            MessageError::NotAMessage(e) => write!(f, "not a JSON-RPC message: {e}"),
        }
    }
}

impl std::error::Error for MessageError {}

impl Message {
    /// Reads one line (without its newline).
    pub fn parse(line: &[u8]) -> Result<Message, MessageError> {
        let value: Value = serde_json::from_slice(line).map_err(|e| MessageError::NotJson(e.to_string()))?;
        Message::from_value(value)
    }

    /// Classifies a JSON value.
    pub fn from_value(value: Value) -> Result<Message, MessageError> {
        let Value::Object(mut object) = value else {
            return Err(MessageError::NotAMessage("expected a JSON object".into()));
        };
        let jsonrpc = match object.remove("jsonrpc") {
            Some(Value::String(v)) => v,
            _ => version(),
        };
        let id = match object.remove("id") {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                serde_json::from_value::<Id>(value)
                    .map_err(|_| MessageError::NotAMessage("`id` must be an integer or a string".into()))?,
            ),
        };
        if let Some(error) = object.remove("error") {
            let error = serde_json::from_value::<RpcError>(error)
                .map_err(|e| MessageError::NotAMessage(format!("bad `error` member: {e}")))?;
            return Ok(Message::Error(ErrorResponse { jsonrpc, id, error }));
        }
        if let Some(method) = object.remove("method") {
            let Value::String(method) = method else {
                return Err(MessageError::NotAMessage("`method` must be a string".into()));
            };
            let params = object.remove("params").unwrap_or(Value::Null);
            return Ok(match id {
                Some(id) if id != Id::Number(0) => Message::Request(Request { jsonrpc, id, method, params }),
                _ => Message::Notification(Notification { jsonrpc, method, params }),
            });
        }
        match (id, object.remove("result")) {
            (Some(id), Some(result)) => Ok(Message::Response(Response { jsonrpc, id, result })),
            // A response whose `result` is missing is answered with `null`, as PicoClaw accepts it.
            (Some(id), None) => Ok(Message::Response(Response { jsonrpc, id, result: Value::Null })),
            (None, _) => Err(MessageError::NotAMessage("no `method`, `id` or `error` member".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_shape() {
        let cases = [
            (r#"{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{}}"#, "request"),
            (r#"{"jsonrpc":"2.0","method":"hook.event","params":{}}"#, "notification"),
            (r#"{"jsonrpc":"2.0","id":0,"method":"hook.event","params":{}}"#, "notification"),
            (r#"{"jsonrpc":"2.0","id":"7","result":{}}"#, "response"),
            (r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}"#, "error"),
        ];
        for (line, kind) in cases {
            let got = match Message::parse(line.as_bytes()).unwrap() {
                Message::Request(_) => "request",
                Message::Notification(_) => "notification",
                Message::Response(_) => "response",
                Message::Error(_) => "error",
            };
            assert_eq!(got, kind, "{line}");
        }
        assert!(matches!(Message::parse(b"garbage"), Err(MessageError::NotJson(_))));
        assert!(matches!(Message::parse(b"[1]"), Err(MessageError::NotAMessage(_))));
        assert!(matches!(Message::parse(br#"{"id":true,"result":{}}"#), Err(MessageError::NotAMessage(_))));
    }

    #[test]
    fn string_ids_match_numbers() {
        assert_eq!(Id::String("7".into()).as_number(), Some(7));
        assert_eq!(Id::Number(7).as_number(), Some(7));
        assert_eq!(Id::String("abc".into()).as_number(), None);
    }
}
