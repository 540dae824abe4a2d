//! A process hook written with `hook_process::server`: its `before_tool` echoes the call back
//! unchanged (`modify` with the same tool and arguments), and its `before_llm` continues with a
//! `reason` that sums up what it received. Used by the benches and tests.
//!
//! Options (hookwire's extensions, see `docs/process-extensions.md`):
//!
//! - `--reads METHOD=MEMBER,MEMBER,...` (repeatable): read only these params members of METHOD,
//!   e.g. `--reads before_llm=model,tools`;
//! - `--history-delta`: receive `before_llm`'s history as a delta (the handler still sees it whole);
//! - `--read-only METHOD,METHOD,...`: promise to change nothing on these methods (it echoes,
//!   so it never does), letting the host run it at once with its like.

use hook_process::server::{Handler, serve_stdio};
use hook_protocol::{
    MessageContent,
    jsonrpc::RpcError,
    picoclaw::{
        Action, BeforeLlmParams, BeforeLlmResult, BeforeToolParams, BeforeToolResult, ExtensionOptIn, ToolCallPatch,
    },
};

struct Echo {
    reads: ExtensionOptIn,
}

#[async_trait::async_trait]
impl Handler for Echo {
    fn reads(&self) -> ExtensionOptIn {
        self.reads.clone()
    }

    async fn before_llm(&self, params: BeforeLlmParams) -> Result<BeforeLlmResult, RpcError> {
        let messages = params.messages.as_deref().unwrap_or_default();
        let last = match messages.last().and_then(|m| m.content.as_ref()) {
            Some(MessageContent::Text(text)) => text.chars().take(40).collect(),
            Some(_) => "(parts)".to_owned(),
            None => "(none)".to_owned(),
        };
        let summary = format!(
            "model={} tools={} messages={} last={last}",
            params.model.as_deref().unwrap_or("(none)"),
            params.tools.as_ref().map_or(0, Vec::len),
            messages.len(),
        );
        Ok(BeforeLlmResult { reason: Some(summary), ..BeforeLlmResult::default() })
    }

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

fn options() -> Result<ExtensionOptIn, String> {
    let mut reads = ExtensionOptIn::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--history-delta" => reads.history_delta = true,
            "--read-only" => {
                let value = args.next().ok_or("--read-only needs METHOD,METHOD,...")?;
                reads.read_only.extend(value.split(',').map(str::to_owned));
            }
            "--reads" => {
                let value = args.next().ok_or("--reads needs METHOD=MEMBER,...")?;
                let (method, members) = value.split_once('=').ok_or("--reads needs METHOD=MEMBER,...")?;
                reads.reads.insert(method.to_owned(), members.split(',').map(str::to_owned).collect());
            }
            other => {
                return Err(format!(
                    "unknown option `{other}`; expected --reads METHOD=MEMBERS, --history-delta or --read-only METHODS"
                ));
            }
        }
    }
    Ok(reads)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let reads = options().map_err(std::io::Error::other)?;
    serve_stdio(Echo { reads }).await
}
