//! Every JSON and YAML example of the seeds parses into the typed model and serializes back to
//! the same JSON value; malformed documents name the offending member.

use std::{collections::HashMap, fs, path::PathBuf};

use hook_protocol::{
    HookContext, HookResult, ParseError, ToolDefinition, ToolResult,
    config::{HooksFile, PicoClawConfig},
    from_json_str,
    jsonrpc::{ErrorResponse, Id, Notification, Request, Response},
    picoclaw::*,
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

fn fixture(path: &str) -> String {
    let full = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path);
    fs::read_to_string(&full).unwrap_or_else(|e| panic!("reading {}: {e}", full.display()))
}

/// Parses `text` as `T`, checks it serializes back to the same JSON value, and returns that value.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str, text: &str) -> Value {
    let original: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
    let typed: T = from_json_str(text).unwrap_or_else(|e| panic!("{name} does not fit its type: {e}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(back, original, "{name} did not round-trip");
    back
}

macro_rules! check {
    ($($path:literal => $ty:ty),* $(,)?) => {{
        let mut parsed = serde_json::Map::new();
        $(parsed.insert($path.to_owned(), round_trip::<$ty>($path, &fixture($path)));)*
        insta::assert_json_snapshot!(Value::Object(parsed));
    }};
}

#[test]
fn protocol_document_examples() {
    check! {
        "protocol/rpc_request_shape.json" => Request,
        "protocol/rpc_response_shape.json" => Response,
        "protocol/rpc_error_shape.json" => ErrorResponse,
        "protocol/hello_request.json" => Request<HelloParams>,
        "protocol/hello_response.json" => Response<HelloResult>,
        "protocol/before_llm_request.json" => Request<BeforeLlmParams>,
        "protocol/before_llm_response_inject.json" => Response<BeforeLlmResult>,
        "protocol/after_llm_request.json" => Request<AfterLlmParams>,
        "protocol/after_llm_response.json" => Response<AfterLlmResult>,
        "protocol/before_tool_request.json" => Request<BeforeToolParams>,
        "protocol/before_tool_response_modify.json" => Response<BeforeToolResult>,
        "protocol/before_tool_response_deny.json" => Response<BeforeToolResult>,
        "protocol/before_tool_response_respond.json" => Response<BeforeToolResult>,
        "protocol/after_tool_request.json" => Request<AfterToolParams>,
        "protocol/after_tool_response.json" => Response<AfterToolResult>,
        "protocol/approve_tool_request.json" => Request<ApproveToolParams>,
        "protocol/approve_tool_response_approved.json" => Response<ApproveToolResult>,
        "protocol/approve_tool_response_denied.json" => Response<ApproveToolResult>,
        "protocol/event_notification.json" => Notification<EventParams>,
        "protocol/python_before_llm_result.json" => BeforeLlmResult,
        "protocol/python_before_tool_respond_result.json" => BeforeToolResult,
    }
}

#[test]
fn complete_flow_example() {
    // Each response is typed by the method of the request with the same id.
    let mut methods: HashMap<Id, String> = HashMap::new();
    let mut lines = Vec::new();
    for (line_idx, line) in fixture("protocol/flow.jsonl").lines().enumerate() {
        let name = format!("flow.jsonl line {}", line_idx + 1);
        let value: Value = serde_json::from_str(line).unwrap();
        let back = if let Some(method) = value.get("method").and_then(Value::as_str) {
            let id: Id = serde_json::from_value(value["id"].clone()).unwrap();
            methods.insert(id, method.to_owned());
            match method {
                method::HELLO => round_trip::<Request<HelloParams>>(&name, line),
                method::BEFORE_LLM => round_trip::<Request<BeforeLlmParams>>(&name, line),
                method::AFTER_LLM => round_trip::<Request<AfterLlmParams>>(&name, line),
                method::BEFORE_TOOL => round_trip::<Request<BeforeToolParams>>(&name, line),
                method::AFTER_TOOL => round_trip::<Request<AfterToolParams>>(&name, line),
                method::APPROVE_TOOL => round_trip::<Request<ApproveToolParams>>(&name, line),
                other => panic!("{name}: unexpected method {other}"),
            }
        } else {
            let id: Id = serde_json::from_value(value["id"].clone()).unwrap();
            match methods[&id].as_str() {
                method::HELLO => round_trip::<Response<HelloResult>>(&name, line),
                method::BEFORE_LLM => round_trip::<Response<BeforeLlmResult>>(&name, line),
                method::AFTER_LLM => round_trip::<Response<AfterLlmResult>>(&name, line),
                method::BEFORE_TOOL => round_trip::<Response<BeforeToolResult>>(&name, line),
                method::AFTER_TOOL => round_trip::<Response<AfterToolResult>>(&name, line),
                method::APPROVE_TOOL => round_trip::<Response<ApproveToolResult>>(&name, line),
                other => panic!("{name}: unexpected method {other}"),
            }
        };
        lines.push(back);
    }
    assert_eq!(lines.len(), 12);
    insta::assert_json_snapshot!(lines);
}

#[test]
fn plugin_document_examples() {
    check! {
        "plugin/config.json" => PicoClawConfig,
        "plugin/tool_definition_format.json" => ToolDefinition,
        "plugin/get_weather_tool_definition.json" => ToolDefinition,
        "plugin/respond_format.json" => BeforeToolResult,
        "plugin/respond_media_handled.json" => BeforeToolResult,
        "plugin/respond_media_llm_visible.json" => BeforeToolResult,
        "plugin/respond_send_file_alternative.json" => BeforeToolResult,
        "plugin/weather_respond_beijing.json" => BeforeToolResult,
    }
}

#[test]
fn jcli_document_json_examples() {
    check! {
        "jcli/hook_result_all_fields.json" => HookResult,
        "jcli/hook_context_example.json" => HookContext,
    }
}

#[test]
fn jcli_document_yaml_examples() {
    let mut parsed = serde_json::Map::new();
    for path in [
        "jcli/config_example.yaml",
        "jcli/example1_censor.yaml",
        "jcli/example2_review.yaml",
        "jcli/example5_filter.yaml",
    ] {
        let text = fixture(path);
        let original: Value = serde_saphyr::from_str(&text).unwrap();
        let typed: HooksFile = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let back = serde_json::to_value(&typed).unwrap();
        assert_eq!(back, original, "{path} did not round-trip");
        parsed.insert(path.to_owned(), back);
    }
    insta::assert_json_snapshot!(Value::Object(parsed));
}

fn error_of<T: DeserializeOwned + std::fmt::Debug>(text: &str) -> ParseError {
    from_json_str::<T>(text).expect_err("malformed document was accepted")
}

#[test]
fn malformed_documents_name_the_member() {
    let wrong_type = error_of::<ToolResult>(r#"{"for_llm": "x", "is_error": "yes"}"#);
    assert_eq!(wrong_type.path, "is_error");
    assert!(wrong_type.message.contains("expected a boolean"), "{wrong_type}");

    let unknown_action = error_of::<BeforeToolResult>(r#"{"action": "explode"}"#);
    assert_eq!(unknown_action.path, "action");
    assert!(unknown_action.message.contains("unknown action `explode`"), "{unknown_action}");

    let nested = error_of::<Response<BeforeToolResult>>(r#"{"jsonrpc":"2.0","id":3,"result":{"action":"Modify"}}"#);
    assert_eq!(nested.path, "result.action");

    let bad_event = error_of::<HookContext>(r#"{"event": "PreToolUSE"}"#);
    assert_eq!(bad_event.path, "event");
    assert!(bad_event.message.contains("valid names are"), "{bad_event}");

    let jcli_action = error_of::<HookResult>(r#"{"action": "halt"}"#);
    assert_eq!(jcli_action.path, "action");

    let duration = error_of::<AfterToolParams>(r#"{"tool":"x","result":{"for_llm":""},"duration":"15ms"}"#);
    assert_eq!(duration.path, "duration");

    let config =
        serde_saphyr::from_str::<HooksFile>("pre_tool_execution:\n  - command: x\n    timeout: 0\n").unwrap_err();
    assert!(config.to_string().contains("timeout: 0"), "{config}");
    let config = serde_saphyr::from_str::<HooksFile>("pre_tool_execution:\n  - comand: x\n").unwrap_err();
    assert!(config.to_string().contains("comand"), "{config}");
    let config =
        serde_saphyr::from_str::<HooksFile>("before_tool:\n  - command: a\npre_tool_execution:\n  - command: b\n")
            .unwrap_err();
    assert!(config.to_string().contains("listed twice"), "{config}");
}

#[test]
fn picoclaw_config_quirks_are_accepted() {
    // PicoClaw skips `""` in `intercept`; an unmodified config holding one must still load.
    let config: PicoClawConfig = from_json_str(
        r#"{"hooks": {"processes": {"p": {"command": ["x"], "intercept": ["", "before_tool"], "transport": ""}}}}"#,
    )
    .unwrap();
    let process = &config.hooks.processes.as_ref().unwrap()["p"];
    assert_eq!(process.intercept.as_deref(), Some(&[hook_protocol::Event::PreToolExecution][..]));
    let error = from_json_str::<PicoClawConfig>(
        r#"{"hooks": {"processes": {"p": {"command": ["x"], "transport": "tcp", "intercept": ["before_tool"]}}}}"#,
    )
    .unwrap_err();
    assert!(error.message.contains("unsupported transport `tcp`"), "{error}");
    let error = from_json_str::<PicoClawConfig>(r#"{"hooks": {"processes": {"p": {"command": ["x"]}}}}"#).unwrap_err();
    assert!(error.message.contains("no hook modes enabled"), "{error}");
}
