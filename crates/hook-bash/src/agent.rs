//! `AgentCommandFactory` / `AgentCommandHook`: the `command` handlers of Claude Code, Gemini CLI
//! and Codex settings files, run the way those agents run them.
//!
//! What differs from a j-cli bash hook: the stdin is the agent's hook input (compact JSON and
//! one newline), the environment carries the agent's variables, the working directory is the
//! project, an `args` list runs the program without a shell, and the answer (exit code, stdout,
//! stderr) is read by [`hook_agents::read_command`] with the agent's own rules. The process
//! handling (own process group, concurrent stdin and capped output reads, group SIGKILL on the
//! deadline or on cancellation) is the bash hook's.

use std::{
    collections::BTreeMap,
    ffi::{OsStr, OsString},
    fmt, fs, io,
    path::{Path, PathBuf},
    process::Stdio,
    sync::{Arc, OnceLock, atomic::AtomicBool},
    time::Instant,
};

use async_trait::async_trait;
use hook_agents::{
    AgentGate, CommandRun, async_answer, copilot_input_line, input_line_of, read_command, spill::spill_long_texts,
};
use hook_core::{
    AgentHookDef, BuildError, BuiltHook, Context, Event, Hook, HookDefinition, HookError, HookFactory, HookInput,
    HookOutput, HookSpec, head_chars,
};
use hook_protocol::{Agent, config::SandboxPolicy};
use tokio::process::Command;

use crate::{
    limits::{LOG_HEAD_CHARS, fmt_bytes},
    process_group::{ProcessGroup, enlarge_stdin_pipe},
    run::{Abandoned, Stream, exchange, round_to_millis, shell},
};

/// Default stdout cap of an agent command hook: 4 MiB.
pub const DEFAULT_AGENT_MAX_STDOUT_BYTES: usize = 4 << 20;

/// Default stderr cap of an agent command hook: 1 MiB.
pub const DEFAULT_AGENT_MAX_STDERR_BYTES: usize = 1 << 20;

/// Where and how agent command hooks run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCommandOptions {
    /// The project directory: the hooks' working directory and `CLAUDE_PROJECT_DIR`. `None`: the
    /// `cwd` of each event's context, else this process's working directory.
    pub project_dir: Option<PathBuf>,
    /// Where `CLAUDE_ENV_FILE` files, plugin data directories and spilled long answers go.
    /// `None`: a private (`0700`) directory, `$XDG_RUNTIME_DIR/hookwire` when that is set, else
    /// `hookwire-<uid>` in the system's temporary directory; when another user holds that name
    /// (their directory, or a symbolic link), `$XDG_STATE_HOME/hookwire/run` (default
    /// `~/.local/state/hookwire/run`).
    pub state_dir: Option<PathBuf>,
    /// More stdout than this stops the hook and fails the run (default 4 MiB).
    pub max_stdout_bytes: usize,
    /// More stderr than this stops the hook and fails the run (default 1 MiB).
    pub max_stderr_bytes: usize,
}

impl Default for AgentCommandOptions {
    fn default() -> Self {
        AgentCommandOptions {
            project_dir: None,
            state_dir: None,
            max_stdout_bytes: DEFAULT_AGENT_MAX_STDOUT_BYTES,
            max_stderr_bytes: DEFAULT_AGENT_MAX_STDERR_BYTES,
        }
    }
}

/// What every hook of one factory shares: the options and the state directory.
#[derive(Debug)]
struct Shared {
    options: AgentCommandOptions,
    state_dir: PathBuf,
    /// The state directory was chosen by hookwire (in a shared place such as `/tmp`), so an
    /// existing one is only used when it is this user's and private.
    is_default_state_dir: bool,
}

impl Shared {
    fn new(options: AgentCommandOptions) -> Self {
        let (state_dir, is_default_state_dir) = match &options.state_dir {
            Some(dir) => (dir.clone(), false),
            None => default_state_dir(),
        };
        Shared { options, state_dir, is_default_state_dir }
    }

    /// `<state_dir>/<parts...>`, created private when missing.
    fn subdir(&self, parts: &[&str]) -> io::Result<PathBuf> {
        self.ensure_state_dir()?;
        let mut dir = self.state_dir.clone();
        dir.extend(parts);
        create_private_dir_all(&dir)?;
        Ok(dir)
    }

    fn ensure_state_dir(&self) -> io::Result<()> {
        if !self.is_default_state_dir {
            return create_private_dir_all(&self.state_dir);
        }
        match create_private_dir(&self.state_dir) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => check_own_private_dir(&self.state_dir),
            Err(error) => Err(error),
        }
    }
}

