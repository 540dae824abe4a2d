//! The `Bash` tool (and the earlier `bash`): `sh -c <command>` in the session's directory, in its own process group,
//! with a timeout and capped output; a timeout or a dropped call kills the whole group.

use std::{process::Stdio, time::Duration};

use async_trait::async_trait;
use hook_core::{fmt_duration, head_chars};
use hook_protocol::{ToolDefinition, ToolResult};
use nix::{
    sys::signal::{Signal, killpg},
    unistd::Pid,
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncRead, AsyncReadExt},
    process::{Child, Command},
};

use super::{Tool, ToolContext, ToolOutput, str_arg};

/// Runs shell commands for the model.
#[derive(Debug, Clone)]
pub struct BashTool {
    /// Timeout when the call names none.
    pub default_timeout: Duration,
    /// The longest timeout a call may ask for.
    pub max_timeout: Duration,
    /// Bytes kept of stdout and of stderr each; the rest is read and dropped.
    pub output_cap: usize,
}

impl Default for BashTool {
    fn default() -> Self {
        BashTool {
            default_timeout: Duration::from_secs(120),
            max_timeout: Duration::from_secs(600),
            output_cap: 64 << 10,
        }
    }
}

/// Kills the process group when dropped while armed (timeout, or the turn was aborted).
struct GroupGuard {
    pgid: Option<Pid>,
    is_armed: bool,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.is_armed
            && let Some(pgid) = self.pgid
        {
            // ESRCH means everything is already gone.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }
}

/// Reads everything from `reader`, keeping the first `cap` bytes; whether bytes were dropped.
async fn read_capped(reader: Option<impl AsyncRead + Unpin>, cap: usize) -> (Vec<u8>, bool) {
    let Some(mut reader) = reader else { return (Vec::new(), false) };
    let mut kept = Vec::new();
    let mut is_cut = false;
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => return (kept, is_cut),
            Ok(n) => {
                let room = cap.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                is_cut |= n > room;
            }
        }
    }
}

/// What a command left: its status and both streams (cut at the cap).
struct Finished {
    status: std::io::Result<std::process::ExitStatus>,
    stdout: String,
    stdout_cut: bool,
    stderr: String,
    stderr_cut: bool,
}

impl Finished {
    /// stdout, then stderr under a `[stderr]` line, with the cut notes: what the model sees.
    fn text(&self, cap: usize) -> String {
        let mut text = self.stdout.clone();
        if self.stdout_cut {
            text.push_str(&format!("\n[stdout cut at {cap} bytes]"));
        }
        if !self.stderr.is_empty() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[stderr]\n");
            text.push_str(&self.stderr);
            if self.stderr_cut {
                text.push_str(&format!("\n[stderr cut at {cap} bytes]"));
            }
        }
        text
    }
}

async fn wait_output(child: &mut Child, cap: usize) -> Finished {
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let ((out, stdout_cut), (err, stderr_cut), status) =
        tokio::join!(read_capped(stdout, cap), read_capped(stderr, cap), child.wait());
    Finished {
        status,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stdout_cut,
        stderr: String::from_utf8_lossy(&err).into_owned(),
        stderr_cut,
    }
}

/// Claude Code's Bash `tool_response`.
fn bash_response(stdout: &str, stderr: &str, interrupted: bool) -> Value {
    json!({
        "stdout": stdout,
        "stderr": stderr,
        "interrupted": interrupted,
        "isImage": false,
        "noOutputExpected": false,
    })
}

impl BashTool {
    /// Runs `command` with `timeout` (bounded by `max_timeout`).
    async fn run(&self, tool: &str, command: &str, timeout: Option<Duration>, ctx: &ToolContext) -> ToolOutput {
        let timeout = timeout.unwrap_or(self.default_timeout).min(self.max_timeout);
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(command)
            .current_dir(&ctx.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(err) => return ToolResult::error(format!("{tool}: could not start `sh`: {err}")).into(),
        };
        let mut guard =
            GroupGuard { pgid: child.id().and_then(|id| i32::try_from(id).ok()).map(Pid::from_raw), is_armed: true };
        match tokio::time::timeout(timeout, wait_output(&mut child, self.output_cap)).await {
            Err(_) => ToolOutput {
                result: ToolResult::error(format!(
                    "{tool}: `{}` did not finish within {} and was killed (with its whole process group); pass a larger `timeout` or run it in the background",
                    head_chars(command, 200),
                    fmt_duration(timeout)
                )),
                response: Some(bash_response("", "", true)),
            },
            Ok(finished) => {
                guard.is_armed = false;
                let text = finished.text(self.output_cap);
                let response = Some(bash_response(&finished.stdout, &finished.stderr, false));
                let result = match finished.status {
                    Err(err) => ToolResult::error(format!("{tool}: waiting for `sh` failed: {err}")),
                    Ok(status) if status.success() => ToolResult::text(text),
                    Ok(status) => {
                        let code = status.code().map_or_else(|| "a signal".to_owned(), |c| format!("status {c}"));
                        ToolResult::error(format!("exit {code}\n{text}"))
                    }
                };
                ToolOutput { result, response }
            }
        }
    }
}

#[async_trait]
impl Tool for BashTool {
    fn name(&self) -> &str {
        "Bash"
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "Bash",
            "Run a shell command (sh -c) in the session's working directory. Returns stdout and stderr.",
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command to run."},
                    "description": {"type": "string", "description": "What the command does, in a few words."},
                    "timeout": {"type": "number", "description": "Milliseconds before the command is killed (default 120000, at most 600000)."}
                },
                "required": ["command"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.execute_structured(args, ctx).await.result
    }

    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let command = match str_arg(&args, "Bash", "command") {
            Ok(command) => command.to_owned(),
            Err(result) => return result.into(),
        };
        let timeout = args
            .get("timeout")
            .and_then(Value::as_f64)
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .map(|ms| Duration::from_secs_f64(ms / 1000.0));
        self.run("Bash", &command, timeout, ctx).await
    }
}

/// The earlier `bash` tool: `timeout` in seconds. Accepted, not offered
/// ([`crate::ToolRegistry::with_builtins`]).
#[derive(Debug, Clone, Default)]
pub struct LegacyBashTool(pub BashTool);

#[async_trait]
impl Tool for LegacyBashTool {
    fn name(&self) -> &str {
        "bash"
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "bash",
            "Run a shell command (sh -c) in the session's working directory. Returns stdout and stderr.",
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line."},
                    "timeout": {"type": "number", "description": "Seconds before the command is killed."}
                },
                "required": ["command"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.execute_structured(args, ctx).await.result
    }

    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let command = match str_arg(&args, "bash", "command") {
            Ok(command) => command.to_owned(),
            Err(result) => return result.into(),
        };
        let timeout = args
            .get("timeout")
            .and_then(Value::as_f64)
            .filter(|secs| secs.is_finite() && *secs > 0.0)
            .map(Duration::from_secs_f64);
        self.0.run("bash", &command, timeout, ctx).await
    }
}
