//! Alternating measurement of two variants and the table of results.

use std::{fmt::Write as _, time::Instant};

/// How a row is judged.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// Median of the per-pair ratios (hookwire / baseline) at most this.
    RatioAtMost(f64),
    /// hookwire median at most this many seconds, and (when `Some`) at most this many
    /// allocations per operation.
    AbsoluteAtMost { seconds: f64, allocations: Option<f64> },
    /// Reported, not judged.
    Info,
}

/// One line of the table: per-operation times in seconds of hookwire (`a`) and the baseline
/// (`b`), measured in alternating pairs.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) name: String,
    pub(crate) a: Vec<f64>,
    pub(crate) b: Vec<f64>,
    pub(crate) target: Target,
    /// Allocations per operation of the hookwire side, when counted.
    pub(crate) allocations: Option<f64>,
}

impl Row {
    pub(crate) fn new(name: impl Into<String>, (a, b): (Vec<f64>, Vec<f64>), target: Target) -> Self {
        Row { name: name.into(), a, b, target, allocations: None }
    }

    /// The per-pair ratios hookwire / baseline.
    fn ratios(&self) -> Vec<f64> {
        self.a.iter().zip(&self.b).map(|(a, b)| a / b).collect()
    }

    fn ratio(&self) -> f64 {
        median(&self.ratios())
    }

    /// How the per-pair ratios spread: their p10 and p90.
    fn ratio_spread(&self) -> (f64, f64) {
        let ratios = self.ratios();
        (quantile(&ratios, 0.1), quantile(&ratios, 0.9))
    }

    fn verdict(&self) -> (String, &'static str) {
        let pass = |ok: bool| if ok { "PASS" } else { "MISS" };
        match &self.target {
            Target::RatioAtMost(max) => (format!("ratio <= {max}"), pass(self.ratio() <= *max)),
            Target::AbsoluteAtMost { seconds, allocations } => {
                let mut text = format!("< {}", fmt_time(*seconds));
                let mut ok = median(&self.a) < *seconds;
                if let Some(max) = allocations {
                    let _ = write!(text, ", {max} allocs");
                    ok &= self.allocations.is_some_and(|n| n <= *max);
                }
                (text, pass(ok))
            }
            Target::Info => ("-".into(), "info"),
        }
    }
}

/// Seconds since `started`.
pub(crate) fn since(started: Instant) -> f64 {
    started.elapsed().as_secs_f64()
}

pub(crate) fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

pub(crate) fn p99(values: &[f64]) -> f64 {
    quantile(values, 0.99)
}

/// The nearest-rank quantile (the median of an even count is the mean of the middle two).
fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    if q == 0.5 {
        let mid = sorted.len() / 2;
        return if sorted.len().is_multiple_of(2) { (sorted[mid - 1] + sorted[mid]) / 2.0 } else { sorted[mid] };
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// `1.23 ms`, `456 ns`, ...
pub(crate) fn fmt_time(seconds: f64) -> String {
    if seconds < 1e-6 {
        format!("{:.1} ns", seconds * 1e9)
    } else if seconds < 1e-3 {
        format!("{:.2} µs", seconds * 1e6)
    } else if seconds < 1.0 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{seconds:.2} s")
    }
}

/// The markdown table of `rows`.
pub(crate) fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str(
        "| row | pairs | hookwire median | baseline median | hookwire p99 | baseline p99 | median ratio | ratio p10 to p90 \
         | target | result |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for row in rows {
        let (target, verdict) = row.verdict();
        let mut name = row.name.clone();
        if let Some(n) = row.allocations {
            let _ = write!(name, " ({n:.2} allocs/op)");
        }
        let (p10, p90) = row.ratio_spread();
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {:.3} | {p10:.3} to {p90:.3} | {target} | {verdict} |",
            row.a.len(),
            fmt_time(median(&row.a)),
            fmt_time(median(&row.b)),
            fmt_time(p99(&row.a)),
            fmt_time(p99(&row.b)),
            row.ratio(),
        );
    }
    out
}
