//! Configured hooks: levels, stable ids, the validated spec of one hook, and the factories
//! that turn a spec into a running hook.

use std::{borrow::Cow, collections::BTreeMap, fmt, path::PathBuf, sync::Arc, time::Duration};

use async_trait::async_trait;
use hook_protocol::{
    Agent, Event,
    agent_config::AgentHandler,
    config::{BuiltinDef, HookDef, HookFilter, OnError, ProcessDef, SandboxPolicy},
};

use crate::{BuildError, Gate, Hook, Observer};

/// Where a hook comes from; hooks run level by level in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Level {
    /// Compiled into the host.
    Builtin,
    /// The machine's managed configuration (`/etc/hookwire/`): runs before the user's, so a
    /// denial there halts the chain before any lower level can answer.
    Managed,
    /// The user's configuration.
    User,
    /// The project's configuration (runs only when trusted).
    Project,
    /// Registered during the session (e.g. by the model).
    Session,
}

impl Level {
    /// Every level, in run order.
    pub const ALL: [Level; 5] = [Level::Builtin, Level::Managed, Level::User, Level::Project, Level::Session];

    /// `builtin`, `managed`, `user`, `project` or `session`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Builtin => "builtin",
            Level::Managed => "managed",
            Level::User => "user",
            Level::Project => "project",
            Level::Session => "session",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stable hook id: `<level>:<name>:<event>`. Unique per registration and event, so disabling
/// one never disables another.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HookId(Arc<str>);

impl HookId {
    /// The id of hook `name` at `level` on `event`.
    pub fn new(level: Level, name: &str, event: Event) -> Self {
        HookId(format!("{level}:{name}:{event}").into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a configured hook was declared, for messages and trust.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceLocation {
    /// The configuration file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        Ok(())
    }
}

/// How a hook is defined, by dialect.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HookDefinition {
    /// A j-cli command hook (`bash` or `llm`).
    Command(HookDef),
    /// A PicoClaw process hook.
    Process(ProcessDef),
    /// A PicoClaw builtin enabled by configuration.
    Builtin(BuiltinDef),
    /// A handler of a Claude Code, Gemini CLI or Codex settings file.
    Agent(Box<AgentHookDef>),
    /// A rules file (`rules:`, `packs:`, `allow:`), evaluated in-process by hook-rules.
    Rules(Box<hook_protocol::rules::RulesFile>),
}

/// One handler of a Claude Code family settings file, with the group and event it sits in.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentHookDef {
    /// Whose contract the handler is written for.
    pub agent: Agent,
    /// The event as the file names it (`PreToolUse`, `BeforeTool`, ...).
    pub event_name: String,
    /// The group's matcher as written.
    pub matcher: Option<String>,
    /// The handler as written.
    pub handler: AgentHandler,
    /// The plugin's root directory, for a plugin's `hooks/hooks.json` (`CLAUDE_PLUGIN_ROOT`).
    pub plugin_root: Option<PathBuf>,
    /// The file's `allowedHttpHookUrls`: URL patterns (`*` wildcards) an http handler may call;
    /// `None` allows any.
    pub http_allowed_urls: Option<Vec<String>>,
    /// The file's `httpHookAllowedEnvVars`: variables every http handler's headers may read
    /// (besides the handler's own `allowedEnvVars`).
    pub http_allowed_env_vars: Vec<String>,
}

/// Default deadlines; configuration may override each (PicoClaw `hooks.defaults`, per-hook `timeout`).
///
/// These are the engine's own; a hook kind with other defaults (bash 10 s, llm 30 s) says so
/// through [`HookFactory::default_timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// interceptors: 5 s.
    pub interceptor: Duration,
    /// approval hooks of any kind: 60 s.
    pub approval: Duration,
    /// observer notifications: 0.5 s.
    pub observer: Duration,
    /// a whole chain: 30 s.
    pub chain: Duration,
    /// a process hook's `hook.hello` reply: 5 s.
    pub handshake: Duration,
}

impl Deadlines {
    /// The default deadline of a hook on `event`: the approval deadline on `approve_tool`, the
    /// interceptor deadline elsewhere.
    pub fn for_event(&self, event: Event) -> Duration {
        if event == Event::ApproveTool { self.approval } else { self.interceptor }
    }
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            interceptor: Duration::from_secs(5),
            approval: Duration::from_secs(60),
            observer: Duration::from_millis(500),
            chain: Duration::from_secs(30),
            handshake: Duration::from_secs(5),
        }
    }
}

/// The kind of a hook: the name of the [`HookFactory`] that builds it. The built-in kinds have
/// constants; an embedder's own factory names its own kind with [`Kind::new`].
///
/// Compares with `&str` (`spec.kind == "bash"`) and prints as its name.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind(Cow<'static, str>);

