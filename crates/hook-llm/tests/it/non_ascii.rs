//! Non-ASCII text everywhere (CJK prompt, values, replies and error bodies) never panics and
//! is cut on character boundaries (j-cli slices bytes and panics).

use crate::common;

use common::{call, llm_hook, rendered_prompt, server};
use hook_core::{Context, Event, HookError};
use hook_llm::Reply;

#[tokio::test]
async fn cjk_prompt_values_and_reply() {
    let first_line =
        "检查以下 AI 回复是否包含敏感信息（密码、密钥、令牌、身份证号、银行卡号、住址、电话号码）并说明理由：";
    assert!(first_line.len() > 80);
    let prompt = format!("{first_line}\n{{{{assistant_output}}}}\n如果没有问题，返回空 JSON {{}}。");
    let server = server([Reply::Content("好的：```json\n{\"assistant_output\": \"已删除密钥 🔑\"}\n```".into())]);
    let hook = llm_hook(&server, &prompt);
    let context = Context { assistant_output: Some("密钥是 sk-中文😀".into()), ..Context::default() };

    let output = call(&hook, Event::PostLlmResponse, &context).await.unwrap();

    assert_eq!(output.patch.assistant_output.as_deref(), Some("已删除密钥 🔑"));
    assert_eq!(
        rendered_prompt(&server, 0),
        format!("{first_line}\n密钥是 sk-中文😀\n如果没有问题，返回空 JSON {{}}。")
    );
}

#[tokio::test]
async fn long_cjk_error_body_is_cut_by_characters() {
    let body = "服务器内部错误，".repeat(100);
    assert!(body.len() > 500);
    let server = server([Reply::Status(503, body.clone())]);
    let hook = llm_hook(&server, "审查：{{user_input}}");
    let context = Context { user_input: Some("你好".into()), ..Context::default() };

    let error = call(&hook, Event::PreSendMessage, &context).await.unwrap_err();

    let HookError::ErrorResponse { code, message } = &error else { panic!("expected ErrorResponse, got {error:?}") };
    assert_eq!(*code, Some(503));
    assert!(message.contains("服务器内部错误"), "{message}");
    assert!(message.ends_with('…'), "the body was cut: {message}");
    assert!(message.chars().count() < body.chars().count(), "{message}");
}

#[tokio::test]
async fn long_cjk_invalid_reply_is_cut_by_characters() {
    let reply = "我无法给出答案。".repeat(100);
    let server = server([Reply::Content(reply)]);
    let hook = llm_hook(&server, "审查：{{user_input}}");

    let error = call(&hook, Event::PreSendMessage, &Context::default()).await.unwrap_err();

    let HookError::InvalidOutput { raw_head, .. } = &error else { panic!("expected InvalidOutput, got {error:?}") };
    assert!(raw_head.starts_with("我无法给出答案。"), "{raw_head}");
    assert!(raw_head.ends_with('…'), "{raw_head}");
}
