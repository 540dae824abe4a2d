//! Reading a streamed chat completion: server-sent events ([`SseParser`]) and the assembly of
//! `chat.completion.chunk`s into one [`ChatResponse`] ([`Assembly`]).

use std::collections::HashSet;

use hook_core::head_chars;
use hook_protocol::{
    ChatMessage, FunctionCall, MessageContent, Role, ToolCall,
    serde_json::{self, Map, Value},
};

use crate::{ChatResponse, ModelError, StreamDelta, Usage};

/// How many characters of a bad chunk are kept in [`ModelError::InvalidResponse`].
const CHUNK_HEAD_CHARS: usize = 500;

/// Splits a `text/event-stream` body into the data of its events, whatever the byte boundaries.
///
/// Lines end with `\n` or `\r\n`; `data:` lines of one event are joined with `\n`; a blank
/// line ends an event; comments (`: ...`) and other fields (`event:`, `id:`, `retry:`) are
/// skipped.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// Reads `bytes`; pushes the data of each event they complete onto `events`.
    pub(crate) fn feed(&mut self, bytes: &[u8], events: &mut Vec<String>) {
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|&byte| byte == b'\n') {
            self.line.extend_from_slice(&rest[..end]);
            rest = &rest[end + 1..];
            let line = std::mem::take(&mut self.line);
            self.read_line(&line, events);
        }
        self.line.extend_from_slice(rest);
    }

    /// The end of the body: an event left without its blank line still counts.
    pub(crate) fn finish(&mut self, events: &mut Vec<String>) {
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() {
            self.read_line(&line, events);
        }
        self.dispatch(events);
    }

    fn read_line(&mut self, line: &[u8], events: &mut Vec<String>) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return self.dispatch(events);
        }
        let line = String::from_utf8_lossy(line);
        if line.starts_with(':') {
            return;
        }
        let (field, value) = line.split_once(':').unwrap_or((&line, ""));
        if field == "data" {
            if self.has_data {
                self.data.push('\n');
            }
            self.data.push_str(value.strip_prefix(' ').unwrap_or(value));
            self.has_data = true;
        }
    }

    fn dispatch(&mut self, events: &mut Vec<String>) {
        if std::mem::take(&mut self.has_data) {
            events.push(std::mem::take(&mut self.data));
        }
    }
}

/// One tool call being assembled from its pieces.
#[derive(Debug, Default)]
struct PartialCall {
    index: usize,
    id: String,
    kind: Option<String>,
    name: String,
    arguments: String,
    function_extra: Map<String, Value>,
    extra: Map<String, Value>,
}

/// The answer assembled from the chunks of a stream so far.
#[derive(Debug, Default)]
pub(crate) struct Assembly {
    content: Option<String>,
    calls: Vec<PartialCall>,
    extra: Map<String, Value>,
    finish_reason: Option<String>,
    model: Option<String>,
    usage: Option<Usage>,
    /// Chunks read so far.
    pub(crate) n_chunks: usize,
    /// Whether a delta has been passed on (the call can no longer be retried unseen).
    pub(crate) delivered: bool,
}

