//! `Grep`: file contents by regular expression inside the working directory.

use async_trait::async_trait;
use hook_core::head_chars;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::{Value, json};

use super::{
    MAX_LINE_CHARS, dir_arg,
    glob::{Found, glob_regex, walk},
    root_of,
};
use crate::tools::{
    Tool, ToolContext, ToolOutput,
    fs::{blocking, read_regular},
    str_arg,
};

/// Bytes of a file `Grep` searches at most.
const MAX_GREP_FILE_BYTES: u64 = 8 << 20;

/// Searches file contents by regular expression inside the working directory.
#[derive(Debug, Clone)]
pub struct GrepTool {
    /// Lines (content mode) or files returned at most.
    pub max_results: usize,
}

impl Default for GrepTool {
    fn default() -> Self {
        GrepTool { max_results: 200 }
    }
}

#[async_trait]
impl Tool for GrepTool {
    fn name(&self) -> &str {
        "Grep"
    }

    fn is_read_only(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "Grep",
            "Search file contents with a regular expression (Rust regex syntax) inside the working directory. \
             output_mode: files_with_matches (default), content (path:line:text) or count.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "The regular expression."},
                    "path": {"type": "string", "description": "A file or directory to search (default: the working directory)."},
                    "glob": {"type": "string", "description": "Only files matching this glob (`*.rs`, `src/**/*.ts`)."},
                    "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"]},
                    "-i": {"type": "boolean", "description": "Ignore case."}
                },
                "required": ["pattern"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.execute_structured(args, ctx).await.result
    }

    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let pattern = match str_arg(&args, "Grep", "pattern") {
            Ok(pattern) => pattern.to_owned(),
            Err(result) => return result.into(),
        };
        let ignore_case = args.get("-i").and_then(Value::as_bool).unwrap_or(false);
        let regex = match regex::RegexBuilder::new(&pattern).case_insensitive(ignore_case).build() {
            Ok(regex) => regex,
            Err(err) => {
                return ToolResult::error(format!("Grep: `{pattern}` is not a valid regular expression: {err}")).into();
            }
        };
        let mode = args.get("output_mode").and_then(Value::as_str).unwrap_or("files_with_matches").to_owned();
        if !matches!(mode.as_str(), "files_with_matches" | "content" | "count") {
            return ToolResult::error(format!(
                "Grep: unknown output_mode `{mode}`; use files_with_matches, content or count"
            ))
            .into();
        }
        let filter = match args.get("glob").and_then(Value::as_str) {
            Some(glob) => match glob_regex(glob) {
                Ok(matcher) => Some((matcher, glob.contains('/'))),
                Err(message) => return ToolResult::error(format!("Grep: {message}")).into(),
            },
            None => None,
        };
        let (root, target) = match (root_of(ctx), dir_arg(&args, "Grep", ctx)) {
            (Ok(root), Ok(target)) => (root, target),
            (Err(result), _) | (_, Err(result)) => return result.into(),
        };
        let max = self.max_results;
        let searched = blocking(move || {
            let files = if target.is_file() {
                let relative = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                vec![Found { path: target.clone(), relative, modified: None }]
            } else {
                walk(&root, &target).0
            };
            let mut hits: Vec<(String, Vec<(usize, String)>)> = Vec::new();
            for file in files {
                if let Some((matcher, is_path_glob)) = &filter {
                    let name = if *is_path_glob {
                        file.relative.as_str()
                    } else {
                        file.relative.rsplit('/').next().unwrap_or_default()
                    };
                    if !matcher.is_match(name) {
                        continue;
                    }
                }
                // Larger files are skipped; so is what is not (or no longer) a regular file.
                let Ok((bytes, false)) = read_regular(&file.path, MAX_GREP_FILE_BYTES) else { continue };
                if bytes.iter().take(8192).any(|&b| b == 0) {
                    continue;
                }
                let text = String::from_utf8_lossy(&bytes);
                let lines: Vec<(usize, String)> = text
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| regex.is_match(line))
                    .map(|(idx, line)| (idx + 1, head_chars(line, MAX_LINE_CHARS)))
                    .collect();
                if !lines.is_empty() {
                    hits.push((file.path.display().to_string(), lines));
                }
            }
            Ok(hits)
        })
        .await;
        let hits = searched.unwrap_or_default();
        let filenames: Vec<&str> = hits.iter().map(|(path, _)| path.as_str()).collect();
        let (text, mut response) = match mode.as_str() {
            "content" => {
                let all: Vec<String> = hits
                    .iter()
                    .flat_map(|(path, lines)| lines.iter().map(move |(n, line)| format!("{path}:{n}:{line}")))
                    .collect();
                let mut text = all.iter().take(max).cloned().collect::<Vec<_>>().join("\n");
                if all.len() > max {
                    text.push_str(&format!("\n[{} more matching lines not shown]", all.len() - max));
                }
                if all.is_empty() {
                    text = "No matches found".to_owned();
                }
                (text.clone(), json!({"mode": "content", "content": text, "numLines": all.len()}))
            }
            "count" => {
                let lines: Vec<String> = hits.iter().map(|(path, lines)| format!("{path}:{}", lines.len())).collect();
                let total: usize = hits.iter().map(|(_, lines)| lines.len()).sum();
                let text = if lines.is_empty() { "No matches found".to_owned() } else { lines.join("\n") };
                (text, json!({"mode": "count", "numMatches": total}))
            }
            _ => {
                let mut text = if filenames.is_empty() {
                    "No files found".to_owned()
                } else {
                    format!(
                        "Found {} file{}\n{}",
                        filenames.len(),
                        if filenames.len() == 1 { "" } else { "s" },
                        filenames.iter().take(max).copied().collect::<Vec<_>>().join("\n")
                    )
                };
                if filenames.len() > max {
                    text.push_str(&format!("\n[{} more files not shown]", filenames.len() - max));
                }
                (text, json!({"mode": "files_with_matches"}))
            }
        };
        response["filenames"] = json!(filenames);
        response["numFiles"] = json!(filenames.len());
        ToolOutput { result: ToolResult::text(text), response: Some(response) }
    }
}
