//! `hookwire log` and `hookwire stats` without an audit file: the decision store read back
//! (docs/observability.md). Rows the store had to drop are reported on stderr (text) or in
//! the JSON (`stats`), so a gap is never silent.

use std::{path::PathBuf, time::Duration};

use clap::Args;
use hook_store::{Drops, Filter, Reader, StoredFire};
use serde_json::{Value, json};

use crate::{Format, terminal};

/// Which store, over which window.
#[derive(Debug, Clone, Args)]
pub(crate) struct StoreArgs {
    /// The database (default `$XDG_STATE_HOME/hookwire/decisions.db`, or `HOOKWIRE_STORE`).
    #[arg(long, value_name = "PATH")]
    pub(crate) store: Option<PathBuf>,
    /// Only what happened in this last span of time: `90s`, `30m`, `2h`, `7d`.
    #[arg(long, value_name = "AGE", value_parser = parse_age)]
    pub(crate) since: Option<Duration>,
}

impl StoreArgs {
    /// The database to read; `Err` says why there is none.
    pub(crate) fn path(&self) -> Result<PathBuf, String> {
        if let Some(path) = &self.store {
            return Ok(path.clone());
        }
        hook_store::configured_path().ok_or_else(|| {
            "the decision store is off (HOOKWIRE_STORE) or has no home (set XDG_STATE_HOME or HOME); pass --store PATH"
                .to_owned()
        })
    }

    /// The start of the window, ms since the epoch.
    pub(crate) fn since_ms(&self) -> Option<i64> {
        self.since.map(|age| hook_store::now_ms() - i64::try_from(age.as_millis()).unwrap_or(i64::MAX / 2))
    }

    pub(crate) fn open(&self) -> Result<Reader, String> {
        Reader::open(&self.path()?).map_err(|e| e.to_string())
    }
}

