//! The default sandbox of each level, for hooks that declare none — whatever their dialect
//! (a Claude Code settings file has no `sandbox:`): `HOOKWIRE_SANDBOX=project=required`
//! confines every project hook.

use hook_protocol::config::{SandboxMode, SandboxPolicy};

use hook_core::{HookSpec, Level};

/// The variable holding the defaults: `<level>=<mode>` pairs, comma-separated, e.g.
/// `project=required,user=best-effort`. Levels: `user`, `project`; modes: `required`,
/// `best-effort`, `off`. Session hooks are always confined; builtins run no process.
pub const SANDBOX_DEFAULTS_VAR: &str = "HOOKWIRE_SANDBOX";

/// The default policy per level (the default policy of docs/sandbox.md, with the mode given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxDefaults {
    /// For user-level hooks.
    pub user: Option<SandboxPolicy>,
    /// For project-level hooks.
    pub project: Option<SandboxPolicy>,
}

/// A [`SANDBOX_DEFAULTS_VAR`] value that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{SANDBOX_DEFAULTS_VAR}={value}: `{part}` is not `<level>=<mode>` with level `user` or `project` and mode \
     `required`, `best-effort` or `off` (e.g. `project=required`)"
)]
pub struct SandboxDefaultsError {
    /// The whole value.
    pub value: String,
    /// The part that does not parse.
    pub part: String,
}

impl SandboxDefaults {
    /// Parses `project=required,user=best-effort`.
    pub fn parse(value: &str) -> Result<Self, SandboxDefaultsError> {
        let mut defaults = SandboxDefaults::default();
        for part in value.split(',').map(str::trim).filter(|part| !part.is_empty()) {
            let error = || SandboxDefaultsError { value: value.to_owned(), part: part.to_owned() };
            let (level, mode) = part.split_once('=').ok_or_else(error)?;
            let mode = match mode.trim() {
                "required" => SandboxMode::Required,
                "best-effort" => SandboxMode::BestEffort,
                "off" => SandboxMode::Off,
                _ => return Err(error()),
            };
            let slot = match level.trim() {
                "user" => &mut defaults.user,
                "project" => &mut defaults.project,
                _ => return Err(error()),
            };
            *slot = Some(SandboxPolicy::with_mode(mode));
        }
        Ok(defaults)
    }

    /// The defaults [`SANDBOX_DEFAULTS_VAR`] sets (none when it is unset).
    pub fn from_env() -> Result<Self, SandboxDefaultsError> {
        match std::env::var(SANDBOX_DEFAULTS_VAR) {
            Ok(value) => Self::parse(&value),
            Err(_) => Ok(SandboxDefaults::default()),
        }
    }

    /// Gives each spec that declares no sandbox its level's default. A declared one (even
    /// `off`) is the hook's own choice and stays; `hookwire trust --sandboxed` is what overrides.
    pub fn apply(&self, specs: &mut [HookSpec]) {
        for spec in specs.iter_mut().filter(|spec| spec.sandbox.is_none()) {
            spec.sandbox = match spec.level {
                Level::User => self.user.clone(),
                Level::Project => self.project.clone(),
                _ => None,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use hook_protocol::{Event, config::ProcessDef};

    use super::*;
    use hook_core::{AgentHookDef, HookDefinition};

    #[test]
    fn parses_levels_and_modes_and_names_a_bad_part() {
        let defaults = SandboxDefaults::parse("project=required, user=best-effort").unwrap();
        assert_eq!(defaults.project, Some(SandboxPolicy::with_mode(SandboxMode::Required)));
        assert_eq!(defaults.user, Some(SandboxPolicy::with_mode(SandboxMode::BestEffort)));
        let error = SandboxDefaults::parse("project=strict").unwrap_err().to_string();
        assert!(error.contains("HOOKWIRE_SANDBOX=project=strict: `project=strict`"), "{error}");
        assert!(SandboxDefaults::parse("session=off").is_err());
    }

    #[test]
    fn fills_specs_of_every_dialect_that_declare_nothing() {
        let agent = AgentHookDef {
            agent: hook_protocol::Agent::Claude,
            event_name: "Stop".into(),
            matcher: None,
            handler: Default::default(),
            plugin_root: None,
            http_allowed_urls: None,
            http_allowed_env_vars: Vec::new(),
        };
        let claude = HookSpec::new("c", Level::Project, "command", [Event::Stop], HookDefinition::Agent(agent.into()));
        let process = HookSpec::new(
            "p",
            Level::Project,
            "process",
            [Event::Stop],
            HookDefinition::Process(ProcessDef::default()),
        );
        let declared_off = HookSpec { sandbox: Some(SandboxPolicy::with_mode(SandboxMode::Off)), ..process.clone() };
        let user = HookSpec { level: Level::User, ..process.clone() };
        let mut specs = vec![claude, process, declared_off, user];
        SandboxDefaults::parse("project=required").unwrap().apply(&mut specs);
        let modes: Vec<Option<SandboxMode>> = specs.iter().map(|s| s.sandbox.as_ref().map(|p| p.mode)).collect();
        assert_eq!(modes, [Some(SandboxMode::Required), Some(SandboxMode::Required), Some(SandboxMode::Off), None]);
    }
}
