//! Tools the model may call: the [`Tool`] trait, the [`ToolRegistry`] and the built-ins.
//!
//! The built-ins use Claude Code's vocabulary, so hooks written for Claude Code match them by
//! name and read their input as they expect: `Bash` {command, description?, timeout? (ms)},
//! `Read` {file_path, offset?, limit?}, `Write` {file_path, content}, `Edit` {file_path,
//! old_string, new_string, replace_all?}, `Glob` {pattern, path?}, `Grep` {pattern, path?,
//! glob?, output_mode?}, `LS` {path?}, and hookwire's own `register_hook`. Every path stays
//! inside the session's working directory ([`resolve_in_cwd`]).
//!
//! The names of earlier versions (`bash`, `read_file`, `write_file`, `list_dir`) are still
//! accepted when a model (or a saved session, or a script) calls them, but are not offered;
//! the file ones adapt the operations of `Read`, `Write` and `LS`. Only regular files are read
//! or written: a FIFO, a socket or a device is refused at once, never waited on.

mod bash;
mod claude;
mod fs;
mod legacy;
mod register_hook;

use std::{collections::BTreeMap, fmt, path::PathBuf, sync::Arc};

use async_trait::async_trait;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::Value;

pub use bash::{BashTool, LegacyBashTool};
pub use claude::{EditTool, GlobTool, GrepTool, LsTool, ReadTool, WriteTool};
pub use fs::{PathError, resolve_in_cwd};
pub use legacy::{ListDirTool, ReadFileTool, WriteFileTool};
pub(crate) use register_hook::SessionHooks;
pub use register_hook::{REGISTER_HOOK, RegisterHookTool, SessionHookDef};

use crate::MediaStore;

/// What a tool is given besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    /// The session's working directory; file tools stay inside it.
    pub cwd: PathBuf,
    /// The session id.
    pub session_id: String,
    /// Where a tool puts files and bytes it returns as `media://` references.
    pub media: MediaStore,
    pub(crate) session_hooks: Option<SessionHooks>,
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext").field("cwd", &self.cwd).field("session_id", &self.session_id).finish()
    }
}

impl ToolContext {
    /// A context for tools run outside a session (tests, one-off calls): no session hooks.
    pub fn new(cwd: impl Into<PathBuf>, session_id: impl Into<String>) -> Self {
        ToolContext { cwd: cwd.into(), session_id: session_id.into(), media: MediaStore::new(), session_hooks: None }
    }
}

/// A tool's result together with its structured response.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model sees (and `tool_result` of hook contexts).
    pub result: ToolResult,
    /// The response as Claude Code reports it to its hooks (`tool_response`: Bash's
    /// `{stdout, stderr, interrupted, isImage, noOutputExpected}`, Write's `{type, filePath,
    /// content, ...}`, ...); `None` when the tool has no structured form.
    pub response: Option<Value>,
}

impl From<ToolResult> for ToolOutput {
    fn from(result: ToolResult) -> Self {
        ToolOutput { result, response: None }
    }
}

/// A tool the model may call.
#[async_trait]
pub trait Tool: Send + Sync + fmt::Debug {
    /// The name the model calls it by.
    fn name(&self) -> &str;

    /// The definition offered to the model (name, description, JSON Schema of the arguments).
    fn definition(&self) -> ToolDefinition;

    /// Runs the tool. Failures are results with `is_error`, never panics; the text says what
    /// went wrong and how to call the tool correctly.
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult;

    /// Runs the tool and also returns its structured response (default: [`Tool::execute`]
    /// with none).
    async fn execute_structured(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        self.execute(args, ctx).await.into()
    }

    /// Whether the tool only reads (and so runs without approval). Default `false`: a tool
    /// has side effects, and runs only once approved, unless it says otherwise.
    fn is_read_only(&self) -> bool {
        false
    }
}

/// The tools of an agent, by name (offered to the model in name order), and names accepted
/// without being offered.
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
    hidden: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// No tools.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// The built-ins, in Claude Code's vocabulary: `Bash`, `Read`, `Write`, `Edit`, `Glob`,
    /// `Grep`, `LS`, and `register_hook`; plus the earlier names `bash`, `read_file`,
    /// `write_file` and `list_dir`, accepted but not offered.
    pub fn with_builtins() -> Self {
        ToolRegistry::new()
            .with(Arc::new(BashTool::default()))
            .with(Arc::new(ReadTool::default()))
            .with(Arc::new(WriteTool))
            .with(Arc::new(EditTool))
            .with(Arc::new(GlobTool::default()))
            .with(Arc::new(GrepTool::default()))
            .with(Arc::new(LsTool))
            .with(Arc::new(RegisterHookTool))
            .with_hidden(Arc::new(LegacyBashTool::default()))
            .with_hidden(Arc::new(ReadFileTool))
            .with_hidden(Arc::new(WriteFileTool))
            .with_hidden(Arc::new(ListDirTool))
    }

    /// Adds (or replaces) `tool`.
    pub fn with(mut self, tool: Arc<dyn Tool>) -> Self {
        self.register(tool);
        self
    }

    /// Adds (or replaces) `tool` as accepted when called but not offered to the model (an
    /// old name kept for saved sessions and scripts).
    pub fn with_hidden(mut self, tool: Arc<dyn Tool>) -> Self {
        let name = tool.name().to_owned();
        if !self.tools.contains_key(&name) {
            self.hidden.insert(name, tool);
        }
        self
    }

    /// Adds (or replaces) `tool`.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        let name = tool.name().to_owned();
        self.hidden.remove(&name);
        self.tools.insert(name, tool);
    }

    /// Removes the tool called `name` (offered or hidden); whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let offered = self.tools.remove(name).is_some();
        self.hidden.remove(name).is_some() || offered
    }

    /// The tool called `name`, offered or hidden.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name).or_else(|| self.hidden.get(name))
    }

    /// Every offered tool's definition, in name order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.values().map(|tool| tool.definition()).collect()
    }

    /// The offered names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// How many tools are offered.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether none is offered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// A string argument, or an error result naming it.
pub(crate) fn str_arg<'a>(args: &'a Value, tool: &str, name: &str) -> Result<&'a str, ToolResult> {
    args.get(name).and_then(Value::as_str).ok_or_else(|| {
        ToolResult::error(format!("{tool}: the argument `{name}` (a string) is required; got arguments {args}"))
    })
}