/// Builds [`AgentCommandHook`]s for the `command` handlers of Claude Code, Gemini CLI and Codex
/// settings files (specs of kind `command` with a [`HookDefinition::Agent`] definition).
///
/// Each built hook carries the handler's matcher and `if` rule as its gate, and its deadline
/// (the spec's `timeout`, which the loader sets from the handler or the agent's default) may
/// stretch the chain's: Claude Code's hooks keep their 600 s.
#[derive(Debug, Clone)]
pub struct AgentCommandFactory {
    shared: Arc<Shared>,
}

impl Default for AgentCommandFactory {
    fn default() -> Self {
        AgentCommandFactory::new(AgentCommandOptions::default())
    }
}

impl AgentCommandFactory {
    /// A factory whose hooks run with `options`.
    pub fn new(options: AgentCommandOptions) -> Self {
        AgentCommandFactory { shared: Arc::new(Shared::new(options)) }
    }

    /// The options its hooks run with.
    pub fn options(&self) -> &AgentCommandOptions {
        &self.shared.options
    }

    /// The state directory (the configured one, or the default); created on first use.
    pub fn state_dir(&self) -> &Path {
        &self.shared.state_dir
    }

    /// The hook of `spec`, without the gate and the async trait machinery.
    pub fn build_hook(&self, spec: &HookSpec) -> Result<AgentCommandHook, BuildError> {
        self.prepare(spec).map(|(hook, _)| hook)
    }

    fn prepare(&self, spec: &HookSpec) -> Result<(AgentCommandHook, AgentGate), BuildError> {
        let at = if spec.source.file.as_os_str().is_empty() {
            format!("hook `{}`", spec.name)
        } else {
            format!("hook `{}` ({})", spec.name, spec.source)
        };
        let invalid = |message: String| BuildError::Invalid { message };
        let HookDefinition::Agent(def) = &spec.definition else {
            return Err(invalid(format!(
                "{at} is not a handler of a Claude Code, Gemini CLI or Codex settings file; \
                 `command` hooks come from those files"
            )));
        };
        if def.handler.kind != "command" {
            return Err(invalid(format!(
                "{at} is a `{}` handler, not a `command` one; register it with the factory for `{}`",
                def.handler.kind, def.handler.kind
            )));
        }
        let Some(command) = def.handler.command.as_deref().filter(|c| !c.trim().is_empty()) else {
            return Err(invalid(format!("{at} has no `command`; a `command` handler needs `\"command\": \"...\"`")));
        };
        let Some(&event) = spec.events.first() else {
            return Err(invalid(format!("{at} is on no event")));
        };
        let gate = AgentGate::compile(def, event).map_err(|error| invalid(format!("{at}: {error}")))?;
        let mut env = spec.env.clone();
        if let Some(own) = &def.handler.env {
            env.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let hook_dir = spec.source.file.parent().filter(|dir| !dir.as_os_str().is_empty()).map(Path::to_path_buf);
        let hook = AgentCommandHook {
            hook_dir,
            name: spec.name.clone(),
            def: (**def).clone(),
            command: command.to_owned(),
            env,
            work_dir: spec.work_dir.clone(),
            shared: Arc::clone(&self.shared),
            sandbox: spec.effective_sandbox(),
            sandbox_warned: AtomicBool::new(false),
        };
        Ok((hook, gate))
    }
}

#[async_trait]
impl HookFactory for AgentCommandFactory {
    fn kind(&self) -> &str {
        "command"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let (hook, gate) = self.prepare(spec)?;
        Ok(BuiltHook::new(Arc::new(hook)).with_gate(Arc::new(gate)).outlasting_chain())
    }
}

/// One `command` handler of an agent's settings file.
///
/// Each run writes the agent's hook input to the command's stdin (compact JSON, one newline),
/// runs it in the project directory in its own process group (`sh -c <command>`, or the program
/// with `args` and no shell), and reads its exit code, stdout and stderr as the agent does.
/// The deadline (`HookInput::deadline`) covers everything; when it passes, or when the future
/// returned by `call` is dropped, the whole process group is killed with SIGKILL.
pub struct AgentCommandHook {
    /// The directory of the file that defines it (Copilot CLI's `COPILOT_HOOK_DIR`).
    hook_dir: Option<PathBuf>,
    name: String,
    def: AgentHookDef,
    command: String,
    /// The spec's `env`, then the handler's own (Gemini CLI).
    env: BTreeMap<String, String>,
    /// Where its project's hooks run (the project root of a project-level file): what trust
    /// hashed the scripts against.
    work_dir: Option<PathBuf>,
    shared: Arc<Shared>,
    /// The sandbox its processes run under (docs/sandbox.md).
    sandbox: Option<SandboxPolicy>,
    /// Whether the sandbox's shortfall (best-effort on an older kernel) was logged.
    sandbox_warned: AtomicBool,
}

impl fmt::Debug for AgentCommandHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentCommandHook")
            .field("name", &self.name)
            .field("agent", &self.def.agent)
            .field("event", &self.def.event_name)
            .field("command", &self.command)
            .field("args", &self.def.handler.args)
            .finish_non_exhaustive()
    }
}

