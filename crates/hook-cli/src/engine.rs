//! Loading configuration and building an engine with the bash, llm and process executors.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use hook_core::{
    Deadlines, Engine, HookDefinition, HookSpec, Level,
    config::{self, ConfigError, Untrusted},
    trust::{FileTrustStore, TrustCheck, TrustError, TrustRecord, TrustStore, guarded, undetermined},
};
use hook_llm::{ChatModel, OpenAiClient, OpenAiConfig};

use crate::{ConfigArgs, discover};

/// Everything loaded from the configuration sources.
#[derive(Debug, Default)]
pub(crate) struct LoadedConfig {
    pub(crate) specs: Vec<HookSpec>,
    pub(crate) warnings: Vec<String>,
    pub(crate) errors: Vec<String>,
    pub(crate) untrusted: Vec<Untrusted>,
}

/// The trust store when there is no user configuration directory: it holds no record.
#[derive(Debug)]
struct NoTrustRecords;

impl TrustStore for NoTrustRecords {
    fn try_get(&self, _root: &std::path::Path) -> Result<Option<TrustRecord>, TrustError> {
        Ok(None)
    }

    fn put(&self, record: TrustRecord) -> Result<(), TrustError> {
        Err(TrustError::Io {
            path: record.root,
            source: std::io::Error::other("no user configuration directory: set HOME or XDG_CONFIG_HOME"),
        })
    }

    fn revoke(&self, _root: &std::path::Path) -> Result<bool, TrustError> {
        Ok(false)
    }

    fn try_list(&self) -> Result<Vec<TrustRecord>, TrustError> {
        Ok(Vec::new())
    }
}

/// Discovers and loads the configuration; project hooks are checked against the trust store.
pub(crate) fn load(args: &ConfigArgs) -> LoadedConfig {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let discovered = discover::discover(&args.configs, args.no_default_config, &cwd);
    let mut loaded = load_sources(&discovered.sources);
    loaded.errors.splice(0..0, missing_configs(&args.configs, &cwd));
    loaded
}

/// An error for each `--config` path that does not exist: a mistyped path must not load as
/// "no hooks configured".
pub(crate) fn missing_configs(paths: &[PathBuf], cwd: &std::path::Path) -> Vec<String> {
    paths
        .iter()
        .map(|path| if path.is_absolute() { path.clone() } else { cwd.join(path) })
        .filter(|path| !path.exists())
        .map(|path| format!("--config {}: no such file or directory", path.display()))
        .collect()
}

/// Loads `sources`; project hooks are checked against the trust store.
pub(crate) fn load_sources(sources: &[config::ConfigSource]) -> LoadedConfig {
    // Without a user configuration directory there is nowhere trust could have been recorded:
    // project hooks are then untrusted, never loaded unchecked.
    let store: Box<dyn TrustStore> = match discover::trust_store_path() {
        Some(path) => Box::new(FileTrustStore::new(path)),
        None => Box::new(NoTrustRecords),
    };
    let loaded = config::load(sources, Deadlines::default(), Some(&TrustCheck::new(store.as_ref())));
    let kinds = kinds();
    let errors: Vec<String> = loaded.errors.iter().map(ConfigError::to_string).collect();
    let mut warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    let mut specs = Vec::with_capacity(loaded.specs.len());
    for spec in loaded.specs {
        // A trusted project hook whose command hookwire cannot follow: the trust covers only
        // the files it could tell (`hookwire trust` showed the same lines).
        if let Some(guard) = &spec.trust {
            for note in undetermined(&spec, guard.root()) {
                warnings.push(format!(
                    "{}: hook `{}`: hookwire cannot tell what this runs: {note}; the trust covers only the files it names",
                    spec.source, spec.name
                ));
            }
        }
        if calls_the_bridge(&spec) {
            // `hookwire hook` installed in an agent's settings would run hookwire inside itself.
            warnings.push(format!("{}: hook `{}` runs `hookwire hook` itself; skipped", spec.source, spec.name));
        } else if kinds.contains(&spec.kind) {
            specs.push(spec);
        } else {
            // PicoClaw builtins are compiled into PicoClaw; an unmodified PicoClaw config that
            // enables one still loads, without it.
            warnings.push(format!(
                "{}: hook `{}`: hookwire has no `{}` executor (it runs {}); this hook is skipped",
                spec.source,
                spec.name,
                spec.kind,
                kinds.join(", ")
            ));
        }
    }
    LoadedConfig { specs, warnings, errors, untrusted: loaded.untrusted }
}

