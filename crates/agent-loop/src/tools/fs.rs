//! The earlier file tools, confined to the session's working directory: `read_file`,
//! `write_file`, `list_dir` (accepted, not offered); and the confinement all file tools share.

use std::path::{Component, Path, PathBuf};

use async_trait::async_trait;
use hook_core::head_chars;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::{Value, json};

use super::{Tool, ToolContext, str_arg};

/// Characters of a file `read_file` returns at most.
const MAX_READ_CHARS: usize = 100_000;

/// Why [`resolve_in_cwd`] refused a path; the message says what to use instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The working directory itself cannot be resolved.
    #[error("the working directory {} is unusable: {source}", cwd.display())]
    WorkingDir {
        /// The working directory as given.
        cwd: PathBuf,
        /// Why it cannot be resolved.
        source: std::io::Error,
    },
    /// The path is empty (or blank).
    #[error("the path is empty")]
    Empty,
    /// The path contains a NUL byte.
    #[error("the path contains a NUL byte")]
    NulByte,
    /// `..` climbs out of the working directory.
    #[error("`{path}` leaves the working directory")]
    Leaves {
        /// The path as given.
        path: String,
    },
    /// An absolute path outside the working directory.
    #[error("`{path}` is outside the working directory {}; use a path relative to it", root.display())]
    Outside {
        /// The path as given.
        path: String,
        /// The working directory, resolved.
        root: PathBuf,
    },
    /// A component on the way cannot be inspected.
    #[error("`{path}`: cannot inspect {}: {source}", at.display())]
    Inspect {
        /// The path as given.
        path: String,
        /// The component that cannot be inspected.
        at: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A symbolic link on the way leads outside the working directory.
    #[error("`{path}` leads outside the working directory through a symbolic link")]
    LinkOutside {
        /// The path as given.
        path: String,
    },
    /// A symbolic link on the way leads nowhere (or outside, unresolvably).
    #[error("`{path}` goes through a symbolic link that leads nowhere (or outside the working directory); refused")]
    LinkNowhere {
        /// The path as given.
        path: String,
    },
}

/// Resolves `path` (relative to `cwd`, or absolute inside it) to a path inside `cwd`.
///
/// `..` may not climb out of `cwd`; an absolute path must lie inside it; and every symbolic
/// link on the way (the last component included) must resolve to a path inside `cwd` — a link
/// that leads outside, or leads nowhere (a dangling link could be written through to a file
/// outside), is refused. The path returned is normalised (no `.`, `..` or links resolved away
/// lexically), so `link/..` means the directory holding `link`, as it reads.
pub fn resolve_in_cwd(cwd: &Path, path: &str) -> Result<PathBuf, PathError> {
    let root = cwd.canonicalize().map_err(|source| PathError::WorkingDir { cwd: cwd.to_path_buf(), source })?;
    if path.trim().is_empty() {
        return Err(PathError::Empty);
    }
    if path.contains('\0') {
        return Err(PathError::NulByte);
    }
    let given = Path::new(path);
    let joined = if given.is_absolute() {
        // The working directory as given (not canonical) is the same place.
        match given.strip_prefix(cwd) {
            Ok(rest) if cwd.is_absolute() => root.join(rest),
            _ => given.to_path_buf(),
        }
    } else {
        root.join(given)
    };
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                if !normal.pop() {
                    return Err(PathError::Leaves { path: path.to_owned() });
                }
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    let Ok(inside) = normal.strip_prefix(&root) else {
        return Err(PathError::Outside { path: path.to_owned(), root });
    };
    // Symbolic links: each existing component, resolved, must stay inside the root.
    let mut current = root.clone();
    for component in inside.components() {
        current.push(component);
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(meta) => meta,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => break,
            Err(source) => return Err(PathError::Inspect { path: path.to_owned(), at: current, source }),
        };
        if meta.file_type().is_symlink() {
            match current.canonicalize() {
                Ok(real) if real.starts_with(&root) => {}
                Ok(_) => return Err(PathError::LinkOutside { path: path.to_owned() }),
                Err(_) => return Err(PathError::LinkNowhere { path: path.to_owned() }),
            }
        }
    }
    Ok(normal)
}

/// Runs blocking file I/O off the async workers (the workspace's tokio has no `fs` feature).
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|err| Err(std::io::Error::other(err.to_string())))
}