/// The places one run uses.
#[derive(Debug)]
struct Places {
    /// `CLAUDE_PROJECT_DIR`.
    project_dir: PathBuf,
    /// The `cwd` of the hook input (`GEMINI_CWD`).
    input_cwd: String,
    /// The child's working directory (`None`: this process's).
    work_dir: Option<PathBuf>,
    /// The plugin's root and data directories (plugin hooks).
    plugin: Option<(PathBuf, PathBuf)>,
    /// `CLAUDE_ENV_FILE` (session-start family).
    env_file: Option<PathBuf>,
}

impl AgentCommandHook {
    /// The hook's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whose contract the handler is written for.
    pub fn agent(&self) -> Agent {
        self.def.agent
    }

    /// The command: a shell command, or the program when [`AgentCommandHook::args`] is set.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The exec form's arguments (`None`: the command runs with `sh -c`).
    pub fn args(&self) -> Option<&[String]> {
        self.def.handler.args.as_deref()
    }

    /// `hook `x` (Claude Code PreToolUse)`, for messages.
    fn who(&self) -> String {
        format!("hook `{}` ({} {})", self.name, self.def.agent.display_name(), self.def.event_name)
    }

    fn places(&self, event: Event, context: &Context) -> Result<Places, HookError> {
        let session_cwd = context.cwd.as_deref().filter(|cwd| !cwd.is_empty()).map(PathBuf::from);
        let process_cwd = std::env::current_dir().ok();
        let project_dir = self
            .work_dir
            .clone()
            .or_else(|| self.shared.options.project_dir.clone())
            .or_else(|| session_cwd.clone())
            .or_else(|| process_cwd.clone())
            .unwrap_or_else(|| PathBuf::from("."));
        let input_cwd = session_cwd.or(process_cwd).map(|dir| dir.display().to_string()).unwrap_or_default();
        // Copilot CLI runs an entry with a `cwd` there, relative to the project.
        let own_dir = match (self.def.agent, self.def.handler.cwd.as_deref().filter(|d| !d.is_empty())) {
            (Agent::Copilot, Some(dir)) => Some(project_dir.join(dir)),
            _ => None,
        };
        // Claude Code runs a hook whose directory is gone from the home directory.
        let work_dir = if let Some(dir) = own_dir {
            Some(dir)
        } else if project_dir.is_dir() {
            Some(project_dir.clone())
        } else {
            let home = std::env::var_os("HOME").map(PathBuf::from).filter(|home| home.is_dir());
            tracing::debug!(hook = %self.name, dir = %project_dir.display(), "the project directory is missing; running from HOME");
            home
        };
        let unavailable = |what: &str, error: io::Error| HookError::Unavailable {
            message: format!("{}: {what}: {error}", self.who()),
        };
        let plugin = match &self.def.plugin_root {
            Some(root) => {
                let data = self
                    .shared
                    .subdir(&["plugin-data", &plugin_dir_name(root)])
                    .map_err(|error| unavailable("could not create the plugin's data directory", error))?;
                Some((root.clone(), data))
            }
            None => None,
        };
        let env_file = if is_session_start_family(event) && self.def.agent != Agent::Copilot {
            Some(self.env_file(context).map_err(|error| unavailable("could not create CLAUDE_ENV_FILE", error))?)
        } else {
            None
        };
        Ok(Places { project_dir, input_cwd, work_dir, plugin, env_file })
    }

    /// The `CLAUDE_ENV_FILE` of this session, existing: the agent's own when it set one, else
    /// `<state_dir>/env/<session>.sh`.
    fn env_file(&self, context: &Context) -> io::Result<PathBuf> {
        if let Some(inherited) = std::env::var_os("CLAUDE_ENV_FILE").filter(|value| !value.is_empty()) {
            let path = PathBuf::from(inherited);
            ensure_file(&path)?;
            return Ok(path);
        }
        let dir = self.shared.subdir(&["env"])?;
        let path = dir.join(format!("{}.sh", session_file_stem(context.session_id.as_deref())));
        ensure_file(&path)?;
        Ok(path)
    }