/// Whether a hook would call the bridge itself (`hookwire hook ...`).
pub(crate) fn calls_the_bridge(spec: &HookSpec) -> bool {
    let HookDefinition::Agent(def) = &spec.definition else { return false };
    let mut words: Vec<&str> = def.handler.command.as_deref().unwrap_or_default().split_whitespace().collect();
    words.extend(def.handler.args.iter().flatten().map(String::as_str));
    words.windows(2).any(|pair| {
        let program = pair[0].trim_matches(['"', '\'']);
        Path::new(program).file_name().is_some_and(|name| name == "hookwire") && pair[1] == "hook"
    })
}

/// The chat model for llm hooks: `--base-url`/`--model` over `OPENAI_BASE_URL`,
/// `OPENAI_API_KEY`, `HOOKWIRE_MODEL`.
pub(crate) fn chat_model(base_url: Option<&str>, model: Option<&str>) -> Result<Arc<dyn ChatModel>, String> {
    let mut config = OpenAiConfig::from_env();
    if let Some(base_url) = base_url {
        config.base_url = base_url.to_owned();
    }
    if let Some(model) = model {
        config.model = model.to_owned();
    }
    let client = OpenAiClient::new(config).map_err(|e| e.to_string())?;
    Ok(Arc::new(client))
}

/// A chat model that connects on first use: commands that run no llm or prompt hook never
/// pay for building an HTTP client.
#[derive(Debug)]
struct LazyModel {
    base_url: Option<String>,
    model: Option<String>,
    name: String,
    client: tokio::sync::OnceCell<Result<Arc<dyn ChatModel>, String>>,
}

#[hook_core::async_trait]
impl ChatModel for LazyModel {
    async fn complete(&self, request: hook_llm::ChatRequest) -> Result<hook_llm::ChatResponse, hook_llm::ModelError> {
        match self.client().await {
            Ok(client) => client.complete(request).await,
            Err(message) => Err(hook_llm::ModelError::Client { message: message.clone() }),
        }
    }

    async fn complete_streaming(
        &self,
        request: hook_llm::ChatRequest,
        on_delta: &mut (dyn FnMut(hook_llm::StreamDelta) + Send),
    ) -> Result<hook_llm::ChatResponse, hook_llm::ModelError> {
        match self.client().await {
            Ok(client) => client.complete_streaming(request, on_delta).await,
            Err(message) => Err(hook_llm::ModelError::Client { message: message.clone() }),
        }
    }

    fn model_name(&self) -> &str {
        &self.name
    }
}

impl LazyModel {
    async fn client(&self) -> &Result<Arc<dyn ChatModel>, String> {
        self.client.get_or_init(|| async { chat_model(self.base_url.as_deref(), self.model.as_deref()) }).await
    }
}

/// The chat model of [`chat_model`], built on first use.
pub(crate) fn lazy_model(base_url: Option<&str>, model: Option<&str>) -> Arc<dyn ChatModel> {
    let name = model.map(str::to_owned).unwrap_or_else(|| OpenAiConfig::from_env().model);
    Arc::new(LazyModel {
        base_url: base_url.map(str::to_owned),
        model: model.map(str::to_owned),
        name,
        client: tokio::sync::OnceCell::new(),
    })
}

/// An engine with every factory and no hook, to ask factories their defaults.
fn reference_engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(|| engine_for(lazy_model(None, None), None))
}

/// The executor kinds this command runs: the kinds of [`engine_for`]'s factories.
pub(crate) fn kinds() -> Vec<String> {
    reference_engine().factory_kinds()
}

/// The factory that builds hooks of `kind`.
pub(crate) fn factory(kind: &str) -> Option<Arc<dyn hook_core::HookFactory>> {
    reference_engine().factory(kind)
}

