//! What one fire leaves in the store: a [`FireRecord`] with one [`HookRun`] per hook of its
//! trace, built from the engine's [`FireOutcome`] by the caller (cheap: bounded copies, no
//! redaction, which the writer thread does).

use std::time::Duration;

use hook_core::{
    Context, Decision, FireOutcome, HookError, HookSummary, OutcomeClass, TraceEntry, head_chars, tail_chars,
};
use hook_protocol::config::{SandboxMode, SandboxPolicy};
use serde::{Deserialize, Serialize};

/// The input summary's bound, in characters, after redaction.
pub const MAX_SUMMARY_CHARS: usize = 1024;

/// The stderr tail's (and error text's) bound, in characters.
pub const MAX_STDERR_CHARS: usize = 2048;

/// How much raw input the caller copies: enough that redaction sees a whole secret before the
/// summary is cut to [`MAX_SUMMARY_CHARS`].
const RAW_INPUT_CHARS: usize = 8192;

/// Which hookwire command fired. Serialized as [`Origin::as_str`] (the spool's files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Origin {
    /// `hookwire hook <agent>`, in its own process.
    Bridge,
    /// `hookwire hook <agent>` answered by the project's daemon.
    Daemon,
    /// `hookwire chat`.
    Chat,
    /// `hookwire fire`.
    Fire,
    /// The daemon's `fire` RPC, called by a program.
    Serve,
    /// An embedder's `hook_host::Host`.
    Host,
}

impl Origin {
    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Bridge => "bridge",
            Origin::Daemon => "daemon",
            Origin::Chat => "chat",
            Origin::Fire => "fire",
            Origin::Serve => "serve",
            Origin::Host => "host",
        }
    }
}

/// One hook's run in a fire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRun {
    /// The hook's id (`project:guard:pre_tool_execution`).
    pub hook_id: String,
    /// Its executor kind (`bash`, `process`, `claude-command`, ...), when known.
    pub kind: Option<String>,
    /// The configuration file that declared it.
    pub source_file: Option<String>,
    /// The line in that file.
    pub source_line: Option<i64>,
    /// How its run ended (`ok`, `no_change`, `filtered`, `timed_out`, ...).
    pub outcome: String,
    /// The action it returned that took effect (`deny_tool`, `stop`, ...).
    pub decision: Option<String>,
    /// Time spent, retries included.
    pub latency_us: i64,
    /// Its exit code, when it was a process that exited with an error.
    pub exit_code: Option<i64>,
    /// The last lines of its stderr, when it failed (bounded).
    pub stderr_tail: Option<String>,
    /// Its error, or why it was filtered out (bounded).
    pub error: Option<String>,
    /// The rule that decided, for rule hooks.
    pub rule: Option<String>,
    /// The sandbox the run had, for the kinds that start processes ([`sandbox_text`]):
    /// `none`, `enforced (Landlock ABI 7)`, or what the kernel could not enforce.
    pub sandbox: Option<String>,
}

/// One fire, as recorded (and as a line of a spool file, [`crate::Spool`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireRecord {
    /// When it ended, milliseconds since the Unix epoch.
    pub time_ms: i64,
    /// Which command fired.
    pub origin: Origin,
    /// The agent (`claude`, `gemini`, `codex`), for bridge calls.
    pub agent: Option<String>,
    /// The project directory.
    pub project: Option<String>,
    /// The session id.
    pub session: Option<String>,
    /// The event (`pre_tool_execution`, ...).
    pub event: String,
    /// The tool, for tool events.
    pub tool: Option<String>,
    /// The start of the input (tool arguments, prompt), not yet redacted: the writer redacts
    /// and bounds it to [`MAX_SUMMARY_CHARS`].
    pub input: Option<String>,
    /// The engine's combined decision (`deny_tool`, `continue`, ...).
    pub decision: String,
    /// The decision as a person names it: `deny`, `ask`, `allow`, `defer`, `continue`, or the
    /// engine's name for the others (`stop`, `abort_turn`, ...).
    pub verdict: String,
    /// Why, when a hook said.
    pub reason: Option<String>,
    /// The whole fire's duration.
    pub latency_us: i64,
    /// One entry per hook of the trace, in run order.
    pub hooks: Vec<HookRun>,
}

