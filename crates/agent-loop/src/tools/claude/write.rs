//! `Write`: creates or replaces a file inside the working directory; and the write (creating
//! parents, never through a link, never into a FIFO) that `write_file` and `Edit` share.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::{Value, json};

use super::{MAX_FILE_BYTES, file_path_arg, read_text};
use crate::tools::{
    Tool, ToolContext, ToolOutput,
    fs::{blocking, write_no_follow},
    str_arg,
};

/// Which step of [`write_creating_parents`] failed.
#[derive(Debug)]
pub(crate) enum WriteFailure {
    /// Creating the parent directories (the parent, and why).
    CreateParent(PathBuf, std::io::Error),
    /// Writing the file.
    Write(std::io::Error),
}

impl WriteFailure {
    /// The I/O error, whichever step failed.
    pub(crate) fn io(&self) -> &std::io::Error {
        match self {
            WriteFailure::CreateParent(_, err) | WriteFailure::Write(err) => err,
        }
    }
}

/// Writes `bytes` to `path` (never through a symbolic link, only into a regular file), creating
/// its parent directories.
pub(crate) async fn write_creating_parents(path: &Path, bytes: Vec<u8>) -> Result<(), WriteFailure> {
    let path = path.to_path_buf();
    let written = blocking(move || {
        if let Some(parent) = path.parent()
            && let Err(err) = std::fs::create_dir_all(parent)
        {
            return Ok(Err(WriteFailure::CreateParent(parent.to_path_buf(), err)));
        }
        Ok(write_no_follow(&path, &bytes).map_err(WriteFailure::Write))
    })
    .await;
    written.unwrap_or_else(|err| Err(WriteFailure::Write(err)))
}

/// Writes (creates or replaces) a file inside the working directory, creating its parents.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTool;

#[async_trait]
impl Tool for WriteTool {
    fn name(&self) -> &str {
        "Write"
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "Write",
            "Write a file inside the working directory (created, or replaced whole).",
            json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The file: absolute, or relative to the working directory."},
                    "content": {"type": "string", "description": "The whole new content."}
                },
                "required": ["file_path", "content"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.execute_structured(args, ctx).await.result
    }

    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let path = match file_path_arg(&args, "Write", ctx) {
            Ok(path) => path,
            Err(result) => return result.into(),
        };
        let content = match str_arg(&args, "Write", "content") {
            Ok(content) => content.to_owned(),
            Err(result) => return result.into(),
        };
        if path.is_dir() {
            return ToolResult::error(format!("Write: {} is a directory", path.display())).into();
        }
        let original = read_text(&path, MAX_FILE_BYTES).await.ok().map(|(text, _)| text);
        if let Err(failure) = write_creating_parents(&path, content.as_bytes().to_vec()).await {
            let err = failure.io();
            return ToolResult::error(format!("Write: cannot write {}: {err}", path.display())).into();
        }
        let (kind, text) = match original {
            None => ("create", format!("File created successfully at: {}", path.display())),
            Some(_) => ("update", format!("The file {} has been updated.", path.display())),
        };
        let response = json!({
            "type": kind,
            "filePath": path.display().to_string(),
            "content": content,
            "structuredPatch": [],
            "originalFile": original,
        });
        ToolOutput { result: ToolResult::text(text), response: Some(response) }
    }
}
