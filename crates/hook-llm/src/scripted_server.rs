//! `ScriptedServer`: a test and demo utility, an OpenAI-compatible HTTP server on 127.0.0.1
//! that answers `/chat/completions` with a script of replies and records every request.
//!
//! It is not a model: it exists so tests, benchmarks and `hookwire demo` can drive the real
//! [`OpenAiClient`](crate::OpenAiClient) over real HTTP without a network or a key. It can
//! answer with a plain completion, any status and headers ([`Reply::Http`]), or a stream of
//! server-sent events ([`Reply::Stream`], with pauses between chunks).
//!
//! ```
//! use hook_llm::{ChatModel, ChatRequest, OpenAiClient, OpenAiConfig, Reply, ScriptedServer};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = ScriptedServer::start([Reply::Content("{}".into())]).unwrap();
//! let config = OpenAiConfig { base_url: server.base_url(), api_key: None, model: "m".into() };
//! let client = OpenAiClient::new(config).unwrap();
//! let response = client.complete(ChatRequest::default()).await.unwrap();
//! assert_eq!(response.message.text_content(), "{}");
//! assert_eq!(server.requests()[0]["model"], "m");
//! # }
//! ```

use std::{
    collections::VecDeque,
    fmt, io,
    net::SocketAddr,
    sync::{Arc, Mutex, MutexGuard},
    thread,
    time::Duration,
};

use hook_protocol::{
    ToolCall,
    serde_json::{self, Value, json},
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::oneshot,
};

/// One scripted answer.
///
/// A request asking for a stream (`"stream": true`) still gets `Content` and `ToolCalls` as a
/// plain completion, as servers that do not stream answer; only `Stream` answers with events.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// 200 with an assistant message whose content is this text (`finish_reason: stop`).
    Content(String),
    /// 200 with an assistant message making these tool calls, with optional content
    /// (`finish_reason: tool_calls`).
    ToolCalls(Vec<ToolCall>, Option<String>),
    /// This HTTP status with this body, as written (e.g. `Status(500, "overloaded".into())`),
    /// and the header `x-should-retry: false`: the failure a client reports, the script staying
    /// one reply per request (a client honouring that header, as
    /// [`OpenAiClient`](crate::OpenAiClient) does, does not retry it). Use [`Reply::Http`] for a
    /// failure a client may retry.
    Status(u16, String),
    /// This HTTP status, these headers (e.g. `Retry-After`) and this body, and nothing else
    /// but `content-length`, `connection` and (unless given) `content-type`.
    Http {
        /// The status.
        status: u16,
        /// Header names and values, as written.
        headers: Vec<(String, String)>,
        /// The body.
        body: String,
    },
    /// 200 `text/event-stream`: each chunk as it comes, then a usage chunk when the request
    /// asked for one (`stream_options.include_usage`), then `data: [DONE]`.
    Stream(Vec<StreamChunk>),
    /// Waits, then answers with the inner reply.
    Delay(Duration, Box<Reply>),
}

/// One part of a [`Reply::Stream`].
#[derive(Debug, Clone, PartialEq)]
pub enum StreamChunk {
    /// The event of a `chat.completion.chunk` whose `choices[0].delta` is this, e.g.
    /// `json!({"content": "Hel"})` or `json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a"}}]})`.
    Delta(Value),
    /// The event of a chunk with an empty delta and this `finish_reason`.
    Finish(String),
    /// These bytes as written (`": keep-alive\n\n"`, an event split across writes, `\r\n` line
    /// endings, a usage or error chunk: `"data: {...}\n\n"`).
    Raw(String),
    /// Waits this long before the next part (a slow model, or a stall).
    Pause(Duration),
}

impl Reply {
    /// This reply, sent after `delay`.
    pub fn delayed(self, delay: Duration) -> Reply {
        Reply::Delay(delay, Box::new(self))
    }

    /// `status` with `body` and no headers (add some with [`with_header`](Self::with_header)).
    pub fn http(status: u16, body: impl Into<String>) -> Reply {
        Reply::Http { status, headers: Vec::new(), body: body.into() }
    }

    /// This reply with one more header; a `Status` becomes the equivalent `Http`, and a
    /// `Delay` passes the header to its inner reply. Other replies are left as they are.
    pub fn with_header(self, name: impl Into<String>, value: impl Into<String>) -> Reply {
        match self {
            Reply::Http { status, mut headers, body } => {
                headers.push((name.into(), value.into()));
                Reply::Http { status, headers, body }
            }
            Reply::Status(status, body) => {
                let headers = vec![("x-should-retry".to_owned(), "false".to_owned())];
                Reply::Http { status, headers, body }.with_header(name, value)
            }
            Reply::Delay(delay, inner) => Reply::Delay(delay, Box::new(inner.with_header(name, value))),
            other => other,
        }
    }

