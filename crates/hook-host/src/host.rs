//! [`Host`]: an engine with the built-in executors, fed from the discovered configuration and
//! kept in step with its files.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use hook_config::{ConfigSource, Untrusted};
use hook_core::{Context, Engine, Event, FireOutcome, HookSpec};
use hook_llm::ChatModel;
use hook_protocol::Agent;
#[cfg(feature = "decision-store")]
use hook_store::{FireRecord, FlushReport, Origin, Recorder, StoreConfig};

use crate::{
    discover::{Locations, absolute},
    factories::{engine_with_factories, lazy_model, remount},
    load::{Loaded, Scope, TrustPolicy, load_scoped, missing_configs},
    watch::{Stamp, extra_paths, stamps},
};

/// Sets up a [`Host`]; every option has a default taken from the process's environment, as
/// the `hookwire` command does.
#[derive(Debug, Default)]
pub struct HostBuilder {
    project_dir: Option<PathBuf>,
    locations: Option<Locations>,
    trust: Option<TrustPolicy>,
    model: Option<Arc<dyn ChatModel>>,
    configs: Vec<PathBuf>,
    sources: Vec<ConfigSource>,
    agent_settings: Vec<(Agent, PathBuf)>,
    no_default_config: bool,
    skip_agent: Option<Agent>,
    command_project_dir: Option<Option<PathBuf>>,
    #[cfg(feature = "decision-store")]
    decisions: Option<StoreConfig>,
}

impl HostBuilder {
    /// Where discovery starts: the project is the nearest directory at or above it with
    /// `.hookwire/`, `.jcli/` or an agent's settings file. Relative configuration paths are
    /// taken from it too. Default: the current directory.
    pub fn project_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.project_dir = Some(dir.into());
        self
    }

    /// hookwire's user configuration directory (user hook files, and `trust.json` unless
    /// [`HostBuilder::trust`] says otherwise). Default: `$XDG_CONFIG_HOME/hookwire`, else
    /// `~/.config/hookwire`.
    pub fn user_config_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.locations.get_or_insert_with(Locations::from_env).user_config_dir = Some(dir.into());
        self
    }

    /// The home directory whose j-cli (`~/.jdata/agent/`) and agent (`~/.claude/...`) files
    /// are user configuration. Default: `$HOME`.
    pub fn home_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.locations.get_or_insert_with(Locations::from_env).home = Some(dir.into());
        self
    }

    /// Both discovery locations at once (see [`Locations`]); `Locations::default()` reads no
    /// user configuration at all.
    pub fn locations(mut self, locations: Locations) -> Self {
        self.locations = Some(locations);
        self
    }

    /// Which project hooks may run. Default: [`TrustPolicy::Store`] with `trust.json` of the
    /// user configuration directory (the records `hookwire trust` writes), or
    /// [`TrustPolicy::Untrusted`] when there is no such directory.
    pub fn trust(mut self, trust: TrustPolicy) -> Self {
        self.trust = Some(trust);
        self
    }

    /// The chat model llm (j-cli) and prompt (Claude Code) hooks ask. Default: an
    /// OpenAI-compatible client from `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `HOOKWIRE_MODEL`,
    /// built on first use.
    pub fn chat_model(mut self, model: Arc<dyn ChatModel>) -> Self {
        self.model = Some(model);
        self
    }

    /// Also load this hook file (any dialect: j-cli YAML, a hooks directory, a PicoClaw
    /// config) at user level, trusted because the host named it. A path that does not exist
    /// is a configuration error (`--config <path>: no such file or directory`), never "no
    /// hooks". Repeatable.
    pub fn extra_config(mut self, path: impl Into<PathBuf>) -> Self {
        self.configs.push(path.into());
        self
    }

    /// Also load `source` at the level it names (e.g. [`hook_core::Level::Session`] for a
    /// session's own hooks); a source that does not exist is skipped. Repeatable.
    pub fn source(mut self, source: ConfigSource) -> Self {
        self.sources.push(source);
        self
    }

    /// Also load a settings file of `agent` (its `hooks` section) at user level; a file that
    /// does not exist keeps the whole configuration from loading (`--settings <path>: no such
    /// file`). Repeatable.
    pub fn agent_settings(mut self, agent: Agent, path: impl Into<PathBuf>) -> Self {
        self.agent_settings.push((agent, path.into()));
        self
    }

    /// Read only the files named with [`HostBuilder::extra_config`], [`HostBuilder::source`]
    /// and [`HostBuilder::agent_settings`], none of the default places.
    pub fn no_default_config(mut self, no_default: bool) -> Self {
        self.no_default_config = no_default;
        self
    }

    /// Leave out the default settings files of `agent`: for a host that runs as one hook of
    /// that agent, which already runs the hooks of its own files.
    pub fn skip_agent_files(mut self, agent: Agent) -> Self {
        self.skip_agent = Some(agent);
        self
    }

    /// The directory Claude Code family command hooks run in and see as
    /// `CLAUDE_PROJECT_DIR`; `None`: the directory of each event's session. Default: the
    /// discovered project root.
    pub fn command_project_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.command_project_dir = Some(dir);
        self
    }

    /// Records every [`Host::fire`] in the decision store described by `config` (see
    /// [`StoreConfig::from_env`] for the one the `hookwire` command uses): one row per fire and
    /// per hook run, written by a thread of the store's own, never delaying a fire. Off unless
    /// asked for.
    #[cfg(feature = "decision-store")]
    pub fn decision_store(mut self, config: StoreConfig) -> Self {
        self.decisions = Some(config);
        self
    }

    /// The host, with no hook yet: call [`Host::reload`] to read and mount the configuration.
    /// Its engine (every built-in executor) is built on first use ([`Host::engine`], a mount):
    /// a host that only reads ([`Host::read`]) builds none.
    pub fn build(self) -> Host {
        let dir = self.project_dir.unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
        let locations = self.locations.unwrap_or_else(Locations::from_env);
        let trust = self.trust.unwrap_or_else(|| match locations.trust_store() {
            Some(path) => TrustPolicy::Store(path),
            None => TrustPolicy::Untrusted,
        });
        let agent_settings =
            self.agent_settings.into_iter().map(|(agent, path)| (agent, absolute(&path, &dir))).collect();
        Host {
            engine: std::sync::OnceLock::new(),
            model: self.model,
            command_project_dir: self.command_project_dir,
            dir,
            locations,
            trust,
            configs: self.configs,
            sources: self.sources,
            agent_settings,
            no_default_config: self.no_default_config,
            skip_agent: self.skip_agent,
            state: tokio::sync::Mutex::new(State::default()),
            #[cfg(feature = "decision-store")]
            recorder: self.decisions.map(Recorder::start),
        }
    }
}

