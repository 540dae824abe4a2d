//! Loading configuration and building an engine with the bash, llm and process executors.

use std::{path::PathBuf, sync::Arc};

use hook_core::{
    Deadlines, Engine, HookSpec, Level,
    config::{self, ConfigError, Untrusted},
    trust::{FileTrustStore, TrustError, TrustRecord, TrustStore},
};
use hook_llm::{ChatModel, OpenAiClient, OpenAiConfig};

use crate::{ConfigArgs, discover};

/// The executor kinds this command can run.
pub(crate) const KINDS: [&str; 3] = ["bash", "llm", "process"];

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
    fn get(&self, _root: &std::path::Path) -> Option<TrustRecord> {
        None
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

    fn list(&self) -> Vec<TrustRecord> {
        Vec::new()
    }
}

/// Discovers and loads the configuration; project hooks are checked against the trust store.
pub(crate) fn load(args: &ConfigArgs) -> LoadedConfig {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let discovered = discover::discover(&args.configs, args.no_default_config, &cwd);
    // Without a user configuration directory there is nowhere trust could have been recorded:
    // project hooks are then untrusted, never loaded unchecked.
    let store: Box<dyn TrustStore> = match discover::trust_store_path() {
        Some(path) => Box::new(FileTrustStore::new(path)),
        None => Box::new(NoTrustRecords),
    };
    let loaded = config::load(&discovered.sources, Deadlines::default(), Some(store.as_ref()));
    let errors: Vec<String> = loaded.errors.iter().map(ConfigError::to_string).collect();
    let mut warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    let mut specs = Vec::with_capacity(loaded.specs.len());
    for spec in loaded.specs {
        if KINDS.contains(&spec.kind.as_str()) {
            specs.push(spec);
        } else {
            // PicoClaw builtins are compiled into PicoClaw; an unmodified PicoClaw config that
            // enables one still loads, without it.
            warnings.push(format!(
                "{}: hook `{}`: hookwire has no `{}` executor (it runs {}); this hook is skipped",
                spec.source,
                spec.name,
                spec.kind,
                KINDS.join(", ")
            ));
        }
    }
    LoadedConfig { specs, warnings, errors, untrusted: loaded.untrusted }
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