impl Kind {
    /// j-cli's `sh -c` hooks (hook-bash).
    pub const BASH: Kind = Kind::from_static("bash");
    /// j-cli's prompt hooks answered by a chat model (hook-llm).
    pub const LLM: Kind = Kind::from_static("llm");
    /// PicoClaw's long-lived JSON-RPC process hooks (hook-process).
    pub const PROCESS: Kind = Kind::from_static("process");
    /// PicoClaw's built-in hooks, named in its config and supplied by the host.
    pub const BUILTIN: Kind = Kind::from_static("builtin");
    /// The Claude Code family's `command` handlers (hook-bash).
    pub const COMMAND: Kind = Kind::from_static("command");
    /// The Claude Code family's `http` handlers (hook-llm).
    pub const HTTP: Kind = Kind::from_static("http");
    /// The Claude Code family's `prompt` handlers (hook-llm).
    pub const PROMPT: Kind = Kind::from_static("prompt");
    /// Rules files evaluated in-process (hook-rules).
    pub const RULES: Kind = Kind::from_static("rules");
    /// Hooks registered as Rust values ([`crate::Engine::register`]); no factory builds them.
    pub const IN_PROCESS: Kind = Kind::from_static("in_process");

    /// A kind named by a `'static` string, usable in constants.
    pub const fn from_static(name: &'static str) -> Kind {
        Kind(Cow::Borrowed(name))
    }

    /// A kind named `name`.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Kind {
        Kind(name.into())
    }

    /// Its name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// As its name, quoted: `"bash"`.
impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Kind {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Kind {
    fn from(name: &str) -> Kind {
        Kind(Cow::Owned(name.to_owned()))
    }
}

impl From<String> for Kind {
    fn from(name: String) -> Kind {
        Kind(Cow::Owned(name))
    }
}

impl PartialEq<str> for Kind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Kind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Kind> for &str {
    fn eq(&self, other: &Kind) -> bool {
        *self == other.as_str()
    }
}

/// One configured hook, validated: everything a factory needs to build it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookSpec {
    /// Name (unique within its level).
    pub name: String,
    /// Level it was loaded at.
    pub level: Level,
    /// Executor kind: which factory builds it.
    pub kind: Kind,
    /// Events it runs on.
    pub events: Vec<Event>,
    /// The definition as written.
    pub definition: HookDefinition,
    /// The hook's own directory (directory hooks), for `JCLI_HOOK_DIR` and `PATH`.
    pub dir: Option<PathBuf>,
    /// Where it was declared.
    pub source: SourceLocation,
    /// Order inside the level, ascending.
    pub priority: i32,
    /// `false` keeps it configured but off.
    pub enabled: bool,
    /// Filter on the event's context.
    pub filter: HookFilter,
    /// Explicit deadline, if configured.
    pub timeout: Option<Duration>,
    /// Explicit retry count, if configured.
    pub retry: Option<u32>,
    /// Explicit failure policy, if configured.
    pub on_error: Option<OnError>,
    /// Environment added for the hook.
    pub env: BTreeMap<String, String>,
    /// Tools, besides those it injects, the hook may answer with `respond` (`*`: any).
    pub respond_tools: Vec<String>,
    /// The deadlines in force where it was loaded.
    pub deadlines: Deadlines,
    /// For a session-level hook: the session it belongs to. It then runs only on events whose
    /// context carries that `session_id`, so one session's hooks never see another's calls.
    pub session: Option<String>,
    /// The directory the hook runs in and its relative paths resolve against, whatever the
    /// caller's working directory; set by the loader: a project hook's project root, a process
    /// hook's config file directory (a relative `dir` is joined to it). `None`: the session's
    /// working directory (bash), the host's (process).
    pub work_dir: Option<std::path::PathBuf>,
    /// For a trusted project hook: what was trusted, re-verified before each run (see
    /// [`crate::SpecGuard`]).
    pub trust: Option<crate::SpecGuard>,
    /// What the hook's processes may reach (docs/sandbox.md): its own `sandbox:`, else its
    /// level's default; `None`: unconfined. Applied by the executors that start processes.
    pub sandbox: Option<SandboxPolicy>,
}

/// What a factory built for one spec.
#[derive(Debug, Clone)]
pub struct BuiltHook {
    /// Runs on each of the spec's events.
    pub hook: Arc<dyn Hook>,
    /// Receives the observer kinds the spec asks for, if any.
    pub observer: Option<Arc<dyn Observer>>,
    /// A condition of the hook's own dialect (a Claude Code matcher), checked with the filter
    /// before the hook runs; a context it does not admit counts as `filtered`.
    pub gate: Option<Arc<dyn Gate>>,
    /// The hook's deadline may be longer than the chain's: the chain of an event it is on
    /// lasts at least as long as its deadline (Claude Code's hooks keep their 600 s).
    pub outlasts_chain: bool,
}

