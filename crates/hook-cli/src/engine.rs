//! Loading configuration and building an engine with the bash, llm and process executors.

use std::{path::PathBuf, sync::Arc};

use hook_core::{
    Deadlines, Engine, HookSpec, Level,
    config::{self, ConfigError, ConfigWarning, Untrusted},
    trust::FileTrustStore,
};
use hook_llm::{ChatModel, OpenAiClient, OpenAiConfig};

use crate::{ConfigArgs, discover};

/// The executor kinds this command can run.
pub(crate) const KINDS: [&str; 3] = ["bash", "llm", "process"];

/// Everything loaded from the configuration sources.
#[derive(Debug, Default)]
pub(crate) struct LoadedConfig {
    pub(crate) specs: Vec<HookSpec>,
    pub(crate) warnings: Vec<ConfigWarning>,
    pub(crate) errors: Vec<String>,
    pub(crate) untrusted: Vec<Untrusted>,
}

/// Discovers and loads the configuration; project hooks are checked against the trust store.
pub(crate) fn load(args: &ConfigArgs) -> LoadedConfig {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let discovered = discover::discover(&args.configs, args.no_default_config, &cwd);
    let store = discover::trust_store_path().map(FileTrustStore::new);
    let loaded = config::load(&discovered.sources, Deadlines::default(), store.as_ref().map(|s| s as _));
    let mut errors: Vec<String> = loaded.errors.iter().map(ConfigError::to_string).collect();
    for spec in &loaded.specs {
        if !KINDS.contains(&spec.kind.as_str()) {
            errors.push(format!(
                "{}: hook `{}`: no executor for kind `{}` (hookwire runs {})",
                spec.source,
                spec.name,
                spec.kind,
                KINDS.join(", ")
            ));
        }
    }
    LoadedConfig { specs: loaded.specs, warnings: loaded.warnings, errors, untrusted: loaded.untrusted }
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

/// An engine that can build every kind in [`KINDS`].
pub(crate) fn engine(model: Arc<dyn ChatModel>) -> Engine {
    Engine::builder()
        .factory(Arc::new(hook_bash::BashFactory::default()))
        .factory(Arc::new(hook_llm::LlmFactory::new(model)))
        .factory(Arc::new(hook_process::ProcessFactory::default()))
        .build()
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
