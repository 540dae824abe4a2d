//! The file tools in Claude Code's vocabulary: `Read`, `Write`, `Edit`, `Glob`, `Grep`, `LS`.
//!
//! Every path goes through [`resolve_in_cwd`](super::resolve_in_cwd): nothing outside the session's working directory
//! is read, written or listed, through `..`, an absolute path or a symbolic link. Directory
//! walks (`Glob`, `Grep`) never descend into a linked directory, and read a linked file only
//! when it resolves inside the working directory.

use std::{
    path::{Path, PathBuf},
    time::{Instant, SystemTime},
};

use async_trait::async_trait;
use hook_core::head_chars;
use hook_protocol::{ToolDefinition, ToolResult};
use regex::Regex;
use serde_json::{Value, json};

use super::{
    Tool, ToolContext, ToolOutput,
    fs::{blocking, list_names, read_bytes, resolve_for, write_creating_parents},
    str_arg,
};

/// Lines `Read` returns when the call names no `limit`.
const DEFAULT_READ_LINES: usize = 2000;
/// Characters of one line `Read` keeps.
const MAX_LINE_CHARS: usize = 2000;
/// Entries a directory walk visits at most.
const MAX_WALK_ENTRIES: usize = 50_000;
/// Bytes of a file `Grep` searches at most.
const MAX_GREP_FILE_BYTES: u64 = 8 << 20;

fn file_path_arg(args: &Value, tool: &str, ctx: &ToolContext) -> Result<PathBuf, ToolResult> {
    resolve_for(tool, ctx, str_arg(args, tool, "file_path")?)
}

/// The optional `path` argument (a directory to search), default the working directory.
fn dir_arg(args: &Value, tool: &str, ctx: &ToolContext) -> Result<PathBuf, ToolResult> {
    let path = args.get("path").and_then(Value::as_str).filter(|p| !p.trim().is_empty()).unwrap_or(".");
    resolve_for(tool, ctx, path)
}

fn root_of(ctx: &ToolContext) -> Result<PathBuf, ToolResult> {
    ctx.cwd.canonicalize().map_err(|e| ToolResult::error(format!("the working directory is unusable: {e}")))
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
        let bytes = match read_bytes(&path).await {
            Ok(bytes) => bytes,
            Err(err) => return ToolResult::error(format!("Read: cannot read {}: {err}", path.display())).into(),
        };
        let text = String::from_utf8_lossy(&bytes);
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
        let original = std::fs::read(&path).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
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
        let original = match std::fs::read(&path) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
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
struct Found {
    path: PathBuf,
    relative: String,
    modified: Option<SystemTime>,
}

/// The files under `dir` (itself inside `root`), not descending into `.git` or linked
/// directories; a linked file counts only when it resolves inside `root`. Whether the walk
/// stopped at [`MAX_WALK_ENTRIES`].
fn walk(root: &Path, dir: &Path) -> (Vec<Found>, bool) {
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
                if std::fs::metadata(&file.path).map(|m| m.len() > MAX_GREP_FILE_BYTES).unwrap_or(true) {
                    continue;
                }
                let Ok(bytes) = std::fs::read(&file.path) else { continue };
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
