//! The request an llm hook sends, as j-cli sends it: system + user message, temperature 0.

use crate::common;

use common::{call, llm_hook, server};
use hook_core::{Context, Event};
use hook_llm::Reply;

#[tokio::test]
async fn request_body_shape() {
    let server = server([Reply::Content("{}".into())]);
    let hook = llm_hook(&server, "Is this message polite? {{user_input}}");
    let context =
        Context { user_input: Some("hello there".into()), session_id: Some("s-1".into()), ..Context::default() };

    call(&hook, Event::PreSendMessage, &context).await.unwrap();

    let mut body = server.requests()[0].clone();
    let user_text = body["messages"][1]["content"].as_str().unwrap().to_owned();
    // The user message is the rendered prompt plus the format instruction; the instruction is
    // snapshotted as text below, so the body stays readable.
    let instruction = user_text.strip_prefix("Is this message polite? hello there").unwrap();
    body["messages"][1]["content"] = "Is this message polite? hello there<FORMAT_INSTRUCTION>".into();
    insta::assert_json_snapshot!("request_body", body);
    insta::assert_snapshot!("format_instruction", instruction);
}
