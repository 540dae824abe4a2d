//! HTTP failures of the model server become hook errors: a non-2xx status is an
//! `ErrorResponse` with the status and the head of the body; a refused connection is `Unavailable`.

use crate::common;

use std::sync::Arc;

use common::{API_KEY, HOST_MODEL, call, llm_hook, server};
use hook_core::{Context, Event, HookError, OutcomeClass};
use hook_llm::{ChatModel, ChatRequest, LlmHook, ModelError, OpenAiClient, OpenAiConfig, Reply};

#[tokio::test]
async fn status_500_is_an_error_response_with_the_body_head() {
    let body = r#"{"error": {"message": "the engine is overloaded", "type": "server_error"}}"#;
    let server = server([Reply::Status(500, body.into())]);
    let hook = llm_hook(&server, "Check {{user_input}}");
    let context = Context { user_input: Some("hi".into()), ..Context::default() };

    let error = call(&hook, Event::PreSendMessage, &context).await.unwrap_err();

    let HookError::ErrorResponse { code, message } = &error else { panic!("expected ErrorResponse, got {error:?}") };
    assert_eq!(*code, Some(500));
    assert!(message.contains("HTTP 500"), "{message}");
    assert!(message.contains("the engine is overloaded"), "{message}");
    assert!(message.contains("`test`"), "the message names the hook: {message}");
    assert_eq!(error.class(), OutcomeClass::ErrorResponse);
}

#[tokio::test]
async fn the_client_reports_status_and_body_head() {
    let server = server([Reply::Status(429, "slow down".into())]);
    let client = common::client(&server);

    let error = client.complete(ChatRequest::default()).await.unwrap_err();

    assert_eq!(error, ModelError::Status { status: 429, body_head: "slow down".into() });
}

#[tokio::test]
async fn a_refused_connection_is_unavailable() {
    // Take a free port, then close it, so nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = OpenAiConfig {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        api_key: Some(API_KEY.into()),
        model: HOST_MODEL.into(),
    };
    let client = OpenAiClient::new(config).unwrap();
    let hook = LlmHook::new("test", "Check {{user_input}}", Arc::new(client.clone()));

    let model_error = client.complete(ChatRequest::default()).await.unwrap_err();
    assert!(matches!(model_error, ModelError::Connect { .. }), "{model_error:?}");

    let error = call(&hook, Event::PreSendMessage, &Context::default()).await.unwrap_err();
    let HookError::Unavailable { message } = &error else { panic!("expected Unavailable, got {error:?}") };
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
    assert_eq!(error.class(), OutcomeClass::Crashed);
}