impl BuiltHook {
    /// A built hook with no observer, no gate and the chain's deadline.
    pub fn new(hook: Arc<dyn Hook>) -> Self {
        BuiltHook { hook, observer: None, gate: None, outlasts_chain: false }
    }

    /// Also receives observer notifications.
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Runs only on contexts `gate` admits.
    pub fn with_gate(mut self, gate: Arc<dyn Gate>) -> Self {
        self.gate = Some(gate);
        self
    }

    /// Lets the hook's deadline stretch its chain's (see [`BuiltHook::outlasts_chain`]).
    pub fn outlasting_chain(mut self) -> Self {
        self.outlasts_chain = true;
        self
    }
}

/// Builds running hooks of one kind from their specs; hosts register one per kind
/// (`hook-bash`, `hook-llm`, `hook-process` each provide one).
///
/// The engine knows nothing of any kind: what differs between kinds (default deadline and
/// retry, which observer notifications a hook receives) it asks the kind's factory.
#[async_trait]
pub trait HookFactory: Send + Sync + fmt::Debug {
    /// The kind this factory builds (`bash`, `llm`, `process`, `builtin`).
    fn kind(&self) -> &str;

    /// Builds (and for process hooks, starts) the hook of `spec`. Called once per spec; the
    /// result serves every event of the spec.
    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError>;

    /// The deadline of a run on `event` when the configuration gives none; by default the
    /// engine's (`deadlines.for_event`).
    fn default_timeout(&self, event: Event, deadlines: &Deadlines) -> Duration {
        deadlines.for_event(event)
    }

    /// Extra attempts after a failure when the configuration gives none; by default 0.
    fn default_retry(&self) -> u32 {
        0
    }

    /// The observer notification kinds (`turn_start`, `*` for all) a hook built from `spec`
    /// receives when it built an observer; by default all.
    fn observed_kinds(&self, _spec: &HookSpec) -> Vec<String> {
        vec!["*".to_owned()]
    }
}

impl HookSpec {
    /// The deadline of one run on `event`: the configured `timeout`, else `factory`'s default
    /// for the event (the engine's when there is no factory).
    pub fn effective_timeout(&self, event: Event, factory: Option<&dyn HookFactory>) -> Duration {
        self.timeout.unwrap_or_else(|| match factory {
            Some(factory) => factory.default_timeout(event, &self.deadlines),
            None => self.deadlines.for_event(event),
        })
    }

    /// The failure policy on `event`: the configured `on_error`, else `deny` for approvals and
    /// `skip` (fail open) for everything else.
    pub fn effective_on_error(&self, event: Event) -> OnError {
        self.on_error.unwrap_or_else(|| default_on_error(event))
    }

    /// The sandbox the hook's processes run under: its own (or its level's default, which the
    /// loader filled in); a session-level hook (registered by the model) always runs confined,
    /// at least as [`SandboxPolicy::model_registered`], whatever its definition says.
    pub fn effective_sandbox(&self) -> Option<SandboxPolicy> {
        match &self.sandbox {
            _ if self.level == Level::Session => Some(SandboxPolicy::model_registered()),
            Some(policy) if policy.is_on() => Some(policy.clone()),
            _ => None,
        }
    }

    /// Extra attempts after a failure: the configured `retry`, else `factory`'s default.
    pub fn effective_retry(&self, factory: Option<&dyn HookFactory>) -> u32 {
        self.retry.unwrap_or_else(|| factory.map_or(0, |f| f.default_retry()))
    }
}

/// The default failure policy on `event`: approvals fail closed, everything else fails open.
pub fn default_on_error(event: Event) -> OnError {
    if event == Event::ApproveTool { OnError::Deny } else { OnError::Skip }
}

impl HookSpec {
    /// A spec that configures nothing beyond its definition: enabled, priority 0, no filter,
    /// no explicit timeout, retry or on_error, no extra environment, default deadlines, declared
    /// nowhere in particular. Set the other fields as needed.
    pub fn new(
        name: impl Into<String>,
        level: Level,
        kind: impl Into<Kind>,
        events: impl IntoIterator<Item = Event>,
        definition: HookDefinition,
    ) -> Self {
        HookSpec {
            name: name.into(),
            level,
            kind: kind.into(),
            events: events.into_iter().collect(),
            definition,
            dir: None,
            source: SourceLocation::default(),
            priority: 0,
            enabled: true,
            filter: HookFilter::default(),
            timeout: None,
            retry: None,
            on_error: None,
            env: BTreeMap::new(),
            respond_tools: Vec::new(),
            deadlines: Deadlines::default(),
            session: None,
            work_dir: None,
            trust: None,
            sandbox: None,
        }
    }
}
