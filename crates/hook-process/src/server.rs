//! Writing process hooks in Rust: implement [`Handler`] and run [`serve_stdio`].
//!
//! ```no_run
//! use hook_process::server::{Handler, serve_stdio};
//! use hook_protocol::{jsonrpc::RpcError, picoclaw::{ApproveToolParams, ApproveToolResult}};
//!
//! struct NoRm;
//!
//! #[async_trait::async_trait]
//! impl Handler for NoRm {
//!     async fn approve_tool(&self, params: ApproveToolParams) -> Result<ApproveToolResult, RpcError> {
//!         let dangerous = params.arguments.map(|a| a.to_string().contains("rm -rf")).unwrap_or(false);
//!         Ok(ApproveToolResult { approved: Some(!dangerous), reason: dangerous.then(|| "no rm -rf".into()) })
//!     }
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> std::io::Result<()> {
//!     serve_stdio(NoRm).await
//! }
//! ```
//!
//! Requests are handled concurrently (each on its own task) and answered in the order they
//! finish. `hook.cancel` aborts the task of the named request (no reply is sent for it).
//! Methods other than `hook.*` are answered with `-32601`.
//!
//! # Receiving only what the hook reads
//!
//! A handler may declare what it reads ([`Handler::reads`]): per method, the params members it
//! uses, and whether `before_llm`'s history may come as a delta. When the host offers hookwire's
//! extensions in `hook.hello`, the server opts in, so the host sends only those members (and
//! only the messages that changed). The handler still receives whole params: members it did not
//! ask for are empty (`None`, `""`), and the history is reassembled from the deltas, so it is
//! written as if nothing changed. A handler that only decides (it never answers a changed
//! request, response, call or result) says so in `read_only`, and the host runs it at once with
//! its neighbours that promised the same. With a host that offers no extensions (PicoClaw),
//! everything is sent and received as before. The wire format is in
//! `docs/process-extensions.md`.
//!
//! ```
//! use hook_process::server::Handler;
//! use hook_protocol::{jsonrpc::RpcError, picoclaw::{BeforeLlmParams, BeforeLlmResult, ExtensionOptIn}};
//!
//! /// Refuses requests to one model; reads nothing else.
//! struct ModelGate;
//!
//! #[async_trait::async_trait]
//! impl Handler for ModelGate {
//!     fn reads(&self) -> ExtensionOptIn {
//!         let mut reads = ExtensionOptIn::default();
//!         reads.reads.insert("before_llm".into(), vec!["model".into()]);
//!         reads.read_only.push("before_llm".into()); // it aborts, it never rewrites
//!         reads
//!     }
//!
//!     async fn before_llm(&self, params: BeforeLlmParams) -> Result<BeforeLlmResult, RpcError> {
//!         assert!(params.messages.is_none()); // not asked for, so not sent
//!         let blocked = params.model.as_deref() == Some("forbidden-model");
//!         Ok(BeforeLlmResult {
//!             action: if blocked { hook_protocol::picoclaw::Action::AbortTurn } else { Default::default() },
//!             ..BeforeLlmResult::default()
//!         })
//!     }
//! }
//! ```

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use async_trait::async_trait;
use hook_protocol::{
    ChatMessage, Id, from_json_value,
    jsonrpc::{ErrorResponse, Message, Response, RpcError},
    picoclaw::{
        AfterLlmParams, AfterLlmResult, AfterToolParams, AfterToolResult, ApproveToolParams, ApproveToolResult,
        BeforeLlmParams, BeforeLlmResult, BeforeToolParams, BeforeToolResult, CancelParams, EventParams,
        ExtensionOptIn, HISTORY_RESYNC_CODE, HelloParams, HelloResult, HistoryDelta, ResultExtension, extension,
        method,
    },
    serde_json::{self, Value},
};
use serde::{Serialize, de::DeserializeOwned};
use tokio::{
    io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter},
    sync::mpsc,
    task::{AbortHandle, JoinSet},
};

