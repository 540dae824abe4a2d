//! Loading configuration and building an engine: the command's flags mapped onto
//! [`hook_host`], which does the work (discovery, trust, the built-in executors, mounting).

use std::{path::PathBuf, sync::Arc};

use hook_core::Engine;
use hook_host::{Host, HostBuilder};
use hook_llm::ChatModel;

use crate::ConfigArgs;

/// Everything loaded from the configuration sources.
pub(crate) type LoadedConfig = hook_host::Loaded;

/// The host of `args` (`--config`, `--no-default-config`), discovering from `cwd`.
fn host_builder(args: &ConfigArgs, cwd: PathBuf) -> HostBuilder {
    let builder = Host::builder().project_dir(cwd).no_default_config(args.no_default_config);
    args.configs.iter().fold(builder, |builder, path| builder.extra_config(path))
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Discovers and loads the configuration; project hooks are checked against the trust store.
pub(crate) fn load(args: &ConfigArgs) -> LoadedConfig {
    // Without `--settings` there is no source that can be missing: `read` cannot fail.
    host_builder(args, current_dir()).build().read().unwrap_or_default()
}

/// An error for each `--config` path that does not exist: a mistyped path must not load as
/// "no hooks configured".
pub(crate) fn missing_configs(paths: &[PathBuf], cwd: &std::path::Path) -> Vec<String> {
    hook_host::missing_configs(paths, cwd)
}

/// The chat model for llm hooks: `--base-url`/`--model` over `OPENAI_BASE_URL`,
/// `OPENAI_API_KEY`, `HOOKWIRE_MODEL`.
pub(crate) fn chat_model(
    base_url: Option<&str>,
    model: Option<&str>,
) -> Result<Arc<dyn ChatModel>, hook_llm::ModelError> {
    hook_host::chat_model(base_url, model)
}

/// The factory that builds hooks of `kind`.
pub(crate) fn factory(kind: &str) -> Option<Arc<dyn hook_core::HookFactory>> {
    hook_host::factory(kind)
}

/// Loads the configuration, reports warnings and untrusted hooks on stderr, and starts a host
/// with every hook mounted; on a configuration error prints every error and gives exit code 2.
pub(crate) async fn start(args: &ConfigArgs, base_url: Option<&str>, model: Option<&str>) -> Result<Host, u8> {
    let model = chat_model(base_url, model);
    let mut builder = host_builder(args, current_dir());
    if let Ok(model) = &model {
        builder = builder.chat_model(model.clone());
    }
    let host = builder.build();
    let loaded = host.read().unwrap_or_default();
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
    model.map_err(|e| fail(&[e.to_string()]))?;
    // A failed first mount takes down whatever it started.
    let mounted = host.apply(Ok(loaded)).await;
    if !mounted.start_errors.is_empty() {
        return Err(fail(&mounted.start_errors));
    }
    Ok(host)
}

/// How long a one-shot command (`fire`, `hook`) gives its hooks to exit once its answer is out.
pub(crate) const ONE_SHOT_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

/// Loads `sources` for a path scoped as `scope` (see [`hook_host::Scope`]), with this user's
/// trust store (`test` and `replay`, which list their sources themselves).
pub(crate) fn load_scoped(sources: &[hook_config::ConfigSource], scope: &hook_host::Scope) -> LoadedConfig {
    let trust = hook_host::Locations::from_env()
        .trust_store()
        .map_or(hook_host::TrustPolicy::Untrusted, hook_host::TrustPolicy::Store);
    hook_host::load_scoped(sources, &trust, scope)
}

/// The chat model of [`chat_model`], built on first use.
pub(crate) fn lazy_model(base_url: Option<&str>, model: Option<&str>) -> Arc<dyn ChatModel> {
    hook_host::lazy_model(base_url, model)
}

/// An engine with every factory; Claude Code family command hooks run in `project_dir`.
pub(crate) fn engine_for(model: Arc<dyn ChatModel>, project_dir: Option<PathBuf>) -> Engine {
    hook_host::engine_with_factories(model, project_dir)
}

/// Builds and mounts every spec, level by level; returns the errors of the levels that failed.
pub(crate) async fn mount(engine: &Engine, specs: Vec<hook_core::HookSpec>) -> Vec<String> {
    hook_host::mount(engine, specs).await
}

/// Takes the hooks of a one-shot command down after its answer was printed: a graceful shutdown
/// for at most [`ONE_SHOT_GRACE`]; a hook that ignores EOF and SIGTERM is then killed with its
/// process group when the runtime goes, instead of holding the caller for the 3 s of a full
/// graceful shutdown.
pub(crate) async fn shutdown_one_shot(engine: &Engine) {
    let _ = tokio::time::timeout(ONE_SHOT_GRACE, engine.shutdown()).await;
}
