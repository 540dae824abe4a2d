//! A readable transcript of a session: every event, every hook's decision, tool activity and
//! notices, printed as they happen.

use agent_loop::{FiredEvent, TurnEvent};
use hook_core::head_chars;

/// The lines for one turn event.
pub(crate) fn lines(event: &TurnEvent) -> Vec<String> {
    match event {
        TurnEvent::TurnStarted { turn_id } => vec![format!("── turn {turn_id}")],
        TurnEvent::Fired(fired) => fired_lines(fired),
        TurnEvent::Notice(text) => vec![format!("   notice: {text}")],
        TurnEvent::ToolStarted { name, arguments } => vec![format!("   tool {name} {}", head_chars(arguments, 120))],
        TurnEvent::ToolFinished { name, result } => {
            let status = if result.is_error() { "failed" } else { "result" };
            vec![format!("   tool {name} {status}: {}", one_line(&head_chars(&result.for_llm, 160)))]
        }
        TurnEvent::ToolSkipped { name, reason } => vec![format!("   tool {name} not run: {reason}")],
        TurnEvent::MediaDelivered(item) => vec![format!("   media delivered: {}", item.reference)],
        TurnEvent::SteeringInjected { count } => vec![format!("   steering: {count} message(s) injected")],
        TurnEvent::AssistantText(text) => vec![format!("   model: {}", one_line(&head_chars(text, 200)))],
        _ => Vec::new(),
    }
}

fn one_line(text: &str) -> String {
    text.replace('\n', " ⏎ ")
}

/// `[event(tool)] decision (reason)` and one indented line per hook that took part.
pub(crate) fn fired_lines(fired: &FiredEvent) -> Vec<String> {
    let mut head = format!("[{}", fired.event);
    if let Some(tool) = &fired.tool_name {
        head.push_str(&format!("({tool})"));
    }
    head.push_str(&format!("] {}", fired.decision.as_str()));
    if !fired.changed.is_empty() {
        let names: Vec<&str> = fired.changed.iter().map(|f| f.as_str()).collect();
        head.push_str(&format!(" changed={}", names.join(",")));
    }
    if let Some(reason) = &fired.reason {
        head.push_str(&format!(" ({reason})"));
    }
    let mut lines = vec![head];
    for entry in &fired.hooks {
        let mut line = format!("     hook {} → {}", entry.id, entry.outcome.as_str());
        if let Some(action) = entry.action {
            line.push_str(&format!(" action={}", action.as_str()));
        }
        if !entry.changed.is_empty() {
            let names: Vec<&str> = entry.changed.iter().map(|f| f.as_str()).collect();
            line.push_str(&format!(" changed={}", names.join(",")));
        }
        if entry.attempts > 1 {
            line.push_str(&format!(" attempts={}", entry.attempts));
        }
        if let Some(error) = &entry.error {
            line.push_str(&format!(" error: {}", head_chars(&error.to_string(), 160)));
        }
        lines.push(line);
    }
    lines
}
