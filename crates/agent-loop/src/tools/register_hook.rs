//! The `register_hook` tool: the model registers, lists and removes session hooks.
//!
//! A registration is a tool call like any other, so it passes `pre_tool_execution` and
//! `approve_tool` first. A registered hook becomes a [`HookSpec`] at [`Level::Session`], scoped
//! to its session, which the engine builds with the factory the host registered for its kind
//! (`hook_bash::BashFactory` for `bash`, `hook_llm::LlmFactory` for `llm`); a kind the host has
//! no factory for is refused with an error naming it. The bash factory runs session-level hooks
//! with a scrubbed environment (the model must not be able to read the host's secrets through a
//! hook): a host that registers its own factory for `bash` or `llm` takes that duty on, and must
//! apply [`Level::Session`]'s policy the same way. Session hooks are kept in the session's state; [`crate::Session::restore`] asks for
//! approval again before re-arming them.

use std::{
    fmt,
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use hook_core::{CompiledFilter, Engine, HookDefinition, HookSpec, Level};
use hook_protocol::{
    ToolDefinition, ToolResult,
    config::{HookDef, HookKind, SandboxPolicy},
};
use serde_json::{Value, json};

use super::{Tool, ToolContext};

/// The tool's name.
pub const REGISTER_HOOK: &str = "register_hook";

pub use hook_protocol::session::SessionHookDef;

/// A short description of `def` for lists and replies.
fn label(def: &SessionHookDef) -> String {
    let text = def.command.as_deref().or(def.prompt.as_deref()).unwrap_or_default();
    hook_core::head_chars(text, 60)
}

/// The spec of session hook `name` defined by `def`, at [`Level::Session`]: what the model left
/// out (timeout, retry, on_error) the factory of its kind decides, as for a configured hook.
fn session_spec(name: &str, def: &SessionHookDef) -> Result<HookSpec, String> {
    let filter = def.filter.clone().unwrap_or_default();
    CompiledFilter::compile(&filter).map_err(|e| format!("the filter is invalid: {e}"))?;
    let hook_def = match def.kind.as_str() {
        "bash" => {
            let command = def
                .command
                .clone()
                .filter(|c| !c.trim().is_empty())
                .ok_or("a bash hook needs `command` (the shell command that reads HookContext JSON on stdin)")?;
            HookDef { kind: HookKind::Bash, command: Some(command), ..HookDef::default() }
        }
        "llm" => {
            let prompt = def
                .prompt
                .clone()
                .filter(|p| !p.trim().is_empty())
                .ok_or("an llm hook needs `prompt` (a template such as `Is {{tool_arguments}} safe?`)")?;
            HookDef { kind: HookKind::Llm, prompt: Some(prompt), model: def.model.clone(), ..HookDef::default() }
        }
        other => return Err(format!("unknown hook type `{other}`; use `bash` or `llm`")),
    };
    let mut spec =
        HookSpec::new(name, Level::Session, def.kind.clone(), [def.event], HookDefinition::Command(hook_def));
    spec.filter = filter;
    // A timeout that is not a positive number of seconds a `Duration` can hold means the default.
    spec.timeout = def.timeout.filter(|t| *t > 0.0).and_then(|t| Duration::try_from_secs_f64(t).ok());
    spec.retry = def.retry;
    spec.on_error = def.on_error;
    Ok(spec)
}

/// The prefix of the engine names of `session_id`'s hooks: ASCII letters, digits and `-` as they
/// are, every other byte of the id's UTF-8 as `_` and two lowercase hex digits (`team/x` is
/// `team_2fx`, `team x` is `team_20x`, `a_b` is `a_5fb`). Injective, so two sessions never share
/// a hook name; and as the names end in `-hook-<digits>`, the whole name is injective too.
pub(crate) fn session_prefix(session_id: &str) -> String {
    use std::fmt::Write as _;
    let mut prefix = String::with_capacity(session_id.len());
    for byte in session_id.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' {
            prefix.push(char::from(byte));
        } else {
            let _ = write!(prefix, "_{byte:02x}");
        }
    }
    prefix
}

#[derive(Debug, Default)]
struct State {
    /// Engine name and definition, in registration order.
    hooks: Vec<(String, SessionHookDef)>,
    next: u64,
}

/// The hooks one session registered: kept in the engine at [`Level::Session`] and in this list.
#[derive(Clone)]
pub(crate) struct SessionHooks {
    state: Arc<Mutex<State>>,
    engine: Engine,
    prefix: String,
    /// The session the hooks belong to: they run on its events only.
    session: Arc<str>,
}

