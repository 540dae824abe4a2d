//! One llm hook call against the local ScriptedServer versus a bare reqwest POST of the same body.
//!
//! The difference is what hook-llm adds on top of HTTP: rendering, the request body, the
//! response parsing and the JSON extraction.

use std::{
    hint::black_box,
    sync::Arc,
    time::{Duration, Instant},
};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_core::{Event, Hook, HookInput, SerializedCache};
use hook_llm::{LlmHook, OpenAiClient, OpenAiConfig, Reply, ScriptedServer};
use hook_protocol::Context;

fn llm_call(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = ScriptedServer::always(Reply::Content("{}".into())).unwrap();
    let config = OpenAiConfig { base_url: server.base_url(), api_key: Some("sk-bench".into()), model: "bench".into() };
    let client = OpenAiClient::new(config).unwrap();
    let hook = LlmHook::new("bench", "Check {{user_input}} for secrets.", Arc::new(client.clone()));
    let context = Context { user_input: Some("hello world".into()), cwd: Some("/tmp".into()), ..Context::default() };

    // The body the hook sends, so the bare POST carries exactly the same bytes.
    let cache = SerializedCache::default();
    let input = HookInput::new(Event::PreSendMessage, &context, Instant::now() + Duration::from_secs(30), 1, &cache);
    let body = serde_json::to_vec(&client.request_body(&hook.request(&input))).unwrap();
    let endpoint = client.endpoint().to_owned();
    hook_llm::install_tls_provider();
    let bare = reqwest::Client::builder().tcp_nodelay(true).build().unwrap();

    let mut group = c.benchmark_group("llm");
    group.bench_function("bare_reqwest_post", |b| {
        b.to_async(&runtime).iter(|| async {
            let response = bare
                .post(&endpoint)
                .header("content-type", "application/json")
                .header("authorization", "Bearer sk-bench")
                .body(body.clone())
                .send()
                .await
                .unwrap();
            black_box(response.bytes().await.unwrap());
        })
    });
    group.bench_function("llm_hook_call", |b| {
        b.to_async(&runtime).iter(|| async {
            let cache = SerializedCache::default();
            let input =
                HookInput::new(Event::PreSendMessage, &context, Instant::now() + Duration::from_secs(30), 1, &cache);
            black_box(hook.call(&input).await.unwrap());
        })
    });
    group.finish();
    drop(server);
}

criterion_group!(benches, llm_call);
criterion_main!(benches);
