//! Project hooks held back (not trusted yet, changed since trusted, a hook file removed) are
//! never silent in a bridge answer: a guard that does not run must not read as "allow".
//!
//! On a tool call (`PreToolUse`, Gemini's `BeforeTool`) the answer asks the person (Claude
//! Code, whose `ask` prompts, and in `-p` mode does not run the tool) or denies (Gemini CLI and
//! Codex, which have no usable `ask`), with a reason that names the file, what changed and the
//! command that trusts the project again. A denial of the hooks that did run stands. On every
//! other event the person is told once per session, in the agent's user-visible message.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use hook_agents::BridgeAnswer;
use hook_config::Untrusted;
use hook_protocol::{
    Agent, Event,
    serde_json::{self, Map, Value},
};

/// The text the person reads about `untrusted`, or `None` when nothing is held back.
pub(crate) fn note(untrusted: &[Untrusted]) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut commands: Vec<&str> = Vec::new();
    for entry in untrusted {
        let hooks =
            if entry.hooks.is_empty() { String::new() } else { format!(" (hooks: {})", entry.hooks.join(", ")) };
        parts.push(format!("{}: {}{hooks}", entry.config.display(), entry.reason));
        if !commands.contains(&entry.how_to_trust.as_str()) {
            commands.push(&entry.how_to_trust);
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "hookwire: this project's hooks are held back and did not check this: {}. After reviewing the files, {}.",
        parts.join("; "),
        commands.join(", and ")
    ))
}