    /// The placeholders substituted into the command (and `args`) of this run.
    fn placeholders<'a>(&self, places: &'a Places, session_id: &'a str) -> Vec<Placeholder<'a>> {
        let project = places.project_dir.to_str().unwrap_or_default();
        let mut vars = Vec::new();
        if self.def.agent == Agent::Gemini {
            // Gemini CLI substitutes these into the command string itself.
            vars.push(Placeholder { name: "GEMINI_PROJECT_DIR", value: project, is_bare: true });
            vars.push(Placeholder { name: "GEMINI_CWD", value: &places.input_cwd, is_bare: true });
            vars.push(Placeholder { name: "GEMINI_SESSION_ID", value: session_id, is_bare: true });
            vars.push(Placeholder { name: "CLAUDE_PROJECT_DIR", value: project, is_bare: true });
        } else if self.def.handler.args.is_some() {
            vars.push(Placeholder { name: "CLAUDE_PROJECT_DIR", value: project, is_bare: false });
        }
        if self.def.handler.args.is_some()
            && let Some((root, data)) = &places.plugin
        {
            vars.push(Placeholder {
                name: "CLAUDE_PLUGIN_ROOT",
                value: root.to_str().unwrap_or_default(),
                is_bare: false,
            });
            vars.push(Placeholder {
                name: "CLAUDE_PLUGIN_DATA",
                value: data.to_str().unwrap_or_default(),
                is_bare: false,
            });
        }
        vars
    }

    fn command_for(&self, event: Event, context: &Context, places: &Places) -> Command {
        let session_id = context.session_id.as_deref().unwrap_or_default();
        let vars = self.placeholders(places, session_id);
        let mut command = match &self.def.handler.args {
            Some(args) => {
                let mut command = Command::new(substitute(&self.command, &vars, false));
                command.args(args.iter().map(|arg| substitute(arg, &vars, false)));
                command
            }
            None if self.def.agent == Agent::Copilot => {
                // As Copilot CLI runs it: bash without its startup files.
                let mut command = Command::new(COPILOT_BASH);
                command.args(["--norc", "--noprofile", "-c"]).arg(&self.command);
                command
            }
            None => {
                let mut command = Command::new(agent_shell(self.def.agent));
                // Claude Code and Codex pass the command verbatim; Gemini CLI substitutes its
                // variables, shell-quoted, after an extension's own (`${extensionPath}`, `${/}`),
                // which it writes in as they are when it loads the extension.
                let text = match (&places.plugin, self.def.agent) {
                    (Some((root, _)), Agent::Gemini) => {
                        let root = root.to_str().unwrap_or_default();
                        let project = places.project_dir.to_str().unwrap_or_default();
                        substitute(&self.command, &gemini_extension_vars(root, project), false)
                    }
                    _ => self.command.clone(),
                };
                command.arg("-c").arg(substitute(&text, &vars, true));
                command
            }
        };
        command.process_group(0).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(dir) = &places.work_dir {
            command.current_dir(dir);
        }
        self.apply_env(&mut command, event, context, places);
        command
    }

    fn apply_env(&self, command: &mut Command, event: Event, context: &Context, places: &Places) {
        for (key, _) in std::env::vars_os() {
            if key.as_encoded_bytes().starts_with(b"OTEL_") {
                command.env_remove(&key);
            }
        }
        let agent = self.def.agent;
        let session_id = context.session_id.as_deref().unwrap_or_default();
        command.env("CLAUDE_PROJECT_DIR", &places.project_dir);
        match agent {
            Agent::Claude => {
                command.env("CLAUDECODE", "1");
                if !session_id.is_empty() {
                    command.env("CLAUDE_CODE_SESSION_ID", session_id);
                }
            }
            Agent::Gemini => {
                command.env("GEMINI_PROJECT_DIR", &places.project_dir);
                command.env("GEMINI_CWD", &places.input_cwd);
                command.env("GEMINI_SESSION_ID", session_id);
            }
            Agent::Codex => {}
            Agent::Copilot => {
                command.env("COPILOT_PROJECT_DIR", &places.project_dir);
                command.env("COPILOT_CLI", "1");
                if let Some(dir) = &self.hook_dir {
                    command.env("COPILOT_HOOK_DIR", dir);
                }
            }
        }
        if let Some((root, data)) = &places.plugin {
            command.env("CLAUDE_PLUGIN_ROOT", root);
            command.env("CLAUDE_PLUGIN_DATA", data);
            if agent == Agent::Codex {
                command.env("PLUGIN_ROOT", root);
                command.env("PLUGIN_DATA", data);
            }
        }
        if let Some(file) = &places.env_file {
            command.env("CLAUDE_ENV_FILE", file);
        }
        command.envs(&self.env);
        // After the hook's `env`: a hook that runs `hookwire hook` again is counted (lib docs).
        command.env(crate::HOOK_DEPTH_ENV, crate::child_hook_depth());
        tracing::trace!(hook = %self.name, event = %event, "agent command environment set");
    }

