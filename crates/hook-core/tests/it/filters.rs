//! Filters: j-cli matcher semantics, regexes, AND, missing fields, bad regexes.

use crate::common;

use common::*;
use hook_core::{Context, Deadlines, Engine, Event, HookFilter, HookId, Level, OutcomeClass, Registration};

/// Whether a hook with `filter` runs on `event` over `context`; also checks filtered hooks are
/// traced as `filtered` and counted as skips.
async fn runs(filter: HookFilter, event: Event, mut context: Context) -> bool {
    let engine =
        engine_with(vec![reg(Level::User, "f", event, fixed("f", says("ran"))).filter(filter)], Deadlines::default());
    let outcome = engine.fire(event, &mut context).await;
    let ran = outcome.trace[0].outcome != OutcomeClass::Filtered;
    let skips =
        engine.metrics().into_iter().find(|(id, _)| *id == HookId::new(Level::User, "f", event)).unwrap().1.skips;
    assert_eq!(skips, u64::from(!ran));
    ran
}

fn with(f: impl FnOnce(&mut HookFilter)) -> HookFilter {
    let mut filter = HookFilter::default();
    f(&mut filter);
    filter
}

#[tokio::test]
async fn filters_match_as_the_table_says() {
    let pre = Event::PreToolExecution;
    let llm = |model: &str| Context { model: Some(model.into()), ..Context::default() };
    let rows: Vec<(&str, HookFilter, Event, Context, bool)> = vec![
        (
            "matcher piece trimmed",
            with(|f| f.tool_matcher = Some("Write| Bash ".into())),
            pre,
            tool_call("Bash", "{}"),
            true,
        ),
        ("matcher is not a regex", with(|f| f.tool_matcher = Some("Ba.*".into())), pre, tool_call("Bash", "{}"), false),
        (
            "matcher is case-sensitive",
            with(|f| f.tool_matcher = Some("bash".into())),
            pre,
            tool_call("Bash", "{}"),
            false,
        ),
        (
            "matcher with no tool",
            with(|f| f.tool_matcher = Some("Bash".into())),
            Event::SessionStart,
            Context::default(),
            false,
        ),
        (
            "tool_name wins over matcher",
            with(|f| {
                f.tool_name = Some("Bash".into());
                f.tool_matcher = Some("Write".into());
            }),
            pre,
            tool_call("Write", "{}"),
            false,
        ),
        ("tool_name exact", with(|f| f.tool_name = Some("Bash".into())), pre, tool_call("Bash", "{}"), true),
        ("model prefix", with(|f| f.model_prefix = Some("gpt-4".into())), Event::PreLlmRequest, llm("gpt-4o"), true),
        ("model prefix other", with(|f| f.model_prefix = Some("gpt-4".into())), Event::PreLlmRequest, llm("o3"), false),
        (
            "model prefix no model",
            with(|f| f.model_prefix = Some("gpt".into())),
            Event::PreLlmRequest,
            Context::default(),
            false,
        ),
        ("tool regex", with(|f| f.tool_regex = Some("^(Ba|Z)sh$".into())), pre, tool_call("Bash", "{}"), true),
        ("tool regex miss", with(|f| f.tool_regex = Some("^Write$".into())), pre, tool_call("Bash", "{}"), false),
        (
            "args regex on the JSON text",
            with(|f| f.args_regex = Some(r#""command":\s*"rm -rf"#.into())),
            pre,
            tool_call("Bash", r#"{"command": "rm -rf /"}"#),
            true,
        ),
        ("args regex no args", with(|f| f.args_regex = Some(".*".into())), Event::Stop, Context::default(), false),
        (
            "AND: both hold",
            with(|f| {
                f.tool_matcher = Some("Bash|Shell".into());
                f.args_regex = Some("sudo".into());
            }),
            pre,
            tool_call("Shell", r#"{"command":"sudo ls"}"#),
            true,
        ),
        (
            "AND: one fails",
            with(|f| {
                f.tool_matcher = Some("Bash|Shell".into());
                f.args_regex = Some("sudo".into());
            }),
            pre,
            tool_call("Shell", r#"{"command":"ls"}"#),
            false,
        ),
        ("empty filter", HookFilter::default(), Event::SessionStart, Context::default(), true),
    ];
    for (label, filter, event, context, expected) in rows {
        assert_eq!(runs(filter, event, context).await, expected, "{label}");
    }
}

#[tokio::test]
async fn a_filtered_hook_is_traced_and_the_others_run() {
    let registrations = vec![
        reg(Level::User, "only-write", Event::PreToolExecution, fixed("w", says("write")))
            .filter(with(|f| f.tool_name = Some("Write".into()))),
        reg(Level::User, "any", Event::PreToolExecution, fixed("a", says("any"))),
    ];
    let (outcome, _) = check(registrations, Event::PreToolExecution, tool_call("Bash", "{}")).await;
    insta::assert_yaml_snapshot!(outcome);
}

#[tokio::test]
async fn a_bad_regex_is_a_registration_error_not_a_panic() {
    let engine = Engine::default();
    let bad = |pattern: &str| {
        Registration::new("bad", Level::User, [Event::PreToolExecution], fixed("bad", says("x")))
            .filter(with(|f| f.tool_regex = Some(pattern.into())))
    };
    let err = engine.try_register(bad("(unclosed")).unwrap_err();
    assert!(err.to_string().starts_with("hook `bad`: filter `tool_regex` is not a valid regular expression"), "{err}");
    // Compiles to more than the size limit.
    let err = engine.try_register(bad(r"\w{1000}{1000}")).unwrap_err();
    assert!(err.message.contains("tool_regex"), "{err}");
    assert!(engine.register(bad("[z-a]")).is_empty());
    assert!(!engine.has_hooks_for(Event::PreToolExecution));
}

#[tokio::test]
async fn a_filtered_entry_says_which_condition_failed() {
    let pre = Event::PreToolExecution;
    let engine = engine_with(
        vec![
            reg(Level::User, "matcher", pre, fixed("matcher", says("ran")))
                .filter(with(|f| f.tool_matcher = Some("Bash".into()))),
            reg(Level::User, "regex", pre, fixed("regex", says("ran")))
                .filter(with(|f| f.tool_regex = Some("^Bash$".into()))),
            reg(Level::User, "runs", pre, fixed("runs", says("ran")))
                .filter(with(|f| f.tool_regex = Some("^b".into()))),
        ],
        Deadlines::default(),
    );
    let mut context = tool_call("bash", "{}");
    let outcome = engine.fire(pre, &mut context).await;
    let reasons: Vec<(OutcomeClass, Option<&str>)> =
        outcome.trace.iter().map(|entry| (entry.outcome, entry.reason.as_deref())).collect();
    assert_eq!(
        reasons,
        [
            (OutcomeClass::Filtered, Some(r#"tool_matcher "Bash" did not match tool "bash""#)),
            (OutcomeClass::Filtered, Some(r#"tool_regex "^Bash$" did not match tool "bash""#)),
            (OutcomeClass::Ok, None),
        ]
    );
}

#[tokio::test]
async fn a_session_bound_hook_says_it_is_for_another_session() {
    let stop = Event::Stop;
    let engine =
        engine_with(vec![reg(Level::User, "s", stop, fixed("s", says("ran"))).session("abc")], Deadlines::default());
    let mut context = Context { session_id: Some("xyz".into()), ..Context::default() };
    let outcome = engine.fire(stop, &mut context).await;
    assert_eq!(outcome.trace[0].reason.as_deref(), Some(r#"session "abc" is not the event's session "xyz""#));
}
