//! `ChatModel::complete_streaming` over real HTTP against a ScriptedServer on 127.0.0.1:
//! text deltas arrive in order and as they are sent, tool calls are assembled across chunks
//! and interleaved indices, a server that ignores `stream` still works, a stalled stream
//! times out (a slow but steady one does not), and calls without ids get unique ones.

use std::{
    sync::Mutex,
    time::{Duration, Instant},
};

use hook_llm::{
    ChatModel, ChatRequest, ChatResponse, ModelError, OpenAiClient, OpenAiConfig, Reply, ScriptedServer, StreamChunk,
    StreamDelta,
};
use hook_protocol::{ChatMessage, MessageContent, Role, ToolCall};
use serde_json::json;

fn server(script: impl IntoIterator<Item = Reply>) -> ScriptedServer {
    ScriptedServer::start(script).expect("start the scripted server on 127.0.0.1")
}

fn client(server: &ScriptedServer) -> OpenAiClient {
    let config = OpenAiConfig { base_url: server.base_url(), api_key: Some("sk-test".into()), model: "m1".into() };
    OpenAiClient::new(config).expect("build the HTTP client")
}

/// Streams one call; returns its result and every delta with the time it arrived.
async fn stream(
    model: &dyn ChatModel,
    request: ChatRequest,
) -> (Result<ChatResponse, ModelError>, Vec<(Instant, StreamDelta)>) {
    let mut deltas = Vec::new();
    let result = model.complete_streaming(request, &mut |delta| deltas.push((Instant::now(), delta))).await;
    (result, deltas)
}

