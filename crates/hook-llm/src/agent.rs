//! The Claude Code family's `http` and `prompt` handlers, run as their agents run them.
//!
//! - [`AgentHttpFactory`] (kind `http`): POSTs the hook input to the handler's `url` and reads
//!   a 2xx body as the agent does; any other status, a redirect included, is a non-blocking
//!   error (fail-open unless the handler asks to block on failure).
//! - [`AgentPromptFactory`] (kind `prompt`): asks a chat model the handler's `prompt` with the
//!   hook input in place of `$ARGUMENTS`, and applies its `{"ok", "reason"}` verdict.

use std::{
    fmt,
    sync::{Arc, OnceLock},
    time::{Duration, Instant},
};

use async_trait::async_trait;
use hook_agents::{AgentGate, input_line_of, read_http_body, read_prompt_verdict};
use hook_core::{
    AgentHookDef, BuildError, BuiltHook, Hook, HookDefinition, HookError, HookFactory, HookInput, HookOutput, HookSpec,
    Level, SharedBytes, head_chars,
};
use hook_protocol::{
    Agent, ChatMessage, Event, Role,
    serde_json::{self, Map, Value},
};
use reqwest::{
    Url,
    header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue},
};

use crate::{ChatModel, ChatRequest, ModelError};

/// The largest http hook answer read; a longer body is an error.
pub const MAX_HTTP_BODY_BYTES: usize = 1024 * 1024;

/// How much of a failed answer's body an error quotes, in characters.
const ERROR_BODY_CHARS: usize = 200;

/// How much of a failed answer's body is read: enough for [`ERROR_BODY_CHARS`] characters.
const ERROR_BODY_BYTES: usize = 4 * ERROR_BODY_CHARS + 4;

/// The system message of every prompt hook request: the answer's format.
pub const PROMPT_SYSTEM_MESSAGE: &str = "You are a hook of a coding agent: you check one step of its work. \
Answer ONLY with one JSON object, no markdown and no text around it: {\"ok\": true} when the step may go on, \
or {\"ok\": false, \"reason\": \"...\"} saying why it may not.";

/// A prompt hook's answer is short; this bounds a runaway one.
const PROMPT_MAX_TOKENS: u64 = 1024;

/// The placeholder a prompt hook's prompt holds the hook input in.
const ARGUMENTS: &str = "$ARGUMENTS";

/// The cache key of each agent's hook input as compact JSON, shared by the hooks of one fire.
fn input_cache_key(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "hook_llm.agent_input.claude",
        Agent::Gemini => "hook_llm.agent_input.gemini",
        Agent::Codex => "hook_llm.agent_input.codex",
        Agent::Copilot => "hook_llm.agent_input.copilot",
    }
}

/// The hook input of `agent` for this run, as compact JSON.
fn input_json(agent: Agent, input: &HookInput<'_>) -> SharedBytes {
    input.serialized(input_cache_key(agent), |event, context| {
        // A map of JSON values always serializes.
        {
            // The agent's own members first and `tool_input` as written, as its agent sends it.
            let mut body = input_line_of(agent, event, context);
            body.pop();
            body
        }
    })
}

/// The agent handler of `spec`, checked to be of type `kind`, and the event it sits on.
fn agent_def<'a>(spec: &'a HookSpec, kind: &str) -> Result<(&'a AgentHookDef, Event), BuildError> {
    let HookDefinition::Agent(def) = &spec.definition else {
        return Err(BuildError::Invalid {
            message: format!(
                "hook `{}` is not a handler of a Claude Code, Gemini CLI or Codex settings file; `{kind}` hooks come from those files",
                spec.name
            ),
        });
    };
    if def.handler.kind != kind {
        return Err(BuildError::Invalid {
            message: format!("hook `{}` is a `{}` handler, not a `{kind}` handler", spec.name, def.handler.kind),
        });
    }
    let event = spec
        .events
        .first()
        .copied()
        .ok_or_else(|| BuildError::Invalid { message: format!("hook `{}` is on no event", spec.name) })?;
    Ok((def, event))
}

