//! A handler's matcher and `if` rule as a [`Gate`]: which value of the event each agent
//! matches against, and which events ignore matchers.

use hook_protocol::{Agent, Context, Event, serde_json::Value};

use super::matcher::{IfRule, Matcher, MatcherError, MatcherFlavor, tool_name_aliases};
use hook_core::{AgentHookDef, Gate, capability};

/// The compiled matcher and `if` rule of one handler.
#[derive(Debug, Clone)]
pub struct AgentGate {
    agent: Agent,
    matcher: Option<Matcher>,
    if_rule: Option<IfRule>,
}

/// The input member whose value a matcher is compared with on `event`; `None`: the agent
/// ignores matchers on this event.
pub fn matched_member(agent: Agent, event: Event) -> Option<&'static str> {
    if agent == Agent::Copilot {
        // Copilot's hook files have no matcher: every entry runs for its event.
        return None;
    }
    if capability(event).is_tool_event {
        return Some("tool_name");
    }
    match (agent, event) {
        (Agent::Gemini, Event::SessionStart | Event::SessionEnd) => {
            Some(if event == Event::SessionStart { "source" } else { "reason" })
        }
        (Agent::Gemini, Event::Notification) => Some("notification_type"),
        (Agent::Gemini, _) => None,
        (Agent::Codex, Event::SessionStart) => Some("source"),
        (Agent::Codex, Event::SubagentStart | Event::SubagentStop) => Some("agent_type"),
        (Agent::Codex | Agent::Copilot, _) => None,
        (Agent::Claude, _) => match event {
            Event::SessionStart | Event::ConfigChange | Event::DirectoryAdded => Some("source"),
            Event::Setup | Event::PreAutoCompact | Event::PostAutoCompact => Some("trigger"),
            Event::SessionEnd => Some("reason"),
            Event::Notification => Some("notification_type"),
            Event::SubagentStart | Event::SubagentStop => Some("agent_type"),
            Event::StopFailure => Some("error"),
            Event::InstructionsLoaded => Some("load_reason"),
            Event::UserPromptExpansion => Some("command_name"),
            Event::Elicitation | Event::ElicitationResult => Some("mcp_server_name"),
            Event::FileChanged => Some("file_path"),
            _ => None,
        },
    }
}

fn flavor(agent: Agent, event: Event) -> MatcherFlavor {
    match agent {
        Agent::Claude if matches!(event, Event::FileChanged | Event::StopFailure) => MatcherFlavor::ClaudeNarrow,
        Agent::Claude => MatcherFlavor::Claude,
        Agent::Gemini if capability(event).is_tool_event => MatcherFlavor::GeminiTool,
        Agent::Gemini => MatcherFlavor::GeminiExact,
        Agent::Codex => MatcherFlavor::Codex,
        Agent::Copilot => MatcherFlavor::Claude,
    }
}

impl AgentGate {
    /// Compiles the matcher and `if` rule of `def`, which sits on `event`.
    pub fn compile(def: &AgentHookDef, event: Event) -> Result<AgentGate, MatcherError> {
        let matcher = match matched_member(def.agent, event) {
            Some(_) => {
                let matcher = Matcher::compile(flavor(def.agent, event), def.matcher.as_deref())?;
                (!matcher.is_match_all()).then_some(matcher)
            }
            None => None,
        };
        let if_rule = def.handler.if_rule.as_deref().map(IfRule::parse).transpose()?;
        Ok(AgentGate { agent: def.agent, matcher, if_rule })
    }

    /// Whether nothing is ever filtered out.
    pub fn admits_all(&self) -> bool {
        self.matcher.is_none() && self.if_rule.is_none()
    }
}

impl AgentGate {
    /// The value the matcher compares on `event` (`member` is [`matched_member`]'s).
    fn matched_value(context: &Context, member: &str) -> String {
        match member {
            "tool_name" => context.tool_name.clone().unwrap_or_default(),
            "file_path" => context
                .extra
                .get("file_path")
                .and_then(Value::as_str)
                .map(|path| path.rsplit('/').next().unwrap_or(path).to_owned())
                .unwrap_or_default(),
            other => context.extra.get(other).and_then(Value::as_str).unwrap_or_default().to_owned(),
        }
    }
}