use crate::line::{LineRead, read_line_bounded};

/// The longest request line a served hook accepts.
const MAX_REQUEST_LINE: usize = 256 * 1024 * 1024;

/// A hook's answers, one method per hook point. Every default passes through.
#[async_trait]
pub trait Handler: Send + Sync + 'static {
    /// What the hook reads, as hookwire's extensions put it (see the module docs): per method,
    /// the params members it uses, `history_delta` to receive `before_llm`'s history as a
    /// delta, and `read_only`, the methods on which it never answers a change. The default asks
    /// for nothing: every member, every message, as PicoClaw sends them, run in turn.
    fn reads(&self) -> ExtensionOptIn {
        ExtensionOptIn::default()
    }

    /// `hook.hello`: the default accepts (`ok: true`) with the configured name. The server adds
    /// [`Handler::reads`] to the result when the host offers hookwire's extensions.
    async fn hello(&self, params: HelloParams) -> Result<HelloResult, RpcError> {
        Ok(HelloResult { ok: Some(true), name: Some(params.name), ..HelloResult::default() })
    }

    /// `hook.before_llm`: the default continues.
    async fn before_llm(&self, _params: BeforeLlmParams) -> Result<BeforeLlmResult, RpcError> {
        Ok(BeforeLlmResult::default())
    }

    /// `hook.after_llm`: the default continues.
    async fn after_llm(&self, _params: AfterLlmParams) -> Result<AfterLlmResult, RpcError> {
        Ok(AfterLlmResult::default())
    }

    /// `hook.before_tool`: the default continues.
    async fn before_tool(&self, _params: BeforeToolParams) -> Result<BeforeToolResult, RpcError> {
        Ok(BeforeToolResult::default())
    }

    /// `hook.after_tool`: the default continues.
    async fn after_tool(&self, _params: AfterToolParams) -> Result<AfterToolResult, RpcError> {
        Ok(AfterToolResult::default())
    }

    /// `hook.approve_tool`: the default approves.
    async fn approve_tool(&self, _params: ApproveToolParams) -> Result<ApproveToolResult, RpcError> {
        Ok(ApproveToolResult { approved: Some(true), reason: None })
    }

    /// `hook.event` notifications: the default ignores them.
    async fn event(&self, _params: EventParams) {}

    /// Any other `hook.<name>` request (the j-cli events, e.g. `hook.pre_send_message` with a
    /// `HookContext`): the default answers `{}` (no change).
    async fn other(&self, _method: &str, _params: Value) -> Result<Value, RpcError> {
        Ok(Value::Object(serde_json::Map::new()))
    }
}

/// Serves `handler` on this process's stdin and stdout until stdin closes.
pub async fn serve_stdio<H: Handler>(handler: H) -> std::io::Result<()> {
    let (reader, writer) = stdio()?;
    serve(reader, writer, handler).await
}

type BoxedReader = Box<dyn AsyncRead + Unpin + Send>;
type BoxedWriter = Box<dyn AsyncWrite + Unpin + Send>;