/// `hook` with `def`'s matcher and `if` rule as its gate, keeping the agent's deadline.
fn built(spec: &HookSpec, def: &AgentHookDef, event: Event, hook: Arc<dyn Hook>) -> Result<BuiltHook, BuildError> {
    let gate = AgentGate::compile(def, event)
        .map_err(|err| BuildError::Invalid { message: format!("hook `{}`: {err}", spec.name) })?;
    Ok(BuiltHook::new(hook).with_gate(Arc::new(gate)).outlasting_chain())
}

/// The time left until `deadline`; `Err(Timeout)` when none is.
fn time_left(deadline: Instant) -> Result<Duration, HookError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() { Err(HookError::Timeout { after: left }) } else { Ok(left) }
}

// ---------------------------------------------------------------------------------------------
// http

/// Builds `http` handlers of the Claude Code family's settings files.
///
/// Each run POSTs the hook input (compact JSON, `Content-Type: application/json`) to the
/// handler's `url`, with its `headers`, within the run's deadline:
///
/// - the URL must be `http` or `https`, and match one of the file's `allowedHttpHookUrls`
///   patterns (`*` matches any characters) when the file has that list, and then carry no
///   `user:password@`; otherwise the hook is refused when it is built and never called;
/// - `$VAR` and `${VAR}` in header values read the environment only for variables listed in
///   the handler's `allowedEnvVars` or the file's `httpHookAllowedEnvVars`; any other is
///   replaced by nothing;
/// - redirects are not followed;
/// - a 2xx body reads as the agent reads it (empty: no decision; a JSON object: the same answer
///   as a command hook's stdout; anything else: an invalid answer). Any other status is
///   [`HookError::ErrorResponse`], an unreachable server [`HookError::Unavailable`], a body
///   over [`MAX_HTTP_BODY_BYTES`] [`HookError::InvalidOutput`]: all non-blocking errors, so the
///   chain goes on (fail-open) unless the handler asks to block on failure.
///
/// The factory's hooks share one connection pool.
#[derive(Debug, Clone, Default)]
pub struct AgentHttpFactory {
    client: Arc<OnceLock<Result<reqwest::Client, String>>>,
}

impl AgentHttpFactory {
    /// A factory whose hooks share one connection pool, created with the first hook.
    pub fn new() -> Self {
        AgentHttpFactory::default()
    }

    fn client(&self) -> Result<reqwest::Client, String> {
        self.client
            .get_or_init(|| {
                crate::install_tls_provider();
                reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .tcp_nodelay(true)
                    .build()
                    .map_err(|err| error_chain(&err))
            })
            .clone()
    }
}