/// Writes `bytes` to `path`, refusing to follow a symbolic link in its last component (one that
/// appeared after [`resolve_in_cwd`] checked it).
pub(crate) fn write_no_follow(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::{io::Write as _, os::unix::fs::OpenOptionsExt as _};
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)?;
    file.write_all(bytes)
}

/// `path` resolved inside the working directory of a `tool` call, or the error result naming
/// the tool (every file tool's confinement).
pub(crate) fn resolve_for(tool: &str, ctx: &ToolContext, path: &str) -> Result<PathBuf, ToolResult> {
    resolve_in_cwd(&ctx.cwd, path).map_err(|err| ToolResult::error(format!("{tool}: {err}")))
}

/// The bytes of the file at `path`.
pub(crate) async fn read_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    let path = path.to_path_buf();
    blocking(move || std::fs::read(path)).await
}

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

/// Writes `bytes` to `path` (never through a symbolic link), creating its parent directories.
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

fn path_arg(args: &Value, tool: &str, ctx: &ToolContext) -> Result<PathBuf, ToolResult> {
    resolve_for(tool, ctx, str_arg(args, tool, "path")?)
}

fn path_schema(description: &str) -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string", "description": description}}, "required": ["path"]})
}

/// Reads a text file inside the working directory.
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
        match read_bytes(&path).await {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                if text.chars().count() > MAX_READ_CHARS {
                    ToolResult::text(format!(
                        "{}\n[cut at {MAX_READ_CHARS} characters]",
                        head_chars(&text, MAX_READ_CHARS)
                    ))
                } else {
                    ToolResult::text(text.into_owned())
                }
            }
            Err(err) => ToolResult::error(format!("read_file: cannot read {}: {err}", path.display())),
        }
    }
}

/// Writes a text file inside the working directory, creating parent directories.
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

/// Lists a directory inside the working directory.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_escaping_the_working_directory_are_rejected() {
        let dir = std::env::temp_dir().join(format!("agent-loop-fs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let root = dir.canonicalize().unwrap();
        assert_eq!(resolve_in_cwd(&dir, "sub/../a.txt").unwrap(), root.join("a.txt"));
        assert!(resolve_in_cwd(&dir, "../x").unwrap_err().to_string().contains("outside"));
        assert!(resolve_in_cwd(&dir, "sub/../../x").unwrap_err().to_string().contains("outside"));
        assert!(resolve_in_cwd(&dir, "/etc/passwd").unwrap_err().to_string().contains("outside"));
        assert_eq!(resolve_in_cwd(&dir, root.join("b").to_str().unwrap()).unwrap(), root.join("b"));
        std::os::unix::fs::symlink("/etc", dir.join("link")).ok();
        assert!(resolve_in_cwd(&dir, "link/passwd").unwrap_err().to_string().contains("symbolic link"));
        assert!(resolve_in_cwd(&dir, "link").unwrap_err().to_string().contains("symbolic link"));
        // A dangling link would be written through to a file outside.
        std::os::unix::fs::symlink("/tmp/agent-loop-no-such-target/x", dir.join("dangling")).ok();
        assert!(resolve_in_cwd(&dir, "dangling").unwrap_err().to_string().contains("symbolic link"));
        std::os::unix::fs::symlink(root.join("sub"), dir.join("inner")).ok();
        assert_eq!(resolve_in_cwd(&dir, "inner/new.txt").unwrap(), root.join("inner/new.txt"));
        assert!(matches!(resolve_in_cwd(&dir, ""), Err(PathError::Empty)));
        assert!(matches!(resolve_in_cwd(&dir, "a\0b"), Err(PathError::NulByte)));
        let outside = resolve_in_cwd(&dir, "/etc/passwd").unwrap_err();
        assert!(matches!(&outside, PathError::Outside { path, .. } if path == "/etc/passwd"), "{outside:?}");
        assert_eq!(
            outside.to_string(),
            format!("`/etc/passwd` is outside the working directory {}; use a path relative to it", root.display())
        );
        let missing = dir.join("no-such-dir");
        let err = resolve_in_cwd(&missing, "a.txt").unwrap_err();
        assert!(err.to_string().starts_with(&format!("the working directory {} is unusable: ", missing.display())));
        assert!(std::error::Error::source(&err).is_some(), "the I/O error is the source");
        std::fs::remove_dir_all(&dir).ok();
    }
}
