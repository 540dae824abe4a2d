//! Shared harness: a ScriptedServer, the real OpenAiClient pointed at it, and one-call helpers.

#![allow(dead_code, unreachable_pub, reason = "each test file uses part of the harness")]

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use hook_core::{Context, Event, Hook, HookError, HookInput, HookOutput, SerializedCache};
use hook_llm::{LlmHook, OpenAiClient, OpenAiConfig, Reply, ScriptedServer};

/// The host's model name in every test.
pub const HOST_MODEL: &str = "host-model";
/// The key the host's client sends.
pub const API_KEY: &str = "sk-test-123";

/// A server answering with `script`, in order.
pub fn server(script: impl IntoIterator<Item = Reply>) -> ScriptedServer {
    ScriptedServer::start(script).expect("start the scripted server on 127.0.0.1")
}

/// The host's chat model: the real client, pointed at `server`, with [`API_KEY`].
pub fn client(server: &ScriptedServer) -> OpenAiClient {
    let config = OpenAiConfig { base_url: server.base_url(), api_key: Some(API_KEY.into()), model: HOST_MODEL.into() };
    OpenAiClient::new(config).expect("build the HTTP client")
}

/// An llm hook named `test` with `prompt`, asking the host's model behind `server`.
pub fn llm_hook(server: &ScriptedServer, prompt: &str) -> LlmHook {
    LlmHook::new("test", prompt, Arc::new(client(server)))
}

/// Runs `hook` once through `Hook::call`, with `deadline` from now.
pub async fn call_within(
    hook: &dyn Hook,
    event: Event,
    context: &Context,
    deadline: Duration,
) -> Result<HookOutput, HookError> {
    let cache = SerializedCache::default();
    let input = HookInput::new(event, context, Instant::now() + deadline, 1, &cache);
    hook.call(&input).await
}

/// Runs `hook` once with a 10 s deadline.
pub async fn call(hook: &dyn Hook, event: Event, context: &Context) -> Result<HookOutput, HookError> {
    call_within(hook, event, context, Duration::from_secs(10)).await
}

/// The text of the user message (the rendered prompt plus the format instruction) of request `idx`.
pub fn user_message(server: &ScriptedServer, idx: usize) -> String {
    let requests = server.requests();
    requests[idx]["messages"][1]["content"].as_str().expect("a user message with text content").to_owned()
}

/// The rendered prompt of request `idx`, without the format instruction.
pub fn rendered_prompt(server: &ScriptedServer, idx: usize) -> String {
    let text = user_message(server, idx);
    text.strip_suffix(hook_llm::FORMAT_INSTRUCTION).expect("the format instruction ends the user message").to_owned()
}
