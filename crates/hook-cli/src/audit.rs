//! The audit log: one JSON line per hook run, appended.

use std::{
    io::Write,
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

use hook_core::FireOutcome;
use serde_json::json;

/// Appends one line per trace entry of `outcome` to `path`.
pub(crate) fn append(path: &Path, outcome: &FireOutcome) -> std::io::Result<()> {
    let time_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let mut lines = String::new();
    for entry in &outcome.trace {
        let mut line = json!({
            "time_ms": time_ms,
            "event": outcome.event.as_str(),
            "id": entry.id.as_str(),
            "outcome": entry.outcome.as_str(),
            "action": entry.action.map(|a| a.as_str()),
            "changed": entry.changed.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
            "duration_ms": entry.duration.as_secs_f64() * 1000.0,
            "attempts": entry.attempts,
        });
        // The run that halted the chain: a rules hook's reason names the guard rule.
        if entry.action.is_some()
            && let Some(rule) = outcome.reason.as_deref().and_then(hook_store::rule_in_reason)
        {
            line["rule"] = json!(rule);
        }
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    // One write per fire, so concurrent writers do not interleave inside a line.
    std::fs::OpenOptions::new().create(true).append(true).open(path)?.write_all(lines.as_bytes())
}