impl Gate for AgentGate {
    fn why_not(&self, event: Event, context: &Context) -> Option<String> {
        if self.admits(event, context) {
            return None;
        }
        if let Some(rule) = &self.if_rule {
            if !capability(event).is_tool_event {
                return Some(format!("if {:?} applies only to tool events, not {event}", rule.rule().trim()));
            }
            let input = super::input::tool_input(context);
            let tool = context.tool_name.as_deref().unwrap_or_default();
            let mut names = std::iter::once(tool).chain(tool_name_aliases(self.agent, tool).iter().copied());
            if !names.any(|name| rule.matches(name, &input)) {
                return Some(format!("if {:?} did not match tool {tool:?}", rule.rule().trim()));
            }
        }
        let (Some(matcher), Some(member)) = (&self.matcher, matched_member(self.agent, event)) else {
            return Some("its matcher did not select the event".to_owned());
        };
        let value = Self::matched_value(context, member);
        let what = if member == "tool_name" { "tool".to_owned() } else { member.to_owned() };
        Some(format!("matcher {:?} did not match {what} {value:?}", matcher.pattern()))
    }

    fn admits(&self, event: Event, context: &Context) -> bool {
        if let Some(rule) = &self.if_rule {
            // An `if` rule only applies to tool events; elsewhere the handler never runs.
            if !capability(event).is_tool_event {
                return false;
            }
            let input = super::input::tool_input(context);
            let tool = context.tool_name.as_deref().unwrap_or_default();
            let mut names = std::iter::once(tool).chain(tool_name_aliases(self.agent, tool).iter().copied());
            if !names.any(|name| rule.matches(name, &input)) {
                return false;
            }
        }
        let Some(matcher) = &self.matcher else { return true };
        let Some(member) = matched_member(self.agent, event) else { return true };
        let value = Self::matched_value(context, member);
        if member == "tool_name" {
            // The tool's other names (a legacy name, an agent's alias) select it too.
            return matcher.matches(&value)
                || tool_name_aliases(self.agent, &value).iter().any(|alias| matcher.matches(alias));
        }
        matcher.matches(&value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_protocol::agent_config::AgentHandler;

    fn gate(agent: Agent, matcher: Option<&str>, if_rule: Option<&str>) -> AgentGate {
        let def = AgentHookDef {
            agent,
            event_name: "PreToolUse".into(),
            matcher: matcher.map(str::to_owned),
            handler: AgentHandler {
                kind: "command".into(),
                if_rule: if_rule.map(str::to_owned),
                ..AgentHandler::default()
            },
            plugin_root: None,
            http_allowed_urls: None,
            http_allowed_env_vars: Vec::new(),
        };
        AgentGate::compile(&def, Event::PreToolExecution).unwrap()
    }

    fn call(tool: &str, input: &str) -> Context {
        Context { tool_name: Some(tool.into()), tool_arguments: Some(input.into()), ..Context::default() }
    }

    #[test]
    fn why_not_names_the_matcher_or_if_rule_that_failed() {
        let pre = Event::PreToolExecution;
        let matcher = gate(Agent::Claude, Some("^Bash$"), None);
        assert_eq!(matcher.why_not(pre, &call("Bash", "{}")), None);
        assert_eq!(
            matcher.why_not(pre, &call("bash", "{}")).as_deref(),
            Some(r#"matcher "^Bash$" did not match tool "bash""#)
        );
        let rule = gate(Agent::Claude, Some("Bash"), Some("Bash(rm *)"));
        assert_eq!(rule.why_not(pre, &call("Bash", r#"{"command":"rm -rf x"}"#)), None);
        assert_eq!(
            rule.why_not(pre, &call("Bash", r#"{"command":"ls"}"#)).as_deref(),
            Some(r#"if "Bash(rm *)" did not match tool "Bash""#)
        );
        assert_eq!(
            rule.why_not(Event::Stop, &Context::default()).as_deref(),
            Some(r#"if "Bash(rm *)" applies only to tool events, not stop"#)
        );
        // Codex's aliases: `Edit` selects apply_patch, so nothing is reported.
        assert_eq!(gate(Agent::Codex, Some("Edit"), None).why_not(pre, &call("apply_patch", "{}")), None);
    }
}
