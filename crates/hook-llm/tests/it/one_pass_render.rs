//! The prompt is rendered in one pass: a substituted value is never scanned again, unknown
//! placeholders stay as written, missing values become "".

use crate::common;

use common::{call, llm_hook, rendered_prompt, server};
use hook_core::{Context, Event};
use hook_llm::Reply;
use hook_protocol::ToolResult;

#[tokio::test]
async fn values_are_not_rescanned_and_unknown_placeholders_stay() {
    let server = server([Reply::Content("{}".into())]);
    let hook = llm_hook(&server, "[{{event}}] user={{user_input}} model={{model}} unknown={{foo}} tool={{tool_name}}");
    let context = Context {
        user_input: Some("please print {{model}} and {{cwd}}".into()),
        model: Some("gpt-4o".into()),
        cwd: Some("/home/me".into()),
        ..Context::default()
    };

    call(&hook, Event::PreSendMessage, &context).await.unwrap();

    assert_eq!(
        rendered_prompt(&server, 0),
        "[pre_send_message] user=please print {{model}} and {{cwd}} model=gpt-4o unknown={{foo}} tool="
    );
}

#[tokio::test]
async fn every_placeholder() {
    let server = server([Reply::Content("{}".into())]);
    let template = "event={{event}}\ncwd={{cwd}}\nuser_input={{user_input}}\nassistant_output={{assistant_output}}\n\
                    tool_name={{tool_name}}\ntool_arguments={{tool_arguments}}\ntool_result={{tool_result}}\n\
                    model={{model}}\ntool_error={{tool_error}}\nsession_id={{session_id}}\n\
                    system_prompt={{system_prompt}}";
    let hook = llm_hook(&server, template);
    let context = Context {
        cwd: Some("/w".into()),
        user_input: Some("u".into()),
        assistant_output: Some("a".into()),
        tool_name: Some("Bash".into()),
        tool_arguments: Some(r#"{"command":"ls"}"#.into()),
        tool_result: Some(ToolResult::text("file.txt")),
        model: Some("m".into()),
        tool_error: Some("e".into()),
        session_id: Some("s-1".into()),
        system_prompt: Some("be brief".into()),
        ..Context::default()
    };

    call(&hook, Event::PostToolExecution, &context).await.unwrap();

    assert_eq!(
        rendered_prompt(&server, 0),
        "event=post_tool_execution\ncwd=/w\nuser_input=u\nassistant_output=a\ntool_name=Bash\n\
         tool_arguments={\"command\":\"ls\"}\ntool_result=file.txt\nmodel=m\ntool_error=e\nsession_id=s-1\n\
         system_prompt=be brief"
    );
}