impl fmt::Debug for SessionHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionHooks").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl SessionHooks {
    pub(crate) fn new(engine: Engine, session_id: &str) -> Self {
        let prefix = session_prefix(session_id);
        SessionHooks { state: Arc::default(), engine, prefix, session: Arc::from(session_id) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers `def` for this session through the engine's factory of its kind; the engine
    /// name on success.
    pub(crate) async fn register(&self, def: SessionHookDef) -> Result<String, String> {
        let name = {
            let mut state = self.lock();
            state.next += 1;
            format!("{}-hook-{}", self.prefix, state.next)
        };
        // The model wrote this hook: it runs confined (its project only, no network) whatever
        // the definition says; the executors enforce the same for every session-level spec.
        let spec = HookSpec {
            deadlines: self.engine.deadlines(),
            sandbox: Some(SandboxPolicy::model_registered()),
            ..session_spec(&name, &def)?
        };
        self.engine.register_spec(spec, &self.session).await.map_err(|e| e.to_string())?;
        self.lock().hooks.push((name.clone(), def));
        Ok(name)
    }

    /// Removes the hook called `name`.
    pub(crate) fn remove(&self, name: &str) -> bool {
        let mut state = self.lock();
        let Some(idx) = state.hooks.iter().position(|(n, _)| n == name) else { return false };
        state.hooks.remove(idx);
        drop(state);
        self.engine.unregister(Level::Session, name)
    }

    /// Every hook: engine name and definition.
    pub(crate) fn list(&self) -> Vec<(String, SessionHookDef)> {
        self.lock().hooks.clone()
    }

    /// Unregisters every hook (the session ended).
    pub(crate) fn clear(&self) {
        let hooks = std::mem::take(&mut self.lock().hooks);
        for (name, _) in hooks {
            self.engine.unregister(Level::Session, &name);
        }
    }
}

/// Lets the model manage session hooks: `register`, `list`, `remove`.
///
/// A registered hook runs at [`Level::Session`] on its session's events only. The engine builds
/// it with the factory the host registered for its kind (`hook_bash::BashFactory` for `bash`,
/// which runs session hooks with a scrubbed environment; `hook_llm::LlmFactory` for `llm`); a
/// registration of a kind the engine has no factory for fails with an error naming the kind.
#[derive(Debug, Clone, Copy, Default)]
pub struct RegisterHookTool;

#[async_trait]
impl Tool for RegisterHookTool {
    fn name(&self) -> &str {
        REGISTER_HOOK
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(
            REGISTER_HOOK,
            "Manage hooks for this session. register: run a bash command or an llm prompt on a lifecycle event \
             (the command reads HookContext JSON on stdin and prints HookResult JSON); list; remove (by name).",
            json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["register", "list", "remove"]},
                    "event": {"type": "string", "description": "e.g. pre_tool_execution, post_llm_response, stop"},
                    "type": {"type": "string", "enum": ["bash", "llm"]},
                    "command": {"type": "string"},
                    "prompt": {"type": "string"},
                    "model": {"type": "string"},
                    "timeout": {"type": "number"},
                    "retry": {"type": "integer"},
                    "on_error": {"type": "string", "enum": ["skip", "stop", "deny"]},
                    "filter": {
                        "type": "object",
                        "properties": {
                            "tool_name": {"type": "string"},
                            "tool_matcher": {"type": "string"},
                            "model_prefix": {"type": "string"},
                            "tool_regex": {"type": "string"},
                            "args_regex": {"type": "string"}
                        }
                    },
                    "name": {"type": "string", "description": "remove: the hook's name from list"}
                },
                "required": ["action"]
            }),
        )
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let Some(hooks) = &ctx.session_hooks else {
            return ToolResult::error("register_hook: session hooks are only available inside a session");
        };
        let action = args.get("action").and_then(Value::as_str).unwrap_or("register");
        match action {
            "register" => {
                let mut def_value = args.clone();
                if let Value::Object(map) = &mut def_value {
                    map.remove("action");
                    map.remove("name");
                }
                let def: SessionHookDef = match hook_protocol::from_json_value(def_value) {
                    Ok(def) => def,
                    Err(err) => return ToolResult::error(format!("register_hook: invalid registration {err}")),
                };
                let (event, kind, label) = (def.event, def.kind.clone(), label(&def));
                match hooks.register(def).await {
                    Ok(name) => ToolResult::text(format!(
                        "registered session hook `{name}`: event={event}, type={kind}, {label}"
                    )),
                    Err(err) => ToolResult::error(format!("register_hook: {err}")),
                }
            }
            "list" => {
                let list = hooks.list();
                if list.is_empty() {
                    return ToolResult::text("no session hooks");
                }
                let lines: Vec<String> = list
                    .iter()
                    .map(|(name, def)| format!("{name}: event={}, type={}, {}", def.event, def.kind, label(def)))
                    .collect();
                ToolResult::text(lines.join("\n"))
            }
            "remove" => {
                let Some(name) = args.get("name").and_then(Value::as_str) else {
                    return ToolResult::error("register_hook: remove needs `name` (as shown by action=list)");
                };
                if hooks.remove(name) {
                    ToolResult::text(format!("removed session hook `{name}`"))
                } else {
                    ToolResult::error(format!("register_hook: no session hook named `{name}`; see action=list"))
                }
            }
            other => {
                ToolResult::error(format!("register_hook: unknown action `{other}`; use register, list or remove"))
            }
        }
    }
}
