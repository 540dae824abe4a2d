//! `Edit`: replaces text in a file inside the working directory.

use async_trait::async_trait;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::{Value, json};

use super::{MAX_FILE_BYTES, file_path_arg, read_text, write_creating_parents};
use crate::tools::{Tool, ToolContext, ToolOutput, str_arg};

/// Replaces text in a file inside the working directory.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditTool;

#[async_trait]
impl Tool for EditTool {
    fn name(&self) -> &str {
        "Edit"
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "Edit",
            "Replace old_string with new_string in a file inside the working directory. old_string must occur exactly once unless replace_all is true; an empty old_string creates a new file.",
            json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The file: absolute, or relative to the working directory."},
                    "old_string": {"type": "string", "description": "The text to replace."},
                    "new_string": {"type": "string", "description": "The text to put in its place."},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."}
                },
                "required": ["file_path", "old_string", "new_string"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.execute_structured(args, ctx).await.result
    }

    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let path = match file_path_arg(&args, "Edit", ctx) {
            Ok(path) => path,
            Err(result) => return result.into(),
        };
        let (old, new) = match (str_arg(&args, "Edit", "old_string"), str_arg(&args, "Edit", "new_string")) {
            (Ok(old), Ok(new)) => (old.to_owned(), new.to_owned()),
            (Err(result), _) | (_, Err(result)) => return result.into(),
        };
        let replace_all = args.get("replace_all").and_then(Value::as_bool).unwrap_or(false);
        if old == new {
            return ToolResult::error("Edit: old_string and new_string are the same; nothing to change").into();
        }
        let original = match read_text(&path, MAX_FILE_BYTES).await {
            Ok((_, true)) => {
                return ToolResult::error(format!(
                    "Edit: {} is over {} MiB; too large to edit whole",
                    path.display(),
                    MAX_FILE_BYTES >> 20
                ))
                .into();
            }
            Ok((text, false)) => Some(text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => return ToolResult::error(format!("Edit: cannot read {}: {err}", path.display())).into(),
        };
        let (updated, n) = match (&original, old.is_empty()) {
            (None, true) => (new.clone(), 1),
            (None, false) => {
                return ToolResult::error(format!(
                    "Edit: {} does not exist; create it with Write (or Edit with an empty old_string)",
                    path.display()
                ))
                .into();
            }
            (Some(_), true) => {
                return ToolResult::error(format!(
                    "Edit: {} already exists; an empty old_string only creates new files",
                    path.display()
                ))
                .into();
            }
            (Some(text), false) => {
                let n = text.matches(old.as_str()).count();
                if n == 0 {
                    return ToolResult::error(format!(
                        "Edit: old_string was not found in {}; Read the file and copy the text exactly",
                        path.display()
                    ))
                    .into();
                }
                if n > 1 && !replace_all {
                    return ToolResult::error(format!(
                        "Edit: old_string occurs {n} times in {}; add surrounding text to make it unique, or set replace_all",
                        path.display()
                    ))
                    .into();
                }
                let updated = if replace_all { text.replace(&old, &new) } else { text.replacen(&old, &new, 1) };
                (updated, n)
            }
        };
        if let Err(failure) = write_creating_parents(&path, updated.into_bytes()).await {
            let err = failure.io();
            return ToolResult::error(format!("Edit: cannot write {}: {err}", path.display())).into();
        }
        let text =
            format!("The file {} has been updated ({n} replacement{}).", path.display(), if n == 1 { "" } else { "s" });
        let response = json!({
            "filePath": path.display().to_string(),
            "oldString": old,
            "newString": new,
            "originalFile": original,
            "structuredPatch": [],
            "userModified": false,
            "replaceAll": replace_all,
        });
        ToolOutput { result: ToolResult::text(text), response: Some(response) }
    }
}