/// When [`Host::refresh`] reads the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// Only while nothing is mounted (nothing read yet, or every read so far failed).
    IfUnmounted,
    /// Only when a file changed since the last read: a configuration file, a script its hooks
    /// run, a file the project's trust covers, or the trust store. Never before a first read.
    IfChanged,
    /// Always.
    Always,
}

/// Why the configuration's sources could not even be listed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadError {
    /// An agent settings file given with [`HostBuilder::agent_settings`] does not exist.
    MissingSettings {
        /// The file.
        path: std::path::PathBuf,
    },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::MissingSettings { path } => write!(f, "--settings {}: no such file", path.display()),
        }
    }
}

impl std::error::Error for ReadError {}

/// What one read of the configuration gave, and what is in force after it.
#[derive(Debug, Clone)]
pub struct Reload {
    /// What was read; `Err` names why the sources could not even be listed (a settings file
    /// that does not exist).
    pub read: Result<Loaded, ReadError>,
    /// Why hooks of a valid configuration could not start (a process hook that does not
    /// answer its handshake, ...); their levels keep their previous hooks.
    pub start_errors: Vec<String>,
    /// Whether any level was swapped.
    pub changed: bool,
    /// The hooks mounted now; `None` while nothing is (the first read failed).
    pub mounted: Option<Vec<HookSpec>>,
}

impl Reload {
    /// Why this read is not (wholly) in force: the sources' problem, `configuration error:
    /// ...` with every error, or `cannot start the hooks: ...`. `None`: it is. Whatever
    /// was mounted before stays where this is `Some`.
    pub fn problem(&self) -> Option<String> {
        match &self.read {
            Err(reason) => Some(reason.to_string()),
            Ok(loaded) if !loaded.errors.is_empty() => {
                Some(format!("configuration error: {}", loaded.errors.join("; ")))
            }
            Ok(_) if !self.start_errors.is_empty() => {
                Some(format!("cannot start the hooks: {}", self.start_errors.join("; ")))
            }
            Ok(_) => None,
        }
    }

    /// Every error of this read, one line each.
    pub fn errors(&self) -> Vec<String> {
        match &self.read {
            Err(reason) => vec![reason.to_string()],
            Ok(loaded) if !loaded.errors.is_empty() => loaded.errors.clone(),
            Ok(_) => self.start_errors.clone(),
        }
    }

    /// The warnings of this read.
    pub fn warnings(&self) -> &[String] {
        self.read.as_ref().map_or(&[], |loaded| &loaded.warnings)
    }

    /// The project files whose hooks are held back until the project is trusted.
    pub fn untrusted(&self) -> &[Untrusted] {
        self.read.as_ref().map_or(&[], |loaded| &loaded.untrusted)
    }
}

