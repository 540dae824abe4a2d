//! Tools the model may call: the [`Tool`] trait, the [`ToolRegistry`] and the built-ins
//! (`bash`, `read_file`, `write_file`, `list_dir`, `register_hook`).

mod bash;
mod fs;
mod register_hook;

use std::{collections::BTreeMap, fmt, path::PathBuf, sync::Arc};

use async_trait::async_trait;
use hook_protocol::{ToolDefinition, ToolResult};
use serde_json::Value;

pub use bash::BashTool;
pub use fs::{ListDirTool, ReadFileTool, WriteFileTool, resolve_in_cwd};
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
}

/// The tools of an agent, by name (offered to the model in name order).
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// No tools.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// The built-ins: `bash`, `read_file`, `write_file`, `list_dir` and `register_hook`.
    pub fn with_builtins() -> Self {
        ToolRegistry::new()
            .with(Arc::new(BashTool::default()))
            .with(Arc::new(ReadFileTool))
            .with(Arc::new(WriteFileTool))
            .with(Arc::new(ListDirTool))
            .with(Arc::new(RegisterHookTool))
    }

    /// Adds (or replaces) `tool`.
    pub fn with(mut self, tool: Arc<dyn Tool>) -> Self {
        self.register(tool);
        self
    }

    /// Adds (or replaces) `tool`.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.name().to_owned(), tool);
    }

    /// Removes the tool called `name`; whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        self.tools.remove(name).is_some()
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// Every tool's definition, in name order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.values().map(|tool| tool.definition()).collect()
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
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