/// Async handles on fds 0 and 1: non-blocking pipes when they are pipes (as under a host),
/// otherwise a thread bridging the blocking handles (a terminal or a file, when testing by hand).
fn stdio() -> std::io::Result<(BoxedReader, BoxedWriter)> {
    use std::{fs::File, os::fd::AsFd};
    use tokio::net::unix::pipe;

    let stdin = File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let stdout = File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    let reader: BoxedReader = match pipe::Receiver::from_file(stdin) {
        Ok(receiver) => Box::new(receiver),
        Err(_) => {
            let (mut near, far) = tokio::io::duplex(64 * 1024);
            let runtime = tokio::runtime::Handle::current();
            std::thread::spawn(move || {
                use std::io::Read;
                let mut stdin = std::io::stdin().lock();
                let mut chunk = vec![0u8; 64 * 1024];
                while let Ok(n) = stdin.read(&mut chunk) {
                    if n == 0 || runtime.block_on(near.write_all(&chunk[..n])).is_err() {
                        break;
                    }
                }
            });
            Box::new(far)
        }
    };
    let writer: BoxedWriter = match pipe::Sender::from_file(stdout) {
        Ok(sender) => Box::new(sender),
        Err(_) => {
            let (near, mut far) = tokio::io::duplex(64 * 1024);
            let runtime = tokio::runtime::Handle::current();
            std::thread::spawn(move || {
                use std::io::Write;
                use tokio::io::AsyncReadExt;
                let mut chunk = vec![0u8; 64 * 1024];
                let mut stdout = std::io::stdout();
                while let Ok(n) = runtime.block_on(far.read(&mut chunk)) {
                    if n == 0 || stdout.write_all(&chunk[..n]).and_then(|()| stdout.flush()).is_err() {
                        break;
                    }
                }
            });
            Box::new(near)
        }
    };
    Ok((reader, writer))
}

/// Serves `handler` on any reader and writer (tests use pipes) until the reader ends; requests
/// still running then are finished and answered before it returns.
pub async fn serve<R, W, H>(reader: R, writer: W, handler: H) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
    H: Handler,
{
    let handler = Arc::new(Served { handler, history: Mutex::default() });
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer_task = tokio::spawn(async move {
        let mut writer = BufWriter::new(writer);
        while let Some(line) = rx.recv().await {
            writer.write_all(&line).await?;
            while let Ok(line) = rx.try_recv() {
                writer.write_all(&line).await?;
            }
            writer.flush().await?;
        }
        writer.flush().await
    });
    let running: Arc<Mutex<HashMap<Id, AbortHandle>>> = Arc::default();
    let mut tasks = JoinSet::new();
    let mut reader = BufReader::new(reader);
    let mut buf = Vec::new();
    loop {
        let read = read_line_bounded(&mut reader, &mut buf, MAX_REQUEST_LINE).await?;
        if read == LineRead::TooLong {
            let error = RpcError::new(RpcError::INVALID_REQUEST, "request line too long");
            let _ = tx.send(line_of(&ErrorResponse::new(None, error)));
            break;
        }
        if !buf.iter().all(u8::is_ascii_whitespace) {
            handle_line(&buf, &handler, &tx, &running, &mut tasks);
        }
        buf.clear();
        if read == LineRead::Eof {
            break;
        }
        // Reap finished tasks so the set does not grow.
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    drop(tx);
    writer_task.await.map_err(std::io::Error::other)?
}

fn line_of<T: Serialize>(message: &T) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// A handler and the history the host sent it (version and messages), for deltas.
struct Served<H> {
    handler: H,
    history: Mutex<Option<(u64, Vec<ChatMessage>)>>,
}

fn handle_line<H: Handler>(
    line: &[u8],
    handler: &Arc<Served<H>>,
    tx: &mpsc::UnboundedSender<Vec<u8>>,
    running: &Arc<Mutex<HashMap<Id, AbortHandle>>>,
    tasks: &mut JoinSet<()>,
) {
    match Message::parse(line) {
        Ok(Message::Request(request)) => {
            let handler = handler.clone();
            let tx = tx.clone();
            let id = request.id.clone();
            let finished = running.clone();
            let abort = tasks.spawn(async move {
                let outcome = dispatch(&*handler, &request.method, request.params).await;
                finished.lock().unwrap_or_else(|p| p.into_inner()).remove(&request.id);
                let line = match outcome {
                    Ok(result) => line_of(&Response::new(request.id, result)),
                    Err(error) => line_of(&ErrorResponse::new(Some(request.id), error)),
                };
                let _ = tx.send(line);
            });
            running.lock().unwrap_or_else(|p| p.into_inner()).insert(id, abort);
        }
        Ok(Message::Notification(notification)) => match notification.method.as_str() {
            method::EVENT => {
                if let Ok(params) = from_json_value::<EventParams>(notification.params) {
                    let handler = handler.clone();
                    tasks.spawn(async move { handler.handler.event(params).await });
                }
            }
            method::CANCEL => {
                if let Ok(params) = from_json_value::<CancelParams>(notification.params) {
                    let mut running = running.lock().unwrap_or_else(|p| p.into_inner());
                    let key = params.id.as_number().map(Id::Number).unwrap_or(params.id);
                    if let Some(task) = running.remove(&key) {
                        task.abort();
                    }
                }
            }
            _ => {}
        },
        Ok(_) => {}
        Err(e) => {
            let error = RpcError::new(RpcError::PARSE_ERROR, e.to_string());
            let _ = tx.send(line_of(&ErrorResponse::new(None, error)));
        }
    }
}

fn decode<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    let params = if params.is_null() { Value::Object(serde_json::Map::new()) } else { params };
    from_json_value(params).map_err(|e| RpcError::new(RpcError::INVALID_PARAMS, format!("invalid params: {e}")))
}