    /// Applies the hook's sandbox: the places this run writes (the plugin's data directory,
    /// `CLAUDE_ENV_FILE`) are added to what it may write.
    fn confine(&self, command: &mut Command, places: &Places) -> Result<(), HookError> {
        let Some(policy) = &self.sandbox else { return Ok(()) };
        let mut policy = policy.clone();
        let own = places.plugin.iter().map(|(_, data)| data).chain(&places.env_file);
        policy.write.extend(own.map(|path| path.display().to_string()));
        let program = match &self.def.handler.args {
            Some(_) => PathBuf::from(substitute(&self.command, &self.placeholders(places, ""), false)),
            None if self.def.agent == Agent::Copilot => PathBuf::from(COPILOT_BASH),
            None => PathBuf::from(agent_shell(self.def.agent)),
        };
        let project = places.work_dir.as_deref();
        crate::sandbox::apply(command, Some(&policy), &self.name, project, &program, &self.sandbox_warned).map_err(
            |message| HookError::SpawnFailed {
                command: head_chars(&self.command, 200),
                message: format!("{}: {message}", self.who()),
            },
        )
    }

    fn spawn_failed(&self, error: &io::Error, places: &Places) -> HookError {
        let who = self.who();
        match &self.def.handler.args {
            Some(_) => {
                let program = substitute(&self.command, &self.placeholders(places, ""), false);
                let message = match error.kind() {
                    io::ErrorKind::NotFound => format!(
                        "{who}: the program `{program}` was not found (exec-form hooks, with `args`, run the \
                         program directly, looked up on PATH, without a shell): {error}"
                    ),
                    io::ErrorKind::PermissionDenied => {
                        format!("{who}: the program `{program}` could not be executed (is it executable?): {error}")
                    }
                    _ => format!("{who}: could not start the program `{program}`: {error}"),
                };
                HookError::SpawnFailed { command: head_chars(&program, 200), message }
            }
            None => HookError::SpawnFailed {
                command: head_chars(&self.command, 200),
                message: format!("{who}: could not start `{}`: {error}", agent_shell(self.def.agent).to_string_lossy()),
            },
        }
    }

    fn abandoned(&self, abandoned: Abandoned) -> HookError {
        match abandoned {
            Abandoned::OverCap { stream, head } => {
                let cap = if stream == Stream::Stdout {
                    self.shared.options.max_stdout_bytes
                } else {
                    self.shared.options.max_stderr_bytes
                };
                let head = String::from_utf8_lossy(&head[..head.len().min(1024)]);
                HookError::invalid_output(
                    format!(
                        "{} printed more than {} on {} and was stopped; print less, or raise the cap \
                         (`AgentCommandOptions::max_{}_bytes`)",
                        self.who(),
                        fmt_bytes(cap),
                        stream.as_str(),
                        stream.as_str(),
                    ),
                    &head,
                )
            }
            Abandoned::Io { what, error } => {
                HookError::Unavailable { message: format!("{}: {what} failed: {error}", self.who()) }
            }
        }
    }

    /// Spills long texts of `output` into the state directory.
    fn spill(&self, output: &mut HookOutput) {
        let is_long =
            |text: &Option<String>| text.as_ref().is_some_and(|t| t.len() > hook_agents::spill::SPILL_THRESHOLD_CHARS);
        if ![&output.additional_context, &output.system_message, &output.reason, &output.retry_feedback]
            .into_iter()
            .any(is_long)
        {
            return;
        }
        match self.shared.subdir(&["outputs"]) {
            Ok(dir) => spill_long_texts(output, &dir, &self.name),
            Err(error) => tracing::warn!(
                hook = %self.name,
                dir = %self.shared.state_dir.display(),
                %error,
                "the state directory is unusable; long texts of the answer are kept whole"
            ),
        }
    }
}

#[async_trait]
impl Hook for AgentCommandHook {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let started = Instant::now();
        let budget = round_to_millis(input.deadline.saturating_duration_since(started));
        if budget.is_zero() {
            return Err(HookError::Timeout { after: budget });
        }
        let (event, context, agent) = (input.event, input.context, self.def.agent);
        let payload = if agent == Agent::Copilot {
            let event_name = self.def.event_name.as_str();
            let is_pascal = event_name.starts_with(|c: char| c.is_ascii_uppercase());
            let key = if is_pascal { "agent.command_stdin.copilot_pascal" } else { "agent.command_stdin.copilot" };
            input.serialized(key, move |event, context| copilot_input_line(event_name, event, context))
        } else {
            input.serialized(stdin_key(agent), move |event, context| input_line_of(agent, event, context))
        };
        let places = self.places(event, context)?;

