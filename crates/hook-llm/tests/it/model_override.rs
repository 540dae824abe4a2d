//! Hooks use the host's chat model; a hook's `model:` changes only the model name of its
//! requests, never the server or the key. Built through `LlmFactory` as the engine does.

use crate::common;

use std::sync::Arc;

use common::{API_KEY, HOST_MODEL, call, client, server};
use hook_core::{BuildError, Context, Event, HookDefinition, HookFactory, HookSpec, Level};
use hook_llm::{LlmFactory, Reply};
use hook_protocol::config::{HookDef, HookKind};

fn spec(name: &str, kind: HookKind, prompt: Option<&str>, model: Option<&str>) -> HookSpec {
    let def =
        HookDef { kind, prompt: prompt.map(str::to_owned), model: model.map(str::to_owned), ..HookDef::default() };
    HookSpec::new(name, Level::User, "llm", [Event::PreSendMessage], HookDefinition::Command(def))
}

#[tokio::test]
async fn model_override_reaches_the_body_and_nothing_else_changes() {
    let server = server([Reply::Content("{}".into()), Reply::Content("{}".into())]);
    let factory = LlmFactory::new(Arc::new(client(&server)));
    assert_eq!(factory.kind(), "llm");
    let plain = factory.build(&spec("plain", HookKind::Llm, Some("{{user_input}}"), None)).await.unwrap();
    let cheap =
        factory.build(&spec("cheap", HookKind::Llm, Some("{{user_input}}"), Some("gpt-4o-mini"))).await.unwrap();
    assert!(plain.observer.is_none());
    let context = Context { user_input: Some("hi".into()), ..Context::default() };

    call(plain.hook.as_ref(), Event::PreSendMessage, &context).await.unwrap();
    call(cheap.hook.as_ref(), Event::PreSendMessage, &context).await.unwrap();

    let recorded = server.recorded();
    assert_eq!(recorded.len(), 2, "both requests went to the host's server");
    assert_eq!(recorded[0].body["model"], HOST_MODEL);
    assert_eq!(recorded[1].body["model"], "gpt-4o-mini");
    for request in &recorded {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.header("authorization"), Some(format!("Bearer {API_KEY}").as_str()));
    }
}

#[tokio::test]
async fn a_definition_without_prompt_or_of_another_type_is_refused() {
    let server = server([]);
    let factory = LlmFactory::new(Arc::new(client(&server)));

    let Err(BuildError::Invalid { message }) = factory.build(&spec("blank", HookKind::Llm, Some("  "), None)).await
    else {
        panic!("a blank prompt must be refused")
    };
    assert!(message.contains("`blank`") && message.contains("prompt"), "{message}");

    let Err(BuildError::Invalid { message }) = factory.build(&spec("sh", HookKind::Bash, Some("x"), None)).await else {
        panic!("a bash definition must be refused")
    };
    assert!(message.contains("type: llm"), "{message}");
}