#[async_trait]
impl HookFactory for AgentHttpFactory {
    fn kind(&self) -> &str {
        "http"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let (def, event) = agent_def(spec, "http")?;
        let name = &spec.name;
        let url_text = def.handler.url.as_deref().map(str::trim).unwrap_or_default();
        if url_text.is_empty() {
            return Err(BuildError::Invalid { message: format!("http hook `{name}` has no `url`") });
        }
        let url = Url::parse(url_text).map_err(|err| BuildError::Invalid {
            message: format!("http hook `{name}`: `{url_text}` is not a URL: {err}"),
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(BuildError::Invalid {
                message: format!(
                    "http hook `{name}`: `{url_text}` is a `{}` URL; an http hook calls an http or https URL",
                    url.scheme()
                ),
            });
        }
        if let Some(patterns) = &def.http_allowed_urls
            && !hook_agents::url_allowed(patterns, url_text)
        {
            let listed = if patterns.is_empty() { "none".to_owned() } else { patterns.join(", ") };
            let whose = match spec.level {
                Level::Project => {
                    "its file's or the user settings' `allowedHttpHookUrls` (both apply to a project's hooks)"
                }
                _ => "`allowedHttpHookUrls`",
            };
            return Err(BuildError::Invalid {
                message: format!(
                    "http hook `{name}` calls `{url_text}`, which {whose} does not allow (allowed: {listed}); \
                     the hook is not called: add a pattern matching its url to `allowedHttpHookUrls`"
                ),
            });
        }
        // A `*` could reach past `user:password@` into the host: `http://127.0.0.1:*/` would
        // allow `http://127.0.0.1:1@elsewhere/`. Under an allowlist, credentials in the URL are refused.
        if def.http_allowed_urls.is_some() && (!url.username().is_empty() || url.password().is_some()) {
            return Err(BuildError::Invalid {
                message: format!(
                    "http hook `{name}` calls `{url_text}`, whose user and password part hides the host from \
                     `allowedHttpHookUrls`; the hook is not called: send credentials in `headers` instead"
                ),
            });
        }
        let mut headers = Vec::new();
        for (header, value) in def.handler.headers.iter().flatten() {
            let header_name = HeaderName::from_bytes(header.as_bytes()).map_err(|_| BuildError::Invalid {
                message: format!("http hook `{name}`: `{header}` is not a valid HTTP header name"),
            })?;
            headers.push((header_name, value.clone()));
        }
        let mut allowed_env_vars = def.handler.allowed_env_vars.clone().unwrap_or_default();
        allowed_env_vars.extend(def.http_allowed_env_vars.iter().cloned());
        let client = self.client().map_err(|message| BuildError::Invalid {
            message: format!("http hook `{name}`: could not create the HTTP client: {message}"),
        })?;
        let hook = AgentHttpHook {
            name: name.clone(),
            agent: def.agent,
            url,
            url_text: url_text.to_owned(),
            headers,
            allowed_env_vars,
            client,
        };
        built(spec, def, event, Arc::new(hook))
    }
}

/// One `http` handler (see [`AgentHttpFactory`]).
struct AgentHttpHook {
    name: String,
    agent: Agent,
    url: Url,
    /// The url as written, for messages.
    url_text: String,
    /// Header names and their values as written (`$VAR` not yet replaced).
    headers: Vec<(HeaderName, String)>,
    allowed_env_vars: Vec<String>,
    client: reqwest::Client,
}

impl fmt::Debug for AgentHttpHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values may hold secrets: names only.
        let header_names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("AgentHttpHook")
            .field("name", &self.name)
            .field("agent", &self.agent)
            .field("url", &self.url_text)
            .field("headers", &header_names)
            .field("allowed_env_vars", &self.allowed_env_vars)
            .finish_non_exhaustive()
    }
}

impl AgentHttpHook {
    /// The request headers, `$VAR`s replaced from the environment where allowed.
    fn request_headers(&self) -> Result<HeaderMap, HookError> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let is_allowed = |var: &str| self.allowed_env_vars.iter().any(|allowed| allowed == var);
        for (name, template) in &self.headers {
            let value = expand_env_vars(template, is_allowed, |var| std::env::var(var).ok());
            let value = HeaderValue::from_str(&value).map_err(|_| HookError::Unavailable {
                message: format!(
                    "http hook `{}`: header `{name}` is not a valid HTTP header value once its variables are replaced \
                     (a line break or control character?); the request was not sent",
                    self.name
                ),
            })?;
            headers.insert(name.clone(), value);
        }
        Ok(headers)
    }

    /// Sends the request and reads the answer: the status, the body (at most
    /// [`MAX_HTTP_BODY_BYTES`] of a 2xx one, the head of any other) and whether there was more.
    async fn exchange(&self, body: Vec<u8>, headers: HeaderMap) -> Result<(u16, Vec<u8>, bool), HookError> {
        let mut response = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(body)
            .send()
            .await
            .map_err(|err| self.transport_error(&err))?;
        let status = response.status().as_u16();
        // A failure's body is only quoted: its head is enough.
        let limit = if response.status().is_success() { MAX_HTTP_BODY_BYTES } else { ERROR_BODY_BYTES };
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| self.transport_error(&err))? {
            if bytes.len() + chunk.len() > limit {
                let room = limit - bytes.len();
                bytes.extend_from_slice(&chunk[..room]);
                return Ok((status, bytes, true));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((status, bytes, false))
    }

    fn transport_error(&self, error: &reqwest::Error) -> HookError {
        let what = if error.is_connect() { "could not connect to" } else { "the request failed at" };
        HookError::Unavailable {
            message: format!("http hook `{}` {what} {}: {}", self.name, self.url_text, error_chain(error)),
        }
    }
}

