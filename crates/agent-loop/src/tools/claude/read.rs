//! `Read`: a text file inside the working directory, with line numbers (`cat -n`); and the
//! bounded read of a regular file that `read_file` shares.

use std::path::Path;

use async_trait::async_trait;
use hook_core::head_chars;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::{Value, json};

use super::{MAX_FILE_BYTES, MAX_LINE_CHARS, file_path_arg};
use crate::tools::{
    Tool, ToolContext, ToolOutput,
    fs::{blocking, read_regular},
};

/// Lines `Read` returns when the call names no `limit`.
const DEFAULT_READ_LINES: usize = 2000;

/// At most `max_bytes` of the regular file at `path` as text (invalid UTF-8 replaced), and
/// whether there was more; a FIFO, a socket or a device is refused.
pub(crate) async fn read_text(path: &Path, max_bytes: u64) -> std::io::Result<(String, bool)> {
    let path = path.to_path_buf();
    let (bytes, is_cut) = blocking(move || read_regular(&path, max_bytes)).await?;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), is_cut))
}

fn usize_arg(args: &Value, name: &str) -> Option<usize> {
    args.get(name).and_then(Value::as_f64).filter(|n| n.is_finite() && *n >= 0.0).map(|n| n as usize)
}

/// Reads a text file inside the working directory, with line numbers (`cat -n`).
#[derive(Debug, Clone)]
pub struct ReadTool {
    /// Lines returned when the call names no `limit`.
    pub default_limit: usize,
}

impl Default for ReadTool {
    fn default() -> Self {
        ReadTool { default_limit: DEFAULT_READ_LINES }
    }
}

#[async_trait]
impl Tool for ReadTool {
    fn name(&self) -> &str {
        "Read"
    }

    fn is_read_only(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "Read",
            "Read a text file inside the working directory. Lines come numbered (cat -n); use offset and limit for long files.",
            json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The file: absolute, or relative to the working directory."},
                    "offset": {"type": "number", "description": "The line to start at (1 is the first)."},
                    "limit": {"type": "number", "description": "How many lines to read (default 2000)."}
                },
                "required": ["file_path"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.execute_structured(args, ctx).await.result
    }

    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let path = match file_path_arg(&args, "Read", ctx) {
            Ok(path) => path,
            Err(result) => return result.into(),
        };
        if path.is_dir() {
            return ToolResult::error(format!("Read: {} is a directory; list it with LS", path.display())).into();
        }
        let (text, is_cut) = match read_text(&path, MAX_FILE_BYTES).await {
            Ok(read) => read,
            Err(err) => return ToolResult::error(format!("Read: cannot read {}: {err}", path.display())).into(),
        };
        let lines: Vec<&str> = text.lines().collect();
        let start = usize_arg(&args, "offset").unwrap_or(1).max(1);
        let limit = usize_arg(&args, "limit").filter(|n| *n > 0).unwrap_or(self.default_limit);
        let shown: Vec<&str> = lines.iter().skip(start - 1).take(limit).copied().collect();
        let mut out = String::new();
        for (idx, line) in shown.iter().enumerate() {
            let line = if line.chars().count() > MAX_LINE_CHARS {
                head_chars(line, MAX_LINE_CHARS)
            } else {
                (*line).to_owned()
            };
            out.push_str(&format!("{:>6}\t{line}\n", start + idx));
        }
        if lines.is_empty() {
            out.push_str("[the file exists but is empty]");
        } else if shown.is_empty() {
            out.push_str(&format!("[the file has {} lines; offset {start} is past its end]", lines.len()));
        } else if start - 1 + shown.len() < lines.len() {
            out.push_str(&format!(
                "[lines {start}-{} of {}; read on with offset {}]",
                start - 1 + shown.len(),
                lines.len(),
                start + shown.len()
            ));
        }
        if is_cut {
            out.push_str(&format!("\n[only the first {} MiB of the file were read]", MAX_FILE_BYTES >> 20));
        }
        let response = json!({
            "type": "text",
            "file": {
                "filePath": path.display().to_string(),
                "content": shown.join("\n"),
                "numLines": shown.len(),
                "startLine": start,
                "totalLines": lines.len(),
            }
        });
        ToolOutput { result: ToolResult::text(out), response: Some(response) }
    }
}
