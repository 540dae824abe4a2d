//! The API key travels as `Authorization: Bearer <key>`; without a key no header is sent.

use crate::common;

use common::{API_KEY, server};
use hook_llm::{ChatModel, ChatRequest, OpenAiClient, OpenAiConfig, Reply};

#[tokio::test]
async fn the_key_is_a_bearer_header() {
    let server = server([Reply::Content("{}".into())]);

    common::client(&server).complete(ChatRequest::default()).await.unwrap();

    let request = &server.recorded()[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.header("Authorization"), Some(format!("Bearer {API_KEY}").as_str()));
    assert_eq!(request.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn no_key_no_header_and_a_trailing_slash_is_ignored() {
    let server = server([Reply::Content("{}".into())]);
    let config = OpenAiConfig { base_url: format!("{}/", server.base_url()), api_key: None, model: "local".into() };

    OpenAiClient::new(config).unwrap().complete(ChatRequest::default()).await.unwrap();

    let request = &server.recorded()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), None);
}