    /// A stream of `pieces` of text: a first chunk with the role, one chunk per piece, and
    /// `finish_reason: stop`.
    pub fn streamed_text<S: Into<String>>(pieces: impl IntoIterator<Item = S>) -> Reply {
        let mut chunks = vec![StreamChunk::Delta(json!({"role": "assistant", "content": ""}))];
        chunks.extend(pieces.into_iter().map(|piece| StreamChunk::Delta(json!({"content": piece.into()}))));
        chunks.push(StreamChunk::Finish("stop".into()));
        Reply::Stream(chunks)
    }
}

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// `POST`, ...
    pub method: String,
    /// E.g. `/v1/chat/completions`.
    pub path: String,
    /// Header names in lower case, values as sent, in order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON; a body that is not JSON is kept as a JSON string.
    pub body: Value,
}

impl RecordedRequest {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(key, _)| *key == name).map(|(_, value)| value.as_str())
    }
}

/// Requests beyond this many are answered but not recorded, so a benchmark's memory stays flat.
const MAX_RECORDED: usize = 10_000;
/// A request head larger than this is refused.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// A request body larger than this is refused.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, Default)]
struct State {
    script: VecDeque<Reply>,
    /// Answers every request once the script is used up.
    repeat: Option<Reply>,
    n_requests: usize,
    n_connections: usize,
    recorded: Vec<RecordedRequest>,
}

/// An OpenAI-compatible HTTP/1.1 server on `127.0.0.1:<free port>` answering from a script
/// (test and demo utility; see the module docs).
///
/// `POST <anything>/chat/completions` takes the next [`Reply`]; once the script is used up it
/// answers `500 script exhausted` (with `x-should-retry: false`). Connections are kept alive. The server runs on its own
/// thread, so it works from sync and async code alike, and stops when dropped.
pub struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl ScriptedServer {
    /// Starts a server answering with `script`, one reply per request, in order.
    pub fn start(script: impl IntoIterator<Item = Reply>) -> io::Result<Self> {
        Self::spawn(State { script: script.into_iter().collect(), ..State::default() })
    }

    /// Starts a server answering every request with `reply` (benchmarks, demos).
    pub fn always(reply: Reply) -> io::Result<Self> {
        Self::spawn(State { repeat: Some(reply), ..State::default() })
    }

    fn spawn(state: State) -> io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let state = Arc::new(Mutex::new(state));
        let (shutdown, stop) = oneshot::channel();
        let thread_state = state.clone();
        let thread = thread::Builder::new()
            .name("scripted-server".into())
            .spawn(move || runtime.block_on(accept_loop(listener, thread_state, stop)))?;
        Ok(ScriptedServer { addr, state, shutdown: Some(shutdown), thread: Some(thread) })
    }

    /// `http://127.0.0.1:<port>/v1`: what `OPENAI_BASE_URL` should be set to.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bodies of the requests received so far (the first 10,000), in order.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.state).recorded.iter().map(|request| request.body.clone()).collect()
    }

    /// The requests received so far (the first 10,000), with method, path and headers.
    pub fn recorded(&self) -> Vec<RecordedRequest> {
        lock(&self.state).recorded.clone()
    }

    /// How many requests it has received, recorded or not.
    pub fn n_requests(&self) -> usize {
        lock(&self.state).n_requests
    }

    /// How many connections it has accepted (fewer than requests when clients keep them alive).
    pub fn n_connections(&self) -> usize {
        lock(&self.state).n_connections
    }
}

impl fmt::Debug for ScriptedServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.state);
        f.debug_struct("ScriptedServer")
            .field("addr", &self.addr)
            .field("replies_left", &state.script.len())
            .field("n_requests", &state.n_requests)
            .finish()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        // The thread ends its runtime, which drops every connection and pending delay.
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn plain() -> [(String, String); 1] {
    [("content-type".to_owned(), "text/plain".to_owned())]
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn accept_loop(listener: std::net::TcpListener, state: Arc<Mutex<State>>, mut stop: oneshot::Receiver<()>) {
    let Ok(listener) = TcpListener::from_std(listener) else { return };
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    lock(&state).n_connections += 1;
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(serve_connection(stream, state.clone()));
                }
            }
        }
    }
}