        let mut command = self.command_for(event, context, &places);
        self.confine(&mut command, &places)?;
        let mut child = command.spawn().map_err(|error| self.spawn_failed(&error, &places))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            drop(ProcessGroup::new(child));
            return Err(HookError::Unavailable { message: format!("{}: its pipes were not created", self.who()) });
        };
        // From here on every way out (an error, the deadline, the caller dropping the future)
        // kills the group, unless the run finished and `disarm` was called.
        let mut group = ProcessGroup::new(child);
        enlarge_stdin_pipe(&stdin, payload.len());
        let limits = (self.shared.options.max_stdout_bytes, self.shared.options.max_stderr_bytes);
        let run = exchange(group.child(), stdin, stdout, stderr, payload, limits);
        let finished = match tokio::time::timeout_at(input.deadline.into(), run).await {
            Err(_elapsed) => {
                tracing::debug!(hook = %self.name, event = %event, after = ?budget, "agent command hook timed out; killing its process group");
                return Err(HookError::Timeout { after: budget });
            }
            Ok(Err(abandoned)) => return Err(self.abandoned(abandoned)),
            Ok(Ok(finished)) => finished,
        };
        group.disarm();

        let stdout = String::from_utf8_lossy(&finished.stdout);
        let stderr = String::from_utf8_lossy(&finished.stderr);
        tracing::debug!(
            hook = %self.name,
            event = %event,
            status = %finished.status,
            elapsed = ?started.elapsed(),
            stdout = %head_chars(&stdout, LOG_HEAD_CHARS),
            stderr = %head_chars(&stderr, LOG_HEAD_CHARS),
            "agent command hook finished"
        );
        let run = CommandRun { exit_code: finished.status.code(), stdout: &stdout, stderr: &stderr };
        let mut output = read_command(agent, event, run, context)?;
        if self.def.handler.runs_async() {
            // The agent does not wait for an async handler: its answer decides nothing.
            output = async_answer(output);
        }
        self.spill(&mut output);
        Ok(output)
    }
}

/// The serialization cache key of each agent's stdin line.
fn stdin_key(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "agent.command_stdin.claude",
        Agent::Gemini => "agent.command_stdin.gemini",
        Agent::Codex => "agent.command_stdin.codex",
        Agent::Copilot => "agent.command_stdin.copilot",
    }
}

/// The shell Copilot CLI runs a hook's `bash` command with (`--norc --noprofile -c`).
const COPILOT_BASH: &str = "/bin/bash";

/// Events whose hooks get a `CLAUDE_ENV_FILE`.
fn is_session_start_family(event: Event) -> bool {
    matches!(event, Event::SessionStart | Event::Setup | Event::CwdChanged | Event::FileChanged)
}

/// A variable substituted textually into a command or an argument: `${NAME}`, and `$NAME`
/// too when `is_bare`.
#[derive(Debug, Clone, Copy)]
struct Placeholder<'a> {
    name: &'static str,
    value: &'a str,
    is_bare: bool,
}

/// The variables Gemini CLI writes into the hooks of an extension (`<extension>/hooks/hooks.json`)
/// when it loads it: `${extensionPath}` (the extension's directory), `${workspacePath}` (the
/// project) and the path separator `${/}` (also `${pathSeparator}`), all as they are, unquoted.
fn gemini_extension_vars<'a>(root: &'a str, project: &'a str) -> [Placeholder<'a>; 4] {
    [
        Placeholder { name: "extensionPath", value: root, is_bare: false },
        Placeholder { name: "workspacePath", value: project, is_bare: false },
        Placeholder { name: "/", value: "/", is_bare: false },
        Placeholder { name: "pathSeparator", value: "/", is_bare: false },
    ]
}

