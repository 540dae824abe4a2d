//! Running agent sessions for `chat` and `demo`: mounting hooks, printing the transcript as it
//! happens, and the audit log.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
};

use agent_loop::{FiredEvent, Session, TurnEvent};
use hook_core::{Engine, FireOutcome};

use crate::{audit, transcript};

/// Prints the transcript of `session` as it happens; with `verbose` false, events no hook took
/// part in are left out. Also appends every hook run to the audit log, when one is given.
pub(crate) fn watch(session: &mut Session, verbose: bool, audit_path: Option<PathBuf>) {
    watch_printing(session, verbose, audit_path, true);
}

/// [`watch`], printing the live transcript only when `print`.
pub(crate) fn watch_printing(session: &mut Session, verbose: bool, audit_path: Option<PathBuf>, print: bool) {
    let audit_path = audit_path.map(Mutex::new);
    let audit_path = Arc::new(audit_path);
    session.on_event(Box::new(move |event: &TurnEvent| {
        if let TurnEvent::Fired(fired) = event {
            if let Some(path) = audit_path.as_ref() {
                let path = path.lock().unwrap_or_else(|p| p.into_inner());
                let outcome = FireOutcome { trace: fired.hooks.clone(), ..FireOutcome::empty(fired.event) };
                if let Err(e) = audit::append(&path, &outcome) {
                    eprintln!("warning: cannot write the audit log {}: {e}", path.display());
                }
            }
            if !verbose && fired.hooks.is_empty() {
                return;
            }
        }
        if print {
            for line in transcript::lines(event) {
                outln!("{line}");
            }
        }
    }));
}

/// A fired event as JSON: the event, its decision and reason, and each hook's part.
pub(crate) fn fired_json(fired: &FiredEvent) -> serde_json::Value {
    serde_json::json!({
        "event": fired.event.as_str(),
        "round": fired.round,
        "tool": fired.tool_name,
        "decision": fired.decision.as_str(),
        "reason": fired.reason,
        "hooks": fired.hooks.iter().map(|entry| serde_json::json!({
            "id": entry.id.as_str(),
            "outcome": entry.outcome.as_str(),
            "action": entry.action.map(|a| a.as_str()),
            "error": entry.error.as_ref().map(ToString::to_string),
        })).collect::<Vec<_>>(),
    })
}

/// Prints one fired event (e.g. `session_start`, which fires before a listener can be added).
pub(crate) fn show(fired: &FiredEvent) {
    for line in transcript::fired_lines(fired) {
        outln!("{line}");
    }
}

/// One line per hook and event that will run, for the header of a session.
pub(crate) fn hook_listing(engine: &Engine) -> Vec<String> {
    hook_core::Event::ALL
        .into_iter()
        .flat_map(|event| engine.hooks_for(event))
        .map(|hook| format!("  {}  kind={} on_error={}", hook.id, hook.kind, hook.on_error.as_str()))
        .collect()
}
