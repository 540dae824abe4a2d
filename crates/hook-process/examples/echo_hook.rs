//! A process hook written with `hook_process::server`: its `before_tool` echoes the call back
//! unchanged (`modify` with the same tool and arguments). Used by the benches and tests.

use hook_process::server::{Handler, serve_stdio};
use hook_protocol::{
    jsonrpc::RpcError,
    picoclaw::{Action, BeforeToolParams, BeforeToolResult, ToolCallPatch},
};

struct Echo;

#[async_trait::async_trait]
impl Handler for Echo {
    async fn before_tool(&self, params: BeforeToolParams) -> Result<BeforeToolResult, RpcError> {
        Ok(BeforeToolResult {
            action: Action::Modify,
            call: Some(ToolCallPatch {
                tool: Some(params.tool),
                arguments: params.arguments,
                ..ToolCallPatch::default()
            }),
            ..BeforeToolResult::default()
        })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    serve_stdio(Echo).await
}
