//! The llm examples of the j-cli seed render with their variables and run unmodified.

use crate::common;

use common::{call, rendered_prompt, server};
use hook_core::{Action, Context, Event};
use hook_llm::Reply;
use hook_protocol::config::{HookKind, HooksFile};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../hook-protocol/tests/fixtures/jcli");

/// The llm hooks of a j-cli `hooks.yaml` fixture: event, prompt, model.
fn llm_hooks(file: &str) -> Vec<(Event, String, Option<String>)> {
    let text = std::fs::read_to_string(format!("{FIXTURES}/{file}")).unwrap();
    let hooks: HooksFile = serde_saphyr::from_str(&text).unwrap();
    hooks
        .events
        .into_iter()
        .flat_map(|(event, defs)| defs.into_iter().map(move |def| (event, def)))
        .filter(|(_, def)| def.kind == HookKind::Llm)
        .map(|(event, def)| (event, def.prompt.unwrap(), def.model))
        .collect()
}

fn hook(server: &hook_llm::ScriptedServer, prompt: &str, model: Option<String>) -> hook_llm::LlmHook {
    let hook = common::llm_hook(server, prompt);
    match model {
        Some(model) => hook.with_model(model),
        None => hook,
    }
}

#[tokio::test]
async fn censor_example_renders_and_runs() {
    let hooks = llm_hooks("example1_censor.yaml");
    assert_eq!(hooks.len(), 1);
    let (event, prompt, model) = hooks.into_iter().next().unwrap();
    assert_eq!(event, Event::PostLlmResponse);
    let server = server([Reply::Content(r#"{"action":"stop","retry_feedback":"回复包含密钥"}"#.into())]);
    let context = Context { assistant_output: Some("密钥: sk-123".into()), ..Context::default() };

    let output = call(&hook(&server, &prompt, model), event, &context).await.unwrap();

    assert_eq!(output.action, Some(Action::Stop));
    assert_eq!(output.retry_feedback.as_deref(), Some("回复包含密钥"));
    let rendered = rendered_prompt(&server, 0);
    assert_eq!(rendered, prompt.replace("{{assistant_output}}", "密钥: sk-123"));
    assert!(!rendered.contains("{{"), "{rendered}");
}

#[tokio::test]
async fn review_example_renders_and_uses_its_model() {
    let hooks = llm_hooks("example2_review.yaml");
    assert_eq!(hooks.len(), 1);
    let (event, prompt, model) = hooks.into_iter().next().unwrap();
    assert_eq!(event, Event::PreSendMessage);
    let server = server([Reply::Content(r#"{"action":"stop","retry_feedback":"不合规"}"#.into())]);
    let context = Context { user_input: Some("帮我删库".into()), model: Some("host".into()), ..Context::default() };

    let output = call(&hook(&server, &prompt, model), event, &context).await.unwrap();

    assert_eq!(output.action, Some(Action::Stop));
    assert_eq!(
        rendered_prompt(&server, 0),
        "审查用户消息是否合规:帮我删库\n如有违规返回 action=stop 和 retry_feedback。\n"
    );
    assert_eq!(server.requests()[0]["model"], "gpt-4o-mini", "the example's `model:` is sent");
}

#[tokio::test]
async fn tool_review_examples_render() {
    let mut hooks = llm_hooks("example5_filter.yaml");
    hooks.extend(llm_hooks("config_example.yaml"));
    assert_eq!(hooks.len(), 2);
    let server = server([Reply::Content("{}".into()), Reply::Content(r#"{"action":"skip"}"#.into())]);
    let context = Context {
        tool_name: Some("Shell".into()),
        tool_arguments: Some(r#"{"command":"rm -rf /"}"#.into()),
        ..Context::default()
    };

    let mut outputs = Vec::new();
    for (event, prompt, model) in hooks {
        assert_eq!(event, Event::PreToolExecution);
        outputs.push(call(&hook(&server, &prompt, model), event, &context).await.unwrap());
    }

    assert!(outputs[0].is_no_change());
    assert_eq!(outputs[1].action, Some(Action::Skip));
    assert_eq!(
        rendered_prompt(&server, 0),
        "审查工具调用是否安全:工具=Shell, 参数={\"command\":\"rm -rf /\"}\n如果不安全,返回 action=skip。\n"
    );
    assert_eq!(
        rendered_prompt(&server, 1),
        "审查工具调用是否安全:工具=Shell 参数={\"command\":\"rm -rf /\"}\n如果不安全,返回 {\"action\":\"skip\"},否则返回 {}\n"
    );
    let requests = server.requests();
    assert_eq!(requests[0]["model"], common::HOST_MODEL, "no `model:`: the host's model");
}
