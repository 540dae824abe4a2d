//! `LS`: the entries of a directory inside the working directory; and the listing that
//! `list_dir` shares.

use std::path::Path;

use async_trait::async_trait;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::{Value, json};

use super::dir_arg;
use crate::tools::{Tool, ToolContext, fs::blocking};

/// The entries of directory `path`, sorted by name; directories end with `/`.
pub(crate) async fn list_names(path: &Path) -> std::io::Result<Vec<String>> {
    let path = path.to_path_buf();
    let mut names = blocking(move || -> std::io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            let mut name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                name.push('/');
            }
            names.push(name);
        }
        Ok(names)
    })
    .await?;
    names.sort();
    Ok(names)
}

/// Lists a directory inside the working directory (directories end with `/`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LsTool;

#[async_trait]
impl Tool for LsTool {
    fn name(&self) -> &str {
        "LS"
    }

    fn is_read_only(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "LS",
            "List the entries of a directory inside the working directory (directories end with /).",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The directory (default: the working directory)."}
                }
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let path = match dir_arg(&args, "LS", ctx) {
            Ok(path) => path,
            Err(result) => return result,
        };
        match list_names(&path).await {
            Ok(names) => ToolResult::text(names.join("\n")),
            Err(err) => ToolResult::error(format!("LS: cannot list {}: {err}", path.display())),
        }
    }
}