/// `text` with its placeholders replaced (shell-quoted when `quote`); any other `$` stays.
fn substitute(text: &str, vars: &[Placeholder<'_>], quote: bool) -> String {
    if vars.is_empty() || !text.contains('$') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let found = vars.iter().find_map(|var| {
            let braced =
                after.strip_prefix('{').and_then(|t| t.strip_prefix(var.name)).and_then(|t| t.strip_prefix('}'));
            let bare = || {
                after
                    .strip_prefix(var.name)
                    .filter(|tail| !tail.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
            };
            braced.or_else(|| if var.is_bare { bare() } else { None }).map(|tail| (var.value, tail))
        });
        match found {
            Some((value, tail)) => {
                if quote {
                    out.push_str(&shell_quote(value));
                } else {
                    out.push_str(value);
                }
                rest = tail;
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `value` as one shell word: as it is when it holds only safe characters, else single-quoted.
fn shell_quote(value: &str) -> String {
    let is_safe = |c: char| c.is_ascii_alphanumeric() || "_-./,:@%+=".contains(c);
    if !value.is_empty() && value.chars().all(is_safe) {
        return value.to_owned();
    }
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// The shell that runs a shell-form command (`<shell> -c COMMAND`) of `agent`, as that agent
/// picks it: Claude Code `/bin/sh`; Gemini CLI `bash` (so `[[ ]]`, arrays and `source` in a
/// Gemini command work where `/bin/sh` is dash); Codex the user's `$SHELL` (Codex runs
/// `$SHELL -lc`; the login environment is already this process's, inherited from the agent, so
/// the profile is not read a second time). Either falls back to `/bin/sh` when its shell is
/// missing.
fn agent_shell(agent: Agent) -> &'static OsStr {
    static BASH: OnceLock<Option<OsString>> = OnceLock::new();
    static USER_SHELL: OnceLock<Option<OsString>> = OnceLock::new();
    let found = match agent {
        Agent::Claude => None,
        Agent::Gemini => BASH
            .get_or_init(|| {
                let path = std::env::var_os("PATH")?;
                std::env::split_paths(&path)
                    .map(|dir| dir.join("bash"))
                    .find(|bash| is_executable(bash))
                    .map(Into::into)
            })
            .as_deref(),
        Agent::Codex => USER_SHELL
            .get_or_init(|| {
                let shell = PathBuf::from(std::env::var_os("SHELL")?);
                (shell.is_absolute() && is_executable(&shell)).then(|| shell.into_os_string())
            })
            .as_deref(),
        Agent::Copilot => Some(OsStr::new(COPILOT_BASH)),
    };
    found.unwrap_or_else(shell)
}

/// Whether `path` is a file this process may execute.
fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The session id as a file name (letters, digits, `.`, `_`, `-`; `session` when there is none).
fn session_file_stem(session_id: Option<&str>) -> String {
    let stem: String = session_id
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
        .take(128)
        .collect();
    let stem = stem.trim_start_matches('.');
    if stem.is_empty() { "session".to_owned() } else { stem.to_owned() }
}

/// A plugin's data directory name: its root's last component and a hash of the whole path.
fn plugin_dir_name(root: &Path) -> String {
    let base = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let base = session_file_stem(Some(&base));
    // FNV-1a: stable across runs and builds, so a plugin finds its data again.
    let hash =
        root.as_os_str().as_encoded_bytes().iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    let base = if base == "session" { "plugin".to_owned() } else { base };
    format!("{base}-{:08x}", hash & 0xffff_ffff)
}

/// The default state directory, and whether it lies in a place other users share (so that an
/// existing one is used only once checked to be this user's and private).
///
/// `$XDG_RUNTIME_DIR/hookwire`, else `hookwire-<uid>` in the temporary directory. Another local
/// user can create that name first (a directory of theirs, or a symbolic link): then the state
/// goes to `$XDG_STATE_HOME/hookwire/run` (default `~/.local/state/hookwire/run`), a stable
/// place of this user's own, so the hooks of every hookwire process still find the same
/// directory, and a warning names the directory that was refused.
fn default_state_dir() -> (PathBuf, bool) {
    let shared = shared_state_dir();
    if shared_dir_is_taken(&shared) {
        let home = std::env::var_os("XDG_STATE_HOME")
            .filter(|v| !v.is_empty())
            .map(|state| PathBuf::from(state).join("hookwire/run"))
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".local/state/hookwire/run"))
            })
            .filter(|dir| dir.is_absolute());
        if let Some(home) = home {
            tracing::warn!(
                refused = %shared.display(),
                using = %home.display(),
                "the state directory in the temporary directory is not a private directory of this user \
                 (another user may have created it); remove it, or set XDG_RUNTIME_DIR"
            );
            return (home, false);
        }
    }
    (shared, true)
}

/// Whether `dir` exists but cannot be this user's private directory: a symbolic link, not a
/// directory, or another user's.
fn shared_dir_is_taken(dir: &Path) -> bool {
    let Ok(meta) = fs::symlink_metadata(dir) else { return false };
    if !meta.is_dir() {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        own_uid().is_some_and(|uid| meta.uid() != uid)
    }
    #[cfg(not(unix))]
    false
}

/// The default state directory in a place other users share.
fn shared_state_dir() -> PathBuf {
    if let Some(runtime) =
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_absolute() && d.is_dir())
    {
        return runtime.join("hookwire");
    }
    let user = match own_uid() {
        Some(uid) => uid.to_string(),
        None => match session_file_stem(std::env::var("USER").ok().as_deref()) {
            stem if stem == "session" => "user".to_owned(),
            stem => stem,
        },
    };
    std::env::temp_dir().join(format!("hookwire-{user}"))
}

