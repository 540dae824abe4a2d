//! `hookwire stats`: per hook id, runs, outcomes, median and p95 duration from an audit log.
//!
//! Filtered and disabled runs are counted under their own names and left out of the
//! durations: a hook that did not run took no time, and its zeros would pull the median down.

use std::{collections::BTreeMap, path::Path};

use serde_json::{Value, json};

use crate::Format;

#[derive(Debug, Default)]
struct HookStats {
    runs: usize,
    ok: usize,
    failed: usize,
    filtered: usize,
    disabled: usize,
    durations_ms: Vec<f64>,
}

/// The `q`-quantile (0..=1) of sorted values, nearest rank.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

pub(crate) fn run(path: &Path, format: Format) -> u8 {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return 1;
        }
    };
    let mut by_id: BTreeMap<String, HookStats> = BTreeMap::new();
    let mut warnings: Vec<(usize, String)> = Vec::new();
    for (line_idx, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let record: Value = match serde_json::from_str(line) {
            Ok(record) => record,
            Err(e) => {
                warnings.push((line_idx + 1, format!("not a JSON line ({e}); skipped")));
                continue;
            }
        };
        let Some(id) = record["id"].as_str() else {
            warnings.push((line_idx + 1, "no `id`; skipped".to_owned()));
            continue;
        };
        let stats = by_id.entry(id.to_owned()).or_default();
        stats.runs += 1;
        match record["outcome"].as_str().unwrap_or_default() {
            "ok" | "no_change" => stats.ok += 1,
            "filtered" => {
                stats.filtered += 1;
                continue;
            }
            "disabled" => {
                stats.disabled += 1;
                continue;
            }
            _ => stats.failed += 1,
        }
        if let Some(ms) = record["duration_ms"].as_f64() {
            stats.durations_ms.push(ms);
        }
    }
    for stats in by_id.values_mut() {
        stats.durations_ms.sort_by(f64::total_cmp);
    }
    match format {
        Format::Json => {
            let hooks: Vec<Value> = by_id
                .iter()
                .map(|(id, stats)| {
                    json!({
                        "id": id,
                        "runs": stats.runs,
                        "ok": stats.ok,
                        "failed": stats.failed,
                        "filtered": stats.filtered,
                        "disabled": stats.disabled,
                        "median_ms": quantile(&stats.durations_ms, 0.5),
                        "p95_ms": quantile(&stats.durations_ms, 0.95),
                    })
                })
                .collect();
            let warnings: Vec<Value> = warnings
                .iter()
                .map(|(line, message)| json!({"file": path.display().to_string(), "line": line, "message": message}))
                .collect();
            let out = json!({"file": path.display().to_string(), "hooks": hooks, "warnings": warnings});
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        Format::Text => {
            for (line, message) in &warnings {
                eprintln!("warning: {}:{line}: {message}", path.display());
            }
            outln!(
                "{:<48} {:>6} {:>6} {:>7} {:>8} {:>8} {:>11} {:>9}",
                "id",
                "runs",
                "ok",
                "failed",
                "filtered",
                "disabled",
                "median_ms",
                "p95_ms"
            );
            for (id, stats) in &by_id {
                outln!(
                    "{:<48} {:>6} {:>6} {:>7} {:>8} {:>8} {:>11.2} {:>9.2}",
                    id,
                    stats.runs,
                    stats.ok,
                    stats.failed,
                    stats.filtered,
                    stats.disabled,
                    quantile(&stats.durations_ms, 0.5),
                    quantile(&stats.durations_ms, 0.95),
                );
            }
        }
    }
    0
}
