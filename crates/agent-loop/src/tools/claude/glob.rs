//! `Glob`: files by glob pattern inside the working directory; and the glob matcher and the
//! directory walk that `Grep` shares.

use std::{
    path::{Path, PathBuf},
    time::{Instant, SystemTime},
};

use async_trait::async_trait;
use hook_protocol::{ToolDefinition, ToolResult};
use regex::Regex;
use serde_json::{Value, json};

use super::{dir_arg, root_of};
use crate::tools::{Tool, ToolContext, ToolOutput, fs::blocking, str_arg};

/// Entries a directory walk visits at most.
const MAX_WALK_ENTRIES: usize = 50_000;

/// A glob pattern as an anchored regex: `**/` any directories (or none), `**` anything, `*`
/// anything but `/`, `?` one character but `/`, `[...]` a class (`[!...]` negated), `{a,b}`
/// alternatives.
pub(crate) fn glob_regex(pattern: &str) -> Result<Regex, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::from("^");
    let mut idx = 0;
    let mut depth = 0usize;
    while idx < chars.len() {
        let c = chars[idx];
        match c {
            '*' if chars.get(idx + 1) == Some(&'*') => {
                if chars.get(idx + 2) == Some(&'/') {
                    out.push_str("(?:.*/)?");
                    idx += 3;
                } else {
                    out.push_str(".*");
                    idx += 2;
                }
                continue;
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                let Some(len) = chars[idx + 1..].iter().position(|&c| c == ']') else {
                    return Err(format!("`{pattern}`: `[` without `]`"));
                };
                let class: String = chars[idx + 1..idx + 1 + len].iter().collect();
                let class = class.strip_prefix('!').map(|rest| format!("^{rest}")).unwrap_or(class);
                out.push('[');
                out.push_str(&class.replace('\\', "\\\\"));
                out.push(']');
                idx += len + 2;
                continue;
            }
            '{' => {
                depth += 1;
                out.push_str("(?:");
            }
            ',' if depth > 0 => out.push('|'),
            '}' if depth > 0 => {
                depth -= 1;
                out.push(')');
            }
            other => out.push_str(&regex::escape(&other.to_string())),
        }
        idx += 1;
    }
    if depth > 0 {
        return Err(format!("`{pattern}`: `{{` without `}}`"));
    }
    out.push('$');
    Regex::new(&out).map_err(|e| format!("`{pattern}` is not a valid glob: {e}"))
}

/// A file found by a walk: its path and relative path (with `/`).
pub(super) struct Found {
    pub(super) path: PathBuf,
    pub(super) relative: String,
    pub(super) modified: Option<SystemTime>,
}

/// The files under `dir` (itself inside `root`), not descending into `.git` or linked
/// directories; a linked file counts only when it resolves inside `root`. Whether the walk
/// stopped at [`MAX_WALK_ENTRIES`].
pub(super) fn walk(root: &Path, dir: &Path) -> (Vec<Found>, bool) {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut visited = 0usize;
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else { continue };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            visited += 1;
            if visited > MAX_WALK_ENTRIES {
                return (found, true);
            }
            let Ok(kind) = entry.file_type() else { continue };
            let path = entry.path();
            if kind.is_dir() {
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
                continue;
            }
            if kind.is_symlink() {
                match path.canonicalize() {
                    Ok(real) if real.starts_with(root) && real.is_file() => {}
                    _ => continue,
                }
            } else if !kind.is_file() {
                continue;
            }
            let relative = path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().into_owned();
            let modified = entry.metadata().ok().and_then(|m| m.modified().ok());
            found.push(Found { path, relative, modified });
        }
    }
    (found, false)
}

/// Finds files by glob pattern inside the working directory.
#[derive(Debug, Clone)]
pub struct GlobTool {
    /// Paths returned at most.
    pub max_results: usize,
}

impl Default for GlobTool {
    fn default() -> Self {
        GlobTool { max_results: 100 }
    }
}

#[async_trait]
impl Tool for GlobTool {
    fn name(&self) -> &str {
        "Glob"
    }

    fn is_read_only(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            "Glob",
            "Find files by glob pattern (`**/*.rs`, `src/*.{ts,tsx}`) inside the working directory; newest first.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "The glob, relative to `path`."},
                    "path": {"type": "string", "description": "The directory to search (default: the working directory)."}
                },
                "required": ["pattern"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.execute_structured(args, ctx).await.result
    }

    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let started = Instant::now();
        let pattern = match str_arg(&args, "Glob", "pattern") {
            Ok(pattern) => pattern.trim_start_matches("./").to_owned(),
            Err(result) => return result.into(),
        };
        let (root, dir) = match (root_of(ctx), dir_arg(&args, "Glob", ctx)) {
            (Ok(root), Ok(dir)) => (root, dir),
            (Err(result), _) | (_, Err(result)) => return result.into(),
        };
        let matcher = match glob_regex(&pattern) {
            Ok(matcher) => matcher,
            Err(message) => return ToolResult::error(format!("Glob: {message}")).into(),
        };
        let max = self.max_results;
        let walked = blocking(move || Ok(walk(&root, &dir))).await;
        let (mut found, is_cut) = walked.unwrap_or_default();
        found.retain(|f| matcher.is_match(&f.relative));
        found.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.relative.cmp(&b.relative)));
        let truncated = found.len() > max || is_cut;
        found.truncate(max);
        let names: Vec<String> = found.iter().map(|f| f.path.display().to_string()).collect();
        let mut text = if names.is_empty() { "No files found".to_owned() } else { names.join("\n") };
        if truncated {
            text.push_str(&format!("\n[results cut at {max}; narrow the pattern or the path]"));
        }
        let response = json!({
            "filenames": names,
            "durationMs": started.elapsed().as_millis() as u64,
            "numFiles": names.len(),
            "truncated": truncated,
        });
        ToolOutput { result: ToolResult::text(text), response: Some(response) }
    }
}

#[cfg(test)]
mod tests {
    use super::glob_regex;

    #[test]
    fn globs_match_as_shells_do() {
        let cases = [
            ("*.rs", "main.rs", true),
            ("*.rs", "src/main.rs", false),
            ("**/*.rs", "main.rs", true),
            ("**/*.rs", "src/a/main.rs", true),
            ("src/*.{ts,tsx}", "src/a.tsx", true),
            ("src/*.{ts,tsx}", "src/a.js", false),
            ("file?.txt", "file1.txt", true),
            ("[!a]*", "abc", false),
            ("[!a]*", "bcd", true),
            ("a.b", "axb", false),
        ];
        for (glob, path, expected) in cases {
            assert_eq!(glob_regex(glob).unwrap().is_match(path), expected, "{glob} vs {path}");
        }
        assert!(glob_regex("{a,b").is_err());
        assert!(glob_regex("[abc").is_err());
    }
}