/// This process's user id, from the owner of `/proc/self` (Linux); `None` elsewhere.
fn own_uid() -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::metadata("/proc/self").ok().map(|meta| meta.uid())
    }
    #[cfg(not(unix))]
    None
}

/// Creates `dir` (not its parents) as `0700`.
fn create_private_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new().mode(0o700).create(dir)
    }
    #[cfg(not(unix))]
    fs::create_dir(dir)
}

/// Creates `dir` and its missing parents as `0700`.
fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }
    #[cfg(not(unix))]
    fs::create_dir_all(dir)
}

/// An existing default state directory is used only when it is a real directory of this user,
/// closed to others (an open one of this user's is closed).
fn check_own_private_dir(dir: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(dir)?;
    let remedy = "remove it, or set XDG_RUNTIME_DIR to a private directory of yours";
    if meta.file_type().is_symlink() {
        return Err(io::Error::other(format!("`{}` is a symbolic link, not a directory; {remedy}", dir.display())));
    }
    if !meta.is_dir() {
        return Err(io::Error::other(format!("`{}` exists and is not a directory; {remedy}", dir.display())));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if let Some(uid) = own_uid()
            && meta.uid() != uid
        {
            return Err(io::Error::other(format!(
                "`{}` belongs to another user (uid {}); {remedy}",
                dir.display(),
                meta.uid()
            )));
        }
        if meta.mode() & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(())
}

/// Makes sure `path` exists as a file (creating it empty, `0600`, and its directory); never
/// truncates it.
fn ensure_file(path: &Path) -> io::Result<()> {
    let open = || {
        let mut options = fs::OpenOptions::new();
        options.append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        options.open(path).map(drop)
    };
    match open() {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                create_private_dir_all(parent)?;
            }
            open()
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &[(&'static str, &'a str, bool)]) -> Vec<Placeholder<'a>> {
        pairs.iter().map(|&(name, value, is_bare)| Placeholder { name, value, is_bare }).collect()
    }

    #[test]
    fn substitutes_only_the_named_placeholders() {
        let v = vars(&[("CLAUDE_PROJECT_DIR", "/p q", false)]);
        assert_eq!(substitute("${CLAUDE_PROJECT_DIR}/x", &v, false), "/p q/x");
        assert_eq!(substitute("$CLAUDE_PROJECT_DIR/x", &v, false), "$CLAUDE_PROJECT_DIR/x", "bare form off");
        assert_eq!(substitute("${CLAUDE_PROJECT_DIRX} $ $$ ${HOME}", &v, false), "${CLAUDE_PROJECT_DIRX} $ $$ ${HOME}");
        let v = vars(&[("GEMINI_CWD", "/a b", true), ("GEMINI_SESSION_ID", "s1", true)]);
        assert_eq!(substitute("cd $GEMINI_CWD && echo $GEMINI_SESSION_ID", &v, true), "cd '/a b' && echo s1");
        assert_eq!(substitute("$GEMINI_CWDX ${GEMINI_CWD}", &v, true), "$GEMINI_CWDX '/a b'");
        assert_eq!(substitute("é$GEMINI_SESSION_ID€", &v, false), "és1€");
        let v = gemini_extension_vars("/ext/my ext", "/p");
        assert_eq!(
            substitute(
                r#"python3 "${extensionPath}${/}hooks${/}x.py" ${workspacePath}${pathSeparator}a $extensionPath"#,
                &v,
                false
            ),
            r#"python3 "/ext/my ext/hooks/x.py" /p/a $extensionPath"#,
            "braced only, as they are"
        );
    }

    #[test]
    fn quotes_for_the_shell() {
        assert_eq!(shell_quote("/home/u/proj-1"), "/home/u/proj-1");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(session_file_stem(None), "session");
        assert_eq!(session_file_stem(Some("../../etc/passwd")), "_.._etc_passwd");
        assert_eq!(session_file_stem(Some("abc-123")), "abc-123");
        let a = plugin_dir_name(Path::new("/x/plugins/fmt"));
        let b = plugin_dir_name(Path::new("/y/plugins/fmt"));
        assert!(a.starts_with("fmt-") && b.starts_with("fmt-") && a != b, "{a} {b}");
        assert_eq!(a, plugin_dir_name(Path::new("/x/plugins/fmt")));
        assert!(plugin_dir_name(Path::new("/")).starts_with("plugin-"));
    }
}