impl Assembly {
    /// Reads the data of one event; `Ok(true)` on `[DONE]`.
    pub(crate) fn event(
        &mut self,
        data: &str,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<bool, ModelError> {
        let data = data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        match serde_json::from_str::<Value>(data) {
            Ok(chunk) => self.chunk(&chunk, data, on_delta).map(|()| false),
            // Some servers put several `data:` lines, each a whole chunk, in one event.
            Err(_) if data.contains('\n') => {
                for line in data.lines() {
                    if self.event(line, on_delta)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Err(error) => Err(invalid(format!("a stream event is not JSON: {error}"), data)),
        }
    }

    fn chunk(
        &mut self,
        chunk: &Value,
        data: &str,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<(), ModelError> {
        let Some(chunk) = chunk.as_object() else {
            return Err(invalid("a stream chunk is not a JSON object".into(), data));
        };
        if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
            let message = error.get("message").and_then(Value::as_str).map_or_else(|| error.to_string(), str::to_owned);
            return Err(invalid(format!("the stream reported an error: {message}"), data));
        }
        self.n_chunks += 1;
        if self.model.is_none()
            && let Some(model) = chunk.get("model").and_then(Value::as_str).filter(|model| !model.is_empty())
        {
            self.model = Some(model.to_owned());
        }
        if let Some(value) = chunk.get("usage").filter(|usage| usage.is_object()) {
            self.usage = Some(usage(value));
        }
        let choices = chunk.get("choices").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let Some(choice) = choices.iter().find(|choice| choice.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        else {
            return Ok(());
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta").and_then(Value::as_object) else { return Ok(()) };
        for (key, value) in delta {
            match (key.as_str(), value) {
                ("role" | "function_call", _) | (_, Value::Null) => {}
                ("content", Value::String(text)) => {
                    self.content.get_or_insert_default().push_str(text);
                    if !text.is_empty() {
                        self.deliver(StreamDelta::Text(text.clone()), on_delta);
                    }
                }
                ("content", _) => {}
                ("tool_calls", Value::Array(pieces)) => {
                    for (position, piece) in pieces.iter().enumerate() {
                        if let Some(piece) = piece.as_object() {
                            self.tool_call_piece(piece, position, on_delta);
                        }
                    }
                }
                // Provider extensions (`reasoning_content`, ...): text pieces are appended.
                (_, Value::String(text)) => match self.extra.get_mut(key) {
                    Some(Value::String(so_far)) => so_far.push_str(text),
                    _ => {
                        self.extra.insert(key.clone(), value.clone());
                    }
                },
                _ => {
                    self.extra.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(())
    }

    fn tool_call_piece(
        &mut self,
        piece: &Map<String, Value>,
        position: usize,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) {
        let id = piece.get("id").and_then(Value::as_str).filter(|id| !id.is_empty());
        let index = match piece.get("index").and_then(Value::as_u64) {
            Some(index) => usize::try_from(index).unwrap_or(usize::MAX),
            // Without `index`: a new id starts a new call, a piece without one continues the last.
            None => match (id, self.calls.last()) {
                (Some(id), _) => self.calls.iter().find(|call| call.id == id).map_or_else(
                    || self.calls.iter().map(|call| call.index + 1).max().unwrap_or(position),
                    |call| call.index,
                ),
                (None, Some(last)) => last.index,
                (None, None) => position,
            },
        };
        let slot = match self.calls.iter().position(|call| call.index == index) {
            Some(slot) => slot,
            None => {
                self.calls.push(PartialCall { index, ..PartialCall::default() });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[slot];
        if let Some(id) = id
            && call.id.is_empty()
        {
            call.id = id.to_owned();
        }
        let mut name = None;
        let mut arguments = String::new();
        for (key, value) in piece {
            match (key.as_str(), value) {
                ("index" | "id", _) | (_, Value::Null) => {}
                ("type", Value::String(kind)) => call.kind = Some(kind.clone()),
                ("function", Value::Object(function)) => {
                    for (key, value) in function {
                        match (key.as_str(), value) {
                            (_, Value::Null) => {}
                            ("name", Value::String(piece_name)) => {
                                // Sent once by OpenAI; some servers repeat it in every piece.
                                if call.name.is_empty() {
                                    call.name = piece_name.clone();
                                } else if call.name != *piece_name {
                                    call.name.push_str(piece_name);
                                }
                                name = Some(piece_name.clone());
                            }
                            ("arguments", Value::String(text)) => arguments.push_str(text),
                            ("arguments", object) if call.arguments.is_empty() => arguments = object.to_string(),
                            _ => {
                                call.function_extra.insert(key.clone(), value.clone());
                            }
                        }
                    }
                }
                _ => {
                    call.extra.insert(key.clone(), value.clone());
                }
            }
        }
        call.arguments.push_str(&arguments);
        if id.is_some() || name.is_some() || !arguments.is_empty() {
            let delta = StreamDelta::ToolCall { index, id: id.map(str::to_owned), name, arguments };
            self.deliver(delta, on_delta);
        }
    }

    fn deliver(&mut self, delta: StreamDelta, on_delta: &mut (dyn FnMut(StreamDelta) + Send)) {
        self.delivered = true;
        on_delta(delta);
    }

    /// The complete answer: calls in index order, each with an id.
    pub(crate) fn finish(mut self) -> ChatResponse {
        self.calls.sort_by_key(|call| call.index);
        let mut calls: Vec<ToolCall> = self
            .calls
            .into_iter()
            .map(|call| ToolCall {
                id: call.id,
                kind: call.kind.unwrap_or_else(|| "function".into()),
                function: FunctionCall { name: call.name, arguments: call.arguments, extra: call.function_extra },
                extra: call.extra,
            })
            .collect();
        give_ids(&mut calls);
        ChatResponse {
            message: ChatMessage {
                role: Role::Assistant,
                content: self.content.map(MessageContent::Text),
                tool_calls: Some(calls).filter(|calls| !calls.is_empty()),
                tool_call_id: None,
                name: None,
                extra: self.extra,
            },
            model: self.model.unwrap_or_default(),
            usage: self.usage,
            finish_reason: self.finish_reason,
        }
    }
}

/// Gives each call without an id one, `call_<n>`, unique among the calls' ids.
pub(crate) fn give_ids(calls: &mut [ToolCall]) {
    let taken: HashSet<String> = calls.iter().map(|call| call.id.clone()).filter(|id| !id.is_empty()).collect();
    let mut n = 0usize;
    for call in calls.iter_mut().filter(|call| call.id.trim().is_empty()) {
        call.id = loop {
            let id = format!("call_{n}");
            n += 1;
            if !taken.contains(&id) {
                break id;
            }
        };
    }
}

/// Token counts from a `usage` object; missing counts are 0.
pub(crate) fn usage(value: &Value) -> Usage {
    let count = |name: &str| value.get(name).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        prompt_tokens: count("prompt_tokens"),
        completion_tokens: count("completion_tokens"),
        total_tokens: count("total_tokens"),
    }
}

fn invalid(message: String, data: &str) -> ModelError {
    ModelError::InvalidResponse { message, body_head: head_chars(data, CHUNK_HEAD_CHARS) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_of(pieces: &[&[u8]]) -> Vec<String> {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        for piece in pieces {
            parser.feed(piece, &mut events);
        }
        parser.finish(&mut events);
        events
    }

    #[test]
    fn events_survive_any_byte_boundary() {
        let body = ": keep-alive\r\n\r\ndata: {\"a\":1}\r\n\r\nevent: message\nid: 7\ndata:{\"b\":\ndata: 2}\n\ndata: [DONE]\n\n";
        let whole = events_of(&[body.as_bytes()]);
        assert_eq!(whole, ["{\"a\":1}", "{\"b\":\n2}", "[DONE]"]);
        let bytes: Vec<&[u8]> = body.as_bytes().chunks(1).collect();
        assert_eq!(events_of(&bytes), whole, "fed one byte at a time");
        let multibyte = "data: {\"c\":\"密钥🔑\"}\n\n".as_bytes();
        let split: Vec<&[u8]> = multibyte.chunks(3).collect();
        assert_eq!(events_of(&split), ["{\"c\":\"密钥🔑\"}"], "characters split across reads");
        assert_eq!(events_of(&[b"data: last"]), ["last"], "an event cut off by the end still counts");
    }

    #[test]
    fn deltas_assemble_into_a_response() {
        let mut assembly = Assembly::default();
        let mut seen = Vec::new();
        let mut on_delta = |delta: StreamDelta| seen.push(delta);
        for data in [
            r#"{"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"hm"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hi","reasoning_content":"m."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"ls","arguments":"{\"p"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\":1}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}"#,
        ] {
            assert!(!assembly.event(data, &mut on_delta).unwrap());
        }
        assert!(assembly.event("[DONE]", &mut on_delta).unwrap());
        assert!(assembly.delivered);
        let response = assembly.finish();
        assert_eq!(response.message.text_content(), "Hi");
        assert_eq!(response.message.extra.get("reasoning_content"), Some(&Value::String("hmm.".into())));
        assert_eq!(response.message.tool_calls, Some(vec![ToolCall::new("c1", "ls", r#"{"p":1}"#)]));
        assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(response.model, "m1");
        assert_eq!(response.usage, Some(Usage { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }));
        assert_eq!(seen[0], StreamDelta::Text("Hi".into()));
        assert_eq!(seen.len(), 3, "{seen:?}");
    }

    #[test]
    fn calls_without_index_or_id() {
        let mut assembly = Assembly::default();
        let mut on_delta = |_: StreamDelta| {};
        for data in [
            // One whole call per chunk, no index (as some servers send them).
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"y","arguments":{"k":1}}}]}}]}"#,
            // No id at all, name repeated in every piece.
            r#"{"choices":[{"delta":{"tool_calls":[{"index":5,"function":{"name":"z","arguments":"["}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":5,"function":{"name":"z","arguments":"]"}}]}}]}"#,
        ] {
            assembly.event(data, &mut on_delta).unwrap();
        }
        let calls = assembly.finish().message.tool_calls.unwrap();
        assert_eq!(
            calls,
            vec![
                ToolCall::new("a", "x", "{}"),
                ToolCall::new("b", "y", r#"{"k":1}"#),
                ToolCall::new("call_0", "z", "[]")
            ]
        );
    }

    #[test]
    fn bad_chunks_are_errors() {
        let mut on_delta = |_: StreamDelta| {};
        let error = Assembly::default().event("{not json", &mut on_delta).unwrap_err();
        assert!(
            matches!(&error, ModelError::InvalidResponse { message, .. } if message.contains("not JSON")),
            "{error:?}"
        );
        let error = Assembly::default().event(r#"{"error":{"message":"overloaded"}}"#, &mut on_delta).unwrap_err();
        assert!(
            matches!(&error, ModelError::InvalidResponse { message, .. } if message.contains("overloaded")),
            "{error:?}"
        );
    }

    #[test]
    fn missing_ids_are_unique() {
        let mut calls = vec![
            ToolCall::new("", "a", "{}"),
            ToolCall::new("call_0", "b", "{}"),
            ToolCall::new("  ", "c", "{}"),
            ToolCall::new("call_2", "d", "{}"),
            ToolCall::new("", "e", "{}"),
        ];
        give_ids(&mut calls);
        let ids: Vec<&str> = calls.iter().map(|call| call.id.as_str()).collect();
        assert_eq!(ids, ["call_1", "call_0", "call_3", "call_2", "call_4"]);
    }
}
