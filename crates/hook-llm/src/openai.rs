//! `OpenAiClient`: a [`ChatModel`] over any OpenAI-compatible `/chat/completions` endpoint,
//! with streaming, a timeout and retries.

use std::{
    error::Error as StdError,
    fmt,
    future::Future,
    sync::Arc,
    time::{Duration, Instant, SystemTime},
};

use async_trait::async_trait;
use hook_core::head_chars;
use hook_protocol::{
    ChatMessage, MessageContent, Role, ToolCall,
    serde_json::{self, Map, Value, json},
};
use serde::Deserialize;

use crate::{
    ChatModel, ChatRequest, ChatResponse, ModelError, RetryPolicy, StreamDelta,
    model::report_whole,
    retry,
    stream::{self, Assembly, SseParser},
};

/// OpenAI's public endpoint. Never used unless asked for: set `OPENAI_BASE_URL` (or
/// [`OpenAiConfig::base_url`]) to it explicitly.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Model used when `HOOKWIRE_MODEL` is not set.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// How long one attempt may take unless [`OpenAiClient::with_timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// How many characters of an error body are kept in [`ModelError`].
const BODY_HEAD_CHARS: usize = 500;

/// Answers larger than this are refused rather than buffered.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// Of an error answer, at most this much is read.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// After `data: [DONE]`, how long the end of the body is waited for, so the connection is reused.
const DRAIN_AFTER_DONE: Duration = Duration::from_millis(100);

/// Where an [`OpenAiClient`] sends its requests and with which model.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// E.g. `https://api.openai.com/v1`; requests go to `{base_url}/chat/completions`
    /// (a trailing `/` is ignored). Empty: not configured, every call fails with
    /// [`ModelError::Client`] naming the variables to set, and nothing is sent anywhere.
    pub base_url: String,
    /// Sent as `Authorization: Bearer <key>`; `None` sends no `Authorization` header
    /// (local servers such as Ollama or llama.cpp need none).
    pub api_key: Option<String>,
    /// The model used when a request names none.
    pub model: String,
}

impl OpenAiConfig {
    /// Reads the configuration from the environment:
    ///
    /// | variable | meaning | default |
    /// |---|---|---|
    /// | `OPENAI_BASE_URL` | the server's base URL, e.g. `http://127.0.0.1:11434/v1` or [`DEFAULT_BASE_URL`] | none: calls fail, saying what to set |
    /// | `OPENAI_API_KEY` | the bearer key | none: no `Authorization` header |
    /// | `HOOKWIRE_MODEL` | the model name | `gpt-4o-mini` |
    ///
    /// Empty values count as unset. There is no default server: a prompt is never sent to a
    /// public endpoint that nobody chose.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Like [`from_env`](Self::from_env), reading variables through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let read = |name: &str| lookup(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        OpenAiConfig {
            base_url: read("OPENAI_BASE_URL").unwrap_or_default(),
            api_key: read("OPENAI_API_KEY"),
            model: read("HOOKWIRE_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
        }
    }

    /// Whether a base URL is set; a client without one makes no call.
    pub fn is_configured(&self) -> bool {
        !self.base_url.trim().is_empty()
    }

    /// `{base_url}/chat/completions`, without a doubled `/`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key never reaches logs or error messages.
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .finish()
    }
}

/// The error of every call of a client with no base URL.
fn not_configured() -> ModelError {
    ModelError::Client {
        message: "no model server is configured, so nothing was sent: set OPENAI_BASE_URL to an \
                  OpenAI-compatible base URL (e.g. http://127.0.0.1:11434/v1 for a local Ollama, or \
                  https://api.openai.com/v1), OPENAI_API_KEY if the server needs a key, and HOOKWIRE_MODEL \
                  to the model's name"
            .into(),
    }
}