/// Serves requests on one connection until the client closes it or asks to.
async fn serve_connection(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let mut buf: Vec<u8> = Vec::with_capacity(8 * 1024);
    loop {
        let head_end = loop {
            if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break pos + 4;
            }
            if buf.len() > MAX_HEAD_BYTES {
                let _ = write_response(&mut stream, 431, &plain(), b"request head too large", false).await;
                return;
            }
            match stream.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let mut request_line = lines.next().unwrap_or_default().split(' ');
        let method = request_line.next().unwrap_or_default().to_owned();
        let path = request_line.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        let header = |name: &str| headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
        if header("transfer-encoding").is_some() {
            let _ = write_response(&mut stream, 411, &plain(), b"send a Content-Length body", false).await;
            return;
        }
        let content_length = header("content-length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
        if content_length > MAX_BODY_BYTES {
            let _ = write_response(&mut stream, 413, &plain(), b"request body too large", false).await;
            return;
        }
        let keep_alive = !header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        while buf.len() < head_end + content_length {
            match stream.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
        let body_bytes: Vec<u8> = buf.drain(..head_end + content_length).skip(head_end).collect();
        let body = serde_json::from_slice(&body_bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body_bytes).into_owned()));

        let is_completion = method == "POST" && path.ends_with("/chat/completions");
        let reply = {
            let mut state = lock(&state);
            state.n_requests += 1;
            let n_request = state.n_requests;
            if state.recorded.len() < MAX_RECORDED {
                state.recorded.push(RecordedRequest { method, path, headers, body: body.clone() });
            }
            if !is_completion {
                Reply::Status(404, "only POST .../chat/completions is served".into())
            } else if let Some(reply) = state.script.pop_front().or_else(|| state.repeat.clone()) {
                reply
            } else {
                Reply::Status(500, format!("ScriptedServer: script exhausted at request {n_request}"))
            }
        };
        let model = body.get("model").and_then(Value::as_str).unwrap_or("scripted-model").to_owned();
        let include_usage = body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true));
        let written = match render_reply(reply, &model).await {
            Rendered::Whole { status, headers, body } => {
                write_response(&mut stream, status, &headers, body.as_bytes(), keep_alive).await
            }
            Rendered::Stream(chunks) => write_stream(&mut stream, chunks, &model, include_usage, keep_alive).await,
        };
        if written.is_err() || !keep_alive {
            return;
        }
    }
}

/// What a reply comes to once its delays have passed.
enum Rendered {
    Whole { status: u16, headers: Vec<(String, String)>, body: String },
    Stream(Vec<StreamChunk>),
}

fn content_type_header(body: &str) -> (String, String) {
    let content_type =
        if serde_json::from_str::<Value>(body).is_ok() { "application/json" } else { "text/plain; charset=utf-8" };
    ("content-type".to_owned(), content_type.to_owned())
}

/// What `reply` answers, after any delay.
async fn render_reply(mut reply: Reply, model: &str) -> Rendered {
    let (message, finish_reason) = loop {
        match reply {
            Reply::Delay(delay, inner) => {
                tokio::time::sleep(delay).await;
                reply = *inner;
            }
            Reply::Content(text) => break (json!({"role": "assistant", "content": text}), "stop"),
            Reply::ToolCalls(calls, content) => {
                break (json!({"role": "assistant", "content": content, "tool_calls": calls}), "tool_calls");
            }
            Reply::Status(status, body) => {
                let headers = vec![content_type_header(&body), ("x-should-retry".to_owned(), "false".to_owned())];
                return Rendered::Whole { status, headers, body };
            }
            Reply::Http { status, mut headers, body } => {
                if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("content-type")) {
                    headers.push(content_type_header(&body));
                }
                return Rendered::Whole { status, headers, body };
            }
            Reply::Stream(chunks) => return Rendered::Stream(chunks),
        }
    };
    let body = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    });
    let headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    Rendered::Whole { status: 200, headers, body: body.to_string() }
}

/// Writes a `text/event-stream` answer, chunked, one write per part.
async fn write_stream(
    stream: &mut TcpStream,
    chunks: Vec<StreamChunk>,
    model: &str,
    include_usage: bool,
    keep_alive: bool,
) -> io::Result<()> {
    let connection = if keep_alive { "keep-alive" } else { "close" };
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
         transfer-encoding: chunked\r\nconnection: {connection}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await?;
    let event = |choices: Value, usage: Value| {
        let chunk = json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": choices,
            "usage": usage,
        });
        format!("data: {chunk}\n\n")
    };
    let usage =
        include_usage.then(|| event(json!([]), json!({"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})));
    let parts = chunks
        .into_iter()
        .map(Some)
        .chain([usage.map(StreamChunk::Raw), Some(StreamChunk::Raw("data: [DONE]\n\n".into()))]);
    for part in parts.flatten() {
        let bytes = match part {
            StreamChunk::Pause(pause) => {
                tokio::time::sleep(pause).await;
                continue;
            }
            StreamChunk::Delta(delta) => {
                event(json!([{"index": 0, "delta": delta, "finish_reason": null}]), Value::Null)
            }
            StreamChunk::Finish(reason) => {
                event(json!([{"index": 0, "delta": {}, "finish_reason": reason}]), Value::Null)
            }
            StreamChunk::Raw(text) => text,
        };
        if bytes.is_empty() {
            continue;
        }
        stream.write_all(format!("{:x}\r\n{bytes}\r\n", bytes.len()).as_bytes()).await?;
        stream.flush().await?;
    }
    stream.write_all(b"0\r\n\r\n").await?;
    stream.flush().await
}

async fn write_response(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
    keep_alive: bool,
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        411 => "Length Required",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Scripted",
    };
    let connection = if keep_alive { "keep-alive" } else { "close" };
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\nconnection: {connection}\r\n\r\n", body.len()));
    let mut response = head.into_bytes();
    response.extend_from_slice(body);
    stream.write_all(&response).await?;
    stream.flush().await
}