/// The guard rule a rules hook's reason names: `pack/name` or a file's rule `name`, from the
/// `(hookwire rule NAME)` that hook-rules writes into every reason it gives.
pub fn rule_in_reason(reason: &str) -> Option<&str> {
    const MARK: &str = "(hookwire rule ";
    let start = reason.find(MARK)? + MARK.len();
    let rest = &reason[start..];
    let name = &rest[..rest.find(|c: char| c == ')' || c.is_whitespace())?];
    (!name.is_empty()).then_some(name)
}

/// `deny`, `ask`, `allow`, ... (see [`FireRecord::verdict`]).
pub(crate) fn verdict(outcome: &FireOutcome) -> String {
    match outcome.decision {
        Decision::DenyTool | Decision::Denied => "deny".to_owned(),
        Decision::Continue | Decision::Approved => match outcome.permission {
            Some(permission) => permission.as_str().to_owned(),
            None => outcome.decision.as_str().to_owned(),
        },
        other => other.as_str().to_owned(),
    }
}

/// The hook kinds whose executors start processes and confine them (docs/sandbox.md): only
/// their runs have a sandbox to describe.
pub const CONFINED_KINDS: &[&str] = &["bash", "command", "process"];

/// The sandbox a run of a `kind` hook whose spec asks for `policy` has on this system, as
/// stored and shown: `None` for a kind that starts no process; `none` when unconfined;
/// `enforced (Landlock ABI 7)` when the kernel enforces the whole policy; otherwise the mode
/// and the shortfall, `best-effort: Landlock ABI 3, not enforced: TCP rules (Landlock ABI 4),
/// ...`, and for a `required` policy the kernel cannot enforce, that the hook was refused.
///
/// Worked out as the executor does ([`hook_sandbox::missing_at`] at this process's
/// [`hook_sandbox::support`], which is probed once and honours its ABI cap), without running
/// anything: the executor and the recorder are the same process.
pub fn sandbox_text(kind: &str, policy: Option<&SandboxPolicy>) -> Option<String> {
    if !CONFINED_KINDS.contains(&kind) {
        return None;
    }
    let Some(policy) = policy.filter(|p| p.is_on()) else { return Some("none".to_owned()) };
    let support = hook_sandbox::support();
    let missing = hook_sandbox::missing_at(policy, support.abi);
    let offered = if support.abi == 0 { support.describe() } else { format!("Landlock ABI {}", support.abi) };
    if missing.is_empty() {
        return Some(format!("enforced ({offered})"));
    }
    let mode = match policy.mode {
        SandboxMode::BestEffort => "best-effort",
        // Below ABI 6 only the signal scoping is missing, which `required` does not demand.
        SandboxMode::Required if missing.iter().any(|what| !what.starts_with("signal")) => "required, not started",
        _ => "required",
    };
    Some(format!("{mode}: {offered}, not enforced: {}", missing.join(", ")))
}

fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

impl HookRun {
    /// The run of `entry`, with its kind and source from `summary` when there is one.
    pub fn from_trace(entry: &TraceEntry, summary: Option<&HookSummary>) -> HookRun {
        let (exit_code, stderr_tail) = match &entry.error {
            Some(HookError::ProcessExited { status, stderr_tail }) => (
                status.strip_prefix("exit code ").and_then(|n| n.trim().parse().ok()),
                (!stderr_tail.is_empty()).then(|| tail_chars(stderr_tail, MAX_STDERR_CHARS)),
            ),
            _ => (None, None),
        };
        let error = entry
            .error
            .as_ref()
            .map(|e| head_chars(&e.to_string(), MAX_STDERR_CHARS))
            .or_else(|| entry.reason.as_ref().map(|r| head_chars(r, MAX_STDERR_CHARS)));
        let source = summary.and_then(|s| s.source.as_ref());
        let kind = summary.map(|s| s.kind.as_str().to_owned());
        // A run the filter or a switch skipped started nothing, so it had no sandbox.
        let ran = !matches!(entry.outcome, OutcomeClass::Filtered | OutcomeClass::Disabled);
        let sandbox = summary.filter(|_| ran).and_then(|s| sandbox_text(s.kind.as_str(), s.sandbox.as_ref()));
        HookRun {
            hook_id: entry.id.as_str().to_owned(),
            // Known only for the run that decided, from the fire's reason (see `from_outcome`).
            rule: None,
            kind,
            source_file: source.map(|s| s.file.display().to_string()),
            source_line: source.and_then(|s| s.line).and_then(|l| i64::try_from(l).ok()),
            outcome: entry.outcome.as_str().to_owned(),
            decision: entry.action.map(|a| a.as_str().to_owned()),
            latency_us: micros(entry.duration),
            exit_code,
            stderr_tail,
            error,
            sandbox,
        }
    }
}

