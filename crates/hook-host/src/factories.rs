//! The built-in executors, and the chat model llm and prompt hooks ask.

use std::{path::PathBuf, sync::Arc};

use hook_core::{Engine, HookFactory, HookSpec, Level};
use hook_llm::{ChatModel, OpenAiClient, OpenAiConfig};
use hook_trust::guarded;

/// The chat model for llm and prompt hooks: an OpenAI-compatible client configured by
/// `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `HOOKWIRE_MODEL`, with `base_url` and `model` over
/// them.
pub fn chat_model(base_url: Option<&str>, model: Option<&str>) -> Result<Arc<dyn ChatModel>, hook_llm::ModelError> {
    let mut config = OpenAiConfig::from_env();
    if let Some(base_url) = base_url {
        config.base_url = base_url.to_owned();
    }
    if let Some(model) = model {
        config.model = model.to_owned();
    }
    let client = OpenAiClient::new(config)?;
    Ok(Arc::new(client))
}

/// A chat model that connects on first use: a host that runs no llm or prompt hook never pays
/// for building an HTTP client.
#[derive(Debug)]
struct LazyModel {
    base_url: Option<String>,
    model: Option<String>,
    name: String,
    client: tokio::sync::OnceCell<Result<Arc<dyn ChatModel>, hook_llm::ModelError>>,
}

#[hook_core::async_trait]
impl ChatModel for LazyModel {
    async fn complete(&self, request: hook_llm::ChatRequest) -> Result<hook_llm::ChatResponse, hook_llm::ModelError> {
        match self.client().await {
            Ok(client) => client.complete(request).await,
            Err(error) => Err(error.clone()),
        }
    }

    async fn complete_streaming(
        &self,
        request: hook_llm::ChatRequest,
        on_delta: &mut (dyn FnMut(hook_llm::StreamDelta) + Send),
    ) -> Result<hook_llm::ChatResponse, hook_llm::ModelError> {
        match self.client().await {
            Ok(client) => client.complete_streaming(request, on_delta).await,
            Err(error) => Err(error.clone()),
        }
    }

    fn model_name(&self) -> &str {
        &self.name
    }
}

impl LazyModel {
    async fn client(&self) -> &Result<Arc<dyn ChatModel>, hook_llm::ModelError> {
        self.client.get_or_init(|| async { chat_model(self.base_url.as_deref(), self.model.as_deref()) }).await
    }
}

/// The chat model of [`chat_model`], built on first use (an error then fails the hook that
/// asked).
pub fn lazy_model(base_url: Option<&str>, model: Option<&str>) -> Arc<dyn ChatModel> {
    let name = model.map(str::to_owned).unwrap_or_else(|| OpenAiConfig::from_env().model);
    Arc::new(LazyModel {
        base_url: base_url.map(str::to_owned),
        model: model.map(str::to_owned),
        name,
        client: tokio::sync::OnceCell::new(),
    })
}

/// An engine with every built-in factory and no hook: bash and llm (j-cli), process
/// (PicoClaw), command, http and prompt (Claude Code, Gemini CLI, Codex), and a refusal for
/// the kinds those agents have that hookwire cannot run.
///
/// llm and prompt hooks ask `model`. Claude Code family command hooks see `project_dir` as
/// `CLAUDE_PROJECT_DIR` (as their agents set it) and run there; `None`: the session's
/// directory. Every factory is wrapped in [`guarded`]: a trusted project's hook checks its
/// files before each run.
pub fn engine_with_factories(model: Arc<dyn ChatModel>, project_dir: Option<PathBuf>) -> Engine {
    let command_options = hook_bash::AgentCommandOptions { project_dir, ..hook_bash::AgentCommandOptions::default() };
    let mut builder = Engine::builder()
        .factory(guarded(Arc::new(hook_bash::BashFactory::default())))
        .factory(guarded(Arc::new(hook_llm::LlmFactory::new(model.clone()))))
        .factory(guarded(Arc::new(hook_process::ProcessFactory::default())))
        .factory(guarded(Arc::new(hook_bash::AgentCommandFactory::new(command_options))))
        .factory(guarded(Arc::new(hook_llm::AgentHttpFactory::new())))
        .factory(guarded(Arc::new(hook_llm::AgentPromptFactory::new(model.clone(), model.model_name().to_owned()))))
        .factory(guarded(Arc::new(hook_rules::RulesFactory)));
    for kind in hook_agents::UNSUPPORTED_KINDS {
        builder = builder.factory(Arc::new(hook_agents::UnsupportedFactory::new(kind)));
    }
    builder.build()
}

/// An engine with every factory and no hook, to ask factories their defaults.
fn reference_engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(|| engine_with_factories(lazy_model(None, None), None))
}

/// The hook kinds the built-in executors run (the kinds of [`engine_with_factories`]).
pub fn kinds() -> Vec<String> {
    reference_engine().factory_kinds()
}

/// The built-in factory that builds hooks of `kind`: its default deadline and retry.
pub fn factory(kind: &str) -> Option<Arc<dyn HookFactory>> {
    reference_engine().factory(kind)
}

/// Builds and mounts every spec, level by level (a level without a spec is left alone);
/// returns the errors of the levels that failed, whose previous hooks stay.
pub async fn mount(engine: &Engine, specs: Vec<HookSpec>) -> Vec<String> {
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

/// Mounts `specs` over `mounted` (what an earlier call mounted): everything when nothing is
/// mounted yet — all or nothing: on an error every level `specs` touches is emptied again, and
/// the hooks registered by other means at other levels (an embedder's builtin guards) stay — else
/// only the levels whose hooks changed, each one swapped whole or kept as it was. Returns what
/// is mounted now, the errors, and whether any level was replaced.
pub async fn remount(
    engine: &Engine,
    mounted: Option<Vec<HookSpec>>,
    specs: Vec<HookSpec>,
) -> (Option<Vec<HookSpec>>, Vec<String>, bool) {
    let Some(old) = mounted else {
        let errors = mount(engine, specs.clone()).await;
        if errors.is_empty() {
            return (Some(specs), errors, true);
        }
        for level in Level::ALL.into_iter().filter(|level| specs.iter().any(|spec| spec.level == *level)) {
            // Emptying a level builds nothing, so it cannot fail.
            let _ = engine.replace_level(level, Vec::new()).await;
        }
        return (None, errors, false);
    };
    let (mut now, mut errors, mut changed) = (Vec::new(), Vec::new(), false);
    for level in Level::ALL {
        let of = |list: &[HookSpec]| list.iter().filter(|s| s.level == level).cloned().collect::<Vec<_>>();
        let (old_level, new_level) = (of(&old), of(&specs));
        if old_level == new_level {
            now.extend(old_level);
            continue;
        }
        match engine.replace_level(level, new_level.clone()).await {
            Ok(_) => {
                changed = true;
                now.extend(new_level);
            }
            Err(level_errors) => {
                errors.extend(level_errors.iter().map(ToString::to_string));
                now.extend(old_level);
            }
        }
    }
    (Some(now), errors, changed)
}
