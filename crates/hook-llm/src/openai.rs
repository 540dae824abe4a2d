//! `OpenAiClient`: a [`ChatModel`] over any OpenAI-compatible `/chat/completions` endpoint.

use std::{error::Error as StdError, fmt, sync::Arc, time::Duration};

use async_trait::async_trait;
use hook_core::head_chars;
use hook_protocol::{
    ChatMessage, MessageContent, Role, ToolCall,
    serde_json::{self, Map, Value},
};
use serde::Deserialize;

use crate::{ChatModel, ChatRequest, ChatResponse, ModelError, Usage};

/// Base URL used when `OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Model used when `HOOKWIRE_MODEL` is not set.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// How many characters of an error body are kept in [`ModelError`].
const BODY_HEAD_CHARS: usize = 500;

/// Answers larger than this are refused rather than buffered.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// Where an [`OpenAiClient`] sends its requests and with which model.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// E.g. `https://api.openai.com/v1`; requests go to `{base_url}/chat/completions`
    /// (a trailing `/` is ignored).
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
    /// | `OPENAI_BASE_URL` | the server's base URL | `https://api.openai.com/v1` |
    /// | `OPENAI_API_KEY` | the bearer key | none: no `Authorization` header |
    /// | `HOOKWIRE_MODEL` | the model name | `gpt-4o-mini` |
    ///
    /// Empty values count as unset.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Like [`from_env`](Self::from_env), reading variables through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let read = |name: &str| lookup(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        OpenAiConfig {
            base_url: read("OPENAI_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            api_key: read("OPENAI_API_KEY"),
            model: read("HOOKWIRE_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
        }
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

/// A chat model reached over HTTP at an OpenAI-compatible server.
///
/// Holds one `reqwest::Client`, whose connections are kept alive and reused; cloning the
/// client is cheap and shares them.
#[derive(Clone)]
pub struct OpenAiClient {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    config: OpenAiConfig,
    endpoint: String,
    authorization: Option<String>,
}

impl OpenAiClient {
    /// A client for `config` with its own connection pool.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(90))
            .build()
            .map_err(|e| ModelError::Client { message: error_chain(&e) })?;
        Ok(Self::with_http_client(config, http))
    }

    /// A client for `config` that shares `http`'s connection pool.
    pub fn with_http_client(config: OpenAiConfig, http: reqwest::Client) -> Self {
        let endpoint = config.endpoint();
        let authorization = config.api_key.as_ref().map(|key| format!("Bearer {key}"));
        OpenAiClient { inner: Arc::new(Inner { http, config, endpoint, authorization }) }
    }

    /// The configuration it was made with.
    pub fn config(&self) -> &OpenAiConfig {
        &self.inner.config
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> &str {
        &self.inner.endpoint
    }

    /// The JSON body sent for `request`.
    ///
    /// `options` members are copied as written, except `model`, `messages` and `tools`,
    /// which come from the request itself.
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

    async fn post(&self, body: Vec<u8>) -> Result<(u16, Vec<u8>), ModelError> {
        let inner = &*self.inner;
        let mut builder = inner.http.post(&inner.endpoint).header("content-type", "application/json").body(body);
        if let Some(authorization) = &inner.authorization {
            builder = builder.header("authorization", authorization);
        }
        let mut response = builder.send().await.map_err(|e| self.transport_error(&e))?;
        let status = response.status().as_u16();
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.transport_error(&e))? {
            if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
                return Err(ModelError::InvalidResponse {
                    message: format!("the answer is larger than {} MiB", MAX_RESPONSE_BYTES / (1024 * 1024)),
                    body_head: head_chars(&String::from_utf8_lossy(&bytes), BODY_HEAD_CHARS),
                });
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((status, bytes))
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
        f.debug_struct("OpenAiClient").field("config", &self.inner.config).finish_non_exhaustive()
    }
}

#[async_trait]
impl ChatModel for OpenAiClient {
    async fn complete(&self, request: ChatRequest) -> Result<ChatResponse, ModelError> {
        let body = serde_json::to_vec(&self.request_body(&request)).unwrap_or_default();
        let (status, bytes) = match request.timeout {
            None => self.post(body).await?,
            Some(after) => match tokio::time::timeout(after, self.post(body)).await {
                Ok(result) => result?,
                Err(_elapsed) => return Err(ModelError::Timeout { after }),
            },
        };
        let text = String::from_utf8_lossy(&bytes);
        if !(200..300).contains(&status) {
            return Err(ModelError::Status { status, body_head: head_chars(&text, BODY_HEAD_CHARS) });
        }
        parse_completion(&text)
    }

    fn model_name(&self) -> &str {
        &self.inner.config.model
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
    let message = ChatMessage {
        role: Role::Assistant,
        content: message.content,
        tool_calls: message.tool_calls.filter(|calls| !calls.is_empty()),
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
        usage: wire.usage.as_ref().map(usage),
        finish_reason,
    })
}

fn usage(value: &Value) -> Usage {
    let count = |name: &str| value.get(name).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        prompt_tokens: count("prompt_tokens"),
        completion_tokens: count("completion_tokens"),
        total_tokens: count("total_tokens"),
    }
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
        assert_eq!(config.base_url, DEFAULT_BASE_URL);
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