/// `answer` with the held-back `note` applied for `event` (see the module docs); `session` keys
/// the once-per-session notice.
pub(crate) fn apply(
    agent: Agent,
    event: Event,
    session: Option<&str>,
    note: Option<&str>,
    mut answer: BridgeAnswer,
) -> BridgeAnswer {
    let Some(note) = note else { return answer };
    if event != Event::PreToolExecution {
        if first_time(session, note) {
            answer = with_message(agent, answer, note);
        }
        return answer;
    }
    // Exit 2 blocks the call in all three agents already.
    if answer.exit_code == 2 {
        return answer;
    }
    let mut top: Map<String, Value> = match serde_json::from_str::<Value>(answer.stdout.trim()) {
        Ok(Value::Object(top)) => top,
        _ => Map::new(),
    };
    let event_name = agent.event_name(event).unwrap_or(event.as_str());
    match agent {
        Agent::Copilot => {
            // Copilot's `ask` denies in `-p` and is refused in a session without a person: deny,
            // unless the hooks that ran already did.
            if top.get("permissionDecision").and_then(Value::as_str) != Some("deny") {
                top.insert("permissionDecision".into(), "deny".into());
                top.insert("permissionDecisionReason".into(), note.into());
                top.remove("modifiedArgs");
            }
        }
        Agent::Gemini => {
            let denied = matches!(top.get("decision").and_then(Value::as_str), Some("deny" | "block"));
            if !denied {
                top.insert("decision".into(), "deny".into());
                top.insert("reason".into(), note.into());
                if let Some(Value::Object(specific)) = top.get_mut("hookSpecificOutput") {
                    specific.remove("tool_input");
                }
            }
        }
        Agent::Claude | Agent::Codex => {
            let specific = top
                .entry("hookSpecificOutput")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .map(std::mem::take)
                .unwrap_or_default();
            let mut specific = specific;
            let decision = specific.get("permissionDecision").and_then(Value::as_str).unwrap_or_default();
            if decision != "deny" {
                // Codex has no `ask` (it would run the tool): deny there.
                let verdict = if agent == Agent::Claude { "ask" } else { "deny" };
                specific.insert("permissionDecision".into(), verdict.into());
                specific.insert("permissionDecisionReason".into(), note.into());
                if agent == Agent::Codex {
                    specific.remove("updatedInput");
                }
            }
            specific.insert("hookEventName".into(), event_name.into());
            top.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
    }
    if !matches!(agent, Agent::Codex | Agent::Copilot) {
        add_system_message(&mut top, note);
    }
    answer.stdout = format!("{}\n", Value::Object(top));
    answer.exit_code = 0;
    answer
}

/// `answer` with `note` in the agent's user-visible message (Claude Code's and Gemini CLI's
/// `systemMessage`; Codex shows none, so there it goes to stderr).
fn with_message(agent: Agent, mut answer: BridgeAnswer, note: &str) -> BridgeAnswer {
    // Codex and Copilot CLI show no message of a hook: the note goes to stderr there.
    if matches!(agent, Agent::Codex | Agent::Copilot) || (answer.exit_code != 0 && answer.stdout.trim().is_empty()) {
        answer.stderr.insert_str(0, &format!("{note}\n"));
        return answer;
    }
    let mut top: Map<String, Value> = match serde_json::from_str::<Value>(answer.stdout.trim()) {
        Ok(Value::Object(top)) => top,
        _ if answer.stdout.trim().is_empty() => Map::new(),
        // Text that is not a JSON object is the agent's to read as it is: leave it.
        _ => {
            answer.stderr.insert_str(0, &format!("{note}\n"));
            return answer;
        }
    };
    add_system_message(&mut top, note);
    answer.stdout = format!("{}\n", Value::Object(top));
    answer
}

fn add_system_message(top: &mut Map<String, Value>, note: &str) {
    let message = match top.get("systemMessage").and_then(Value::as_str) {
        Some(earlier) if !earlier.is_empty() => format!("{earlier}\n\n{note}"),
        _ => note.to_owned(),
    };
    top.insert("systemMessage".into(), message.into());
}

/// Where the once-per-session notices are remembered: `$XDG_STATE_HOME/hookwire/notices`, else
/// `~/.local/state/hookwire/notices`.
fn notices_dir() -> Option<PathBuf> {
    crate::discover::state_dir().map(|dir| dir.join("notices"))
}

/// Whether `note` was not yet shown in `session` (and remembers it now). Without a session
/// id, or where nothing can be remembered, every time.
fn first_time(session: Option<&str>, note: &str) -> bool {
    let (Some(session), Some(dir)) = (session.filter(|s| !s.is_empty()), notices_dir()) else { return true };
    first_time_in(&dir, session, note)
}

fn first_time_in(dir: &Path, session: &str, note: &str) -> bool {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let key = format!("{:016x}", crate::daemon::fnv1a(&[session.as_bytes(), note.as_bytes()]));
    if std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).is_err() {
        return true;
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(dir.join(key)) {
        Ok(mut file) => {
            let _ = file.write_all(session.as_bytes());
            true
        }
        Err(e) => e.kind() != std::io::ErrorKind::AlreadyExists,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held() -> Vec<Untrusted> {
        vec![Untrusted {
            config: PathBuf::from("/p/.hookwire/hooks.yaml"),
            reason: "`guard.sh` changed since it was trusted".into(),
            hooks: vec!["guard".into()],
            how_to_trust: "run `hookwire trust /p`".into(),
            undetermined: Vec::new(),
        }]
    }

    fn allow() -> BridgeAnswer {
        BridgeAnswer { exit_code: 0, stdout: String::new(), stderr: String::new() }
    }

    #[test]
    fn a_tool_call_asks_in_claude_and_is_denied_in_gemini_and_codex() {
        let note = note(&held()).unwrap();
        assert!(note.contains("guard.sh` changed") && note.contains("hookwire trust /p"), "{note}");
        let claude: Value =
            serde_json::from_str(&apply(Agent::Claude, Event::PreToolExecution, None, Some(&note), allow()).stdout)
                .unwrap();
        assert_eq!(claude["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(claude["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(claude["systemMessage"], note.as_str());
        let codex: Value =
            serde_json::from_str(&apply(Agent::Codex, Event::PreToolExecution, None, Some(&note), allow()).stdout)
                .unwrap();
        assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(codex["hookSpecificOutput"]["permissionDecisionReason"], note.as_str());
        let gemini: Value =
            serde_json::from_str(&apply(Agent::Gemini, Event::PreToolExecution, None, Some(&note), allow()).stdout)
                .unwrap();
        assert_eq!(gemini["decision"], "deny");
    }

    #[test]
    fn a_denial_of_the_hooks_that_ran_stands() {
        let denied = BridgeAnswer {
            exit_code: 0,
            stdout: r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}"#.into(),
            stderr: String::new(),
        };
        let answer = apply(Agent::Claude, Event::PreToolExecution, None, Some("held"), denied);
        let value: Value = serde_json::from_str(&answer.stdout).unwrap();
        assert_eq!(value["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(value["hookSpecificOutput"]["permissionDecisionReason"], "no rm");
    }

    #[test]
    fn other_events_tell_once_per_session() {
        let dir = std::env::temp_dir().join(format!("hookwire-notices-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(first_time_in(&dir, "s1", "note"));
        assert!(!first_time_in(&dir, "s1", "note"));
        assert!(first_time_in(&dir, "s2", "note"));
        assert!(first_time_in(&dir, "s1", "another note"));
        let _ = std::fs::remove_dir_all(&dir);
        let answer = apply(Agent::Claude, Event::SessionStart, None, Some("held"), allow());
        let value: Value = serde_json::from_str(&answer.stdout).unwrap();
        assert_eq!(value["systemMessage"], "held");
        assert!(note(&[]).is_none());
    }
}