/// What the last read watched.
#[derive(Debug, Default)]
struct State {
    /// The hooks mounted; `None` until a read mounted them.
    mounted: Option<Vec<HookSpec>>,
    /// Whether the configuration was read at least once.
    has_read: bool,
    /// Files found at the last read beyond the sources: scripts and trusted files.
    extra: Vec<PathBuf>,
    /// What the watched files looked like at the last read; `None`: unknown (after
    /// [`Host::apply`]), so the next [`Refresh::IfChanged`] reads.
    stamps: Option<Vec<Stamp>>,
}

/// hookwire embedded: an [`Engine`] with the built-in executors (bash, llm, process, command,
/// http, prompt), fed from every dialect's configuration files at their levels, with trust for
/// project hooks and hot reload. See the [crate documentation](crate) for an example.
#[derive(Debug)]
pub struct Host {
    /// Built on first use (see [`HostBuilder::build`]).
    engine: std::sync::OnceLock<Arc<Engine>>,
    /// The chat model of the engine's llm and prompt hooks; `None`: [`lazy_model`].
    model: Option<Arc<dyn ChatModel>>,
    /// See [`HostBuilder::command_project_dir`]; `None`: the discovered project root.
    command_project_dir: Option<Option<PathBuf>>,
    dir: PathBuf,
    locations: Locations,
    trust: TrustPolicy,
    configs: Vec<PathBuf>,
    sources: Vec<ConfigSource>,
    agent_settings: Vec<(Agent, PathBuf)>,
    no_default_config: bool,
    skip_agent: Option<Agent>,
    state: tokio::sync::Mutex<State>,
    #[cfg(feature = "decision-store")]
    recorder: Option<Recorder>,
}

impl Host {
    /// A builder with every option at its default.
    pub fn builder() -> HostBuilder {
        HostBuilder::default()
    }

    /// The engine to fire events through (and to register in-process hooks with; register
    /// them at [`hook_core::Level::Builtin`], which no configuration file replaces).
    pub fn engine(&self) -> &Arc<Engine> {
        self.engine.get_or_init(|| {
            let model = self.model.clone().unwrap_or_else(|| lazy_model(None, None));
            let command_project_dir =
                self.command_project_dir.clone().unwrap_or_else(|| self.locations.project_root(&self.dir));
            Arc::new(engine_with_factories(model, command_project_dir))
        })
    }

    /// Where discovery starts.
    pub fn project_dir(&self) -> &Path {
        &self.dir
    }

    /// The project root discovery finds now, if any.
    pub fn project_root(&self) -> Option<PathBuf> {
        self.locations.project_root(&self.dir)
    }

    /// The trust policy in force.
    pub fn trust(&self) -> &TrustPolicy {
        &self.trust
    }

    /// The sources a read loads, in order: the default places (unless turned off), the extra
    /// configs, the agent settings files, the extra sources. `Err` names an agent settings
    /// file that does not exist.
    pub fn sources(&self) -> Result<Vec<ConfigSource>, ReadError> {
        let mut sources = self.locations.discover(&self.configs, self.no_default_config, &self.dir, self.skip_agent);
        for (agent, path) in &self.agent_settings {
            if !path.is_file() {
                return Err(ReadError::MissingSettings { path: path.clone() });
            }
            sources.push(ConfigSource::agent(path.clone(), hook_core::Level::User, *agent));
        }
        sources.extend(self.sources.iter().cloned());
        Ok(sources)
    }

    /// Reads the configuration without mounting anything.
    pub fn read(&self) -> Result<Loaded, ReadError> {
        let scope = Scope {
            skip: self.skip_agent,
            roots: if self.no_default_config { Vec::new() } else { self.locations.project_roots(&self.dir) },
        };
        let mut loaded = load_scoped(&self.sources()?, &self.trust, &scope);
        loaded.errors.splice(0..0, missing_configs(&self.configs, &self.dir));
        Ok(loaded)
    }

    /// Reads the configuration and mounts it: the first time all or nothing; afterwards each
    /// level whose hooks changed is swapped whole, and a configuration with an error leaves
    /// the mounted hooks as they are ([`Reload::problem`] says why). Trust is checked again
    /// on every read.
    pub async fn reload(&self) -> Reload {
        let mut state = self.state.lock().await;
        let before = self.stamps_now(&state);
        self.read_and_mount(&mut state, before).await
    }

    /// [`Host::reload`] when `when` calls for it; `None` when it did not.
    pub async fn refresh(&self, when: Refresh) -> Option<Reload> {
        let mut state = self.state.lock().await;
        if when == Refresh::IfUnmounted && state.mounted.is_some() {
            return None;
        }
        let before = self.stamps_now(&state);
        if when == Refresh::IfChanged && (!state.has_read || state.stamps.as_ref() == Some(&before)) {
            return None;
        }
        Some(self.read_and_mount(&mut state, before).await)
    }

