//! The OpenAiClient as a ChatModel for the agent loop: tool calls, tools, options, the
//! per-call model override, and one kept-alive connection for many calls.

use crate::common;

use common::{HOST_MODEL, client, server};
use hook_llm::{ChatModel, ChatRequest, Reply};
use hook_protocol::{ChatMessage, Role, ToolCall, ToolDefinition};

#[tokio::test]
async fn tool_calls_tools_and_options() {
    let call = ToolCall::new("call_1", "read_file", r#"{"path":"a.txt"}"#);
    let server = server([
        Reply::ToolCalls(vec![call.clone()], None),
        Reply::ToolCalls(vec![call.clone()], Some("reading it".into())),
    ]);
    let client = client(&server);
    assert_eq!(client.model_name(), HOST_MODEL);
    let mut request = ChatRequest::new(vec![ChatMessage::text(Role::User, "read a.txt")]);
    request.tools = vec![ToolDefinition::function("read_file", "Reads a file", serde_json::json!({"type": "object"}))];
    request.options.insert("temperature".into(), serde_json::json!(0.2));
    request.options.insert("model".into(), serde_json::json!("ignored"));

    let response = client.complete(request.clone()).await.unwrap();
    assert_eq!(response.message.role, Role::Assistant);
    assert_eq!(response.message.content, None);
    assert_eq!(response.message.tool_calls, Some(vec![call.clone()]));
    assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(response.model, HOST_MODEL);

    request.model = Some("other-model".into());
    let response = client.complete(request).await.unwrap();
    assert_eq!(response.message.text_content(), "reading it");
    assert_eq!(response.model, "other-model");

    let bodies = server.requests();
    assert_eq!(bodies[0]["model"], HOST_MODEL, "options cannot replace the model");
    assert_eq!(bodies[0]["temperature"], 0.2);
    assert_eq!(bodies[0]["tools"][0]["function"]["name"], "read_file");
    assert_eq!(bodies[1]["model"], "other-model");
}

#[tokio::test]
async fn clones_share_one_kept_alive_connection() {
    let server = server((0..5).map(|_| Reply::Content("{}".into())));
    let client = client(&server);

    for _ in 0..5 {
        client.clone().complete(ChatRequest::default()).await.unwrap();
    }

    assert_eq!(server.n_requests(), 5);
    assert_eq!(server.n_connections(), 1, "every call reused the first connection");
}