#[async_trait]
impl Hook for AgentHttpHook {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let left = time_left(input.deadline)?;
        let headers = self.request_headers()?;
        let body = input_json(self.agent, input).to_vec();
        let exchange = tokio::time::timeout_at(input.deadline.into(), self.exchange(body, headers));
        let (status, bytes, is_cut) = exchange.await.map_err(|_elapsed| HookError::Timeout { after: left })??;
        let text = String::from_utf8_lossy(&bytes);
        if !(200..300).contains(&status) {
            let message = if text.trim().is_empty() {
                let redirect = if (300..400).contains(&status) { "; redirects are not followed" } else { "" };
                format!("HTTP {status} with an empty body{redirect}")
            } else {
                escape_controls(&head_chars(&text, ERROR_BODY_CHARS))
            };
            return Err(HookError::ErrorResponse { code: Some(i64::from(status)), message });
        }
        if is_cut {
            return Err(HookError::invalid_output(
                format!(
                    "http hook `{}` answered with more than {} MiB; an answer is one JSON object or nothing",
                    self.name,
                    MAX_HTTP_BODY_BYTES / (1024 * 1024)
                ),
                &text,
            ));
        }
        read_http_body(self.agent, input.event, &text, input.context)
    }
}

/// `template` with each `$VAR` and `${VAR}` replaced by `lookup(VAR)` when `is_allowed(VAR)`,
/// by nothing otherwise. A `$` that starts no variable name stays as it is.
fn expand_env_vars(
    template: &str,
    is_allowed: impl Fn(&str) -> bool,
    lookup: impl Fn(&str) -> Option<String>,
) -> String {
    let is_name_start = |c: char| c.is_ascii_alphabetic() || c == '_';
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (name, consumed) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) if braced[..end].starts_with(is_name_start) && braced[..end].chars().all(is_name_char) => {
                    (Some(&braced[..end]), end + 2)
                }
                _ => (None, 0),
            }
        } else if after.starts_with(is_name_start) {
            let end = after.find(|c: char| !is_name_char(c)).unwrap_or(after.len());
            (Some(&after[..end]), end)
        } else {
            (None, 0)
        };
        match name {
            Some(name) => {
                if is_allowed(name) {
                    out.push_str(&lookup(name).unwrap_or_default());
                }
                rest = &after[consumed..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` with control characters (line breaks included) escaped as `\n`, `\u{1b}`, ...
fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// `error: cause: cause`, so the user sees why (e.g. `Connection refused`), not only that.
fn error_chain(error: &dyn std::error::Error) -> String {
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

// ---------------------------------------------------------------------------------------------
// prompt

/// Builds `prompt` handlers of the Claude Code family's settings files.
///
/// Each run sends the handler's `prompt`, the hook input JSON in place of `$ARGUMENTS` (see
/// [`render_prompt`]), to the chat model, with [`PROMPT_SYSTEM_MESSAGE`]; the model is the
/// handler's `model`, else the factory's default. The verdict is the answer when it is one JSON
/// object, else the last JSON object in it with an `ok` member: `{"ok": true}` decides nothing,
/// `{"ok": false, "reason": R}` applies R as the agent does on the event (a denial on
/// `PreToolUse`, feedback for another round on `Stop`, ...). An answer holding objects whose
/// `ok` disagree (a model quoting the input's `{"ok": true}` beside its own "no") is a "no"
/// whose reason starts "ambiguous verdict". An answer without a boolean `ok` is [`HookError::InvalidOutput`].
#[derive(Debug, Clone)]
pub struct AgentPromptFactory {
    chat_model: Arc<dyn ChatModel>,
    default_model: Option<String>,
}

impl AgentPromptFactory {
    /// A factory whose hooks ask `chat_model`, naming `default_model` unless a handler names
    /// its own `model` (an empty `default_model`: the chat model's own).
    pub fn new(chat_model: Arc<dyn ChatModel>, default_model: impl Into<String>) -> Self {
        let default_model = Some(default_model.into()).filter(|model| !model.trim().is_empty());
        AgentPromptFactory { chat_model, default_model }
    }
}

#[async_trait]
impl HookFactory for AgentPromptFactory {
    fn kind(&self) -> &str {
        "prompt"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let (def, event) = agent_def(spec, "prompt")?;
        let prompt =
            def.handler.prompt.clone().filter(|prompt| !prompt.trim().is_empty()).ok_or_else(|| {
                BuildError::Invalid { message: format!("prompt hook `{}` has no `prompt`", spec.name) }
            })?;
        let model =
            def.handler.model.clone().filter(|model| !model.trim().is_empty()).or_else(|| self.default_model.clone());
        let hook = AgentPromptHook {
            name: spec.name.clone(),
            agent: def.agent,
            prompt,
            model,
            chat_model: self.chat_model.clone(),
        };
        built(spec, def, event, Arc::new(hook))
    }
}

/// One `prompt` handler (see [`AgentPromptFactory`]).
struct AgentPromptHook {
    name: String,
    agent: Agent,
    prompt: String,
    /// `None`: the chat model's own.
    model: Option<String>,
    chat_model: Arc<dyn ChatModel>,
}

impl fmt::Debug for AgentPromptHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentPromptHook")
            .field("name", &self.name)
            .field("agent", &self.agent)
            .field("model", &self.model_label())
            .field("prompt_chars", &self.prompt.chars().count())
            .finish_non_exhaustive()
    }
}

impl AgentPromptHook {
    fn model_label(&self) -> &str {
        self.model.as_deref().unwrap_or_else(|| self.chat_model.model_name())
    }

    fn model_error(&self, error: ModelError) -> HookError {
        let message = format!("prompt hook `{}` (model {}): {error}", self.name, self.model_label());
        match error {
            ModelError::Timeout { after } => HookError::Timeout { after },
            ModelError::Status { status, .. } => HookError::ErrorResponse { code: Some(i64::from(status)), message },
            ModelError::InvalidResponse { body_head, .. } => {
                HookError::InvalidOutput { message, raw_head: head_chars(&body_head, ERROR_BODY_CHARS) }
            }
            _ => HookError::Unavailable { message },
        }
    }
}

#[async_trait]
impl Hook for AgentPromptHook {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let left = time_left(input.deadline)?;
        let arguments = input_json(self.agent, input);
        let user_text = render_prompt(&self.prompt, &String::from_utf8_lossy(&arguments));
        let mut options = Map::new();
        options.insert("temperature".into(), Value::from(0.0));
        options.insert("max_tokens".into(), Value::from(PROMPT_MAX_TOKENS));
        let request = ChatRequest {
            model: self.model.clone(),
            messages: vec![
                ChatMessage::text(Role::System, PROMPT_SYSTEM_MESSAGE),
                ChatMessage::text(Role::User, user_text),
            ],
            tools: Vec::new(),
            options,
            timeout: Some(left),
        };
        let response = self.chat_model.complete(request).await.map_err(|error| self.model_error(error))?;
        let reply = response.message.text_content();
        let verdict = read_verdict(&reply).map_err(|problem| {
            HookError::invalid_output(
                format!(
                    "prompt hook `{}` on {}: {problem}; the model ({}) must answer with one JSON object \
                     {{\"ok\": true}} or {{\"ok\": false, \"reason\": \"...\"}}",
                    self.name,
                    input.event,
                    self.model_label()
                ),
                &reply,
            )
        })?;
        Ok(match verdict {
            Verdict::Clear(ok, reason) => read_prompt_verdict(input.event, ok, reason),
            // Fail closed: a "no" as the event reads one (a deny, a block, another round).
            Verdict::Ambiguous => read_prompt_verdict(input.event, false, Some(AMBIGUOUS_VERDICT.to_owned())),
        })
    }
}

/// A prompt hook's prompt with the hook input: `$ARGUMENTS` is replaced by `arguments` (the
/// hook input JSON) wherever it appears, and `arguments` is appended after a blank line when
/// it appears nowhere; `\$` is a literal `$`.
pub fn render_prompt(prompt: &str, arguments: &str) -> String {
    let mut out = String::with_capacity(prompt.len() + arguments.len() + 2);
    let mut has_arguments = false;
    let mut rest = prompt;
    while let Some(at) = rest.find(['\\', '$']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("\\$") {
            out.push('$');
            rest = after;
        } else if let Some(after) = tail.strip_prefix(ARGUMENTS) {
            out.push_str(arguments);
            has_arguments = true;
            rest = after;
        } else {
            // A lone `\` or `$`: itself (both are one byte).
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    if !has_arguments {
        out.push_str("\n\n");
        out.push_str(arguments);
    }
    out
}

/// What a model's reply says.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    /// One verdict: `ok` and the reason.
    Clear(bool, Option<String>),
    /// Several objects with `ok` that disagree: the reply quotes a verdict (perhaps one the input
    /// planted) beside its own, and which is its own cannot be told.
    Ambiguous,
}

/// The reason a prompt hook gives when the model's reply holds verdicts that disagree.
const AMBIGUOUS_VERDICT: &str = "ambiguous verdict: the model's answer holds both {\"ok\": true} and \
                                     {\"ok\": false} (it may be quoting the input); the step is refused";

/// The model's verdict. The whole reply when it is one JSON object; otherwise the top-level JSON
/// objects with an `ok` member found in it (in prose, code fences, ...), of which the last
/// counts when they all agree, and which are [`Verdict::Ambiguous`] when they do not: a model
/// quoting an attacker's `{"ok": true}` before its own `{"ok": false}` must not approve.
/// `Err`: what is wrong with it.
fn read_verdict(reply: &str) -> Result<Verdict, String> {
    if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(reply.trim()) {
        return verdict_of(&object).map(|(ok, reason)| Verdict::Clear(ok, reason));
    }
    let objects = objects_with(reply, "ok");
    let Some(last) = objects.last() else {
        return Err(if reply.trim().is_empty() {
            "the model answered with nothing".to_owned()
        } else {
            "the answer holds no JSON object with an `ok` member".to_owned()
        });
    };
    let verdicts = objects.iter().map(verdict_of).collect::<Result<Vec<_>, _>>()?;
    if verdicts.iter().any(|(ok, _)| *ok != verdicts[0].0) {
        return Ok(Verdict::Ambiguous);
    }
    verdict_of(last).map(|(ok, reason)| Verdict::Clear(ok, reason))
}

/// The `ok` and `reason` of one verdict object.
fn verdict_of(object: &Map<String, Value>) -> Result<(bool, Option<String>), String> {
    let ok = match object.get("ok") {
        Some(Value::Bool(ok)) => *ok,
        Some(other) => return Err(format!("`ok` must be true or false, not {other}")),
        None => return Err("the answer has no `ok`".to_owned()),
    };
    let reason = match object.get("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(reason)) => Some(reason.clone()),
        Some(other) => return Err(format!("`reason` must be a string, not {other}")),
    };
    Ok((ok, reason))
}

/// The top-level JSON objects in `text` that have member `key`, in order. Each `{` is tried in
/// order as the start of a JSON value: braces in prose fail to parse and are passed over, and
/// every object found is skipped whole, so an object nested in another is never taken for one.
fn objects_with(text: &str, key: &str) -> Vec<Map<String, Value>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = text.get(from..).and_then(|rest| rest.find('{')) {
        let start = from + offset;
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match values.next() {
            Some(Ok(Value::Object(object))) => {
                from = start + values.byte_offset().max(1);
                if object.contains_key(key) {
                    found.push(object);
                }
            }
            _ => from = start + 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_any_characters_and_nothing_else() {
        let wildcard_match = |pattern: &str, url: &str| hook_agents::url_allowed(&[pattern.to_owned()], url);
        assert!(wildcard_match("https://hooks.example.com/*", "https://hooks.example.com/a/b?c=d"));
        assert!(wildcard_match("https://hooks.example.com/*", "https://hooks.example.com/"));
        assert!(wildcard_match("http://127.0.0.1:*/hook", "http://127.0.0.1:8080/hook"));
        assert!(wildcard_match("*", "http://anything"));
        assert!(wildcard_match("http://a/x", "http://a/x"));
        assert!(wildcard_match("*a*b*", "xxaxxbxx"));
        assert!(!wildcard_match("http://a/x", "http://a/xy"));
        assert!(!wildcard_match("https://hooks.example.com/*", "https://hooks.example.com.evil.net/"));
        assert!(!wildcard_match("https://hooks.example.com/*", "http://hooks.example.com/x"));
        assert!(!wildcard_match("", "http://a"));
        assert!(!wildcard_match("*a*b", "xxaxxbxx"));
        assert!(wildcard_match("é*", "été"));
    }

    #[test]
    fn only_allowed_variables_are_read() {
        let allowed = |var: &str| var == "TOKEN" || var == "B";
        let lookup = |var: &str| Some(format!("<{var}>"));
        assert_eq!(expand_env_vars("Bearer $TOKEN", allowed, lookup), "Bearer <TOKEN>");
        assert_eq!(expand_env_vars("Bearer ${TOKEN}x", allowed, lookup), "Bearer <TOKEN>x");
        assert_eq!(expand_env_vars("Bearer $SECRET", allowed, lookup), "Bearer ");
        assert_eq!(expand_env_vars("${SECRET}-$B.", allowed, lookup), "-<B>.");
        assert_eq!(expand_env_vars("$TOKENS", allowed, lookup), "");
        assert_eq!(expand_env_vars("a $ b $1 ${ ${1x} $", allowed, lookup), "a $ b $1 ${ ${1x} $");
        assert_eq!(expand_env_vars("${TOKEN", allowed, lookup), "${TOKEN");
        assert_eq!(expand_env_vars("é$B€", allowed, lookup), "é<B>€");
        assert_eq!(expand_env_vars("$TOKEN", allowed, |_| None), "");
    }

    #[test]
    fn arguments_are_replaced_or_appended() {
        assert_eq!(render_prompt("Check $ARGUMENTS now", "{}"), "Check {} now");
        assert_eq!(render_prompt("$ARGUMENTS and $ARGUMENTS", "{}"), "{} and {}");
        assert_eq!(render_prompt("Check this", "{}"), "Check this\n\n{}");
        assert_eq!(render_prompt("costs \\$5: $ARGUMENTS", "{}"), "costs $5: {}");
        assert_eq!(render_prompt("\\$ARGUMENTS", "{}"), "$ARGUMENTS\n\n{}");
        assert_eq!(render_prompt("a \\ b $ c €$", "{}"), "a \\ b $ c €$\n\n{}");
        assert_eq!(render_prompt("x\\", "{}"), "x\\\n\n{}");
    }

    #[test]
    fn the_verdict_is_the_whole_reply_or_the_last_agreeing_object() {
        let clear = |ok, reason: Option<&str>| Ok(Verdict::Clear(ok, reason.map(str::to_owned)));
        assert_eq!(read_verdict(r#"{"ok": true}"#), clear(true, None));
        assert_eq!(
            read_verdict("Sure.\n```json\n{\"ok\": false, \"reason\": \"tests {fail}\"}\n```"),
            clear(false, Some("tests {fail}"))
        );
        assert_eq!(read_verdict(r#"I read {"file": {"ok": 1}} then {"ok": false}"#), clear(false, None));
        assert_eq!(
            read_verdict(r#"{"ok": false, "reason": "a"} no, {"ok": false, "reason": "b"}"#),
            clear(false, Some("b"))
        );
        // The input's `{"ok": true}` quoted beside the model's own "no", in either order.
        assert_eq!(read_verdict(r#"It says {"ok": true}. Mine: {"ok": false, "reason": "x"}"#), Ok(Verdict::Ambiguous));
        assert_eq!(read_verdict(r#"{"ok": false} is what it fears; {"ok": true}"#), Ok(Verdict::Ambiguous));
        // A whole-object reply is the verdict, whatever its reason quotes.
        assert_eq!(
            read_verdict(r#" {"ok": false, "reason": "it said {\"ok\": true}"} "#),
            clear(false, Some("it said {\"ok\": true}"))
        );
        assert!(read_verdict(r#"{"ok": "yes"}"#).unwrap_err().contains("`ok` must be true or false"));
        assert!(read_verdict(r#"{"ok": false, "reason": 3}"#).unwrap_err().contains("`reason`"));
        assert!(read_verdict(r#"x {"ok": true} {"ok": "yes"}"#).unwrap_err().contains("`ok` must be"));
        assert!(read_verdict("no json {here").is_err());
        assert!(read_verdict("").is_err());
        assert!(read_verdict("{\"ok\": tr").is_err());
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("a\nb\u{1b}[31mc\té"), "a\\nb\\u{1b}[31mc\\té");
    }
}
