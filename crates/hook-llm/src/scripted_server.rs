//! `ScriptedServer`: a test and demo utility, an OpenAI-compatible HTTP server on 127.0.0.1
//! that answers `/chat/completions` with a script of replies and records every request.
//!
//! It is not a model: it exists so tests, benchmarks and `hookwire demo` can drive the real
//! [`OpenAiClient`](crate::OpenAiClient) over real HTTP without a network or a key.
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
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// 200 with an assistant message whose content is this text (`finish_reason: stop`).
    Content(String),
    /// 200 with an assistant message making these tool calls, with optional content
    /// (`finish_reason: tool_calls`).
    ToolCalls(Vec<ToolCall>, Option<String>),
    /// This HTTP status with this body, as written (e.g. `Status(500, "overloaded".into())`).
    Status(u16, String),
    /// Waits, then answers with the inner reply.
    Delay(Duration, Box<Reply>),
}

impl Reply {
    /// This reply, sent after `delay`.
    pub fn delayed(self, delay: Duration) -> Reply {
        Reply::Delay(delay, Box::new(self))
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
/// answers `500 script exhausted`. Connections are kept alive. The server runs on its own
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
                let _ = write_response(&mut stream, 431, "text/plain", b"request head too large", false).await;
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
            let _ = write_response(&mut stream, 411, "text/plain", b"send a Content-Length body", false).await;
            return;
        }
        let content_length = header("content-length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
        if content_length > MAX_BODY_BYTES {
            let _ = write_response(&mut stream, 413, "text/plain", b"request body too large", false).await;
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
        let (status, content_type, response_body) = render_reply(reply, &model).await;
        if write_response(&mut stream, status, content_type, response_body.as_bytes(), keep_alive).await.is_err()
            || !keep_alive
        {
            return;
        }
    }
}

/// Status, content type and body of `reply`, after any delay.
async fn render_reply(mut reply: Reply, model: &str) -> (u16, &'static str, String) {
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
                let content_type = if serde_json::from_str::<Value>(&body).is_ok() {
                    "application/json"
                } else {
                    "text/plain; charset=utf-8"
                };
                return (status, content_type, body);
            }
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
    (200, "application/json", body.to_string())
}

async fn write_response(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
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
    let mut response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: {connection}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(body);
    stream.write_all(&response).await?;
    stream.flush().await
}