/// An engine that can build every kind hookwire runs.
///
/// Claude Code family command hooks see the project root as `CLAUDE_PROJECT_DIR` (as their
/// agents set it) wherever in the project hookwire runs: the files trust hashed for
/// `"$CLAUDE_PROJECT_DIR"/...` are the files that run, not a same-named file below the caller.
pub(crate) fn engine(model: Arc<dyn ChatModel>) -> Engine {
    let project = std::env::current_dir().ok().and_then(|cwd| discover::project_root(&cwd));
    engine_for(model, project)
}

/// An engine with every factory; Claude Code family command hooks run in `project_dir`
/// (default: the session's directory).
pub(crate) fn engine_for(model: Arc<dyn ChatModel>, project_dir: Option<PathBuf>) -> Engine {
    let command_options = hook_bash::AgentCommandOptions { project_dir, ..hook_bash::AgentCommandOptions::default() };
    // Every factory is `guarded`: a trusted project's hook checks its files before each run.
    let mut builder = Engine::builder()
        .factory(guarded(Arc::new(hook_bash::BashFactory::default())))
        .factory(guarded(Arc::new(hook_llm::LlmFactory::new(model.clone()))))
        .factory(guarded(Arc::new(hook_process::ProcessFactory::default())))
        .factory(guarded(Arc::new(hook_bash::AgentCommandFactory::new(command_options))))
        .factory(guarded(Arc::new(hook_llm::AgentHttpFactory::new())))
        .factory(guarded(Arc::new(hook_llm::AgentPromptFactory::new(model.clone(), model.model_name().to_owned()))));
    for kind in hook_core::agent::UNSUPPORTED_KINDS {
        builder = builder.factory(Arc::new(hook_core::agent::UnsupportedFactory::new(kind)));
    }
    builder.build()
}

/// Builds and mounts every spec, level by level; returns the errors of the levels that failed.
pub(crate) async fn mount(engine: &Engine, specs: Vec<HookSpec>) -> Vec<String> {
    let mut errors = Vec::new();
    for level in Level::ALL {
        let of_level: Vec<HookSpec> = specs.iter().filter(|spec| spec.level == level).cloned().collect();
        if of_level.is_empty() {
            continue;
        }
        if let Err(level_errors) = engine.replace_level(level, of_level).await {
            errors.extend(level_errors.iter().map(ToString::to_string));
        }
    }
    errors
}

/// Loads the configuration, reports warnings and untrusted hooks on stderr, and starts an engine
/// with every hook mounted; on a configuration error prints every error and gives exit code 2.
pub(crate) async fn start(
    args: &ConfigArgs,
    base_url: Option<&str>,
    model: Option<&str>,
) -> Result<(Engine, Arc<dyn ChatModel>), u8> {
    let loaded = load(args);
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    for untrusted in &loaded.untrusted {
        eprintln!("warning: {}: {}; {}", untrusted.config.display(), untrusted.reason, untrusted.how_to_trust);
    }
    let fail = |errors: &[String]| {
        for error in errors {
            eprintln!("error: {error}");
        }
        2
    };
    if !loaded.errors.is_empty() {
        return Err(fail(&loaded.errors));
    }
    let model = chat_model(base_url, model).map_err(|e| fail(&[e]))?;
    let engine = engine(model.clone());
    let errors = mount(&engine, loaded.specs).await;
    if !errors.is_empty() {
        engine.shutdown().await;
        return Err(fail(&errors));
    }
    Ok((engine, model))
}

/// How long a one-shot command (`fire`, `hook`) gives its hooks to exit once its answer is out.
pub(crate) const ONE_SHOT_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

/// Takes the hooks of a one-shot command down after its answer was printed: a graceful shutdown
/// for at most [`ONE_SHOT_GRACE`]; a hook that ignores EOF and SIGTERM is then killed with its
/// process group when the runtime goes, instead of holding the caller for the 3 s of a full
/// graceful shutdown.
pub(crate) async fn shutdown_one_shot(engine: &Engine) {
    let _ = tokio::time::timeout(ONE_SHOT_GRACE, engine.shutdown()).await;
}
