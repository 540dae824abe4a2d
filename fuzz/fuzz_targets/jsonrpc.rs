//! JSON-RPC lines from a PicoClaw process hook or host ([`Message::parse`]), then its params
//! or result read as the PicoClaw type its method calls for. Round trips: a request,
//! notification, response or error written and read back is the same message; a PicoClaw
//! result written and read back is the same.
#![cfg_attr(fuzzing, no_main)]

use hook_protocol::{
    jsonrpc::Message,
    picoclaw::{
        AfterLlmParams, AfterLlmResult, AfterToolParams, AfterToolResult, ApproveToolParams, ApproveToolResult,
        BeforeLlmParams, BeforeLlmResult, BeforeToolParams, BeforeToolResult, CancelParams, EventParams, HelloParams,
        HelloResult, method,
    },
    serde_json::{self, Value},
};
use serde::{Serialize, de::DeserializeOwned};

/// Reads `value` as `T` and, when it is one, checks `T`'s round trip.
fn as_type<T>(value: &Value)
where
    T: Serialize + DeserializeOwned + Clone + PartialEq + std::fmt::Debug,
{
    if let Ok(typed) = serde_json::from_value::<T>(value.clone()) {
        hookwire_fuzz::assert_json_round_trip(&typed, |s: &str| serde_json::from_str::<T>(s), |_| {});
    }
}

fn params(method: &str, params: &Value) {
    match method {
        method::HELLO => as_type::<HelloParams>(params),
        method::BEFORE_LLM => as_type::<BeforeLlmParams>(params),
        method::AFTER_LLM => as_type::<AfterLlmParams>(params),
        method::BEFORE_TOOL => as_type::<BeforeToolParams>(params),
        method::AFTER_TOOL => as_type::<AfterToolParams>(params),
        method::APPROVE_TOOL => as_type::<ApproveToolParams>(params),
        method::EVENT => as_type::<EventParams>(params),
        method::CANCEL => as_type::<CancelParams>(params),
        _ => {}
    }
}

/// A response's result, read as every result type: the id alone does not say which it answers.
fn result(result: &Value) {
    as_type::<HelloResult>(result);
    as_type::<BeforeLlmResult>(result);
    as_type::<AfterLlmResult>(result);
    as_type::<BeforeToolResult>(result);
    as_type::<AfterToolResult>(result);
    as_type::<ApproveToolResult>(result);
}

/// The message written as JSON, read back.
fn round_trip(message: &Message, json: Value) {
    if hookwire_fuzz::has_float(&json) {
        return;
    }
    let line = json.to_string();
    match Message::parse(line.as_bytes()) {
        Ok(again) => assert_eq!(*message, again, "round trip changed the message\n{line}"),
        Err(e) => panic!("a written message does not read back: {e}\n{line}"),
    }
}

fn fuzz(data: &[u8]) {
    // The input as one message, then, when it has several lines, each line as the transport
    // splits them.
    let several = data.contains(&b'\n');
    let lines = data.split(|b| *b == b'\n').take_while(|_| several);
    for line in std::iter::once(data).chain(lines) {
        let Ok(message) = Message::parse(line) else { continue };
        let json = match &message {
            Message::Request(request) => {
                params(&request.method, &request.params);
                serde_json::to_value(request)
            }
            Message::Notification(notification) => {
                params(&notification.method, &notification.params);
                serde_json::to_value(notification)
            }
            Message::Response(response) => {
                result(&response.result);
                serde_json::to_value(response)
            }
            Message::Error(error) => serde_json::to_value(error),
            _ => continue,
        };
        round_trip(&message, json.expect("a message serializes"));
    }
}

hookwire_fuzz::target!(fuzz);