/// `90s`, `30m`, `2h`, `7d` (a bare number is seconds).
pub(crate) fn parse_age(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len()));
    let value: f64 = number.parse().map_err(|_| format!("`{text}` is not an age: write 90s, 30m, 2h or 7d"))?;
    let seconds = match unit {
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        "w" => 7.0 * 86_400.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}`; write 90s, 30m, 2h, 7d or 2w")),
    };
    Duration::try_from_secs_f64(value * seconds).map_err(|_| format!("`{text}` is not an age"))
}

/// `hookwire log`.
#[derive(Debug, Args)]
pub(crate) struct LogArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Only this session.
    #[arg(long)]
    session: Option<String>,
    /// Only this agent (claude, gemini, codex).
    #[arg(long)]
    agent: Option<String>,
    /// Only projects whose directory contains this text.
    #[arg(long)]
    project: Option<String>,
    /// Only this decision: deny, ask, allow, continue, or an engine decision (deny_tool, stop,
    /// abort_turn, ...).
    #[arg(long)]
    decision: Option<String>,
    /// Only fires where a hook whose id contains this text ran.
    #[arg(long)]
    hook: Option<String>,
    /// Only fires where a rule whose name contains this text decided.
    #[arg(long)]
    rule: Option<String>,
    /// At most this many fires (before `--follow` streams the new ones).
    #[arg(short = 'n', long, default_value_t = 50)]
    limit: usize,
    /// Keep running and print new fires as they are recorded.
    #[arg(short, long)]
    follow: bool,
    /// Output format: lines for people, or one JSON object per fire and line.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

impl LogArgs {
    fn filter(&self) -> Filter {
        Filter {
            session: self.session.clone(),
            agent: self.agent.clone(),
            project: self.project.clone(),
            decision: self.decision.clone(),
            hook: self.hook.clone(),
            rule: self.rule.clone(),
            since_ms: self.store.since_ms(),
            after_id: None,
            limit: self.limit,
        }
    }
}

/// How often `--follow` looks for new rows.
const FOLLOW_EVERY: Duration = Duration::from_millis(250);

pub(crate) async fn run(args: LogArgs) -> u8 {
    let reader = match args.store.open() {
        Ok(reader) => reader,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let mut filter = args.filter();
    let fires = match reader.fires(&filter) {
        Ok(fires) => fires,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    report_drops(&reader.drops(filter.since_ms));
    let mut last = fires.iter().map(|f| f.id).max().unwrap_or(0);
    if args.follow && fires.is_empty() {
        // Nothing matched yet: follow from the newest row, not from the beginning.
        last = reader.last_id().unwrap_or(0);
    }
    if args.follow {
        // Oldest first, as the stream that follows goes on.
        fires.iter().rev().for_each(|fire| print_fire(fire, args.format));
    } else {
        fires.iter().for_each(|fire| print_fire(fire, args.format));
    }
    if !args.follow {
        return 0;
    }
    filter.after_id = Some(last);
    filter.limit = 0;
    let mut dropped = reader.drops(None).rows;
    loop {
        tokio::time::sleep(FOLLOW_EVERY).await;
        match reader.fires(&filter) {
            Ok(fires) => {
                for fire in &fires {
                    print_fire(fire, args.format);
                    filter.after_id = Some(fire.id);
                }
            }
            Err(e) => eprintln!("warning: {e}"),
        }
        let now = reader.drops(None).rows;
        if now > dropped {
            eprintln!("warning: {} more row(s) dropped by the decision store", now - dropped);
            dropped = now;
        }
    }
}

fn report_drops(drops: &Drops) {
    if drops.rows == 0 {
        return;
    }
    let why: Vec<String> = drops.reasons.iter().map(|(why, rows)| format!("{rows}: {why}")).collect();
    eprintln!("warning: the decision store dropped {} row(s) instead of writing them ({})", drops.rows, why.join("; "));
}

/// A fire as one JSON object, its hook runs in it; a run that a guard rule decided also gets
/// `rule_place`: `pack <name>` or the rule's `file:line`.
pub(crate) fn fire_json(fire: &StoredFire) -> Value {
    let mut value = serde_json::to_value(fire).unwrap_or_default();
    for (run, json) in fire.hooks.iter().zip(value["hooks"].as_array_mut().into_iter().flatten()) {
        if let Some(place) = rule_place(run) {
            json["rule_place"] = json!(place);
        }
    }
    value
}

/// Where the rule that decided `run` is written: `pack git` for a pack's rule, the rules
/// file's `path:line` for a file's own (the line found by the rule's name, now).
fn rule_place(run: &hook_store::StoredHookRun) -> Option<String> {
    let rule = run.rule.as_deref()?;
    if let Some((pack, _)) = rule.split_once('/')
        && hook_protocol::rules::PackName::ALL.iter().any(|p| p.as_str() == pack)
    {
        return Some(format!("pack {pack}"));
    }
    let file = run.source_file.as_deref()?;
    let line = std::fs::read_to_string(file).ok().and_then(|text| hook_rules::explain::name_line(&text, rule));
    Some(match line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_owned(),
    })
}

fn print_fire(fire: &StoredFire, format: Format) {
    if format == Format::Json {
        outln!("{}", fire_json(fire));
        return;
    }
    let tool = fire.tool.as_deref().map(|t| format!("({})", terminal::safe(t))).unwrap_or_default();
    outln!(
        "{}  {:<8} {:<7} {}{}  session={}  {:.1}ms{}",
        utc(fire.time_ms),
        fire.verdict,
        fire.agent.as_deref().unwrap_or(&fire.origin),
        fire.event,
        tool,
        terminal::safe(fire.session.as_deref().unwrap_or("-")),
        fire.latency_us as f64 / 1000.0,
        fire.reason.as_deref().map(|r| format!("  {}", terminal::safe(r))).unwrap_or_default(),
    );
    for run in &fire.hooks {
        let source = match (&run.source_file, run.source_line) {
            (Some(file), Some(line)) => format!("  {}:{line}", terminal::safe(file)),
            (Some(file), None) => format!("  {}", terminal::safe(file)),
            _ => String::new(),
        };
        let source = match (&run.rule, rule_place(run)) {
            (Some(rule), Some(place)) => format!("  rule {} ({})", terminal::safe(rule), terminal::safe(&place)),
            (Some(rule), None) => format!("  rule {}", terminal::safe(rule)),
            _ => source,
        };
        // Only a sandboxed run says so: `none` on every unconfined command hook would be noise
        // (the JSON has it for every run of a kind that starts a process).
        let sandbox = match run.sandbox.as_deref() {
            Some(sandbox) if sandbox != "none" => format!("  sandbox {}", terminal::safe(sandbox)),
            _ => String::new(),
        };
        outln!(
            "    {}  {}{}  {:.1}ms{}{}{}",
            terminal::safe(&run.hook_id),
            run.outcome,
            run.decision.as_deref().map(|d| format!(" {d}")).unwrap_or_default(),
            run.latency_us as f64 / 1000.0,
            source,
            sandbox,
            run.error.as_deref().map(|e| format!("  error: {}", terminal::safe(e))).unwrap_or_default(),
        );
    }
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) of `ms` since the epoch.
pub(crate) fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `hookwire stats` over the decision store.
pub(crate) fn stats(args: &StoreArgs, format: Format) -> u8 {
    let reader = match args.open() {
        Ok(reader) => reader,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let hooks = match reader.stats(args.since_ms()) {
        Ok(hooks) => hooks,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let drops = reader.drops(args.since_ms());
    match format {
        Format::Json => {
            let out = json!({
                "store": reader.path().display().to_string(),
                "hooks": hooks,
                "dropped": drops,
            });
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        Format::Text => {
            report_drops(&drops);
            outln!(
                "{:<48} {:>6} {:>6} {:>6} {:>9} {:>9} {:>9}  source",
                "id",
                "runs",
                "errors",
                "denies",
                "p50_ms",
                "p95_ms",
                "max_ms"
            );
            for hook in &hooks {
                outln!(
                    "{:<48} {:>6} {:>6} {:>6} {:>9.2} {:>9.2} {:>9.2}  {}",
                    terminal::safe(&hook.hook_id),
                    hook.runs,
                    hook.errors,
                    hook.denies,
                    hook.p50_ms,
                    hook.p95_ms,
                    hook.max_ms,
                    terminal::safe(hook.source.as_deref().unwrap_or("-")),
                );
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_dates_read_as_written() {
        assert_eq!(parse_age("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_age("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_age("1.5d"), Ok(Duration::from_secs(129_600)));
        assert!(parse_age("2 fortnights").unwrap_err().contains("unknown unit"));
        assert!(parse_age("soon").is_err());
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(1_709_251_199_000), "2024-02-29 23:59:59");
    }
}