fn texts(deltas: &[(Instant, StreamDelta)]) -> Vec<String> {
    deltas
        .iter()
        .filter_map(|(_, delta)| match delta {
            StreamDelta::Text(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// The tool-call deltas, as `(index, id, name, arguments)`.
fn call_pieces(deltas: &[(Instant, StreamDelta)]) -> Vec<(usize, Option<String>, Option<String>, String)> {
    deltas
        .iter()
        .filter_map(|(_, delta)| match delta {
            StreamDelta::ToolCall { index, id, name, arguments } => {
                Some((*index, id.clone(), name.clone(), arguments.clone()))
            }
            _ => None,
        })
        .collect()
}

fn call_delta(index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) -> StreamChunk {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    StreamChunk::Delta(json!({"tool_calls": [call]}))
}

#[tokio::test]
async fn text_arrives_in_order_as_it_is_sent() {
    let server = server([
        Reply::Stream(vec![
            StreamChunk::Delta(json!({"role": "assistant", "content": ""})),
            StreamChunk::Delta(json!({"content": "Hel"})),
            StreamChunk::Pause(Duration::from_millis(300)),
            StreamChunk::Delta(json!({"content": "lo, "})),
            StreamChunk::Delta(json!({"content": "wörld 🌍"})),
            StreamChunk::Finish("stop".into()),
        ]),
        Reply::Content("Hello, wörld 🌍".into()),
    ]);
    let client = client(&server);

    let (result, deltas) = stream(&client, ChatRequest::default()).await;
    let streamed = result.unwrap();

    assert_eq!(texts(&deltas), ["Hel", "lo, ", "wörld 🌍"]);
    assert!(
        deltas[1].0.duration_since(deltas[0].0) >= Duration::from_millis(250),
        "the first piece was passed on before the rest was sent, not all at the end"
    );
    assert_eq!(streamed.message.text_content(), "Hello, wörld 🌍");
    assert_eq!(streamed.finish_reason.as_deref(), Some("stop"));
    let recorded = server.recorded();
    assert_eq!(recorded[0].body["stream"], json!(true));
    assert_eq!(recorded[0].body["stream_options"], json!({"include_usage": true}));
    assert_eq!(recorded[0].header("accept"), Some("text/event-stream"));

    // The same answer, not streamed: the same ChatResponse, usage and model included.
    let plain = client.complete(ChatRequest::default()).await.unwrap();
    assert_eq!(streamed, plain);
    assert!(streamed.usage.is_some(), "the usage chunk was read");
    assert_eq!(server.requests()[1].get("stream"), None, "complete does not ask for a stream");
}

#[tokio::test]
async fn a_tool_call_split_across_chunks_is_assembled() {
    let arguments = r#"{"path": "/tmp/a b.txt", "lines": [1, 2]}"#;
    let call = ToolCall::new("call_abc", "read_file", arguments);
    let server = server([
        Reply::Stream(vec![
            StreamChunk::Delta(json!({"role": "assistant", "content": null})),
            call_delta(0, Some("call_abc"), Some("read_file"), ""),
            call_delta(0, None, None, r#"{"pa"#),
            call_delta(0, None, None, r#"th": "/tmp/a"#),
            call_delta(0, None, None, r#" b.txt", "lines": [1"#),
            call_delta(0, None, None, r#", 2]}"#),
            StreamChunk::Finish("tool_calls".into()),
        ]),
        Reply::ToolCalls(vec![call.clone()], None),
    ]);
    let client = client(&server);

    let (result, deltas) = stream(&client, ChatRequest::default()).await;
    let streamed = result.unwrap();

    assert_eq!(streamed.message.tool_calls, Some(vec![call]));
    assert_eq!(streamed.message.content, None);
    assert_eq!(streamed.finish_reason.as_deref(), Some("tool_calls"));
    let pieces = call_pieces(&deltas);
    assert_eq!(pieces[0], (0, Some("call_abc".into()), Some("read_file".into()), String::new()));
    assert!(pieces[1..].iter().all(|(index, id, name, _)| *index == 0 && id.is_none() && name.is_none()), "{pieces:?}");
    assert_eq!(pieces.iter().map(|piece| piece.3.as_str()).collect::<String>(), arguments);
    assert!(texts(&deltas).is_empty());

    let plain = client.complete(ChatRequest::default()).await.unwrap();
    assert_eq!(streamed.message, plain.message);
    assert_eq!(streamed.finish_reason, plain.finish_reason);
}

#[tokio::test]
async fn parallel_tool_calls_interleaved_by_index() {
    let server = server([Reply::Stream(vec![
        StreamChunk::Delta(json!({"role": "assistant", "content": "Looking."})),
        call_delta(0, Some("c0"), Some("ls"), ""),
        call_delta(1, Some("c1"), Some("cat"), r#"{"file""#),
        call_delta(0, None, None, r#"{"dir":"#),
        // Both calls in one chunk.
        StreamChunk::Delta(json!({"tool_calls": [
            {"index": 1, "function": {"arguments": r#": "b.txt"#}},
            {"index": 0, "function": {"arguments": r#" "src"#}},
        ]})),
        call_delta(1, None, None, r#""}"#),
        call_delta(0, None, None, r#""}"#),
        StreamChunk::Finish("tool_calls".into()),
    ])]);

    let (result, deltas) = stream(&client(&server), ChatRequest::default()).await;
    let response = result.unwrap();

    assert_eq!(
        response.message.tool_calls,
        Some(vec![ToolCall::new("c0", "ls", r#"{"dir": "src"}"#), ToolCall::new("c1", "cat", r#"{"file": "b.txt"}"#)])
    );
    assert_eq!(response.message.text_content(), "Looking.");
    let indices: Vec<usize> = call_pieces(&deltas).iter().map(|piece| piece.0).collect();
    assert_eq!(indices, [0, 1, 0, 1, 0, 1, 0], "pieces are passed on as they come");
}

#[tokio::test]
async fn a_server_that_ignores_stream_still_works() {
    let call = ToolCall::new("c9", "ls", "{}");
    let server =
        server([Reply::Content("a plain answer".into()), Reply::ToolCalls(vec![call.clone()], Some("so".into()))]);
    let client = client(&server);

    let (result, deltas) = stream(&client, ChatRequest::default()).await;
    let response = result.unwrap();
    assert_eq!(response.message.text_content(), "a plain answer");
    assert_eq!(texts(&deltas), ["a plain answer"], "the whole text as one delta");
    assert_eq!(server.requests()[0]["stream"], json!(true), "a stream was asked for");

    let (result, deltas) = stream(&client, ChatRequest::default()).await;
    let response = result.unwrap();
    assert_eq!(response.message.tool_calls, Some(vec![call]));
    assert_eq!(texts(&deltas), ["so"]);
    assert_eq!(call_pieces(&deltas), [(0, Some("c9".into()), Some("ls".into()), "{}".into())]);
}

#[tokio::test]
async fn a_stream_that_stalls_times_out() {
    let server = server([Reply::Stream(vec![
        StreamChunk::Delta(json!({"content": "Hel"})),
        StreamChunk::Pause(Duration::from_secs(30)),
        StreamChunk::Delta(json!({"content": "lo"})),
    ])]);
    let client = client(&server).with_timeout(Duration::from_secs(1));

    let started = Instant::now();
    let (result, deltas) = stream(&client, ChatRequest::default()).await;
    let elapsed = started.elapsed();

    assert_eq!(result.unwrap_err(), ModelError::Timeout { after: Duration::from_secs(1) });
    assert_eq!(texts(&deltas), ["Hel"]);
    assert!(elapsed >= Duration::from_millis(950) && elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert_eq!(server.n_requests(), 1, "a stream that showed text is not asked again");
}

#[tokio::test]
async fn a_slow_but_steady_stream_is_not_cut() {
    let mut chunks = Vec::new();
    for piece in ["a", "b", "c", "d", "e"] {
        chunks.push(StreamChunk::Delta(json!({"content": piece})));
        chunks.push(StreamChunk::Pause(Duration::from_millis(350)));
    }
    chunks.push(StreamChunk::Finish("stop".into()));
    let server = server([Reply::Stream(chunks)]);
    let client = client(&server).with_timeout(Duration::from_secs(1));

    let started = Instant::now();
    let (result, _) = stream(&client, ChatRequest::default()).await;

    assert!(started.elapsed() > Duration::from_secs(1), "the whole stream took longer than the timeout");
    assert_eq!(result.unwrap().message.text_content(), "abcde");
}

#[tokio::test]
async fn the_call_timeout_bounds_a_whole_stream() {
    let mut chunks = Vec::new();
    for _ in 0..20 {
        chunks.push(StreamChunk::Delta(json!({"content": "."})));
        chunks.push(StreamChunk::Pause(Duration::from_millis(100)));
    }
    let server = server([Reply::Stream(chunks)]);
    let request = ChatRequest { timeout: Some(Duration::from_millis(700)), ..ChatRequest::default() };

    let started = Instant::now();
    let (result, deltas) = stream(&client(&server), request).await;

    assert_eq!(result.unwrap_err(), ModelError::Timeout { after: Duration::from_millis(700) });
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert!((3..20).contains(&deltas.len()), "{}", deltas.len());
}

#[tokio::test]
async fn tool_calls_without_ids_get_unique_ones() {
    let server = server([
        Reply::Stream(vec![
            call_delta(0, None, Some("ls"), "{}"),
            call_delta(1, None, Some("pwd"), "{}"),
            StreamChunk::Finish("tool_calls".into()),
        ]),
        Reply::ToolCalls(
            vec![ToolCall::new("", "a", "{}"), ToolCall::new("call_0", "b", "{}"), ToolCall::new("", "c", "{}")],
            None,
        ),
    ]);
    let client = client(&server);

    let (result, _) = stream(&client, ChatRequest::default()).await;
    let streamed = result.unwrap().message.tool_calls.unwrap();
    let ids: Vec<&str> = streamed.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1"]);

    let plain = client.complete(ChatRequest::default()).await.unwrap().message.tool_calls.unwrap();
    let ids: Vec<&str> = plain.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids, ["call_1", "call_0", "call_2"], "unique, the server's own id kept");
}

#[tokio::test]
async fn comments_crlf_and_events_split_across_writes() {
    let server = server([Reply::Stream(vec![
        StreamChunk::Raw(": keep-alive\r\n\r\n".into()),
        StreamChunk::Raw(r#"data: {"choices":[{"index":0,"delta":{"content":"sp"#.into()),
        StreamChunk::Pause(Duration::from_millis(50)),
        StreamChunk::Raw("lit\"}}]}\r\n\r\n".into()),
        StreamChunk::Raw("data:{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n".into()),
    ])]);

    let (result, deltas) = stream(&client(&server), ChatRequest::default()).await;

    assert_eq!(result.unwrap().message.text_content(), "split");
    assert_eq!(texts(&deltas), ["split"]);
}

#[tokio::test]
async fn an_error_event_fails_the_call() {
    let server = server([Reply::Stream(vec![
        StreamChunk::Delta(json!({"content": "Hi"})),
        StreamChunk::Raw("data: {\"error\": {\"message\": \"the engine is overloaded\"}}\n\n".into()),
    ])]);

    let (result, _) = stream(&client(&server), ChatRequest::default()).await;

    let error = result.unwrap_err();
    assert!(
        matches!(&error, ModelError::InvalidResponse { message, .. } if message.contains("the engine is overloaded")),
        "{error:?}"
    );
}

/// A model with only `complete`: the default `complete_streaming` reports its whole answer.
#[derive(Debug)]
struct Fixed(Mutex<usize>);

#[async_trait::async_trait]
impl ChatModel for Fixed {
    async fn complete(&self, _request: ChatRequest) -> Result<ChatResponse, ModelError> {
        *self.0.lock().unwrap() += 1;
        let mut message = ChatMessage::text(Role::Assistant, "all at once");
        message.tool_calls = Some(vec![ToolCall::new("c1", "ls", "{}")]);
        Ok(ChatResponse { message, model: "fixed".into(), usage: None, finish_reason: Some("stop".into()) })
    }

    fn model_name(&self) -> &str {
        "fixed"
    }
}

#[tokio::test]
async fn the_default_streaming_falls_back_to_complete() {
    let model = Fixed(Mutex::new(0));

    let (result, deltas) = stream(&model, ChatRequest::default()).await;

    assert_eq!(result.unwrap().message.content, Some(MessageContent::Text("all at once".into())));
    assert_eq!(*model.0.lock().unwrap(), 1);
    assert_eq!(texts(&deltas), ["all at once"]);
    assert_eq!(call_pieces(&deltas), [(0, Some("c1".into()), Some("ls".into()), "{}".into())]);
}