/// A chat model reached over HTTP at an OpenAI-compatible server.
///
/// Holds one `reqwest::Client`, whose connections are kept alive and reused; cloning the
/// client is cheap and shares them.
///
/// - **Streaming:** [`complete_streaming`](ChatModel::complete_streaming) sends
///   `"stream": true` (and `"stream_options": {"include_usage": true}` unless the request's
///   options set `stream_options`), reads the server-sent events as they arrive and returns the
///   same [`ChatResponse`] as [`complete`](ChatModel::complete). A server that answers with a
///   plain completion instead works too (its text arrives as one delta).
/// - **Timeout:** each attempt may take [`timeout`](Self::timeout) (default
///   [`DEFAULT_TIMEOUT`], 120 s); for a streamed answer, that is the longest wait for the answer
///   to begin and for each chunk after the previous one, so a long answer that keeps coming
///   is not cut. [`ChatRequest::timeout`] bounds the whole call, retries included. Either gives
///   [`ModelError::Timeout`] naming the time that passed; timeouts are not retried.
/// - **Retries:** failed connections, `429` and `5xx` are retried as the
///   [`RetryPolicy`] says (default 3 retries, honouring `Retry-After`).
/// - Tool calls that come without an id get one, `call_<n>`, unique within the answer.
/// - A config without a base URL gives a client whose calls fail at once with
///   [`ModelError::Client`] naming `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `HOOKWIRE_MODEL`.
#[derive(Clone)]
pub struct OpenAiClient {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    http: reqwest::Client,
    config: OpenAiConfig,
    endpoint: String,
    authorization: Option<String>,
    timeout: Duration,
    retry: RetryPolicy,
}

