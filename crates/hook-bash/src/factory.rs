//! `BashFactory`: builds bash hooks from configured specs for the engine.

use std::{sync::Arc, time::Duration};

use async_trait::async_trait;
use hook_core::{BuildError, BuiltHook, Deadlines, Event, HookDefinition, HookFactory, HookSpec, Level};

use crate::{BashHook, BashOptions};

/// Builds [`BashHook`]s for specs of kind `bash`.
///
/// The factory's options give the caps and the environment policy; each spec adds its name,
/// directory and `env`. Session-level hooks (registered during the session, e.g. by the model)
/// always run with a scrubbed environment.
#[derive(Debug, Clone, Default)]
pub struct BashFactory {
    options: BashOptions,
}

impl BashFactory {
    /// A factory whose hooks use `options` (its `name`, `dir` and `env` are replaced per spec).
    pub fn new(options: BashOptions) -> Self {
        BashFactory { options }
    }

    /// The hook of `spec`, without the async trait machinery.
    pub fn build_hook(&self, spec: &HookSpec) -> Result<BashHook, BuildError> {
        let events = spec.events.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ");
        let at = format!("hook `{}` ({}, {}) on {}", spec.name, spec.level, spec.source, events);
        let def = match &spec.definition {
            HookDefinition::Command(def) => def,
            _ => {
                return Err(BuildError::Invalid {
                    message: format!(
                        "{at} is not a command hook; a `bash` hook needs a j-cli definition with `command:`"
                    ),
                });
            }
        };
        if !def.kind.is_bash() {
            return Err(BuildError::Invalid {
                message: format!("{at} is an `llm` hook; register it with the llm hook factory, not `bash`"),
            });
        }
        let Some(command) = def.command.as_deref().filter(|c| !c.trim().is_empty()) else {
            return Err(BuildError::Invalid {
                message: format!("{at} has no `command`; a bash hook needs `command: \"<shell command>\"`"),
            });
        };
        let options = BashOptions {
            name: spec.name.clone(),
            dir: spec.dir.clone(),
            work_dir: spec.work_dir.clone(),
            env: spec.env.clone(),
            scrub_env: self.options.scrub_env || spec.level == Level::Session,
            sandbox: spec.effective_sandbox().or_else(|| self.options.sandbox.clone()),
            ..self.options.clone()
        };
        Ok(BashHook::new(command, options))
    }
}

#[async_trait]
impl HookFactory for BashFactory {
    fn kind(&self) -> &str {
        "bash"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        Ok(BuiltHook::new(Arc::new(self.build_hook(spec)?)))
    }

    /// bash hooks get 10 s (j-cli's default).
    fn default_timeout(&self, _event: Event, _deadlines: &Deadlines) -> Duration {
        Duration::from_secs(10)
    }
}
