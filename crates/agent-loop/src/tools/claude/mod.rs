//! The file tools in Claude Code's vocabulary: `Read`, `Write`, `Edit`, `Glob`, `Grep`, `LS`,
//! one module each. Each module also holds the file operation its tool performs, which the
//! earlier tools (`read_file`, `write_file`, `list_dir`) adapt: one implementation of each.
//!
//! Every path goes through [`resolve_in_cwd`](super::resolve_in_cwd): nothing outside the session's working directory
//! is read, written or listed, through `..`, an absolute path or a symbolic link. Directory
//! walks (`Glob`, `Grep`) never descend into a linked directory, and read a linked file only
//! when it resolves inside the working directory. Only regular files are read or written: a
//! FIFO, a socket or a device is refused, never waited on.

mod edit;
mod glob;
mod grep;
mod ls;
mod read;
mod write;

use std::path::PathBuf;

use hook_protocol::ToolResult;
use serde_json::Value;

pub use edit::EditTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use ls::LsTool;
pub(crate) use ls::list_names;
pub use read::ReadTool;
pub(crate) use read::read_text;
pub use write::WriteTool;
pub(crate) use write::{WriteFailure, write_creating_parents};

use super::{ToolContext, fs::resolve_for, str_arg};

/// Characters of one line `Read` and `Grep` keep.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes of a file `Read` and `Edit` take in at most: a file grown huge (or endless, as a
/// `/proc` file can be) never fills the memory.
const MAX_FILE_BYTES: u64 = 32 << 20;

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