impl FireRecord {
    /// The record of `outcome`, fired over `context` (as the hooks left it) in `latency`;
    /// `hooks` are the engine's hooks of the event ([`hook_core::Engine::hooks_for`]), for each
    /// run's kind and source.
    pub fn from_outcome(
        origin: Origin,
        outcome: &FireOutcome,
        context: &Context,
        hooks: &[HookSummary],
        latency: Duration,
    ) -> FireRecord {
        let input = context
            .tool_arguments
            .as_deref()
            .or(context.user_input.as_deref())
            .or(context.assistant_output.as_deref())
            .map(|text| head_chars(text, RAW_INPUT_CHARS));
        FireRecord {
            time_ms: crate::now_ms(),
            origin,
            agent: None,
            project: context.cwd.clone(),
            session: context.session_id.clone(),
            event: outcome.event.as_str().to_owned(),
            tool: context.tool_name.clone(),
            input,
            decision: outcome.decision.as_str().to_owned(),
            verdict: verdict(outcome),
            reason: outcome.reason.as_ref().map(|r| head_chars(r, MAX_STDERR_CHARS)),
            latency_us: micros(latency),
            hooks: outcome
                .trace
                .iter()
                .map(|entry| {
                    let mut run = HookRun::from_trace(entry, hooks.iter().find(|h| h.id == entry.id));
                    if entry.action.is_some() && run.kind.as_deref() == Some("rules") {
                        // The rules hook that halted the chain: its reason names the rule.
                        run.rule = outcome.reason.as_deref().and_then(rule_in_reason).map(str::to_owned);
                    }
                    run
                })
                .collect(),
        }
    }

    /// With the agent that called.
    pub fn agent(mut self, agent: impl Into<String>) -> FireRecord {
        self.agent = Some(agent.into());
        self
    }

    /// With the project directory (instead of the context's working directory).
    pub fn project(mut self, project: impl Into<String>) -> FireRecord {
        self.project = Some(project.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use hook_protocol::config::{NetworkPolicy, SandboxMode, SandboxPolicy};

    use super::{rule_in_reason, sandbox_text};

    #[test]
    fn a_run_s_sandbox_is_described_for_the_kinds_that_start_processes_only() {
        let policy = SandboxPolicy::default();
        assert_eq!(sandbox_text("rules", Some(&policy)), None, "a rules hook starts no process");
        assert_eq!(sandbox_text("llm", None), None);
        assert_eq!(sandbox_text("bash", None).as_deref(), Some("none"));
        let off = SandboxPolicy::with_mode(SandboxMode::Off);
        assert_eq!(sandbox_text("process", Some(&off)).as_deref(), Some("none"));
        // This process's kernel, as `hookwire check` reports it: the whole policy, or a
        // shortfall named with the ABI it needs.
        let support = hook_sandbox::support();
        let text = sandbox_text("command", Some(&policy)).unwrap();
        if support.abi >= 6 {
            assert_eq!(text, format!("enforced (Landlock ABI {})", support.abi));
        } else {
            assert!(text.starts_with("required") && text.contains("not enforced: "), "{text}");
        }
        let lax = SandboxPolicy { mode: SandboxMode::BestEffort, network: NetworkPolicy::Any, ..policy };
        let text = sandbox_text("bash", Some(&lax)).unwrap();
        assert!(text.starts_with(if support.abi >= 6 { "enforced" } else { "best-effort: " }), "{text}");
    }

    #[test]
    fn the_rule_is_read_out_of_a_rules_reason() {
        let reason = "`git reset --hard` discards every uncommitted change (hookwire rule git/reset-hard) [command: `git reset --hard`]";
        assert_eq!(rule_in_reason(reason), Some("git/reset-hard"));
        assert_eq!(rule_in_reason("talks to production (hookwire rule no-prod-psql)"), Some("no-prod-psql"));
        assert_eq!(rule_in_reason("denied by hook `guard`"), None);
        assert_eq!(rule_in_reason("(hookwire rule "), None);
    }
}