/// Decodes params in which members the hook did not ask for may be missing: a required member
/// that is absent takes its default (`tool: ""`, an empty `response` or `result`).
fn decode_read<T: DeserializeOwned + Serialize + Default>(params: Value) -> Result<T, RpcError> {
    let mut params = if params.is_null() { Value::Object(serde_json::Map::new()) } else { params };
    if let (Value::Object(members), Ok(Value::Object(defaults))) = (&mut params, serde_json::to_value(T::default())) {
        for (key, value) in defaults {
            members.entry(key).or_insert(value);
        }
    }
    decode(params)
}

fn encode<T: Serialize>(result: Result<T, RpcError>) -> Result<Value, RpcError> {
    result.and_then(|r| serde_json::to_value(r).map_err(|e| RpcError::new(RpcError::APPLICATION_ERROR, e.to_string())))
}

impl<H: Handler> Served<H> {
    fn history(&self) -> std::sync::MutexGuard<'_, Option<(u64, Vec<ChatMessage>)>> {
        self.history.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `hook.hello`: the handler's answer, with its opt-in when the host offers extensions.
    async fn hello(&self, params: HelloParams) -> Result<HelloResult, RpcError> {
        let offer = params.hookwire.clone();
        let mut result = self.handler.hello(params).await?;
        if let Some(offer) = offer
            && result.hookwire.is_none()
        {
            let mut opt_in = self.handler.reads();
            if !offer.extensions.iter().any(|e| e == extension::READS) {
                opt_in.reads.clear();
            }
            if !offer.extensions.iter().any(|e| e == extension::HISTORY_DELTA) {
                opt_in.history_delta = false;
            }
            if !offer.extensions.iter().any(|e| e == extension::READ_ONLY) {
                opt_in.read_only.clear();
            }
            result.hookwire = (!opt_in.is_empty()).then_some(opt_in);
        }
        Ok(result)
    }

    /// `hook.before_llm`: reassembles a history delta into the whole history before the
    /// handler sees it, and acknowledges the version.
    async fn before_llm(&self, params: Value) -> Result<BeforeLlmResult, RpcError> {
        let mut params: BeforeLlmParams = decode_read(params)?;
        let Some(delta) = params.hookwire.take().and_then(|h| h.history) else {
            return self.handler.before_llm(params).await;
        };
        let messages = self.reassemble(delta, params.messages.take().unwrap_or_default())?;
        params.messages = Some(messages);
        let mut result = self.handler.before_llm(params).await?;
        result.hookwire = Some(ResultExtension { ack: Some(delta.version) });
        Ok(result)
    }

