//! The earlier file tools, `read_file`, `write_file` and `list_dir` (accepted, not offered):
//! adapters that take `path` for `file_path` and keep their own texts, over the operations of
//! `Read`, `Write` and `LS`.

use std::path::PathBuf;

use async_trait::async_trait;
use hook_core::head_chars;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::{Value, json};

use super::{
    Tool, ToolContext,
    claude::{WriteFailure, list_names, read_text, write_creating_parents},
    fs::resolve_for,
    str_arg,
};

/// Characters of a file `read_file` returns at most.
const MAX_READ_CHARS: usize = 100_000;
/// Bytes read for them: a character is at most 4 bytes, so more bytes always mean more
/// characters than are returned.
const MAX_READ_BYTES: u64 = MAX_READ_CHARS as u64 * 4 + 4;

fn path_arg(args: &Value, tool: &str, ctx: &ToolContext) -> Result<PathBuf, ToolResult> {
    resolve_for(tool, ctx, str_arg(args, tool, "path")?)
}

fn path_schema(description: &str) -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string", "description": description}}, "required": ["path"]})
}

/// Reads a text file inside the working directory (`Read` without line numbers).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadFileTool;

#[async_trait]
impl Tool for ReadFileTool {
    fn name(&self) -> &str {
        "read_file"
    }

    fn is_read_only(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "read_file",
            "Read a text file inside the working directory.",
            path_schema("Path relative to the working directory."),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let path = match path_arg(&args, "read_file", ctx) {
            Ok(path) => path,
            Err(result) => return result,
        };
        match read_text(&path, MAX_READ_BYTES).await {
            Ok((text, _)) if text.chars().count() > MAX_READ_CHARS => {
                ToolResult::text(format!("{}\n[cut at {MAX_READ_CHARS} characters]", head_chars(&text, MAX_READ_CHARS)))
            }
            Ok((text, _)) => ToolResult::text(text),
            Err(err) => ToolResult::error(format!("read_file: cannot read {}: {err}", path.display())),
        }
    }
}

/// Writes a text file inside the working directory, creating parent directories (`Write`).
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFileTool;

#[async_trait]
impl Tool for WriteFileTool {
    fn name(&self) -> &str {
        "write_file"
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "write_file",
            "Write (replace) a text file inside the working directory.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path relative to the working directory."},
                    "content": {"type": "string", "description": "The whole new content."}
                },
                "required": ["path", "content"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let path = match path_arg(&args, "write_file", ctx) {
            Ok(path) => path,
            Err(result) => return result,
        };
        let content = match str_arg(&args, "write_file", "content") {
            Ok(content) => content,
            Err(result) => return result,
        };
        match write_creating_parents(&path, content.as_bytes().to_vec()).await {
            Ok(()) => ToolResult::text(format!("wrote {} bytes to {}", content.len(), path.display())),
            Err(WriteFailure::CreateParent(parent, err)) => {
                ToolResult::error(format!("write_file: cannot create {}: {err}", parent.display()))
            }
            Err(WriteFailure::Write(err)) => {
                ToolResult::error(format!("write_file: cannot write {}: {err}", path.display()))
            }
        }
    }
}

/// Lists a directory inside the working directory (`LS`, with `path` required).
#[derive(Debug, Clone, Copy, Default)]
pub struct ListDirTool;

#[async_trait]
impl Tool for ListDirTool {
    fn name(&self) -> &str {
        "list_dir"
    }

    fn is_read_only(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "list_dir",
            "List the entries of a directory inside the working directory (directories end with /).",
            path_schema("Path relative to the working directory; `.` for the directory itself."),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let args = if args.get("path").is_none() { json!({"path": "."}) } else { args };
        let path = match path_arg(&args, "list_dir", ctx) {
            Ok(path) => path,
            Err(result) => return result,
        };
        match list_names(&path).await {
            Ok(names) => ToolResult::text(names.join("\n")),
            Err(err) => ToolResult::error(format!("list_dir: cannot list {}: {err}", path.display())),
        }
    }
}