impl OpenAiClient {
    /// A client for `config` with its own connection pool, the [`DEFAULT_TIMEOUT`] and the
    /// default [`RetryPolicy`]. It follows no redirect: a 3xx answer is an error.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        // No redirects: a 307 would re-POST the whole context (prompt, conversation, key) to
        // wherever the server points, and a 302 would turn into a GET whose answer is accepted.
        crate::install_tls_provider();
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(90))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ModelError::Client {
                message: format!("could not create the HTTP client: {}", error_chain(&e)),
            })?;
        Ok(Self::with_http_client(config, http))
    }

    /// A client for `config` that shares `http`'s connection pool (its own timeout, if any,
    /// applies as well).
    pub fn with_http_client(config: OpenAiConfig, http: reqwest::Client) -> Self {
        let endpoint = config.endpoint();
        let authorization = config.api_key.as_ref().map(|key| format!("Bearer {key}"));
        let inner =
            Inner { http, config, endpoint, authorization, timeout: DEFAULT_TIMEOUT, retry: RetryPolicy::default() };
        OpenAiClient { inner: Arc::new(inner) }
    }

    /// This client with another timeout for each attempt (streaming: for each wait on the server).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        Arc::make_mut(&mut self.inner).timeout = timeout;
        self
    }

    /// This client with another retry policy ([`RetryPolicy::none`] never retries).
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        Arc::make_mut(&mut self.inner).retry = policy;
        self
    }

    /// This client with `max_retries` retries after a first failed attempt, the rest of its
    /// policy unchanged.
    pub fn with_max_retries(self, max_retries: u32) -> Self {
        let policy = RetryPolicy { max_retries, ..self.inner.retry };
        self.with_retry_policy(policy)
    }

    /// The configuration it was made with.
    pub fn config(&self) -> &OpenAiConfig {
        &self.inner.config
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> &str {
        &self.inner.endpoint
    }

    /// How long one attempt may take (streaming: each wait on the server).
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    /// When and how failed calls are retried.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.inner.retry
    }

    /// The JSON body sent for `request` by [`complete`](ChatModel::complete).
    ///
    /// `options` members are copied as written, except `model`, `messages` and `tools`,
    /// which come from the request itself. [`complete_streaming`](ChatModel::complete_streaming)
    /// adds `"stream": true` and, unless `options` has it, `"stream_options": {"include_usage": true}`.
    pub fn request_body(&self, request: &ChatRequest) -> Value {
        let model = request.model.as_deref().unwrap_or(&self.inner.config.model);
        let mut body = Map::new();
        body.insert("model".into(), Value::String(model.to_owned()));
        // ChatMessage and ToolDefinition hold only strings, maps and sequences: serializing cannot fail.
        body.insert("messages".into(), serde_json::to_value(&request.messages).unwrap_or_default());
        if !request.tools.is_empty() {
            body.insert("tools".into(), serde_json::to_value(&request.tools).unwrap_or_default());
        }
        for (key, value) in &request.options {
            if !matches!(key.as_str(), "model" | "messages" | "tools") {
                body.insert(key.clone(), value.clone());
            }
        }
        Value::Object(body)
    }

    /// One call: attempts and the waits between them.
    async fn call(
        &self,
        request: &ChatRequest,
        stream: bool,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<ChatResponse, ModelError> {
        if !self.inner.config.is_configured() {
            return Err(not_configured());
        }
        let mut body = self.request_body(request);
        if stream && let Value::Object(members) = &mut body {
            members.insert("stream".into(), Value::Bool(true));
            members.entry("stream_options").or_insert_with(|| json!({"include_usage": true}));
        }
        let body = serde_json::to_vec(&body).unwrap_or_default();
        let limits = Limits::new(self.inner.timeout, request.timeout);
        let policy = self.inner.retry;
        let mut attempt = 1;
        loop {
            let failure = match self.attempt(&body, stream, &limits, on_delta).await {
                Ok(response) => return Ok(response),
                Err(failure) => failure,
            };
            if !failure.retry {
                return Err(note_attempts(failure.error, attempt, false));
            }
            let wait = policy.wait(attempt, failure.retry_after);
            if attempt > policy.max_retries || !limits.allows_wait(wait) {
                return Err(note_attempts(failure.error, attempt, true));
            }
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// One HTTP exchange.
    async fn attempt(
        &self,
        body: &[u8],
        stream: bool,
        limits: &Limits,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<ChatResponse, Failure> {
        let inner = &*self.inner;
        let started = Instant::now();
        // Not streamed, the timeout bounds the whole attempt; streamed, each wait on the server.
        let since = || if stream { Instant::now() } else { started };
        let mut builder =
            inner.http.post(&inner.endpoint).header("content-type", "application/json").body(body.to_vec());
        if stream {
            builder = builder.header("accept", "text/event-stream");
        }
        if let Some(authorization) = &inner.authorization {
            builder = builder.header("authorization", authorization);
        }
        let mut response = limits
            .within(started, builder.send())
            .await
            .map_err(Failure::fatal)?
            .map_err(|e| self.transport_failure(&e))?;

        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let retry = retry::retryable_status(status) && !retry::server_refuses_retry(response.headers());
            let retry_after = retry::retry_after(response.headers(), SystemTime::now());
            let mut bytes = Vec::new();
            while bytes.len() < MAX_ERROR_BODY_BYTES
                && let Ok(true) = self.read_more(&mut response, &mut bytes, limits, since()).await
            {}
            let body_head = head_chars(&String::from_utf8_lossy(&bytes), BODY_HEAD_CHARS);
            return Err(Failure { error: ModelError::Status { status, body_head }, retry, retry_after });
        }

        let content_type = response.headers().get("content-type").and_then(|value| value.to_str().ok());
        if content_type.is_some_and(|value| value.to_ascii_lowercase().contains("text/event-stream")) {
            return self.read_events(response, limits, since, on_delta).await;
        }
        // A plain completion: not asked for a stream, or a server that does not stream.
        let mut bytes = Vec::new();
        while self.read_more(&mut response, &mut bytes, limits, since()).await? {
            if bytes.len() > MAX_RESPONSE_BYTES {
                return Err(Failure::fatal(too_large(&bytes)));
            }
        }
        let completion = parse_completion(&String::from_utf8_lossy(&bytes)).map_err(Failure::fatal)?;
        report_whole(&completion, on_delta);
        Ok(completion)
    }

    /// Reads a `text/event-stream` answer, passing deltas on as they arrive.
    async fn read_events(
        &self,
        mut response: reqwest::Response,
        limits: &Limits,
        since: impl Fn() -> Instant,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<ChatResponse, Failure> {
        let mut parser = SseParser::default();
        let mut assembly = Assembly::default();
        let (mut bytes, mut events, mut total, mut done) = (Vec::new(), Vec::new(), 0, false);
        loop {
            bytes.clear();
            let more = match self.read_more(&mut response, &mut bytes, limits, since()).await {
                Ok(more) => more,
                Err(mut failure) => {
                    // Once something was shown, asking again would show it twice.
                    failure.retry &= !assembly.delivered;
                    return Err(failure);
                }
            };
            total += bytes.len();
            if total > MAX_RESPONSE_BYTES {
                return Err(Failure::fatal(too_large(&bytes)));
            }
            if more {
                parser.feed(&bytes, &mut events);
            } else {
                parser.finish(&mut events);
            }
            for data in events.drain(..) {
                if assembly.event(&data, &mut *on_delta).map_err(Failure::fatal)? {
                    done = true;
                    break;
                }
            }
            if done || !more {
                break;
            }
        }
        if done {
            // Read the end of the body so the connection goes back to the pool.
            let _ = tokio::time::timeout(DRAIN_AFTER_DONE, async { while let Ok(Some(_)) = response.chunk().await {} })
                .await;
        }
        if assembly.n_chunks == 0 {
            let message = "the event stream ended without a chat.completion.chunk".into();
            return Err(Failure::fatal(ModelError::InvalidResponse { message, body_head: String::new() }));
        }
        Ok(assembly.finish())
    }

    /// Reads the next piece of the body onto `bytes`; `Ok(false)` at its end.
    async fn read_more(
        &self,
        response: &mut reqwest::Response,
        bytes: &mut Vec<u8>,
        limits: &Limits,
        since: Instant,
    ) -> Result<bool, Failure> {
        match limits.within(since, response.chunk()).await.map_err(Failure::fatal)? {
            Ok(Some(chunk)) => {
                bytes.extend_from_slice(&chunk);
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(error) => Err(self.transport_failure(&error)),
        }
    }

    /// A failed exchange; retried unless the request itself could not be built.
    fn transport_failure(&self, error: &reqwest::Error) -> Failure {
        Failure { error: self.transport_error(error), retry: !error.is_builder(), retry_after: None }
    }

    fn transport_error(&self, error: &reqwest::Error) -> ModelError {
        let url = self.inner.endpoint.clone();
        if error.is_connect() {
            ModelError::Connect { url, message: error_chain(error) }
        } else {
            ModelError::Transport { url, message: error_chain(error) }
        }
    }
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("config", &self.inner.config)
            .field("timeout", &self.inner.timeout)
            .field("retry", &self.inner.retry)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl ChatModel for OpenAiClient {
    async fn complete(&self, request: ChatRequest) -> Result<ChatResponse, ModelError> {
        self.call(&request, false, &mut |_: StreamDelta| {}).await
    }

    async fn complete_streaming(
        &self,
        request: ChatRequest,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<ChatResponse, ModelError> {
        self.call(&request, true, on_delta).await
    }

    fn model_name(&self) -> &str {
        &self.inner.config.model
    }
}

/// The time limits of one call.
#[derive(Debug)]
struct Limits {
    /// The client's timeout: for one attempt, or (streaming) for each wait on the server.
    timeout: Duration,
    /// When the call's own timeout ends, and that timeout.
    budget: Option<(Instant, Duration)>,
}

impl Limits {
    fn new(timeout: Duration, call_timeout: Option<Duration>) -> Self {
        let budget = call_timeout.and_then(|after| Some((Instant::now().checked_add(after)?, after)));
        Limits { timeout, budget }
    }

    /// Awaits `future` until `since` + the client's timeout or the end of the call's, whichever
    /// comes first; then fails with the timeout that ended it.
    async fn within<F: Future>(&self, since: Instant, future: F) -> Result<F::Output, ModelError> {
        let own = since.checked_add(self.timeout).map(|end| (end, self.timeout));
        let limit = match (own, self.budget) {
            (Some(own), Some(budget)) => Some(if budget.0 <= own.0 { budget } else { own }),
            (own, budget) => own.or(budget),
        };
        match limit {
            None => Ok(future.await),
            Some((end, after)) => tokio::time::timeout_at(tokio::time::Instant::from_std(end), future)
                .await
                .map_err(|_elapsed| ModelError::Timeout { after }),
        }
    }

    /// Whether waiting `wait` leaves time for another attempt.
    fn allows_wait(&self, wait: Duration) -> bool {
        self.budget.is_none_or(|(end, _)| Instant::now().checked_add(wait).is_some_and(|after_wait| after_wait < end))
    }
}

/// A failed attempt, and whether another may succeed.
#[derive(Debug)]
struct Failure {
    error: ModelError,
    retry: bool,
    /// How long the server asked to wait before the next attempt.
    retry_after: Option<Duration>,
}

impl Failure {
    fn fatal(error: ModelError) -> Self {
        Failure { error, retry: false, retry_after: None }
    }
}

/// The last attempt's error, saying how many attempts were made when there was more than one.
fn note_attempts(error: ModelError, attempts: u32, gave_up: bool) -> ModelError {
    if attempts <= 1 {
        return error;
    }
    let note =
        if gave_up { format!("(gave up after {attempts} attempts)") } else { format!("(on attempt {attempts})") };
    let noted = |text: String| if text.is_empty() { note.clone() } else { format!("{text} {note}") };
    match error {
        ModelError::Status { status, body_head } => ModelError::Status { status, body_head: noted(body_head) },
        ModelError::Connect { url, message } => ModelError::Connect { url, message: noted(message) },
        ModelError::Transport { url, message } => ModelError::Transport { url, message: noted(message) },
        ModelError::InvalidResponse { message, body_head } => {
            ModelError::InvalidResponse { message: noted(message), body_head }
        }
        ModelError::Client { message } => ModelError::Client { message: noted(message) },
        timeout @ ModelError::Timeout { .. } => timeout,
    }
}

fn too_large(bytes: &[u8]) -> ModelError {
    ModelError::InvalidResponse {
        message: format!("the answer is larger than {} MiB", MAX_RESPONSE_BYTES / (1024 * 1024)),
        body_head: head_chars(&String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]), BODY_HEAD_CHARS),
    }
}

/// `error: cause: cause`, so the user sees why (e.g. `Connection refused`), not only that.
fn error_chain(error: &dyn StdError) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// A chat completion as servers write it; everything optional, unknown members ignored.
#[derive(Deserialize)]
struct CompletionWire {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<ChoiceWire>,
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Deserialize)]
struct ChoiceWire {
    #[serde(default)]
    message: Option<MessageWire>,
    #[serde(default)]
    finish_reason: Option<Value>,
}

#[derive(Deserialize)]
struct MessageWire {
    #[serde(default)]
    content: Option<MessageContent>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCall>>,
    /// Provider extensions (`reasoning_content`, ...), kept so they can be sent back.
    #[serde(flatten)]
    extra: Map<String, Value>,
}

fn parse_completion(text: &str) -> Result<ChatResponse, ModelError> {
    let invalid =
        |message: String| ModelError::InvalidResponse { message, body_head: head_chars(text, BODY_HEAD_CHARS) };
    let wire: CompletionWire = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    let Some(choice) = wire.choices.into_iter().next() else {
        return Err(invalid("it has no `choices`".into()));
    };
    let message = choice.message.unwrap_or(MessageWire { content: None, tool_calls: None, extra: Map::new() });
    let mut extra = message.extra;
    extra.remove("role");
    let mut tool_calls = message.tool_calls.filter(|calls| !calls.is_empty());
    if let Some(calls) = &mut tool_calls {
        stream::give_ids(calls);
    }
    let message = ChatMessage {
        role: Role::Assistant,
        content: message.content,
        tool_calls,
        tool_call_id: None,
        name: None,
        extra,
    };
    let finish_reason = match choice.finish_reason {
        Some(Value::String(reason)) => Some(reason),
        _ => None,
    };
    Ok(ChatResponse {
        message,
        model: wire.model.unwrap_or_default(),
        usage: wire.usage.as_ref().filter(|usage| usage.is_object()).map(stream::usage),
        finish_reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_trims_trailing_slashes() {
        let config = OpenAiConfig { base_url: "http://h:1/v1//".into(), api_key: None, model: "m".into() };
        assert_eq!(config.endpoint(), "http://h:1/v1/chat/completions");
    }

    #[test]
    fn config_reads_variables_and_defaults() {
        let config = OpenAiConfig::from_lookup(|_| None);
        assert_eq!(config.base_url, "", "no silent default server");
        assert!(!config.is_configured());
        assert_eq!(config.api_key, None);
        assert_eq!(config.model, DEFAULT_MODEL);
        let config = OpenAiConfig::from_lookup(|name| match name {
            "OPENAI_BASE_URL" => Some("http://127.0.0.1:9/v1".into()),
            "OPENAI_API_KEY" => Some("".into()),
            "HOOKWIRE_MODEL" => Some("qwen".into()),
            _ => None,
        });
        assert_eq!(config.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(config.api_key, None, "an empty key sends no Authorization header");
        assert_eq!(config.model, "qwen");
        let shown = format!("{:?}", OpenAiConfig { api_key: Some("sk-secret".into()), ..config });
        assert!(!shown.contains("sk-secret"), "{shown}");
    }

    #[test]
    fn lenient_completion_parsing() {
        let response = parse_completion(
            r#"{"choices":[{"message":{"role":"assistant","content":null,"reasoning_content":"hm",
                "tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},
                "finish_reason":"tool_calls","logprobs":null}],"model":"m1","usage":{"total_tokens":7},"x":1}"#,
        )
        .unwrap();
        assert_eq!(response.message.content, None);
        assert_eq!(response.message.tool_calls.as_ref().unwrap()[0].function.name, "ls");
        assert_eq!(response.message.extra.get("reasoning_content"), Some(&Value::String("hm".into())));
        assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(response.usage.unwrap().total_tokens, 7);
        let response = parse_completion(r#"{"choices":[{"message":{"content":"hi"},"finish_reason":""}]}"#).unwrap();
        assert_eq!(response.message.text_content(), "hi");
        assert_eq!(response.finish_reason.as_deref(), Some(""));
        assert!(matches!(parse_completion(r#"{"choices":[]}"#), Err(ModelError::InvalidResponse { .. })));
        assert!(matches!(parse_completion("<html>"), Err(ModelError::InvalidResponse { .. })));
    }
}