    /// Mounts what [`Host::read`] returned, as [`Host::reload`] would have: for a caller that
    /// looks at the configuration (prints its warnings, refuses on an error) before starting
    /// any hook. It records nothing to watch (a one-shot caller pays for no file stamp): the
    /// next [`Refresh::IfChanged`] reads again.
    pub async fn apply(&self, read: Result<Loaded, ReadError>) -> Reload {
        let mut state = self.state.lock().await;
        state.stamps = None;
        state.has_read = true;
        self.mount(&mut state, read).await
    }

    /// Stamps of every file the last read watched.
    fn stamps_now(&self, state: &State) -> Vec<Stamp> {
        let mut watch_list = self.base_paths();
        watch_list.extend(state.extra.iter().cloned());
        stamps(&watch_list)
    }

    /// Reads, records what to watch, and mounts what was read.
    async fn read_and_mount(&self, state: &mut State, before: Vec<Stamp>) -> Reload {
        let read = self.read();
        let extra = match &read {
            Ok(loaded) => extra_paths(&loaded.specs, &self.dir, self.trust.store_path()),
            Err(_) => Vec::new(),
        };
        state.stamps = Some(if extra == state.extra {
            before
        } else {
            let mut list = self.base_paths();
            list.extend(extra.iter().cloned());
            stamps(&list)
        });
        state.extra = extra;
        state.has_read = true;
        self.mount(state, read).await
    }

    /// Mounts `read` when it is valid (see [`remount`]).
    async fn mount(&self, state: &mut State, read: Result<Loaded, ReadError>) -> Reload {
        let mut reload = Reload { read, start_errors: Vec::new(), changed: false, mounted: None };
        if let Ok(loaded) = &reload.read
            && loaded.errors.is_empty()
        {
            let (mounted, errors, changed) = remount(self.engine(), state.mounted.take(), loaded.specs.clone()).await;
            state.mounted = mounted;
            reload.start_errors = errors;
            reload.changed = changed;
        }
        reload.mounted = state.mounted.clone();
        reload
    }

    /// Watches the configuration: every `period`, reloads when a file changed
    /// ([`Refresh::IfChanged`]) and hands the [`Reload`] to `on_reload`. A bad edit keeps the
    /// hooks in force and is reported there; trust is checked again on each read. Polling
    /// stops when the returned [`Watcher`] is dropped. Needs a Tokio runtime.
    pub fn watch(self: &Arc<Self>, period: Duration, mut on_reload: impl FnMut(Reload) + Send + 'static) -> Watcher {
        let host = Arc::clone(self);
        let period = period.max(Duration::from_millis(10));
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Some(reload) = host.refresh(Refresh::IfChanged).await {
                    on_reload(reload);
                }
            }
        });
        Watcher { task }
    }

    /// Fires `event` through [`Host::engine`] over `context`, and records the fire in the
    /// decision store when [`HostBuilder::decision_store`] asked for one (a non-blocking hand-off:
    /// the outcome never waits on the store). Firing through the engine directly records nothing.
    pub async fn fire(&self, event: Event, context: &mut Context) -> FireOutcome {
        #[cfg(feature = "decision-store")]
        let started = std::time::Instant::now();
        let outcome = self.engine().fire(event, context).await;
        #[cfg(feature = "decision-store")]
        if let Some(recorder) = &self.recorder {
            let hooks = if outcome.trace.is_empty() { Vec::new() } else { self.engine().hooks_for(event) };
            recorder.record(FireRecord::from_outcome(Origin::Host, &outcome, context, &hooks, started.elapsed()));
        }
        outcome
    }

    /// Waits at most `deadline` for the recorded fires to be written (call it before the
    /// process exits); what is left is counted as dropped. `None` without a decision store.
    #[cfg(feature = "decision-store")]
    pub fn flush_decisions(&self, deadline: Duration) -> Option<FlushReport> {
        self.recorder.as_ref().map(|recorder| recorder.flush(deadline))
    }

    /// Takes every hook down (process hooks get EOF, then SIGTERM, then SIGKILL).
    pub async fn shutdown(&self) {
        if let Some(engine) = self.engine.get() {
            engine.shutdown().await;
        }
    }

    /// What is watched whatever was read: the sources, the named files (existing or not) and
    /// the trust store.
    fn base_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.sources().unwrap_or_default().into_iter().map(|s| s.path).collect();
        paths.extend(self.agent_settings.iter().map(|(_, path)| path.clone()));
        paths.extend(self.configs.iter().map(|path| absolute(path, &self.dir)));
        paths.extend(self.trust.store_path().map(Path::to_path_buf));
        paths
    }
}

/// Polls a [`Host`]'s configuration files; dropping it stops the polling.
#[derive(Debug)]
pub struct Watcher {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}
