//! The `rules` hook kind: a rules file's rules as one in-process hook, and its factory.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use async_trait::async_trait;
use hook_core::{
    BuildError, BuiltHook, HookDefinition, HookError, HookFactory, HookInput, HookOutput, HookSpec, Permission,
};
use hook_protocol::{Context, Event, rules::RuleDecision, serde_json::Value, tool::tool_view};

use crate::{Call, RuleSet, Verdict, command::after_home};

/// The rules of one rules file, run on each of its events without a child process.
#[derive(Debug)]
pub struct RulesHook {
    name: String,
    rules: RuleSet,
}

impl RulesHook {
    /// A hook named `name` evaluating `rules`.
    pub fn new(name: impl Into<String>, rules: RuleSet) -> Self {
        RulesHook { name: name.into(), rules }
    }

    /// The verdict on `event` with `context`.
    pub fn verdict(&self, event: Event, context: &Context) -> Verdict {
        let view = context.tool.clone().or_else(|| tool_view(context));
        let cwd = context.cwd.as_deref().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/"));
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let call = call_of(event, context.tool_name.as_deref(), view.as_ref(), &cwd, home.as_deref());
        self.rules.evaluate(&call)
    }
}

/// The call a tool view describes.
pub fn call_of<'a>(
    event: Event,
    tool: Option<&'a str>,
    view: Option<&'a hook_protocol::ToolView>,
    cwd: &'a Path,
    home: Option<&'a Path>,
) -> Call<'a> {
    let input = view.map(|v| &v.input);
    let text = |key: &str| input.and_then(|i| i.get(key)).and_then(Value::as_str).map(str::to_owned);
    let mut content: Vec<String> =
        ["content", "new_string", "new_source", "patch", "input"].iter().filter_map(|k| text(k)).collect();
    for edit in input.and_then(|i| i.get("edits")).and_then(Value::as_array).into_iter().flatten() {
        content.extend(edit.get("new_string").and_then(Value::as_str).map(str::to_owned));
    }
    if tool == Some("apply_patch") {
        content.extend(text("command"));
    }
    Call {
        event,
        tool,
        command: view.and_then(|v| v.command.as_deref()),
        // A tool given `~/x` (the view keeps `~`, knowing no home) reaches the home's `x`.
        paths: view
            .map(|v| {
                v.paths
                    .iter()
                    .map(|p| match (after_home(p), home) {
                        (Some(rest), Some(home)) => home.join(rest.trim_start_matches('/')),
                        _ => PathBuf::from(p),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        content: (!content.is_empty()).then(|| content.join("\n")),
        url: text("url"),
        cwd,
        home,
        input,
    }
}

/// The engine's answer for `verdict` on `event`: a denial refuses the tool call (skips the
/// step elsewhere), an ask asks the person where the event can (denies elsewhere), a context
/// rule adds its reason for the model.
pub fn output_of(event: Event, verdict: &Verdict) -> HookOutput {
    for shadow in &verdict.shadowed {
        tracing::info!(rule = %shadow.rule, decision = shadow.decision.as_str(), command = shadow.command.as_deref().unwrap_or_default(), "shadow guard rule would have decided");
    }
    let Some(hit) = &verdict.decided_by else { return HookOutput::default() };
    let mut reason = format!("{} (hookwire rule {})", hit.reason, hit.rule);
    if let Some(command) = &hit.command {
        reason.push_str(&format!(" [command: `{command}`]"));
    }
    if let Some(suggest) = &hit.suggest {
        reason.push_str(&format!(". Safer: {suggest}"));
    }
    let tool_event = matches!(event, Event::PreToolExecution | Event::ApproveTool);
    match verdict.decision {
        Some(RuleDecision::Deny) if tool_event => HookOutput::deny(reason),
        Some(RuleDecision::Ask) if event == Event::PreToolExecution => {
            HookOutput { permission: Some(Permission::Ask), reason: Some(reason), ..HookOutput::default() }
        }
        Some(RuleDecision::Deny | RuleDecision::Ask) if tool_event => HookOutput::deny(reason),
        Some(RuleDecision::Deny | RuleDecision::Ask) => HookOutput::skip(reason),
        Some(RuleDecision::Context) => HookOutput { additional_context: Some(reason), ..HookOutput::default() },
        _ => HookOutput::default(),
    }
}

#[async_trait]
impl hook_core::Hook for RulesHook {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let verdict = self.verdict(input.event, input.context);
        if let Some(hit) = &verdict.decided_by {
            tracing::debug!(hook = %self.name, rule = %hit.rule, decision = hit.decision.as_str(), "guard rule decided");
        }
        Ok(output_of(input.event, &verdict))
    }

    fn changes_nothing(&self, _event: Event) -> bool {
        true
    }
}

/// Builds [`RulesHook`]s for specs of kind `rules`.
#[derive(Debug, Clone, Default)]
pub struct RulesFactory;

impl RulesFactory {
    /// The hook of `spec`, without the async trait machinery.
    pub fn build_hook(&self, spec: &HookSpec) -> Result<RulesHook, BuildError> {
        let HookDefinition::Rules(file) = &spec.definition else {
            return Err(BuildError::Invalid {
                message: format!(
                    "hook `{}` ({}, {}) is not a rules file; a `rules` hook needs `rules:`, `packs:` or `allow:`",
                    spec.name, spec.level, spec.source
                ),
            });
        };
        let rules = RuleSet::compile(file).map_err(|e| BuildError::Invalid {
            message: format!("rules file {} ({}): {e}", spec.source, spec.level),
        })?;
        Ok(RulesHook::new(spec.name.clone(), rules))
    }
}

#[async_trait]
impl HookFactory for RulesFactory {
    fn kind(&self) -> &str {
        "rules"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        Ok(BuiltHook::new(Arc::new(self.build_hook(spec)?)))
    }
}