    /// The whole history after `delta`, kept for the next delta; a base this side does not hold
    /// asks the host for the whole history.
    fn reassemble(&self, delta: HistoryDelta, sent: Vec<ChatMessage>) -> Result<Vec<ChatMessage>, RpcError> {
        let mut history = self.history();
        let messages = match (delta.base, history.take()) {
            (None, _) => sent,
            (Some(base), Some((version, mut held)))
                if version == base && usize::try_from(delta.keep).is_ok_and(|keep| keep <= held.len()) =>
            {
                held.truncate(usize::try_from(delta.keep).unwrap_or(0));
                held.extend(sent);
                held
            }
            (Some(base), held) => {
                let holds = held.map_or_else(|| "no history".to_owned(), |(v, _)| format!("version {v}"));
                return Err(RpcError::new(
                    HISTORY_RESYNC_CODE,
                    format!("history delta against version {base}, but this hook holds {holds}; send it whole"),
                ));
            }
        };
        *history = Some((delta.version, messages.clone()));
        Ok(messages)
    }
}

async fn dispatch<H: Handler>(served: &Served<H>, name: &str, params: Value) -> Result<Value, RpcError> {
    let handler = &served.handler;
    match name {
        method::HELLO => encode(served.hello(decode(params)?).await),
        method::BEFORE_LLM => encode(served.before_llm(params).await),
        method::AFTER_LLM => encode(handler.after_llm(decode_read(params)?).await),
        method::BEFORE_TOOL => encode(handler.before_tool(decode_read(params)?).await),
        method::AFTER_TOOL => encode(handler.after_tool(decode_read(params)?).await),
        method::APPROVE_TOOL => encode(handler.approve_tool(decode_read(params)?).await),
        other if other.starts_with("hook.") => handler.other(other, params).await,
        other => Err(RpcError::new(RpcError::METHOD_NOT_FOUND, format!("method not found: {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::AsyncBufReadExt;

    struct Defaults;
    impl Handler for Defaults {}

    async fn exchange(input: &str) -> Vec<Value> {
        exchange_with(input, Defaults).await
    }

    async fn exchange_with<H: Handler>(input: &str, handler: H) -> Vec<Value> {
        let (host, hook) = tokio::io::duplex(1 << 16);
        let (hook_read, hook_write) = tokio::io::split(hook);
        let server = tokio::spawn(serve(hook_read, hook_write, handler));
        let (host_read, mut host_write) = tokio::io::split(host);
        host_write.write_all(input.as_bytes()).await.unwrap();
        host_write.shutdown().await.unwrap();
        let mut lines = BufReader::new(host_read).lines();
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            out.push(serde_json::from_str(&line).unwrap());
        }
        server.await.unwrap().unwrap();
        out
    }

    #[tokio::test]
    async fn defaults_pass_through_and_unknown_methods_fail() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{"name":"x","version":1}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"hook.approve_tool","params":{"tool":"bash"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":3,"method":"nope","params":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"hook.event","params":{"Kind":"turn_start"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":4,"method":"hook.before_tool","params":{"tool":"t"}}"#,
            "\n",
        );
        let mut replies = exchange(input).await;
        replies.sort_by_key(|r| r["id"].as_i64());
        assert_eq!(replies.len(), 4);
        assert_eq!(replies[0]["result"]["ok"], true);
        assert_eq!(replies[1]["result"]["approved"], true);
        assert_eq!(replies[2]["error"]["code"], RpcError::METHOD_NOT_FOUND);
        assert_eq!(replies[3]["result"]["action"], "continue");
    }

    /// Reads the model and the history; says what it saw in `reason`.
    struct Reader;

    #[async_trait]
    impl Handler for Reader {
        fn reads(&self) -> ExtensionOptIn {
            let mut reads = ExtensionOptIn {
                history_delta: true,
                read_only: vec!["before_llm".into()],
                ..ExtensionOptIn::default()
            };
            reads.reads.insert("before_llm".into(), vec!["model".into(), "messages".into()]);
            reads
        }

        async fn before_llm(&self, params: BeforeLlmParams) -> Result<BeforeLlmResult, RpcError> {
            let texts: Vec<String> = params
                .messages
                .unwrap_or_default()
                .iter()
                .map(|m| serde_json::to_value(&m.content).unwrap_or_default().as_str().unwrap_or_default().to_owned())
                .collect();
            let reason = format!("{}:{}", params.model.unwrap_or_default(), texts.join("|"));
            Ok(BeforeLlmResult { reason: Some(reason), ..BeforeLlmResult::default() })
        }
    }

    #[tokio::test]
    async fn the_server_opts_in_to_what_is_offered_only() {
        let hello = |offered: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{{"name":"x","version":1,"hookwire":{{"version":1,"extensions":{offered}}}}}}}"#
            ) + "\n"
        };
        let all = exchange_with(&hello(r#"["reads","history_delta","read_only"]"#), Reader).await;
        assert_eq!(
            all[0]["result"]["hookwire"],
            serde_json::json!({
                "reads": {"before_llm": ["model", "messages"]},
                "history_delta": true,
                "read_only": ["before_llm"]
            })
        );
        let promise_only = exchange_with(&hello(r#"["read_only"]"#), Reader).await;
        assert_eq!(promise_only[0]["result"]["hookwire"], serde_json::json!({"read_only": ["before_llm"]}));
        let none = exchange_with(&hello("[]"), Reader).await;
        assert_eq!(none[0]["result"].get("hookwire"), None, "{none:?}");
    }

    #[tokio::test]
    async fn the_server_opts_in_when_offered_and_reassembles_deltas() {
        let input = [
            r#"{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{"name":"x","version":1,"hookwire":{"version":1,"extensions":["reads","history_delta"]}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"hook.before_llm","params":{"model":"m","messages":[{"role":"user","content":"a"}],"hookwire":{"history":{"version":1,"keep":0}}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"hook.before_llm","params":{"messages":[{"role":"user","content":"c"}],"hookwire":{"history":{"version":2,"base":1,"keep":1}}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"hook.before_llm","params":{"messages":[],"hookwire":{"history":{"version":5,"base":4,"keep":0}}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"hook.before_llm","params":{"model":"m","messages":[{"role":"user","content":"b"}]}}"#,
        ]
        .join("\n");
        // One request at a time: the deltas depend on each other.
        let mut replies = Vec::new();
        let mut sent = String::new();
        for line in input.lines() {
            sent.push_str(line);
            sent.push('\n');
        }
        replies.extend(exchange_with(&sent, Reader).await);
        replies.sort_by_key(|r| r["id"].as_i64());
        assert_eq!(
            replies[0]["result"]["hookwire"],
            serde_json::json!({"reads": {"before_llm": ["model", "messages"]}, "history_delta": true})
        );
        // Requests run concurrently; each answer is checked on its own terms.
        let by_id = |id: i64| replies.iter().find(|r| r["id"] == id).unwrap().clone();
        let second = by_id(2);
        assert_eq!(second["result"]["hookwire"]["ack"], 1);
        assert_eq!(second["result"]["reason"], "m:a");
        // Applied after 2 (the usual order), or refused when it ran first: never a wrong history.
        let third = by_id(3);
        match third.get("result") {
            Some(result) => assert_eq!((&result["reason"], &result["hookwire"]["ack"]), (&json!(":a|c"), &json!(2))),
            None => assert_eq!(third["error"]["code"], HISTORY_RESYNC_CODE),
        }
        let fourth = by_id(4);
        assert_eq!(fourth["error"]["code"], HISTORY_RESYNC_CODE);
        // No extension in the params: the handler gets them as sent, no ack.
        let fifth = by_id(5);
        assert_eq!(fifth["result"]["reason"], "m:b");
        assert!(fifth["result"].get("hookwire").is_none());
    }

    #[tokio::test]
    async fn without_an_offer_the_server_opts_in_to_nothing() {
        let input =
            concat!(r#"{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{"name":"x","version":1}}"#, "\n");
        let replies = exchange_with(input, Reader).await;
        assert!(replies[0]["result"].get("hookwire").is_none(), "{}", replies[0]);
    }
}
